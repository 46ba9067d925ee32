"""Expected exposure of a stochastic ranking policy (Diaz, Mitra, Ekstrand, Biega and Carterette, CIKM 2020).

A policy answers a query with a distribution over rankings: several sampled
rankings (each a :class:`~rankproof.Run`, with a probability or equally
likely), a Plackett-Luce policy drawn from a run's scores
(:func:`plackett_luce`), or one ranking (a deterministic policy). Under the
RBP browsing model with patience :math:`\\gamma` the item at 0-based rank
:math:`i` gets the attention :math:`\\gamma^{i}` (none past the cutoff k), and
its **expected exposure** :math:`\\epsilon_d` is the mean over the policy's
rankings.

The **target exposure** :math:`\\epsilon^*_d` is that of the ideal policy: the
relevant items (grade >= ``rel``) ranked by grade, the items of one grade in a
uniformly random order, so the :math:`m` items of a grade whose :math:`b` items
of higher grades come first share the exposure of positions :math:`b \\ldots
b + m - 1` equally; every other item gets 0:

.. math:: \\epsilon^*_d = \\frac{1}{m} \\sum_{i=b}^{\\min(b+m, k)-1} \\gamma^{i}

The three numbers per query (as the paper and its reference code ``expeval``
name them, unnormalised):

.. math:: \\text{EE-L} = \\lVert\\epsilon - \\epsilon^*\\rVert_2^2, \\quad
          \\text{EE-D} = \\lVert\\epsilon\\rVert_2^2, \\quad
          \\text{EE-R} = \\epsilon^\\top \\epsilon^*, \\quad
          \\text{EE-L} = \\text{EE-D} - 2\\,\\text{EE-R} + \\lVert\\epsilon^*\\rVert_2^2

EE-L (lower is better) is the distance to the ideal policy; EE-D (lower:
exposure spread more evenly) the disparity; EE-R (higher is better) the
exposure given to relevant items.

Policies, as in ``expeval``: a query without a relevant item has no target
(its values are nan, left out of the means); a query judged but in no sample
gets no exposure (EE-D = EE-R = 0, EE-L = the target's norm). Under the
protocol's ``ties=expected`` the items tied on score in one ranking share the
exposure of their positions (the expectation over the tie's orders: a
deterministic run with ties is a stochastic policy); ``ties=error`` refuses a
tie inside the cutoff; ``docid`` and ``input`` break it.

Examples
--------
Two relevant items a, b (grade 1), one ranking: a, b, c; gamma 0.5. The
exposures are 1, 0.5, 0.25; the target gives a and b (1 + 0.5) / 2 = 0.75 each.
EE-D = 1 + 0.25 + 0.0625, EE-R = 0.75 + 0.375, EE-L = 0.0625 + 0.0625 + 0.0625.

>>> from rankproof import Qrels, Run
>>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 1}})
>>> result = expected_exposure(qrels, Run.from_dict({"q": ["a", "b", "c"]}), gamma=0.5)
>>> float(result.disparity[0]), float(result.relevance[0]), float(result.loss[0])
(1.3125, 1.125, 0.1875)

The two orders of a and b, equally likely, reach the target on a and b:

>>> both = [Run.from_dict({"q": ["a", "b", "c"]}), Run.from_dict({"q": ["b", "a", "c"]})]
>>> float(expected_exposure(qrels, both, gamma=0.5).loss[0])
0.0625
"""

from __future__ import annotations

import dataclasses
import math
import os
import zlib
from typing import Any, Mapping, Sequence

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, ParseError, literal
from ..protocol import Protocol
from .attention import ranked_attention
from .measure_value import MeasureValue
from .side_params import in_open_unit

__all__ = ["ExpectedExposure", "expected_exposure", "plackett_luce", "read_samples",
           "target_exposure",
           "QUANTITIES"]

QUANTITIES = ("loss", "disparity", "relevance")


@dataclasses.dataclass(frozen=True)
class ExpectedExposure(MeasureValue):
    """EE-L, EE-D and EE-R per query of a stochastic ranking policy (its ``measure`` e.g.
    ``ee(gamma=0.5)@10``).

    Attributes
    ----------
    queries : numpy.ndarray of str
        The judged queries and the policy's queries, sorted.
    loss, disparity, relevance : numpy.ndarray of float64
        EE-L, EE-D and EE-R per query; nan where the query has no relevant item.
    target : numpy.ndarray of float64
        :math:`\\lVert\\epsilon^*\\rVert_2^2` per query (the loss of a policy that exposes nothing).
    samples : int
        Rankings the policy was given as.
    """

    queries: np.ndarray
    loss: np.ndarray
    disparity: np.ndarray
    relevance: np.ndarray
    target: np.ndarray
    samples: int

    def mean(self, quantity: str = "loss") -> float:
        """The mean of ``loss``, ``disparity`` or ``relevance`` over the queries with a relevant item."""
        if quantity not in QUANTITIES:
            raise InputError(what=f"quantity must be one of {', '.join(QUANTITIES)}; got "
                             f"{literal(repr(quantity))}", value=quantity)
        values = getattr(self, quantity)
        defined = values[~np.isnan(values)]
        return float(defined.mean()) if defined.size else math.nan


def _cutoff(k: Any) -> float:
    if k is None:
        return math.inf
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(what=f"the cutoff k must be an integer >= 1 or None; got {literal(repr(k))}", value=k)
    return float(k)


def target_exposure(qrels: Qrels, *, gamma: float = 0.5, k: "int | None" = None, rel: float = 1):
    """Each relevant item's target exposure :math:`\\epsilon^*` (see the module's formula).

    Returns (query, doc, exposure): three arrays, one row per relevant judgment.

    >>> q, d, e = target_exposure(Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 1, "x": 0}}), gamma=0.5)
    >>> d.tolist(), e.tolist()
    (['a', 'b', 'c'], [1.0, 0.375, 0.375])
    """
    gamma, cut = in_open_unit("gamma (the patience)", gamma, example=0.5), _cutoff(k)
    grades = np.asarray(qrels.grades, dtype=np.float64)
    row_query = np.repeat(np.arange(len(qrels.queries)), np.diff(qrels.offsets))
    keep = np.flatnonzero(grades >= rel)
    order = keep[np.lexsort((qrels.docs[qrels.doc_codes[keep]], -grades[keep], row_query[keep]))]
    query, grade = row_query[order], grades[order]
    n = len(order)
    new_query = np.r_[True, query[1:] != query[:-1]] if n else np.zeros(0, dtype=bool)
    new_tier = new_query | (np.r_[True, grade[1:] != grade[:-1]] if n else new_query)
    first_of_query = (np.maximum.accumulate(np.where(new_query, np.arange(n), 0)) if n
                      else np.zeros(0, int))
    tier = np.cumsum(new_tier) - 1
    tier_start = np.flatnonzero(new_tier)
    size = np.diff(np.r_[tier_start, n])[tier]
    before = (tier_start[tier] - first_of_query).astype(np.float64)      # b: items of higher grades
    end = np.minimum(before + size, cut)
    exposure = np.where(before < cut, (gamma ** before - gamma ** end) / (size * (1.0 - gamma)),
                        0.0)
    return qrels.queries[query], qrels.docs[qrels.doc_codes[order]], exposure


def _vocabulary(parts: list) -> np.ndarray:
    """The sorted union of sorted id arrays (the samples of one policy usually share theirs: merged once)."""
    distinct: list[np.ndarray] = []
    for part in parts:
        if (not distinct
            or not (len(part) == len(distinct[-1]) and np.array_equal(part, distinct[-1]))):
            distinct.append(np.asarray(part, dtype=str))
    return distinct[0] if len(distinct) == 1 else np.unique(np.concatenate(distinct))


def _as_samples(samples, weights) -> tuple[list[Run], np.ndarray]:
    runs = [samples] if isinstance(samples, Run) else list(samples)
    if not runs or not all(isinstance(run, Run) for run in runs):
        raise InputError(what="samples must be a Run or a non-empty sequence of Runs (one sampled ranking "
                         "per query in each)", value=type(samples).__name__)
    if weights is None:
        return runs, np.full(len(runs), 1.0 / len(runs))
    w = np.asarray(weights, dtype=np.float64)
    if (w.shape != (len(runs),) or not np.isfinite(w).all() or (w < 0).any() or not abs(w.sum() - 1)
        < 1e-9):
        raise InputError(what=f"weights must give each of the {len(runs)} samples a probability, summing to 1",
                         fix="give one non-negative weight per sample, or none (equally likely)")
    return runs, w


def expected_exposure(qrels: "Qrels | Mapping[str, Mapping[str, float]]",
                      samples: "Run | Sequence[Run]", *,
                      weights: "Sequence[float] | None" = None, gamma: float = 0.5,
                      k: "int | None" = None,
                      rel: float = 1, protocol: "Protocol | None" = None) -> ExpectedExposure:
    """EE-L, EE-D and EE-R per query of the policy given as `samples` (see the module's docstring).

    Parameters
    ----------
    qrels : Qrels or dict
        The judgments; items with grade >= `rel` are relevant, a tier per grade.
    samples : Run or sequence of Run
        The policy's rankings (a run file with a sample per iteration column: one Run per sample).
    weights : sequence of float, optional
        Each sample's probability (summing to 1); equally likely when omitted.
    gamma : float
        The browsing model's patience, in (0, 1); 0.5 as ``expeval``'s default.
    k : int, optional
        The cutoff: positions from k on get no attention (None: the whole ranking).
    """
    protocol = protocol if protocol is not None else Protocol()
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.from_dict(qrels)
    gamma, cut = in_open_unit("gamma (the patience)", gamma, example=0.5), _cutoff(k)
    runs, w = _as_samples(samples, weights)
    t_query, t_doc, t_value = target_exposure(qrels, gamma=gamma, k=k, rel=rel)
    # One vocabulary of queries and of docs over the samples and the judgments; rows become int64
    # keys (query * docs + doc), so that no per-row string is copied or sorted.
    queries = _vocabulary([run.queries for run in runs] + [np.unique(t_query)])
    docs = _vocabulary([run.docs for run in runs] + [np.unique(t_doc)])
    width = max(len(docs), 1)
    keys, exposure = [], []
    for run, weight in zip(runs, w):
        query, doc, attention = ranked_attention(run, lambda rank: gamma ** rank, protocol, cut)
        q_map, d_map = np.searchsorted(queries, run.queries), np.searchsorted(docs, run.docs)
        keys.append(q_map[query] * width + d_map[doc])
        exposure.append(attention * weight)
    keys.append(np.searchsorted(queries, t_query) * width + np.searchsorted(docs, t_doc))
    exposure.append(np.zeros(len(t_query)))
    target = np.r_[np.zeros(sum(len(key) for key in keys[:-1])), t_value]
    pair, pair_of = np.unique(np.concatenate(keys), return_inverse=True)
    exposure_of_row = np.concatenate(exposure)
    eps, star = (np.bincount(pair_of, exposure_of_row, len(pair)),
                 np.bincount(pair_of, target, len(pair)))
    query_of_pair = pair // width
    per_query = [np.bincount(query_of_pair, x, len(queries))
                 for x in (eps * eps, eps * star, star * star,
                                                                          (eps - star) ** 2)]
    judged = np.bincount(query_of_pair, star > 0, len(queries)) > 0
    disparity, relevance, norm, loss = (np.where(judged, x, np.nan) for x in per_query)
    name = f"ee(gamma={gamma:g})" + (f"@{int(cut)}" if k is not None else "")
    return ExpectedExposure(name, queries, loss, disparity, relevance, norm, len(runs))


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: 64 well-mixed bits from any 64 (uint64 arithmetic wraps, on purpose)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _row_keys(run: Run, seed: int) -> np.ndarray:
    """A 64-bit key per row from (seed, query id, doc id) alone: the draws do not depend on the rows'
    order or on which other queries share the run (a Spark partition draws what one machine does)."""
    query_hash = np.array([zlib.crc32(q.encode()) for q in run.queries.tolist()], dtype=np.uint64)
    doc_hash = np.array([zlib.crc32(d.encode()) for d in run.docs.tolist()], dtype=np.uint64)
    query = np.repeat(np.arange(run.num_queries), np.diff(run.offsets))
    with np.errstate(over="ignore"):
        key = _mix(np.uint64(seed % 2**64) * _GOLDEN + query_hash[query])
        return _mix(key ^ (doc_hash[run.doc_codes] << np.uint64(32)))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def plackett_luce(run: Run, samples: int = 100, *, seed: int = 0,
                  temperature: float = 1.0) -> list[Run]:
    """`samples` rankings drawn from the Plackett-Luce policy of the run's scores.

    Each query's items are drawn without replacement with probability proportional to
    :math:`\\exp(s_d / T)` (the Gumbel-max form: sort by :math:`s_d / T` plus Gumbel noise). Each
    draw's noise comes from (`seed`, the query, the doc, the draw's number) alone, so a query's
    rankings do not depend on the rows' order or on the other queries of the run.

    >>> draws = plackett_luce(Run.from_dict({"q": {"a": 5.0, "b": 0.0}}), 200, seed=1)
    >>> sum(d.docs[d.doc_codes[int(np.argmax(d.scores))]] == "a" for d in draws) > 190   # e^5/(e^5+1) = 0.993
    True
    """
    if not run.has_scores and len(run):
        raise InputError(what="a Plackett-Luce policy draws from the run's scores; this run has none",
                         fix="give a run with scores, or the sampled rankings themselves")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise InputError(what=f"samples must be an integer >= 1; got {literal(repr(samples))}",
                         value=samples)
    if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
        or not temperature > 0):
        raise InputError(what=f"temperature must be > 0; got {literal(repr(temperature))}",
                         value=temperature)
    keys = _row_keys(run, int(seed))
    query_codes = np.repeat(np.arange(run.num_queries), np.diff(run.offsets))
    base = run.scores / float(temperature)
    draws = []
    for i in range(int(samples)):
        with np.errstate(over="ignore"):
            bits = _mix(keys + np.uint64(i + 1) * _GOLDEN) >> np.uint64(11)
        uniform = (bits.astype(np.float64) + 0.5) / 2.0 ** 53        # in (0, 1)
        draws.append(Run(query_codes=query_codes, queries=run.queries, doc_codes=run.doc_codes,
                         docs=run.docs,
                         scores=base - np.log(-np.log(uniform)), source=run.source,
                         name=f"{run.name} PL sample {i + 1}"))
    return draws


def read_samples(path: "str | os.PathLike[str]") -> list[Run]:
    """A stochastic policy's rankings from a TREC-shaped run file whose second column numbers the sample
    (``query sample doc rank score [tag]``, as TREC Fair Ranking's and expeval's run files): one Run per
    sample, in order of first appearance; each sample's docs ranked by score.

    A query missing from a sample is a query that sample did not rank (no exposure there).
    """
    samples: dict[str, dict[str, dict[str, float]]] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < 5:
                raise ParseError(source=str(path), line=number,
                                 what=f"expected 'query sample doc rank score'; "
                                 f"got {len(fields)} fields",
                                 fix="write one ranked doc per line, the sample's "
                                 "number in the second column", value=line.strip()[:80])
            query, sample, doc, score = fields[0], fields[1], fields[2], fields[4]
            try:
                value = float(score)
            except ValueError:
                raise ParseError(source=str(path), line=number, query=query, doc=doc,
                                 what=f"score {literal(repr(score[:40]))} is not a number",
                                 fix="write the score in the fifth column",
                                 value=score[:40]) from None
            ranking = samples.setdefault(sample, {}).setdefault(query, {})
            if doc in ranking:
                raise ParseError(source=str(path), line=number, query=query, doc=doc,
                                 what=f"doc appears twice in sample {literal(sample[:40])}",
                                 fix="rank each doc once per sample", value=doc)
            ranking[doc] = value
    if not samples:
        raise ParseError(source=str(path), what="no ranked doc", fix="give one line per ranked doc")
    return [Run.from_dict(rankings, source=str(path), name=f"sample {sample}")
            for sample, rankings in
            samples.items()]


# -- the registry (rankproof evaluate QRELS RUN -m ee_l@10 -m "ee_r(policy=plackett_luce)@10") -----


def _registered(quantity: str):
    def compute(run: Run, k, side, params: dict, protocol: Protocol):
        from .beyond import ListValues

        samples = ([run] if params["policy"] == "deterministic" else
                   plackett_luce(run, params["samples"], seed=params["seed"],
                                 temperature=params["temperature"]))
        result = expected_exposure(side.judgments, samples, gamma=params["gamma"], k=k,
                                   rel=protocol.rel,
                                   protocol=protocol)
        values = dict(zip(result.queries.tolist(), getattr(result, quantity).tolist()))
        per_query = np.array([values.get(q, np.nan) for q in run.queries.tolist()],
                             dtype=np.float64)
        lengths = np.diff(run.offsets)
        name = "ee_" + quantity[0] + result.measure[2:]
        return ListValues(name, run.queries, per_query,
                          np.minimum(lengths, k) if k is not None else lengths)
    return compute


def _register() -> None:
    from .registry import LIST, SideParam, SideSpec, register_side
    from .side_params import choice, open_unit, positive, positive_int

    params = (SideParam("gamma", open_unit, 0.5,
                        "gamma=0.5: the browsing model's patience, in (0, 1)"),
              SideParam("policy", choice("deterministic", "plackett_luce"), "deterministic",
                        "policy=deterministic (the run's ranking; ties=expected shares a tie's exposure) or "
                        "plackett_luce (rankings drawn from the run's scores)"),
              SideParam("samples", positive_int, 100,
                        "samples=100: rankings drawn by policy=plackett_luce"),
              SideParam("seed", int, 0, "seed=0: the draws of policy=plackett_luce"),
              SideParam("temperature", positive, 1.0,
                        "temperature=1: policy=plackett_luce draws with "
                        "probability proportional to exp(score / temperature)"))
    common: dict[str, Any] = dict(needs_cutoff=False, judgments=True,
                                  value_range=(0.0, float(np.inf)),
                                  reads="the judgments (QRELS) and the run")
    model = ("under the RBP browsing model (attention gamma^rank, 0-based); the ideal policy ranks by grade, "
             "each grade's items sharing its positions' exposure (Diaz et al., CIKM 2020)")
    register_side(
        SideSpec("ee_l", "EE-L",
                 f"expected exposure loss: the squared distance of the items' expected exposure "
                 f"from the ideal policy's, {model}", LIST, (), _registered("loss"), params,
                 higher_is_better=False, **common),
        SideSpec("ee_d", "EE-D",
                 f"expected exposure disparity: the squared norm of the items' expected exposure "
                 f"(lower: spread more evenly), {model}", LIST, (), _registered("disparity"),
                 params,
                 higher_is_better=False, **common),
        SideSpec("ee_r", "EE-R",
                 f"expected exposure relevance: the dot product of the items' expected exposure "
                 f"with the ideal policy's, {model}", LIST, (), _registered("relevance"), params,
                 higher_is_better=True, **common))


_register()
