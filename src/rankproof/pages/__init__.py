"""The page model: what each section of the report shows, as values, built from Results and the statistics.

Between the statistics and the renderers: :func:`~rankproof.pages.build.prepare`
evaluates each run once and runs the statistics chosen for the data's size;
:func:`~rankproof.pages.evaluated.from_results` and
:func:`~rankproof.pages.evaluated.from_comparison` make a page of values
already computed. The renderers (:mod:`rankproof.report`) only draw the
:class:`~rankproof.pages.model.ReportData` they return. Names load on first
use.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ReportData", "SortedValues", "InputFile", "prepare", "from_results", "from_comparison",
           "results_page", "input_file", "read_segments", "PR_LEVELS", "natural_order"]

_HOMES = {"ReportData": "model", "SortedValues": "model", "PR_LEVELS": "model", "natural_order": "model",
          "InputFile": "inputs", "input_file": "inputs", "read_segments": "inputs", "prepare": "build",
          "from_results": "evaluated", "from_comparison": "evaluated", "results_page": "evaluated"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
