"""The synthetic judge: its error rates are the stated ones, and the shipped files are what the script writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import rankproof
from rankproof import Qrels
from rankproof.errors import InputError
from rankproof.stats.simulated_judge import simulated_judge, topic_sample

from paths import ROOT

CRANFIELD = Path(rankproof.__file__).parent / "_data" / "cranfield"


def test_error_rates_are_the_stated_ones():
    truth = Qrels.read_trec(CRANFIELD / "qrels.txt").to_dict()
    extra = {q: [f"x{i}" for i in range(20)] for q in truth}
    judge = simulated_judge(truth, extra=extra, lenient=0.3, noise=0.2, false_positive=0.1, seed=5)
    pairs = [(q, d) for q in truth for d in truth[q]]
    up = np.mean([judge[q][d] == min(4, truth[q][d] + 1) and truth[q][d] < 4 for q, d in pairs])
    below_top = np.mean([truth[q][d] < 4 for q, d in pairs])
    # P(one up) = lenient + (1 - lenient) noise / 5 for grades below the top
    expected = below_top * (0.3 + 0.7 * 0.2 / 5)
    n = len(pairs)
    assert abs(up - expected) < 4 * np.sqrt(expected * (1 - expected) / n)
    positives = np.mean([judge[q][f"x{i}"] for q in truth for i in range(20)])
    assert abs(positives - 0.1) < 4 * np.sqrt(0.1 * 0.9 / (20 * len(truth)))


def test_shipped_files_are_what_the_script_writes():
    spec = importlib.util.spec_from_file_location("cranfield_judge", ROOT / "scripts" / "cranfield_judge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.texts(CRANFIELD).items():
        assert (CRANFIELD / name).read_text() == text, name
    sample = Qrels.read_trec(CRANFIELD / "human_sample.qrels").to_dict()
    truth = Qrels.read_trec(CRANFIELD / "qrels.txt").to_dict()
    assert len(sample) == 50 and all(sample[q] == truth[q] for q in sample)


def test_bad_rates_and_sizes():
    with pytest.raises(InputError, match="lenient"):
        simulated_judge({"q": {"d": 1}}, lenient=1.5)
    with pytest.raises(InputError, match="sample size"):
        topic_sample({"q": {"d": 1}}, 2)
