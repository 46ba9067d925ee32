"""The report's input files: moved to :mod:`rankproof.pages.inputs` (the page model); the names stay here."""

from __future__ import annotations

from ..pages.inputs import InputFile, check_segments_match, input_file, read_segments

__all__ = ["InputFile", "input_file", "read_segments", "check_segments_match"]
