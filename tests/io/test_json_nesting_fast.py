"""The numpy walk of long JSON lines (io.files) and the one-pass load of saved results (stats.saved)
give what the byte-by-byte walk and the value-by-value checks gave."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from rankproof.errors import InputError, ParseError
from rankproof.io.files import check_json_nesting
from rankproof.io.limits import MAX_NESTING_DEPTH
from rankproof.stats.saved import results_from_document


def walk(text: bytes, limit: int) -> bool:
    """The byte-by-byte walk, as io.files wrote it (strings skipped, escapes inside them)."""
    depth, inside, escaped = 0, False, False
    for byte in text:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def refused(text: bytes) -> bool:
    try:
        check_json_nesting(text, "x.json")
    except ParseError:
        return True
    return False


def test_numpy_walk_agrees_with_the_byte_walk_on_random_text():
    limit = MAX_NESTING_DEPTH.value()
    rng = random.Random(0)
    for trial in range(600):
        alphabet = b'[[[{{]]}"a ,' + (b"\\" if trial % 2 else b"")
        text = bytes(rng.choice(alphabet) for _ in range(rng.randint(limit, 4 * limit)))
        assert refused(text) == walk(text, limit), text


def test_a_string_across_the_chunk_boundary_is_skipped():
    # 16 MiB chunks: brackets inside a string straddle the first boundary; the real depth is the limit + 1.
    limit = MAX_NESTING_DEPTH.value()
    head = b'{"a": [' + b"1," * ((1 << 23) - 10) + b'"' + b"[" * 200 + b'" , '
    assert len(head) > 1 << 24
    assert not refused(head + b"[" * (limit - 2) + b"]" * (limit - 2) + b"]}")
    assert refused(head + b"[" * (limit - 1) + b"]" * (limit - 1) + b"]}")


def document(values: list) -> dict:
    return {"protocol_text": "gain=linear", "runs": {"run": {"mean": {"rr": 0.5},
                                                             "per_query": {f"q{i}": {"rr": v}
                                                                           for i, v in enumerate(values)}}}}


def test_saved_values_load_in_one_pass_with_nulls_as_nan():
    loaded = results_from_document(document([1, 0.5, None, 0.25]))[0]
    assert np.array_equal(loaded.values("rr"), [1.0, 0.5, np.nan, 0.25], equal_nan=True)


@pytest.mark.parametrize("bad, words", [("0.5", "q1, rr: expected a number or null"), (True, "q1, rr: expected"),
                                        (float("nan"), "q1, rr: nan is not a finite"),
                                        (1e300, "q1, rr: 1e+300 is not a finite")])
def test_a_bad_saved_value_is_still_named(bad, words):
    with pytest.raises(InputError, match=words.replace("+", r"\+")):
        results_from_document(json.loads(json.dumps(document([0.1, bad, 0.2]))))
