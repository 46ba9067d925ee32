"""The coverage check: a run that ranks too few of the judged queries is refused.

Coverage = judged queries the run ranks / judged queries. Beside it,
:mod:`rankproof.results.matching` says why ids half match.
"""

from __future__ import annotations

from typing import Any

from ..errors import CoverageError, InputError, literal
from ..protocol import MissingQuery

__all__ = ["MIN_COVERAGE", "check_query_coverage"]

# A run that ranks fewer than this share of the judged queries is refused unless the caller allows it: a
# mean made mostly of queries scored 0 (or of a handful of queries) is rarely what was meant, and
# mismatched query ids (q1 against 1) look exactly like that.
MIN_COVERAGE = 0.5


def check_query_coverage(results: Any, min_coverage: float = MIN_COVERAGE, *, source: str = "") -> None:
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
    if isinstance(min_coverage, bool) or not 0 <= float(min_coverage) <= 1:
        raise InputError(what=f"min_coverage must be a share between 0 and 1; got {literal(repr(min_coverage))}",
                         value=min_coverage)
    counts = results.counts
    judged = counts["queries_in_qrels"]
    coverage = results.query_coverage
    if judged == 0 or (coverage > 0 and coverage >= min_coverage):
        return
    ranked = judged - counts["queries_missing_from_run"]
    fix = "{do[allow_partial]} to evaluate it anyway"
    if ranked == 0:
        raise CoverageError(
            what=f"the run ranks none of the {judged} judged queries "
            f"({counts['queries_missing_from_qrels']} ranked queries are not judged)", source=source or None,
            fix=f"check that the {{query}} ids match (e.g. 'q1' against '1'), or {fix}", value=0.0)
    raise CoverageError(
        what=f"the run ranks {ranked} of the {judged} judged queries ({coverage:.1%}), below the "
        f"{min_coverage:.0%} asked for; the other {judged - ranked} are {_MISSING_FATE[results.protocol.missing_query]}",
        source=source or None, fix=f"check the run, or {fix} (or {{do[min_coverage]}})", value=coverage)


_MISSING_FATE = {MissingQuery.ZERO: "scored 0 (missing_query=zero)",
                 MissingQuery.EXCLUDE: "left out of the mean (missing_query=exclude)"}
