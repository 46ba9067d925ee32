"""The recommender side: measures that need side data beyond the judgments.

- :mod:`~rankproof.recsys.beyond`: intra-list diversity, novelty, long-tail
  share; :mod:`~rankproof.recsys.sessions`: per-session means;
- :mod:`~rankproof.recsys.coverage`: catalogue coverage of the top k;
- :mod:`~rankproof.recsys.concentration`: the Gini index and entropy of the
  items' shares of the top-k slots (RecBole's, Elliot's and RecPack's Gini);
- :mod:`~rankproof.recsys.calibration`: average recommendation popularity
  (ARP) and Steck's miscalibration;
- :mod:`~rankproof.recsys.auc`: per-user AUC, GAUC and pooled AUC;
- :mod:`~rankproof.recsys.popularity_bias`: Elliot's PopRSP and PopREO (short head vs long tail);
- :mod:`~rankproof.recsys.exposure`: exposure of item groups under a position-weighted exposure model;
- :mod:`~rankproof.recsys.awrf`: attention-weighted rank fairness of item groups against a target;
- :mod:`~rankproof.recsys.expected_exposure`: expected exposure of a stochastic ranking policy (EE-L, EE-D,
  EE-R; Diaz et al. 2020) and Plackett-Luce draws from a run's scores;
- :mod:`~rankproof.recsys.serendipity`, :mod:`~rankproof.recsys.percentile` and :mod:`~rankproof.recsys.ips`:
  serendipity, expected percentile ranking, and IPS-weighted hit rate and nDCG;
- :mod:`~rankproof.recsys.clicks`: click logs and the position-based model
  (examination probabilities as a discount);
- :mod:`~rankproof.recsys.sampled`: sampled evaluation beside the full
  ranking, its bias and the Krichene-Rendle correction;
- :mod:`~rankproof.recsys.monitor`: near-line monitoring, a current window
  against a reference window, with an alert on a significant drop;
- :mod:`~rankproof.recsys.registry`: the side-data measures by name (``-m coverage@10``),
  :mod:`~rankproof.recsys.side` and :mod:`~rankproof.recsys.side_io` the side data and its
  readers, :mod:`~rankproof.recsys.side_eval` their evaluation beside accuracy.
"""

from .beyond import ild, long_tail_share, novelty, popularity
from .sessions import session_mean
from .clicks import ClickLog, PBMFit, fit_pbm, read_clicks
from .coverage import Coverage, coverage
from .concentration import Concentration, entropy, gini, item_counts
from .calibration import arp, miscalibration
from .auc import AUCValue, gauc, pooled_auc, user_auc
from .popularity_bias import PopParity, pop_reo, pop_rsp, short_head
from .exposure import GroupExposure, group_exposure, position_exposure
from .expected_exposure import ExpectedExposure, expected_exposure, plackett_luce, read_samples
from .awrf import awrf
from .serendipity import serendipity
from .percentile import PercentileRank, percentile_rank
from .ips import inverse_propensities, ips_hit_rate, ips_ndcg
from .sampled import Sampled, SampledEvaluation, evaluate_sampled
from .monitor import Monitoring, monitor
from .registry import SIDE_REGISTRY
from .side import SideData
from .side_eval import evaluate_with_side
from .side_io import read_side_data

__all__ = ["ild", "long_tail_share", "novelty", "popularity", "session_mean",
           "ClickLog", "PBMFit", "fit_pbm", "read_clicks", "Coverage", "coverage"]
__all__ += ["Concentration", "entropy", "gini", "item_counts", "arp", "miscalibration"]
__all__ += ["Sampled", "SampledEvaluation", "evaluate_sampled", "Monitoring", "monitor"]
__all__ += ["SIDE_REGISTRY", "SideData", "evaluate_with_side", "read_side_data"]
__all__ += ["AUCValue", "gauc", "pooled_auc", "user_auc"]
__all__ += ["PopParity", "pop_reo", "pop_rsp", "short_head"]
__all__ += ["GroupExposure", "group_exposure", "position_exposure"]
__all__ += ["ExpectedExposure", "expected_exposure", "plackett_luce", "read_samples", "awrf"]
__all__ += ["serendipity", "PercentileRank", "percentile_rank", "inverse_propensities",
            "ips_hit_rate", "ips_ndcg"]
