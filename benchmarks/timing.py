"""The timer the single-tool benchmark scripts share."""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable


def median_seconds(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall seconds of `repeat` calls of `function`, and the last call's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value
