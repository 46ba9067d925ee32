"""One file of a log read out of core: its format, its size, and its rows in batches.

A :class:`Log` names a Parquet, CSV, TSV or JSON Lines file, the columns to read
and the user column. It says how large the file's Arrow columns would be
(from Parquet's metadata alone, or a text file's size) and yields the file as
pyarrow Tables of bounded size: Parquet row groups (in batches when a group is
larger than a part), CSV and TSV blocks, JSON Lines blocks of whole lines
(:mod:`rankproof.frontdoors.jsonl_log`). :mod:`rankproof.frontdoors.outofcore`
cuts those batches into parts of whole users.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..errors import InputError, ParseError, literal
from ..io.formats import formats_for, named_format

__all__ = ["Log"]


@dataclass(frozen=True)
class Log:
    """One file of a log: its path, its format (parquet, csv or tsv), the columns to read."""

    path: str
    format: str
    columns: tuple[str, ...]
    user: str
    # Bytes of text read at once at most: pyarrow's CSV reader reads up to 32 blocks ahead,
    # so the budget sets it (see rankproof.frontdoors.budget.text_block).
    block: int = 1 << 22

    @classmethod
    def of(cls, path, columns: Sequence[str], user: str, format: str | None = None) -> "Log":
        name = str(path)
        if format is None:
            format = named_format(name, "out_of_core") or ""
        if format not in formats_for("out_of_core"):
            raise InputError(what=f"out-of-core evaluation reads Parquet, CSV, TSV and JSON Lines files; not "
                                  f"{literal(name)}",
                             fix="convert it to Parquet or CSV, or evaluate it in memory")
        if not os.path.isfile(name):
            raise ParseError(source=name, what="does not exist (or is not a file)",
                             fix="check the path")
        return cls(name, format, tuple(dict.fromkeys(c for c in columns if c is not None)), user)

    def rows(self) -> int | None:
        """Rows in the file (Parquet's metadata), None for text files."""
        if self.format != "parquet":
            return None
        return self._parquet().metadata.num_rows

    def size(self) -> int:
        """The input's estimated in-memory (Arrow) size, bytes: a Parquet file's from its
        metadata; a text file's size and half again."""
        if self.format != "parquet":
            return int(os.path.getsize(self.path) * 1.5)
        # From the metadata alone: fixed-width columns by their width, others by their
        # uncompressed Parquet size (about Arrow's: the bytes and a 4-byte length each).
        handle = self._parquet()
        meta, schema = handle.metadata, handle.schema_arrow
        total = 0
        for name in (c for c in self.columns if c in schema.names):
            try:
                total += meta.num_rows * schema.field(name).type.byte_width
            except ValueError:  # not fixed width
                index = schema.get_field_index(name)
                # dictionary-encoded text is smaller in Parquet than in Arrow
                total += max(12 * meta.num_rows,
                             sum(meta.row_group(i).column(index).total_uncompressed_size
                                 for i in range(meta.num_row_groups)))
        return total

    def is_integer(self) -> bool:
        """Is the user column integer-typed (Parquet only: text files hold no type)?"""
        if self.format != "parquet":
            return False
        import pyarrow as pa

        schema = self._parquet().schema_arrow
        return self.user in schema.names and pa.types.is_integer(schema.field(self.user).type)

    def _parquet(self):
        """The Parquet file opened, or a ParseError naming it (empty, truncated, not Parquet)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(self.path)
        except (pa.ArrowException, OSError) as error:
            raise self._unreadable(error) from None

    def _unreadable(self, error: Exception) -> ParseError:
        first = " ".join(str(error).split())[:200]
        return ParseError(source=self.path, what=f"cannot be read as Parquet ({literal(first)})",
                          fix="check that the file is a whole Parquet file (not truncated, not another format)")

    def batches(self, rows: int) -> Iterator:
        """The file as pyarrow Tables of about `rows` rows (Parquet) or one CSV block each."""
        if self.format == "parquet":
            import pyarrow as pa

            try:
                yield from self._parquet_batches(rows)
            except (pa.ArrowException, OSError) as error:   # a damaged page, found when it is read
                raise self._unreadable(error) from None
            return
        if self.format == "jsonl":
            from .jsonl_log import jsonl_batches

            yield from jsonl_batches(self.path, self.columns, self.block)
            return
        yield from self._text_batches(rows)

    def _parquet_batches(self, rows: int) -> Iterator:
        import pyarrow as pa

        handle = self._parquet()
        missing = [c for c in self.columns if c not in handle.schema_arrow.names]
        if missing:
            raise ParseError(source=self.path, what=f"has no column {literal(repr(missing[0]))}",
                             fix=f"its columns: {literal(', '.join(handle.schema_arrow.names))}")
        meta = handle.metadata
        for index in range(meta.num_row_groups):
            if meta.row_group(index).num_rows > 4 * max(rows, 1):
                # A row group too large to read whole: in batches, with a reader of its own (one
                # reader over the file keeps what it decoded of the row groups before: 31 MB grew
                # to 113 MB of Arrow memory over ten row groups of 1M rows).
                for batch in handle.iter_batches(batch_size=rows, row_groups=[index],
                                                 columns=list(self.columns)):
                    yield pa.Table.from_batches([batch])
                continue
            group = handle.read_row_group(index, columns=list(self.columns))
            for start in range(0, group.num_rows, max(1, rows)):
                yield group.slice(start, rows)
            del group

    def _text_batches(self, rows: int) -> Iterator:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        # As the in-memory reader: every named column as text, no null spellings.
        convert = pacsv.ConvertOptions(column_types={c: pa.string() for c in self.columns},
                                       include_columns=list(self.columns), null_values=[],
                                       strings_can_be_null=False, quoted_strings_can_be_null=False)
        parse = pacsv.ParseOptions(delimiter="," if self.format == "csv" else "\t",
                                   ignore_empty_lines=True)
        block = int(min(max(rows * 32, 1 << 16), self.block))
        try:
            reader = pacsv.open_csv(self.path, read_options=pacsv.ReadOptions(block_size=block,
                                                                              use_threads=False),
                                    parse_options=parse, convert_options=convert)
            for batch in reader:
                yield pa.Table.from_batches([batch])
        except (pa.ArrowInvalid, pa.ArrowKeyError) as error:
            raise ParseError(source=self.path, what=f"cannot be read as {self.format.upper()}: "
                             f"{literal(str(error).splitlines()[0][:200])}",
                             fix="give a header line naming the columns and one row per line") from None
