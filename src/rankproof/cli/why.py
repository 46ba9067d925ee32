"""``rankproof why``: why a number differs from a peer's: the policies that differ, by how much, on which queries."""

from __future__ import annotations

import argparse

from ..protocol.presets import PRESET_SETTINGS
from .inputs import add_input_options, add_protocol_options, protocol_of, read_inputs, run_names
from .render import add_print_options, digits, print_text, quieted

__all__ = ["NAME", "HELP", "EXAMPLES", "PEERS", "add_arguments", "run"]

NAME = "why"
HELP = "why a number differs from a peer's: the policies that differ, by how much, on which queries"
EXAMPLES = "example: rankproof why qrels.txt lmdirichlet.run --peer ranx -m ndcg@10"
# Every preset but our own defaults: trec_eval, trec_eval9, sklearn, lightgbm, ranx, spark, pytrec_eval,
# ir_measures, and the RAG frameworks (ragas, llamaindex, haystack, mlflow, mteb, beir, sentence_transformers).
PEERS = tuple(name for name in PRESET_SETTINGS if name != "rankproof")


def _count(text: str) -> int:
    """--top: a count of queries, 0 or more (a negative one would list from the end)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--top takes a count of queries, 0 or more (got {text!r})")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="judgments (any input format; - for stdin)")
    parser.add_argument("run", help="rankings (any input format; - for stdin)")
    parser.add_argument("--peer", required=True, choices=PEERS, help="the peer whose preset to compare with")
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help="a measure; repeat for several (default ndcg@10)")
    parser.add_argument("--top", type=_count, default=5,
                        help="how many of the most different queries to list (default 5; 0: only their count)")
    add_protocol_options(parser)
    add_input_options(parser)
    add_print_options(parser, default=7, what="values and differences")


def run(args) -> int:
    from ..explain.why import why

    measures = args.measure or ["ndcg@10"]
    protocol = protocol_of(args)
    places = digits(args, default=7)
    with quieted(args):
        qrels, runs = read_inputs(args, args.qrels, [args.run], run_names([args.run], args.label))
        (_, ranking), = runs
        found = why(qrels, ranking, measures, args.peer, protocol, top=args.top)
    print_text(found.summary(digits=places) + "\n")
    return 0
