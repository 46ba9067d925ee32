"""``rankproof why``: why a number differs from a peer's: the policies that differ, by how much, on which queries."""

from __future__ import annotations

import argparse

from ...protocol.presets import PRESET_SETTINGS
from ..flags import add_measures_option
from ..inputs import (add_chunk_options, add_input_options, add_protocol_options, protocol_of,
                     read_inputs, run_names)
from ..render import add_print_options, digits, print_text, quieted
from ..progress import steps
from ..usage import add_coverage_options, count_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "PEERS", "add_arguments", "run", "count", "rag_file",
           "add_rag_input_options"]

NAME = "why"
HELP = "why a number differs from a peer's: the policies that differ, by how much, on which queries"
EXAMPLES = """examples:
  rankproof why qrels.txt lmdirichlet.run --peer ranx -m ndcg@10
  rankproof why truth.csv recs.csv --columns query=user,doc=item --peer sklearn -m ndcg@10
  rankproof why ragas_eval.jsonl --peer ragas -m ap --chunk-map sep:_
A RAG evaluation file (one row per query, as `rankproof rag` reads it) is given alone."""
# Every preset but our own defaults: trec_eval, trec_eval9, sklearn, lightgbm, ranx, spark,
# pytrec_eval, ir_measures, and the RAG frameworks (ragas, llamaindex, haystack, mlflow, mteb, beir,
# sentence_transformers).
PEERS = tuple(name for name in PRESET_SETTINGS if name != "rankproof")


#: --top: a count of queries, 0 or more (a negative one would list from the end).
count = count_option("--top", minimum=0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels",
                        help="judgments (any input format; - for stdin), or a RAG evaluation file "
                                      "given alone (as rankproof rag reads it)")
    parser.add_argument("run", nargs="?",
                        help="rankings (any input format; - for stdin); none for a RAG file")
    parser.add_argument("--peer", required=True, choices=PEERS,
                        help="the peer whose preset to compare with")
    add_measures_option(parser, "default ndcg@10", "a measure")
    parser.add_argument("--top", type=count, default=5,
                        help="how many of the most different queries to list (default 5; 0: only their count)")
    add_protocol_options(parser)
    add_chunk_options(parser)
    add_input_options(parser)
    add_coverage_options(parser)
    add_rag_input_options(parser)
    add_print_options(parser, default=7, what="values and differences")


def add_rag_input_options(parser: argparse.ArgumentParser) -> None:
    """--layout and --judgments: how a RAG evaluation file is read (rankproof rag's options)."""
    from ...io.rag import LAYOUTS

    parser.add_argument("--layout", choices=tuple(LAYOUTS),
                        help="a RAG file's layout (default: from the field names)")
    parser.add_argument("--judgments", metavar="DATASET",
                        help="a RAG file's relevant ids from a LlamaIndex retrieval dataset JSON (they replace the "
                             "rows' own)")


def run(args) -> int:
    from ...explain.why import why

    measures = args.measure or ["ndcg@10"]
    protocol = protocol_of(args)
    places = digits(args, default=7)
    with quieted(args), steps(args, 2, "reading") as shown:
        if args.run is None:   # a RAG file: its rows hold both
            qrels, ranking = rag_file(args, protocol)
        else:
            if args.layout or args.judgments:
                raise usage(NAME, "--layout and --judgments read a RAG file given alone",
                            "leave out the run, or these options")
            qrels, runs = read_inputs(args, args.qrels, [args.run],
                                      run_names([args.run], args.label))
            (_, ranking), = runs
        shown.step(f"evaluating under ours and {args.peer}'s")
        found = why(qrels, ranking, measures, args.peer, protocol, top=args.top,
                    allow_partial=args.allow_partial,
                    min_coverage=args.min_coverage)
        shown.step("done")
    print_text(found.summary(digits=places) + "\n")
    return 0


def rag_file(args, protocol, name: str | None = None):
    """The qrels and run of a RAG evaluation file, read and checked as `rankproof rag` reads them (chunk ids
    that match no relevant id are refused, naming the mapping, unless --allow-partial)."""
    import os

    from ...frontdoors.rag import rag_inputs, refuse_no_relevant_id
    from ...results.matching import find_mismatch

    qrels, run, rows = rag_inputs(args.qrels, layout=args.layout, judgments=args.judgments,
                                  name=name or os.path.basename(args.qrels))
    if not getattr(args, "allow_partial", False) and find_mismatch(qrels, run, protocol) is None:
        refuse_no_relevant_id(qrels, run, protocol, rows.source or args.qrels)
    return qrels, run
