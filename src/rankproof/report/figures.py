"""The numbers behind the HTML report's figures: made in :mod:`rankproof.pages` (the page model).

This module keeps the earlier names (``rankproof.report.figures.prepare``,
``ReportData``, ``from_results``, ...) working: each is the one of
:mod:`rankproof.pages`. The renderers never compute; the page model is built
from the evaluation step's Results and the statistics' values by
:func:`rankproof.pages.build.prepare`.
"""

from __future__ import annotations

from ..pages import (PR_LEVELS, InputFile, ReportData, from_comparison, from_results, input_file,
                     natural_order,
                     prepare, read_segments)

__all__ = ["ReportData", "InputFile", "prepare", "input_file", "read_segments", "PR_LEVELS",
           "natural_order",
           "from_results", "from_comparison"]
