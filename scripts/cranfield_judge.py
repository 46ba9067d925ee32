"""Make the shipped synthetic judge and human sample of Cranfield (docs/guide/llm-judgments.md).

    python scripts/cranfield_judge.py src/rankproof/_data/cranfield

writes ``llm_judge.qrels`` (a noisy judge: every (query, doc) of Cranfield's
qrels plus the unjudged docs in the top 10 of the three shipped runs, under
the error model of :mod:`rankproof.stats.simulated_judge` with its default
rates, seed 38) and ``human_sample.qrels`` (Cranfield's own judgments of 50
topics drawn uniformly, seed 38). tests/stats/test_simulated_judge.py
rebuilds both and checks that the shipped files are what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rankproof import Qrels, Run
from rankproof.stats.simulated_judge import simulated_judge, topic_sample

SEED = 38
SAMPLE = 50
RUNS = ("bm25.run", "tfidf.run", "lmdirichlet.run")


def _top(run: dict, depth: int) -> dict:
    return {q: [d for d, _ in sorted(docs.items(), key=lambda item: (-item[1], item[0]))[:depth]]
            for q, docs in run.items()}


def texts(folder: Path) -> dict[str, str]:
    """The two files' text, from Cranfield's qrels and runs in `folder`."""
    truth = Qrels.read_trec(folder / "qrels.txt").to_dict()
    extra: dict = {}
    for name in RUNS:
        for query, docs in _top(Run.read_trec(folder / name).to_dict(), 10).items():
            extra.setdefault(query, []).extend(d for d in docs if d not in extra[query])
    judge = simulated_judge(truth, extra=extra, seed=SEED)
    human = topic_sample(truth, SAMPLE, seed=SEED)

    def trec(qrels: dict) -> str:
        return "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())

    return {"llm_judge.qrels": trec(judge), "human_sample.qrels": trec(human)}


if __name__ == "__main__":
    target = Path(sys.argv[1])
    for file_name, text in texts(target).items():
        (target / file_name).write_text(text)
