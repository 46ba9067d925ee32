"""Reference (oracle) implementations of rankproof's measures.

This module is deliberately slow and simple: pure Python, one query at a
time, written directly from the specification so that the fast vectorised
library can be tested against it.  Nothing here imports ``rankproof``.

Conventions (the specification, restated):

* A query has a judged pool ``pool: dict[str, int]`` (doc -> grade >= 0) and
  a ``ranking``: a list of distinct doc ids, best first.  Ranks are 1-based.
* ``grade(d) = pool.get(d, 0)``; ``judged(d) = d in pool``;
  ``relevant(d) = judged(d) and grade(d) >= rel``.
* ``R`` = number of pool docs with grade >= rel (relevant);
  ``N`` = number of pool docs with grade < rel (judged non-relevant).
* ``k`` is an int >= 1 or ``None`` (no cutoff).  Positions past the end of
  the ranking contribute nothing.
* Measures that are undefined for a query return ``None`` (ndcg when the
  ideal DCG is 0; r, ap, rprec, bpref when R == 0).  The caller applies a
  policy; the oracle never guesses one.

Every measure in :data:`MEASURES` has the uniform signature
``fn(ranking, pool, **params)`` with the keyword parameters listed in
:data:`MEASURE_PARAMS`, so generic tests (and :func:`expected`) can call any
of them the same way.

Ties: :func:`order_docid` applies trec_eval's tie-break (score descending,
then doc id descending); :func:`expected` is the exact mean of a measure over
every within-tie-group order, by brute-force enumeration.
"""

from __future__ import annotations

import itertools
import math
import numbers

__all__ = [
    "dcg",
    "ideal_dcg",
    "ndcg",
    "p",
    "r",
    "ap",
    "rr",
    "hit",
    "rprec",
    "bpref",
    "judged",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "order_docid",
    "tie_groups",
    "expected",
    "MEASURES",
    "MEASURE_PARAMS",
    "MAX_ORDERS",
]


# ---------------------------------------------------------------------------
# Input checks and small helpers
# ---------------------------------------------------------------------------


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _check_pool(pool) -> None:
    if not isinstance(pool, dict):
        raise TypeError(f"pool must be a dict, got {type(pool).__name__}")
    for doc, grade in pool.items():
        if not isinstance(doc, str):
            raise TypeError(f"pool doc ids must be str, got {doc!r}")
        if not _is_int(grade) or grade < 0:
            raise ValueError(f"grade of {doc!r} must be an int >= 0, got {grade!r}")


def _check_ranking(ranking) -> None:
    if not isinstance(ranking, (list, tuple)):
        raise TypeError(f"ranking must be a list of doc ids, got {type(ranking).__name__}")
    for doc in ranking:
        if not isinstance(doc, str):
            raise TypeError(f"ranking doc ids must be str, got {doc!r}")
    if len(set(ranking)) != len(ranking):
        # The specification does not define measures for rankings that
        # repeat a document, so the oracle refuses them.
        raise ValueError("ranking contains a duplicate doc id")


def _check_k(k) -> None:
    if k is None:
        return
    if not _is_int(k) or k < 1:
        raise ValueError(f"k must be an int >= 1 or None, got {k!r}")


def _check_rel(rel) -> None:
    if not _is_int(rel):
        raise ValueError(f"rel must be an int, got {rel!r}")


def _check(ranking, pool, k=None, rel=1) -> None:
    _check_ranking(ranking)
    _check_pool(pool)
    _check_k(k)
    _check_rel(rel)


def _grade(doc, pool) -> int:
    return pool[doc] if doc in pool else 0


def _is_judged(doc, pool) -> bool:
    return doc in pool


def _is_relevant(doc, pool, rel) -> bool:
    return doc in pool and pool[doc] >= rel


def _top(ranking, k):
    """The docs at ranks 1..min(k, n); the whole ranking when k is None."""
    if k is None:
        return list(ranking)
    return list(ranking[:k])


def _num_relevant_in_pool(pool, rel) -> int:
    return sum(1 for g in pool.values() if g >= rel)


def _num_nonrelevant_in_pool(pool, rel) -> int:
    return sum(1 for g in pool.values() if g < rel)


def _gain_value(grade: int, gain) -> float:
    if gain == "linear":
        return float(grade)
    if gain == "exp2":
        return float(2**grade - 1)
    if isinstance(gain, dict):
        # Strict: a grade the mapping does not cover is an error, not 0.
        # (Unjudged docs have grade 0, so a mapping used with rankings that
        # contain unjudged docs must say what grade 0 gains.)
        if grade not in gain:
            raise KeyError(f"gain mapping has no entry for grade {grade}")
        return float(gain[grade])
    raise ValueError(f"unknown gain {gain!r}: use 'linear', 'exp2' or a dict")


def _discount_value(i: int, discount) -> float:
    """d(i) for the 1-based rank i."""
    if discount == "log2":
        return 1.0 / math.log2(i + 1)
    if discount == "reciprocal":
        return 1.0 / i
    if isinstance(discount, (list, tuple)):
        if i <= len(discount):
            return float(discount[i - 1])
        return 0.0
    raise ValueError(f"unknown discount {discount!r}: use 'log2', 'reciprocal' or a list")


def _dcg_of_gains(gains, k, discount) -> float:
    """sum_{i <= min(k, len(gains))} gains[i-1] * d(i)."""
    limit = len(gains) if k is None else min(k, len(gains))
    terms = [gains[i - 1] * _discount_value(i, discount) for i in range(1, limit + 1)]
    return math.fsum(terms)


# ---------------------------------------------------------------------------
# Measures
# ---------------------------------------------------------------------------


def dcg(ranking, pool, k=None, gain="linear", discount="log2") -> float:
    """dcg@k = sum_{i <= min(k, n)} gain(grade(doc_i)) * d(i)."""
    _check(ranking, pool, k)
    gains = [_gain_value(_grade(doc, pool), gain) for doc in ranking]
    return _dcg_of_gains(gains, k, discount)


def ideal_dcg(ranking, pool, k=None, gain="linear", discount="log2", ideal="judged") -> float:
    """DCG of the best possible order.

    ideal="judged": the gains of ALL pool docs, sorted descending, DCG over
    the first k (k=None: all of them).  This does not depend on ``ranking``
    and is not limited by its length.

    ideal="retrieved": the same but over the gains of the docs in
    ``ranking`` only (unjudged ones gain gain(0)).
    """
    _check(ranking, pool, k)
    if ideal == "judged":
        gains = [_gain_value(g, gain) for g in pool.values()]
    elif ideal == "retrieved":
        gains = [_gain_value(_grade(doc, pool), gain) for doc in ranking]
    else:
        raise ValueError(f"unknown ideal {ideal!r}: use 'judged' or 'retrieved'")
    gains.sort(reverse=True)
    return _dcg_of_gains(gains, k, discount)


def ndcg(ranking, pool, k=None, gain="linear", discount="log2", ideal="judged"):
    """dcg@k / ideal_dcg@k; None when ideal_dcg@k == 0."""
    best = ideal_dcg(ranking, pool, k=k, gain=gain, discount=discount, ideal=ideal)
    if best == 0:
        return None
    return dcg(ranking, pool, k=k, gain=gain, discount=discount) / best


def num_rel_ret(ranking, pool, k=None, rel=1) -> int:
    """Number of relevant docs in the top k."""
    _check(ranking, pool, k, rel)
    return sum(1 for doc in _top(ranking, k) if _is_relevant(doc, pool, rel))


def p(ranking, pool, k=None, rel=1) -> float:
    """(# relevant in top k) / k; k=None divides by n (n == 0 gives 0.0)."""
    _check(ranking, pool, k, rel)
    hits = num_rel_ret(ranking, pool, k=k, rel=rel)
    denominator = len(ranking) if k is None else k
    if denominator == 0:
        return 0.0
    return hits / denominator


def r(ranking, pool, k=None, rel=1):
    """(# relevant in top k) / R; None when R == 0."""
    _check(ranking, pool, k, rel)
    big_r = _num_relevant_in_pool(pool, rel)
    if big_r == 0:
        return None
    return num_rel_ret(ranking, pool, k=k, rel=rel) / big_r


def ap(ranking, pool, k=None, rel=1):
    """(1/R) * sum over relevant docs at rank i <= k of (# relevant at ranks <= i) / i.

    None when R == 0.  With k=None this is trec_eval's "map".
    """
    _check(ranking, pool, k, rel)
    big_r = _num_relevant_in_pool(pool, rel)
    if big_r == 0:
        return None
    terms = []
    relevant_so_far = 0
    for i, doc in enumerate(_top(ranking, k), start=1):
        if _is_relevant(doc, pool, rel):
            relevant_so_far += 1
            terms.append(relevant_so_far / i)
    return math.fsum(terms) / big_r


def rr(ranking, pool, k=None, rel=1) -> float:
    """1 / rank of the first relevant doc if that rank <= k, else 0.0."""
    _check(ranking, pool, k, rel)
    for i, doc in enumerate(_top(ranking, k), start=1):
        if _is_relevant(doc, pool, rel):
            return 1.0 / i
    return 0.0


def hit(ranking, pool, k=None, rel=1) -> float:
    """1.0 if any relevant doc is in the top k, else 0.0."""
    _check(ranking, pool, k, rel)
    return 1.0 if num_rel_ret(ranking, pool, k=k, rel=rel) > 0 else 0.0


def rprec(ranking, pool, rel=1):
    """(# relevant in top R) / R; None when R == 0.  No k parameter."""
    _check(ranking, pool, None, rel)
    big_r = _num_relevant_in_pool(pool, rel)
    if big_r == 0:
        return None
    return num_rel_ret(ranking, pool, k=big_r, rel=rel) / big_r


def bpref(ranking, pool, k=None, rel=1):
    """trec_eval's bpref, optionally over ranks <= k.

    k counts positions in the ranking as given, unjudged docs included: the
    ranking is first cut to its top k, then unjudged docs are skipped.
    None when R == 0.
    """
    _check(ranking, pool, k, rel)
    big_r = _num_relevant_in_pool(pool, rel)
    big_n = _num_nonrelevant_in_pool(pool, rel)
    if big_r == 0:
        return None
    terms = []
    nonrel_so_far = 0
    for doc in _top(ranking, k):
        if not _is_judged(doc, pool):
            continue  # unjudged docs count neither way
        if _is_relevant(doc, pool, rel):
            if nonrel_so_far == 0:
                terms.append(1.0)
            else:
                # nonrel_so_far > 0 implies N >= 1, so min(N, R) >= 1.
                terms.append(1.0 - min(nonrel_so_far, big_r) / min(big_n, big_r))
        else:
            nonrel_so_far += 1
    return math.fsum(terms) / big_r


def judged(ranking, pool, k=None) -> float:
    """(# judged docs in top k) / k; k=None divides by n (n == 0 gives 0.0)."""
    _check(ranking, pool, k)
    count = sum(1 for doc in _top(ranking, k) if _is_judged(doc, pool))
    denominator = len(ranking) if k is None else k
    if denominator == 0:
        return 0.0
    return count / denominator


def num_ret(ranking, pool, k=None) -> int:
    """min(k, n); k=None gives n."""
    _check(ranking, pool, k)
    return len(_top(ranking, k))


def num_rel(pool, rel=1) -> int:
    """R: the number of pool docs with grade >= rel."""
    _check_pool(pool)
    _check_rel(rel)
    return _num_relevant_in_pool(pool, rel)


def _num_rel_measure(ranking, pool, rel=1) -> int:
    """num_rel with the uniform measure signature (the ranking is ignored)."""
    _check_ranking(ranking)
    return num_rel(pool, rel=rel)


_num_rel_measure.__name__ = "num_rel"


def num_q(ranking, pool) -> int:
    """1: each evaluated query counts one (summed over the queries, the number of queries)."""
    _check_ranking(ranking)
    _check_pool(pool)
    return 1


MEASURES = {
    "dcg": dcg,
    "ndcg": ndcg,
    "p": p,
    "r": r,
    "ap": ap,
    "rr": rr,
    "hit": hit,
    "rprec": rprec,
    "bpref": bpref,
    "judged": judged,
    "num_ret": num_ret,
    "num_rel": _num_rel_measure,
    "num_rel_ret": num_rel_ret,
    "num_q": num_q,
}
"""Measure name -> function with signature ``fn(ranking, pool, **params)``."""

MEASURE_PARAMS = {
    "dcg": frozenset({"k", "gain", "discount"}),
    "ndcg": frozenset({"k", "gain", "discount", "ideal"}),
    "p": frozenset({"k", "rel"}),
    "r": frozenset({"k", "rel"}),
    "ap": frozenset({"k", "rel"}),
    "rr": frozenset({"k", "rel"}),
    "hit": frozenset({"k", "rel"}),
    "rprec": frozenset({"rel"}),
    "bpref": frozenset({"k", "rel"}),
    "judged": frozenset({"k"}),
    "num_ret": frozenset({"k"}),
    "num_rel": frozenset({"rel"}),
    "num_rel_ret": frozenset({"k", "rel"}),
    "num_q": frozenset(),
}
"""Measure name -> the keyword parameters its function accepts."""


# ---------------------------------------------------------------------------
# Tied scores
# ---------------------------------------------------------------------------


MAX_ORDERS = 1_000_000
"""expected() refuses inputs with more within-tie orders than this."""


def _check_scored(scored) -> None:
    if not isinstance(scored, (list, tuple)):
        raise TypeError("scored must be a list of (doc, score) pairs")
    seen = set()
    for item in scored:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TypeError(f"scored items must be (doc, score) pairs, got {item!r}")
        doc, score = item
        if not isinstance(doc, str):
            raise TypeError(f"doc ids must be str, got {doc!r}")
        if not isinstance(score, numbers.Real) or isinstance(score, bool):
            raise TypeError(f"score of {doc!r} must be a real number, got {score!r}")
        if math.isnan(score):
            raise ValueError(f"score of {doc!r} is NaN")
        if doc in seen:
            raise ValueError(f"doc {doc!r} appears twice in scored")
        seen.add(doc)


def order_docid(scored) -> list:
    """Rank by score descending; ties broken by doc id descending.

    Doc ids compare as Python str (code point order), which is trec_eval's
    rule (it compares docnos with strcmp, and UTF-8 byte order equals code
    point order).
    """
    _check_scored(scored)
    ordered = sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)
    return [doc for doc, _score in ordered]


def tie_groups(scored) -> list:
    """Groups of docs with exactly equal scores, in score-descending order.

    Within a group the docs are listed in doc-id-descending order, so
    ``sum(tie_groups(s), [])`` equals ``order_docid(s)``.
    """
    _check_scored(scored)
    ordered = sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)
    groups = []
    previous_score = None
    for doc, score in ordered:
        if groups and score == previous_score:
            groups[-1].append(doc)
        else:
            groups.append([doc])
        previous_score = score
    return groups


def _all_tie_orders(scored):
    """Yield every ranking obtained by permuting docs within each tie group."""
    groups = tie_groups(scored)
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [doc for group_order in choice for doc in group_order]


def expected(fn, scored, pool, **kwargs):
    """Exact mean of ``fn(ranking, pool, **kwargs)`` over all tie orders.

    Every combination of within-group permutations is one equally likely
    order.  Returns None when the measure is undefined (None) -- which, for
    the measures here, is the same for every order.
    """
    groups = tie_groups(scored)
    count = math.prod(math.factorial(len(g)) for g in groups)
    if count > MAX_ORDERS:
        raise ValueError(f"{count} tie orders to enumerate; more than MAX_ORDERS={MAX_ORDERS}")
    values = [fn(ranking, pool, **kwargs) for ranking in _all_tie_orders(scored)]
    assert len(values) == count
    nones = sum(1 for v in values if v is None)
    if nones == len(values):
        return None
    if nones:
        raise AssertionError(
            f"{fn.__name__} is None for {nones} of {len(values)} tie orders; "
            "undefinedness should not depend on the order"
        )
    return math.fsum(float(v) for v in values) / len(values)
