"""Type stub of the compiled module ``lists.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), C-contiguous.
Read-only arrays are accepted.
"""

import numpy as np
from numpy.typing import NDArray

def jaccard_pair_sums(
    offsets: NDArray[np.int64],   # (lists + 1,) each list's positions in bits, C-contiguous
    bits: NDArray[np.uint64],     # (positions, words) each position's category bitset, C-contiguous
) -> NDArray[np.float64]:
    """Per list, the sum over its pairs i < j of 1 - |A_i & A_j| / |A_i | A_j| (lists,)."""

def jaccard_pair_sums_read(
    offsets: NDArray[np.int64],   # (lists + 1,) each list's positions, C-contiguous
    rows: NDArray[np.int64],      # (positions,) each position's run row, or empty; C-contiguous
    starts: NDArray[np.int64],    # (lists + 1,) rows empty: list q's first row, C-contiguous
    codes: NDArray[np.int64],     # (run rows,) each row's item code, C-contiguous
    item_at: NDArray[np.int64],   # (item codes,) each item's row of bits, C-contiguous
    bits: NDArray[np.uint64],     # (items, words) each item's category bitset, C-contiguous
) -> NDArray[np.float64]:
    """jaccard_pair_sums with position p's bitset bits[item_at[codes[rows[p]]]] (lists,)."""

def list_sums_read(
    offsets: NDArray[np.int64],   # (lists + 1,), C-contiguous
    rows: NDArray[np.int64],      # (positions,), or empty: the first rows; C-contiguous
    starts: NDArray[np.int64],    # (lists + 1,) rows empty: list q's first row, C-contiguous
    codes: NDArray[np.int64],     # (run rows,), C-contiguous
    values: NDArray[np.float64],  # (item codes,) nan: left out, C-contiguous
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Per list, (sum of values[codes[rows[p]]] from 0.0 in position order, values added) (lists,) each."""

def first_repeat(
    offsets: NDArray[np.int64],   # (lists + 1,), C-contiguous
    codes: NDArray[np.int64],     # (rows,) 0 <= code < num_codes, C-contiguous
    num_codes: int,
) -> int:
    """The first row repeating a code of an earlier row of its list, or -1."""

def code_counts_read(
    offsets: NDArray[np.int64],   # (lists + 1,) each list's positions, C-contiguous
    rows: NDArray[np.int64],      # (positions,), or empty: the first rows; C-contiguous
    starts: NDArray[np.int64],    # (lists + 1,) rows empty: list q's first row, C-contiguous
    codes: NDArray[np.int64],     # (run rows,) 0 <= code < num_codes, C-contiguous
    num_codes: int,
) -> NDArray[np.int64]:
    """np.bincount(codes[rows], minlength=num_codes) (num_codes,); rows empty: the first rows."""

def loop_threads(threads: int) -> int:
    """Set the calling thread's parallel loops to `threads` threads (at least 1); the previous count."""
