"""``rankproof rag FILE``: a RAG evaluation file (ragas, LlamaIndex or rankproof rows) evaluated as it is."""

from __future__ import annotations

import argparse
import os
from typing import cast

from .evaluate import DEFAULT_MEASURES
from ..flags import add_measures_option
from ..progress import steps
from ..usage import add_coverage_options, usage
from .why import PEERS, count as _count
from ..inputs import add_chunk_options, add_protocol_options, protocol_of
from ..render import (add_output_options, check_format_output, measure_names, merged_notes, notes,
                     print_notes)
from ..render import render_results
from ..render import digits as precision

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "rag_inputs"]

NAME = "rag"
HELP = "evaluate the retrieval of a RAG evaluation file (ragas, LlamaIndex or rankproof rows)"
EXAMPLES = """examples:
  rankproof rag ragas_eval.jsonl -m ndcg@5 -m recall@5 -m rr
  rankproof rag llamaindex_results.parquet --layout llamaindex --format json
  rankproof rag chunks.jsonl --chunk-map sep:# --chunks max
  rankproof rag ragas_eval.jsonl -m ap --chunk-map sep:_ --peer ragas
One row per query: ragas (user_input, retrieved_context_ids, reference_context_ids), LlamaIndex
(query, retrieved_ids, expected_ids) or rankproof (query_id, retrieved, scores, relevant, grades).
Retrieved ids whose form matches no relevant id (chunk ids against doc ids, case, a prefix) are
refused in one line naming the mapping; --allow-partial evaluates them as written."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...io.rag import LAYOUTS

    parser.add_argument("file",
                        help="JSON Lines, Parquet or a JSON list (by its suffix), one row per query")
    parser.add_argument("--layout", choices=tuple(LAYOUTS),
                        help="the rows' layout (default: from the field names)")
    parser.add_argument("--judgments", metavar="DATASET",
                        help="the relevant ids from a LlamaIndex retrieval dataset JSON (queries, corpus, "
                             "relevant_docs), for rows by query id or by query text; they replace the rows' own")
    add_measures_option(parser, DEFAULT_MEASURES)
    add_protocol_options(parser)
    add_chunk_options(parser)
    add_coverage_options(parser)
    parser.add_argument("--label", metavar="NAME",
                        help="the run's name in the output (default: the file's name)")
    parser.add_argument("--per-query", action="store_true", help="also show each query's values")
    parser.add_argument("--peer", choices=PEERS,
                        help="after the table, why the numbers differ from this peer's (rankproof why --peer's "
                             "explanation: the policies that differ, by how much, on which queries)")
    parser.add_argument("--top", type=_count, default=5,
                        help="with --peer: how many of the most different queries to list (default 5)")
    add_output_options(parser)


def rag_inputs(path: str, layout: str | None = None, name: str | None = None,
               judgments: str | None = None):
    """The qrels and run of a RAG evaluation file, and what was read (:func:`rankproof.frontdoors.rag.rag_inputs`)."""
    from ...frontdoors.rag import rag_inputs as inputs

    return inputs(path, layout=layout, judgments=judgments, name=name)


def run(args) -> int:
    from ...measures.parse import parse_measures
    from ...frontdoors.rag import evaluate_rag, rag_rows
    from ...report.output import check_output_path, write_output

    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    places = precision(args)
    names = measure_names(args, NAME, measures)
    check_format_output(args, NAME)
    if args.peer and (args.format != "table" or args.output not in (None, "-")):
        raise usage(NAME, "--peer prints its explanation after the table, on stdout",
                    "leave out --format and -o, or run rankproof why FILE --peer NAME apart")
    check_output_path(args.output, [args.file])
    with steps(args, 3 if args.peer else 2, "reading") as progress:
        rows = rag_rows(args.file, layout=args.layout, judgments=args.judgments)
        progress.step("evaluating")
        results = evaluate_rag(rows, measures, protocol,
                               name=args.label or os.path.basename(args.file),
                               min_coverage=args.min_coverage, allow_partial=args.allow_partial)
        progress.step(f"against {args.peer}'s preset" if args.peer else "done")
        shown = render_results([results], args.format, args.per_query, places, names)
        if args.peer:   # the explanation `rankproof why FILE --peer NAME` prints, on the same rows
            from ...explain.why import why
            from ...frontdoors.rag import rag_inputs

            qrels, ranking, _ = rag_inputs(args.file, layout=args.layout, judgments=args.judgments,
                                           name=results.run_name)
            found = why(qrels, ranking, measures, args.peer, protocol, top=args.top,
                        allow_partial=args.allow_partial,
                        min_coverage=args.min_coverage)
            # text: --peer was refused above beside any format but the table (no bytes reach here)
            shown = cast(str, shown).rstrip("\n") + "\n\n" + found.summary(digits=7) + "\n"
            progress.step("done")
    write_output(shown, args.output)
    read = (f"{args.file}: {rows.layout} layout, {rows.rows} rows, {rows.empty} with nothing retrieved; "
            f"{sum(map(bool, rows.judgments.values()))} queries with relevant ids"
            + (f" in {args.judgments}" if args.judgments else ""))
    print_notes([read, *merged_notes(args.measure)], args.quiet)
    notes([results], args.quiet)
    return 0
