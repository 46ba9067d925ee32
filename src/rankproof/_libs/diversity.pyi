"""Type stub of the compiled module ``diversity.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion).
Those marked C-contiguous are ``[::1]`` memoryviews (another layout raises
ValueError); the others may have any stride. Read-only arrays are accepted.
"""

import numpy as np
from numpy.typing import NDArray

def novelty_gain(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous
    query_groups: NDArray[np.int64],   # (queries,) first tie group of each query, C-contiguous
    group_offsets: NDArray[np.int64],  # (groups + 1,), C-contiguous
    rel_offsets: NDArray[np.int64],    # (positions + 1,), C-contiguous
    rel_pair: NDArray[np.int64],       # (entries,), C-contiguous
    pair_offsets: NDArray[np.int64],   # (queries + 1,), any stride
    weight: NDArray[np.float64],       # (pairs,), C-contiguous
    cutoff: NDArray[np.int64],         # (queries,), C-contiguous
    discount: NDArray[np.float64],     # (length,), C-contiguous
    alpha: float,
) -> NDArray[np.float64]:
    """Per query, the novelty-discounted gain (queries,)."""

def per_intent(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous
    query_groups: NDArray[np.int64],   # (queries,), C-contiguous
    group_offsets: NDArray[np.int64],  # (groups + 1,), C-contiguous
    rel_offsets: NDArray[np.int64],    # (positions + 1,), C-contiguous
    rel_pair: NDArray[np.int64],       # (entries,), C-contiguous
    rel_value: NDArray[np.float64],    # (entries,), C-contiguous
    num_pairs: int,
    cutoff: NDArray[np.int64],         # (queries,), C-contiguous
    discount: NDArray[np.float64],     # (length,), C-contiguous
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(found, covered, dcg) per (query, intent) pair, each (pairs,)."""

def greedy_ideal(
    pool_offsets: NDArray[np.int64],      # (queries + 1,), any stride
    pool_doc_offsets: NDArray[np.int64],  # (pool docs + 1,), any stride
    pool_pair: NDArray[np.int64],         # (entries,), any stride
    weight: NDArray[np.float64],          # (pairs,), any stride
    cutoff: NDArray[np.int64],            # (queries,), any stride
    discount: NDArray[np.float64],        # (length,), any stride
    alpha: float,
) -> NDArray[np.float64]:
    """Per query, the gain of ndeval's greedy ideal ranking (queries,)."""
