"""Type stub of the compiled module ``_dense_kernel.pyx`` (the signatures the Python layer uses)."""

import numpy as np

def dense_dcg_parts(
    score: np.ndarray, grade: np.ndarray, k: int,
    discount: np.ndarray, gain_kind: int, gain_table: np.ndarray,
    levels_by_gain: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
