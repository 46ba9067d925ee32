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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The public names load on first use (PEP 562), so that a command such as
# `rankproof evaluate` imports what it runs and not the report, the
# statistics or the score-matrix paths (tens of ms of a small run's process).
# Functions named like their own module (evaluate, coverage, why) are bound
# now: importing a submodule sets the package's attribute of that name to the
# module, which would hide them.
_HOMES = {
    "Qrels": ".data.qrels", "IntentQrels": ".data.intents", "Run": ".data.run", "RankproofError": ".errors",
    "evaluate_frame": ".frame", "Coverage": ".coverage",
    "Measure": ".measures.base", "parse_measure": ".measures.base", "parse_measures": ".measures.base",
    "PRESETS": ".protocol", "Protocol": ".protocol", "Results": ".results", "evaluate_scores": ".scores",
    "Comparison": ".stats", "compare": ".stats", "load_results": ".stats", "Why": ".why",
}

from .coverage import coverage  # noqa: E402
from .evaluate import evaluate  # noqa: E402
from .why import why  # noqa: E402

if TYPE_CHECKING:
    from . import report
    from .coverage import Coverage
    from .data.intents import IntentQrels
    from .data.qrels import Qrels
    from .data.run import Run
    from .errors import RankproofError
    from .frame import evaluate_frame
    from .measures.base import Measure, parse_measure, parse_measures
    from .protocol import PRESETS, Protocol
    from .results import Results
    from .scores import evaluate_scores
    from .stats import Comparison, compare, load_results
    from .why import Why


def __getattr__(name: str) -> Any:
    if name == "report":  # callable: rankproof.report(qrels, runs, ...) makes the HTML report
        return importlib.import_module(".report", __name__)
    if name not in _HOMES:
        raise AttributeError(f"module 'rankproof' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "Qrels", "IntentQrels", "Run", "Protocol", "PRESETS", "Measure", "parse_measure", "parse_measures",
    "evaluate", "evaluate_scores", "Results", "RankproofError", "__version__",
    "evaluate_frame", "coverage", "Coverage",
    "compare", "Comparison", "load_results", "report", "why", "Why",
]
