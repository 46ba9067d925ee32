"""Benchmark results as JSON: what the docs site's benchmark page is generated from.

Every script in this folder takes ``--json PATH`` and then also writes its
measurements there through :func:`write_results`; ``make bench`` writes them
into ``benchmarks/results/`` and those files are committed, so the page shows
measured figures, never typed ones.

The file holds the benchmark's name, a title, the UTC date, the command, the
machine and one row per (workload, tool): the median seconds, every run, the
peak memory and the input's in-memory size where measured, and the ratio of a
peer's time to rankproof's for the same workload.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

ROW_KEYS = ("workload", "size", "size_unit", "tool", "seconds", "runs", "peak_mb", "input_mb",
            "ratio", "ratio_to", "note")


def machine() -> dict[str, Any]:
    """The facts a reader needs to weigh a timing: processor, cores, memory, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        memory_gb = None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(memory_gb, 1) if memory_gb else None,
            "python": platform.python_version(), "platform": platform.platform()}


def row(workload: str, tool: str, seconds: float, **fields: Any) -> dict[str, Any]:
    """One measurement; the keys not given are null (``note`` is empty)."""
    unknown = set(fields) - set(ROW_KEYS)
    if unknown:
        raise TypeError(f"unknown result fields: {sorted(unknown)}")
    out: dict[str, Any] = {key: None for key in ROW_KEYS}
    out.update(workload=workload, tool=tool, seconds=seconds, note="")
    out.update(fields)
    return out


def write_results(path: str | os.PathLike[str], *, benchmark: str, title: str, rows: list[dict[str, Any]],
                  command: str | None = None) -> Path:
    """Write the results file atomically (a temporary file in the same folder, then a rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "benchmark": benchmark,
        "title": title,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command or " ".join(["python", *sys.argv]),
        "machine": machine(),
        "rows": [{key: entry.get(key) for key in ROW_KEYS} for entry in rows],
    }
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, indent=1, allow_nan=False)
            out.write("\n")
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
    return target
