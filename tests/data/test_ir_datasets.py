"""Qrels by ir_datasets name: a local dataset registered in tmp_path (no network)."""

from __future__ import annotations

import pytest

ir_datasets = pytest.importorskip("ir_datasets")

from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import TrecQrels  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

from rankproof import Qrels  # noqa: E402
from rankproof.data.datasets import dataset_qrels  # noqa: E402
from rankproof.errors import InputError  # noqa: E402


class _Docs:
    def __init__(self, measures):
        self.measures = measures

    def documentation(self):
        return {"official_measures": self.measures}


def _register(tmp_path, name, measures):
    path = tmp_path / f"{name.replace('/', '_')}.qrels"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    if name not in ir_datasets.registry:
        ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(path), {0: "not", 1: "partly", 2: "yes"}),
                                                    _Docs(measures)))


def test_local_dataset_qrels_and_declarations(tmp_path):
    _register(tmp_path, "rankproof-test/local", ["nDCG@10", "AP(rel=2)"])
    judgments, info = dataset_qrels("rankproof-test/local")
    assert judgments == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
    assert info.official_measures == ("nDCG@10", "AP(rel=2)")
    assert info.relevance_level == 2
    assert info.grade_meanings == {0: "not", 1: "partly", 2: "yes"}
    assert info.quirks == ()
    assert Qrels.from_ir_datasets("rankproof-test/local").to_dict() == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}


def test_quirk_named_for_arguana_prefix(tmp_path):
    _register(tmp_path, "beir/arguana/rankproof-test", [])
    _, info = dataset_qrels("beir/arguana/rankproof-test")
    assert [policy for policy, _ in info.quirks] == ["ignore_identical_ids"]


def test_unknown_dataset_is_one_line():
    with pytest.raises(InputError, match="no dataset"):
        dataset_qrels("rankproof-test/absent")


# -- rankproof evaluate --dataset NAME RUN ----------------------------------------------
def test_evaluate_by_dataset_name_with_its_official_measures(tmp_path, capsys):
    from rankproof.cli.app import main

    _register(tmp_path, "rankproof-test/cli", ["nDCG@10", "P@1"])
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\nq2 Q0 d3 1 1.0 r\n")
    assert main(["evaluate", "--dataset", "rankproof-test/cli", str(run), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    import json
    means = json.loads(out)["runs"]["r.run"]["mean"]
    # By hand: q1 ranks d2 (0) then d1 (2): DCG 2/log2(3), ideal 2 -> 0.6309; q2: 1. P@1: 0 and 1.
    assert means == pytest.approx({"ndcg@10": (2 / 1.584962500721156 / 2 + 1) / 2, "p@1": 0.5})
    assert "official measures nDCG@10, P@1" in err


def test_evaluate_by_dataset_applies_the_identical_id_quirk(tmp_path, capsys):
    from rankproof.cli.app import main

    _register(tmp_path, "beir/arguana/rankproof-cli", [])
    run = tmp_path / "r.run"
    # q1 ranks itself first (ArguAna's queries are documents too): MTEB and BEIR drop it.
    run.write_text("q1 Q0 q1 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq2 Q0 d3 1 1.0 r\n")
    assert main(["evaluate", "--dataset", "beir/arguana/rankproof-cli", str(run), "-m", "p@1"]) == 0
    out, err = capsys.readouterr()
    assert "1.0000" in out and "ignore_identical_ids applied to r.run: 1 ranked docs" in err
    assert main(["evaluate", str(run)]) == 2            # without --dataset: qrels and a run are needed
    assert "at least one run" in capsys.readouterr().err
