"""The coverage guard: a run that ranks too few of the judged queries is refused, or warned about.

Coverage = judged queries the run answers / judged queries (an empty list is
an answer: the ``missing_query`` policy decides its value). Every front door
(:func:`rankproof.evaluate`, :func:`rankproof.evaluate_frame` in memory and
out of core, :func:`rankproof.evaluate_rag`, :func:`rankproof.evaluate_scores`,
the scikit-learn scorer and the streaming evaluator through it, Spark, and
the command line) calls :func:`guard_coverage`, so the refusal and the
warning read the same everywhere. Beside it,
:mod:`rankproof.results.matching` says why ids half match.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import CoverageError, RankproofWarning
from ..protocol import MissingQuery
from ..engines.options import MIN_COVERAGE, check_flag, check_share

__all__ = ["MIN_COVERAGE", "check_query_coverage", "check_share", "guard_coverage",
           "coverage_warning", "ranked_queries",
           "COVERAGE_WARNING_START"]

# How coverage_warning's text begins (a part of an out-of-core evaluation filters it out).
COVERAGE_WARNING_START = "the run ranks "



def check_query_coverage(results: Any, min_coverage: float = MIN_COVERAGE, *,
                         source: str = "") -> None:
    """Refuse results (a :class:`~rankproof.Results`) whose run ranks too few of the judged queries.

    Coverage = judged queries the run ranks / judged queries. Raises
    :class:`~rankproof.errors.CoverageError` when it is 0 (whatever
    ``min_coverage`` says) or below ``min_coverage``.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}})
    >>> evaluate(qrels, Run.from_dict({"q1": ["a"]}), "ndcg@10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankproof.errors.CoverageError: run against qrels: the run ranks none of the 2 judged queries ...
    >>> evaluate(qrels, Run.from_dict({"q1": ["a"]}), "ndcg@10", allow_partial=True).query_coverage
    0.0
    """
    check_share(min_coverage)
    coverage = results.query_coverage
    if coverage > 0 and coverage >= min_coverage:
        # Passed before the counts are read: a front door may count on first use (a score matrix's
        # tie
        # counts sort the whole matrix), and a covered run needs none of them.
        return
    counts = results.counts
    judged = counts["queries_in_qrels"]
    if judged == 0:
        return
    ranked = ranked_queries(counts)
    fix = "{do[allow_partial]} to evaluate it anyway"
    if ranked == 0:
        raise CoverageError(
            what=f"the run ranks none of the {judged} judged {{queries}} "
            f"({counts['queries_missing_from_qrels']} ranked {{queries}} are not judged)",
            source=source or None,
            fix=f"check that the {{query}} ids match (e.g. 'q1' against '1'), or {fix}", value=0.0)
    raise CoverageError(
        what=f"the run ranks {ranked} of the {judged} judged {{queries}} ({coverage:.1%}), below the "
        f"{min_coverage:.0%} asked for; the other {judged - ranked} are {_MISSING_FATE[results.protocol.missing_query]}",
        source=source or None, fix=f"check the run, or {fix} (or {{do[min_coverage]}})",
        value=coverage)


_MISSING_FATE = {MissingQuery.ZERO: "scored 0 (missing_query=zero)",
                 MissingQuery.EXCLUDE: "left out of the mean (missing_query=exclude)"}


def ranked_queries(counts: Any) -> int:
    """The judged queries a run answers (with an empty list too), from results' counts."""
    return int(counts["queries_in_qrels"] - counts["queries_missing_from_run"]
               + counts.get("queries_ranked_empty", 0))


def coverage_warning(results: Any) -> "str | None":
    """The one warning about results whose run ranks fewer than :data:`MIN_COVERAGE` of the judged
    queries (evaluated with allow_partial), or None.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}})
    >>> results = evaluate(qrels, Run.from_dict({"1": ["a"]}), "rr", allow_partial=True)
    >>> print(coverage_warning(results))
    the run ranks 1 of the 3 judged queries (33.3%); the other 2 are scored 0 (missing_query=zero), so the mean is mostly made of queries it does not rank
    """
    coverage = results.query_coverage
    if coverage >= MIN_COVERAGE:
        return None
    counts = results.counts
    judged = counts["queries_in_qrels"]
    ranked = ranked_queries(counts)
    fate = _MISSING_FATE.get(results.protocol.missing_query, "refused (missing_query=error)")
    return (f"{COVERAGE_WARNING_START}{ranked} of the {judged} judged queries ({coverage:.1%}); the other {judged - ranked} "
            f"are {fate}, so the mean is mostly made of queries it does not rank")


def guard_coverage(results: Any, *, allow_partial: bool = False, min_coverage: float = MIN_COVERAGE,
                   source: str = "", stacklevel: int = 3) -> None:
    """The coverage guard of every front door: refuse `results` below `min_coverage` (and always at 0)
    with :func:`check_query_coverage`'s :class:`~rankproof.errors.CoverageError`, unless
    `allow_partial`; then warn (:class:`~rankproof.errors.RankproofWarning`) with
    :func:`coverage_warning`'s text when the coverage is below :data:`MIN_COVERAGE`.
    Both arguments are checked whatever the data: `allow_partial` is a bool (``"no"`` would be
    true), `min_coverage` a share (:func:`check_share`)."""
    check_share(min_coverage)
    check_flag("allow_partial", allow_partial)
    if not allow_partial:
        check_query_coverage(results, min_coverage, source=source)
        return
    text = coverage_warning(results)
    if text is not None:
        warnings.warn(text, RankproofWarning, stacklevel=stacklevel)
