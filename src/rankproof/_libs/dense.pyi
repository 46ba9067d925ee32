"""Type stub of the compiled module ``dense.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
every array is C-contiguous (a ``[::1]`` or ``[:, ::1]`` memoryview: another
layout raises ValueError). Read-only arrays are accepted.
"""

import numpy as np
from numpy.typing import NDArray

def dense_dcg_parts(
    score: NDArray[np.float64] | NDArray[np.float32],  # (rows, columns), C-contiguous; NaN skipped
    grade: NDArray[np.int64] | NDArray[np.int32] | NDArray[np.float64],  # as score, C-contiguous
    k: int,
    discount: NDArray[np.float64],                       # (at least min(k, columns),), C-contiguous
    gain_kind: int,                                      # 0 linear, 1 exp2, 2 gain_table[grade]
    gain_table: NDArray[np.float64],                     # (grades,), C-contiguous
    levels_by_gain: NDArray[np.int64],                   # (levels,), C-contiguous
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """(expected DCG@k, ideal DCG@k, the tied group at rank k crosses the cutoff), each (rows,)."""

def decimal_names(rows: int) -> NDArray[np.str_]:
    """``np.arange(rows).astype(str)``: (rows,), ``<U{width}``, the width of ``rows - 1``'s digits."""
