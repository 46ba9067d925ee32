"""The ``ids`` policy applied: query and doc ids of qrels and run normalised before they are matched.

Works on the vocabularies (each distinct id once), never on rows: the rows
keep their codes. Two ids of one side that the policy makes one (``01`` and
``1`` under ``strip_zeros``) are refused, naming both: merging them would
decide silently which judgment or ranking stands. Counted as
``ids_normalised``: the distinct ids the policy changed, both sides.

Applied once per evaluation: :func:`normalised_inputs` gives the qrels and
run as the policy makes them (:class:`Inputs`), which the partial-match
guard reads and :func:`~rankproof.pipeline.alignment.align_inputs` joins.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, literal
from ..kernels.segments import segment_of
from ..protocol import Protocol
from ..protocol.ids import IdPolicy

__all__ = ["Inputs", "normalise_ids", "normalised_inputs"]


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Qrels and a run with their ids as ``protocol.ids`` makes them.

    ``ids_normalised``: the distinct ids the policy changed, both sides
    (None under ``ids=none``, which changes nothing and is not counted).
    """

    qrels: Qrels
    run: Run
    protocol: Protocol
    ids_normalised: int | None = None


def _vocabulary(ids: np.ndarray, policy: IdPolicy, role: str, source: str) -> tuple[np.ndarray,
                                                                                    int]:
    """The ids normalised, and how many changed; two ids made one are refused."""
    normalised = np.array(policy.apply(ids.tolist()), dtype=str) if len(ids) else ids
    changed = int(np.count_nonzero(normalised != ids)) if len(ids) else 0
    if changed:
        order = np.argsort(normalised, kind="stable")
        ranked = normalised[order]
        same = np.flatnonzero(ranked[1:] == ranked[:-1])
        if len(same):
            first, second = ids[order[same[0]]], ids[order[same[0] + 1]]
            raise InputError(
                what=f"ids={policy} makes the {role} ids {literal(repr(str(first)))} and {literal(repr(str(second)))} "
                     f"one ({literal(repr(str(ranked[same[0]])))})", source=source,
                value=str(first),
                fix="drop the step that merges them from the ids policy, or give them distinct ids")
    return normalised, changed


def _renamed(table: Qrels | Run, policy: IdPolicy, kind: type, **own: object) -> tuple[Any, int]:
    """`table` with its query and doc ids normalised, and how many changed (`table` itself
    when none did). The rows keep their codes: a `kind` is made again from the new
    vocabularies, the rows, and its `own` fields (a qrels' grades, a run's scores)."""
    queries, changed_queries = _vocabulary(table.queries, policy, "{query}", table.source)
    docs, changed_docs = _vocabulary(table.docs, policy, "{doc}", table.source)
    if not changed_queries and not changed_docs:
        return table, 0
    made = kind(query_codes=segment_of(np.diff(table.offsets)), queries=queries,
                doc_codes=table.doc_codes, docs=docs, lines=table.lines, source=table.source,
                **own)
    return made, changed_queries + changed_docs


def normalised_inputs(qrels: Qrels, run: Run, protocol: Protocol) -> Inputs:
    """Qrels and run with their ids normalised by ``protocol.ids`` (the same
    objects under ``ids=none``), and the count of ids it changed.

    >>> from rankproof import Qrels, Run
    >>> inputs = normalised_inputs(Qrels.from_dict({"1": {"7": 1}}), Run.from_dict({"001": ["007"]}),
    ...                            Protocol(ids="strip_zeros"))
    >>> inputs.run.queries.tolist(), inputs.run.docs.tolist(), inputs.ids_normalised
    (['1'], ['7'], 2)
    """
    policy = protocol.ids
    if not policy:
        return Inputs(qrels, run, protocol)
    qrels, changed_qrels = _renamed(qrels, policy, Qrels, grades=qrels.grades, keep_empty=True)
    run, changed_run = _renamed(run, policy, Run, scores=run.scores if run.has_scores else None,
                                name=run.name)
    return Inputs(qrels, run, protocol, changed_qrels + changed_run)


def normalise_ids(qrels: Qrels, run: Run, protocol: Protocol,
                  counts: dict | None = None) -> tuple[Qrels, Run]:
    """:func:`normalised_inputs` as a pair; adds ``ids_normalised`` to `counts`.

    >>> from rankproof import Qrels, Run
    >>> counts = {}
    >>> q, r = normalise_ids(Qrels.from_dict({"1": {"7": 1}}), Run.from_dict({"001": ["007"]}),
    ...                      Protocol(ids="strip_zeros"), counts)
    >>> r.queries.tolist(), r.docs.tolist(), counts
    (['1'], ['7'], {'ids_normalised': 2})
    """
    inputs = normalised_inputs(qrels, run, protocol)
    if counts is not None and inputs.ids_normalised is not None:
        counts["ids_normalised"] = inputs.ids_normalised
    return inputs.qrels, inputs.run
