"""Type stub of the compiled module ``trec_scan.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
C-contiguous (``[::1]`` memoryviews: another layout raises ValueError). Arrays the
scan writes must be writable. The id tables are ``interner.Interner``.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .interner import Interner

OK: int
BAD_WIDTH: int
BAD_VALUE: int
BAD_SPACE: int

def count_lines(text: bytes, begin: int, end: int) -> int: ...
def scan(
    text: bytes, begin: int, end: int, width: int, value_column: int, integer: bool,
    query_ids: Interner, doc_ids: Interner,
    query_codes: NDArray[np.int64],                    # C-contiguous, written
    doc_codes: NDArray[np.int64],                      # C-contiguous, written
    # int64 grades or float64 scores, C-contiguous, written
    values: NDArray[np.int64] | NDArray[np.float64],
    lines: NDArray[np.int64],                          # C-contiguous, written
    row_offset: int, line_offset: int, doc_column: int = 2,
) -> dict[str, Any]: ...
