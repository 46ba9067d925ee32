"""The report's many-system section: letters and the risk-reward plot, numbers equal to the library's."""

from __future__ import annotations

import re

import rankproof
from rankproof import Qrels, Run, evaluate
from rankproof.stats.risk import trisk, urisk

from paths import CRANFIELD

NAMES = ("bm25", "tfidf", "lmdirichlet")


def test_report_shows_letters_and_one_risk_plot_per_run_against_the_baseline():
    qrels = Qrels.read_trec(CRANFIELD / "qrels.txt")
    runs = {name: Run.read_trec(CRANFIELD / f"{name}.run") for name in NAMES}
    page = rankproof.report(qrels, runs, ["ndcg@10"], n_resamples=300)
    section = page[page.index('<section id="systems">'):]
    section = section[:section.index("</section>")]
    assert re.findall(r'data-figure="(risk-[^"]+)"', section) == ["risk-ndcg@10-tfidf", "risk-ndcg@10-lmdirichlet"]
    groups = dict(re.findall(r'<td class="text">([a-z0-9]+)</td><td class="num">[0-9.]+</td>'
                             r'<td class="text">([a-z]+)</td>', section))
    assert groups == {"tfidf": "a", "bm25": "a", "lmdirichlet": "b"}
    values = {name: evaluate(qrels, run, ["ndcg@10"]).values("ndcg@10") for name, run in runs.items()}
    expected_u = urisk(values["lmdirichlet"], values["bm25"], alpha=1)
    expected_t, _ = trisk(values["lmdirichlet"], values["bm25"], alpha=1)
    assert f"lmdirichlet against bm25: URisk {expected_u:+.4f}, TRisk {expected_t:.2f}" in section
    # One p format everywhere (results.pvalues, issue 40): the page printed "p 0.0000" where the CLI said "< 0.0001".
    phrases = re.findall(r"TRisk [-0-9.]+ \((p[^)]*)\)", section)
    assert len(phrases) == 2 and all(re.fullmatch(r"p = 0\.\d{4}|p < 0\.0001", p) for p in phrases), phrases
