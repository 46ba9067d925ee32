"""Type stub of the compiled module ``align_scan.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
every array is C-contiguous (a ``[::1]`` memoryview: another layout raises
ValueError). Read-only arrays are accepted except where a comment says the
array is written.
"""

import numpy as np
from numpy.typing import NDArray

def mark_rows(
    offsets: NDArray[np.int64],  # (queries + 1,), C-contiguous, non-decreasing
    row_doc: NDArray[np.int64],                              # (rows,), C-contiguous
    num_docs: int,
    judged_query: NDArray[np.int64],                         # (judgments,), C-contiguous
    judged_doc: NDArray[np.int64],                           # (judgments,), C-contiguous
    judged_grade: NDArray[np.int64] | NDArray[np.float64],   # (judgments,), C-contiguous, writable
    pooled_query: NDArray[np.int64],                         # (pooled,), C-contiguous
    pooled_doc: NDArray[np.int64],                           # (pooled,), C-contiguous
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.int64] | NDArray[np.float64],
           NDArray[np.bool_]]:
    """(repeated, judged, grade, pooled) per row: grade of judged_grade's dtype (0 when unjudged)."""
def cutoff_counts(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous
    group_offsets: NDArray[np.int64],  # (groups + 1,), C-contiguous
    tie_offsets: NDArray[np.int64],    # (tie runs + 1,), C-contiguous
    judged: NDArray[np.uint8],         # (positions,), C-contiguous
    cutoffs: NDArray[np.int64],        # (cutoffs,), C-contiguous
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def tie_runs(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous, non-decreasing from 0 to rows
    score: NDArray[np.float64],        # (rows,), C-contiguous
) -> tuple[NDArray[np.int64], int, int]: ...
def count_per_query(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous
    flags: NDArray[np.uint8],          # (positions,), C-contiguous
) -> NDArray[np.int64]: ...
def sort_segments(
    offsets: NDArray[np.int64],        # (segments + 1,), C-contiguous
    key: NDArray[np.float64],          # (rows,), C-contiguous
    tiebreak: NDArray[np.int64] | None = ...,  # (rows,), C-contiguous
) -> NDArray[np.int64]: ...
