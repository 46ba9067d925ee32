"""The notes and warnings a :class:`~rankproof.Results` states, written once for every front door.

``Results.summary()`` (Python), the command line's stderr lines and the HTML report
print the same lines, in the spelling of their reader (:mod:`rankproof.errors.messages`):
``Protocol(rel=4)`` in Python, ``--policy rel=4`` on the command line. Which lines
appear depends on the world of the data: a recommender log's truth and a RAG row's
reference ids are complete, so the TREC advice about unjudged docs is left out there
(``Results.complete_judgments``).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors.messages import LOG, PYTHON, TREC, applies, spell

__all__ = ["notes", "warnings", "rating_note", "unjudged_warning", "coverage_warning", "world"]


def world(results: Any) -> str:
    """The world of the data the results were evaluated on: :data:`~rankproof.errors.messages.LOG`
    when the judgments are complete (a log's truth, RAG rows), else
    :data:`~rankproof.errors.messages.TREC`."""
    return LOG if results.complete_judgments else TREC


def notes(results: Any, spelling: str = PYTHON) -> list[str]:
    """Facts about the input: the table's own (where a pool comes from, that a truth is complete),
    then :func:`rating_note`."""
    rating = rating_note(results, spelling)
    return [*results.table.notes, *((rating,) if rating else ())]


def warnings(results: Any, spelling: str = PYTHON) -> list[str]:
    """The results' warnings (ids that half match, ...), then the coverage and unjudged ones."""
    found = [str(getattr(line, "cli", line)) if spelling != PYTHON else str(line)
             for line in results.warnings]
    return [*found, *coverage_warning(results), *unjudged_warning(results, spelling)]


def rating_note(results: Any, spelling: str = PYTHON) -> str | None:
    """Say when binary measures count every judged grade as relevant although grades are graded.

    Ratings (1 to 5 stars, say) judge every rated item with a grade >= 1
    and none with 0: under ``rel=1`` a 1-star rating is a hit for r@k,
    p@k, ap, rr and hit, which a recommender engineer rarely means.
    TREC qrels judge non-relevant docs 0, so they do not raise the note.
    """
    grade_range = results.table.grade_range
    if grade_range is None:
        return None  # a score matrix's fast path holds no pool; its grades include 0 as a rule
    binary = [m for m in results.measures if "rel" in m.spec.params]
    low, high = grade_range
    counted = [m for m in binary if m.setting("rel", results.protocol) <= low]
    if not counted or not high > low or low <= 0:
        return None
    rel = counted[0].setting("rel", results.protocol)
    upper = min(int(math.floor((low + high) / 2)) + 1, int(high))  # the upper half: 4 and 5 of 1-5
    shown = str(counted[0](rel=upper))
    fix = (f"set e.g. Protocol(rel={upper}) or {shown}" if spelling == PYTHON
           else f"give e.g. --policy rel={upper} or -m '{shown}'")
    return (f"rel={rel}: every judged grade ({low:g} to {high:g} here, none 0) counts as relevant for "
            f"{', '.join(str(m) for m in counted)}, so a rating of {low:g} is a hit; if low ratings are "
            f"dislikes, {fix}")


def unjudged_warning(results: Any, spelling: str = PYTHON) -> list[str]:
    """The seed of the project: unjudged is not non-relevant. Warn where it matters most.

    TREC data only (a complete truth has no unjudged docs, only non-relevant ones).
    Measures with a cutoff are preferred (the top k is what people read); the one
    with the most unjudged docs inside its cutoff is named.
    """
    if not applies("unjudged_advice", world(results)):
        return []
    inside = results.counts["unjudged_in_cutoff"]
    cut = ({m: v for m, v in inside.items() if "@" in m and v}
           or {m: v for m, v in inside.items() if v})
    if not cut:
        return []
    measure = max(cut, key=lambda m: cut[m])
    k = measure.rsplit("@", 1)[1] if "@" in measure else None
    where = f"the top {k} ({measure})" if k else f"the rankings ({measure})"
    check = f"{{do[judged_at={k or 'k'}]}}"
    return [spell(f"{cut[measure]} unjudged docs inside {where} count as non-relevant; unjudged is not "
                  f"non-relevant ({check}, or {{do[condense]}})", spelling)]


def coverage_warning(results: Any) -> list[str]:
    """A run that ranks few of the judged queries (allowed by allow_partial, but said): the one text
    of :func:`rankproof.results.coverage.coverage_warning`, which every front door prints."""
    from .coverage import coverage_warning as text_of

    text = text_of(results)
    return [] if text is None else [text]
