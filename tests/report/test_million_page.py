"""A page of a million users (issue 35) opened in a browser, built in seconds: the summary, the plots and
the drill-down working, the page under 5 MB.

Evaluating a million users is not what this checks (benchmarks/million.py times the command; the 200k
test in test_large_report.py runs it whole): the million users' values are made up and handed to the
page model as Results, as the evaluation hands them over. The drill-down and the curves come from the
evaluation of a sample of those users (the report explains a bounded sample of users, whatever their
number), and those users' values in the million are theirs, so the page agrees with itself.
``RANKPROOF_LARGE_REPORT_USERS=1000000`` runs test_large_report.py's whole command at a million.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.measures.parse import parse_measure
from rankproof.pipeline.alignment import QueryTable
from rankproof.results import Results
from rankproof.results.values import MeasureResult

from browser import DevTools, needs_chromium

USERS = 1_000_000
SAMPLE = 2_000
MEASURES = ("ndcg@10", "r@10")


def _sample(ids: np.ndarray, rng) -> tuple[Qrels, dict[str, Run]]:
    """Qrels and two runs for the first SAMPLE users: 3 liked items each, 10 predictions per run."""
    users = ids[:SAMPLE]
    qrels = {u: {f"i{(k * 7 + n) % 500}": 1 for k in range(3)} for n, u in enumerate(users.tolist())}
    runs = {}
    for name, shift in (("a", 0), ("b", 2)):
        runs[name] = Run.from_dict({u: {f"i{(n + shift + int(rng.integers(0, 4)) * 7 + j) % 500}": 10.0 - j
                                        for j in range(10)} for n, u in enumerate(users.tolist())}, name=name)
    return Qrels.from_dict(qrels), runs


def _million(sample: Results, qrels: Qrels, ids: np.ndarray, rng) -> Results:
    """A million users' Results: the sample's users with their own values, the rest drawn at random."""
    n = ids.size
    table = QueryTable(queries=ids, in_run=np.ones(n, dtype=bool), retrieved=np.full(n, 10, dtype=np.int64),
                       unjudged_retrieved=np.zeros(n, dtype=np.int64), qrels_source="truth",
                       run_source=sample.run_name, judged_queries=n)
    at = np.searchsorted(ids, np.asarray(sample.queries))
    measures = {}
    for text in MEASURES:
        measure = parse_measure(text)
        value = rng.beta(2, 5, n)
        value[at] = sample.values(measure)
        measures[measure] = MeasureResult(measure=measure, value=value, included=np.ones(n, dtype=bool),
                                          numerator=None, denominator=None, zero_ideal=np.zeros(n, dtype=bool))
    counts = {**sample.counts, "queries_in_qrels": n, "queries_in_run": n, "queries_evaluated": n}
    return Results(table=table, counts=counts, protocol=sample.protocol, measures=measures, weights=None,
                   run_name=sample.run_name, qrels=qrels, complete_judgments=True)


@pytest.fixture(scope="module")
def million_page(tmp_path_factory):
    from rankproof.pages.build import prepare
    from rankproof.pages.evaluated import results_page
    from rankproof.report.html import render

    rng = np.random.default_rng(35)
    ids = np.char.add("u", np.char.zfill(np.arange(USERS).astype(str), 7))   # sorted, as Results keep them
    qrels, runs = _sample(ids, rng)
    sampled = prepare(qrels, runs, list(MEASURES), n_resamples=200)
    million = [_million(r, qrels, ids, rng) for r in sampled.results]
    page = results_page(million, baseline="a", n_resamples=200)
    # What comes from the rankings (curves, the drill-down) is the sample's: the report draws those from
    # a bounded sample of users too.
    page = dataclasses.replace(page, drill=sampled.drill, cutoffs=sampled.cutoffs, cutoff_curves=sampled.cutoff_curves,
                               judged_curves=sampled.judged_curves, pr_curves=sampled.pr_curves,
                               gain_discount=sampled.gain_discount, missing=())
    out = tmp_path_factory.mktemp("million") / "report.html"
    out.write_text(render(page), encoding="utf-8")
    return out, sampled.drill


def test_the_page_of_a_million_users_stays_under_5_mb(million_page):
    out, _ = million_page
    page = out.read_text(encoding="utf-8")
    assert out.stat().st_size < 5_000_000
    # the comparison is over every user, with the method chosen for their number stated
    assert "1,000,000" in page and "paired t-test" in page


@needs_chromium
def test_a_browser_finds_the_summary_the_plots_and_the_drill_down_of_a_million_users(million_page, tmp_path):
    out, drill = million_page
    browser = DevTools(tmp_path / "profile")
    try:
        session = browser.open(out.as_uri())
        browser.evaluate(session, "new Promise(r => { const t = () => document.getElementById('drill').dataset.query "
                                  "? r(1) : setTimeout(t, 50); t(); })")   # the drill-down's script has run
        query = drill["queries"][-1]
        seen = browser.evaluate(session, f"""(() => {{
            const means = document.querySelectorAll('#summary td[data-key="mean"]').length;
            const plots = document.querySelectorAll('svg.figure').length;
            const bars = document.querySelectorAll('#differences rect[data-query]').length;
            const select = document.querySelector('#drill select.query');
            select.value = {json.dumps(query)};
            select.dispatchEvent(new Event('change'));
            const first = document.querySelector('#drill-rankings .ranking[data-run="b"] tr:nth-child(2)');
            return {{means, plots, bars, options: select.options.length,
                     query: document.getElementById('drill').dataset.query,
                     firstDoc: first ? first.children[1].textContent : null}};
        }})()""")
        rows = drill["rankings"]["b"][drill["queries"].index(query)]
        assert seen["means"] == 4 and seen["plots"] >= 8 and 0 < seen["bars"] <= 2 * 600, seen
        assert seen["options"] == len(drill["queries"]) and seen["query"] == query
        assert seen["firstDoc"] == (str(rows[0][0]) if rows else None)
        errors = [e for e in browser.events
                  if e.get("method") == "Runtime.exceptionThrown"
                  or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
        assert errors == []
    finally:
        browser.close()


def test_the_mean_on_the_page_is_the_million_users_mean(million_page):
    out, _ = million_page
    page = out.read_text(encoding="utf-8")
    shown = re.search(r'data-key="mean" data-run="a" data-measure="ndcg@10" data-value="([^"]+)"', page)
    count = re.search(r'data-key="count" data-run="a" data-measure="ndcg@10" data-value="([^"]+)"', page)
    assert shown is not None and 0.2 < float(shown.group(1)) < 0.4   # Beta(2, 5)'s mean is 2/7
    assert count is None or int(float(count.group(1))) == USERS
