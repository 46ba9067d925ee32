"""The named columns of a table, as Arrow arrays: a table of any library, and the missing ones.

A pyarrow Table or RecordBatch, a pandas or polars DataFrame, or any object
with an Arrow stream: only the named columns are converted (the others may
hold anything). pandas and polars are never imported here: a DataFrame is
recognised by the module its class comes from. A named column the table
lacks is a :class:`MissingColumnsError`, which lists the columns there are.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError, ParseError, literal
from ..errors.messages import swap_hint

__all__ = [
    "select_columns",
    "missing_error",
    "MissingColumnsError",
    "describe",
    "plain",
    "is_text",
]

# The arguments that name a column whose role a front door words its own way
# (errors.Vocabulary): a log's truth names its grade column with rating=.
_WORDED = ("query", "doc", "grade")


def _role(arg: str) -> str:
    """The argument naming a column, as a template: ``{grade}`` for grade (rating= in a log)."""
    return "{" + arg + "}" if arg in _WORDED else arg


def describe(arg: str, name) -> str:
    """``column 'rel' (named by grade=)``, as a template."""
    return f"column {literal(repr(name))} (named by {_role(arg)}=)"


# Qrels and runs can be read without a header line (header=False; --no-header): their roles
# have positions (io.formats.POSITIONS).
_POSITIONAL = {"query", "doc", "grade", "score"}
_AS_IT_IS = (", or read it as it is: header=False (--no-header on the command line) takes the columns by "
             "position, query 1, doc 2, grade or score 3")


class MissingColumnsError(ParseError):
    """Named columns a table does not have. Besides the message (worded for Python's keyword
    arguments), it keeps ``present`` (the table's columns), ``missing`` (role -> the name
    looked for) and ``noun``, so that a front door with other options (the command line's
    ``--columns``) can say the same in its own words."""

    present: list
    missing: dict
    noun: str
    no_header: bool = False

    def headerless(self) -> "MissingColumnsError":
        """The same error for a first line that looks like data: the file has no header line."""
        shown = ",".join(str(name) for name in self.present)
        names = ",".join(str(name) for name in self.missing.values())
        error = MissingColumnsError(source=self.source, line=self.line,
                                    what=f"the first line ({literal(repr(shown)[:60])}) looks like data, not column "
                                         "names: the file has no header line",
                                    fix=literal(f"add a header line naming the columns, such as {names}"
                                                + (_AS_IT_IS if set(self.missing) <= _POSITIONAL
                                                   else "")))
        error.present, error.missing, error.noun, error.no_header = (self.present, self.missing,
                                                                     self.noun, True)
        return error


def missing_error(present: list, named: Mapping[str, object], missing: list[str], noun: str,
                  source: str,
                  line: int | None = None) -> "MissingColumnsError":
    """Say which named columns are absent, which ones exist, and which argument to fix."""
    absent = " and ".join(f"no {noun} {literal(repr(named[arg]))} (named by {_role(arg)}=)"
                          for arg in missing)
    listing = ", ".join(repr(name) for name in present) if present else "none"
    arguments = ", ".join(f"{_role(arg)}=" for arg in missing)
    # Judgments and rankings swapped: naming the column would read scores as grades
    # (errors.messages).
    swapped = swap_hint(present, missing)
    error = MissingColumnsError(source=source, line=line, what=absent,
                                fix=swapped
                                or f"the {noun}s are {literal(listing)}; pass the right {noun} names "
                                               f"with {arguments}")
    error.present, error.missing, error.noun = (list(present), {arg: named[arg] for arg in missing},
                                                noun)
    return error




def _kind(data) -> str:
    """Tell what library a table comes from, without importing that library."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return "arrow"
    if isinstance(data, pa.RecordBatch):
        return "batch"
    library = type(data).__module__.split(".")[0]
    if library in ("pandas", "polars"):
        return library
    if hasattr(data, "__arrow_c_stream__"):
        return "stream"
    return "unknown"


# What a pandas or polars object needs to be read as a table, and what to pass instead.
_TABLE_LIKE = {
    "pandas": ("columns", "pass a DataFrame (e.g. series.to_frame() or series.reset_index())"),
    "polars": ("to_arrow", "pass a polars DataFrame (call .collect() on a LazyFrame first)"),
}


def _column_names(data, kind: str, source: str) -> list:
    """The column names of a table of `kind` (arrow, batch, pandas, polars); a pandas Series
    or a polars LazyFrame is refused, saying what to pass."""
    if kind in ("arrow", "batch"):
        return list(data.schema.names)
    needed, fix = _TABLE_LIKE[kind]
    if not hasattr(data, needed):
        raise InputError(source=source,
                         what=f"cannot read a {kind} {type(data).__name__} as a table", fix=fix)
    return list(data.columns)


def _pandas_to_arrow(frame, wanted: list, source: str):
    import pyarrow as pa

    subset = frame[wanted]
    try:
        return pa.Table.from_pandas(subset, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        # Find which column failed, so the message can name it; a loop over
        # columns, not rows.
        for name in wanted:
            try:
                pa.Array.from_pandas(frame[name])
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as inner:
                reason = str(inner.args[0]) if inner.args else type(inner).__name__
                shown = literal(repr(name))
                raise ParseError(source=source,
                                 what=f"column {shown} cannot be converted to Arrow ({literal(reason)})",
                                 fix=f"give it one type: ids all strings or all integers (e.g. df[{shown}] = "
                                     f"df[{shown}].astype(str)), grades integers, scores numbers") from None
        raise ParseError(source=source,
                         what=f"cannot convert the DataFrame to Arrow ({literal(exc)})",
                         fix="give the named columns plain string, integer or float types") from None


def select_columns(data, named: Mapping[str, object], source: str) -> tuple[dict, str]:
    """Return ``{argument: pyarrow.ChunkedArray}`` for the named columns of `data`.

    Also returns how the source spells a missing value, for messages.
    """
    import pyarrow as pa

    kind = _kind(data)
    if kind == "unknown":
        raise InputError(source=source,
                         what=f"cannot read a {type(data).__module__}.{type(data).__qualname__} as a table",
                         fix="pass a pyarrow Table, a pandas DataFrame or a polars DataFrame")
    if kind == "stream":
        data, kind = pa.table(data), "arrow"
    if kind == "batch":
        data, kind = pa.Table.from_batches([data]), "arrow"

    present = _column_names(data, kind, source)
    missing = [arg for arg, name in named.items() if name not in present]
    if missing:
        raise missing_error(present, named, missing, "column", source)

    # Convert only the named columns: the others may hold anything, and
    # converting them would cost time for nothing.
    wanted = list(dict.fromkeys(named.values()))
    if kind == "pandas":
        table = _pandas_to_arrow(data, wanted, source)
    elif kind == "polars":
        table = data.select(wanted).to_arrow()
    else:
        table = data

    columns = {}
    for arg, name in named.items():
        # pandas labels become strings in Arrow; look them up that way.
        found = table.schema.get_all_field_indices(str(name))
        if len(found) > 1:
            raise ParseError(source=source,
                             what=f"{len(found)} columns are named {literal(repr(name))} "
                                                 f"({_role(arg)}=)", fix="rename all but one")
        columns[arg] = table.column(found[0])
    return columns, ("null or NaN" if kind == "pandas" else "null")


def plain(column):
    """Decode dictionary columns (pandas and polars categoricals).

    A column of Arrow's null type becomes text: it is either empty (a table
    built from empty lists), which is then fine, or all null, which the null
    checks refuse.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        return pc.cast(column, column.type.value_type)
    if pa.types.is_null(column.type):
        return pc.cast(column, pa.large_string())
    return column


def is_text(kind) -> bool:
    import pyarrow as pa

    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_string_view(kind)
    )
