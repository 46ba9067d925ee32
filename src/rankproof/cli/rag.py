"""``rankproof rag FILE``: a RAG evaluation file (ragas, LlamaIndex or rankproof rows) evaluated as it is."""

from __future__ import annotations

import argparse

from .evaluate import DEFAULT_MEASURES, add_coverage_options
from .inputs import add_chunk_options, add_protocol_options, protocol_of
from .render import FORMATS, add_names_option, measure_names, merged_notes, notes, print_notes, render_results
from .render import digits as precision

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "rag_inputs"]

NAME = "rag"
HELP = "evaluate the retrieval of a RAG evaluation file (ragas, LlamaIndex or rankproof rows)"
EXAMPLES = """examples:
  rankproof rag ragas_eval.jsonl -m ndcg@5 -m recall@5 -m rr
  rankproof rag llamaindex_results.parquet --layout llamaindex --format json
  rankproof rag chunks.jsonl --chunk-map sep:# --chunks max
One row per query: ragas (user_input, retrieved_context_ids, reference_context_ids), LlamaIndex
(query, retrieved_ids, expected_ids) or rankproof (query_id, retrieved, scores, relevant, grades).
Retrieved ids whose form matches no relevant id (chunk ids against doc ids, case, a prefix) are
refused in one line naming the mapping; --allow-partial evaluates them as written."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..io.rag import LAYOUTS

    parser.add_argument("file", help="JSON Lines, Parquet or a JSON list (by its suffix), one row per query")
    parser.add_argument("--layout", choices=tuple(LAYOUTS), help="the rows' layout (default: from the field names)")
    parser.add_argument("--judgments", metavar="DATASET",
                        help="the relevant ids from a LlamaIndex retrieval dataset JSON (queries, corpus, "
                             "relevant_docs), for rows by query id or by query text; they replace the rows' own")
    parser.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                        help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)})")
    add_protocol_options(parser)
    add_chunk_options(parser)
    add_coverage_options(parser)
    parser.add_argument("--label", metavar="NAME", help="the run's name in the output (default: the file's name)")
    parser.add_argument("--per-query", action="store_true", help="also show each query's values")
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    parser.add_argument("--precision", type=int, metavar="DIGITS",
                        help="decimals printed by table, markdown and trec (default 4; json and csv keep every digit)")
    add_names_option(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.add_argument("--quiet", action="store_true", help="no counts or warnings on stderr (errors still are)")


def rag_inputs(path: str, layout: str | None = None, name: str | None = None, judgments: str | None = None):
    """The qrels and run of a RAG evaluation file, and what was read (:class:`rankproof.io.rag.RagRows`)."""
    import os

    from ..data.qrels import Qrels
    from ..data.run import Run
    from ..errors import ParseError
    from ..io.rag import read_judgments, read_rag

    rows = read_rag(path, layout=layout)
    if judgments is not None:
        relevant, by_text = read_judgments(judgments)
        rows.rankings = {by_text.get(query, query): ranking for query, ranking in rows.rankings.items()}
        rows.judgments = {query: docs for query, docs in relevant.items() if docs}
    kinds = {isinstance(ranking, dict) for ranking in rows.rankings.values()}
    if len(kinds) > 1:
        raise ParseError(source=path, what="some rows give scores and some do not",
                         fix="give scores on every row or on none")
    if not rows.judgments:
        raise ParseError(source=path, what="holds no relevant ids on any row",
                         fix="give the relevant ids of each query (reference_context_ids, expected_ids or relevant)")
    qrels = Qrels.from_dict(rows.judgments, source=path)
    run = Run.from_dict(rows.rankings, source=path, name=name or os.path.basename(path))
    return qrels, run, rows


def _no_judged_doc(qrels, run, protocol, path: str) -> None:
    """Refuse a run none of whose doc ids is a relevant id, when the guard found no cause (one line)."""
    import numpy as np

    from ..errors import CoverageError

    if protocol.chunk_map.kind != "none" or not len(run.docs) or np.isin(run.docs, qrels.docs).any():
        return
    example = f"(retrieved {str(run.docs[0])!r}, relevant {str(qrels.docs[0])!r})"
    raise CoverageError(source=path, what=f"none of the {len(run.docs)} retrieved ids is a relevant id {example}",
                        fix=_likely_mapping([str(d) for d in run.docs], {str(d) for d in qrels.docs}) +
                        ", or pass --allow-partial to evaluate the ids as written")


def _likely_mapping(retrieved: list[str], relevant: set[str]) -> str:
    """The mapping that makes the most retrieved ids relevant ids: a chunk separator, or case."""
    best, hits = "map chunk ids to the judged ids with --chunk-map (sep:#, regex:PATTERN or file:PATH)", 0
    for sep in CHUNK_SEPARATORS:
        count = sum(doc.split(sep, 1)[0] in relevant for doc in retrieved if sep in doc)
        if count > hits:
            best, hits = f"the retrieved ids look like chunks of the relevant ids: pass --chunk-map sep:{sep}", count
    folded = {doc.casefold() for doc in relevant}
    if sum(doc.casefold() in folded for doc in retrieved) > hits:
        best = "the ids differ in case only: pass --policy ids=casefold"
    return best


# Separators between a doc id and its chunk number, tried in this order.
CHUNK_SEPARATORS = ("#", "::", ":", "_", "-", "/", "|", ".")


def run(args) -> int:
    from ..evaluation import evaluate
    from ..measures.parse import parse_measures
    from ..report.output import check_output_path, write_output
    from ..results.matching import find_mismatch

    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    places = precision(args)
    names = measure_names(args, NAME, measures)
    check_output_path(args.output, [args.file])
    qrels, ranking, rows = rag_inputs(args.file, args.layout, args.label, args.judgments)
    if not args.allow_partial and find_mismatch(qrels, ranking, protocol) is None:
        _no_judged_doc(qrels, ranking, protocol, args.file)
    results = evaluate(qrels, ranking, measures, protocol, min_coverage=args.min_coverage,
                       allow_partial=args.allow_partial)
    write_output(render_results([results], args.format, args.per_query, places, names), args.output)
    read = (f"{args.file}: {rows.layout} layout, {rows.rows} rows, {rows.empty} with nothing retrieved; "
            f"{len(rows.judgments)} queries with relevant ids" + (f" in {args.judgments}" if args.judgments else ""))
    print_notes([read, *merged_notes(args.measure)], args.quiet)
    notes([results], args.quiet)
    return 0
