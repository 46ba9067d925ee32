"""A/B balance: are the users of two buckets alike before their metrics are compared?

Before trusting an A/B difference, check that randomisation gave the buckets
the same kind of users: per numeric attribute (age, past activity) the
two-sample Kolmogorov-Smirnov test (``scipy.stats.ks_2samp``, its default
``method='auto'``: exact for small samples, asymptotic otherwise); per
categorical attribute (country, platform) the chi-square test of the
bucket x category table (``scipy.stats.chi2_contingency``, with its default
Yates continuity correction on 2 x 2 tables). Many attributes make many
tests, so the p-values are corrected as one family
(:func:`rankproof.stats.corrections.correct`: Holm by default) and an
attribute is flagged when its corrected p is below alpha.

A missing value (null, NaN, an empty field of a text file) leaves that user
out of that attribute's test only. A column is numeric when every present
value reads as a number (text files hold text: ``"34"`` reads as 34),
categorical otherwise; ``categorical=`` forces a column (a numeric code such
as a region id) to be categorical.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Sequence

import numpy as np

from ..errors import InputError, ParseError, literal
from ..io.what import What
from .corrections import correct
from .keywords import CorrectionName
from ..results.pvalues import p_text

__all__ = ["Balance", "BalanceRow", "balance", "shown_p"]

USERS = What(what="users table", unit="user", units="users", example_value="A")


@dataclasses.dataclass(frozen=True)
class BalanceRow:
    """One attribute's test: ``kind`` numeric or categorical, ``test`` 'KS' or 'chi-square'."""

    attribute: str
    kind: str
    test: str
    statistic: float
    p: float
    corrected_p: float
    users: int
    balanced: bool


@dataclasses.dataclass(frozen=True)
class Balance:
    """The balance table of two buckets; ``str()`` prints it, ``imbalanced`` names the flagged attributes."""

    bucket: str
    buckets: tuple[str, str]
    sizes: tuple[int, int]
    correction: str
    alpha: float
    rows: tuple[BalanceRow, ...]
    # Rows left out because their bucket is empty (missing), counted rather than dropped unseen.
    unbucketed: int = 0
    # What was not tested and why (a column of ids is not an attribute), one sentence each.
    notes: tuple[str, ...] = ()

    @property
    def imbalanced(self) -> list[str]:
        return [row.attribute for row in self.rows if not row.balanced]

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame([dataclasses.asdict(row) for row in self.rows])

    def __str__(self) -> str:
        (a, b), (n_a, n_b) = self.buckets, self.sizes
        width = max([9, *(len(row.attribute) for row in self.rows)]) + 2
        lines = [f"A/B balance of {self.bucket!r}: {a} ({n_a} users) vs {b} ({n_b} users); {self.correction} "
                 f"correction over {len(self.rows)} tests, alpha {self.alpha:g}",
                 f"{'attribute':<{width}}{'kind':<13}{'test':<12}{'statistic':>10}{'p':>10}"
                 f"{'p (' + self.correction + ')':>12}{'users':>9}  balanced"]
        for row in self.rows:
            lines.append(f"{row.attribute:<{width}}{row.kind:<13}{row.test:<12}{row.statistic:>10.4f}"
                         f"{shown_p(row.p):>10}{shown_p(row.corrected_p):>12}{row.users:>9}  "
                         f"{'yes' if row.balanced else 'NO'}")
        flagged = self.imbalanced
        lines.append(f"imbalanced: {', '.join(flagged)}" if flagged
                     else "no attribute is imbalanced")
        if self.unbucketed:
            lines.append(f"{self.unbucketed} row{'s' if self.unbucketed != 1 else ''} with no bucket left out")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


def shown_p(p: float) -> str:
    """A p-value for reading: the shared format (``rankproof.results.pvalues.p_text``)."""
    return p_text(p)


_HEADER_BYTES = 1 << 20


def _column_names(path: str, fmt: str) -> list[str]:
    """The columns of a file, from its schema or header line (only to list the attributes)."""
    import csv
    import gzip
    import json
    import zlib

    if fmt == "parquet":
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig") as handle:
            first, seen = "", 0
            # At most the first MiB (a header is short; /dev/zero has no line end): past it,
            # or on a NUL, the reader that comes next refuses the file in its own words.
            while seen < _HEADER_BYTES and not first.strip():
                first = handle.readline(_HEADER_BYTES - seen)
                if not first:
                    break
                seen += len(first)
    except (OSError, UnicodeDecodeError, EOFError, zlib.error):
        return []   # the reader reports the file in its own words
    if "\0" in first:
        raise ParseError(source=str(path), line=1,
                         what=f"holds a NUL byte, so this is a binary file, not {fmt.upper()} "
                         "text",
                         fix="give a UTF-8 text table with a header line (or --format parquet for Parquet)")
    if not first.endswith("\n") and seen >= _HEADER_BYTES:
        return []
    if fmt == "jsonl":
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            return []
        return list(record) if isinstance(record, dict) else []
    return next(csv.reader([first.rstrip("\r\n")], delimiter="," if fmt == "csv" else "\t"), [])


def _read(users, named: dict[str, str], fmt: str | None) -> dict:
    """The named columns as pyarrow arrays, from a file (through the io readers) or a table in memory."""
    from ..io.arrow import MissingColumnsError, missing_error, select_columns
    from ..io.formats import format_of, read_table

    try:
        if isinstance(users, (str, os.PathLike)):
            chosen = format_of(users, fmt)
            if chosen == "trec":
                raise InputError(source=str(users),
                                 what="is not a CSV, TSV, JSON Lines or Parquet file",
                                 fix="give a table with a header (.csv, .tsv, .jsonl, .parquet) or name its format")
            if chosen == "jsonl":   # the JSON Lines reader knows the roles of qrels and runs only
                table = _read_jsonl(users, named)
            else:
                table, _, _ = read_table(users, chosen, named, USERS)
            return {arg: table.column(name) for arg, name in named.items()}
        columns, _ = select_columns(users, named, "users")
        return columns
    except MissingColumnsError as error:
        if error.no_header:
            raise
        # Named by this function's arguments: bucket= and attributes= (one role per attribute
        # inside).
        arguments = {("bucket" if arg == "bucket" else "attributes"): name
                     for arg, name in error.missing.items()}
        raise missing_error(error.present, arguments, list(arguments), "column",
                            error.source or "users",
                            error.line) from None


def _read_jsonl(path, named: dict[str, str]):
    """A JSON Lines users table, by pyarrow, after the package's size, encoding and nesting checks."""
    import pyarrow as pa
    import pyarrow.json as pajson

    from ..io.arrow import missing_error
    from ..io.files import check_json_nesting, load_text

    source = os.fspath(path)
    fix = "write one JSON object per line, such as {\"user\": 1, \"bucket\": \"A\", \"age\": 34}"
    data = load_text(source, source, what="users table", label="JSON Lines",
                     binary_hint=lambda _: fix,
                     encoding_fix=lambda _: fix)
    check_json_nesting(data, source)
    try:
        table = pajson.read_json(pa.BufferReader(data))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise InputError(source=source, what=literal(f"cannot be read as JSON Lines ({reason})"),
                         fix=literal(fix)) from None
    missing = [arg for arg, name in named.items() if name not in table.column_names]
    if missing:
        raise missing_error(table.column_names, named, missing, "field", source)
    return table


def _as_numbers(column) -> np.ndarray | None:
    """Float values (NaN where missing) when every present value is a number; None otherwise."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_boolean(column.type) or pa.types.is_dictionary(column.type):
        return None
    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
        return np.asarray(column.cast(pa.float64()).fill_null(math.nan), dtype=np.float64)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return None
    text = pc.utf8_trim_whitespace(column)
    blank = pc.fill_null(pc.equal(text, ""), True)
    try:
        numbers = pc.cast(pc.if_else(blank, None, text), pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    return np.asarray(numbers.fill_null(math.nan), dtype=np.float64)


def _labels(column) -> np.ndarray:
    """Text labels, '' where missing."""
    import pyarrow as pa

    return np.asarray(column.cast(pa.string()).fill_null(""), dtype=object).astype(str)


def _test(values_a, values_b, numbers: bool) -> tuple[str, float, float, int]:
    from scipy import stats

    if numbers:
        a, b = values_a[~np.isnan(values_a)], values_b[~np.isnan(values_b)]
        if len(a) == 0 or len(b) == 0:
            return "KS", math.nan, math.nan, len(a) + len(b)
        result = stats.ks_2samp(a, b)
        return "KS", float(result.statistic), float(result.pvalue), len(a) + len(b)
    a, b = values_a[values_a != ""], values_b[values_b != ""]
    categories, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    codes = np.ravel(codes)
    table = np.stack([np.bincount(codes[:len(a)], minlength=len(categories)),
                      np.bincount(codes[len(a):], minlength=len(categories))])
    if len(categories) < 2 or (table.sum(axis=1) == 0).any():
        return "chi-square", 0.0, 1.0, len(a) + len(b)   # one category: nothing can differ
    result = stats.chi2_contingency(table)
    return "chi-square", float(result.statistic), float(result.pvalue), len(a) + len(b)


def balance(users, bucket: str = "bucket", attributes: Sequence[str] | None = None, *,
            categorical: Sequence[str] = (), buckets: Sequence[str] | None = None,
            correction: "CorrectionName" = "holm",
            alpha: float = 0.05, user: str | None = "user", format: str | None = None) -> Balance:
    """Test every user attribute for balance between two A/B buckets.

    Parameters
    ----------
    users : path or table
        One row per user: a bucket column and attribute columns (CSV, TSV,
        JSON Lines, Parquet; or a pandas/polars DataFrame or pyarrow Table).
    bucket : str
        The bucket column.
    attributes : list of str, optional
        Columns to test; by default every column but the bucket and `user`.
    categorical : list of str
        Columns tested as categories even where they hold numbers.
    buckets : (str, str), optional
        The two buckets to compare when the column holds more.
    correction : {'holm', 'bonferroni', 'bh', 'none'}
    alpha : float
        An attribute is flagged imbalanced when its corrected p < alpha.
    user : str or None
        The user id column, never an attribute.
    format : str, optional
        The file's format when its extension does not say.

    Examples
    --------
    >>> import pandas as pd
    >>> users = pd.DataFrame({"bucket": ["A", "B"] * 4, "age": [20, 21, 30, 31, 40, 41, 50, 51],
    ...                       "country": ["fr", "fr", "de", "de", "fr", "fr", "de", "de"]})
    >>> balance(users).imbalanced
    []
    """
    if not 0 < alpha < 1:
        raise InputError(what=literal(f"alpha {alpha!r} is not between 0 and 1"), value=alpha,
                         fix="give e.g. 0.05")
    names = (_column_names(os.fspath(users), _format(users, format))
             if isinstance(users, (str, os.PathLike))
             else [str(name)
                   for name in getattr(users, "columns", getattr(users, "column_names", []))])
    chosen_by_default = attributes is None
    if attributes is None:
        attributes = [name for name in names if name not in (bucket, user)]
    attributes = list(dict.fromkeys(attributes))
    if not attributes:
        raise InputError(what="there is no attribute to test",
                         fix="name attribute columns (attributes=, --attributes)")
    unknown = [name for name in categorical if name not in attributes]
    if unknown:
        raise InputError(what=literal(f"categorical names {', '.join(unknown)}, which are not attributes tested"),
                         fix=literal(f"the attributes are {', '.join(attributes)}"))
    with_user = user if user is not None and user in names and user != bucket else None
    named: dict[str, str] = {"bucket": bucket, **({"user": with_user} if with_user else {}),
                             **{f"attribute {name}": name for name in attributes}}
    columns = _read(users, named, format)
    labels = _labels(columns["bucket"])
    chosen, sides = _two_buckets(labels, buckets, bucket)
    if with_user:
        _one_bucket_each(columns["user"], sides, chosen, with_user)
    rows, notes = [], []
    for name in attributes:
        column = columns[f"attribute {name}"]
        if chosen_by_default and name not in categorical and _id_like(column):
            notes.append(f"{name!r} not tested: every value is distinct ({len(column):,} rows), a column of ids, "
                         "not an attribute (name it in attributes= / --attributes to test it anyway)")
            continue
        numbers = None if name in categorical else _as_numbers(column)
        values = numbers if numbers is not None else _labels(column)
        test, statistic, p, count = _test(values[sides[0]], values[sides[1]], numbers is not None)
        rows.append((name, "numeric" if numbers is not None else "categorical", test, statistic, p,
                     count))
    if not rows:
        raise InputError(what="there is no attribute to test: " + "; ".join(notes),
                         fix="name attribute columns "
                         "(attributes=, --attributes)")
    p_values = np.array([row[4] for row in rows])
    adjusted = np.full(len(rows), math.nan)
    tested = ~np.isnan(p_values)
    adjusted[tested] = correct(p_values[tested], correction)
    return Balance(bucket=bucket, buckets=chosen, sizes=(int(sides[0].sum()), int(sides[1].sum())),
                   correction=correction, alpha=alpha,
                   rows=tuple(BalanceRow(name, kind, test, statistic, p, float(q), count,
                                         not (q < alpha))
                              for (name, kind, test, statistic, p, count), q in zip(rows,
                                                                                    adjusted)),
                   unbucketed=int((labels == "").sum()), notes=tuple(notes))


def _id_like(column) -> bool:
    """Whether a column holds ids rather than an attribute: integers or text, every present value distinct
    (at least 1,000 of them, so a small table's column of distinct ages is still tested)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_string(kind)
            or pa.types.is_large_string(kind)):
        return False
    present = len(column) - column.null_count
    return present >= 1000 and pc.count_distinct(column).as_py() == present


def _one_bucket_each(users_column, sides, chosen, user: str) -> None:
    """Refuse a user listed twice among the two buckets' rows (in both buckets: the contamination a balance
    check exists to catch; twice in one: counted twice), naming the first such user."""
    import pyarrow as pa

    inside = sides[0] | sides[1]
    if pa.types.is_integer(users_column.type) and not users_column.null_count:
        # integers sort in a tenth of the time of their text
        ids = users_column.to_numpy()[inside]
    else:
        ids = np.asarray(users_column.cast(pa.string()).fill_null(""),
                         dtype=object).astype(str)[inside]
    where = np.where(sides[0][inside], 0, 1)
    order = np.argsort(ids, kind="stable")
    ordered = ids[order]
    repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
    if not len(repeated):
        return
    both = [i for i in repeated if where[order[i]] != where[order[i + 1]]]
    first = both[0] if both else repeated[0]
    name = str(ordered[first])
    if both:
        what = f"user {name} is in both buckets {chosen[0]} and {chosen[1]} ({len(both)} such users)"
        fix = "each user belongs to one bucket: fix the assignment (a user in both contaminates the comparison)"
    else:
        what = f"user {name} is listed twice in bucket {chosen[where[order[first]]]}"
        fix = "give one row per user"
    raise InputError(what=literal(what), value=name, fix=f"{fix} (column {user!r})")


def _format(users, fmt: str | None) -> str:
    from ..io.formats import format_of

    return format_of(users, fmt)


def _two_buckets(labels: np.ndarray, buckets: Sequence[str] | None, column: str):
    present = sorted(set(labels.tolist()) - {""})
    if buckets is None:
        if len(present) != 2:
            shown = ", ".join(present[:6]) + (", ..." if len(present) > 6 else "")
            raise InputError(what=literal(f"bucket column {column!r} holds {len(present)} buckets ({shown}), "
                                          "not two"),
                             fix="name the two to compare (buckets=, --buckets A,B)")
        buckets = present
    buckets = [str(b) for b in buckets]
    missing = [b for b in buckets if b not in present]
    if len(buckets) != 2 or buckets[0] == buckets[1] or missing:
        raise InputError(what=literal(f"buckets {', '.join(buckets)}: give two different buckets of column "
                                      f"{column!r}"),
                         fix=literal(f"it holds {', '.join(present[:6])}"))
    return (buckets[0], buckets[1]), (labels == buckets[0], labels == buckets[1])
