"""Large inputs: the process's allocator settings and the progress display.

Inputs above :data:`LARGE_INPUT_BYTES` (about a million TREC lines) get a
progress display on a terminal (:mod:`rankproof.report.progress`); for TREC
files, glibc is told to keep freed memory for the next arrays.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["LARGE_INPUT_BYTES", "keep_freed_memory", "release_freed_memory", "prepare_for",
           "is_large",
           "stages"]

LARGE_INPUT_BYTES = 40 * 1024 * 1024


def keep_freed_memory() -> None:
    """Have glibc keep freed memory for the next arrays instead of unmapping it.

    By default every freed block above glibc's mmap threshold goes back to the
    kernel, so each of the many arrays of millions of rows an evaluation makes
    is page-faulted and zeroed afresh: on the 2-core VM this project is timed
    on, that was a third of the wall time of a 10M-line run (benchmarks/README.md).
    This is the command line's own process, so it may choose its allocator
    settings; the library never does. Elsewhere than glibc nothing happens.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mmap_threshold, trim_threshold, top_pad = -3, -1, -2  # glibc's M_* parameter numbers
    largest = 2**31 - 1
    mallopt(mmap_threshold, ctypes.c_int(largest))
    mallopt(trim_threshold, ctypes.c_int(largest))
    mallopt(top_pad, ctypes.c_int(1 << 28))


def release_freed_memory() -> None:
    """Give the memory freed so far back to the kernel (glibc's ``malloc_trim``); elsewhere nothing.

    :func:`keep_freed_memory` keeps every freed block for the next arrays, which is what one stage
    of work wants; a command of many stages (the report: read, evaluate each run, statistics,
    drill-down, side data, table) calls this between them, so that the blocks one stage left behind
    do not add up to the process's peak (a million users x 3 runs: 4.4 GB kept, 3.5 GB trimmed, for
    the same CPU time).
    """
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def prepare_for(paths: Sequence[str | None]) -> bool:
    """Set the process up for the given inputs; tell whether they are large."""
    large = is_large([p for p in paths if p is not None])
    if large:
        from ..io.formats import format_of

        if all(format_of(p) == "trec" for p in paths if p is not None and p != "-"):
            # The TREC scanner's many arrays, freed and made again, are where kept memory saves
            # the page faults (benchmarks/README.md). Tables are read by Arrow, column by column,
            # and interned in threads: kept memory there saved no time on a 1M-user Parquet log
            # and held 0.4-0.5 GB more at the peak (1.87 against 1.36-1.49 GB), memory the
            # evaluation promises to keep within twice the columns.
            keep_freed_memory()
        else:
            # Big tables need pyarrow; importing it first lets the qrels use its reader too.
            # TREC files are read by the compiled scanner alone: no pyarrow (~0.1 s of imports).
            import pyarrow  # noqa: F401
    return large


def is_large(paths: Sequence[str]) -> bool:
    from ..report.progress import is_large as above

    return above(paths, LARGE_INPUT_BYTES)


def stages(total: int, enabled: bool, label: str = "evaluating"):
    """Named steps in the command's progress display (rankproof.report.progress.within); alone
    (outside the command line), shown for large inputs (`enabled`) on a terminal only."""
    from ..report.progress import within

    return within(total, label, quiet=not enabled)
