"""The id tables of the readers (rankproof._libs.interner) against a Python dict.

A dict that numbers each id the first time it is seen is the reference: the
codes, the ids kept by code, and the merge of one table into another
(``absorb`` + ``renumber``, as a file read in parts is) must agree with it.
The ids cross the table's growth (1024 slots at first) and the 16 bytes a
slot holds of an id, and repeat out of order.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof._libs.interner import Interner, intern_spans, intern_values, renumber


def _first_seen(ids: list[bytes]) -> tuple[list[int], list[bytes]]:
    numbering: dict[bytes, int] = {}
    codes = [numbering.setdefault(one, len(numbering)) for one in ids]
    return codes, list(numbering)


def _ids(count: int, seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    stems = [b"d", b"http://example.org/a/very/long/common/prefix/", "é".encode() * 9]
    return [stems[s] + str(n).encode() for s, n in zip(rng.integers(0, 3, count),
                                                        rng.integers(0, 1500, count))]


def _interned(ids: list[bytes], table: Interner) -> np.ndarray:
    data = np.frombuffer(b"".join(ids), dtype=np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(one) for one in ids])]).astype(np.int64)
    codes = np.empty(len(ids), dtype=np.int64)
    intern_spans(data, offsets, table, codes)
    return codes


def _kept(table: Interner) -> list[bytes]:
    arena, starts, lengths = table.vocabulary()
    return [arena[s : s + n] for s, n in zip(starts.tolist(), lengths.tolist())]


def test_strings_take_codes_in_first_appearance_order():
    ids = _ids(6000, seed=1)
    table = Interner(7)
    codes = _interned(ids, table)
    expected_codes, expected_ids = _first_seen(ids)
    assert len(expected_ids) > 1024  # the table grew
    assert codes.tolist() == expected_codes
    assert _kept(table) == expected_ids and len(table) == len(expected_ids)


def test_integers_intern_by_their_bytes():
    values = np.array([7, -3, 7, 2**40, -3, 0], dtype=np.int64)
    codes = np.empty(len(values), dtype=np.int64)
    table = Interner(0)
    intern_values(values, table, codes)
    assert codes.tolist() == [0, 1, 0, 2, 1, 3]
    assert _kept(table) == [v.tobytes() for v in values[[0, 1, 3, 5]]]


def test_a_part_merged_into_another_table_reads_as_one_table():
    first, second = _ids(3000, seed=2), _ids(3000, seed=3)
    tables = Interner(5), Interner(5)
    codes = np.concatenate([_interned(first, tables[0]), _interned(second, tables[1])])
    renumber(codes[len(first) :], tables[0].absorb(tables[1]))
    expected_codes, expected_ids = _first_seen(first + second)
    assert codes.tolist() == expected_codes
    assert _kept(tables[0]) == expected_ids
    # the absorbed part keeps its ids for reading, and refuses to intern more
    assert _kept(tables[1]) == _first_seen(second)[1]
    with pytest.raises(ValueError, match="absorbed into another"):
        _interned([b"x"], tables[1])
    with pytest.raises(ValueError, match="cannot absorb itself"):
        tables[0].absorb(tables[0])
