"""The pipeline: the one place that applies row policies.

Qrels and a run (or a score matrix, or judgments per intent) go in; the
aligned ranking table the engines compute on comes out (:class:`Alignment`):
rows sorted within each query, score precision, ties, duplicates, negative
grades, unjudged docs, depth, grade maps and chunks resolved, with the count
of every case a policy touched.
"""

from .alignment import Alignment, QueryTable, align, assume_unjudged, cutoff_counts, truncate

__all__ = ["Alignment", "QueryTable", "align", "assume_unjudged", "cutoff_counts", "truncate"]
