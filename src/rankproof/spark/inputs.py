"""Spark inputs: qrels and run as Parquet files or Spark DataFrames, and the packed table both become.

Each input is first described in the driver (:func:`describe`): a Parquet
file or directory on a path this machine can read is opened with pyarrow
(its schema and row groups, no data), so a missing column or a file that is
not Parquet is refused in one line before the JVM starts. Then
:func:`packed` turns both inputs into one Spark DataFrame of
(bucket, side, blob) rows (:mod:`rankproof.spark.pack`): Parquet read here
is read by rankproof's Python in the workers, one row group per id of a
``spark.range``; a DataFrame (or a path only Spark can read, ``s3a://``,
``hdfs://``) goes through ``mapInArrow``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError, ParseError, literal
from .pack import (PACKED_SCHEMA, QRELS_SIDE, ROW, RUN_SIDE, Packer, RowGroup, pack_frame,
                   read_row_groups)

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["Columns", "Table", "describe", "group_bounds", "packed", "QRELS_SIDE", "RUN_SIDE"]

SIGNED = ("INT32", "INT64")  # physical types of the ids whose statistics cut ranges


@dataclass(frozen=True)
class Columns:
    """The caller's column names (as in :func:`rankproof.evaluate_frame`).

    ``grade=None``: every qrels row is relevant with grade 1 (a recommender's
    truth). ``score=None``: the run's rows are in rank order within each
    query, best first (their order in the input).
    """

    query: str = "query"
    doc: str = "doc"
    grade: str | None = "grade"
    score: str | None = "score"

    def of(self, side: int) -> tuple[str, ...]:
        """The columns one side's rows carry (the qrels always have a grade column)."""
        if side == QRELS_SIDE:
            return (self.query, self.doc, self.grade or "grade")
        return (self.query, self.doc) + ((self.score,) if self.score is not None else ())


@dataclass
class Table:
    """One input as the driver knows it: Parquet files read here (`files`: path and
    rows per row group, in name order), or a Spark DataFrame (`frame`), or a path
    only Spark reads (`remote`)."""

    source: str
    side: int
    columns: list[str]
    query_kind: str
    files: list[tuple[str, list[int]]] = field(default_factory=list)
    # Per file, each row group's (min, max) query id from its statistics (integer ids only;
    # None where unknown): what :func:`rankproof.spark.ranges.plan_ranges` cuts ranges by.
    bounds: list[list[tuple[int, int] | None]] = field(default_factory=list)
    frame: Any = None
    remote: str | None = None

    @property
    def rows(self) -> int | None:
        return sum(sum(groups) for _, groups in self.files) if self.files else None


def _parquet_files(path: str) -> list[str]:
    """The Parquet files of a file or directory, in name order (hidden and ``_`` files skipped, as Spark does)."""
    if os.path.isfile(path):
        return [path]
    found = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [os.path.join(root, n) for n in sorted(names) if not n.startswith(("_", "."))]
    if not found:
        raise InputError(source=path, what="holds no Parquet file",
                         fix="give a Parquet file or directory")
    return found


def _kind(type_name: str) -> str:
    """The kind of an id column's type: integer, text, or the type itself."""
    lowered = type_name.lower()
    if lowered in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                   "tinyint",
                   "smallint", "int", "bigint", "byte", "short", "integer", "long"):
        return "integer"
    if lowered in ("string", "large_string", "utf8", "large_utf8"):
        return "text"
    return lowered


def _check_columns(present: list[str], wanted: dict[str, str | None], source: str) -> None:
    for role, name in wanted.items():
        if name is not None and name not in present:
            listing = ", ".join(present[:10]) + (" ..." if len(present) > 10 else "")
            argument = "{" + role + "}" if role in ("query", "doc", "grade") else role
            raise ParseError(source=source,
                             what=f"no column {literal(repr(name))} (named by {argument}=)",
                             fix=f"the columns are {literal(listing)}; pass {argument}=NAME")


def _signed(logical: Any) -> bool:
    """Whether a Parquet integer column's logical type orders its statistics as signed integers."""
    if logical.type == "NONE":
        return True
    return logical.type == "INT" and bool(json.loads(logical.to_json()).get("isSigned"))


def group_bounds(metadata: Any, column: str) -> list[tuple[int, int] | None]:
    """Each row group's (min, max) of the integer column `column`, from the file's
    statistics; None for a group whose statistics are missing or that holds a null id
    (an empty group: (1, 0), which no range meets)."""
    position = next((j for j in range(metadata.num_columns)
                     if metadata.row_group(0).column(j).path_in_schema == column), None) \
        if metadata.num_row_groups else None
    bounds: list[tuple[int, int] | None] = []
    for i in range(metadata.num_row_groups):
        group = metadata.row_group(i)
        if not group.num_rows:
            bounds.append((1, 0))
            continue
        chunk = group.column(position) if position is not None else None
        stats = chunk.statistics if chunk is not None and chunk.is_stats_set else None
        if (chunk is None or stats is None or chunk.physical_type not in SIGNED
            or not stats.has_min_max
                or stats.null_count is None or stats.null_count or not _signed(stats.logical_type)):
            bounds.append(None)
        else:
            bounds.append((int(stats.min), int(stats.max)))
    return bounds


def _describe_path(path: str, wanted: dict[str, str | None], what: str, side: int) -> Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = os.path.basename(path.rstrip("/")) or path
    files = []
    bounds = []
    kind = None
    for name in _parquet_files(path):
        shown = source if name == path else os.path.relpath(name, os.path.dirname(path.rstrip("/")))
        try:
            metadata = pq.ParquetFile(name)
        except (pa.ArrowException, OSError) as error:  # not Parquet, no permission: one line
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
            raise InputError(source=shown, what=f"cannot be read as Parquet ({literal(reason)})",
                             fix=f"give the {what} as a Parquet file or directory") from None
        schema = metadata.schema_arrow
        _check_columns(schema.names, wanted, shown)
        kind = kind or _kind(str(schema.field(wanted["query"]).type))
        # Absolute: the executors do not run in the driver's directory (as Spark's own reader
        # resolves it).
        files.append((os.path.abspath(name), [metadata.metadata.row_group(i).num_rows
                                              for i in range(metadata.num_row_groups)]))
        if _kind(str(schema.field(wanted["query"]).type)) == "integer":
            try:
                bounds.append(group_bounds(metadata.metadata, str(wanted["query"])))
            # statistics this pyarrow cannot read: no ranges, the hashed buckets then
            except Exception:
                bounds.append([None] * metadata.num_row_groups)
    return Table(source=source, side=side, columns=list(wanted.values()), query_kind=kind or "text",  # type: ignore[arg-type]
                 files=files, bounds=bounds if len(bounds) == len(files) else [])


def describe(data: Any, wanted: dict[str, str | None], what: str) -> Table:
    """`data` (a Spark DataFrame, or a Parquet file or directory) as the driver knows it,
    and the name messages give it; a missing column is refused, listing those there are.
    A local path is read with pyarrow only (no JVM is needed)."""
    side = QRELS_SIDE if what == "qrels" else RUN_SIDE
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        if "://" in path:
            return Table(source=os.path.basename(path.rstrip("/")) or path, side=side, columns=[],
                         query_kind="",
                         remote=path)
        if not os.path.exists(path):
            raise InputError(source=path, what="does not exist",
                             fix=f"give the {what} as a Parquet file or directory")
        return _describe_path(path, wanted, what, side)
    from pyspark.sql import DataFrame

    if not isinstance(data, DataFrame):
        raise InputError(what=f"the {what} must be a Spark DataFrame or the path of a Parquet file or directory",
                         fix=f"got {type(data).__name__}")
    _check_columns(data.columns, wanted, what)
    return Table(source=what, side=side, columns=data.columns,
                 query_kind=_kind(data.schema[str(wanted["query"])].dataType
                                                                              .simpleString()),
                 frame=data)


def _read_remote(session: "SparkSession", table: Table, wanted: dict[str, str | None]) -> None:
    """A path only Spark can read, read by Spark (its columns checked as a DataFrame's)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        frame = session.read.parquet(str(table.remote))
    # not Parquet, no permission, ...: one line, not a JVM trace
    except (PySparkException, Py4JJavaError) as error:
        reason = (str(error).strip().splitlines()[0][:300] if str(error).strip()
                  else type(error).__name__)
        raise InputError(source=table.remote,
                         what=f"Spark cannot read it as Parquet ({literal(reason)})",
                         fix="give a Parquet file or directory") from None
    _check_columns(frame.columns, wanted, table.source)
    table.frame, table.columns = frame, frame.columns
    table.query_kind = _kind(frame.schema[str(wanted["query"])].dataType.simpleString())


def packed(session: "SparkSession", tables: list[Table], wanted: list[dict[str, str | None]],
           columns: Columns,
           buckets: list[int]) -> "DataFrame":
    """Both inputs as one DataFrame of (bucket, side, blob) rows (:mod:`rankproof.spark.pack`)."""
    for table, names in zip(tables, wanted):
        if table.remote is not None and table.frame is None:
            _read_remote(session, table, names)
    # 7 and "7" are one id: hashed as text
    as_text = len({table.query_kind for table in tables}) > 1
    parts = []
    groups: list[RowGroup] = []
    for table in tables:
        keep = columns.of(table.side)
        ones = keep[-1] if table.side == QRELS_SIDE and columns.grade is None else None
        packer = Packer(side=table.side, key=columns.query, columns=keep, buckets=tuple(buckets),
                        as_text=as_text,
                        ones=ones)
        if table.frame is not None:
            from pyspark.sql import functions as F

            frame = table.frame.select(*[c for c in keep if c != ones],
                                       F.monotonically_increasing_id().alias(ROW))
            parts.append(frame.mapInArrow(pack_frame(packer), PACKED_SCHEMA))
            continue
        first = 0
        for path, sizes in table.files:
            for index, size in enumerate(sizes):
                groups.append(RowGroup(path=path, index=index, first_row=first, packer=packer))
                first += size
    if groups:
        tasks = min(len(groups), max(2, 2 * session.sparkContext.defaultParallelism))
        parts.append(session.range(0, len(groups), 1, tasks).mapInArrow(read_row_groups(groups),
                                                                        PACKED_SCHEMA))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result
