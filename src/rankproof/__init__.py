"""rankproof: ranking evaluation that states every convention it uses.

>>> from rankproof import Qrels, Run, Protocol, evaluate
>>> qrels = Qrels.from_dict({"q1": {"A": 3, "B": 2, "C": 1, "D": 0}})
>>> run = Run.from_dict({"q1": ["B", "C"]})
>>> results = evaluate(qrels, run, ["ndcg@2", "ap"], Protocol())
>>> round(results.mean("ndcg@2"), 4)
0.6173

Importing the package loads numpy only; pyarrow, scipy and pandas are
imported on the paths that need them.
"""

from .data.qrels import Qrels
from .data.intents import IntentQrels
from .data.run import Run
from .errors import RankproofError
from .evaluate import evaluate
from .frame import evaluate_frame
from .coverage import Coverage, coverage
from .measures.base import Measure, parse_measure, parse_measures
from .protocol import PRESETS, Protocol
from .results import Results
from .scores import evaluate_scores
from .stats import Comparison, compare, load_results
from .why import Why, why
from . import report  # callable: rankproof.report(qrels, runs, ...) makes the HTML report

__version__ = "0.1.0"

__all__ = [
    "Qrels", "IntentQrels", "Run", "Protocol", "PRESETS", "Measure", "parse_measure", "parse_measures",
    "evaluate", "evaluate_scores", "Results", "RankproofError", "__version__",
    "evaluate_frame", "coverage", "Coverage",
    "compare", "Comparison", "load_results", "report", "why", "Why",
]
