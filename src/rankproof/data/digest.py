"""A content digest of judgments, so saved results can be checked for comparability."""

from __future__ import annotations

import hashlib
import weakref

import numpy as np

__all__ = ["qrels_digest"]

# Each qrels' digest, computed once while the qrels live: every run evaluated on them (compare's
# runs, a report's) asks for it, and a million queries' ids take a tenth of a second to hash.
_DIGESTS: "weakref.WeakKeyDictionary[object, str]" = weakref.WeakKeyDictionary()


def qrels_digest(qrels) -> str:
    """First 16 hex digits of a SHA-256 over (query, doc, grade) in canonical order.

    Qrels hold their rows sorted by query and doc with unused ids dropped, so
    the same judgments give the same digest whether read from a file, a
    DataFrame or a dict.
    """
    try:
        return _DIGESTS[qrels]
    except (KeyError, TypeError):   # not yet; or qrels that cannot be weakly referenced or hashed
        pass
    digest = _digest(qrels)
    try:
        _DIGESTS[qrels] = digest
    except TypeError:
        pass
    return digest


def _digest(qrels) -> str:
    sha = hashlib.sha256()
    for ids in (qrels.queries, qrels.docs):
        sha.update("\n".join(ids.tolist()).encode("utf-8"))
        sha.update(b"\x00")
    for array in (qrels.offsets, qrels.doc_codes, qrels.grades):
        sha.update(np.ascontiguousarray(array, dtype="<i8").tobytes())
    return sha.hexdigest()[:16]
