"""Interning string ids to integer codes.

Ids are held once, in a sorted vocabulary; rows hold integer codes into it.
Because the vocabulary is sorted by code point (the same order as ``strcmp``
on UTF-8 bytes), comparing codes compares ids, which the ``docid`` tie policy
relies on.
"""

from __future__ import annotations

import numpy as np

__all__ = ["intern", "merge_vocabularies", "same_ids"]


def intern(values) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(codes, vocabulary)`` with ``vocabulary[codes] == values``.

    Parameters
    ----------
    values : array-like of str
        Ids in row order. Non-string ids (ints from a DataFrame, say) are
        turned into their ``str`` form first, so ``7`` and ``"7"`` are one id.

    Returns
    -------
    codes : numpy.ndarray of int64
    vocabulary : numpy.ndarray of str, sorted, unique

    Examples
    --------
    >>> codes, vocab = intern(["q2", "q10", "q2"])
    >>> vocab.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    array = np.asarray(values)
    if array.dtype.kind != "U":
        array = array.astype(str)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype="<U1")
    vocabulary, codes = np.unique(array, return_inverse=True)
    return codes.astype(np.int64, copy=False).reshape(-1), vocabulary


def sorted_vocabulary(vocabulary: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The vocabulary sorted and without repeats, and `codes` renumbered into it.

    Qrels and Run keep their ids sorted: alignment merges vocabularies by
    binary search and walks queries in code order, and ``ties=docid`` reads
    doc codes as id order. Readers intern into sorted vocabularies already
    (then this is one comparison pass); a vocabulary given by hand is sorted
    here.

    >>> vocabulary, codes = sorted_vocabulary(np.array(["q2", "q10", "q2"]), np.array([0, 1, 2]))
    >>> vocabulary.tolist(), codes.tolist()
    (['q10', 'q2'], [1, 0, 1])
    """
    if len(vocabulary) < 2 or bool((vocabulary[1:] > vocabulary[:-1]).all()):
        return vocabulary, codes
    merged, inverse = np.unique(vocabulary, return_inverse=True)
    return merged, inverse.reshape(-1).astype(np.int64)[codes]


def merge_vocabularies(*vocabularies: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Merge sorted vocabularies into one and map each old code to a new one.

    Returns
    -------
    merged : numpy.ndarray of str, sorted, unique
    remaps : list of numpy.ndarray of int64
        ``remaps[i][old_code]`` is the code in ``merged`` of
        ``vocabularies[i][old_code]``.
    """
    vocabularies = tuple(np.asarray(v, dtype=str) for v in vocabularies)
    # Usually one vocabulary holds all the others (the users of a run are
    # among those of the qrels): then it is the merge, found by binary search
    # instead of sorting every id again.
    largest = max(vocabularies, key=len)
    if all(_within(v, largest) for v in vocabularies):
        merged = largest
    else:
        merged = np.unique(np.concatenate(vocabularies))
    remaps = [np.arange(len(v), dtype=np.int64) if same_ids(v, merged)
              else np.searchsorted(merged, v).astype(np.int64)
              for v in vocabularies]
    return merged, remaps


def same_ids(first: np.ndarray, second: np.ndarray) -> bool:
    """Are two vocabularies the same ids, in the same order?

    One comparison pass, where a binary search of one in the other costs a
    string comparison per step (a log's truth and run usually name the same
    million users).

    >>> same_ids(np.array(["a", "b"]), np.array(["a", "b"])), same_ids(np.array(["a"]), np.array(["b"]))
    (True, False)
    """
    return first is second or (len(first) == len(second) and bool(np.array_equal(first, second)))


def _within(values: np.ndarray, sorted_vocabulary: np.ndarray) -> bool:
    """Is every value of `values` in `sorted_vocabulary`?"""
    if len(values) == 0 or same_ids(values, sorted_vocabulary):
        return True
    if len(sorted_vocabulary) == 0:
        return False
    at = np.minimum(np.searchsorted(sorted_vocabulary, values), len(sorted_vocabulary) - 1)
    return bool((sorted_vocabulary[at] == values).all())


def checked_mapping(value, shape: str, source: str, query=None, *, prefix: str = ""):
    """A level of judgments given in Python (``from_dict``): `value` itself when it is a mapping;
    else a ParseError saying that ``prefix`` judgments must be a mapping ``shape``.

    >>> checked_mapping([1], "{{doc: grade}}", "qrels", "q1")
    Traceback (most recent call last):
    ...
    rankproof.errors.ParseError: qrels: query q1: judgments must be a mapping {doc: grade}; got list
    """
    from collections.abc import Mapping

    from ..errors import ParseError

    if not isinstance(value, Mapping):
        raise ParseError(source=source, query=None if query is None else str(query),
                         what=f"{prefix}judgments must be a mapping {shape}",
                         fix=f"got {type(value).__name__}")
    return value


def checked_id(value, what: str, source: str, query=None) -> str:
    """An id given in Python (``from_dict``) as text: a non-empty str, or an int.

    None, NaN, floats, tuples and lists are refused rather than turned into
    ids such as "None" or "(1, 2)"; so are booleans and "".

    >>> checked_id(7, "doc", "run")
    '7'
    >>> checked_id(None, "doc", "run", "q1")
    Traceback (most recent call last):
    ...
    rankproof.errors.ParseError: run: query q1: the doc id None is not a string or an integer; give ids as text such as 'd1'
    """
    from ..errors import ParseError, literal

    if isinstance(value, str):
        if value:
            return value
        problem = "is empty"
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    else:
        problem = "is not a string or an integer"
    shown = repr(value) if isinstance(value, str) else str(value)[:40]
    raise ParseError(source=source, query=None if query is None else str(query)[:80], value=value,
                     what=f"the {_role(what)} id {literal(shown)} {problem}",
                     fix="give ids as text such as 'd1'")


def _role(what: str) -> str:
    """The kind of id as a template: the words of the vocabulary for queries and docs."""
    return "{" + what + "}" if what in ("query", "doc") else what
