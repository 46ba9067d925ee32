"""The benchmark page, generated from ``benchmarks/results/*.json`` (the schema of benchmarks/results.py).

``render(load(folder))`` gives the Markdown: per results file its title, machine, date and command, a table
of every row, and two inline SVG plots drawn here (no script, no network): throughput (input size per
second) against input size, and peak memory against input size, one line per tool. A file that does not
follow the schema is named on the page with what is wrong, never dropped silently.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

__all__ = ["load", "render", "svg_plot", "Problem"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
REQUIRED = ("benchmark", "title", "date", "command", "machine", "rows")


class Problem(str):
    """A results file that could not be used, and why (shown on the page)."""


def load(folder: Path) -> list[dict[str, Any] | Problem]:
    """Every ``*.json`` in folder, by name; a file that does not follow the schema becomes a :class:`Problem`."""
    out: list[dict[str, Any] | Problem] = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            missing = [key for key in REQUIRED if key not in document]
            if missing:
                raise ValueError(f"no {', '.join(missing)}")
            if not isinstance(document["rows"], list) or not all(
                    isinstance(r, dict) and "workload" in r and "tool" in r and "seconds" in r
                    for r in document["rows"]):
                raise ValueError("rows must each have workload, tool and seconds")
        except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
            out.append(Problem(f"{path.name}: {error}"))
            continue
        document["file"] = path.name
        out.append(document)
    return out


def _number(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    if isinstance(x, (int, float)) and abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}" if isinstance(x, float) else str(x)


def _throughput(r: dict[str, Any]) -> float | None:
    size, seconds = r.get("size"), r.get("seconds")
    if not isinstance(size, (int, float)) or not isinstance(seconds, (int, float)) or seconds <= 0:
        return None
    return size / seconds


def _table(rows: list[dict[str, Any]]) -> list[str]:
    """One small table per workload (in the file's order): tool, median and runs, throughput, memory, ratio."""
    lines: list[str] = []
    workloads: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        workloads.setdefault(str(r["workload"]), []).append(r)
    for workload, chosen in workloads.items():
        first = chosen[0]
        size = f"{_number(first.get('size'))} {first.get('size_unit') or ''}".strip()
        lines += [f"**{html.escape(workload)}**" + (f" ({html.escape(size)})" if first.get("size") else ""), "",
                  "| tool | seconds | throughput | peak MB | x rankproof | note |", "|---|---|---|---|---|---|"]
        base = next((r["seconds"] for r in chosen if str(r["tool"]).startswith("rankproof")
                     and isinstance(r.get("seconds"), (int, float))), None)
        for r in chosen:
            unit = r.get("size_unit") or ""
            speed = _throughput(r)
            seconds = _number(r.get("seconds"))
            runs = r.get("runs") or []
            if len(runs) > 1:
                seconds += f" ({', '.join(_number(t) for t in runs)})"
            peer = not str(r["tool"]).startswith("rankproof")
            ratio = f"{r['seconds'] / base:.2f}" if peer and base and isinstance(r.get("seconds"), (int, float)) \
                else ""
            lines.append("| " + " | ".join(html.escape(str(x)) for x in (
                r["tool"], seconds, f"{_number(speed)} {unit}/s" if speed else "", _number(r.get("peak_mb")),
                ratio, r.get("note") or "")) + " |")
        lines.append("")
    return lines


def _scale(values: list[float], low: float, high: float, log: bool):
    lo, hi = min(values), max(values)
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    span = hi - lo
    lo, hi = lo - span * 0.08, hi + span * 0.08

    def at(v: float) -> float:
        x = math.log10(v) if log else v
        return low + (x - lo) / (hi - lo) * (high - low)
    return at


def svg_plot(series: dict[str, list[tuple[float, float]]], x_label: str, y_label: str, title: str) -> str:
    """A line plot, one polyline with dots per series, log axes when the values span more than 10x; one line of
    SVG (Markdown keeps raw HTML whole only without blank lines)."""
    points = [p for values in series.values() for p in values if p[0] > 0 and p[1] > 0]
    if not points:
        return ""
    width, height, left, right, top, bottom = 640, 300, 70, 170, 28, 46
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    logx, logy = max(xs) > 10 * min(xs), max(ys) > 10 * min(ys)
    fx = _scale(xs, left, width - right, logx)
    fy = _scale(ys, height - bottom, top, logy)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="{html.escape(title, quote=True)}" '
             'style="max-width:100%;height:auto;font:12px sans-serif">',
             f'<title>{html.escape(title)}</title>',
             f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
             'fill="none" stroke="#999"/>']
    for value in sorted(set(xs)):
        parts.append(f'<text x="{fx(value):.1f}" y="{height - bottom + 14}" text-anchor="middle">'
                     f'{_number(value)}</text>')
    for value in (min(ys), max(ys)):
        parts.append(f'<text x="{left - 4}" y="{fy(value) + 4:.1f}" text-anchor="end">{_number(value)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">'
                 f'{html.escape(x_label)}{" (log)" if logx else ""}</text>')
    parts.append(f'<text x="12" y="{top - 10}">{html.escape(y_label)}{" (log)" if logy else ""}</text>')
    for i, (name, values) in enumerate(series.items()):
        color = PALETTE[i % len(PALETTE)]
        kept = sorted(p for p in values if p[0] > 0 and p[1] > 0)
        if len(kept) > 1:
            line = " ".join(f"{fx(x):.1f},{fy(y):.1f}" for x, y in kept)
            parts.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in kept:
            parts.append(f'<circle cx="{fx(x):.1f}" cy="{fy(y):.1f}" r="4" fill="{color}">'
                         f'<title>{html.escape(name)}: {_number(y)} at {_number(x)}</title></circle>')
        legend_y = top + 14 + 16 * i
        parts.append(f'<rect x="{width - right + 12}" y="{legend_y - 9}" width="10" height="10" fill="{color}"/>'
                     f'<text x="{width - right + 28}" y="{legend_y}">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _plots(rows: list[dict[str, Any]], title: str) -> list[str]:
    lines: list[str] = []
    units = sorted({r.get("size_unit") or "items" for r in rows if _throughput(r)})
    for unit in units:
        chosen = [r for r in rows if (r.get("size_unit") or "items") == unit and _throughput(r)]
        speed: dict[str, list[tuple[float, float]]] = {}
        memory: dict[str, list[tuple[float, float]]] = {}
        for r in sorted(chosen, key=lambda r: (not str(r["tool"]).startswith("rankproof"), str(r["tool"]))):
            speed.setdefault(str(r["tool"]), []).append((float(r["size"]), float(_throughput(r) or 0)))
            if isinstance(r.get("peak_mb"), (int, float)):
                memory.setdefault(str(r["tool"]), []).append((float(r["size"]), float(r["peak_mb"])))
        lines += [svg_plot(speed, f"input size ({unit})", f"throughput ({unit} per second, higher is faster)",
                           f"{title}: throughput against input size"), ""]
        if memory:
            lines += [svg_plot(memory, f"input size ({unit})", "peak memory (MB)",
                               f"{title}: peak memory against input size"), ""]
    return lines


def _machine(machine: dict[str, Any]) -> str:
    parts = [str(machine.get("cpu") or "unknown processor")]
    if machine.get("cores"):
        parts.append(f"{machine['cores']} cores")
    if machine.get("memory_gb"):
        parts.append(f"{machine['memory_gb']} GB memory")
    if machine.get("python"):
        parts.append(f"Python {machine['python']}")
    if machine.get("platform"):
        parts.append(str(machine["platform"]))
    return ", ".join(html.escape(p) for p in parts)


def render(documents: list[dict[str, Any] | Problem]) -> str:
    lines = ["# Benchmarks", "",
             "Timings of rankproof and its peers on the same inputs, measured by the scripts in `benchmarks/` "
             "(`make bench`) and written as JSON into `benchmarks/results/`. Seconds are the median of the "
             "runs (every run in brackets). This page is generated from "
             "those files when the site is built: every number below was measured, none is typed. Each "
             "section names the machine, the date and the command that produced it; `x rankproof` is the "
             "tool's median time divided by rankproof's on the same workload (above 1: rankproof is faster).",
             ""]
    good = [d for d in documents if not isinstance(d, Problem)]
    problems = [d for d in documents if isinstance(d, Problem)]
    if not good:
        lines += ["No results yet: run `make bench` to write `benchmarks/results/*.json`.", ""]
    for document in sorted(good, key=lambda d: str(d["benchmark"])):
        rows = document["rows"]
        lines += [f"## {html.escape(str(document['title']))}", "",
                  f"`{document['file']}`, measured {html.escape(str(document['date']))} on "
                  f"{_machine(document['machine'] or {})}.", "",
                  "```shell", str(document["command"]), "```", ""]
        lines += _table(rows) + _plots(rows, str(document["title"]))
    if problems:
        lines += ["## Files not shown", ""] + [f"- {html.escape(p)}" for p in problems] + [""]
    return "\n".join(lines)
