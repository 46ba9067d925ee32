"""Reading side data (catalogue, training log, item features, user groups) like a log.

Each reader takes a file path (CSV, TSV, JSON Lines or Parquet, chosen by the
extension or `format`, text optionally gzip-compressed) or a table (pyarrow,
pandas or polars), through the same readers and limits as qrels and runs
(:mod:`rankproof.io`): a bad value is refused with one line naming the file,
its line (its row for Parquet and tables), the column and the fix.

- :func:`read_items`: one column of item ids, the catalogue;
- :func:`read_train`: user and item per interaction, an optional count column;
- :func:`read_features`: item and category per row (``Action|Comedy`` is two
  categories; several rows per item add up), and/or numeric columns as a
  feature vector (one row per item);
- :func:`read_groups`: user and group label, one row per user.

Examples
--------
>>> import pyarrow as pa
>>> read_train(pa.table({"user": ["u", "u", "v"], "item": ["a", "b", "a"]})).popularity_map()
{'a': 2, 'b': 1}
>>> sorted(read_features(pa.table({"item": ["a", "b"], "category": ["Action|Comedy", "Drama"]})).categories["a"])
['Action', 'Comedy']
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ..errors import USERS_AND_ITEMS, ParseError, RankproofError, Vocabulary, literal
from ..io.arrow import MissingColumnsError, first_null, missing_error, plain, select_columns
from ..io.checks import Rows, checked_scores, id_columns
from ..io.formats import format_of, read_table
from ..io.what import What
from .categories import CategorySets, category_sets, coded_category_sets
from .side import Features, Groups, Interactions, SideData, summed_counts

__all__ = ["read_items", "read_train", "read_features", "read_groups", "read_side_data"]

_ITEMS = What(what="item catalogue", unit="item", units="items", example_value=1)
_TRAIN = What(what="training log", unit="interaction", units="interactions", example_value=1)
_FEATURES = What(what="item features", unit="item", units="items", example_value=1)
_GROUPS = What(what="user groups", unit="user", units="users", example_value=1)


def _is_path(data: Any) -> bool:
    return isinstance(data, (str, os.PathLike))


def _columns(data: Any, named: dict, what: What, format: "str | None", source: "str | None",
             arguments: "dict | None" = None):
    """``({arg: arrow column}, Rows)`` of a file or table, the named columns only.

    A missing column is named by the reader's own argument (``user=``, ``category=``), not the
    log readers' ``query=`` and ``doc=``.
    """
    lines = None
    try:
        if _is_path(data):
            fmt = format_of(data, format)
            if fmt == "trec":
                raise ParseError(source=str(data),
                                 what=f"is not read as {what.what}: side data is CSV, TSV, "
                                 "JSON Lines or Parquet",
                                 fix="give the file a .csv, .tsv, .jsonl or .parquet extension")
            data, lines, source = read_table(data, fmt, named, what)
        source = source or what.what
        columns, missing = select_columns(data, named, source)
    except MissingColumnsError as error:
        raise reworded(error, arguments or _ARGUMENTS[what.what]) from None
    except RankproofError as error:   # a bad id in a JSON Lines file: "item 2.5", not "query 2.5"
        raise error.in_words_of(words(arguments or _ARGUMENTS[what.what])) from None
    return columns, Rows(source, lines, missing)


# The readers' arguments naming each column ("feature f1" stands for a name of columns=).
_ARGUMENTS = {
    _ITEMS.what: {"query": "item", "doc": "item"},
    _TRAIN.what: {"query": "user", "doc": "item", "count": "count"},
    _FEATURES.what: {"query": "item", "doc": "item", "category": "category"},
    _GROUPS.what: {"query": "user", "doc": "user", "group": "group"},
}


def words(arguments: dict) -> Vocabulary:
    """The words of a side reader's messages: its "query" and "doc" columns are users or items."""
    query, doc = arguments["query"], arguments["doc"]
    article = {"user": "a user", "item": "an item"}
    return Vocabulary(query=query, doc=doc, grade="rating", judgment="row", a_query=article[query],
                      a_doc=article[doc])


def reworded(error: MissingColumnsError, arguments: dict) -> MissingColumnsError:
    """`error` with its missing columns keyed by the side-data reader's arguments (user, item, ...)."""
    missing: dict = {}
    for key, name in error.missing.items():
        missing.setdefault(arguments.get(key, "columns" if key.startswith("feature ") else key),
                           name)
    if error.no_header:
        error.missing = missing
        return error
    return missing_error(error.present, missing, list(missing), error.noun, str(error.source),
                         error.line)


def _text(column) -> np.ndarray:
    """The column's values as text (numpy str)."""
    distinct, codes = _text_codes(column)
    return distinct if codes is None else distinct[codes]


def _text_codes(column) -> tuple[np.ndarray, "np.ndarray | None"]:
    """(each distinct value as text, each row's index into them): each distinct value converted once
    (a training log repeats its users and items: converting every row's id was most of reading it).
    With a null the codes are None and the text is every row's."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io.arrow import numpy_of

    column = plain(column)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    narrow = _narrow_integers(column)
    if narrow is not None:
        return narrow
    encoded = pc.dictionary_encode(column)
    if len(column) == 0 or encoded.indices.null_count:
        text = pc.cast(column, pa.large_string()).to_numpy(zero_copy_only=False)
        return np.asarray(text).astype(str), None
    # Numbers read from their buffers and text through Python lists: Array.to_numpy would import
    # pandas (about 0.3 s of a command that never uses it; io.arrow.numpy_of).
    dictionary, indices = encoded.dictionary, numpy_of(encoded.indices)
    if pa.types.is_integer(dictionary.type) and len(dictionary):
        return _decimal(numpy_of(dictionary)), indices
    distinct = np.array(pc.cast(dictionary, pa.large_string()).to_pylist(), dtype=str)
    return distinct, indices


def _decimal(values: np.ndarray) -> np.ndarray:
    """Integers as decimal text by numpy, without a Python string per id (the same text as
    Arrow's cast), narrowed to the longest id as the cast's array is."""
    wide = values.astype(str)
    return wide.astype(f"<U{int(np.char.str_len(wide).max())}")


# Integer ids spanning at most this many times the rows (or NARROW_FLOOR values) are coded by
# a table over their range, not a hash table: users and items numbered from 0 or 1.
NARROW_SPREAD = 2
NARROW_FLOOR = 1 << 16


def _narrow(column) -> "tuple[np.ndarray, int, int] | None":
    """(the values less the lowest, the lowest, the width of their range) of an int32 or int64
    column without nulls whose values lie close together (see NARROW_SPREAD); None for any other."""
    import pyarrow as pa

    from ..io.arrow import owned

    if column.type not in (pa.int32(), pa.int64()) or column.null_count or len(column) == 0:
        return None
    # Copied from the chunks' buffers (io.arrow.owned): to_numpy would import pandas.
    values = owned(column, np.int64 if column.type == pa.int64() else np.int32)
    lowest, highest = int(values.min()), int(values.max())
    width = highest - lowest + 1
    if width > max(NARROW_SPREAD * len(values), NARROW_FLOOR):
        return None
    if lowest == 0 and values.dtype == np.int64:   # ids numbered from 0: the values themselves
        return values, 0, width
    return np.subtract(values, lowest, dtype=np.int64), lowest, width


def _narrow_integers(column) -> "tuple[np.ndarray, np.ndarray] | None":
    """:func:`_text_codes` of integers in a narrow range (:func:`_narrow`): which values occur,
    counted over their range, and each row's rank among them (the distinct values in increasing
    order, not in order of appearance: the readers sort them as text afterwards anyway)."""
    narrow = _narrow(column)
    if narrow is None:
        return None
    shifted, lowest, width = narrow
    slots = np.flatnonzero(np.bincount(shifted, minlength=width))
    rank = np.zeros(width, dtype=np.int64)
    rank[slots] = np.arange(len(slots), dtype=np.int64)
    return _decimal(slots + lowest), rank[shifted]


def _item_counts(column, counts: "np.ndarray | None"):
    """(Interactions.popularity() or None, a function making every row's item as text) of the
    training log's item column: each distinct item's interactions counted from its code, or
    straight from the values for integers in a narrow range, then the distinct items sorted once
    as text, not every row's. `counts` None: one interaction per row. The distinct items are
    distinct texts, so sorting them permutes their counts."""
    narrow = _narrow(column)
    if narrow is not None:
        shifted, lowest, width = narrow
        present = np.bincount(shifted, minlength=width)
        slots = np.flatnonzero(present)
        per_value = (present.astype(np.int64) if counts is None
                     else summed_counts(shifted, counts, width))
        distinct, per_item = _decimal(slots + lowest), per_value[slots]
        items = lambda: _text(column)   # noqa: E731
    else:
        distinct, codes = _text_codes(column)
        if codes is None:
            return None, lambda: distinct
        per_item = (np.bincount(codes, minlength=len(distinct)).astype(np.int64) if counts is None
                    else summed_counts(codes, counts, len(distinct)))
        items = lambda: distinct[codes]   # noqa: E731
    order = np.argsort(distinct, kind="stable")
    return (distinct[order], per_item[order]), items


def _ids(columns: dict, named: dict, rows: Rows, shown: tuple[str, str]) -> tuple[np.ndarray,
                                                                                  np.ndarray]:
    """The "query" and "doc" columns checked as the ids of a log are, as text (see :func:`_id_codes`)."""
    (query_text, query_codes), (doc_text, doc_codes) = _id_codes(columns, named, rows, shown)
    query = query_text if query_codes is None else query_text[query_codes]
    if doc_text is query_text and doc_codes is query_codes:
        return query, query
    return query, (doc_text if doc_codes is None else doc_text[doc_codes])


def _id_codes(columns: dict, named: dict, rows: Rows, shown: tuple[str, str]):
    """The "query" and "doc" columns checked as the ids of a log are, as text (see :func:`_text_codes`).

    `shown` says what each is in messages ("user", "item", or "" to leave it out of them).
    """
    query, doc = _checked_ids(columns, named, rows, shown)
    query_parts = _text_codes(query)
    # The catalogue, the features and the groups read one column as both: converted once.
    return (query_parts,
            (query_parts if doc is query or named["doc"] == named["query"] else _text_codes(doc)))


def _checked_ids(columns: dict, named: dict, rows: Rows, shown: tuple[str, str]):
    """The "query" and "doc" Arrow columns, checked as the ids of a log are."""
    try:
        query, doc = id_columns(columns, named, rows)
    except RankproofError as error:
        hidden = {field: None for field, label in zip(("query", "doc"), shown) if not label}
        vocabulary = words({"query": shown[0] or shown[1], "doc": shown[1] or shown[0]})
        raise error.replace(**hidden).in_words_of(vocabulary) from None
    rows.query = query if shown[0] else None
    rows.doc = doc if shown[1] else None
    return query, doc


def _labels(column, name: str, rows: Rows, what: str) -> np.ndarray:
    """A text column of labels (group, category): no null, no empty value."""
    row = first_null(plain(column))
    if row >= 0:
        raise ParseError(what=f"no {what} in column {literal(repr(name))} (the value is {rows.missing})",
                         fix=f"give every row a {what}",
                         **rows.fields(row)).in_words_of(USERS_AND_ITEMS)
    text = _text(column)
    empty = np.flatnonzero(np.char.str_len(text) == 0) if text.size else np.zeros(0, dtype=np.int64)
    if empty.size:
        raise ParseError(what=f"the {what} in column {literal(repr(name))} is empty",
                         fix=f"give every row a {what}",
                         **rows.fields(int(empty[0]))).in_words_of(USERS_AND_ITEMS)
    return text


def _category_sets(column, name: str, rows: Rows, separator: str,
                   items: np.ndarray) -> CategorySets:
    """Each item's categories: each row's text split on `separator` (each distinct text split once:
    a column of genres repeats a few combinations), or a list column's values (Parquet, JSON Lines)."""
    import pyarrow as pa

    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        return category_sets(items, _category_lists(column, name, rows))
    distinct, row_text = np.unique(_labels(column, name, rows, "category"), return_inverse=True)
    split = [[part.strip() for part in text.split(separator) if part.strip()]
             for text in distinct.tolist()]
    flat = [label for parts in split for label in parts]
    labels, label_of_part = np.unique(np.asarray(flat, dtype=str), return_inverse=True)
    sizes = np.asarray([len(parts) for parts in split], dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    per_row = sizes[row_text]
    # Row r's entries are its text's parts: label_of_part[starts[text] + 0 .. sizes[text] - 1].
    position = (np.arange(int(per_row.sum()), dtype=np.int64)
                - np.repeat(np.cumsum(per_row) - per_row, per_row))
    entries = label_of_part[np.repeat(starts[row_text], per_row) + position] if flat else position
    return coded_category_sets(items, entries.astype(np.int64),
                               np.repeat(np.arange(len(row_text)), per_row),
                               labels if flat else np.zeros(0, dtype="<U1"))


def _category_lists(column, name: str, rows: Rows) -> list[list[str]]:
    """Each row's categories of a list column, as text; a row without one is refused."""
    parts: list[list[str]] = []
    for row, value in enumerate(column.to_pylist()):
        labels = [str(label).strip() for label in value or () if label is not None
                  and str(label).strip()]
        if not labels:
            raise ParseError(what=f"no category in the list of column {literal(repr(name))}",
                             fix="give every row a category",
                             **rows.fields(row)).in_words_of(USERS_AND_ITEMS)
        parts.append(labels)
    return parts


def read_items(data, *, item: str = "item", format: "str | None" = None,
               source: "str | None" = None) -> np.ndarray:
    """The item catalogue: sorted distinct ids of the `item` column."""
    named = {"query": item, "doc": item}
    columns, rows = _columns(data, named, _ITEMS, format, source)
    ids, _ = _ids(columns, named, rows, ("", "item"))
    return np.unique(ids)


def read_train(data, *, user: "str | None" = "user", item: str = "item", count: "str | None" = None,
               format: "str | None" = None, source: "str | None" = None) -> Interactions:
    """Training interactions; `count` names a column of interactions per row (integers >= 0).

    ``user=None`` reads a popularity table (item, and usually a count): no users, so
    enough for popularity (novelty, ARP, ...) but not for calibration.
    """
    named = {"query": user if user is not None else item, "doc": item}
    if count is not None:
        named["count"] = count
    arguments = None if user is not None else {"query": "item", "doc": "item", "count": "count"}
    columns, rows = _columns(data, named, _TRAIN, format, source, arguments)
    user_column, item_column = _checked_ids(columns, named, rows,
                                            ("user" if user is not None else "", "item"))
    # Each row's ids as text (and its count of 1) only when a measure reads them (the per-user
    # ones): most read the items' counts alone.
    users = (lambda: _text(user_column)) if user is not None else None
    rows_read = len(item_column)
    counts: Any = lambda: np.ones(rows_read, dtype=np.int64)   # noqa: E731
    given = None
    if count is not None:
        values = checked_scores(columns["count"], count, rows)
        bad = np.flatnonzero((values < 0) | (values != np.floor(values)))
        if bad.size:
            raise ParseError(what=f"the count in column {literal(repr(count))} must be an integer >= 0",
                             value=float(values[bad[0]]),
                             fix="give the interactions of each row as a count",
                             **rows.fields(int(bad[0]))).in_words_of(USERS_AND_ITEMS)
        counts = given = values.astype(np.int64)
    popularity, items = _item_counts(item_column, given)
    return Interactions(users, items, counts, rows.source, item_popularity=popularity)


def _vectors(columns: dict, names: Sequence[str], rows: Rows, items: np.ndarray):
    matrix = np.column_stack([checked_scores(columns[f"feature {n}"], n, rows) for n in names])
    order = np.argsort(items, kind="stable")
    twice = np.flatnonzero(items[order][1:] == items[order][:-1])
    if twice.size:
        raise ParseError(what="the item has two feature vectors", fix="give one row per item",
                         **rows.fields(int(order[twice[0] + 1]))).in_words_of(USERS_AND_ITEMS)
    return items[order], matrix[order]


def read_features(data, *, item: str = "item", category: "str | None" = "category",
                  columns: Sequence[str] = (), separator: str = "|", format: "str | None" = None,
                  source: "str | None" = None) -> Features:
    """Item features: categories (`category`, split on `separator`) and/or numeric `columns` as vectors."""
    if category is None and not columns:
        raise ParseError(source=source or _FEATURES.what, what="names no feature column",
                         fix="give category='genres' or columns=['f1', 'f2']")
    named = {"query": item, "doc": item}
    if category is not None:
        named["category"] = category
    named.update({f"feature {name}": name for name in columns})
    found, rows = _columns(data, named, _FEATURES, format, source)
    items, _ = _ids(found, named, rows, ("", "item"))
    categories = None
    if category is not None:
        categories = _category_sets(found["category"], category, rows, separator, items)
    vectors = _vectors(found, columns, rows, items) if columns else None
    return Features(vectors, categories, rows.source)


def read_groups(data, *, user: str = "user", group: str = "group", format: "str | None" = None,
                source: "str | None" = None) -> Groups:
    """Each user's group (one row per user)."""
    named = {"query": user, "doc": user, "group": group}
    columns, rows = _columns(data, named, _GROUPS, format, source)
    users, _ = _ids(columns, named, rows, ("user", ""))
    labels = _labels(columns["group"], group, rows, "group")
    order = np.argsort(users, kind="stable")
    twice = np.flatnonzero(users[order][1:] == users[order][:-1])
    if twice.size:
        raise ParseError(what="the user is in two groups", fix="give one row per user",
                         **rows.fields(int(order[twice[0] + 1]))).in_words_of(USERS_AND_ITEMS)
    return Groups(users[order], labels[order], rows.source)


def read_side_data(*, items=None, train=None, features=None, groups=None) -> SideData:
    """Read each side data given (a path or a table) with the readers' default column names."""
    return SideData(
        items=read_items(items) if items is not None else None,
        train=read_train(train) if train is not None else None,
        features=read_features(features) if features is not None else None,
        groups=read_groups(groups) if groups is not None else None,
    )
