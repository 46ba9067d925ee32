"""``--memory-budget``: ``rankproof evaluate`` on logs larger than memory, part by part (rankproof.frontdoors.outofcore).

With the option, or without it when the qrels and a run are CSV, TSV, JSON Lines or
Parquet files whose in-memory evaluation would need more than the default
budget (a quarter of the machine's memory), each run is evaluated in parts
of whole queries, streamed when both files are sorted by query and else
partitioned by query in a temporary folder. The numbers are those of the
in-memory evaluation.
"""

from __future__ import annotations

import argparse
import os

from .inputs import QRELS_ROLES, RUN_ROLES, columns, protocol_of
from .usage import budget_option, usage

__all__ = ["add_memory_options", "wanted", "evaluate_runs"]



def add_memory_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("logs larger than memory (CSV, TSV, JSON Lines or Parquet qrels and runs)")
    group.add_argument("--memory-budget", type=budget_option, metavar="SIZE",
                       help="evaluate each run in parts of whole queries within SIZE bytes of memory (e.g. 2GB); "
                            "by default only files too large for a quarter of the memory are, within that quarter")
    group.add_argument("--sorted", dest="log_sorted", action="store_const", const=True, default=None,
                       help="with --memory-budget: the files are sorted by query (else an out-of-order row is an "
                            "error); by default sorted files are streamed and others partitioned on disk")


def _table_format(path: str, given: str | None) -> str | None:
    from ..io.formats import format_of, formats_for

    if path == "-":
        return None
    try:
        found = format_of(path, given)
    except Exception:  # an unknown format: the in-memory path reports it
        return None
    return found if found in formats_for("out_of_core") and os.path.isfile(path) else None


def wanted(args, command: str) -> bool:
    """Evaluate out of core? --memory-budget (then the inputs must allow it), or inputs too large."""
    from ..frontdoors.outofcore import needs_out_of_core

    formats = [_table_format(args.qrels, args.qrels_format), *[_table_format(r, args.run_format) for r in args.runs]]
    if args.memory_budget is None and args.log_sorted is None:
        return all(formats) and not args.intents and not args.bounds and any(
            needs_out_of_core([args.qrels, run]) for run in args.runs)
    if not all(formats):
        raise usage(command, "--memory-budget and --sorted read CSV, TSV, JSON Lines or Parquet files (not stdin "
                             "or TREC)",
                    "convert the inputs, or leave --memory-budget out")
    if args.intents or args.bounds:
        # --bounds judges unjudged docs at the highest grade of all the judgments, which no part knows.
        raise usage(command, f"--memory-budget does not take {'--intents' if args.intents else '--bounds'}",
                    "evaluate in memory (leave --memory-budget and --sorted out)")
    return True


def evaluate_runs(args, measures, names: list[str], command: str) -> list:
    """Each run against the qrels, out of core; the coverage checked on each run's whole Results."""
    from ..data.grades import map_grades
    from ..data.qrels import Qrels
    from ..data.run import Run
    from ..evaluation import evaluate
    from ..errors import InputError
    from ..frontdoors.outofcore import Log, evaluate_log, parse_budget
    from ..measures.base import refuse_whole_evaluation_defaults
    from ..results import guard_coverage
    from .grade_map import grade_map

    refuse_whole_evaluation_defaults(measures, "out of core", "part")
    protocol = protocol_of(args)
    budget = parse_budget(args.memory_budget) if args.memory_budget is not None else None
    qrels_columns = {"query": "query", "doc": "doc", "grade": "grade", **columns(args, QRELS_ROLES)}
    run_columns = {"query": "query", "doc": "doc", "score": "score", **columns(args, RUN_ROLES)}
    if qrels_columns["query"] != run_columns["query"]:
        raise usage(command, "--memory-budget needs one query column name for the qrels and the runs")
    mapping = grade_map(args.grade_map)
    qrels_log = Log.of(args.qrels, tuple(qrels_columns.values()), qrels_columns["query"],
                       _table_format(args.qrels, args.qrels_format))
    # Every query's values printed: held in memory (a budget too small for them is refused);
    # else they are written to disk part by part when they would take more than half the budget.
    per_query = args.per_query or args.format in ("json", "parquet")
    found = []
    for path, name in zip(args.runs, names):
        digest = QrelsDigest()

        def part(truth, predictions, path=path, name=name, digest=digest):
            qrels = Qrels.from_table(truth, **qrels_columns, source=args.qrels, grades=str(protocol.grades))
            if mapping is not None:
                qrels = map_grades(qrels, mapping)
            digest.add(qrels)
            run = Run.from_table(predictions, **run_columns, source=path, name=name)
            return evaluate(qrels, run, measures, protocol, allow_partial=True,
                            engine=args.engine)

        run_log = Log.of(path, tuple(run_columns.values()), run_columns["query"],
                         _table_format(path, args.run_format))
        try:
            results = evaluate_log(qrels_log, run_log, part, memory_budget=budget, sorted=args.log_sorted,
                                   run_name=name, progress=not args.quiet, measures=len(measures),
                                   values_in_memory=per_query)
        except InputError as error:
            if not per_query or "too small" not in str(error.what):
                raise
            shown = "--per-query" if args.per_query else f"--format {args.format}"
            raise error.replace(fix=f"{error.fix}, or leave out {shown}: the means alone keep every user's values "
                                    "on disk") from None
        # The parts' judgments together, whatever the parts (so any two budgets agree), for compare --results.
        results = results.replace(qrels_digest=digest.hexdigest())
        guard_coverage(results, allow_partial=args.allow_partial, min_coverage=args.min_coverage,
                       source=f"{path} against {args.qrels}")
        found.append(results)
    return found


class QrelsDigest:
    """A digest of judgments read in parts of whole queries, the same whatever the parts.

    Each query's judgments (its id, then each doc and grade in doc order, as
    :class:`~rankproof.Qrels` holds them) hash to 64 bits (BLAKE2b); the
    digest is their sum modulo 2**64, so the order and the cut of the parts do
    not matter. It is not :func:`rankproof.data.digest.qrels_digest` (which
    needs every doc at once): an out-of-core result compares with other
    out-of-core results on the same judgments, an in-memory one with in-memory ones.

    Examples
    --------
    >>> from rankproof import Qrels
    >>> whole, parts = QrelsDigest(), QrelsDigest()
    >>> whole.add(Qrels.from_dict({"a": {"x": 1}, "b": {"y": 2}}))
    >>> parts.add(Qrels.from_dict({"b": {"y": 2}})); parts.add(Qrels.from_dict({"a": {"x": 1}}))
    >>> whole.hexdigest() == parts.hexdigest()
    True
    """

    def __init__(self) -> None:
        self.total = 0

    def add(self, qrels) -> None:
        import hashlib

        offsets, docs, grades = qrels.offsets.tolist(), qrels.docs, qrels.grades
        for q, query in enumerate(qrels.queries.tolist()):
            lo, hi = offsets[q], offsets[q + 1]
            rows = zip(docs[qrels.doc_codes[lo:hi]].tolist(), grades[lo:hi].tolist())
            text = str(query) + "\0" + "\n".join(f"{doc}\t{grade!r}" for doc, grade in rows)
            value = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            self.total = (self.total + int.from_bytes(value, "big")) % (1 << 64)

    def hexdigest(self) -> str:
        return "ooc-" + format(self.total, "016x")
