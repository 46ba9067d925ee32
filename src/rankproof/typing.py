"""The type names of rankproof's signatures, each defined once.

A signature that accepts "a protocol, a preset's name or nothing" says
:data:`ProtocolLike`; one that accepts "measure names, :class:`~rankproof.measures.Measure`
objects, or one of either" says :data:`MeasuresLike`. The string options
of the statistics (the paired test, the correction, the bootstrap interval)
and of the recommender measures (the position model of exposure) are
``Literal`` types here, so that a type checker catches ``test="ttest"``
before the call refuses it.

The aliases that name rankproof's own classes are written as strings and
their classes imported for type checkers only: importing this module
loads nothing else of rankproof. It sits just above measures/, whose classes it
names; every layer from there up uses it.

>>> from typing import get_args
>>> get_args(TestName)
('t', 'wilcoxon', 'randomization')
>>> "geometric" in get_args(Exposure)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    import numpy as np

    from .measures import Measure
    from .protocol import Protocol

__all__ = ["ProtocolLike", "MeasuresLike", "MeasureNames", "TestName", "CorrectionName",
           "BootstrapMethod",
           "Unlabelled", "Exposure", "Judgments", "QueryIds"]

# A Protocol, a preset's name ("trec_eval", "sklearn", ...) or None for the default protocol.
ProtocolLike: TypeAlias = "Protocol | str | None"
# Measure names ("ndcg@10"), Measure objects, or one of either.
MeasuresLike: TypeAlias = "Iterable[str | Measure] | str | Measure"
# Measure names only: one, or several (the side-data and sampled measures take names).
MeasureNames: TypeAlias = "str | Iterable[str]"

# The paired test of compare (rankproof.stats.significance.TESTS).
TestName = Literal["t", "wilcoxon", "randomization"]
# The multiple-comparison correction (rankproof.stats.corrections.CORRECTIONS).
CorrectionName = Literal["holm", "bonferroni", "bh", "none"]
# The bootstrap interval, as scipy.stats.bootstrap names it.
BootstrapMethod = Literal["percentile", "basic", "BCa"]
# What Results.by does with evaluated queries a segment does not label.
Unlabelled = Literal["error", "group", "drop"]
# How much attention a rank position gets: the same for each of the top k, 1/log2(rank + 1), or
# patience ** (rank - 1) (the geometric browsing model of RBP).
Exposure = Literal["uniform", "log", "geometric"]

# Labels per topic and document: {query: {doc: grade}} (two assessors' judgments, or a judge's).
Judgments = Mapping[Any, Mapping[Any, float]]

# The query ids a front door gives the results to show: the ids aligned with the alignment's (text,
# sorted) queries, or a function of those queries giving (ids, order), run on first use (parsing a
# million ids costs time that a caller reading only means should not pay); (None, None) keeps the
# text ids (rankproof.results.Results).
QueryIds: TypeAlias = "np.ndarray | Sequence | Callable[[np.ndarray], tuple[np.ndarray | None, np.ndarray | None]]"
