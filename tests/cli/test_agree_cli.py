"""``rankproof agree`` on Cranfield's qrels against a perturbed copy written to tmp_path."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

import rankproof
from rankproof.cli.app import main

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"


@pytest.fixture()
def perturbed(tmp_path: Path) -> tuple[Path, list[int], list[int]]:
    rng = random.Random(5)
    lines, a, b = [], [], []
    for line in (CRANFIELD / "qrels.txt").read_text().splitlines():
        query, zero, doc, grade = line.split()
        new = rng.choice([0, 1, 2, 3, 4]) if rng.random() < 0.3 else int(grade)
        a.append(int(grade))
        b.append(new)
        lines.append(f"{query} {zero} {doc} {new}")
    path = tmp_path / "perturbed.qrels"
    path.write_text("\n".join(lines) + "\n")
    return path, a, b


def test_agree_kappa_and_rankings(perturbed, capsys):
    path, a, b = perturbed
    runs = [str(CRANFIELD / name) for name in ("bm25.run", "tfidf.run", "lmdirichlet.run")]
    assert main(["agree", str(CRANFIELD / "qrels.txt"), str(path), *runs, "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert f"Cohen's kappa {cohen_kappa_score(a, b):.4f}" in out
    assert f"weighted kappa (linear) {cohen_kappa_score(a, b, weights='linear'):.4f}" in out
    assert "Kendall tau-b" in out and "seed 0" in out
    # seeded: the same output twice
    assert main(["agree", str(CRANFIELD / "qrels.txt"), str(path), *runs, "--resamples", "100"]) == 0
    assert capsys.readouterr().out == out


def test_agree_refuses_the_same_file_twice(tmp_path, capsys):
    # kappa 1 of a file with itself is a number resting on a mistake: refused in one line, by
    # path (a second spelling of the path, or the file again through --qrels, too).
    qrels = str(CRANFIELD / "qrels.txt")
    for given in ([qrels, qrels], [qrels, str(CRANFIELD / ".." / "cranfield" / "qrels.txt")],
                  [qrels, str(tmp_path / "missing.qrels"), "--qrels", qrels]):
        assert main(["agree", *given]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is given twice as judgments" in err, err


def test_agree_warns_about_identical_qrels(tmp_path, capsys):
    # Two files with one content: evaluated (kappa 1, Fleiss 1), with one warning naming the cause.
    qrels = CRANFIELD / "qrels.txt"
    copy, other = tmp_path / "copy.qrels", tmp_path / "other.qrels"
    copy.write_bytes(qrels.read_bytes())
    other.write_text(qrels.read_text().replace(" 1\n", " 2\n", 1))   # one grade differs
    assert main(["agree", str(qrels), str(copy), "--qrels", str(other), "--resamples", "20"]) == 0
    captured = capsys.readouterr()
    assert "Cohen's kappa 1.0000" in captured.out
    said = [line for line in captured.err.splitlines() if "same judgments" in line]
    assert said == [f"rankproof: warning: {copy} holds the same judgments as {qrels} (every grade "
                    "equal): what is measured is a file's agreement with itself; was the same file "
                    "given twice?"]
    assert main(["agree", str(qrels), str(other), "--resamples", "20", "--quiet"]) == 0
    assert "same judgments" not in capsys.readouterr().err   # one grade apart: nothing to say


def test_agree_alpha_ac1_and_judge_rows_with_a_third_source(perturbed, tmp_path, capsys):
    import krippendorff
    import numpy as np
    from sklearn.metrics import recall_score

    path, a, b = perturbed
    third = tmp_path / "third.qrels"
    # the third source judges every other line only: alpha handles the missing labels
    lines = (CRANFIELD / "qrels.txt").read_text().splitlines()
    third.write_text("\n".join(line for i, line in enumerate(lines) if i % 2) + "\n")
    c = [int(line.split()[3]) if i % 2 else np.nan for i, line in enumerate(lines)]
    assert main(["agree", str(CRANFIELD / "qrels.txt"), str(path), "--qrels", str(third),
                 "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    data = np.array([a, b, c], dtype=float)
    for level in ("nominal", "ordinal", "interval"):
        assert f"{level} {krippendorff.alpha(reliability_data=data, level_of_measurement=level):.4f} [" in out
    assert "Gwet's AC1 " in out and "AC2 (linear) " in out
    assert "B against A (1836 pairs)" in out and "C against A (918 pairs)" in out
    sensitivity = recall_score(a, b, labels=[4], average=None)[0]
    assert f"       4  {sensitivity:.4f} [" in out
