"""The report's "fused run against its components" section: one run named as the fusion of the others.

The page model runs the paired tests (:func:`rankproof.pages.statistics.fused_comparison`: the
fused run as baseline, corrected over components x measures); :func:`section` renders them with the
difference read from the fused run's side: fused minus component, positive
when the fusion is better.
"""

from __future__ import annotations

from html import escape

from .compare import effect_text, p_text, signed

__all__ = ["section", "text_table"]


def __getattr__(name: str):
    if name == "fused_comparison":   # made by the page model now
        from ..pages.statistics import fused_comparison

        return fused_comparison
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _rows(comparison, digits: int = 4) -> list[list[str]]:
    """Per row: measure, component, the means, fused - component with its interval, p, W/T/L, d."""
    out = []
    for row in comparison.rows:
        mark = "*" if row.significant else ""
        out.append([str(row.measure), row.run_b, f"{row.mean_a:.{digits}f}",
                    f"{row.mean_b:.{digits}f}",
                    signed(-row.difference, digits) + mark,
                    f"[{signed(-row.ci_high, digits)}, {signed(-row.ci_low, digits)}]",
                    p_text(row.p_corrected) + mark, f"{row.losses}/{row.ties}/{row.wins}",
                    effect_text(-row.effect_size)])
    return out


HEAD = ["measure", "component", "fused", "component", "fused - comp.", "CI", "p (corr.)",
        "fused W/T/L", "d"]


def _note(comparison) -> str:
    return (f"* significant: p < {comparison.alpha:g} after {comparison.correction} correction over "
            f"{len(comparison.rows)} comparisons (components x measures); two-sided {comparison.test} test"
            + (f", seed {comparison.seed}" if comparison.seed is not None else "")
            + ". Positive: the fused run is better.")


def text_table(comparison, fused: str, digits: int = 4) -> str:
    """The same comparison as plain text, for ``rankproof fuse`` (``digits``: decimals of means, differences
    and intervals)."""
    rows = [HEAD] + _rows(comparison, digits)
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    lines = [f"{fused} against each component (paired over queries):"]
    lines += ["  " + "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths)))
              for r in rows]
    return "\n".join(lines + [_note(comparison)])


def section(comparison, fused: str) -> str:
    """The HTML section: per measure and component, fused minus component with its interval and test."""
    head = ["measure", "component", "fused mean", "component mean", "fused - component", "CI",
            "p (corrected)",
            "fused wins / ties / losses", "d"]
    parts = ['<section id="fusion"><h2>Fused run against its components</h2>',
             f'<p class="note">{escape(fused)} is the fusion of the other runs. Each row tests it against one '
             "component, paired over queries; the correction runs over components x measures.</p>",
             '<table class="summary"><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for row, cells in zip(comparison.rows, _rows(comparison)):
        cls = ("sig" if row.difference < 0 else "worse") if row.significant else ""
        parts.append(f'<tr class="{cls}">' + "".join(f"<td>{escape(c)}</td>" for c in cells)
                     + "</tr>")
    parts.append("</table>")
    parts.append(f'<p class="note">{escape(_note(comparison))}</p></section>')
    return "".join(parts)
