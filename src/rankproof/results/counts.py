"""The keys of :attr:`rankproof.Results.counts`, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, TypedDict, cast

if TYPE_CHECKING:
    from ..measures.base import Measure
    from .values import MeasureResult

__all__ = ["Counts", "CUTOFF_KEYS", "all_counts"]


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
    # Queries the run answers with an empty list (counted among the missing, under missing_query),
    # and queries the qrels declare with no judgment (nothing relevant, under zero_ideal).
    queries_ranked_empty: int
    queries_without_judgments: int
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


# The per-measure counts of the cutoffs, last in the counts' order.
CUTOFF_KEYS = ("unjudged_in_cutoff", "tied_groups_crossing_cutoff")


def all_counts(by_policy: Mapping[str, Any], measures: "Mapping[Measure, MeasureResult]") -> Counts:
    """The counts of the row policies (`by_policy`, as the evaluation counted them) with those of the
    query policies, taken from each measure's result, in a fixed order: the row policies', the
    query policies' (zero_ideal_queries, excluded_queries), then the cutoffs'."""
    counts: dict[str, Any] = {k: v for k, v in by_policy.items() if k not in CUTOFF_KEYS}
    # zero_ideal=drop excludes queries from measures that are not normalised too
    counted = {m: r for m, r in measures.items() if m.spec.normalised or r.zero_ideal.any()}
    counts["zero_ideal_queries"] = {str(m): int(r.zero_ideal.sum()) for m, r in counted.items()}
    # ... and a measure without a value for some queries (accuracy without a pair) leaves them out
    counted.update({m: r for m, r in measures.items() if m.spec.always_excluded})
    counts["excluded_queries"] = {str(m): int((~r.included).sum()) for m, r in counted.items()}
    counts.update({k: by_policy[k] for k in CUTOFF_KEYS if k in by_policy})
    return cast(Counts, counts)
