"""The keys of :attr:`rankproof.Results.counts`, typed."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["Counts"]


class Counts(TypedDict, total=False):
    """Every case a policy touched (:attr:`Results.counts`): a dict, so
    ``counts["queries_in_qrels"]`` reads as before, with its keys typed.

    The per-measure counts are dicts keyed by the measure's text. Some keys
    exist only where their case can arise (``masked_entries`` and
    ``relevant_outside_candidates`` for score matrices, ``chunks_merged``
    under a chunk map).
    """

    queries_in_qrels: int
    queries_in_run: int
    queries_evaluated: int
    queries_missing_from_run: int
    queries_missing_from_qrels: int
    duplicates_dropped: int
    negative_grades: int
    unjudged_retrieved: int
    unjudged_dropped: int
    tied_groups: int
    tied_docs: int
    tied_groups_from_precision: int
    masked_entries: int
    relevant_outside_candidates: int
    chunks_merged: int
    ids_normalised: int
    subqueries_merged: int
    identical_ids_dropped: int
    # Nugget scores (rankproof.evaluate_nuggets): the nuggets of the answers and their assignments.
    nuggets: int
    vital_nuggets: int
    nuggets_supported: int
    nuggets_partially_supported: int
    nuggets_not_supported: int
    answers_without_nuggets: int
    answers_without_vital_nuggets: int
    zero_ideal_queries: dict[str, int]
    excluded_queries: dict[str, int]
    unjudged_in_cutoff: dict[str, int]
    tied_groups_crossing_cutoff: dict[str, int]
    # Layered qrels (Qrels.layer): per measure, the judged docs inside its cutoff from each source.
    judged_in_cutoff_by_layer: dict[str, dict[str, int]]
