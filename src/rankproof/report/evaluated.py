"""A report page from evaluated Results alone: built by :func:`rankproof.pages.evaluated.results_page`.

The name stays here for earlier imports; the page model is made in
:mod:`rankproof.pages` and drawn by :mod:`rankproof.report.html`.
"""

from __future__ import annotations

from ..pages.evaluated import results_page

__all__ = ["results_page"]
