"""``rankproof why``: why a number differs from a peer's: the policies that differ, by how much, on which queries."""

from __future__ import annotations

import argparse

from .inputs import add_input_options, add_protocol_options, protocol_of, read_inputs, run_names
from .render import print_text

__all__ = ["NAME", "HELP", "EXAMPLES", "PEERS", "add_arguments", "run"]

NAME = "why"
HELP = "why a number differs from a peer's: the policies that differ, by how much, on which queries"
EXAMPLES = "example: rankproof why qrels.txt lmdirichlet.run --peer ranx -m ndcg@10"
PEERS = ("trec_eval", "trec_eval9", "sklearn", "lightgbm", "ranx", "spark")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", help="judgments (any input format; - for stdin)")
    parser.add_argument("run", help="rankings (any input format; - for stdin)")
    parser.add_argument("--peer", required=True, choices=PEERS, help="the peer whose preset to compare with")
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help="a measure; repeat for several (default ndcg@10)")
    parser.add_argument("--top", type=int, default=5,
                        help="how many of the most different queries to list (default 5)")
    add_protocol_options(parser)
    add_input_options(parser)


def run(args) -> int:
    from ..explain.why import why

    measures = args.measure or ["ndcg@10"]
    protocol = protocol_of(args)
    qrels, runs = read_inputs(args, args.qrels, [args.run], run_names([args.run], args.label))
    (_, ranking), = runs
    print_text(why(qrels, ranking, measures, args.peer, protocol, top=args.top).summary() + "\n")
    return 0
