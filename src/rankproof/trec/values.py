"""trec_eval's evaluation loop on top of rankproof measures.

:func:`trec_values` computes, for every evaluated query, the value of every
printed line (``P_5``, ``map``, ...) with ordinary rankproof measures, then
applies what trec_eval does around its measures: -M's truncation, -c's stand-in
ranking for a judged query the run does not rank, gm_map's logarithms, its 0/0
NaNs, ``-Z`` z-scores.
:func:`summary` combines queries as trec_eval does, and :func:`render` prints
both in trec_eval's exact format.

Sums run query by query in trec_eval's order (a running sum, not numpy's
pairwise sum), so the summary lines round like trec_eval's.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from ..pipeline.alignment import align, truncate
from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, ParseError
from ..evaluation import evaluate
from ..measures.base import Measure
from ..protocol import IprecRounding, MissingQuery, Protocol, Unjudged
from ..errors import literal
from ..measures.trec_names import MIN_GEO_MEAN, Line, NaN, Params, Printed, Summary

__all__ = ["TrecOptions", "TrecTable", "trec_protocol", "truncate", "trec_values", "summary",
           "render",
           "read_zscores", "last_run_tag"]

# trec_eval's value for a z-score whose mean is missing from the -Z file.
MISSING_ZSCORE = -1000000.0


@dataclasses.dataclass(frozen=True)
class TrecOptions:
    """trec_eval's command-line settings (the letters are trec_eval's options)."""

    per_query: bool = False          # -q
    complete: bool = False           # -c: every judged query, unranked ones on a stand-in ranking
    relevance_level: int = 1         # -l
    summary: bool = True             # not -n
    judged_only: bool = False        # -J
    num_docs: int = 0                # -N
    max_docs: int | None = None      # -M
    zscores: dict | None = None      # -Z, read by read_zscores
    version9: bool = False           # --v9: trec_eval 9.0.x's output (see render)


def trec_protocol(options: TrecOptions, preset: "str | Protocol" = "trec_eval") -> Protocol:
    """The preset with trec_eval's options applied: -l sets rel, -J drops unjudged
    docs (never pooled and pooled-but-unjudged alike), -c evaluates every judged query
    (missing_query=zero; trec_values gives unranked ones trec_eval's stand-in ranking)."""
    protocol = Protocol.preset(preset) if isinstance(preset, str) else preset
    changes: dict = {"rel": options.relevance_level}
    if options.judged_only:
        changes["unjudged"] = Unjudged.CONDENSE
    if options.complete:
        changes["missing_query"] = MissingQuery.ZERO
    return protocol.replace(**changes)


# trec_eval -c evaluates a judged query the run does not rank on a stand-in ranking of
# one doc never pooled, then resets some values by their printed names: exactly these
# names, or (unj) any name starting so. Measures printed with parameters (utility_2,...,
# relstring_20, rbp_resid_p=0.5) are not reset and keep their value on the stand-in.
STAND_IN_DOC = "ceci_nest_pas_un_docno"
STAND_IN_RESET = {"num_ret": "exact", "utility": "exact", "relstring": "exact",
                  "rbp_resid": "exact",
                  "unj": "prefix"}


def _is_reset(name: str) -> bool:
    return any(name == key if how == "exact" else name.startswith(key)
               for key, how in STAND_IN_RESET.items())


def with_stand_ins(qrels: Qrels, run: Run) -> tuple[Run, np.ndarray]:
    """The run plus trec_eval's stand-in ranking for every judged query it does not rank.

    Returns the run and the queries given a stand-in.
    """
    missing = qrels.queries[~np.isin(qrels.queries, run.queries)]
    if len(missing) == 0:
        return run, missing
    queries = np.union1d(run.queries, missing)
    docs = np.union1d(run.docs, np.array([STAND_IN_DOC]))
    lengths = np.diff(run.offsets)
    old_query = np.searchsorted(queries,
                                run.queries)[np.repeat(np.arange(run.num_queries), lengths)]
    query_codes = np.concatenate([old_query, np.searchsorted(queries, missing)])
    doc_codes = np.concatenate([np.searchsorted(docs, run.docs)[run.doc_codes],
                                np.full(len(missing), np.searchsorted(docs, STAND_IN_DOC))])
    scores = np.concatenate([run.scores, np.ones(len(missing))])
    lines = np.concatenate([run.lines, np.full(len(missing), -1)])
    return Run(query_codes=query_codes, queries=queries, doc_codes=doc_codes, docs=docs,
               scores=scores,
               lines=lines, source=run.source, name=run.name), missing


def judged_grades(qrels: Qrels) -> tuple[int, ...]:
    """The distinct grades >= 0 of the qrels (trec_eval's relevance levels)."""
    return tuple(int(g) for g in np.unique(qrels.grades[qrels.grades >= 0]))


@dataclasses.dataclass
class TrecTable:
    """Per-query values of every printed line, in trec_eval's order."""

    queries: list[str]
    lines: list[Line]
    # per line: float64 array over queries, or a list of str (relstring), or None (runid)
    values: list
    runid: str
    zscored: bool = False
    num_rel_judged: int = 0   # qrels lines with grade > 0: trec_eval's summary num_rel under -c
    stand_in: "np.ndarray | None" = None  # per query: evaluated on -c's stand-in ranking


def _recall_cut(x: float, num_rel: np.ndarray, rounding: IprecRounding) -> np.ndarray:
    product = x * num_rel.astype(np.float64)
    if rounding is IprecRounding.LEGACY:
        return np.floor(product + 0.9)
    return np.floor(product + 0.5)   # lround for x * R >= 0


def _empty_nan(line: Line, values: np.ndarray, empty: np.ndarray, num_rel: np.ndarray,
               protocol: Protocol) -> np.ndarray:
    """trec_eval's 0/0 for interpolated precision over an empty ranking (possible after -J).

    Its precision at the end of the ranking is num_rel_ret / num_ret, NaN when
    nothing is retrieved; that NaN becomes the value at every recall level whose
    rank cut-off is 0 (and so 11pt_avg). x86 prints that NaN as "-nan".
    """
    if not empty.any():
        return values
    # one level, or 11pt_avg's
    levels = [line.param] if line.trec.params is Params.DOUBLE_CUTOFFS else list(line.param)
    hit = np.zeros(len(values), dtype=bool)
    for x in levels:
        hit |= _recall_cut(float(x), num_rel, protocol.iprec_rounding) == 0
    return np.where(empty & hit, -math.nan, values)


def _ideal_of(measure: Measure) -> Measure:
    """ideal_dcg with the measure's gains: 0 exactly when no judged doc has positive gain."""
    return Measure("ideal_dcg", None, tuple((k, v) for k, v in measure.params if k == "gain"))


def _relstrings(qrels: Qrels, run: Run, protocol: Protocol, length: int,
                queries: Sequence[str]) -> list[str]:
    """The relevance of each query's top ``length`` docs as one character each:
    the grade (0-9, '>' above 9), '-' never pooled, '.' pooled but unjudged."""
    if protocol.unjudged is not Unjudged.CONDENSE:
        # only the top docs are shown: align fewer
        run = truncate(run, max(length, 1), protocol)
    a = align(qrels, run, protocol)
    digits = np.array(list("0123456789"))
    chars = np.where(a.judged, np.where(a.grade > 9, ">", digits[np.clip(a.grade, 0, 9)]),
                     np.where(a.pooled, ".", "-"))
    out = []
    for i in range(len(queries)):
        lo = a.offsets[i]
        hi = min(a.offsets[i + 1], lo + max(length, 0))
        out.append("".join(chars[lo:hi].tolist()))
    return out


def trec_values(qrels: Qrels, run: Run, lines: list[Line], options: TrecOptions, protocol: Protocol,
                runid: str = "") -> TrecTable:
    """Evaluate every line's rankproof measure and apply trec_eval's per-query rules."""
    if options.max_docs is not None:
        run = truncate(run, options.max_docs, protocol)
    stand_ins = np.zeros(0, dtype=str)
    if options.complete:
        run, stand_ins = with_stand_ins(qrels, run)
    # num_ret and num_rel always: they also check the inputs when only runid, num_q or
    # relstring is asked for, as trec_eval's num_ret would.
    measures: list[Measure] = [line.measure for line in lines if line.measure is not None]
    measures += [Measure("num_ret"), Measure("num_rel")]
    measures += [_ideal_of(line.measure) for line in lines
                 if line.trec.nan is NaN.NO_POSITIVE_GAIN and line.measure is not None]
    # trec_eval decides on its own terms
    results = evaluate(qrels, run, measures, protocol, allow_partial=True)
    queries = results.queries
    reset = np.isin(np.asarray(queries, dtype=str), stand_ins)
    num_ret = results.values("num_ret")
    num_rel = results.values("num_rel")

    values: list = []
    for line in lines:
        kind = line.trec.summary
        if kind is Summary.RUNID:
            values.append(None)
        elif kind is Summary.NUM_Q:
            values.append(np.ones(len(queries)))
        elif line.trec.summary is Summary.NONE:  # relstring: a string per query, no summary
            strings = _relstrings(qrels, run, protocol, int(line.param[0]), queries)
            if _is_reset(line.name):
                strings = ["" if r else s for s, r in zip(strings, reset)]
            values.append(strings)
        elif line.measure is not None:
            v = results.values(line.measure)
            if kind is Summary.GEOMETRIC:
                v = np.log(np.maximum(v, MIN_GEO_MEAN))
            if line.trec.nan is NaN.EMPTY_RANKING:
                v = _empty_nan(line, v, num_ret == 0, num_rel, protocol)
            elif line.trec.nan is NaN.NO_POSITIVE_GAIN:
                v = np.where((num_rel > 0) & (results.values(_ideal_of(line.measure)) == 0),
                             -math.nan, v)
            if options.version9:
                # trec_eval 9 evaluates no stand-in: a judged query the run skips adds 0 to each
                # sum (log of the floor to a geometric mean) and the mean divides by every query.
                v = np.where(reset, math.log(MIN_GEO_MEAN) if kind is Summary.GEOMETRIC else 0.0, v)
            elif _is_reset(line.name):
                v = np.where(reset, 0.0, v)
            values.append(v)
        else:  # pragma: no cover - only runid, num_q and relstring have no rankproof measure
            raise RuntimeError(f"{line.name} has no rankproof measure")
    table = TrecTable(queries=queries, lines=lines, values=values, runid=runid,
                      num_rel_judged=int((qrels.grades > 0).sum()), stand_in=reset)
    if options.zscores is not None:
        _apply_zscores(table, options.zscores)
    return table


# -- z-scores (-Z) ------------------------------------------------------------------
def read_zscores(path: str) -> dict:
    """Read a -Z file: lines ``query measure mean stddev`` -> {query: {measure: (mean, stddev)}}."""
    from ..io.files import load_text

    # Read as every input is: a device or binary file refused at its first megabyte, a stream
    # bounded.
    shape = "give a text file of 'query measure mean stddev' lines"
    text = load_text(path, f"-Z {path}", what="-Z file", label="-Z", binary_hint=lambda _: shape,
                     encoding_fix=lambda _: shape).decode("utf-8")
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        fields = raw.split()
        if len(fields) != 4:
            raise ParseError(what=f"expected 4 columns ({{query}} measure mean stddev), found {len(fields)}",
                             source=str(path), line=number,
                             fix="write one '{query} measure mean stddev' per line")
        query, name, mean, stddev = fields
        try:
            pair = (float(mean), float(stddev))
        except ValueError:
            raise ParseError(what=literal(f"mean {mean!r} and stddev {stddev!r} must be numbers"),
                             source=str(path),
                             line=number, query=query) from None
        if name in table.setdefault(query, {}):
            raise ParseError(what=f"measure {literal(name)} is given twice", fix="give it once",
                             source=str(path),
                             line=number, query=query)
        table[query][name] = pair
    if not table:
        raise ParseError(what="the -Z file is empty", source=str(path),
                         fix="give one '{query} measure mean stddev' per line")
    return table


def _apply_zscores(table: TrecTable, zscores: dict) -> None:
    """Replace every numeric per-query value by (value - mean) / stddev, as trec_eval's -Z."""
    table.zscored = True
    for index, (line, values) in enumerate(zip(table.lines, table.values)):
        if not isinstance(values, np.ndarray):
            continue
        out = np.empty(len(values))
        for i, query in enumerate(table.queries):
            means = zscores.get(query)
            pair = means.get(line.name) if means is not None else None
            value = float(values[i])
            if pair is None:
                out[i] = MISSING_ZSCORE
            elif pair[1]:
                out[i] = (value - pair[0]) / pair[1]
            else:
                out[i] = 0.0 if value == pair[0] else MISSING_ZSCORE
        table.values[index] = out


# -- summary ------------------------------------------------------------------------
def _running_sum(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def summary(table: TrecTable, options: TrecOptions) -> list:
    """The value of each line on the summary line ``all`` (None for relstring)."""
    n = len(table.queries)
    out: list = []
    for line, values in zip(table.lines, table.values):
        kind = line.trec.summary
        if kind is Summary.RUNID:
            out.append(table.runid)
        elif kind is Summary.NUM_Q:
            out.append(float(n))
        elif kind is Summary.NONE:
            out.append(None)
        elif kind is Summary.SUM:
            if line.trec.recounted_under_c and options.complete:
                # trec_eval -c recounts from the qrels: every grade > 0, whatever -l says.
                out.append(float(table.num_rel_judged))
            else:
                out.append(_running_sum(values))
        elif kind is Summary.GEOMETRIC:
            out.append(math.exp(_running_sum(values) / n) if n else 0.0)
        else:
            out.append(_running_sum(values) / n if n else 0.0)
    return out


# -- printing -------------------------------------------------------------------------
def format_double(value: float) -> str:
    """C's %6.4f, including glibc's spelling of NaN ("-nan" when the sign bit is set)."""
    if value != value:
        return "%6s" % ("-nan" if math.copysign(1.0, value) < 0 else "nan")
    return "%6.4f" % value


def _value_text(line: Line, value, zscored: bool) -> str:
    if line.trec.printed is Printed.LONG and not zscored:
        return "%d" % int(value)
    return format_double(value)


def render(table: TrecTable, options: TrecOptions) -> str:
    """trec_eval's output: per-query blocks (with -q), then the summary lines (unless -n).

    trec_eval 9 (``options.version9``) prints no block for a judged query the
    run does not rank (-c), though the summary still averages over it.
    """
    z = "Z" if table.zscored else ""
    out: list[str] = []
    if options.per_query:
        printable = [(line, values) for line, values in zip(table.lines, table.values)
                     if line.trec.per_query]
        for i, query in enumerate(table.queries):
            if options.version9 and table.stand_in is not None and table.stand_in[i]:
                continue
            for line, values in printable:
                if line.trec.summary is Summary.NONE:  # relstring
                    out.append("%-22s\t%s\t'%s'\n" % (line.name, query, values[i]))
                else:
                    out.append("%s%-22s\t%s\t%s\n"
                               % (z, line.name, query, _value_text(line, values[i], table.zscored)))
    if options.summary:
        for line, value in zip(table.lines, summary(table, options)):
            if value is None:
                continue
            if line.trec.summary is Summary.RUNID:
                out.append("%-22s\t%s\t%s\n" % ("runid", "all", value))
            else:
                out.append("%s%-22s\t%s\t%s\n"
                           % (z, line.name, "all", _value_text(line, value, table.zscored)))
    return "".join(out)


# -- the run's tag -------------------------------------------------------------------
def last_run_tag(path) -> str:
    """The tag (6th column) of the run file's last data line: what trec_eval prints as runid."""
    import gzip

    name = str(path)
    try:
        if name.lower().endswith(".gz"):
            data = gzip.decompress(Path(path).read_bytes())
            return _tag_of_last_line(data) or ""
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            block = 1 << 16
            start = size
            tail = b""
            while start > 0:
                start = max(0, start - block)
                handle.seek(start)
                tail = handle.read(size - start)
                tag = _tag_of_last_line(tail, complete=start == 0)
                if tag is not None:
                    return tag
                block *= 4
            return _tag_of_last_line(tail) or ""
    except OSError as error:
        raise InputError(what=f"cannot be read ({literal(error.strerror or error)})",
                         source=str(path)) from None


def _tag_of_last_line(data: bytes, complete: bool = True) -> str | None:
    lines = data.split(b"\n")
    if not complete:
        lines = lines[1:]  # the first piece may be the end of a longer line
    for raw in reversed(lines):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else ""
    return "" if complete else None


__all__ += ["format_double", "judged_grades", "MISSING_ZSCORE"]
