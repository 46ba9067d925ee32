"""The RAG front door: the evaluation rows of ragas, LlamaIndex or rankproof evaluated as they are.

A RAG evaluation keeps, per query, the retrieved ids in order and the
relevant ids (see :mod:`rankproof.io.rag` for the three layouts). This module
turns such rows into :class:`~rankproof.Qrels` and a :class:`~rankproof.Run`
(:func:`rag_inputs`) and evaluates them (:func:`evaluate_rag`), from a file
(JSON Lines, Parquet, a JSON list), a list of dicts, or a pandas, polars or
Arrow table. ``rankproof rag FILE`` calls the same two functions.

Every row is a query of the evaluation set: a row that retrieved nothing is a
query the run leaves empty (the protocol's ``missing_query`` policy decides
it), a row with no relevant id a query with nothing relevant
(``zero_ideal``); each framework's preset sets both as the framework does,
and both are counted (``queries_ranked_empty``, ``queries_without_judgments``).

A run none of whose ids is a relevant id (chunk ids against doc ids, a case
or prefix difference) is refused in one line that names the likely mapping,
unless ``allow_partial=True``.

>>> from rankproof import evaluate_rag
>>> rows = [{"user_input": "q1", "retrieved_context_ids": ["d2", "d1"], "reference_context_ids": ["d1"]},
...         {"user_input": "q2", "retrieved_context_ids": ["d3"], "reference_context_ids": ["d3", "d4"]}]
>>> evaluate_rag(rows, ["rr", "r@2"]).means()
{'rr': 0.75, 'r@2': 0.75}
"""

from __future__ import annotations

import os
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from ...data.qrels import Qrels
from ...data.run import Run
from ...errors import CoverageError, ParseError, ProtocolError, literal
from ...engines.options import MIN_COVERAGE, EvaluationOptions
from ...evaluation import evaluate_read, resolve_protocol
from ...errors.messages import REFERENCE_NOTE
from ...io.rag import RagRows, read_judgments, read_rag, read_rag_records
from ...protocol import Protocol
from ...results import Results
from ...results.matching import find_mismatch
from ...typing import ProtocolLike

__all__ = ["evaluate_rag", "rag_inputs", "RagInputs", "rag_rows", "CHUNK_SEPARATORS",
           "refuse_no_relevant_id"]

# Separators between a doc id and its chunk number, tried in this order.
CHUNK_SEPARATORS = ("#", "::", ":", "_", "-", "/", "|", ".")


def rag_rows(source: Any, *, layout: str | None = None, judgments: Any = None) -> RagRows:
    """What a RAG source holds, row by row (:class:`rankproof.io.rag.RagRows`).

    Parameters
    ----------
    source
        A path (JSON Lines; Parquet or a JSON list by its suffix), a list of
        dicts, a pandas, polars or Arrow table (one row per query, list
        columns of ids), or :class:`~rankproof.io.rag.RagRows` already read.
    layout : {'ragas', 'llamaindex', 'rankproof'}, optional
        The rows' layout; by default told from the field names.
    judgments : path or mapping, optional
        The relevant ids, replacing the rows' own: a LlamaIndex retrieval
        dataset JSON (``queries``, ``corpus``, ``relevant_docs``: rows naming
        their query by its text are matched through ``queries``), or a
        mapping ``{query: [doc, ...]}`` or ``{query: {doc: grade}}``.
    """
    if isinstance(source, RagRows):
        rows = RagRows(**{**vars(source), "rankings": dict(source.rankings),
                          "judgments": dict(source.judgments)})
    elif isinstance(source, (str, os.PathLike)):
        rows = read_rag(os.fspath(source), layout=layout)
    else:
        rows = read_rag_records(source, layout=layout)
    if judgments is None:
        return rows
    by_text: dict[str, str] = {}
    if isinstance(judgments, Mapping):
        relevant = _judgments_of(judgments)
    else:
        relevant, by_text = read_judgments(judgments)
    rows.rankings = {by_text.get(query, query): ranking for query, ranking in rows.rankings.items()}
    # The judgments' queries are the evaluation set: one with no relevant id is an empty ground
    # truth (the protocol's zero_ideal decides it); a row whose query they do not name is an extra
    # query.
    rows.judgments = dict(relevant)
    return rows


def _judgments_of(given: Mapping) -> dict[str, dict[str, int]]:
    """``{query: [doc, ...]}`` or ``{query: {doc: grade}}`` as ``{query: {doc: grade}}``."""
    found: dict[str, dict[str, int]] = {}
    for query, docs in given.items():
        pairs = docs.items() if isinstance(docs, Mapping) else ((doc, 1) for doc in docs)
        found[str(query)] = {str(doc): grade for doc, grade in pairs}
    return found


class RagInputs(NamedTuple):
    """What :func:`rag_inputs` reads: the judgments, the rankings and the rows they came from."""

    qrels: Qrels
    run: Run
    rows: RagRows


def rag_inputs(source: Any, *, layout: str | None = None, judgments: Any = None,
               name: str | None = None) -> RagInputs:
    """The qrels and run of RAG rows (see :func:`rag_rows` for what `source`,
    `layout` and `judgments` take), and the rows read, as a :class:`RagInputs`
    (``.qrels``, ``.run``, ``.rows``; it unpacks as a tuple too). `name` names
    the run (default: the file's name, else ``rag``).

    >>> inputs = rag_inputs([{"query": "q", "retrieved_ids": ["a", "b"], "expected_ids": ["b"]}])
    >>> inputs.rows.layout, inputs.run.name, len(inputs.qrels)
    ('llamaindex', 'rag', 1)
    """
    rows = rag_rows(source, layout=layout, judgments=judgments)
    where = rows.source or "rows"
    kinds = {isinstance(ranking, dict) for ranking in rows.rankings.values()}
    if len(kinds) > 1:
        raise ParseError(source=where, what="some rows give scores and some do not",
                         fix="give scores on every row or on none")
    if not any(rows.judgments.values()):
        raise ParseError(source=where, what="holds no relevant ids on any row",
                         fix="give the relevant ids of each query (reference_context_ids, expected_ids or relevant)")
    # A row with an empty ground truth is declared with no judgment: it stays in the evaluation set
    # (Haystack scores it 0 and averages it in; LlamaIndex refuses it; ragas' recall skips it).
    qrels = Qrels.from_dict(rows.judgments, source=where)
    if name is None:
        name = os.path.basename(source) if isinstance(source, (str, os.PathLike)) else "rag"
    run = Run.from_dict(rows.rankings, source=where, name=str(name))
    return RagInputs(qrels, run, rows)


def evaluate_rag(source: Any, measures: "Sequence[Any] | str", protocol: ProtocolLike = None, *,
                 layout: str | None = None, judgments: Any = None, chunk_map: str | None = None,
                 chunks: str | None = None, name: str | None = None, allow_partial: bool = False,
                 min_coverage: float = MIN_COVERAGE, **options: Any) -> Results:
    """Evaluate the retrieval of RAG rows: a file, a list of dicts, or a pandas/polars table.

    Parameters
    ----------
    source, layout, judgments
        The rows, their layout and optionally their relevant ids from
        elsewhere (see :func:`rag_rows`): ragas rows (``user_input``,
        ``retrieved_context_ids``, ``reference_context_ids``), LlamaIndex
        rows (``query``, ``retrieved_ids``, ``expected_ids``) or rankproof
        rows (``query_id``, ``retrieved``, ``scores``, ``relevant``, ``grades``).
    measures, protocol
        As :func:`rankproof.evaluate` takes them (a preset's name, such as
        ``"ragas"`` or ``"llamaindex"``, reproduces that framework).
    chunk_map, chunks
        The policies ``chunk_map`` (``sep:#``, ``regex:PATTERN``,
        ``file:PATH``: retrieved ids are chunks of the judged docs) and
        ``chunks`` (``first`` or ``max``), set on the protocol; a protocol
        that sets them already refuses them here.
    name
        The run's name in the results.
    allow_partial, min_coverage
        As :func:`rankproof.evaluate`; ``allow_partial=True`` also evaluates
        rows none of whose retrieved ids is a relevant id, which are refused
        otherwise, naming the likely mapping.
    **options
        The other options of :func:`rankproof.evaluate` (``engine``, ``bounds``, ``ties_range``;
        :class:`~rankproof.engines.options.EvaluationOptions`).

    Raises
    ------
    CoverageError
        No retrieved id is a relevant id, and no chunk map says how they
        relate: ``... the retrieved ids look like chunks of the relevant ids:
        set chunk_map='sep:#'`` (the command line names ``--chunk-map sep:#``).
    """
    # The rows' reference ids are complete for each row: an id outside them is non-relevant, and the
    # TREC advice about unjudged docs does not apply (rankproof.errors.messages).
    wanted = EvaluationOptions.of(None, **{"complete_judgments": True, "notes": (REFERENCE_NOTE,),
                                           **options,
                                           "allow_partial": allow_partial,
                                           "min_coverage": min_coverage})
    protocol = _with_chunks(resolve_protocol(protocol), chunk_map, chunks)
    qrels, run, rows = rag_inputs(source, layout=layout, judgments=judgments, name=name)
    if not allow_partial and find_mismatch(qrels, run, protocol) is None:
        refuse_no_relevant_id(qrels, run, protocol, rows.source or "rows")
    return evaluate_read(lambda: (qrels, run), measures, protocol, options=wanted)


def _with_chunks(protocol: Protocol, chunk_map: str | None, chunks: str | None) -> Protocol:
    """The protocol with the chunk policies given as arguments; one the protocol sets already is refused."""
    changes = {key: value for key, value in (("chunk_map", chunk_map), ("chunks", chunks))
               if value is not None}
    default = Protocol()
    for key, value in changes.items():
        if getattr(protocol, key) != getattr(default, key):
            raise ProtocolError(source=key, fix="give each policy once",
                                what=literal(f"policy {key} is given twice ({key}={getattr(protocol, key)} in the "
                                             f"protocol and {key}={value})"))
    return protocol.replace(**changes) if changes else protocol


def refuse_no_relevant_id(qrels: Qrels, run: Run, protocol: Protocol, source: str) -> None:
    """Refuse a run none of whose doc ids is a relevant id (one line naming the likely mapping),
    unless a chunk map says how its ids name the judged docs."""
    if (protocol.chunk_map.kind != "none" or not len(run.docs)
        or np.isin(run.docs, qrels.docs).any()):
        return
    example = f"(retrieved {str(run.docs[0])!r}, relevant {str(qrels.docs[0])!r})"
    raise CoverageError(source=source,
                        what=f"none of the {len(run.docs)} retrieved ids is a relevant id {example}",
                        fix=_likely_mapping([str(d) for d in run.docs],
                                            {str(d) for d in qrels.docs}) +
                        ", or {do[allow_partial]} to evaluate the ids as written")


def _likely_mapping(retrieved: list[str], relevant: set[str]) -> str:
    """The mapping that makes the most retrieved ids relevant ids: a chunk separator, or case."""
    best, hits = "map chunk ids to the judged ids: {do[chunk_map]}", 0
    for sep in CHUNK_SEPARATORS:
        count = sum(doc.split(sep, 1)[0] in relevant for doc in retrieved if sep in doc)
        if count > hits:
            best = f"the retrieved ids look like chunks of the relevant ids: {{do[chunk_sep={sep}]}}"
            hits = count
    folded = {doc.casefold() for doc in relevant}
    if sum(doc.casefold() in folded for doc in retrieved) > hits:
        best = "the ids differ in case only: {do[ids_casefold]}"
    return best

