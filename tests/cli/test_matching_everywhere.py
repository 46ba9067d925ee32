"""The partial-match guard's warning reaches compare and report (page and stderr), not only evaluate (issue 28).

Cranfield's runs with queries 1-30 zero-padded ('001') and 31-99 renamed to
ids no qrels judge (1031 ...): 126 of 225 queries match, above the coverage
check's half, and the padding explains 30 of the 99 unmatched, too few to
refuse: a warning that names zero padding and the fix.
"""

from __future__ import annotations

import json
import warnings

import pytest
from paths import CRANFIELD

from rankproof import Qrels, Run, compare
from rankproof.cli.app import main
from rankproof.errors import RankproofWarning

QRELS = CRANFIELD / "qrels.txt"
CAUSE = "query ids differ by zero padding"
FIX = "--policy ids=strip_zeros"


def _padded(source, target):
    lines = []
    for line in source.read_text().split("\n"):
        if not line.strip():
            continue
        query, *rest = line.split()
        number = int(query)
        query = f"{number:03d}" if number <= 30 else str(number + 1000) if number < 100 else query
        lines.append(" ".join([query, *rest]))
    target.write_text("\n".join(lines) + "\n")
    return target


@pytest.fixture()
def padded(tmp_path):
    return [_padded(CRANFIELD / f"{name}.run", tmp_path / f"{name}.run") for name in ("bm25", "tfidf")]


def test_compare_warns_on_stderr(padded, capsys):
    assert main(["compare", str(QRELS), *map(str, padded), "-m", "ndcg@10", "--resamples", "100"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if CAUSE in line]
    assert len(lines) == 2 and all(FIX in line and line.startswith("rankproof: warning: ") for line in lines)
    assert "bm25:" in lines[0] and "tfidf:" in lines[1]
    assert main(["compare", str(QRELS), *map(str, padded), "-m", "ndcg@10", "--resamples", "100", "--quiet",
                 "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert CAUSE not in err
    assert [line.split(":")[0] for line in json.loads(out)["warnings"]] == ["bm25", "tfidf"]


def test_compare_keeps_the_warnings(padded):
    runs = {path.stem: Run.read(path) for path in padded}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankproofWarning)
        comparison = compare(Qrels.read(QRELS), runs, ["ndcg@10"], n_resamples=100)
    assert [line.split(":")[0] for line in comparison.warnings] == ["bm25", "tfidf"]
    assert all(CAUSE in line for line in comparison.warnings)


def test_report_warns_on_the_page_and_stderr(padded, tmp_path, capsys):
    page = tmp_path / "report.html"
    assert main(["report", str(QRELS), *map(str, padded), "-m", "ndcg@10", "--resamples", "100",
                 "-o", str(page)]) == 0
    err = capsys.readouterr().err
    assert [line.split(": ")[1] for line in err.splitlines() if CAUSE in line] == ["bm25.run", "tfidf.run"]
    html = page.read_text()
    header = html[html.index("<header"):html.index("</header>")]     # above the results, not only in counts
    assert header.count(CAUSE) == 2 and FIX in header


def test_agree_warns_on_stderr(padded, capsys, tmp_path):
    # A copy: the same judgments file given twice is refused (cli/two_qrels).
    judged = tmp_path / "judged_again.txt"
    judged.write_bytes(QRELS.read_bytes())
    assert main(["agree", str(QRELS), str(judged), *map(str, padded), "--resamples", "20"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if CAUSE in line]
    assert [line.split(": warning")[0] for line in lines] == [
        "rankproof: bm25.run (qrels A)", "rankproof: bm25.run (qrels B)",
        "rankproof: tfidf.run (qrels A)", "rankproof: tfidf.run (qrels B)"]
