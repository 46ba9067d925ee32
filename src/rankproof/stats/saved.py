"""Saved results: what ``rankproof evaluate --format json`` (or ``--format parquet``) wrote, read back for
comparison and monitoring.

The document (see :func:`rankproof.report.data.results_document`) carries the
protocol text, its fingerprint, the qrels digest and every run's per-query
values, which is all a paired comparison needs. The Parquet layout
(:mod:`rankproof.report.columnar`, read by :mod:`rankproof.stats.saved_parquet`) holds the same
document in its metadata and the per-query values in columns: one row per
(run, query), a float64 column per measure; it is read in milliseconds where
the JSON text of a million queries takes seconds to parse.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from ..errors import InputError, MeasureError, ProtocolError, literal
from ..measures.base import Measure
from ..measures.parse import held_measure, parse_measure
from ..protocol import Protocol

__all__ = ["SavedResults", "load_results", "results_from_document", "saved_protocol",
           "LARGEST_VALUE"]

_PARQUET_MAGIC = b"PAR1"
_JSON_FIX = "give a file written by rankproof evaluate --format json (or parquet) -o FILE"
_PARQUET_FIX = "give a file written by rankproof evaluate --format parquet -o FILE"


class SavedResults:
    """One run's saved evaluation: the part of :class:`~rankproof.Results` that comparison reads.

    Attributes: ``run_name``, ``protocol``, ``qrels_digest``, ``qrels_source``,
    ``queries``, ``measures``; methods ``values(measure)`` (NaN = excluded)
    and ``mean(measure)`` (the saved aggregate).
    """

    def __init__(self, *, run_name: str, protocol: Protocol, qrels_digest: str | None,
                 qrels_source: str | None,
                 queries: list[str], values: dict[Measure, np.ndarray], means: dict[Measure, float],
                 source: str = "saved results") -> None:
        self.run_name = run_name
        self.protocol = protocol
        self.qrels_digest = qrels_digest
        self.qrels_source = qrels_source
        self.queries = list(queries)
        self._values = values
        self._means = means
        self.source = source

    @property
    def measures(self) -> list[Measure]:
        return list(self._values)

    def _key(self, measure: "str | Measure") -> Measure:
        return held_measure(measure, self._values, missing=f"was not saved for run {self.run_name}",
                            source=self.source)

    def values(self, measure: "str | Measure") -> np.ndarray:
        """Per-query values aligned with :attr:`queries` (NaN = excluded)."""
        return self._values[self._key(measure)].copy()

    def mean(self, measure: "str | Measure") -> float:
        return self._means[self._key(measure)]

    def __repr__(self) -> str:
        return f"SavedResults({self.run_name!r} from {self.source}; protocol {self.protocol.fingerprint})"


def _number(value: Any, where: str) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(what=literal(f"expected a number or null, got {str(value)[:40]!r}"),
                         source=where,
                         value=value, fix="re-save with rankproof evaluate --format json")
    number = float(value)
    # Measure values are small; beyond this the differences and squares that
    # paired tests take overflow to inf, and "+inf*" would look significant.
    if not math.isfinite(number) or abs(number) > LARGEST_VALUE:
        raise InputError(what=literal(f"{value!r} is not a finite measure value of magnitude at most "
                                      f"{LARGEST_VALUE:g}"), source=where, value=value,
                         fix="re-save with rankproof evaluate --format json")
    return number


LARGEST_VALUE = 1e100


def saved_protocol(text: Any, files: Any = None) -> Protocol:
    """The protocol of a saved result, read where it was saved or anywhere else.

    A policy read from a file is taken from that file when it is there with
    the recorded digest; otherwise from what the result recorded: the
    discount vector it embeds (``protocol_files``), a chunk map's digest.
    Equality and fingerprints hold digests, not paths, so either way the
    protocol compares equal to the one that wrote the result.
    """
    from ..protocol.values import ChunkMap, DiscountFile, split_digest

    if not isinstance(text, str):
        raise ProtocolError(what="'protocol_text' must be a string", value=type(text).__name__)
    recorded: dict[str, Any] = {}
    kept = []
    for item in text.split():
        key, _, value = item.partition("=")
        path, digest = split_digest(value[len("file:"):]) if value.startswith("file:") else ("", "")
        if key in ("discount", "chunk_map") and path and digest and not _same_file(path, digest):
            if key == "chunk_map":
                recorded[key] = ChunkMap.recorded(path, digest)
            else:
                values = ((files or {}).get("discount")
                          or {}).get("values") if isinstance(files, dict) else None
                if not isinstance(values, list):
                    raise ProtocolError(what=literal(f"its discount file {path} is not here (or changed), and the "
                                                     "result does not hold the vector"), value=path,
                                        fix="re-save it with this version, which holds the vector, or read it where "
                                            "the file is")
                recorded[key] = DiscountFile(values=tuple(values), path=path, digest=digest)
            continue
        kept.append(item)
    protocol = Protocol.from_text(" ".join(kept))
    return protocol.replace(**recorded) if recorded else protocol


def _same_file(path: str, digest: str) -> bool:
    from ..protocol.values import file_digest

    try:
        return file_digest(path, "protocol") == digest
    except ProtocolError:
        return False


def _column(per_query: dict, text: str, where: str, fix: str) -> np.ndarray:
    """One measure's per-query values, checked as :func:`_number` checks each.

    Every value a number or null and within bounds (a saved file as written):
    one list, one array, checks over the whole column. Otherwise value by
    value, so the message names the first bad one.
    """
    try:
        values = [row[text] for row in per_query.values()]
    except (KeyError, TypeError, IndexError):
        values = None
    if values is not None and set(map(type, values)) <= {float, int, type(None)}:
        try:
            column = np.array(values, dtype=np.float64)   # null -> NaN
        except OverflowError:
            column = None
        if column is not None:
            missing = np.isnan(column)
            present = column[~missing]
            if (int(missing.sum()) == values.count(None)
                and bool(np.all(np.abs(present) <= LARGEST_VALUE))):
                return column
    checked = []
    for query, row in per_query.items():
        if not isinstance(row, dict) or text not in row:
            raise InputError(what=literal(f"no value for {text}"), source=f"{where}, query {query}",
                             value=text,
                             fix=fix)
        checked.append(_number(row[text], f"{where}, query {query}, {text}"))
    return np.array(checked, dtype=np.float64)


def _json_run(run: Any, name: str, source: str, fix: str):
    """A run of the JSON layout: its queries, the measures its first query holds, and a column reader."""
    per_query = run.get("per_query") if isinstance(run, dict) else None
    if not isinstance(per_query, dict):
        raise InputError(what=literal(f"run {name} was saved without per-query values, which paired tests need"),
                         source=source, value=name,
                         fix="re-save with rankproof evaluate --format json (it keeps them)")
    queries = list(per_query)
    first = per_query[queries[0]] if queries else {}
    return queries, list(first) if isinstance(first, dict) else [], (
        lambda text: _column(per_query, text, f"{source}: run {name}", fix))


def results_from_document(document: Any, source: str = "saved results",
                          runs_of=None) -> list[SavedResults]:
    """Rebuild every run of a results document (a parsed JSON object).

    The protocol comes from ``protocol_text``; a fingerprint that does not
    match it means the file was edited and is refused. `runs_of` reads a
    run's per-query values from elsewhere than the document (the Parquet
    layout's columns): ``runs_of(name, run) -> (queries, measures, column)``.
    """
    fix = _PARQUET_FIX if runs_of is not None else _JSON_FIX
    if not isinstance(document, dict) or "runs" not in document or "protocol_text" not in document:
        raise InputError(what="not a rankproof results document (no 'protocol_text' and 'runs')",
                         source=source,
                         fix=fix)
    try:
        protocol = saved_protocol(document["protocol_text"], document.get("protocol_files"))
    except ProtocolError as error:
        raise InputError(what=literal(f"its protocol cannot be read ({error})"), source=source,
                         value=document["protocol_text"], fix=fix) from None
    if document.get("fingerprint") not in (None, protocol.fingerprint, protocol.path_fingerprint):
        raise InputError(what=literal(f"fingerprint {document['fingerprint']} does not match its protocol text "
                                      f"({protocol.fingerprint})"), source=source,
                         value=document["fingerprint"],
                         fix=f"the file was edited: {fix}")
    qrels = document.get("qrels") or {}
    if not isinstance(qrels, dict) or not isinstance(document["protocol_text"], str):
        raise InputError(what="'qrels' must be an object and 'protocol_text' a string",
                         source=source, fix=fix)
    runs = document["runs"]
    if not isinstance(runs, dict) or not runs:
        raise InputError(what="'runs' holds no run", source=source, fix=fix)
    loaded = []
    for name, run in runs.items():
        queries, first, column = (runs_of or (lambda n, r: _json_run(r, n, source, fix)))(name, run)
        means = run.get("mean") or {}
        if not isinstance(means, dict):
            raise InputError(what="'mean' must be an object of measure: value",
                             source=f"{source}: run {name}",
                             fix=fix)
        measures = {}
        for text in list(means) or first:
            try:
                measure = parse_measure(text)
            except MeasureError as error:
                raise InputError(what=literal(str(error)), source=f"{source}: run {name}",
                                 value=text) from None
            measures[measure] = (column(text),
                                 _number(means.get(text), f"{source}: run {name}, mean {text}"))
            _check_range(measure, protocol, queries, *measures[measure], f"{source}: run {name}",
                         fix)
        loaded.append(SavedResults(
            run_name=str(name), protocol=protocol, qrels_digest=qrels.get("digest"),
            qrels_source=qrels.get("source"), queries=queries,
            values={m: v for m, (v, _) in measures.items()},
            means={m: mean for m, (_, mean) in measures.items()},
            source=source))
    return loaded


def _check_range(measure, protocol, queries, values, mean, where: str, fix: str) -> None:
    """Refuse a value a bounded measure cannot take (an ndcg of 5.0): the file was edited.

    The bound is the measure's ``value_range`` under the default gains; a protocol with
    other gains (a gain map, negative grades kept) can leave it, so it is not checked there.
    """
    low, high = measure.spec.value_range
    if not (math.isfinite(low) and math.isfinite(high)):
        return
    if measure.spec.dcg is not None and protocol.gain != Protocol.preset("rankproof").gain:
        return
    slack = 1e-9 * max(1.0, abs(low), abs(high))
    with np.errstate(invalid="ignore"):
        outside = (values < low - slack) | (values > high + slack)
    if (outside.any()
        or (mean is not None and not math.isnan(mean) and not low - slack <= mean <= high + slack)):
        at = int(np.argmax(outside)) if outside.any() else None
        shown = f"query {queries[at]}" if at is not None else "mean"
        value = float(values[at]) if at is not None else mean
        raise InputError(what=literal(f"{measure} is {value!r} for its {shown}, outside its range [{low:g}, "
                                      f"{high:g}]"), source=where, value=value,
                         fix=f"the file was edited: {fix}")


def load_results(path: "str | os.PathLike[str]") -> list[SavedResults]:
    """Read a file written by ``rankproof evaluate --format json -o FILE`` or ``--format parquet -o FILE``
    (told apart by the file's first bytes, not its name).

    Returns one :class:`SavedResults` per run in the file.
    """
    from ..errors import ParseError
    from ..io.files import check_json_nesting, json_int, load_text

    source = os.fspath(path)
    if _is_parquet(source):
        from .saved_parquet import parquet_document

        document, runs_of = parquet_document(source, LARGEST_VALUE)
        return results_from_document(document, source, runs_of)
    fix = _JSON_FIX
    try:
        data = load_text(source, source, what="results", label="JSON", binary_hint=lambda _: fix,
                         encoding_fix=lambda _: fix)
    except ParseError as error:
        if error.has_fields:  # the reader's fields, its words for a missing file made plain
            what = "the file does not exist" if error.what == "does not exist" else str(error.what)
            raise InputError(what=what, source=error.source, line=error.line, value=error.value,
                             fix=error.fix) from None
        raise InputError(str(error).replace(": does not exist;",
                                            ": the file does not exist;")) from None
    # Python's parser refuses deep nesting itself (RecursionError), so the nesting check,
    # a pass over the whole file (0.4 s for one line of 49 MB), runs only then, to word it.
    try:
        document = json.loads(data, parse_int=json_int)
    except RecursionError:
        check_json_nesting(data, source)
        raise InputError(what="not valid JSON (nested too deep)", source=source, fix=fix) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(what=literal(f"not valid JSON ({error})"), source=source,
                         fix=fix) from None
    return results_from_document(document, source)


def _is_parquet(source: str) -> bool:
    """Whether the file starts with Parquet's magic bytes. Only a regular file is looked at: a pipe's first
    bytes would be consumed, and a missing or unreadable file is left to the JSON reader, which words its
    errors."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(source).st_mode):
            return False
        with open(source, "rb") as stream:
            return stream.read(len(_PARQUET_MAGIC)) == _PARQUET_MAGIC
    except OSError:
        return False
