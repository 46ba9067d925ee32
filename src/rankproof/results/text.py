"""Results as plain text: the summary ``Results.summary`` prints."""

from __future__ import annotations

from typing import Any

from . import advice

__all__ = ["summary_text"]

# Counts every evaluation has: the summary names only the counts a policy touched.
_ALWAYS = ("queries_in_qrels", "queries_in_run", "queries_evaluated")


def summary_text(results: Any) -> str:
    """Means, the protocol, its fingerprint, the notes, every nonzero count and the warnings.

    >>> from rankproof import Qrels, Run, evaluate
    >>> r = evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["b", "a"]}), ["rr"])
    >>> print(summary_text(r).splitlines()[1])
      rr  0.5000
    """
    lines = [f"run {results.run_name}: {results.counts['queries_evaluated']} queries evaluated"]
    # The side-data measures (coverage, novelty, ...) beside the accuracy ones; either may be alone.
    means = ([(str(m), results.mean(m)) for m in results.measures]
             + [(v.measure, v.value) for v in results.side])
    width = max((len(name) for name, _ in means), default=0)
    lines.extend(f"  {name:<{width}}  {value:.4f}" for name, value in means)
    lines.append(f"protocol {results.protocol}")
    lines.append(f"fingerprint {results.protocol.fingerprint}")
    lines.extend(f"note {note}" for note in results.notes)
    touched: list[str] = []
    for key, value in results.counts.items():
        if isinstance(value, dict):
            touched.extend(f"{key}[{m}]={v}" for m, v in value.items() if v)
        elif value and key not in _ALWAYS:
            touched.append(f"{key}={value}")
    lines.append("counts " + (", ".join(touched) if touched else "none touched"))
    # The same warnings the command line prints, in Python's spelling (results.advice).
    lines.extend(f"warning: {line}" for line in advice.warnings(results))
    return "\n".join(lines)
