"""In memory, C-shaped data: rankproof's engines against ranx's warm ``evaluate``.

100,000 queries x 100 ranked docs (10M ranked rows), grades 0-3, ~9% of the
retrieved docs judged (more near the top) plus 5 judged unretrieved docs per
query, scores with 3 decimals (so some ties). Every object is built before
any timing; the data is generated in memory, seeded, in a few seconds.

Measures: ndcg@10, ap@100, rr@10, p@10, r@100 (ranx: ndcg@10, map@100,
mrr@10, precision@10, recall@100). Before timing, the script checks that

- rankproof's engines agree (compiled and numpy, every query, 1e-12), and
- ranx agrees with rankproof on every query without tied scores (ranx orders
  tied docs with numba's unstable argsort, so no protocol reproduces it under
  ties; rankproof's default protocol matches ranx's conventions otherwise:
  linear gain, ideal from the judged pool, AP over R, P over k, R over R,
  0 for a query with nothing relevant).

Timed (median of --repeat runs, each a full call; the tools take turns):

- rankproof ``evaluate`` with the compiled engine (the default) and with
  ``engine="numpy"`` (alignment included: what a user calls);
- the alignment alone (``rankproof.pipeline.align``) and each engine alone
  on a ready alignment (where the time goes);
- ranx ``evaluate`` on ranx Qrels/Run, after one untimed call that compiles
  or loads Numba's cache (ranx warm);
- pytrec_eval (``--pytrec``: needs ~3 GB for 10M entries in Python dicts).

    python benchmarks/engine_bench.py [--queries 100000] [--docs 100] [--repeat 3] [--pytrec] [--json PATH]

``--json PATH`` also writes the rows as JSON (benchmarks/results.py); a row's
``ratio`` is ranx's seconds over its own (ranx's row: null).
"""

from __future__ import annotations

import argparse
import gc
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import row, write_results  # noqa: E402

from rankproof import Protocol, Qrels, Run, evaluate  # noqa: E402
from rankproof.pipeline.alignment import align  # noqa: E402
from rankproof.engines import get_engine  # noqa: E402
from rankproof.measures.parse import parse_measures  # noqa: E402

MEASURES = {"ndcg@10": "ndcg@10", "ap@100": "map@100", "rr@10": "mrr@10", "p@10": "precision@10",
            "r@100": "recall@100"}
VOCABULARY = 1_000_000  # distinct retrievable doc ids
UNRETRIEVED = 5         # judged docs per query that the run does not return


def generate(num_queries: int, depth: int, seed: int):
    """Columns of a run and its qrels, as codes into sorted id vocabularies."""
    rng = np.random.default_rng(seed)
    rank = np.tile(np.arange(depth, dtype=np.int64), num_queries)
    query = np.repeat(np.arange(num_queries, dtype=np.int64), depth)
    # 100 distinct docs per query: rank * 9973 < 1e6 for rank < 100.
    doc = (query * 1000 + rank * 9973) % VOCABULARY
    # Scores with 3 decimals, sorted descending within each query (as run files
    # are): 100 draws from 2,000 levels, so most queries have a tie somewhere.
    score = -np.sort(-(rng.integers(0, 2000, size=(num_queries, depth)) / 1000.0), axis=1).reshape(-1)
    # Judged: ~9% of the retrieved docs, more near the top; grades 0-3.
    judged = rng.random(len(rank)) < 0.03 + 0.3 * np.exp(-rank / 15.0)
    grade = rng.choice(4, size=len(rank), p=[0.5, 0.25, 0.15, 0.1])
    qrels_query = np.concatenate([query[judged], np.repeat(np.arange(num_queries), UNRETRIEVED)])
    qrels_doc = np.concatenate([doc[judged], VOCABULARY + np.arange(num_queries * UNRETRIEVED)])
    qrels_grade = np.concatenate([grade[judged], rng.choice(4, size=num_queries * UNRETRIEVED,
                                                            p=[0.4, 0.3, 0.2, 0.1])])
    order = np.lexsort((qrels_doc, qrels_query))
    return (query, doc, score), (qrels_query[order], qrels_doc[order], qrels_grade[order])


def build_rankproof(num_queries, run_columns, qrels_columns):
    queries = np.array([f"q{i:06d}" for i in range(num_queries)])
    run_docs = np.array([f"D{i:07d}" for i in range(VOCABULARY)])
    unretrieved = np.array([f"U{i:07d}" for i in range(num_queries * UNRETRIEVED)])
    qrels_docs = np.concatenate([run_docs, unretrieved])  # "D..." < "U...": still sorted
    query, doc, score = run_columns
    run = Run(query_codes=query, queries=queries, doc_codes=doc, docs=run_docs, scores=score, source="run")
    q_query, q_doc, q_grade = qrels_columns
    qrels = Qrels(query_codes=q_query, queries=queries, doc_codes=q_doc, docs=qrels_docs, grades=q_grade,
                  source="qrels")
    return qrels, run, queries, qrels_docs


def build_ranx(queries, docs, run_columns, qrels_columns):
    import ranx

    def nested(query, doc, value, cast):
        bounds = np.flatnonzero(np.r_[True, query[1:] != query[:-1], True])
        doc_ids, values = docs[doc].tolist(), [cast(v) for v in value.tolist()]
        return {queries[query[a]]: dict(zip(doc_ids[a:b], values[a:b])) for a, b in zip(bounds[:-1], bounds[1:])}

    query, doc, score = run_columns
    run = ranx.Run(nested(query, doc, score, float))
    q_query, q_doc, q_grade = qrels_columns
    qrels = ranx.Qrels(nested(q_query, q_doc, q_grade, int))
    return qrels, run


def median_seconds(functions: dict, repeat: int, times: dict | None = None) -> dict:
    """Median wall time of each function; the runs are interleaved (one of
    each, `repeat` times) so that a change in the machine's load falls on
    every tool alike. Every run's time goes into `times` when given."""
    times = {} if times is None else times
    times.update({name: [] for name in functions})
    for _ in range(repeat):
        for name, function in functions.items():
            gc.collect()
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def untied_queries(run_columns, num_queries: int) -> np.ndarray:
    query, _, score = run_columns
    tied = (query[1:] == query[:-1]) & (score[1:] == score[:-1])
    has_tie = np.zeros(num_queries, dtype=bool)
    has_tie[query[1:][tied]] = True
    return ~has_tie


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--no-ranx", action="store_true", help="skip ranx")
    parser.add_argument("--pytrec", action="store_true", help="also time pytrec_eval (needs ~3 GB)")
    parser.add_argument("--json", metavar="PATH", help="also write the results there as JSON")
    args = parser.parse_args()

    start = time.perf_counter()
    run_columns, qrels_columns = generate(args.queries, args.docs, args.seed)
    qrels, run, queries, docs = build_rankproof(args.queries, run_columns, qrels_columns)
    print(f"{args.queries:,} queries x {args.docs} docs = {len(run):,} ranked rows, {len(qrels):,} judgments; "
          f"generated and built in {time.perf_counter() - start:.1f} s")
    measures = list(MEASURES)
    protocol = Protocol()

    # -- agreement before any time ------------------------------------------------
    compiled = evaluate(qrels, run, measures, protocol)
    reference = evaluate(qrels, run, measures, protocol, engine="numpy")
    for m in measures:
        diff = float(np.max(np.abs(compiled.values(m) - reference.values(m))))
        if diff > 1e-12:
            print(f"compiled and numpy engines disagree on {m}: max diff {diff:.1e}")
            return 1
    print("engines agree: compiled = numpy on every query and measure (1e-12)")

    alignment = align(qrels, run, protocol)
    measure_list = parse_measures(measures)
    timed = {
        "rankproof evaluate (compiled engine)": lambda: evaluate(qrels, run, measures, protocol),
        "rankproof evaluate (numpy engine)": lambda: evaluate(qrels, run, measures, protocol, engine="numpy"),
        "  alignment alone": lambda: align(qrels, run, protocol),
    }
    for name in ("compiled", "numpy"):
        engine = get_engine(name)
        timed[f"  {name} engine alone"] = (
            lambda engine=engine: engine.evaluate(alignment, measure_list, protocol))

    if not args.no_ranx:
        import ranx

        start = time.perf_counter()
        ranx_qrels, ranx_run = build_ranx(queries, docs, run_columns, qrels_columns)
        print(f"ranx Qrels/Run built in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        theirs = ranx.evaluate(ranx_qrels, ranx_run, list(MEASURES.values()), return_mean=False)
        print(f"ranx first (warming) call: {time.perf_counter() - start:.1f} s")
        order = np.searchsorted(queries, np.array(list(ranx_run.keys())))
        untied = untied_queries(run_columns, args.queries)
        worst = 0.0
        for ours, name in MEASURES.items():
            mine = compiled.values(ours)[order]
            keep = untied[order]
            worst = max(worst, float(np.max(np.abs(mine[keep] - np.asarray(theirs[name])[keep]))))
        print(f"ranx agrees with rankproof on {int(untied.sum()):,} untied queries: max diff {worst:.1e}")
        if worst > 1e-9:
            return 1
        timed["ranx evaluate (warm)"] = lambda: ranx.evaluate(ranx_qrels, ranx_run, list(MEASURES.values()))

    if args.pytrec:
        import pytrec_eval

        q_query, q_doc, q_grade = qrels_columns
        query, doc, score = run_columns
        judged, ranked = {}, {}
        for q, d, g in zip(queries[q_query].tolist(), docs[q_doc].tolist(), q_grade.tolist()):
            judged.setdefault(q, {})[d] = g
        for q, d, s in zip(queries[query].tolist(), docs[doc].tolist(), score.tolist()):
            ranked.setdefault(q, {})[d] = s
        evaluator = pytrec_eval.RelevanceEvaluator(
            judged, {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"})
        timed["pytrec_eval evaluate (values not checked here)"] = lambda: evaluator.evaluate(ranked)

    runs: dict = {}
    rows = list(median_seconds(timed, args.repeat, runs).items())
    baseline = dict(rows).get("ranx evaluate (warm)")
    print(f"\nmedian of {args.repeat} runs")
    print(f"{'':<48} {'seconds':>8} {'ranx / this':>12}")
    for name, seconds in rows:
        ratio = f"{baseline / seconds:12.2f}" if baseline else ""
        print(f"{name:<48} {seconds:8.3f} {ratio}")
    if args.json:
        workload = f"in memory, {args.queries:,} queries x {args.docs} docs, five measures"
        ranx_row = "ranx evaluate (warm)"
        write_results(args.json, benchmark="engine_bench", command=shlex.join(["python", *sys.argv]),
                      title="In memory: rankproof's engines against ranx", rows=[
                          row(workload, name.strip(), round(seconds, 4), size=len(run), size_unit="rows",
                              runs=[round(t, 4) for t in runs[name]],
                              ratio=round(baseline / seconds, 3) if baseline and name != ranx_row else None,
                              ratio_to="ranx evaluate (warm)" if baseline and name != ranx_row else None,
                              note="part of the evaluate call above" if name.startswith("  ") else "")
                          for name, seconds in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
