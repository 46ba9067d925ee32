"""What the commands print: results in each output format, the notes on stderr, plain text on stdout.

stdout holds only the output asked for; counts and warnings go to stderr
(``--quiet`` drops them).
"""

from __future__ import annotations

import sys

from .usage import precision_option, short, usage

__all__ = ["FORMATS", "COMPARE_FORMATS", "render_results", "render_comparison", "notes", "digits",
           "print_text",
           "add_names_option", "measure_names", "merged_notes", "print_notes", "add_print_options",
           "quieted",
           "add_output_options"]

FORMATS = ("table", "json", "csv", "markdown", "trec", "parquet")
COMPARE_FORMATS = ("table", "json", "csv", "markdown", "latex")


def render_results(results, fmt: str, per_query: bool, places: int = 4,
                   names: dict[str, str] | None = None,
                   spreadsheet_safe: bool = False,
                   dispersion: "str | None" = None) -> "str | bytes":
    """Results (one per run) in an output format of ``rankproof evaluate`` (``parquet``: the file's bytes).

    ``--format trec`` prints trec_eval's measure names (``map``, ``P_10``);
    ``names`` (``--names``) renames measures in the table and Markdown; ``dispersion``
    (``--dispersion``) adds each mean's per-query spread there (JSON holds every value already).
    """
    if fmt == "json":
        from ..report.data import to_json

        return to_json(results, per_query=True)
    if fmt == "parquet":
        from ..report.columnar import to_parquet

        return to_parquet(results)
    if fmt == "csv":
        from ..report.data import to_csv

        return to_csv(results, per_query=per_query, spreadsheet_safe=spreadsheet_safe)
    if fmt == "trec":
        from ..report.data import to_trec

        return to_trec(results, per_query=per_query, digits=places, trec_names=True)
    from ..report.table import to_markdown, to_table

    if fmt == "markdown":
        return to_markdown(results, per_query=per_query, digits=places, names=names,
                           dispersion=dispersion)
    return to_table(results, per_query=per_query, digits=places, notes=False, names=names,
                    dispersion=dispersion)


def render_comparison(comparison, fmt: str, *, places: int = 4, names: dict[str, str] | None = None,
                      quiet: bool = False, label: str = "tab:results",
                      extra: tuple[str, ...] = ()) -> str:
    """A Comparison in an output format of ``rankproof compare`` (JSON and CSV at full precision)."""
    from ..report import compare as render

    if fmt == "json":
        return render.to_json(comparison)
    if fmt == "csv":
        return render.to_csv(comparison)
    if fmt == "latex":
        return render.to_latex(comparison, digits=places, names=names, label=label, extra=extra)
    rendered = render.to_markdown if fmt == "markdown" else render.to_table
    return rendered(comparison, digits=places, names=names, notes=not quiet)


NAMES_HELP = ("measures as a paper prints them, e.g. --names MAP=ap,MRR=rr,nDCG@10=ndcg@10 (repeatable; "
              "the table, Markdown and LaTeX show MAP where the measure is ap). An option rather than -m MAP=ap: "
              "a measure's own text may hold '=' (ndcg(gain=map:0=0/1=1)), so -m stays one measure, unambiguous")


def add_names_option(parser) -> None:
    """--names DISPLAY=MEASURE,... (evaluate and compare)."""
    parser.add_argument("--names", action="append", metavar="NAME=MEASURE,...", help=NAMES_HELP)


def _top_level_split(text: str) -> list[str]:
    """Split on commas outside parentheses: utility(a=1,b=-1) stays one item."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def measure_names(args, command: str, measures) -> dict[str, str]:
    """--names as {canonical measure: printed name}; each measure must be one of those evaluated."""
    from ..measures.parse import parse_measures

    given = getattr(args, "names", None) or []
    evaluated = [str(m) for m in measures]
    names: dict[str, str] = {}
    for item in (part.strip() for text in given for part in _top_level_split(text)):
        shown, equals, text = item.partition("=")
        shown = shown.strip()
        if not equals or not shown or not text.strip() or not shown.isprintable():
            raise usage(command, f"--names {short(item)}: write NAME=MEASURE, e.g. MAP=ap",
                        "separate several with commas: --names MAP=ap,MRR=rr")
        measure = str(parse_measures([text.strip()])[0])
        if measure not in evaluated:
            raise usage(command, f"--names {short(item)}: {measure} is not among the measures "
                        f"({', '.join(evaluated)})", f"add -m {text.strip()} or drop this name")
        if (names.get(measure, shown) != shown
            or shown in (v for k, v in names.items() if k != measure)):
            raise usage(command,
                        f"--names {short(item)}: two names for one measure, or one name for two",
                        "give each measure one name")
        names[measure] = shown
    return names


def merged_notes(texts) -> list[str]:
    """A note per measure typed under several names (nDCG@10 and ndcg_cut_10 are one column)."""
    from ..measures.parse import parse_measures

    spellings: dict[str, list[str]] = {}
    for text in texts or ():
        typed = str(text)
        seen = spellings.setdefault(str(parse_measures([text])[0]), [])
        if typed not in seen:
            seen.append(typed)
    lines = []
    for measure, given in spellings.items():
        if len(given) > 1:
            listed = ", ".join(given[:-1]) + f" and {given[-1]}"
            lines.append(f"note: {listed} are {'both' if len(given) == 2 else 'all'} {measure}: one column")
    return lines


def print_notes(lines, quiet: bool) -> None:
    """Lines on stderr, prefixed ``rankproof:`` (``--quiet`` drops them)."""
    for line in () if quiet else lines:
        print(f"rankproof: {line}", file=sys.stderr)


def notes(results, quiet: bool) -> None:
    """Counts and warnings on stderr, whatever the format: stdout holds only the output asked for."""
    if quiet:
        return
    from ..report.table import notes_lines

    for line in notes_lines(results):
        print(f"rankproof: {line}", file=sys.stderr)


def digits(args, default: int = 4) -> int:
    """The decimals of --precision (``default`` when not given)."""
    places = getattr(args, "precision", None)
    if places is None:
        return default
    if not 0 <= places <= 17:
        raise usage(None, f"--precision {places} is not a number of decimals",
                    "give a number between 0 and 17")
    return places


def print_text(text: str) -> None:
    """Text to stdout, with a full disk or a closed stdout reported as bad usage."""
    from ..report.output import write_output

    write_output(text, None)


def add_output_options(parser) -> None:
    """--format, --precision, --names, -o and --quiet of a command that prints Results (evaluate and rag)."""
    from .flags import add_format_option, add_output_option

    add_format_option(parser, FORMATS, "parquet: saved results for monitor and compare, with -o",
                      "; every format holds the means only unless --per-query adds each query's "
                      "rows (csv: one row per query and measure)")
    parser.add_argument("--precision", type=precision_option, metavar="DIGITS",
                        help="decimals printed by table, markdown and trec (default 4; json and csv keep every digit)")
    add_names_option(parser)
    add_output_option(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="no counts or warnings on stderr (errors still are)")


def check_format_output(args, command: str) -> None:
    """Refuse ``--format parquet`` without ``-o FILE``: a binary file is not for a terminal or a pipe."""
    if args.format == "parquet" and args.output in (None, "-"):
        raise usage(command, "--format parquet writes a binary file",
                    "give -o FILE (e.g. -o window.parquet)")


def add_print_options(parser, default: int = 4, what: str = "values") -> None:
    """--precision and --quiet for a command that prints a table (explain, why, systems)."""
    parser.add_argument("--precision", type=precision_option, metavar="DIGITS",
                        help=f"decimals of the {what} printed (default {default})")
    parser.add_argument("--quiet", action="store_true",
                        help="nothing on stderr but errors (no notes or warnings)")


def quieted(args):
    """With --quiet, Python warnings are not printed (stdout holds the same output either way)."""
    import contextlib
    import warnings

    if not getattr(args, "quiet", False):
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack
