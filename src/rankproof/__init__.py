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
_HOMES = {
    "Qrels": ".data.qrels", "IntentQrels": ".data.intents", "Run": ".data.run",
    "RankproofError": ".errors",
    "evaluate": ".evaluation", "evaluate_frame": ".frontdoors.frame",
    "evaluate_scores": ".frontdoors.scores",
    "coverage": ".recsys.coverage", "Coverage": ".recsys.coverage",
    "Measure": ".measures.base", "parse_measure": ".measures.parse",
    "parse_measures": ".measures.parse",
    "PRESETS": ".protocol", "Protocol": ".protocol", "Results": ".results",
    "Comparison": ".stats", "compare": ".stats", "load_results": ".stats",
    "why": ".explain.why", "Why": ".explain.why",
    "fuse": ".fusion",
    "evaluate_rag": ".frontdoors.rag", "rag_inputs": ".frontdoors.rag",
}
_HOMES["evaluate_nuggets"] = ".results.nuggets"  # nuggetizer's assignment files as Results
# Modules that moved, by their earlier name: ``rankproof.beyond.ild`` and the like keep
# working as attributes (``from rankproof.recsys.beyond import ild`` is the import).
_MOVED = {
    "beyond": ".recsys.beyond", "clicks": ".recsys.clicks", "frame": ".frontdoors.frame",
    "outofcore": ".frontdoors.outofcore", "scores": ".frontdoors.scores", "rag": ".frontdoors.rag",
}

if TYPE_CHECKING:
    from .data.intents import IntentQrels
    from .data.qrels import Qrels
    from .data.run import Run
    from .errors import RankproofError
    from .evaluation import evaluate
    from .explain.why import Why, why
    from .frontdoors.frame import evaluate_frame
    from .fusion import fuse
    from .measures.base import Measure
    from .measures.parse import parse_measure, parse_measures
    from .protocol import PRESETS, Protocol
    from .frontdoors.rag import evaluate_rag, rag_inputs
    from .recsys.coverage import Coverage, coverage
    # at run time the package itself, callable (see rankproof.report); typed as the function it
    # calls
    from .report import make_report as report
    from .results import Results
    from .frontdoors.scores import evaluate_scores
    from .stats import Comparison, compare, load_results
    from .results.nuggets import evaluate_nuggets


def __getattr__(name: str) -> Any:
    # the package, callable: rankproof.report(qrels, runs, ...) makes the HTML report
    if name == "report":
        return importlib.import_module(".report", __name__)
    if name == "__version__":  # declared once, in pyproject.toml
        from importlib.metadata import version

        return version("rankproof")
    if name in _MOVED:
        return importlib.import_module(_MOVED[name], __name__)
    if name not in _HOMES:
        raise AttributeError(f"module 'rankproof' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Qrels", "IntentQrels", "Run", "Protocol", "PRESETS", "Measure", "parse_measure",
    "parse_measures",
    "evaluate", "evaluate_scores", "Results", "RankproofError", "__version__",
    "evaluate_frame", "coverage", "Coverage",
    "compare", "Comparison", "load_results", "report", "why", "Why", "fuse",
    "evaluate_rag", "rag_inputs",
]
__all__ += ["evaluate_nuggets"]
