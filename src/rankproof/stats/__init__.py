"""Comparing systems: paired significance tests, intervals, corrections, comparability.

``compare`` (also ``rankproof.compare``) runs a comparison; ``load_results``
reads results saved by ``rankproof evaluate --format json``. The modules:
``significance`` (paired tests), ``corrections`` (Holm, Bonferroni, BH),
``power`` (queries needed), ``saved`` (saved results), ``comparison``.

scipy is imported when a comparison runs, not when this package is imported.
"""

from .comparison import Comparison, ComparisonRow, compare
from .saved import SavedResults, load_results

__all__ = ["compare", "Comparison", "ComparisonRow", "load_results", "SavedResults"]
