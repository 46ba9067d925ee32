"""``rankproof explain``: every number behind one query's score."""

from __future__ import annotations

import argparse

from ..flags import add_evaluation_options, add_measures_option
from ..inputs import protocol_of, read_inputs, run_names
from ..render import add_print_options, digits, print_text, quieted

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "explain"
HELP = "every number behind one query's score"
EXAMPLES = """examples:
  rankproof explain qrels.txt bm25.run --query 1 -m ndcg@10
  rankproof explain qrels.txt bm25.run -q 1 -m ap --preset trec_eval"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="judgments (any input format; - for stdin)")
    parser.add_argument("run", help="rankings (any input format; - for stdin)")
    parser.add_argument("--query", "-q", required=True)
    add_measures_option(parser, "default ndcg@10", "a measure")
    add_evaluation_options(parser, coverage=False)
    add_print_options(parser, what="discounts, contributions, DCG and values")


def run(args) -> int:
    from ...explain.explanation import explain
    from ...measures.parse import parse_measures
    from ...report.table import explanation_table

    measures = parse_measures(args.measure or ["ndcg@10"])  # every bad name refused before reading
    protocol = protocol_of(args)
    places = digits(args)
    with quieted(args):
        qrels, runs = read_inputs(args, args.qrels, [args.run], run_names([args.run], args.label),
                                  intents=False)
        (_, ranking), = runs
        tables = [explanation_table(explain(qrels, ranking, args.query, measure, protocol), places)
                  for measure in measures]
    print_text("\n".join(tables))
    return 0
