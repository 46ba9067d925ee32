"""The numbers behind the HTML report's figures: made in :mod:`rankproof.pages` (the page model).

This module keeps the earlier names (``rankproof.report.figures.prepare``,
``ReportData``, ``from_results``, ...) working: each is loaded from
:mod:`rankproof.pages` on first use. The renderers never compute; the page
model is built from the evaluation step's Results and the statistics' values
by :func:`rankproof.pages.build.prepare`.
"""

from __future__ import annotations

from typing import Any

# Loaded on first use (module __getattr__), so importing this module loads nothing of the page model.
_LAZY = ("ReportData", "InputFile", "prepare", "input_file", "read_segments", "PR_LEVELS", "natural_order",
         "from_results", "from_comparison")
__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .. import pages

    return getattr(pages, name)
