"""A pyarrow-free path for small TREC files.

Importing pyarrow (and the pandas it loads when installed) costs about 0.3 s,
more than parsing a file of a few hundred thousand lines takes. For files
under :data:`SMALL_FILE_BYTES` the columns are split here with C-level bytes
operations and numpy, still with no Python loop per line. Anything unusual
(a wrong number of columns, a value that is not a clean number) returns None,
and the pyarrow reader in :mod:`rankproof.io.trec` takes over and names the
bad line, so both paths accept and refuse exactly the same files.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["SMALL_FILE_BYTES", "split_columns"]

SMALL_FILE_BYTES = 24 * 1024 * 1024
# Once pyarrow is imported anyway (a big run beside the qrels), its reader is
# faster than this one on all but tiny files.
TINY_FILE_BYTES = 1024 * 1024

def _intern(column: np.ndarray, ascii_only: bool) -> tuple[np.ndarray, np.ndarray]:
    vocabulary, codes = np.unique(column, return_inverse=True)
    # Bytewise order of UTF-8 is code-point order: the sorted vocabulary
    # stays sorted once decoded.
    decoded = vocabulary.astype(str) if ascii_only else np.char.decode(vocabulary, "utf-8")
    return codes.astype(np.int64, copy=False).reshape(-1), decoded


def split_columns(text: bytes, data_starts, width: int, numeric: int, integer: bool):
    """Split a normalised TREC text (data lines as single-space-joined columns,
    other lines empty) into columns, or return None to defer to pyarrow.

    ``data_starts()`` gives the start offset of every data line; it is
    called only for a file small enough for this path.

    Returns ``(columns, value)``: the byte columns (an ``S`` array per column)
    and column ``numeric`` parsed as int64 (``integer``) or float64.
    """
    if len(text) > SMALL_FILE_BYTES or (len(text) > TINY_FILE_BYTES and "pyarrow" in sys.modules):
        return None
    starts = data_starts()
    buffer = np.frombuffer(text, dtype=np.uint8)
    spaces = np.flatnonzero(buffer == 0x20)
    # Exactly width - 1 single spaces inside every data line.
    per_line = np.bincount(np.searchsorted(starts, spaces, side="right") - 1, minlength=len(starts))
    if not (per_line == width - 1).all():
        return None
    tokens = np.array(text.split(), dtype=object)
    if len(tokens) != width * len(starts):
        return None
    table = tokens.reshape(len(starts), width)
    values = table[:, numeric].astype("S")
    # numpy parses numbers as Python does, which also takes "1_000": the one
    # spelling the pyarrow path refuses that a parse here would accept.
    if (np.frombuffer(values.tobytes(), dtype=np.uint8) == ord("_")).any():
        return None
    try:
        parsed = values.astype(np.int64 if integer else np.float64)
    except (ValueError, OverflowError):
        return None
    if not integer and not np.isfinite(parsed).all():
        return None
    return table, parsed


def intern_columns(table: np.ndarray, text: bytes, *indices: int):
    """Interned (codes, vocabulary) for each of the given columns."""
    ascii_only = text.isascii()
    return [_intern(table[:, i].astype("S"), ascii_only) for i in indices]
