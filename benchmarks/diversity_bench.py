"""alpha-nDCG@20 on judgments per intent: rankproof against NIST's ndeval (pyndeval).

In memory, seeded: 1,000 queries x 1,000 ranked docs (1M ranked rows), 10
intents per query; each query judges 100 docs (80 of them retrieved), each
judged doc is judged for every intent with probability 0.3, grade 0-2.
Scores are distinct (pyndeval breaks ties by doc id ascending, rankproof's
ties=docid descending as trec_eval: on distinct scores both read one order).

Before any time is printed, rankproof's per-query alpha-nDCG@20 is checked
against pyndeval's on every query (1e-12).

Timed (median of --repeat calls, each a full call):

- rankproof ``evaluate(IntentQrels, Run, "alpha_ndcg@20")``: alignment,
  intent table and compiled kernel, what a user calls (the doc-level
  judgments an IntentQrels builds on first use are cached, and timed apart);
- the parts: ``pipeline.align``; ``attach_intents``; the measure alone;
- pyndeval ``ndeval(qrels, run, ["alpha-nDCG@20"])`` on Python tuples (it
  builds its qrels per call, sorts each query's run in Python, then runs
  ndeval's C code).

    python benchmarks/diversity_bench.py [--queries 1000] [--docs 1000] [--intents 10] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from rankproof import IntentQrels, Run, evaluate
from rankproof.pipeline.intents import attach_intents
from rankproof.measures.parse import parse_measure
from rankproof.measures.compute import Context
from rankproof.pipeline.alignment import align
from rankproof.protocol import Protocol
from timing import median_seconds


def make_data(queries: int, docs: int, intents: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    query_ids = np.array([f"q{q}" for q in range(queries)])
    doc_ids = np.array([f"d{d:05d}" for d in range(docs + 20)])
    # Run: `docs` docs per query, distinct scores.
    run_query = np.repeat(np.arange(queries), docs)
    run_doc = np.concatenate([rng.permutation(docs + 20)[:docs] for _ in range(queries)])
    run_score = np.concatenate([rng.permutation(docs) for _ in range(queries)]).astype(np.float64) / docs
    # Judged: 80 retrieved docs (the run's first 80 rows of each query are random docs) plus 20 unretrieved.
    rows_q, rows_i, rows_d, rows_g = [], [], [], []
    for q in range(queries):
        retrieved = run_doc[q * docs : q * docs + 80]
        others = np.setdiff1d(np.arange(docs + 20), run_doc[q * docs : (q + 1) * docs])[:20]
        judged = np.concatenate([retrieved, others])
        mask = rng.random((len(judged), intents)) < 0.3
        d_index, i_index = np.nonzero(mask)
        rows_q.append(np.full(len(d_index), q))
        rows_d.append(judged[d_index])
        rows_i.append(i_index + 1)
        rows_g.append(rng.integers(0, 3, len(d_index)))
    qq, ii, dd, gg = (np.concatenate(x) for x in (rows_q, rows_i, rows_d, rows_g))
    qrels = IntentQrels(query=query_ids[qq], intent=ii.astype(str), doc=doc_ids[dd], grade=gg, source="bench")
    run = Run(query_codes=run_query, queries=query_ids, doc_codes=run_doc, docs=doc_ids, scores=run_score,
              source="bench")
    # pyndeval's input: Python tuples, the run grouped by query.
    nd_qrels = list(zip(query_ids[qq].tolist(), ii.astype(str).tolist(), doc_ids[dd].tolist(), gg.tolist()))
    nd_run = list(zip(query_ids[run_query].tolist(), doc_ids[run_doc].tolist(), run_score.tolist()))
    return qrels, run, nd_qrels, nd_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--intents", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    qrels, run, nd_qrels, nd_run = make_data(args.queries, args.docs, args.intents)
    print(f"{args.queries} queries x {args.docs} ranked docs, {args.intents} intents, {len(qrels)} judgments")
    measure = "alpha_ndcg@20"
    results = evaluate(qrels, run, measure)
    mine = results.per_query(measure)
    try:
        import pyndeval
    except ImportError:
        pyndeval = None
    if pyndeval is not None:
        expected = pyndeval.ndeval(nd_qrels, nd_run, measures=["alpha-nDCG@20"])
        worst = max(abs(mine[q] - v["alpha-nDCG@20"]) for q, v in expected.items())
        if len(expected) != len(mine) or worst > 1e-12:
            raise SystemExit(f"rankproof and pyndeval disagree: {len(expected)} vs {len(mine)} queries, "
                             f"largest difference {worst:.3g}")
        print(f"values: rankproof = pyndeval on all {len(expected)} queries (largest difference {worst:.1e})")

    protocol = Protocol()
    total, _ = median_seconds(lambda: evaluate(qrels, run, measure), args.repeat)
    aligned_time, alignment = median_seconds(lambda: align(qrels.doc_qrels, run, protocol), args.repeat)
    doc_level_time, _ = median_seconds(lambda: IntentQrels.doc_qrels.func(qrels), args.repeat)
    attach_time, with_intents = median_seconds(lambda: attach_intents(alignment, qrels), args.repeat)
    parsed = parse_measure(measure)
    kernel_time, _ = median_seconds(lambda: parsed.spec.compute(Context(with_intents, protocol), parsed), args.repeat)
    print(f"rankproof evaluate({measure})   {total:8.3f} s   (median of {args.repeat})")
    print(f"  doc-level qrels (once per IntentQrels, cached: not in the line above) {doc_level_time:.3f} s")
    print(f"  align                        {aligned_time:8.3f} s")
    print(f"  attach_intents               {attach_time:8.3f} s")
    print(f"  the measure (compiled)       {kernel_time:8.3f} s")
    if pyndeval is not None:
        theirs, _ = median_seconds(lambda: pyndeval.ndeval(nd_qrels, nd_run, measures=["alpha-nDCG@20"]), args.repeat)
        print(f"pyndeval ndeval(alpha-nDCG@20) {theirs:8.3f} s   ({theirs / total:.1f}x rankproof)")


if __name__ == "__main__":
    main()
