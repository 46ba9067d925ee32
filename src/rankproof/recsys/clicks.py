"""Position bias from clicks: the position-based click model (PBM), fitted by EM.

The PBM (Craswell et al. 2008; Chuklin, Markov and de Rijke, *Click Models
for Web Search*, 2015, sections 3.4 and 4.2) says a user clicks document
``d`` shown at rank ``r`` for query ``q`` when they examine rank ``r`` and
find ``d`` attractive, two independent events:

    P(click | q, d, r) = theta_r * alpha_{q,d}

``theta_r`` is the examination probability of rank r, shared by all
queries; ``alpha_{q,d}`` the attractiveness of the pair. :func:`fit_pbm`
finds them by expectation-maximisation. For an impression without a click
the E-step splits the missing click between "not examined" and "not
attractive":

    P(E = 1 | C = 0) = theta_r (1 - alpha) / (1 - theta_r alpha)
    P(A = 1 | C = 0) = (1 - theta_r) alpha / (1 - theta_r alpha)

(a click means both are 1) and the M-step sets ``theta_r`` to the mean of
``P(E = 1 | ...)`` over the impressions at rank r, ``alpha_{q,d}`` to the
mean of ``P(A = 1 | ...)`` over those of the pair. Only products
``theta_r alpha`` are seen, so the scale of theta is not identified: the
result is normalised to ``theta_1 = 1`` (attractiveness multiplied by the
same factor, so every product is kept; it may then exceed 1). Ranks are
told apart only when pairs are shown at several ranks (randomised or
interleaved results, or rankings that change over time).

The normalised examination vector is a discount: ``rankproof fit-pbm CLICKS
-o discount.json`` writes it, and ``discount=file:discount.json`` makes DCG
weigh rank r by the share of users who look at it.

Impressions are grouped into (pair, rank) cells once, so each EM iteration
costs one pass over the cells (np.bincount), not over the impressions.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Literal

import numpy as np

from ..io.json_text import json_text
from ..errors import InputError, ParseError
from ..errors import literal

__all__ = ["ClickLog", "PBMFit", "fit_pbm", "read_clicks"]

# Probabilities are kept inside (EPS, 1 - EPS): at exactly 1, 1 - theta alpha
# is 0 for an impression without a click, and the E-step divides by it.
_EPS = 1e-9


@dataclasses.dataclass(frozen=True)
class ClickLog:
    """Impressions of a click log as flat arrays.

    Attributes
    ----------
    pair : int64 array, per impression: code of its (query, doc) pair
    rank : int64 array, per impression: 1-based rank it was shown at
    clicked : bool array, per impression
    queries, docs : str arrays, the query and doc of each pair code
    source : str, where it came from (for messages)
    """

    pair: np.ndarray
    rank: np.ndarray
    clicked: np.ndarray
    queries: np.ndarray
    docs: np.ndarray
    source: str = "clicks"

    @property
    def num_impressions(self) -> int:
        return len(self.rank)

    @classmethod
    def from_arrays(cls, query, doc, rank, clicked, *, source: str = "clicks") -> "ClickLog":
        """Build from per-impression sequences (ids as text, rank >= 1, clicked 0/1 or bool).

        >>> log = ClickLog.from_arrays(["q", "q", "q"], ["a", "b", "a"], [1, 2, 2], [1, 0, 0])
        >>> log.num_impressions, log.pair.tolist(), log.docs[log.pair].tolist()
        (3, [0, 1, 0], ['a', 'b', 'a'])
        """
        import pyarrow as pa

        columns = [value if isinstance(value, (pa.Array, pa.ChunkedArray))
                   else pa.array(np.asarray(value))
                   for value in (query, doc, rank, clicked)]
        return _build(*columns, source=source, line_of=lambda i: None)


def _build(query, doc, rank, clicked, *, source: str,
           line_of: Callable[[int], "int | None"]) -> ClickLog:
    """A ClickLog from four pyarrow columns; `line_of(i)` is the file line of row i, for messages."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(query)
    if len(doc) != n or len(rank) != n or len(clicked) != n:
        raise InputError(what=f"{{query}}, {{doc}}, rank and clicked must have one value per impression; got "
                         f"{n}, {len(doc)}, {len(rank)} and {len(clicked)}", source=source)
    if n == 0:
        raise InputError(what="holds no impression",
                         fix="give one row '{query} {doc} rank clicked' per impression",
                         source=source)

    def at(i: int) -> dict[str, Any]:
        return {"source": source, "line": line_of(i), "query": str(query[i]), "doc": str(doc[i])}

    for name, column in (("{query}", query), ("{doc}", doc), ("rank", rank), ("clicked", clicked)):
        if column.null_count:
            i = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise ParseError(what=f"{name} is missing", fix="give a value in every row",
                             source=source,
                             line=line_of(i))

    def codes(column) -> tuple[np.ndarray, np.ndarray]:
        # Ids are text: 7 and "7" are one id.
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()  # one dictionary for the whole column
        if not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
            column = pc.cast(column, pa.string())
        encoded = pc.dictionary_encode(column)
        return (encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                np.asarray(encoded.dictionary.to_pylist(), dtype=object))

    query_codes, query_vocabulary = codes(query)
    doc_codes, doc_vocabulary = codes(doc)
    rank_array = _integers(rank, "rank", at)
    low = np.flatnonzero(rank_array < 1)
    if low.size:
        raise ParseError(what=f"rank {rank_array[low[0]]} is below 1", fix="give 1-based ranks",
                         value=int(rank_array[low[0]]), **at(int(low[0])))
    clicked_array = _clicks(clicked, at)
    # One code per distinct (query, doc), numbered in (query, doc) order of first codes.
    keys, pair = np.unique(query_codes * len(doc_vocabulary) + doc_codes, return_inverse=True)
    return ClickLog(pair=pair.astype(np.int64).reshape(-1), rank=rank_array, clicked=clicked_array,
                    queries=query_vocabulary[keys // len(doc_vocabulary)].astype(str),
                    docs=doc_vocabulary[keys % len(doc_vocabulary)].astype(str), source=source)


def _first_bad(values: list, good: Callable[[object], bool]) -> int:
    return next(i for i, value in enumerate(values) if not good(value))


def _integers(column, name: str, at: Callable[[int], dict[str, Any]]) -> np.ndarray:
    """A column of whole numbers as int64 (text such as "3" is read)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_integer(column.type):
        return column.to_numpy(zero_copy_only=False).astype(np.int64)
    if pa.types.is_floating(column.type):
        values = column.to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(~np.isfinite(values) | (values != np.round(values)))
        if bad.size:
            raise ParseError(what=f"{name} {values[bad[0]]!r} is not an integer",
                             fix="give whole numbers",
                             value=values[bad[0]], **at(int(bad[0])))
        return values.astype(np.int64)
    try:
        return pc.cast(column, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        values = column.to_pylist()

        def whole(value: object) -> bool:
            try:
                int(str(value))
                return True
            except ValueError:
                return False

        i = _first_bad(values, whole)
        raise ParseError(what=f"{name} {literal(repr(str(values[i])[:40]))} is not an integer",
                         fix="give whole numbers", value=values[i], **at(i)) from None


def _clicks(column, at: Callable[[int], dict[str, Any]]) -> np.ndarray:
    """A click column as bool: 0/1, or true/false as text."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_boolean(column.type):
        return column.to_numpy(zero_copy_only=False).astype(bool)
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        lowered = pc.utf8_lower(column)
        known = pc.is_in(lowered, value_set=pa.array(["0", "1", "false",
                                                      "true"])).to_numpy(zero_copy_only=False)
        if not known.all():
            i = int(np.flatnonzero(~known)[0])
            raise ParseError(what=f"clicked {literal(repr(str(column[i])[:40]))} is not 0 or 1",
                             fix="give 1 for a click, 0 for none", value=str(column[i]), **at(i))
        return pc.is_in(lowered, value_set=pa.array(["1", "true"])).to_numpy(zero_copy_only=False)
    values = _integers(column, "clicked", at)
    bad = np.flatnonzero((values != 0) & (values != 1))
    if bad.size:
        i = int(bad[0])
        raise ParseError(what=f"clicked {values[i]} is not 0 or 1",
                         fix="give 1 for a click, 0 for none",
                         value=int(values[i]), **at(i))
    return values == 1


_COLUMNS = ["query", "doc", "rank", "clicked"]

# The formats read_clicks reads (``trec``: the whitespace text file).
ClickLogFormat = Literal["trec", "csv", "tsv", "jsonl", "parquet"]
_BLANKS = bytes.maketrans(b"\t\r\f\v", b"    ")


def _whitespace_columns(data: bytes, source: str):
    """The four columns of a whitespace-separated log, and row -> file line.

    Blanks are squeezed to one space, so pyarrow's CSV reader parses the
    lines in one go; a line without four fields is then found and named by a
    walk over the lines (only when pyarrow refuses the file).
    """
    import re

    import pyarrow as pa
    import pyarrow.csv as pacsv

    squeezed = data.translate(_BLANKS)
    # Most logs are written with one space or tab between fields: then
    # nothing is left to squeeze, and the regular expressions are skipped.
    if (b"  " in squeezed or b"\n " in squeezed or b" \n" in squeezed or squeezed.startswith(b" ")
            or squeezed.endswith(b" ")):
        squeezed = re.sub(rb" +", b" ", squeezed)
        squeezed = re.sub(rb"(?m)^ | $", b"", squeezed)
    try:
        table = pacsv.read_csv(
            pa.py_buffer(squeezed),
            read_options=pacsv.ReadOptions(column_names=_COLUMNS),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                             ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={name: pa.string()
                                                               for name in _COLUMNS},
                                                 strings_can_be_null=False))
    except pa.ArrowInvalid:
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            fields = line.split()
            if fields and len(fields) != 4:
                raise ParseError(what=f"has {len(fields)} fields", source=source, line=number,
                                 fix="give four per line: {query} {doc} rank clicked, e.g. 'q1 d7 3 0'") from None
        raise ParseError(what="cannot be read as lines '{query} {doc} rank clicked'",
                         source=source) from None
    lines_cache: list[np.ndarray] = []

    def line_of(i: int) -> int:
        # Only for messages: the file line of the i-th non-blank line.
        if not lines_cache:
            lines_cache.append(np.array([number for number, line in enumerate(data.splitlines(), 1)
                                         if line.strip()], dtype=np.int64))
        return int(lines_cache[0][i])

    return table, line_of


def read_clicks(path, format: "ClickLogFormat | None" = None, *, query: str = "query",
                doc: str = "doc",
                rank: str = "rank", clicked: str = "clicked") -> ClickLog:
    """Read a click log: one impression per row, ``query doc rank clicked``.

    Parameters
    ----------
    path : str or os.PathLike
        A whitespace-separated text file of four columns (any extension but
        those below; ``.gz`` is decompressed), or a CSV, TSV, JSON Lines or
        Parquet table (by extension, or `format`).
    format : {"trec", "csv", "tsv", "jsonl", "parquet"}, optional
        ``trec`` here means the whitespace text file.
    query, doc, rank, clicked : str
        Column names of a table.

    Raises
    ------
    rankproof.errors.ParseError
        Naming the file and line for a missing file, a line without four
        fields, a rank that is not a positive integer, a click that is not 0/1.
    """
    from ..io.files import load_text
    from ..io.formats import What, format_of, read_table

    source = str(path)
    fmt = format_of(path, format)
    if fmt == "trec":
        data = load_text(path, source, what="click log", label="click log",
                         binary_hint=lambda _: "give a text file with lines 'query doc rank clicked'",
                         encoding_fix=lambda _: "re-save it as UTF-8")
        table, line_of = _whitespace_columns(data, source)
        if table.num_rows == 0:
            raise ParseError(what="holds no impression",
                             fix="give lines '{query} {doc} rank clicked'", source=source)
        return _build(*(table.column(name) for name in _COLUMNS), source=source, line_of=line_of)
    what = What(what="click log", unit="impression", units="impressions", example_value=1)
    named = {"query": query, "doc": doc, "rank": rank, "clicked": clicked}
    table, table_lines, source = read_table(path, fmt, named, what)

    def table_line(i: int) -> int | None:
        return int(table_lines[i]) if table_lines is not None else None

    return _build(*(table.column(named[role]) for role in _COLUMNS), source=source,
                  line_of=table_line)


@dataclasses.dataclass(frozen=True)
class PBMFit:
    """A fitted position-based model.

    Attributes
    ----------
    examination : float array, theta of ranks 1..R, normalised to theta_1 = 1
    attractiveness : float array, alpha of each (query, doc) pair, scaled by
        the same factor (so examination[r] * attractiveness[p] is the fitted
        click probability)
    queries, docs : str arrays, the pair of each attractiveness
    impressions, clicks : int, of the log
    iterations : int, EM iterations run
    converged : bool, the largest change of theta in the last iteration was
        below the tolerance
    log_likelihood : float, of the log under the fitted model
    source : str
    """

    examination: np.ndarray
    attractiveness: np.ndarray
    queries: np.ndarray
    docs: np.ndarray
    impressions: int
    clicks: int
    iterations: int
    converged: bool
    log_likelihood: float
    tolerance: float
    source: str

    def to_dict(self) -> dict:
        """What ``rankproof fit-pbm`` writes: the discount (the normalised
        examination vector) and how it was fitted."""
        values = [float(v) for v in self.examination]
        return {
            "model": "pbm",
            "discount": values,
            "normalised": "examination probability of rank r divided by that of rank 1",
            "source": self.source,
            "impressions": self.impressions,
            "clicks": self.clicks,
            "pairs": int(len(self.attractiveness)),
            "iterations": self.iterations,
            "converged": self.converged,
            "tolerance": self.tolerance,
            "log_likelihood": self.log_likelihood,
        }

    def write(self, path: "str | os.PathLike[str]") -> None:
        """Write :meth:`to_dict` as JSON, atomically (a temporary file renamed)."""
        from ..report.output import write_output

        write_output(json_text(self.to_dict(), indent=2) + "\n", path)


def _checked_log(clicks, max_iterations, tolerance, max_rank):
    """The impressions :func:`fit_pbm` fits (those within `max_rank`), its arguments checked:
    (pair, rank, clicked, number of ranks, impressions per rank, clicks per rank)."""
    if not isinstance(clicks, ClickLog):
        raise InputError(what="fit_pbm takes a ClickLog",
                         fix="build one with read_clicks(path) or ClickLog.from_arrays")
    if (isinstance(max_iterations, bool) or not isinstance(max_iterations, int) or max_iterations
        < 1):
        raise InputError(what=f"max_iterations must be an int of at least 1; got {literal(repr(max_iterations))}",
                         value=max_iterations)
    if not (isinstance(tolerance, (int, float)) and tolerance > 0):
        raise InputError(what=f"tolerance must be a positive number; got {literal(repr(tolerance))}", value=tolerance)
    pair, rank, clicked = clicks.pair, clicks.rank, clicks.clicked
    if max_rank is not None:
        if isinstance(max_rank, bool) or not isinstance(max_rank, int) or max_rank < 1:
            raise InputError(what=f"max_rank must be an int of at least 1; got {literal(repr(max_rank))}", value=max_rank)
        inside = rank <= max_rank
        pair, rank, clicked = pair[inside], rank[inside], clicked[inside]
    num_ranks = int(rank.max(initial=0))
    # Ranks are checked against the data before any array of num_ranks is made: a
    # rank of 10^8 in a two-line log is a gap, not 800 MB of counts.
    present = np.unique(rank)
    unseen = np.flatnonzero(present != np.arange(1, len(present) + 1))
    if unseen.size or len(present) < num_ranks:
        missing = int(unseen[0]) + 1 if unseen.size else len(present) + 1
        raise InputError(what=f"no impression at rank {missing} (of ranks 1 to {num_ranks}), so its "
                         "examination is unknown", fix="pass max_rank (--max-rank) below it",
                         source=clicks.source)
    shown = np.bincount(rank, minlength=num_ranks + 1)[1:]
    clicks_at = np.bincount(rank, weights=clicked, minlength=num_ranks + 1)[1:]
    if clicks_at[0] == 0:
        raise InputError(what="no click at rank 1, so examination cannot be normalised to rank 1",
                         fix="give a log with clicks at rank 1", source=clicks.source)
    return pair, rank, clicked, num_ranks, shown, clicks_at


def fit_pbm(clicks: ClickLog, *, max_iterations: int = 1000, tolerance: float = 1e-7,
            max_rank: int | None = None) -> PBMFit:
    """Fit the position-based click model by EM (see the module docstring).

    Parameters
    ----------
    clicks : ClickLog
    max_iterations : int
        Stop after this many EM iterations.
    tolerance : float
        Stop when no examination probability (normalised to rank 1) moves
        by more than this in one iteration.
    max_rank : int, optional
        Impressions below this rank are left out (every rank by default).

    Returns
    -------
    PBMFit

    Raises
    ------
    rankproof.errors.InputError
        When a rank from 1 to the deepest has no impression (its examination
        is unknown; lower `max_rank`), or rank 1 has no click (nothing to
        normalise by).

    Examples
    --------
    One document shown 4 times at rank 1 (2 clicks) and 4 times at rank 2
    (1 click): the model reproduces both click rates, 0.5 and 0.25, so rank 2
    is examined half as often as rank 1.

    >>> log = ClickLog.from_arrays(["q"] * 8, ["d"] * 8, [1, 1, 1, 1, 2, 2, 2, 2], [1, 1, 0, 0, 1, 0, 0, 0])
    >>> fit = fit_pbm(log)
    >>> fit.examination.round(4).tolist(), fit.converged
    ([1.0, 0.5], True)
    >>> round(float(fit.examination[1] * fit.attractiveness[0]), 4)   # the click rate at rank 2
    0.25
    """
    pair, rank, clicked, num_ranks, shown, clicks_at = _checked_log(clicks, max_iterations,
                                                                    tolerance,
                                                                    max_rank)

    # Impressions of one (pair, rank) share their E-step: group them into cells.
    num_pairs = len(clicks.queries)
    cell_key = pair * (num_ranks + 1) + rank
    cells, cell_of = np.unique(cell_key, return_inverse=True)
    cell_pair = cells // (num_ranks + 1)
    cell_rank0 = cells % (num_ranks + 1) - 1
    cell_n = np.bincount(cell_of, minlength=len(cells)).astype(np.float64)
    cell_c = np.bincount(cell_of, weights=clicked, minlength=len(cells))
    cell_miss = cell_n - cell_c
    pair_n = np.bincount(cell_pair, weights=cell_n, minlength=num_pairs)
    rank_n = shown.astype(np.float64)

    # Start: examination from the click rate per rank, attractiveness 0.5.
    theta = np.clip(clicks_at / shown / (clicks_at / shown).max(), _EPS, 1 - _EPS)
    alpha = np.full(num_pairs, 0.5)
    iterations, converged = 0, False
    for iterations in range(1, max_iterations + 1):
        t = theta[cell_rank0]
        a = alpha[cell_pair]
        missed = cell_miss / (1.0 - t * a)
        examined = cell_c + missed * t * (1.0 - a)
        attractive = cell_c + missed * (1.0 - t) * a
        new_theta = np.clip(np.bincount(cell_rank0, weights=examined, minlength=num_ranks) / rank_n,
                            _EPS, 1 - _EPS)
        alpha = np.clip(np.bincount(cell_pair, weights=attractive, minlength=num_pairs)
                        / np.maximum(pair_n, 1),
                        _EPS, 1 - _EPS)
        change = float(np.abs(new_theta / new_theta[0] - theta / theta[0]).max())
        theta = new_theta
        if change < tolerance:
            converged = True
            break
    p = theta[cell_rank0] * alpha[cell_pair]
    log_likelihood = float((cell_c * np.log(p) + cell_miss * np.log1p(-p)).sum())
    scale = theta[0]
    return PBMFit(examination=theta / scale, attractiveness=alpha * scale, queries=clicks.queries,
                  docs=clicks.docs, impressions=int(len(rank)), clicks=int(clicked.sum()),
                  iterations=iterations,
                  converged=converged, log_likelihood=log_likelihood, tolerance=float(tolerance),
                  source=clicks.source)
