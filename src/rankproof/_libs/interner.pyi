"""Type stub of the compiled module ``interner.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
C-contiguous (``[::1]`` memoryviews: another layout raises ValueError), except
``intern_values``' values (any integer dtype and layout: copied to contiguous
bytes). Arrays written into must be writable.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

class Interner:
    def __init__(self, seed: int) -> None: ...
    def __len__(self) -> int: ...
    def vocabulary(self) -> tuple[bytes, NDArray[np.int64], NDArray[np.int64]]: ...
    def absorb(self, other: Interner) -> NDArray[np.int64]: ...

def intern_spans(
    data: Any,                     # an Arrow data buffer (bytes-like)
    offsets: NDArray[np.int64],    # (rows + 1,), C-contiguous
    ids: Interner,
    codes: NDArray[np.int64],      # (rows,), C-contiguous, written
) -> None: ...
def intern_values(
    values: NDArray[Any],          # (rows,), fixed-width integers, any layout
    ids: Interner,
    codes: NDArray[np.int64],      # (rows,), C-contiguous, written
) -> None: ...
def renumber(
    codes: NDArray[np.int64],      # C-contiguous, written in place
    mapping: NDArray[np.int64],    # C-contiguous
) -> None: ...
