"""The "why numbers differ" atlas (scripts/docs/atlas.py): every cell comes from running the tool, every
differing cell names a rankproof protocol, and that protocol gives the tool's value (checked here again
through rankproof's API and command line, not through the atlas's own search).

Expected values are computed by hand in the comments (the ties case: NDCG@3 of a, b and one of c/d).
Spark is left out here (its start takes most of a minute; tests/spark holds it to rankproof): the atlas
runs it when the site is built.
"""

from __future__ import annotations

import dataclasses
import math
import os
import subprocess
import sys

import pytest

from paths import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "docs"))

import atlas  # noqa: E402
import atlas_page  # noqa: E402
from atlas_cases import CASES, MEASURES, Case  # noqa: E402
from atlas_peers import PEERS, Outcome, Peer  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.parity, pytest.mark.oracle]

IDEAL = 1 + 1 / math.log2(3)  # a relevant doc at ranks 1 and 2
RUN_PEERS = tuple(p for p in PEERS if p.key != "spark")


@pytest.fixture(scope="module")
def built(trec_eval_binary, trec_eval9_binary):
    return atlas.build(RUN_PEERS)


@pytest.fixture(scope="module")
def page(built):
    return atlas_page.render(built)


def test_at_least_eight_tools_and_eight_cases_each_cell_from_a_run(built):
    ran = built.ran()
    assert len(ran) >= 8, [(t.key, t.missing) for t in built.tools]
    assert len(built.cases) >= 8
    peers = {p.key: p for p in RUN_PEERS}
    for tool in ran:
        for case in built.cases:
            for measure in peers[tool.key].measures:
                cell = built.cell(tool.key, case.key, measure)
                assert cell is not None, (tool.key, case.key, measure)
    # the shared cases: ties across the cutoff, unjudged, no relevant doc, k beyond the list, graded,
    # duplicates, negative grades, an empty run
    assert {"ties", "unjudged", "no_relevant", "k_beyond", "graded", "duplicates", "negative",
            "empty_run"} <= {c.key for c in built.cases}


def test_values_are_the_tools_own(built):
    # ties: a(1) b(0) then c(0)/d(1) tied at 0.5. d in the top 3: (1 + 1/log2(4)) / IDEAL (trec_eval, doc id
    # descending); c in it: 1 / IDEAL (file order: ranx, LightGBM); sklearn averages the two orders.
    by_docid, by_file = 1.5 / IDEAL, 1 / IDEAL
    assert built.cell("trec_eval", "ties", "ndcg").peer.value == pytest.approx(by_docid, abs=5e-5)
    assert built.cell("pytrec_eval", "ties", "ndcg").peer.value == pytest.approx(by_docid, abs=1e-12)
    assert built.cell("ranx", "ties", "ndcg").peer.value == pytest.approx(by_file, abs=1e-12)
    assert built.cell("lightgbm", "ties", "ndcg").peer.value == pytest.approx(by_file, abs=1e-12)
    assert built.cell("sklearn", "ties", "ndcg").peer.value == pytest.approx((by_docid + by_file) / 2, abs=1e-12)
    # graded: a(1) b(3) d(0) c(2); LightGBM's gain 2^g - 1: (1 + 7/log2 3) / (7 + 3/log2 3 + 1/2)
    exp2 = (1 + 7 / math.log2(3)) / (7 + 3 / math.log2(3) + 0.5)
    assert built.cell("lightgbm", "graded", "ndcg").peer.value == pytest.approx(exp2, abs=1e-12)
    # no relevant doc in q2 (q1 scores 1): LightGBM scores q2 1, trec_eval 0
    assert built.cell("lightgbm", "no_relevant", "ndcg").peer.value == pytest.approx(1.0)
    assert built.cell("trec_eval", "no_relevant", "ndcg").peer.value == pytest.approx(0.5, abs=5e-5)
    # k beyond the list: 2 relevant of 3 listed, P@10 = 2/10
    assert built.cell("trec_eval", "k_beyond", "p").peer.value == pytest.approx(0.2, abs=5e-5)
    # trec_eval refuses a duplicate doc and an empty run; LightGBM and scikit-learn refuse negative grades
    assert built.cell("trec_eval", "duplicates", "ndcg").peer.refused is not None
    assert built.cell("trec_eval", "empty_run", "ndcg").peer.refused is not None
    assert built.cell("lightgbm", "negative", "ndcg").peer.refused is not None
    assert built.cell("sklearn", "negative", "ndcg").peer.refused is not None


def _rankproof(case: Case, folder, explanation) -> dict[str, Outcome]:
    import rankproof

    qrels_path, run_path = case.write(folder)
    protocol = rankproof.Protocol.preset(explanation.preset).replace(**dict(explanation.policies))
    try:
        results = rankproof.evaluate(rankproof.Qrels.read(qrels_path), rankproof.Run.read(run_path),
                                     list(case.measures.values()), protocol)
    except rankproof.RankproofError as error:
        return {m: Outcome(refused=str(error)) for m in MEASURES}
    return {m: Outcome(value=results.mean(case.measures[m])) for m in MEASURES}


def test_every_named_protocol_reproduces_its_cell(built, tmp_path):
    cases = {c.key: c for c in built.cases}
    checked = 0
    for cell in built.cells:
        if cell.explanation is None:
            continue
        ours = _rankproof(cases[cell.case], tmp_path, cell.explanation)[cell.measure]
        assert atlas.matches(cell.peer, ours), (cell, ours)
        checked += 1
    assert checked > 100
    # differing cells exist, with and without extra policies, and what none explains is said
    differing = [c for c in built.cells if c.differs]
    assert any(c.explanation and c.explanation.policies for c in differing)
    assert any(c.explanation and not c.explanation.policies for c in differing)


def test_the_page_names_the_protocol_of_every_differing_cell(built, page):
    sections = page.split("### ")
    for cell in built.cells:
        if not cell.differs:
            continue
        case = next(c for c in built.cases if c.key == cell.case)
        section = next(s for s in sections if s.split("\n", 1)[0].endswith(case.title))
        row = next(line for line in section.splitlines()
                   if line.startswith(f"| {next(t.label for t in built.tools if t.key == cell.tool)} |"))
        if cell.explanation is None:
            assert "**unexplained**" in row
            label = atlas_page.label(cell.measure, case.k)
            assert any(f"[{case.title}](#{case.key}) | {label} |" in line for line in page.splitlines())
        else:
            assert f"`{cell.explanation.options() or 'the default protocol'}`" in row
            command_line = f"rankproof evaluate {case.key}.qrels {case.key}.run"
            assert any(line.startswith(command_line) and line.endswith(cell.explanation.options())
                       for line in section.splitlines())
            if cell.explanation.preset in atlas.WHY_PEERS:  # and a `rankproof why` example, with its output
                command, output = built.why[(cell.case, cell.explanation)]
                assert f"$ {command}\n{output.splitlines()[0]}" in section
                assert f" -m {case.measures[cell.measure]}" in command
    for tool in built.tools:
        assert f"| {tool.label} | {tool.version} |" in page
    assert "rankproof-atlas-" not in page  # refusals name the files as the commands do, not the build's folder


def test_the_commands_on_the_page_run(built, tmp_path):
    """A `rankproof why` example and a reproducing `rankproof evaluate`, run as a user would."""
    case = next(c for c in CASES if c.key == "not_retrieved")
    case.write(tmp_path)
    cell = built.cell("lightgbm", "not_retrieved", "ndcg")
    assert cell.differs and cell.explanation is not None
    command = ["evaluate", "not_retrieved.qrels", "not_retrieved.run", "-m", "ndcg@3",
               *cell.explanation.options().split()]
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", *command], cwd=tmp_path, capture_output=True,
                          text=True, env=os.environ | {"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert f"{cell.peer.value:.4f}" in done.stdout
    ties_command, output = built.why[("ties", atlas.Explanation("trec_eval"))]
    CASES[0].write(tmp_path)
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", *ties_command.split()[1:]], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == output
    assert "ties=expected -> docid" in output


def _fake(key: str, value: float | None, refused: str | None = None) -> Peer:
    return Peer(key, f"fake {key}", "trec_eval", ("ndcg",), "math", "a stand-in",
                lambda case, q, r: {"ndcg": Outcome(value=value, refused=refused)})


def test_a_value_no_protocol_gives_is_shown_unexplained_and_a_missing_peer_is_listed():
    ties = (CASES[0],)
    by_docid = 1.5 / IDEAL
    missing = dataclasses.replace(_fake("absent", 0.0), module="no_such_module_for_the_atlas")
    built = atlas.build((_fake("odd", 0.123), _fake("docid", by_docid), missing), ties)
    assert built.cell("odd", "ties", "ndcg").explanation is None
    assert built.cell("docid", "ties", "ndcg").explanation == atlas.Explanation("trec_eval")
    assert built.cell("absent", "ties", "ndcg") is None
    page = atlas_page.render(built)
    assert "0.1230<br>**unexplained**" in page
    # One line per missing tool, with the command that adds it (no path a user does not have).
    assert "- fake absent: not installed; .venv/bin/pip install no_such_module_for_the_atlas" in page
    assert atlas_page.missing_lines(built) == [
        "fake absent: not installed; .venv/bin/pip install no_such_module_for_the_atlas"]
    assert "What no preset or policy explains" in page
