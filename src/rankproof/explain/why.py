"""Why a number differs from another tool's: the same data under two protocols.

``why(qrels, run, measures, "trec_eval")`` evaluates the run under
rankproof's protocol and under a peer's preset (``trec_eval``, ``trec_eval9``,
``pytrec_eval``, ``ir_measures``, ``sklearn``, ``lightgbm``, ``ranx``, ``spark``,
and the RAG frameworks ``ragas``, ``llamaindex``, ``haystack``, ``mlflow``,
``mteb``, ``beir``, ``sentence_transformers`` with their ``*_sets`` variants),
and tells, per measure:

* both means and their difference (peer minus ours);
* every policy the two protocols set differently, in words ("a doc listed
  twice gains at each copy"), how far the mean moves when only that one
  policy is switched to the peer's value, and the query it moves most with
  both values (a policy that refuses the data, such as trec_eval's
  ``missing_query=error``, says so);
* the queries whose values differ most, with both values.

The shifts of single policies need not add up to the whole difference when
policies interact (an unjudged doc inside a tied group, say); the text says
when they do not.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial

from ..errors import InputError, RankproofError
from ..evaluation import evaluate as evaluate_all, resolve_protocol
from ..measures.base import Measure
from ..measures.parse import parse_measures
from ..protocol import Protocol
from ..results import Results
from ..results.coverage import MIN_COVERAGE
from ..typing import ProtocolLike

__all__ = ["why", "Why", "PolicyShift", "QueryShift", "MeasureWhy", "POLICY_WORDS", "policy_words"]

# What each option of a policy does, in words: policy -> option -> phrase.
_WORDS: dict[str, dict[str, str]] = {
    "duplicates": {
        "error": "a doc listed twice is refused",
        "first": "a doc listed twice counts once, "
                 "its later copies dropped (the docs after move up)",
        "count": "a doc listed twice is counted twice, gaining at each copy",
        "once": "a doc listed twice keeps both ranks but is credited once",
    },
    "ties": {
        "expected": "tied docs averaged over their orders",
        "docid": "tied docs ordered by doc id descending",
        "input": "tied docs kept in input order (the list's order)",
        "error": "tied docs refused",
    },
    "missing_query": {
        "zero": "a query the run leaves empty scores 0",
        "exclude": "a query the run leaves empty is left out of the mean",
        "error": "a query the run leaves empty is refused",
    },
    "zero_ideal": {
        "zero": "a query with nothing relevant scores 0",
        "one": "a query with nothing relevant scores 1",
        "exclude": "a query with nothing relevant is left out of the mean",
        "error": "a query with nothing relevant is refused",
        "drop": "a query with nothing relevant is left out of every measure's mean, "
                "P, hit and RR too",
    },
    "ap_denominator": {
        "relevant": "AP divides by R, the relevant docs of the query",
        "min_k": "AP@k divides by min(R, k)",
        "hits": "AP divides by the relevant docs retrieved, not by R",
    },
    "precision_denominator": {
        "k": "P@k divides by k",
        "retrieved": "P@k divides by the docs retrieved, at most k",
    },
    "recall_denominator": {
        "relevant": "R@k divides by R",
        "min_k": "R@k divides by min(R, k)",
    },
    "identical_ids": {
        "keep": "a doc whose id is its query's id is kept",
        "drop": "a doc whose id is its query's id is dropped",
    },
    "subqueries": {
        "none": "sub-queries measured one by one",
        "max": "sub-queries merged into their query, each doc at its best score",
    },
    "unjudged": {
        "zero": "an unjudged doc counts as not relevant",
        "condense": "unjudged docs are dropped from the ranking",
        "error": "an unjudged doc is refused",
    },
    "negative_grades": {
        "unjudged": "a negative grade is read as unjudged",
        "zero": "a negative grade is read as not relevant",
        "error": "a negative grade is refused",
    },
    "score_precision": {
        "float32": "scores held as float32, so near-equal scores tie",
        "float64": "scores held as float64",
    },
    "iprec_rounding": {
        "legacy": "interpolated precision cut at (long)(x R + 0.9)",
        "round": "interpolated precision cut at lround(x R)",
    },
    "counts": {
        "sum": "count measures (num_ret, num_rel, num_rel_ret) summed over the queries",
        "mean": "count measures (num_ret, num_rel, num_rel_ret) averaged over the queries",
    },
    "gain": {
        "linear": "gain g",
        "exp2": "gain 2^g - 1",
    },
    "ideal": {
        "judged": "the ideal ranking from every judged doc",
        "retrieved": "the ideal ranking from the retrieved docs only",
        "expanded": "a repeated relevant doc is one more relevant doc in the ideal, and the ideal "
                    "is cut at the list's length",
    },
}
# The same by (policy, option), as policy_words looks them up.
POLICY_WORDS: dict[tuple[str, str], str] = {
    (policy, option): words
    for policy, options in _WORDS.items() for option, words in options.items()
}


def policy_words(policy: str, option: str) -> str:
    """What `option` of `policy` does, in words (the policy=option text when no phrase is known).

    >>> policy_words("duplicates", "count")
    'a doc listed twice is counted twice, gaining at each copy'
    """
    return POLICY_WORDS.get((policy, option), f"{policy}={option}")


@dataclasses.dataclass(frozen=True)
class PolicyShift:
    """One policy set differently: our value, the peer's, and the mean under ours with only it switched."""

    policy: str
    ours: str
    peer: str
    shift: float | None  # mean with only this policy switched, minus our mean; None: refused
    refused: str | None = None  # the error the switched policy raised on this data
    # The query this policy alone moves most: (query, ours, with the policy switched).
    example: "tuple[object, float | None, float | None] | None" = None

    @property
    def words(self) -> str:
        """The peer's option in words ("a doc listed twice is counted twice, gaining at each copy")."""
        return policy_words(self.policy, self.peer)


@dataclasses.dataclass(frozen=True)
class QueryShift:
    query: object
    ours: float | None  # None: the protocol leaves the query out of the mean
    peer: float | None
    policies: tuple[str, ...] = ()  # the policies whose switch alone changes this query's value

    @property
    def difference(self) -> float:
        if self.ours is None or self.peer is None:
            return math.nan
        return self.peer - self.ours


@dataclasses.dataclass(frozen=True)
class MeasureWhy:
    measure: Measure
    ours: float
    peer: float | None  # None: the peer's protocol refuses this data
    policies: tuple[PolicyShift, ...]
    queries: tuple[QueryShift, ...]  # the most different first
    queries_differing: int
    refused: str | None = None

    @property
    def difference(self) -> float:
        return math.nan if self.peer is None else self.peer - self.ours


@dataclasses.dataclass(frozen=True)
class Why:
    """What separates our number from the peer's, measure by measure."""

    peer: str
    ours: Protocol
    theirs: Protocol
    run_name: str
    measures: tuple[MeasureWhy, ...]

    def get(self, measure: "str | Measure") -> MeasureWhy:
        key = parse_measures([measure])[0]
        for item in self.measures:
            if item.measure == key:
                return item
        raise KeyError(str(key))

    def summary(self, digits: int = 7) -> str:
        """Means, differing policies with their shifts, and the queries that moved most, as text."""
        f = f"{{:.{digits}f}}"

        def signed(value: float) -> str:
            # A difference that rounds to zero at this precision reads 0, not -0.0000000.
            text = f"{value:+.{digits}f}"
            return "0" if float(text) == 0.0 else text

        lines = [f"{self.run_name}: rankproof protocol {self.ours.fingerprint} vs {self.peer} preset "
                 f"{self.theirs.fingerprint}"]
        if not self.ours.differences(self.theirs):
            lines.append("the two protocols are the same: the numbers cannot differ")
        for item in self.measures:
            if item.refused is not None:
                lines.append(f"{item.measure}: ours {f.format(item.ours)}; {self.peer} refuses this data: "
                             f"{item.refused}")
            else:
                lines.append(f"{item.measure}: ours {f.format(item.ours)}, {self.peer} {f.format(item.peer)}, "
                             f"difference {signed(item.difference)} ({self.peer} - ours)")
            if item.policies:
                lines.append("  policies that differ (the mean moves by, when only that one is switched):")
                width = max(len(f"{p.policy}={p.ours} -> {p.peer}") for p in item.policies)
                for p in item.policies:
                    label = f"{p.policy}={p.ours} -> {p.peer}"
                    if p.shift is None:  # refused
                        lines.append(f"    {label:<{width}}  refused: {p.refused}")
                    else:
                        note = "  (no effect on this data)" if abs(p.shift) < 1e-15 else ""
                        lines.append(f"    {label:<{width}}  {signed(p.shift)}{note}")
                    lines.append(f"      {p.words}{_example(p, f)}")
                shifts = [p.shift for p in item.policies if p.shift is not None]
                if item.peer is not None and shifts and abs(sum(shifts) - item.difference) > 1e-12:
                    lines.append("  (the single shifts do not add up to the difference: the policies interact)")
            if item.queries_differing and not item.queries:   # top=0: the count only
                lines.append(f"  queries that differ: {item.queries_differing}")
            if item.queries:
                lines.append(f"  queries that differ: {item.queries_differing}; the largest:")
                for q in item.queries:
                    ours = "excluded" if q.ours is None else f.format(q.ours)
                    peer = "excluded" if q.peer is None else f.format(q.peer)
                    change = "" if math.isnan(q.difference) else f" ({signed(q.difference)})"
                    by = f"; moved by {', '.join(q.policies)}" if q.policies else ""
                    lines.append(f"    query {q.query}: ours {ours}, {self.peer} {peer}{change}{by}")
            elif item.peer is not None and not item.queries_differing:
                lines.append("  no query differs")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _example(p: PolicyShift, f: str) -> str:
    """': query q1 2.0000000 instead of 1.0000000' for the query the policy alone moves most."""
    if p.example is None:
        return ""
    query, ours, switched = p.example
    def shown(value: float | None) -> str:
        return "left out" if value is None else f.format(value)
    return f": query {query} {shown(switched)} instead of {shown(ours)}"


def _largest_move(mine: dict, switched: dict) -> "tuple[object, float | None, float | None] | None":
    """The query whose value moves most when one policy is switched (one left out first)."""
    best, best_size = None, -1.0
    for query in dict.fromkeys([*mine, *switched]):
        a, b = mine.get(query), switched.get(query)
        if not _differs(a, b):
            continue
        size = math.inf if a is None or b is None else abs(b - a)
        if size > best_size:
            best, best_size = (query, a, b), size
    return best


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is not b
    return abs(a - b) > 1e-12


def _query_shifts(our_results, peer_results, switched: dict, measure, top: int) -> tuple[list, int]:
    """The `top` queries whose value differs most between our protocol and the peer's (each with
    the switched policies that move it), and how many differ at all."""
    queries: list[QueryShift] = []
    differing_count = 0
    if peer_results is not None:
        mine = our_results.per_query(measure)
        theirs_values = peer_results.per_query(measure)
        everyone = list(dict.fromkeys([*our_results.queries, *peer_results.queries]))
        shifts = [QueryShift(q, mine.get(q), theirs_values.get(q)) for q in everyone]
        moved = [s for s in shifts if s.ours is None or s.peer is None or abs(s.difference) > 1e-12]
        differing_count = len(moved)
        # Left out by one side first (they move the mean most surely), then by |difference|.
        moved.sort(key=lambda s: (-math.inf if math.isnan(s.difference) else -abs(s.difference)))
        switched_values = {policy: results.per_query(measure)
                           for policy, (results, _) in switched.items()
                           if results is not None}
        queries = [dataclasses.replace(s, policies=tuple(
            policy for policy, values in switched_values.items()
            if _differs(values.get(s.query), s.ours)))
            for s in moved[:top]]
    return queries, differing_count


def why(qrels, run, measures, peer: str, protocol: ProtocolLike = None, *, top: int = 5,
        allow_partial: bool = False, min_coverage: float = MIN_COVERAGE) -> Why:
    """Evaluate `run` under our protocol and under `peer`'s preset, and say what separates them.

    Parameters
    ----------
    qrels, run : Qrels, Run
    measures : str, Measure or iterable of them
    peer : str
        A preset: ``trec_eval``, ``trec_eval9``, ``pytrec_eval``, ``ir_measures``,
        ``sklearn``, ``lightgbm``, ``ranx``, ``spark``, ``ragas``, ``ragas_sets``,
        ``llamaindex``, ``llamaindex_sets``, ``haystack``, ``mlflow``, ``mlflow_sets``,
        ``mteb``, ``beir`` or ``sentence_transformers``.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        Ours.
    top : int
        How many of the most different queries to list per measure.
    allow_partial, min_coverage
        :func:`rankproof.evaluate`'s coverage guard, for each evaluation.

    Returns
    -------
    Why
        ``summary()`` prints it; ``get(measure)`` gives the means, the
        policy shifts and the queries.

    Examples
    --------
    Two docs tie; trec_eval orders them by doc id descending, so "b" (not
    relevant) comes first, and rr is 1/2 instead of the mean over both orders
    (1 + 1/2) / 2 = 0.75:

    >>> from rankproof import Qrels, Run
    >>> qrels = Qrels.from_dict({"q": {"a": 1}})
    >>> run = Run.from_dict({"q": {"a": 1.0, "b": 1.0}})
    >>> w = why(qrels, run, "rr", "trec_eval")
    >>> item = w.get("rr")
    >>> item.ours, item.peer
    (0.75, 0.5)
    >>> [(p.policy, p.shift) for p in item.policies if p.shift]
    [('ties', -0.25)]
    """
    theirs = Protocol.preset(peer)  # an unknown name is refused, with the near ones
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise InputError(what=f"top must be a count of queries, 0 or more (got {top!r})", value=top,
                         fix="give 0 for the count alone; a negative count would list from the end")
    ours = resolve_protocol(protocol)
    measure_list = list(dict.fromkeys(parse_measures(measures)))
    evaluate = partial(evaluate_all, allow_partial=allow_partial, min_coverage=min_coverage)
    our_results = evaluate(qrels, run, measure_list, ours)
    try:
        peer_results = evaluate(qrels, run, measure_list, theirs)
        peer_refused = None
    except RankproofError as error:
        peer_results, peer_refused = None, str(error)

    differing = ours.differences(theirs)
    switched: dict[str, tuple[Results | None, str | None]] = {}
    for policy in differing:
        try:
            switched[policy] = (evaluate(qrels, run, measure_list,
                                         ours.replace(**{policy: getattr(theirs, policy)})),
                                None)
        except RankproofError as error:
            switched[policy] = (None, str(error))

    items = []
    for measure in measure_list:
        ours_mean = our_results.mean(measure)
        policies = []
        for policy, (ours_text, peer_text) in differing.items():
            results, refused = switched[policy]
            shift = None if results is None else results.mean(measure) - ours_mean
            example = None if results is None else _largest_move(our_results.per_query(measure),
                                                                 results.per_query(measure))
            policies.append(PolicyShift(policy, ours_text, peer_text, shift, refused, example))
        queries, differing_count = _query_shifts(our_results, peer_results, switched, measure, top)
        items.append(MeasureWhy(measure=measure, ours=ours_mean,
                                peer=None if peer_results is None else peer_results.mean(measure),
                                policies=tuple(policies), queries=tuple(queries),
                                queries_differing=differing_count, refused=peer_refused))
    return Why(peer=peer, ours=ours, theirs=theirs, run_name=run.name, measures=tuple(items))
