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
           "coverage_warning", "ranked_queries", "share_text",
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
        # tie counts sort the whole matrix), and a covered run needs none of them.
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
        f"{share_text(min_coverage)} asked for; the other {judged - ranked} are {_MISSING_FATE[results.protocol.missing_query]}",
        source=source or None, fix=f"check the run, or {fix} (or {{do[min_coverage]}})",
        value=coverage)


_MISSING_FATE = {MissingQuery.ZERO: "scored 0 (missing_query=zero)",
                 MissingQuery.EXCLUDE: "left out of the mean (missing_query=exclude)"}


def ranked_queries(counts: Any) -> int:
    """The judged queries a run answers (with an empty list too), from results' counts."""
    return int(counts["queries_in_qrels"] - counts["queries_missing_from_run"]
               + counts.get("queries_ranked_empty", 0))


def share_text(share: float) -> str:
    """A share as a percentage, exactly as given (0.75 -> ``75%``, 0.125 -> ``12.5%``): the
    threshold a message names is the one the caller asked for, not a rounding of it."""
    return f"{float(share) * 100:g}%"


def coverage_warning(results: Any, min_coverage: "float | None" = None) -> "str | None":
    """The one warning about results whose run ranks too few of the judged queries, or None.

    `min_coverage` is the share the caller asked for: by default the one the results were evaluated
    with (``results.min_coverage``; :data:`MIN_COVERAGE` for results that do not say). The warning
    is said below that share (where :func:`check_query_coverage` refuses without allow_partial),
    always when the run ranks none of the judged queries, and below :data:`MIN_COVERAGE` even when
    a lower share was asked for (a mean mostly of queries the run does not rank is still said).

    Four judged queries, the run ranks three (75%): below the 80% asked for, not below 75%.

    >>> from rankproof import Qrels, Run, evaluate
    >>> qrels = Qrels.from_dict({q: {"a": 1} for q in "1234"})
    >>> results = evaluate(qrels, Run.from_dict({q: ["a"] for q in "123"}), "rr",
    ...                    min_coverage=0.8, allow_partial=True)
    >>> print(coverage_warning(results))
    the run ranks 3 of the 4 judged queries (75.0%), below the 80% asked for; the other 1 are scored 0 (missing_query=zero)
    >>> print(coverage_warning(results, min_coverage=0.75))
    None
    """
    threshold = getattr(results, "min_coverage", MIN_COVERAGE) if min_coverage is None \
        else min_coverage
    coverage = results.query_coverage
    if coverage > 0 and coverage >= max(threshold, MIN_COVERAGE):
        return None
    counts = results.counts
    judged = counts["queries_in_qrels"]
    ranked = ranked_queries(counts)
    missing = results.protocol.missing_query
    if coverage < threshold:
        below = f", below the {share_text(threshold)} asked for"
    elif coverage > 0:  # a lower share was asked for: the default's is named beside it
        below = f", below the default {share_text(MIN_COVERAGE)} ({share_text(threshold)} asked for)"
    else:
        below = ""  # none ranked with min_coverage=0: the count says it all
    mostly = (", so the mean is mostly made of queries it does not rank"
              if missing is MissingQuery.ZERO and coverage < 0.5 else "")
    return (f"{COVERAGE_WARNING_START}{ranked} of the {judged} judged queries ({coverage:.1%}){below}; "
            f"the other {judged - ranked} are {_MISSING_FATE.get(missing, 'refused (missing_query=error)')}{mostly}")


def guard_coverage(results: Any, *, allow_partial: bool = False, min_coverage: float = MIN_COVERAGE,
                   source: str = "", stacklevel: int = 3) -> None:
    """The coverage guard of every front door: refuse `results` below `min_coverage` (and always at 0)
    with :func:`check_query_coverage`'s :class:`~rankproof.errors.CoverageError`, unless
    `allow_partial`; then warn (:class:`~rankproof.errors.RankproofWarning`) with
    :func:`coverage_warning`'s text when the coverage is below `min_coverage` (the results carry
    the share too, ``Results.min_coverage``, so their summary says the same).
    Both arguments are checked whatever the data: `allow_partial` is a bool (``"no"`` would be
    true), `min_coverage` a share (:func:`check_share`)."""
    check_share(min_coverage)
    check_flag("allow_partial", allow_partial)
    if not allow_partial:
        check_query_coverage(results, min_coverage, source=source)
        return
    text = coverage_warning(results, min_coverage)
    if text is not None:
        warnings.warn(text, RankproofWarning, stacklevel=stacklevel)
