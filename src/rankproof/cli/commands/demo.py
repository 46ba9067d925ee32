"""The demo: three real Lucene runs on Cranfield, and how far each convention moves them.

``rankproof demo`` (and ``make demo``) prints it. It runs on the copy of the
Cranfield collection shipped as package data, so an installed wheel can run it.
"""

from __future__ import annotations

from pathlib import Path

from ..render import print_text

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "run_demo", "cranfield_path"]

NAME = "demo"
HELP = "evaluate the bundled Cranfield runs"
EXAMPLES = """example:
  rankproof demo"""

RUNS = ("bm25", "tfidf", "lmdirichlet")
MEASURES = ["ndcg@10", "ap", "rr", "p@10"]
EXPLAIN_QUERY = "1"


def cranfield_path() -> Path:
    return Path(__file__).resolve().parents[2] / "_data" / "cranfield"


def run_demo() -> str:
    from ...data.qrels import Qrels
    from ...data.run import Run
    from ...evaluation import evaluate
    from ...explain.explanation import explain
    from ...protocol import Protocol
    from ...report.table import explanation_table, to_table

    data = cranfield_path()
    qrels = Qrels.read_trec(data / "qrels.txt")
    runs = {name: Run.read_trec(data / f"{name}.run", name=name) for name in RUNS}
    protocol = Protocol()
    out = [f"Cranfield: {qrels.num_queries} queries, {len(qrels)} judgments; three Lucene runs, "
           f"{len(runs['bm25']) // runs['bm25'].num_queries} docs per query.\n"]
    results = [evaluate(qrels, run, MEASURES, protocol) for run in runs.values()]
    out.append(to_table(results))

    out.append("\nThe same bm25 run under other conventions (ndcg@10; only the named policy changes):\n")
    variants = [
        ("rankproof defaults", protocol),
        ("ideal=retrieved (reranking NDCG)", protocol.replace(ideal="retrieved")),
        ("gain=exp2 (2^g - 1)", protocol.replace(gain="exp2")),
        ("unjudged=condense (drop unjudged docs)", protocol.replace(unjudged="condense")),
        ("ties=docid (trec_eval's tie order)", protocol.replace(ties="docid")),
    ]
    base = None
    for label, variant in variants:
        value = evaluate(qrels, runs["bm25"], ["ndcg@10"], variant).mean("ndcg@10")
        base = value if base is None else base
        out.append(f"  {label:<40} {value:.4f}  {value - base:+.4f}   fingerprint {variant.fingerprint}\n")
    out.append("\nOne query, every number (bm25, query 1, ndcg@10):\n\n")
    out.append(explanation_table(explain(qrels, runs["bm25"], EXPLAIN_QUERY, "ndcg@10", protocol)))
    return "".join(out)


def add_arguments(parser) -> None:
    """The demo's one option: --quiet (no progress display on a terminal)."""
    parser.add_argument("--quiet", action="store_true", help="no progress display on stderr")


def run(args) -> int:
    from ..progress import steps

    with steps(args, 1, "evaluating the Cranfield runs") as progress:
        text = run_demo()
        progress.step("done")
    print_text(text)
    return 0
