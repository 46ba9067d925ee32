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


def test_agree_identical_qrels(capsys):
    qrels = str(CRANFIELD / "qrels.txt")
    assert main(["agree", qrels, qrels, "--qrels", qrels]) == 0
    out = capsys.readouterr().out
    assert "Cohen's kappa 1.0000" in out and "Fleiss' kappa (3 qrels) 1.0000" in out


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
