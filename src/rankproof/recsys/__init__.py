"""The recommender side: measures that need side data beyond the judgments.

- :mod:`~rankproof.recsys.beyond`: intra-list diversity, novelty, long-tail
  share, per-session means;
- :mod:`~rankproof.recsys.coverage`: catalogue coverage of the top k;
- :mod:`~rankproof.recsys.clicks`: click logs and the position-based model
  (examination probabilities as a discount);
- :mod:`~rankproof.recsys.registry`: the side-data measures by name (``-m coverage@10``),
  :mod:`~rankproof.recsys.side` and :mod:`~rankproof.recsys.side_io` the side data and its
  readers, :mod:`~rankproof.recsys.side_eval` their evaluation beside accuracy.
"""

from .beyond import ild, long_tail_share, novelty, popularity, session_mean
from .clicks import ClickLog, PBMFit, fit_pbm, read_clicks
from .coverage import Coverage, coverage
from .registry import SIDE_REGISTRY
from .side import SideData
from .side_eval import evaluate_with_side
from .side_io import read_side_data

__all__ = ["ild", "long_tail_share", "novelty", "popularity", "session_mean",
           "ClickLog", "PBMFit", "fit_pbm", "read_clicks", "Coverage", "coverage",
           "SIDE_REGISTRY", "SideData", "evaluate_with_side", "read_side_data"]
