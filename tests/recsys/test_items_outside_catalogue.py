"""Items recommended outside the --items catalogue are warned about, never silently dropped (issue 36 #14).

Two users, each with one catalogue item (i1, i2) and one item the catalogue
lacks (i9, i8) in the top 10: coverage@10 = 2 / 2 = 1.0 by hand, and two items
outside the catalogue that the value leaves out. Before, no line said so.
"""

from __future__ import annotations

from rankproof.cli.app import main

QRELS = "u1 0 i1 1\nu2 0 i2 1\n"
RUN = "u1 Q0 i1 1 2 r\nu1 Q0 i9 2 1 r\nu2 Q0 i2 1 2 r\nu2 Q0 i8 2 1 r\n"


def _files(folder, items: str):
    (folder / "q").write_text(QRELS)
    (folder / "r").write_text(RUN)
    (folder / "items.csv").write_text(items)


def test_the_cli_warns_of_items_outside_the_catalogue(tmp_path, monkeypatch, capsys):
    _files(tmp_path, "item\ni1\ni2\n")
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "q", "r", "-m", "ndcg@10", "-m", "coverage@10", "--items", "items.csv"]) == 0
    captured = capsys.readouterr()
    assert "1.0000" in captured.out   # the value is still shown, as defined
    lines = [line for line in captured.err.splitlines() if "catalogue" in line]
    assert len(lines) == 1, captured.err
    assert "coverage@10: 2 items recommended in the top 10 are not in the item catalogue" in lines[0]
    assert "check the items file" in lines[0]


def test_a_catalogue_holding_every_recommended_item_raises_no_warning(tmp_path, monkeypatch, capsys):
    _files(tmp_path, "item\ni1\ni2\ni8\ni9\ni7\n")
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "q", "r", "-m", "ndcg@10", "-m", "coverage@10", "--items", "items.csv"]) == 0
    assert "catalogue" not in capsys.readouterr().err


def test_results_warnings_hold_the_side_warning():
    from rankproof import Qrels, Run
    from rankproof.recsys import SideData, evaluate_with_side

    qrels = Qrels.from_dict({"u1": {"i1": 1}, "u2": {"i2": 1}})
    run = Run.from_dict({"u1": {"i1": 2.0, "i9": 1.0}, "u2": {"i2": 2.0, "i8": 1.0}})
    results = evaluate_with_side(qrels, run, ["ndcg@10", "coverage@1", "coverage@10"],
                                 SideData(items=["i1", "i2"]))
    # @1 shows i1 and i2 only (both in the catalogue): no line; @10 adds i9 and i8.
    found = [w for w in results.warnings if "catalogue" in w]
    assert len(found) == 1 and found[0].startswith("coverage@10: 2 items"), results.warnings
    assert "warning: coverage@10: 2 items" in results.summary()
