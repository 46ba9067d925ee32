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
