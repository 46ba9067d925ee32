"""Type stub of the compiled module ``trec_scan.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
C-contiguous (``[::1]`` memoryviews: another layout raises ValueError), except
``intern_values``' values (any integer dtype and layout: copied to contiguous
bytes). Arrays the scan writes must be writable.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

OK: int
BAD_WIDTH: int
BAD_VALUE: int
BAD_SPACE: int

def count_lines(text: bytes, begin: int, end: int) -> int: ...

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
def scan(
    text: bytes, begin: int, end: int, width: int, value_column: int, integer: bool,
    query_ids: Interner, doc_ids: Interner,
    query_codes: NDArray[np.int64],                    # C-contiguous, written
    doc_codes: NDArray[np.int64],                      # C-contiguous, written
    values: NDArray[np.int64] | NDArray[np.float64],   # int64 grades or float64 scores, C-contiguous, written
    lines: NDArray[np.int64],                          # C-contiguous, written
    row_offset: int, line_offset: int, doc_column: int = 2,
) -> dict[str, Any]: ...
