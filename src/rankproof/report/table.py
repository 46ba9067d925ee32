"""Renderers for people: rich tables, Markdown, and the explain view.

Numbers are rounded for reading here (4 decimals); JSON and CSV keep full
precision. Every table is followed by the protocol, its fingerprint and the
counts of what the policies touched.
"""

from __future__ import annotations

import io
import math
from typing import Sequence

from ..errors.messages import CLI, PYTHON
from ..results import Results, advice
from .cells import fmt

__all__ = ["to_table", "to_markdown", "side_names", "side_cell", "explanation_table",
           "counts_lines", "warning_lines", "notes_lines"]

_LABELS = {
    "queries_evaluated": "queries evaluated",
    # The query universe's empty ends (an empty retrieved list, an empty ground truth): each
    # preset decides their value, and a number made of them is never silent.
    "queries_ranked_empty": "queries ranked with an empty list",
    "queries_without_judgments": "queries without judgments (empty ground truth)",
    "ids_normalised": "ids changed by the ids policy",
    "chunks_merged": "chunks merged",
    "subqueries_merged": "sub-queries merged (subqueries=max)",
    "queries_missing_from_run": "judged queries missing from the run",
    "queries_missing_from_qrels": "ranked queries missing from the qrels",
    "duplicates_dropped": "repeated docs dropped",
    "identical_ids_dropped": "docs named as their query dropped (identical_ids)",
    "negative_grades": "negative grades",
    "unjudged_retrieved": "unjudged docs retrieved",
    "unjudged_dropped": "unjudged docs dropped (condense)",
    "tied_groups": "tied score groups",
    "tied_groups_from_precision": "tied groups made by score_precision",
    "zero_ideal_queries": "queries with nothing relevant",
    "excluded_queries": "queries excluded",
    "unjudged_in_cutoff": "unjudged docs inside the cutoff",
    "tied_groups_crossing_cutoff": "tied groups crossing the cutoff",
    "judged_in_cutoff_by_layer": "judged docs inside the cutoff by source",
    # Nugget scores (rankproof.evaluate_nuggets)
    "nuggets": "nuggets",
    "vital_nuggets": "vital nuggets",
    "nuggets_supported": "nuggets supported",
    "nuggets_partially_supported": "nuggets partially supported",
    "nuggets_not_supported": "nuggets not supported",
    "answers_without_nuggets": "answers without a nugget (scored 0)",
    "answers_without_vital_nuggets": "answers without a vital nugget (vital scores 0)",
}


def _count_text(value) -> str:
    """A count, or a count per source (layered qrels): ``human 120 / judge 30``."""
    return (" / ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, dict)
            else str(value))


def counts_lines(results: Results) -> list[str]:
    """One line per nonzero count (per-measure counts grouped)."""
    lines = []
    for key, label in _LABELS.items():
        value = results.counts.get(key)
        if isinstance(value, dict):
            touched = {m: v for m, v in value.items() if v}
            if touched:
                lines.append(f"{label}: "
                             + ", ".join(f"{m} {_count_text(v)}" for m, v in touched.items()))
        elif value:
            lines.append(f"{label}: {value}")
    return lines


def warning_lines(results: Results, spelling: str = PYTHON) -> list[str]:
    """The results' warnings (rankproof.results.advice: the same lines as ``Results.summary()``),
    among them the seed of the project, unjudged is not non-relevant, where the data has unjudged docs."""
    return [f"warning: {line}" for line in advice.warnings(results, spelling)]


def _console(width: int = 200):
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, highlight=False, soft_wrap=True,
                   color_system=None, legacy_windows=False)


def notes_lines(results: Sequence[Results], spelling: str = CLI) -> list[str]:
    """Notes, counts and warnings of every run, one line each (the command line prints them on stderr,
    in its own spelling: the lines of ``Results.summary()`` with flags for parameters)."""
    lines: list[str] = []
    for r in results:
        lines.extend(f"{r.run_name}: note: {n}" for n in advice.notes(r, spelling))
        touched = counts_lines(r)
        lines.append(f"{r.run_name}: counts: "
                     + ("; ".join(touched) if touched else "nothing touched"))
        lines.extend(f"{r.run_name}: {w}" for w in warning_lines(r, spelling))
    return lines


def _footer(results: Sequence[Results], notes: bool = True) -> list[str]:
    """Protocol, fingerprint, and (with notes) counts and warnings, as plain lines."""
    protocol = results[0].protocol
    lines = [f"protocol     {protocol}", f"fingerprint  {protocol.fingerprint}"]
    for r in results if notes else ():
        touched = counts_lines(r)
        prefix = f"counts ({r.run_name})" if len(results) > 1 else "counts"
        lines.append(f"{prefix}: " + ("; ".join(touched) if touched else "nothing touched"))
        lines.extend(w if len(results) == 1 else f"{r.run_name}: {w}" for w in warning_lines(r))
    return lines


def _mean_cell(r: Results, measure, digits: int) -> str:
    """The mean, with its bounds under the unjudged docs when they were computed: 0.3410 [0.3410, 0.6120],
    and its range over the orders of tied docs when it was: 0.5000 ties [0.2500, 0.7500]."""
    if not r.has_bounds:
        return fmt(r.mean(measure), digits) + _tie_cell(r, measure, digits)
    b = r.bounds(measure)
    return (f"{fmt(b.value, digits)} [{fmt(b.lower, digits)}, {fmt(b.upper, digits)}]"
            + _tie_cell(r, measure, digits))


DISPERSIONS = ("std", "sample_std", "iqr")


def _spread_cell(r: Results, measure, digits: int, dispersion: "str | None") -> str:
    """`` sd 0.2100`` (``--dispersion std``: the per-query values' std, ranx's ``return_std``),
    `` sample_sd ...`` (n - 1) or `` iqr ...``; empty without one."""
    if dispersion is None:
        return ""
    spread = r.dispersion(measure)
    value = spread.iqr if dispersion == "iqr" else getattr(spread, dispersion)
    label = {"std": "sd", "sample_std": "sample_sd", "iqr": "iqr"}[dispersion]
    return f" {label} {fmt(value, digits)}"


def _tie_cell(r: Results, measure, digits: int, query: int | None = None) -> str:
    """`` ties [min, max]``: the range over the orders of tied docs (of the mean, or of one query); empty
    when it was not computed."""
    if not r.has_tie_range:
        return ""
    t = r.tie_range(measure)
    lo, hi = (t.lower, t.upper) if query is None else (float(t.query_lower[query]),
                                                       float(t.query_upper[query]))
    return f" ties [{fmt(lo, digits)}, {fmt(hi, digits)}]"


def side_names(results: Sequence[Results]) -> list[str]:
    """The side-data measures (coverage@10, ...) of the runs, each once, in order."""
    return list(dict.fromkeys(v.measure for r in results for v in r.side))


def side_cell(r: Results, measure: str, digits: int) -> str:
    """A side-data measure's value on a run (a mean over lists, or the catalogue's), "-" when not evaluated."""
    found = [v.value for v in r.side if v.measure == measure]
    return fmt(found[0], digits) if found else "-"


def to_table(results: Sequence[Results], per_query: bool = False, *, digits: int = 4,
             notes: bool = True,
             names: dict[str, str] | None = None, dispersion: "str | None" = None) -> str:
    """Runs as rows, measures as columns (means), then protocol, fingerprint and counts.

    ``digits``: decimals printed; ``names``: measures as printed (``{"ap": "MAP"}``). ``notes=False`` leaves out the counts and
    warnings (the command line prints them on stderr, see :func:`notes_lines`). ``dispersion``
    (``std``, ``sample_std`` or ``iqr``): each mean followed by its per-query values' spread.
    """
    from rich.table import Table

    console = _console()
    measures = results[0].measures
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("run")
    for m in measures:
        table.add_column((names or {}).get(str(m), str(m)), justify="right")
    side = side_names(results)
    for text in side:
        table.add_column(text, justify="right")
    table.add_column("queries", justify="right")
    for r in results:
        table.add_row(r.run_name,
                      *(_mean_cell(r, m, digits) + _spread_cell(r, m, digits, dispersion)
                                    for m in measures),
                      *(side_cell(r, text, digits) for text in side),
                      str(r.counts["queries_evaluated"]))
    console.print(table)
    text = "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())
    if per_query:
        # Side-data measures alone (no accuracy measure): no empty table of query ids.
        text += "".join((_per_query_table(r, digits) if measures else "")
                        + side_per_query(r, digits)
                        for r in results)
    return text + "\n\n" + "\n".join(_footer(results, notes)) + "\n"


def side_per_query(r: Results, digits: int = 4) -> str:
    """The per-list side-data measures of a run, one row per user of the run ("" without any)."""
    lists = [v for v in r.side if v.values is not None and v.queries is not None]
    if not lists:
        return ""
    found = [dict(zip(map(str, list(v.queries if v.queries is not None else ())),
                      list(v.values if v.values is not None else ()))) for v in lists]
    users = sorted({user for values in found for user in values})
    columns = [[fmt(values.get(user, math.nan), digits) for user in users] for values in found]
    shown = [shown_id(user) for user in users]
    widths = [max([len("user"), *map(len, shown)])] + [
        max([len(v.measure), *map(len, column)]) for v, column in zip(lists, columns)]
    header = "  ".join(["user".ljust(widths[0])]
                       + [v.measure.rjust(w) for v, w in zip(lists, widths[1:])])
    rows = ["  ".join([user.ljust(widths[0])]
                      + [column[i].rjust(w) for column, w in zip(columns, widths[1:])]).rstrip()
            for i, user in enumerate(shown)]
    return "\n\n" + "\n".join([f"per user, side data: {r.run_name}", header.rstrip(), *rows])


def _per_query_table(r: Results, digits: int = 4) -> str:
    """One run's per-query table, as rich lays it out, without rich for plain ASCII.

    rich costs about 180 us a row (a million queries: minutes); the layout
    is simple enough to write directly: the query column left-aligned, each
    measure right-aligned, two spaces between columns, trailing blanks cut.
    Ids that are not plain ASCII, or a table wider than the 200-column
    console (which rich would squeeze), go through rich.
    """
    names = [str(m) for m in r.measures]
    queries = [shown_id(q)
               for q in (r.queries.tolist() if hasattr(r.queries, "tolist") else r.queries)]
    if r.has_bounds:
        bounds = [r.bounds(m) for m in r.measures]
        columns = [[f"{fmt(v, digits)} [{fmt(lo, digits)}, {fmt(hi, digits)}]"
                    for v, lo, hi in zip(b.query_value.tolist(), b.query_lower.tolist(),
                                         b.query_upper.tolist())]
                   for b in bounds]
    else:
        columns = [[fmt(v, digits) for v in r.values(m).tolist()] for m in r.measures]
    if r.has_tie_range:
        columns = [[cell + _tie_cell(r, m, digits, i) for i, cell in enumerate(column)]
                   for m, column in zip(r.measures, columns)]
    widths = [max(len("query"), max(map(len, queries), default=0))]
    widths += [max(len(name), max(map(len, column), default=0))
               for name, column in zip(names, columns)]
    plain = (all(q.isascii() and q.isprintable() for q in queries)
             and all(n.isascii() for n in names))
    if not plain or sum(widths) + 2 * (len(widths) - 1) > 200:
        return _per_query_table_rich(r, digits)
    title = f"per query: {r.run_name}"
    header = "  ".join(["query".ljust(widths[0])]
                       + [n.rjust(w) for n, w in zip(names, widths[1:])]).rstrip()
    first = [q.ljust(widths[0]) for q in queries]
    cells = [[c.rjust(w) for c in column] for column, w in zip(columns, widths[1:])]
    rows = ["  ".join(row).rstrip() for row in zip(first, *cells)]
    return "\n\n" + "\n".join([title, header, *rows])


def _per_query_table_rich(r: Results, digits: int = 4) -> str:
    from rich.table import Table

    console = _console()
    pq = Table(title=f"per query: {r.run_name}", box=None, header_style="bold",
               title_justify="left",
               pad_edge=False)
    pq.add_column("query")
    for m in r.measures:
        pq.add_column(str(m), justify="right")
    values = [r.values(m) for m in r.measures]
    for i, query in enumerate(r.queries):
        pq.add_row(shown_id(query), *(fmt(float(v[i]), digits) + _tie_cell(r, m, digits, i)
                                      for m, v in zip(r.measures, values)))
    console.print()
    console.print(pq)
    return "\n" + "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())


def shown_id(text) -> str:
    r"""An id as a text table shows it: control characters and line breaks escaped, so that
    an id cannot break (or forge) a line of the table; ids are otherwise as given.

    >>> print(shown_id("q1\nall 0.99\t"))
    q1\nall 0.99\t
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def markdown_cell(text) -> str:
    r"""Text safe inside a Markdown table cell: ``|`` would end the cell.

    >>> print(markdown_cell("x|y"))
    x\|y
    """
    return shown_id(text).replace("\\", "\\\\").replace("|", "\\|")


def to_markdown(results: Sequence[Results], per_query: bool = False, *, digits: int = 4,
                names: dict[str, str] | None = None, dispersion: "str | None" = None) -> str:
    """A Markdown table of means (runs as rows, measures as columns), then the protocol.

    ``names``: measures as printed (``{"ap": "MAP"}``); ``dispersion``: as :func:`to_table`'s.
    """
    measures = results[0].measures
    side = side_names(results)
    lines = ["| run | " + " | ".join([markdown_cell((names or {}).get(str(m), m)) for m in measures]
                                     + [markdown_cell(text) for text in side]) + " |",
             "|---|" + "---:|" * (len(measures) + len(side))]
    for r in results:
        lines.append(f"| {markdown_cell(r.run_name)} | "
                     + " | ".join([fmt(r.mean(m), digits) + _tie_cell(r, m, digits)
                                   + _spread_cell(r, m, digits, dispersion) for m in measures]
                                  + [side_cell(r, text, digits) for text in side]) + " |")
    protocol = results[0].protocol
    lines += ["", f"Protocol: `{protocol}` (fingerprint `{protocol.fingerprint}`)."]
    for r in results:
        touched = counts_lines(r)
        if touched:
            lines.append(f"Counts for {r.run_name}: " + "; ".join(touched) + ".")
    if per_query:
        # side-data measures alone: their values are the means above
        for r in results if measures else ():
            lines += ["", f"Per query, {r.run_name}:", "",
                      "| query | " + " | ".join(markdown_cell(m) for m in r.measures) + " |",
                      "|---|" + "---:|" * len(r.measures)]
            values = [r.values(m) for m in r.measures]
            for i, query in enumerate(r.queries):
                lines.append(f"| {markdown_cell(query)} | " + " | ".join(
                    fmt(float(v[i]), digits) + _tie_cell(r, m, digits, i)
                    for m, v in zip(r.measures, values)) + " |")
    return "\n".join(lines) + "\n"


def _print_ideal(console, e, digits: int) -> None:
    """The ideal list of a DCG-family explanation, and its DCG against the ideal's."""
    from rich.table import Table

    ideal = Table(box=None, header_style="bold", title="ideal ranking", title_justify="left",
                  pad_edge=False)
    for name in ("rank", "doc", "grade", "gain", "discount", "contribution", "cumulative DCG"):
        ideal.add_column(name, justify="left" if name == "doc" else "right")
    for step in e.ideal:
        ideal.add_row(str(step.rank), step.doc, str(step.grade), f"{step.gain:g}",
                      f"{step.discount:.{digits}f}",
                      f"{step.contribution:.{digits}f}", f"{step.cumulative:.{digits}f}")
    console.print()
    console.print(ideal)
    console.print()
    if e.measure.spec.dcg_parts:
        console.print(f"DCG {e.dcg:.{digits}f} / ideal DCG {e.ideal_dcg:.{digits}f}"
                      + (f" = {e.dcg / e.ideal_dcg:.{digits}f}" if e.ideal_dcg
                         else " (ideal DCG is 0)"))
    else:
        console.print(f"DCG {e.dcg:.{digits}f}; ideal DCG {e.ideal_dcg:.{digits}f}")


def explanation_table(e, digits: int = 4) -> str:
    """The ranking, the ideal list, the value and the policies that changed anything.

    DCG-family measures show gains, discounts and contributions; the others
    show which ranked docs are relevant at the measure's level. ``digits``: decimals of discounts,
    contributions, DCG and the value (4 by default).
    """
    from rich.table import Table

    gain_based = e.measure.spec.dcg is not None
    console = _console()
    console.print(f"query {e.query}, {e.measure}; protocol fingerprint {e.protocol.fingerprint}")
    ranking = Table(box=None, header_style="bold", title="ranking", title_justify="left",
                    pad_edge=False)
    columns = ["rank", "doc", "score", "tie group", "grade"]
    columns += (["gain", "discount", "contribution", "cumulative DCG"] if gain_based
                else ["relevant"])
    for name in columns:
        ranking.add_column(name,
                           justify="left" if name in ("doc", "grade", "relevant") else "right")
    k = e.measure.cutoff if e.measure.cutoff is not None else len(e.ranking)
    # A tied group crossing the cutoff contributes as a whole: show all of it.
    shown = [row for row in e.ranking if row.in_cutoff]
    for row in shown:
        tie = f"{row.tie_group} (of {row.tie_size})" if row.tie_size > 1 else str(row.tie_group)
        cells = [str(row.rank), row.doc, "" if row.score is None else f"{row.score:g}", tie,
                 "unjudged" if row.grade is None else str(row.grade)]
        if gain_based:
            cells += [f"{row.gain:g}", f"{row.discount:.{digits}f}",
                      f"{row.contribution:.{digits}f}", f"{row.cumulative:.{digits}f}"]
        else:
            cells.append("yes" if row.relevant else "")
        ranking.add_row(*cells)
    console.print(ranking)
    below = e.ranking[len(shown):]
    if below:
        relevant = [f"{row.doc} (grade {row.grade}) at rank {row.rank}" for row in below
                    if row.relevant]
        console.print(f"... {len(below)} more docs below the cutoff {k}"
                      + (f"; relevant among them: {', '.join(relevant[:5])}"
                         + (" ..." if len(relevant) > 5 else "")
                         if relevant else "; none relevant"))
    if gain_based:
        _print_ideal(console, e, digits)
    else:
        console.print()
    for line in e.working:
        console.print(line, highlight=False)
    console.print(f"{e.measure} = {fmt(e.value, digits)}"
                  + ("" if e.value is not None else " (excluded)"))
    if e.policies:
        console.print("policies that changed this value:")
        for note in e.policies:
            console.print(f"  - {note}")
    else:
        console.print("no policy changed this value")
    return "\n".join(line.rstrip() for line in console.file.getvalue().splitlines()) + "\n"
