"""The page model: what each section of the report shows, as values, built from Results and the statistics.

Between the statistics and the renderers: :func:`~rankproof.pages.build.prepare`
evaluates each run once and runs the statistics chosen for the data's size;
:func:`~rankproof.pages.evaluated.from_results` and
:func:`~rankproof.pages.evaluated.from_comparison` make a page of values
already computed. The renderers (:mod:`rankproof.report`) only draw the
:class:`~rankproof.pages.model.ReportData` they return.
"""

from __future__ import annotations

from .build import prepare
from .evaluated import from_comparison, from_results, results_page
from .inputs import InputFile, input_file, read_segments
from .model import PR_LEVELS, ReportData, SortedValues, natural_order

__all__ = ["ReportData", "SortedValues", "InputFile", "prepare", "from_results", "from_comparison",
           "results_page", "input_file", "read_segments", "PR_LEVELS", "natural_order"]
