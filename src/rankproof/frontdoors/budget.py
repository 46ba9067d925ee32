"""The memory budget of an out-of-core evaluation: the size of a part, a refusal, the temporary folder.

With a budget of B bytes the process stays under ``B + OVERHEAD`` resident
bytes: :data:`OVERHEAD` is what any evaluation holds whatever its input
(the interpreter, numpy, pyarrow, the engines' modules; measured by
``benchmarks/budget_bench.py``), and B pays for

* the per-user values of every user, :func:`per_user_bytes` each (a base
  and so much per measure), twice while they are joined at the end:
  ``2 * per_user_bytes(measures) * users``; or nothing, when they would take
  more than half the budget: they are then written to disk part by part
  (:mod:`rankproof.frontdoors.spill`);
* one part at a time, :data:`EXPANSION` times its input's Arrow size:
  ``EXPANSION * part_rows * row_bytes``;
* the text read ahead: pyarrow's CSV reader holds up to :data:`READAHEAD`
  blocks of :func:`text_block` bytes, for the truth and the predictions.

So ``part_rows = (B - 2 * per_user_bytes(measures) * users - 2 * READAHEAD * block) / (EXPANSION * row_bytes)``.
A budget leaving less than :data:`MIN_PART_ROWS` rows for a part is refused,
naming the smallest budget that leaves them (a budget is a promise: kept or
refused, never overrun).

The partition's temporary folder is named ``rankproof-log-<pid>-...``: it is
removed on every exit of the process that made it (success, error, Ctrl-C,
SIGTERM), and a folder whose process is gone (killed) is removed, with a
message, by the next evaluation that partitions in the same place.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
import shutil
import sys
import tempfile
from typing import Iterator

from ..errors import InputError, literal

__all__ = ["OVERHEAD", "EXPANSION", "PER_USER", "USER_BASE", "PER_MEASURE", "MIN_PART_ROWS",
           "READAHEAD", "text_block",
           "per_user_bytes", "values_bytes", "parse_budget", "default_budget", "MEMORY_FRACTION",
           "part_rows_for", "estimated_users", "temporary_folder",
           "lasting_folder", "stale_folders"]

# Resident bytes of an evaluation whatever its input: interpreter, numpy, pyarrow, rich, the
# engines (benchmarks/budget_bench.py measured 170-190 MB on Linux x86-64; stated with margin).
OVERHEAD = 250 * 2**20
# Peak bytes of a part's in-memory evaluation per byte of its Arrow input (measured on the
# 1M x 20 log of benchmarks/frame_bench.py, with margin).
EXPANSION = 8
# Bytes the results keep per user (its id and counts, USER_BASE; per measure its value, numerator,
# denominator and two flags, PER_MEASURE), about: 100M rows of 5M users with three measures at a
# 1600MB budget peaked 1,842 MB above the overhead (benchmarks/budget_bench.py), about 190 bytes a
# user at the join; the arrays are 45 bytes a user and 26 a measure, the join's order and copies the
# rest.
USER_BASE = 110
PER_MEASURE = 30
PER_USER = USER_BASE + 3 * PER_MEASURE   # with three measures
# A part holds at least this many prediction rows: a smaller part is all overhead. Tests cut
# tiny logs into parts at tiny budgets with the environment's RANKPROOF_MIN_PART_ROWS (test only).
MIN_PART_ROWS = 4096
# Blocks pyarrow's streaming CSV reader holds at most (its background queue of 32, and one parsed).
READAHEAD = 33
# The default budget: this share of the machine's physical memory.
MEMORY_FRACTION = 0.25
_PREFIX = "rankproof-log-"
_MB = 2**20


_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "m": 2**20, "mb": 2**20, "g": 2**30, "gb": 2**30,
          "t": 2**40, "tb": 2**40}


def parse_budget(value) -> int:
    """Bytes from a budget: an int (bytes), or text such as ``"2GB"``, ``"512 MB"``, ``"1.5g"``.

    >>> parse_budget("2GB"), parse_budget("512mb"), parse_budget(4096)
    (2147483648, 536870912, 4096)
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number, unit = float(value), ""
    else:
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*", str(value))
        if match is None or match.group(2).lower() not in _UNITS:
            raise InputError(what=f"the memory budget {literal(repr(value))} is not a size",
                             fix="give bytes or a size such as 2GB, 512MB")
        number, unit = float(match.group(1)), match.group(2).lower()
    found = int(number * _UNITS[unit])
    if found <= 0:
        raise InputError(what=f"the memory budget {literal(repr(value))} is not positive",
                         fix="give a size such as 2GB")
    return found


def default_budget() -> int:
    """:data:`MEMORY_FRACTION` of the machine's physical memory (2 GB when unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * MEMORY_FRACTION)
    except (ValueError, OSError, AttributeError):
        return 2 * 2**30


def text_block(budget: int) -> int:
    """Bytes of a CSV/TSV block for a budget: 1/512 of it, between 64 KiB and 4 MiB.

    Two readers' read-ahead (``2 * READAHEAD`` blocks) then take 13% of a
    budget up to 2 GiB.

    >>> text_block(64 * 2**20), text_block(2**40)
    (131072, 4194304)
    """
    return int(min(4 * _MB, max(1 << 16, budget // 512)))


def per_user_bytes(measures: int) -> int:
    """Bytes the results hold per user with `measures` measures (side-data measures included).

    >>> per_user_bytes(3), per_user_bytes(20)
    (200, 710)
    """
    return USER_BASE + PER_MEASURE * max(1, measures)


def values_bytes(users: float, measures: int) -> float:
    """What every user's values take at the join, twice :func:`per_user_bytes`: ``2 * per_user * users``."""
    return 2 * per_user_bytes(measures) * users


def part_rows_for(budget: int, users: float, row_bytes: float, *, source: str = "the log",
                  block: int = 0, measures: int = 3, spilled: bool = False) -> int:
    """Prediction rows per part within `budget` bytes, or an InputError naming the smallest budget.

    ``(budget - values - 2 * READAHEAD * block) / (EXPANSION * row_bytes)``
    rows, when that is at least :data:`MIN_PART_ROWS` (`block`: the text
    block, 0 for Parquet; `values`: :func:`values_bytes`, 0 when they are
    `spilled` to disk).

    >>> part_rows_for(64 * 2**20, users=10_000, row_bytes=50)
    157772
    >>> part_rows_for(2**20, users=10_000, row_bytes=50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankproof.errors.InputError: the memory budget 1 MB is too small for the log ...
    """
    least = int(os.environ.get("RANKPROOF_MIN_PART_ROWS", MIN_PART_ROWS))
    held = (0 if spilled else values_bytes(users, measures)) + 2 * READAHEAD * block
    row_bytes = max(row_bytes, 1.0)
    rows = int((budget - held) / (EXPANSION * row_bytes))
    if rows >= least:
        return rows
    smallest = _smallest(held - 2 * READAHEAD * block, least * EXPANSION * row_bytes, bool(block))
    shown = f"{math.ceil(budget / _MB)} MB" if budget >= _MB else f"{budget:,} bytes"
    values = "" if spilled else f"about {int(users):,} users' values and "
    raise InputError(what=f"the memory budget {shown} is too small for {source} "
                          f"({values}a part of {least:,} rows need "
                          f"{smallest} MB, besides the fixed {OVERHEAD // _MB} MB of any evaluation)",
                     fix=f"give a budget of at least {smallest}MB (--memory-budget {smallest}MB)")


def _smallest(values: float, part: float, text: bool) -> int:
    """The smallest budget (MB) holding the values, a part and (text) the read-ahead of its own
    block size, which grows with the budget: the fixed point of b = values + part + read-ahead(b)."""
    budget = values + part
    for _ in range(100):
        needed = values + part + (2 * READAHEAD * text_block(int(budget)) if text else 0)
        if needed <= budget:
            break
        budget = needed
    return math.ceil(budget / _MB)


def estimated_users(rows: int, sample) -> float:
    """Users of a log of `rows` rows from the user column of its first rows (a pyarrow Array).

    Rows grouped by user (each user's rows together): the sample's users per
    row, times `rows`. Rows in random order: the users U for which a sample of
    n rows would hold the d users seen, ``d = U * (1 - (1 - n / rows) ** (rows / U))``
    (each user with ``rows / U`` rows), solved by bisection; never fewer than seen.

    >>> import pyarrow as pa
    >>> estimated_users(1000, pa.array([1, 1, 2, 2]))
    500.0
    """
    import pyarrow.compute as pc

    n = len(sample)
    if n == 0 or rows <= n:
        return float(pc.count_distinct(sample).as_py()) if n else 1.0
    seen = pc.count_distinct(sample).as_py()
    changes = pc.sum(pc.not_equal(sample.slice(1), sample.slice(0, n - 1))).as_py() or 0
    if changes + 1 <= 1.1 * seen:  # grouped by user
        return rows * seen / n
    share, low, high = n / rows, float(seen), float(rows)
    for _ in range(60):
        middle = (low + high) / 2
        if middle * (1 - (1 - share) ** (rows / middle)) < seen:
            low = middle
        else:
            high = middle
    return max(float(seen), high)


def _pid_of(name: str) -> int | None:
    match = re.fullmatch(re.escape(_PREFIX) + r"(\d+)-.*", name)
    return int(match.group(1)) if match else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def stale_folders(where: str) -> list[str]:
    """Partition folders under `where` left by processes that no longer run."""
    try:
        names = os.listdir(where)
    except OSError:
        return []
    found = []
    for name in sorted(names):
        pid = _pid_of(name)
        if pid is not None and pid != os.getpid() and not _alive(pid):
            found.append(os.path.join(where, name))
    return found


@contextlib.contextmanager
def temporary_folder(where: str | None = None) -> Iterator[str]:
    """A new partition folder (removed on leaving), after removing the stale ones beside it.

    A removed stale folder is told on stderr (one line each): it held a
    killed evaluation's bucket files, whose space the next run gets back.
    """
    where = tempfile.gettempdir() if where is None else where
    _remove_stale(where)
    with tempfile.TemporaryDirectory(prefix=f"{_PREFIX}{os.getpid()}-", dir=where) as folder:
        yield folder


def lasting_folder(where: str | None = None) -> str:
    """A new folder named as the partition's (so the next run removes it if this one is killed),
    after removing the stale ones beside it; the caller removes it (spilled values live on)."""
    where = tempfile.gettempdir() if where is None else where
    _remove_stale(where)
    return tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=where)


def _remove_stale(where: str) -> None:
    for path in stale_folders(where):
        size = sum(entry.stat().st_size for entry in os.scandir(path) if entry.is_file())
        shutil.rmtree(path, ignore_errors=True)
        print(f"rankproof: removed {path} ({math.ceil(size / _MB)} MB), left by an evaluation that was killed",
              file=sys.stderr)
