"""``--memory-budget``: ``rankproof evaluate`` on logs larger than memory, part by part (rankproof.frontdoors.outofcore).

With the option, or without it when the qrels and a run are CSV, TSV, JSON Lines or
Parquet files whose in-memory evaluation would need more than the default
budget (a quarter of the machine's memory), each run is evaluated in parts
of whole queries, streamed when both files are sorted by query and else
partitioned by query in a temporary folder. The numbers are those of the
in-memory evaluation. Whether a run goes out of core is the executors' choice
(:class:`rankproof.executors.outofcore.OutOfCoreExecutor`); the budget is
parsed once, when the option is read (bytes from then on).
"""

from __future__ import annotations

import argparse

from .usage import budget_option

__all__ = ["add_memory_options", "QrelsDigest"]


def add_memory_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("logs larger than memory (CSV, TSV, JSON Lines or Parquet qrels and runs)")
    group.add_argument("--memory-budget", type=budget_option, metavar="SIZE",
                       help="evaluate each run in parts of whole queries within SIZE bytes of memory (e.g. 2GB); "
                            "by default only files too large for a quarter of the memory are, within that quarter")
    group.add_argument("--sorted", dest="log_sorted", action="store_const", const=True,
                       default=None,
                       help="with --memory-budget: the files are sorted by query (else an out-of-order row is an "
                            "error); by default sorted files are streamed and others partitioned on disk")


class QrelsDigest:
    """A digest of judgments read in parts of whole queries, the same whatever the parts.

    Each query's judgments (its id, then each doc and grade in doc order, as
    :class:`~rankproof.Qrels` holds them) hash to 64 bits (BLAKE2b); the
    digest is their sum modulo 2**64, so the order and the cut of the parts do
    not matter. It is not :func:`rankproof.data.digest.qrels_digest` (which
    needs every doc at once): an out-of-core result compares with other
    out-of-core results on the same judgments, an in-memory one with in-memory ones.

    Examples
    --------
    >>> from rankproof import Qrels
    >>> whole, parts = QrelsDigest(), QrelsDigest()
    >>> whole.add(Qrels.from_dict({"a": {"x": 1}, "b": {"y": 2}}))
    >>> parts.add(Qrels.from_dict({"b": {"y": 2}})); parts.add(Qrels.from_dict({"a": {"x": 1}}))
    >>> whole.hexdigest() == parts.hexdigest()
    True
    """

    def __init__(self) -> None:
        self.total = 0

    def add(self, qrels) -> None:
        import hashlib

        offsets, docs, grades = qrels.offsets.tolist(), qrels.docs, qrels.grades
        for q, query in enumerate(qrels.queries.tolist()):
            lo, hi = offsets[q], offsets[q + 1]
            rows = zip(docs[qrels.doc_codes[lo:hi]].tolist(), grades[lo:hi].tolist())
            text = str(query) + "\0" + "\n".join(f"{doc}\t{grade!r}" for doc, grade in rows)
            value = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
            self.total = (self.total + int.from_bytes(value, "big")) % (1 << 64)

    def hexdigest(self) -> str:
        return "ooc-" + format(self.total, "016x")
