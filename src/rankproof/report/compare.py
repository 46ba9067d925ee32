r"""Renderers of a :class:`~rankproof.stats.Comparison`: table, Markdown, LaTeX, JSON, CSV.

Renderers never compute: every number comes from the comparison's rows.
People's formats round (4 decimals, ``digits``) and mark significant rows with ``*``;
JSON and CSV keep full precision (infinite or undefined values are null / empty).
``names`` maps canonical measure names to the names a paper prints
(``{"ap": "MAP"}``); the LaTeX table says it needs booktabs, carries a
``\label`` and, on request, each run's interval and effect size against the
baseline (``extra=("ci", "effect")``).
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

from ..io.json_text import json_text
from ..results.pvalues import p_text
from .cells import fmt

__all__ = ["to_table", "to_markdown", "to_latex", "to_json", "to_csv", "comparison_document",
           "TEST_NAMES",
           "CORRECTION_NAMES", "LATEX_EXTRAS", "signed", "p_text", "p_phrase", "needed_text",
           "effect_text"]

# How each test and correction is named in a rendered comparison (the HTML report's too).
TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "randomization test"}
CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "none": "no"}


def signed(value: float, digits: int = 4) -> str:
    """A difference with its sign, 4 decimals (``digits``; ``n/a`` for NaN)."""
    return "n/a" if math.isnan(value) else f"{value:+.{digits}f}"


def p_phrase(value: float) -> str:
    """A p-value in a sentence: ``p = 0.0312``, ``p < 0.0001``.

    >>> p_phrase(0.03125), p_phrase(0.0)
    ('p = 0.0312', 'p < 0.0001')
    """
    text = p_text(value)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def needed_text(value: int | None) -> str:
    """Queries needed, with thousands separators (``n/a`` when nothing is to be detected)."""
    return "n/a" if value is None else f"{value:,}"


def effect_text(value: float) -> str:
    """An effect size with its sign, 2 decimals."""
    if math.isnan(value):
        return "n/a"
    return "inf" if math.isinf(value) else f"{value:+.2f}"


def _cells(row, digits: int = 4, names: dict[str, str] | None = None) -> list[str]:
    mark = "*" if row.significant else ""
    return [(names or {}).get(row.measure, row.measure), row.run_a, row.run_b,
            fmt(row.mean_a, digits),
            fmt(row.mean_b, digits), signed(row.difference, digits) + mark,
            f"[{signed(row.ci_low, digits)}, {signed(row.ci_high, digits)}]", p_text(row.p_value),
            p_text(row.p_corrected) + mark,
            effect_text(row.effect_size), f"{row.wins}/{row.ties}/{row.losses}",
            needed_text(row.queries_needed)]


def _headers(comparison) -> list[str]:
    level = f"{comparison.confidence:.0%}"
    return ["measure", "A", "B", "mean A", "mean B", "B - A", f"{level} CI", "p",
            f"p ({comparison.correction})", "d", "B wins/ties/losses", "queries needed"]


def _notes(comparison) -> list[str]:
    c = comparison
    test = (TEST_NAMES[c.test] + (f" ({c.n_resamples:,} sign flips, seed {c.seed})" if c.test
                                  == "randomization" else ""))
    # method='auto' may have replaced the test: say what ran
    used = getattr(c, "test_used", c.test)
    if used != c.test:
        test = (TEST_NAMES[used] if used in TEST_NAMES
                else f"{test} or paired t-test, per row (below)")
    correction = CORRECTION_NAMES[c.correction]
    queries = sorted({row.queries for row in c.rows})
    lines = [
        f"* significant: p < {c.alpha:g} after {correction} correction over {len(c.rows)} "
        f"comparison{'s' if len(c.rows) != 1 else ''} "
        f"(runs x measures); two-sided {test}",
        ("CI: normal interval of the mean difference (mean -+ z se)" if getattr(c, "methods", ())
         and all(
            ci.startswith("normal") for _, ci in c.methods) else
         f"CI: paired bootstrap of the mean difference ({c.bootstrap_method}, {c.n_resamples:,} resamples, seed "
         f"{c.seed})")
        + "; d: mean / sd of the per-query differences; queries needed: for a paired t-test to detect d "
        f"with power {c.power:g} at alpha {c.alpha:g}",
        *[check for check in getattr(c, "method_checks", ())
          if not check.startswith("method resampling")],
        f"queries paired: {', '.join(str(q) for q in queries)}",
        f"protocol     {c.protocol}",
        f"fingerprint  {c.protocol.fingerprint}",
        f"qrels digest {c.qrels_digest}",
    ]
    lines += [f"warning: compared despite a mismatch (allow_mismatch): {m}" for m in c.mismatches]
    lines += [f"not decided by the judged docs alone: {u}" for u in c.undecided]
    return lines


def to_table(comparison, *, digits: int = 4, names: dict[str, str] | None = None,
             notes: bool = True) -> str:
    """A terminal table, one row per measure x pair, then settings, protocol and mismatches.

    ``digits``: decimals of means, differences and intervals; ``names``: measures
    as printed; ``notes=False``: the table alone (``--quiet``).
    """
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=220, highlight=False, soft_wrap=True, color_system=None,
                      legacy_windows=False)
    table = Table(box=None, header_style="bold", pad_edge=False)
    for i, name in enumerate(_headers(comparison)):
        table.add_column(name, justify="left" if i < 3 else "right")
    for row in comparison.rows:
        table.add_row(*_cells(row, digits, names))
    console.print(table)
    text = "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())
    return text + ("\n\n" + "\n".join(_notes(comparison)) if notes else "") + "\n"


def to_markdown(comparison, *, digits: int = 4, names: dict[str, str] | None = None,
                notes: bool = True) -> str:
    """A Markdown table for a paper or an issue; significant rows are marked ``*``.

    Every row carries its interval and effect size; ``digits``, ``names`` and
    ``notes`` as in :func:`to_table`.
    """
    from .table import markdown_cell

    headers = _headers(comparison)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * 3 + "---:|" * (len(headers) - 3)]
    for row in comparison.rows:
        # A bare * could pair up into emphasis: escaped.
        lines.append("| " + " | ".join(markdown_cell(cell).replace("*", r"\*")
                                       for cell in _cells(row, digits, names))
                     + " |")
    if not notes:
        return "\n".join(lines) + "\n"
    said = _notes(comparison)
    lines += [""] + [line.replace("*", r"\*", 1) + "  " for line in said[:3]]
    lines += ["",
              f"Protocol: `{comparison.protocol}` (fingerprint `{comparison.protocol.fingerprint}`); "
              f"qrels digest `{comparison.qrels_digest}`."]
    lines += [line + "  " for line in said[6:]]
    return "\n".join(lines) + "\n"


# < and > in text mode print as inverted marks under the default OT1 encoding.
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


LATEX_EXTRAS = ("ci", "effect")


def to_latex(comparison, *, digits: int = 4, names: dict[str, str] | None = None,
             label: str = "tab:results",
             extra: tuple[str, ...] = ()) -> str:
    """A booktabs table for a paper: runs as rows (labelled a, b, ...), measures as columns.

    Each mean carries, as a superscript, the labels of the runs it is
    significantly better than (after correction); the best mean of each
    column is bold. ``names`` maps measures to the names printed
    (``{"ap": "MAP"}``), ``label`` is the ``\\label`` (``tab:results``), and
    ``extra`` adds, after each measure's means, each run's interval
    (``"ci"``) and effect size (``"effect"``) against the baseline (the
    first run when none was given). The first line says the table needs
    booktabs.
    """
    c = comparison
    unknown = [e for e in extra if e not in LATEX_EXTRAS]
    if unknown:
        raise ValueError(f"unknown extra column {unknown[0]!r}: choose from {', '.join(LATEX_EXTRAS)}")
    labels = {run: chr(ord("a") + i) if i < 26 else f"r{i}" for i, run in enumerate(c.runs)}
    beats: dict[tuple[str, str], list[str]] = {}
    for row in c.significant:
        winner, loser = (row.run_b, row.run_a) if row.difference > 0 else (row.run_a, row.run_b)
        beats.setdefault((winner, row.measure), []).append(labels[loser])
    best = {m: max(c.mean(run, m) for run in c.runs) for m in c.measures}
    base = c.baseline if c.baseline is not None else c.runs[0]
    level = f"{c.confidence:.0%}".replace("%", r"\%")
    heads = {"ci": f"{level} CI", "effect": "$d$"}
    header = []
    for m in c.measures:
        header.append(_latex((names or {}).get(m, m)))
        header += [heads[e] for e in extra]
    lines = [r"% needs \usepackage{booktabs} in the preamble (\toprule, \midrule, \bottomrule)",
             r"\begin{table}[t]", r"\centering",
             r"\begin{tabular}{ll" + "r" * len(header) + "}", r"\toprule",
             r"\# & Run & " + " & ".join(header) + r" \\", r"\midrule"]
    for run in c.runs:
        cells = []
        for m in c.measures:
            value = c.mean(run, m)
            text = fmt(value, digits)
            if value == best[m]:
                text = r"\textbf{" + text + "}"
            marks = "".join(sorted(beats.get((run, m), [])))
            cells.append(text + (r"$^{" + marks + "}$" if marks else ""))
            cells += _against_base(c, base, run, m, extra, digits)
        lines.append(f"{labels[run]} & {_latex(run)} & " + " & ".join(cells) + r" \\")
    test = TEST_NAMES[c.test]
    # The comparison is in math mode ($p < 0.05$): a text-mode < prints as an inverted ! under OT1.
    caption = (_latex(f"Superscripts: the runs a mean is significantly better than ({test}, "
                      f"{CORRECTION_NAMES[c.correction]} correction, ") + f"$p < {c.alpha:g}$"
               + _latex(")."))
    if extra:
        caption += _latex(f" CI and d: each run against {base} (paired bootstrap interval of the mean difference; "
                          "mean / sd of the per-query differences).")
    caption += _latex(f" Protocol fingerprint {c.protocol.fingerprint}.")
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + caption + "}",
              r"\label{" + _latex(label) + "}",
              r"\end{table}"]
    return "\n".join(lines) + "\n"


def _against_base(c, base: str, run: str, measure: str, extra, digits: int) -> list[str]:
    """A run's interval and effect size against the baseline (``--`` on the baseline's own row)."""
    if not extra:
        return []
    if run == base:
        return ["--"] * len(extra)
    row = c.row(base, run, measure)
    sign = 1.0 if row.run_a == base else -1.0
    low, high = sorted((sign * row.ci_low, sign * row.ci_high))
    shown = {"ci": f"[{signed(low, digits)}, {signed(high, digits)}]",
             "effect": effect_text(sign * row.effect_size)}
    return [shown[e] for e in extra]


def _json_number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def comparison_document(comparison) -> dict[str, Any]:
    """JSON-ready: settings, protocol, fingerprint, qrels digest, mismatches, the partial-match guard's
    warnings (when any), means and rows."""
    c = comparison
    return {
        "settings": c.settings(),
        "protocol": c.protocol.to_dict(),
        "protocol_text": str(c.protocol),
        "fingerprint": c.protocol.fingerprint,
        "qrels_digest": c.qrels_digest,
        "mismatches": list(c.mismatches),
        **({"undecided": list(c.undecided)} if c.undecided else {}),
        **({"warnings": list(c.warnings)} if getattr(c, "warnings", ()) else {}),
        "means": {run: {m: _json_number(v) for m, v in means} for run, means in c.means},
        "rows": [{k: _json_number(v) for k, v in row.to_dict().items()} for row in c.rows],
    }


def to_json(comparison) -> str:
    return json_text(comparison_document(comparison), indent=2, ensure_ascii=False) + "\n"


def to_csv(comparison) -> str:
    """One line per measure x pair, every field at full precision (empty: undefined)."""
    fields = comparison.row_fields()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fields)
    for row in comparison.rows:
        values = row.to_dict()
        writer.writerow(["" if values[f] is None
                         or (isinstance(values[f], float) and not math.isfinite(values[f]))
                         else repr(values[f]) if isinstance(values[f], float) else values[f]
                         for f in fields])
    return buffer.getvalue()
