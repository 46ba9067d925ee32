"""The partial-match guard: ids of the qrels and the run that half match, and why.

Beside the coverage check (:func:`rankproof.results.check_query_coverage`),
which counts how many judged queries a run ranks, this guard looks for the
usual reasons why ids that should match do not: zero padding (``001``
against ``1``), case, blanks around ids, a prefix or a suffix (``184#c3``
against ``184``), the run's query and doc columns swapped, query ids that
are numbers on one side only. It finds at most one cause and says it in one
line, naming the fix (often a policy: ``ids=strip_zeros``,
``chunk_map=sep:#``): a :class:`Mismatch`, which the evaluation step raises
when the evidence is strong (a rewrite of the ids would make nearly all of
them match, or the columns are plainly swapped) and states as a warning
otherwise. Ids that differ for none of these reasons (a run that ranks
other queries) are left to the coverage check.

It works on the distinct ids only, and on evenly spaced samples of at most
:data:`SAMPLE` of them where a side holds more, so it costs a few
milliseconds next to an evaluation.

>>> from rankproof import Qrels, Run
>>> qrels = Qrels.from_dict({"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}, "4": {"d": 1}})
>>> run = Run.from_dict({"1": ["a"], "002": ["b"], "003": ["c"], "004": ["d"]})
>>> print(find_mismatch(qrels, run).message())
query ids differ by zero padding: 3 of the 4 judged queries are not in the run and 3 ranked queries are not judged, but they match once leading zeros are dropped (qrels '2', run '002'); set the policy ids=strip_zeros (--policy ids=strip_zeros)
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Callable

import numpy as np

from ..data.interning import same_ids
from ..data.qrels import Qrels
from ..errors import CoverageError, literal
from ..data.run import Run
from ..kernels.segments import segment_of
from ..protocol import Protocol
from ..protocol.ids import IdPolicy

__all__ = ["Mismatch", "find_mismatch", "query_mismatch", "guard", "SAMPLE"]

SAMPLE = 2000  # ids looked at per side at most
_SEPARATORS = "#_-:./|@"
_PREFIX = re.compile(r"^([^0-9]+?)[-_:#./]?(?=[0-9])")


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """Why ids half match: the cause (with counts and an example) and the fix, and whether it is plain
    enough to refuse the evaluation (``strong``)."""

    cause: str
    fix: str
    strong: bool

    def message(self) -> str:
        return f"{self.cause}; {self.fix}"


@dataclasses.dataclass(frozen=True)
class _Rewrite:
    """One candidate cause: a rewrite of one side's ids, what it is called, and its fix."""

    name: str
    rewrite: Callable[[str], str]
    fix: str
    side: str  # "run" or "qrels": whose ids it rewrites


def _member(values: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """Per value: is it in the sorted `vocabulary`?"""
    if len(vocabulary) == 0 or len(values) == 0:
        return np.zeros(len(values), dtype=bool)
    if same_ids(values, vocabulary):  # a log's truth and run name the same users: no search
        return np.ones(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(vocabulary, values), len(vocabulary) - 1)
    return vocabulary[at] == values


def _sample(values: np.ndarray) -> np.ndarray:
    if len(values) <= SAMPLE:
        return values
    return values[np.linspace(0, len(values) - 1, SAMPLE).astype(np.int64)]


def _policy_fix(step: str, protocol: Protocol) -> str:
    steps = IdPolicy((*protocol.ids.steps, step))
    return f"set the policy ids={steps} (--policy ids={steps})"


_STEPS = {"strip_zeros": ("differ by zero padding", "leading zeros are dropped"),
          "casefold": ("differ by case", "case is folded"),
          "strip": ("differ by blanks around them", "the blanks around them are dropped")}
_BLANK_AROUND = re.compile(r"(?m)^\s|\s$")


def _could_change(step: str, joined: str) -> bool:
    """Could `step` change one of the ids joined by newlines? (A cheap look before rewriting each.)"""
    if step == "strip_zeros":
        return joined.startswith("0") or "\n0" in joined
    if step == "casefold":
        return joined != joined.casefold()
    return _BLANK_AROUND.search(joined) is not None


def _rewrites(kind: str, unmatched: dict, protocol: Protocol) -> list[_Rewrite]:
    """The candidate causes for one kind of id ("query" or "doc") that could change an unmatched id."""
    found: list[_Rewrite] = []
    joined = {side: "\n".join(_sample(ids).tolist()) for side, ids in unmatched.items()}
    for step, (name, how) in _STEPS.items():
        if step not in protocol.ids.steps:
            one = IdPolicy((step,)).one
            found.extend(_Rewrite(f"{kind} ids {name}|{how}", one, _policy_fix(step, protocol),
                                  side)
                         for side in ("run", "qrels") if _could_change(step, joined[side]))
    rewrite_run = f"rewrite the run's {kind} ids to the qrels' form"
    for sep in (sep for sep in _SEPARATORS if sep in joined["run"]):
        def cut(text: str, sep: str = sep) -> str:
            return text.rsplit(sep, 1)[0]
        fix = (f"set the policy chunk_map=sep:{sep} (--policy chunk_map=sep:{sep}) to rank each doc where its "
               "first chunk ranks") if kind == "doc" and protocol.chunk_map.kind == "none" else rewrite_run
        found.append(_Rewrite(f"the run's {kind} ids carry a suffix after {sep!r}|the suffix is cut", cut, fix, "run"))
    for side, ids in unmatched.items():
        prefixes = Counter(m.group(0) for m in map(_PREFIX.match, _sample(ids).tolist()) if m)
        if prefixes:
            prefix = prefixes.most_common(1)[0][0]

            def drop(text: str, prefix: str = prefix) -> str:
                return text[len(prefix):] if text.startswith(prefix) else text
            whose = "the run's" if side == "run" else "the qrels'"
            fix = (f"rewrite {whose} {kind} ids to the other side's form" if side == "qrels" or kind
                   == "query"
                   else f"set the policy chunk_map=regex:^{re.escape(prefix)}(.+)$ or rewrite the run's doc ids")
            found.append(_Rewrite(f"{whose} {kind} ids carry the prefix {prefix!r}|the prefix is dropped", drop,
                                  fix, side))
    return found


def _best(rewrites: list[_Rewrite], unmatched: dict, vocabulary: dict) -> tuple[_Rewrite, float,
                                                                                tuple] | None:
    """The rewrite that matches the most unmatched ids (estimated from samples), with an example pair."""
    best = None
    for candidate in rewrites:
        ids = unmatched[candidate.side]
        if not len(ids):
            continue
        sample = _sample(ids)
        rewritten = np.array([candidate.rewrite(text) for text in sample.tolist()], dtype=str)
        other = vocabulary["qrels" if candidate.side == "run" else "run"]
        hits = _member(rewritten, other) & (rewritten != sample)
        estimate = float(hits.sum()) * len(ids) / len(sample)
        if hits.any() and (best is None or estimate > best[1]):
            i = int(np.flatnonzero(hits)[0])
            best = (candidate, estimate, (str(sample[i]), str(rewritten[i])))
    return best


def _example(side: str, pair: tuple[str, str]) -> str:
    written, matching = pair
    run, qrels = (written, matching) if side == "run" else (matching, written)
    return f"(qrels {qrels!r}, run {run!r})"


def _queries(qrels: Qrels, run: Run, protocol: Protocol) -> Mismatch | None:
    return query_mismatch(qrels.queries, run.queries, protocol)


def query_mismatch(judged: np.ndarray, ranked: np.ndarray, protocol: Protocol | None = None, *,
                   totals: tuple[int, int, int] | None = None) -> Mismatch | None:
    """Why the query ids of the qrels and the run half match, from the ids alone.

    `judged` and `ranked` are each side's distinct query ids, sorted. A
    front door that sees only part of them (Spark: each partition's
    unmatched ids, sampled) passes those, with ``totals`` = (judged queries,
    judged queries not ranked, ranked queries not judged) counted in full;
    the estimates are scaled to them.
    """
    protocol = protocol if protocol is not None else Protocol()
    unmatched = {"qrels": judged[~_member(judged, ranked)], "run": ranked[~_member(ranked, judged)]}
    count, missing, extra = totals if totals is not None else (len(judged), len(unmatched["qrels"]),
                                                                len(unmatched["run"]))
    if not missing or not extra or not len(unmatched["qrels"]) or not len(unmatched["run"]):
        return None
    if missing == count:
        counts = f"the run ranks none of the {missing} judged queries and its {extra} queries are not judged"
    else:
        counts = (f"{missing} of the {count} judged queries are not in the run and {extra} ranked queries "
                  "are not judged")
    found = _best(_rewrites("query", unmatched, protocol), unmatched,
                  {"qrels": judged, "run": ranked})
    if found is not None:
        candidate, estimate, pair = found
        seen, total = (len(unmatched[candidate.side]),
                       missing if candidate.side == "qrels" else extra)
        estimate *= total / seen
        share = estimate / min(missing, extra)
        if share >= 0.2 and estimate >= 2:  # one id that happens to match is no evidence
            name, how = candidate.name.split("|")
            found_ids = round(estimate)
            some = ("they match" if share >= 1 else
                    ("about " if total > min(seen, SAMPLE) else "")
                    + (f"{found_ids} of them match" if found_ids != 1 else "1 of them matches"))
            return Mismatch(f"{name}: {counts}, but {some} once {how} {_example(candidate.side, pair)}",
                            candidate.fix, strong=share >= 0.9 and estimate >= 3)
    # No rewrite explains them: the one cause left to name is ids of two kinds (numbers against
    # names).
    numbers = _numbers_on_one_side(judged, ranked)
    if not numbers:
        return None
    example = f"(qrels {str(unmatched['qrels'][0])!r}, run {str(unmatched['run'][0])!r})"
    return Mismatch(f"query ids are {numbers}: {counts} {example}",
                    "rewrite the run's query ids to the qrels' form", strong=False)


def guard(mismatch: Mismatch | None, source: str, allow_partial: bool) -> tuple[str, ...]:
    """The guard's verdict on a mismatch: refuse ids that plainly do not match as written (a
    :class:`~rankproof.errors.CoverageError`, unless `allow_partial`), or the one warning line."""
    if mismatch is None:
        return ()
    if mismatch.strong and not allow_partial:
        raise CoverageError(what=literal(mismatch.cause), source=source,
                            fix=literal(mismatch.fix)
                            + ", or {do[allow_partial]} to evaluate the ids as written")
    return (mismatch.message(),)


def _numbers_on_one_side(judged: np.ndarray, ranked: np.ndarray) -> str:
    def digits(ids: np.ndarray) -> float:
        sample = _sample(ids).tolist()
        return sum(text.isdigit() for text in sample) / max(len(sample), 1)
    in_qrels, in_run = digits(judged), digits(ranked)
    if in_qrels == 1 and in_run <= 0.1:
        return "numbers in the qrels but not in the run"
    if in_run == 1 and in_qrels <= 0.1:
        return "numbers in the run but not in the qrels"
    return ""


def _docs(qrels: Qrels, run: Run, protocol: Protocol) -> Mismatch | None:
    judged, ranked = qrels.docs, run.docs
    sample_run, sample_qrels = _sample(ranked), _sample(judged)
    in_qrels = _member(sample_run, judged)
    unmatched = {"run": sample_run[~in_qrels],
                 "qrels": sample_qrels[~_member(sample_qrels, ranked)]}
    # Estimates over the whole vocabularies, from the samples (exact where a side holds no more than
    # SAMPLE ids).
    scale = {"run": len(ranked) / max(len(sample_run), 1),
             "qrels": len(judged) / max(len(sample_qrels), 1)}
    matched = round(float(in_qrels.sum()) * scale["run"])
    found = _best(_rewrites("doc", unmatched, protocol), unmatched,
                  {"qrels": judged, "run": ranked})
    if found is None:
        return None
    candidate, estimate, pair = found
    estimate *= scale[candidate.side]
    if estimate < max(5, matched):
        return None
    name, how = candidate.name.split("|")
    about = "about " if len(ranked) > SAMPLE else ""
    cause = (f"{name}: {about}{matched} of the run's {len(ranked)} doc ids are judged docs, about {estimate:.0f} "
             f"more once {how} {_example(candidate.side, pair)}")
    return Mismatch(cause, candidate.fix, strong=estimate >= 9 * max(matched, 1))


def _swapped(qrels: Qrels, run: Run) -> Mismatch | None:
    """The run's query column holds doc ids and its doc column query ids."""
    queries, docs = _sample(run.queries), _sample(run.docs)
    # Its docs are nearly all judged queries, and its queries are judged docs more often than judged
    # queries.
    if _member(docs, qrels.queries).mean() < 0.9 or \
            _member(queries, qrels.docs).mean() <= _member(queries, qrels.queries).mean():
        return None
    extra = int((~_member(run.queries, qrels.queries)).sum())
    if not extra:
        return None
    rows = np.linspace(0, len(run) - 1, min(len(run), SAMPLE)).astype(np.int64)
    row_query = run.queries[segment_of(np.diff(run.offsets))[rows]]
    row_doc = run.docs[run.doc_codes[rows]]
    straight, swapped = _judged(qrels, row_query, row_doc), _judged(qrels, row_doc, row_query)
    cause = (f"the run's columns look swapped: its query ids are judged doc ids ({extra} of its "
             f"{len(run.queries)} queries are not judged queries) and its doc ids are judged query ids")
    if swapped > 3 * straight and swapped >= 5:
        cause += f", and {swapped} of {len(rows)} rows sampled are judged once the two are swapped (against {straight})"
    return Mismatch(cause,
                    "swap the run's query and doc columns (TREC: query Q0 doc rank score tag)",
                    strong=swapped > 3 * straight and swapped >= 5)


def _judged(qrels: Qrels, queries: np.ndarray, docs: np.ndarray) -> int:
    """How many of the (query, doc) pairs the qrels judge."""
    q = np.minimum(np.searchsorted(qrels.queries, queries), len(qrels.queries) - 1)
    d = np.minimum(np.searchsorted(qrels.docs, docs), len(qrels.docs) - 1)
    known = (qrels.queries[q] == queries) & (qrels.docs[d] == docs)
    width = max(len(qrels.docs), 1)
    keys = segment_of(np.diff(qrels.offsets)) * width + qrels.doc_codes
    wanted = q[known] * width + d[known]
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return int((keys[at] == wanted).sum())


def find_mismatch(qrels: Qrels, run: Run, protocol: Protocol | None = None) -> Mismatch | None:
    """Why the ids of `qrels` and `run` half match, if a usual cause explains it (see the module)."""
    protocol = protocol if protocol is not None else Protocol()
    if len(qrels) == 0 or len(run) == 0:
        return None
    found = _swapped(qrels, run) or _queries(qrels, run, protocol)
    # a chunk map says how run doc ids name docs
    if found is None and protocol.chunk_map.kind == "none":
        found = _docs(qrels, run, protocol)
    return found
