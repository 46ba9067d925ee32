"""The report's judge-bias and leaderboard sections (issue 38): found in the HTML with their values.

Expected values are computed here, not by rankproof: each run's precision@2
per topic counted by hand from the labels, the judge - human interval by
scipy's paired t-test (``ttest_rel(...).confidence_interval``), Kendall's
tau-b by scipy, the leaderboard's ranks from the hand-computed means and its
p-values by scipy's one-sided paired t-tests with Holm's correction written
out; the bootstrap rank intervals are checked by their properties (each holds
the rank; the shares of first places are fractions of the resamples).
"""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest
from scipy.stats import kendalltau, ttest_rel

from rankproof.cli.app import main

TOPICS = [f"topic-{i:03d}" for i in range(12)]
DOCS = ["a", "b", "c", "d"]
RUNS = {"x": ["a", "b", "c", "d"], "y": ["c", "a", "d", "b"], "z": ["d", "c", "b", "a"]}


def _labels(seed: int) -> tuple[dict, dict]:
    """Human and judge labels (0/1) of every (topic, doc); the judge flips a third of them."""
    rng = np.random.default_rng(seed)
    human = {t: {d: int(rng.random() < 0.5) for d in DOCS} for t in TOPICS}
    judge = {t: {d: (1 - g) if rng.random() < 0.33 else g for d, g in docs.items()} for t, docs in human.items()}
    return human, judge


def _write_qrels(path, labels: dict) -> str:
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in labels.items() for d, g in docs.items()))
    return str(path)


def _write_run(path, order: list[str], name: str) -> str:
    # Every topic ranks the docs in the run's order (scores descending).
    path.write_text("".join(f"{t} Q0 {d} {r + 1} {10 - r} {name}\n" for t in TOPICS for r, d in enumerate(order)))
    return str(path)


def _p2(labels: dict, order: list[str]) -> np.ndarray:
    """precision@2 per topic: relevant docs among the first two, over 2."""
    return np.array([(labels[t][order[0]] + labels[t][order[1]]) / 2 for t in TOPICS])


def _cell(page: str, key: str, run: str) -> float:
    found = re.search(rf'data-key="{key}" data-run="{run}" data-measure="p@2" data-value="([^"]*)"', page)
    assert found, (key, run)
    return float(unescape(found.group(1)))


def _section(page: str, sid: str) -> str:
    start = page.index(f'<section id="{sid}"')
    return page[start:page.index("</section>", start)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judgments")
    human, judge = _labels(38)
    paths = {"human": _write_qrels(folder / "human.qrels", human), "judge": _write_qrels(folder / "judge.qrels", judge)}
    paths.update({name: _write_run(folder / f"{name}.run", order, name) for name, order in RUNS.items()})
    return folder, paths, human, judge


def _report(folder, paths, name: str, runs, *extra) -> str:
    out = folder / name
    labels = [part for r in runs for part in ("--label", f"{r}={paths[r]}")]
    assert main(["report", paths["human"], *(paths[r] for r in runs), *labels,
                 "-m", "p@2", "--resamples", "200", "--quiet", "-o", str(out), *extra]) == 0
    return out.read_text(encoding="utf-8")


def test_the_judge_bias_section_holds_each_runs_difference_and_its_t_interval(files):
    folder, paths, human, judge = files
    page = _report(folder, paths, "with-judge.html", RUNS, "--judge", paths["judge"])
    section = _section(page, "judge-bias")
    assert 'data-figure="judge-bias"' in section and '<a href="#judge-bias">' in page
    human_means, judge_means = [], []
    for name, order in RUNS.items():
        under_h, under_j = _p2(human, order), _p2(judge, order)
        interval = ttest_rel(under_j, under_h).confidence_interval(0.95)
        assert _cell(section, "bias_human", name) == pytest.approx(under_h.mean(), abs=1e-12)
        assert _cell(section, "bias_judge", name) == pytest.approx(under_j.mean(), abs=1e-12)
        assert _cell(section, "bias_difference", name) == pytest.approx((under_j - under_h).mean(), abs=1e-12)
        assert _cell(section, "bias_low", name) == pytest.approx(interval.low, abs=1e-12)
        assert _cell(section, "bias_high", name) == pytest.approx(interval.high, abs=1e-12)
        human_means.append(under_h.mean())
        judge_means.append(under_j.mean())
    tau = kendalltau(human_means, judge_means).statistic
    assert f"Kendall tau-b {tau:.3f}" in unescape(section)
    # Bounded: one row per run, no topic named.
    assert not any(topic in section for topic in TOPICS)


def test_the_leaderboard_section_ranks_the_runs_and_tests_them_against_the_best(files):
    folder, paths, human, _ = files
    page = _report(folder, paths, "with-judge.html", RUNS, "--judge", paths["judge"])
    section = _section(page, "leaderboard")
    assert 'data-figure="leaderboard-ranks"' in section
    scores = {name: _p2(human, order) for name, order in RUNS.items()}
    means = {name: values.mean() for name, values in scores.items()}
    assert len(set(means.values())) == 3, "the example needs distinct means"
    best = max(means, key=means.__getitem__)
    by_mean = sorted(means, key=means.__getitem__, reverse=True)
    others = [name for name in by_mean if name != best]
    raw = [ttest_rel(scores[best], scores[name], alternative="greater").pvalue for name in others]
    # Holm: the k-th smallest p times (m - k + 1), made monotone, capped at 1.
    order = np.argsort(raw)
    holm, running = {}, 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, raw[i] * (len(raw) - k)))
        holm[others[i]] = running
    firsts = 0.0
    for rank, name in enumerate(by_mean, start=1):
        assert _cell(section, "board_mean", name) == pytest.approx(means[name], abs=1e-12)
        assert _cell(section, "board_rank", name) == rank
        assert _cell(section, "board_rank_low", name) <= rank <= _cell(section, "board_rank_high", name)
        first = _cell(section, "board_first", name)
        assert 0 <= first <= 1 and (first * 1000) == pytest.approx(round(first * 1000))
        firsts += first
        if name != best:
            assert _cell(section, "board_p", name) == pytest.approx(holm[name], rel=1e-10)
    assert firsts <= 1 + 1e-12
    assert not any(topic in section for topic in TOPICS)


def test_without_judge_no_judge_section_and_two_runs_no_leaderboard(files):
    folder, paths, _, _ = files
    page = _report(folder, paths, "plain.html", RUNS)
    assert 'id="judge-bias"' not in page and 'href="#judge-bias"' not in page
    assert 'id="leaderboard"' in page
    two = _report(folder, paths, "two.html", ["x", "y"], "--judge", paths["judge"])
    assert 'id="judge-bias"' in two
    assert 'id="leaderboard"' not in two and 'href="#leaderboard"' not in two


def test_judge_with_one_run_or_intents_is_refused_in_one_line(files, capsys):
    folder, paths, _, _ = files
    out = folder / "refused.html"
    assert main(["report", paths["human"], paths["x"], "--judge", paths["judge"], "-o", str(out)]) == 2
    assert main(["report", paths["human"], paths["x"], paths["y"], "--judge", paths["judge"], "--intents",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--judge compares two or more runs" in err and "--judge takes plain qrels" in err
    assert "Traceback" not in err and not out.exists()


def test_from_python_judge_adds_the_section_with_the_same_numbers(files):
    import rankproof
    from rankproof import Qrels, Run

    folder, paths, human, judge = files
    runs = {name: Run.read_trec(paths[name]) for name in RUNS}
    page = rankproof.report(Qrels.read_trec(paths["human"]), runs, ["p@2"], n_resamples=200,
                            judge=Qrels.read_trec(paths["judge"]))
    under_h, under_j = _p2(human, RUNS["y"]), _p2(judge, RUNS["y"])
    assert _cell(_section(page, "judge-bias"), "bias_difference", "y") == pytest.approx(
        (under_j - under_h).mean(), abs=1e-12)


def test_past_the_stated_topics_the_leaderboard_is_left_out_and_said(files, monkeypatch):
    from rankproof import Qrels, Run
    from rankproof.pages import judgments
    from rankproof.pages.build import prepare

    _, paths, _, _ = files
    monkeypatch.setattr(judgments, "LEADERBOARD_MAX_TOPICS", len(TOPICS) - 1)
    data = prepare(Qrels.read_trec(paths["human"]), {name: Run.read_trec(paths[name]) for name in RUNS}, ["p@2"],
                   n_resamples=200)
    assert not (data.judgments or {}).get("leaderboard")
    assert any("leaderboard of p@2: 12 shared queries, past the page's 11" in line for line in data.missing)
