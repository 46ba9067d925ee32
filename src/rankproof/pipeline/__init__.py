"""The pipeline: the one place that applies row policies.

Qrels and a run (or a score matrix, or judgments per intent) go in; the
aligned ranking table the engines compute on comes out (:class:`Alignment`):
rows sorted within each query, score precision, ties, duplicates, negative
grades, unjudged docs, depth, grade maps and chunks resolved, with the count
of every case a policy touched.

- :mod:`~rankproof.pipeline.aligned`: :class:`AlignmentLike` (what every alignment
  offers the step and the engines), :class:`Alignment` and :class:`QueryTable`
- :mod:`~rankproof.pipeline.alignment`: :func:`align` (and :func:`align_inputs`:
  ids normalised once)
- :mod:`~rankproof.pipeline.scores` and :mod:`~rankproof.pipeline.dense`: score
  matrices as alignments
- :mod:`~rankproof.pipeline.rows`: the row policies (grades, negative grades, unjudged, duplicates, score precision)
- :mod:`~rankproof.pipeline.ties`: rank order and the ``ties`` policy's groups
- :mod:`~rankproof.pipeline.chunks`: the ``chunk_map`` and ``chunks`` policies
- :mod:`~rankproof.pipeline.cuts`: the depth policy and the top k of set measures
- :mod:`~rankproof.pipeline.intents`: judgments per intent on an alignment
"""

from .aligned import Alignment, AlignmentLike, QueryTable, assume_unjudged, cutoff_counts
from .alignment import align, align_inputs, truncate

__all__ = ["Alignment", "AlignmentLike", "QueryTable", "align", "align_inputs", "assume_unjudged",
           "cutoff_counts", "truncate"]
