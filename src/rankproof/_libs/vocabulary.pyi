"""Type stub of the compiled module ``vocabulary.pyx``.

The index arrays are converted with ``np.ascontiguousarray(..., int64)``;
``remap``'s codes are C-contiguous int64, written in place.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def sorted_vocabulary(
    text: bytes,
    starts: NDArray[np.integer[Any]] | Any,    # converted to int64, C-contiguous
    lengths: NDArray[np.integer[Any]] | Any,
) -> tuple[NDArray[np.int64], NDArray[Any]]: ...
def remap(
    codes: NDArray[np.int64],                  # C-contiguous, written in place
    order: NDArray[np.integer[Any]] | Any,     # converted to int64, C-contiguous
) -> None: ...
def mark_present(
    values: NDArray[np.int32] | NDArray[np.int64],  # C-contiguous, lowest + [0, len(present))
    lowest: int,
    present: NDArray[np.uint8],                # C-contiguous, written
) -> None: ...
def dense_codes(
    values: NDArray[np.int32] | NDArray[np.int64],  # C-contiguous, in [lowest, lowest + len(rank))
    lowest: int,
    rank: NDArray[np.int32],                   # C-contiguous
    codes: NDArray[np.int64],                  # C-contiguous, as long as values, written
) -> None: ...
