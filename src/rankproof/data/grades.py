"""Mapping grades before anything else (``--grade-map 1:4,2:3,3:2,4:1,-1:0``).

Collections disagree on which end of the scale is best (Cranfield's codes run
1 = most relevant to 4 = least); a grade map states the reading explicitly.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..errors import InputError
from .qrels import Qrels

__all__ = ["map_grades"]


def map_grades(qrels: Qrels, mapping: Mapping[int, int]) -> Qrels:
    """A copy of ``qrels`` with every grade replaced through ``mapping``.

    Every grade in the qrels must be in the map; a missing one is an error
    naming its line, query and doc, so no grade keeps its old meaning by accident.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 4, "c": -1}})
    >>> map_grades(qrels, {1: 4, 2: 3, 3: 2, 4: 1, -1: 0}).to_dict()
    {'q': {'a': 4, 'b': 1, 'c': 0}}
    """
    old = np.array(sorted(mapping), dtype=np.int64)
    new = np.array([mapping[g] for g in sorted(mapping)], dtype=np.int64)
    at = np.searchsorted(old, qrels.grades)
    at_clipped = np.minimum(at, max(len(old) - 1, 0))
    known = (at < len(old)) & (old[at_clipped]
                               == qrels.grades) if len(old) else np.zeros(len(qrels), bool)
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        query = qrels.queries[np.searchsorted(qrels.offsets, i, side="right") - 1]
        missing = sorted(set(qrels.grades[~known].tolist()))
        raise InputError(source=qrels.source,
                         line=int(qrels.lines[i]) if qrels.lines[i] >= 0 else None,
                         query=str(query), doc=str(qrels.docs[qrels.doc_codes[i]]),
                         value=qrels.grades[i].item(),
                         what=f"grade {qrels.grades[i]} is not in the grade map (unmapped grades: "
                              f"{', '.join(map(str, missing))})",
                         fix=f"add them, e.g. {missing[0]}:0")
    query_codes = np.repeat(np.arange(qrels.num_queries), np.diff(qrels.offsets))
    return Qrels(query_codes=query_codes, queries=qrels.queries, doc_codes=qrels.doc_codes,
                 docs=qrels.docs,
                 grades=new[at], lines=qrels.lines, source=qrels.source, keep_empty=True)
