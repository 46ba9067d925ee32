"""Sampled evaluation: each positive ranked among N sampled negatives, beside the full ranking.

Many recommender papers rank each held-out item among 100 sampled
non-relevant items instead of the whole catalogue. Krichene and Rendle
("On Sampled Metrics for Item Recommendation", KDD 2020) show the sampled
metric is biased (the sampled rank underestimates the full rank, so a top-k
measure comes out far too high) and can even swap which of two models is
better. :func:`evaluate_sampled` evaluates a score matrix both ways, prints
the measured bias, and gives their corrected estimate.

The setting (the paper's): every positive (user, item) pair is one case.
Its *full rank* r is 1 + the number of the user's negatives (candidates
that are not positive) scored at least as high (ties count against the
positive: a constant scorer gets no credit); the user's other positives are
left out of its ranking, as in leave-one-out evaluation. Its *sampled rank*
r~ is 1 + the number of m sampled negatives scored at least as high. A
measure is a function of the rank: ``ndcg@k`` = 1/log2(r + 1) if r <= k,
``hit@k`` (``r@k``, ``recall@k``) = [r <= k], ``p@k`` = [r <= k] / k, ``rr``
(``ap``) = 1/r; the value is the mean over the cases.

The correction. With m negatives drawn uniformly without replacement from
the user's n negatives, r~ - 1 is hypergeometric: P(r~ = j + 1 | r) is the
chance of drawing j of the r - 1 negatives above the positive in m draws
from n (the paper writes the binomial, for draws with replacement; ours are
without, so the exact law is the hypergeometric). A corrected metric gives
each sampled rank a value x[r~] chosen so that its expectation given the
full rank is close to the metric: with A[r, j] = P(r~ = j | r) (r = 1..n)
and b[r] = M(r), the paper's bias-variance trade-off minimises

    sum_r ( (A x)[r] - b[r] )^2 + gamma * sum_r Var(x[r~] | r),

whose solution is x = ((1 - gamma) A'A + gamma diag(c))^-1 A'b with
c[j] = sum_r A[r, j]. Assumptions, as in the paper: every full rank
1..n weighs the same in the sum (the unknown distribution of ranks is taken
as uniform), and negatives are drawn uniformly. gamma = 0 is their strictly
minimal-bias estimator; A'A is then so ill-conditioned (the sampled ranks
of r and r + 1 are almost alike) that x takes values of 1e6 and the
estimate is noise, so ``gamma`` must be positive. gamma = 1 is the
posterior mean of the metric given the sampled rank, the least variance and
the most bias. The default 0.01 keeps the bias near its minimum with bounded
variance; in the paper's MovieLens experiment (6,040 users, 100 repeats)
gamma = 0.1 ordered three models right most often, at a larger bias. With
popularity-proportional sampling the law of r~ is not hypergeometric and
depends on which items are popular: no correction is given (NaN) and the
table says so.

Negatives are drawn per user with exponential keys (uniform: keys
Exp(1); popularity: Exp(1) / popularity, Efraimidis and Spirakis' weighted
sampling without replacement) and the m smallest keys taken, rows in
chunks, from one seeded generator: the same seed gives the same numbers.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable, Literal, Sequence

import numpy as np

from ..errors import InputError, MeasureError, literal
from ..measures import REGISTRY
from ..measures.parse import parse_measure

__all__ = ["Sampled", "SampledEvaluation", "evaluate_sampled", "corrected_values", "rank_measure",
           "sampled_rank_law"]

# Cells (rows x items) of one chunk of the score matrix handled at once.
_CHUNK_CELLS = 4_000_000


@dataclasses.dataclass(frozen=True)
class Sampled:
    """How negatives are sampled: ``Sampled(negatives=100, seed=0)``.

    Attributes
    ----------
    negatives : int
        Negatives drawn per user (all of them when a user has fewer).
    seed : int
        Seed of the generator; the same seed gives the same draws.
    sampling : {'uniform', 'popularity'}
        Uniform over the user's negatives, or proportional to the items'
        popularity (``popularity=`` of :func:`evaluate_sampled`).
    gamma : float
        The correction's bias-variance weight, in (0, 1].
    """

    negatives: int = 100
    seed: int = 0
    sampling: Literal["uniform", "popularity"] = "uniform"
    gamma: float = 0.01

    def __post_init__(self) -> None:
        if isinstance(self.negatives, bool) or not isinstance(self.negatives, (int, np.integer)) \
                or self.negatives < 1:
            raise InputError(what=literal(f"negatives={self.negatives!r} is not a whole number of 1 or more"),
                             value=self.negatives,
                             fix="give how many negatives to sample per user, e.g. 100")
        if self.sampling not in ("uniform", "popularity"):
            raise InputError(what=literal(f"sampling={self.sampling!r} is not 'uniform' or 'popularity'"),
                             value=self.sampling,
                             fix="choose sampling='uniform' or sampling='popularity'")
        if not (isinstance(self.gamma, (int, float)) and 0 < self.gamma <= 1):
            raise InputError(what=literal(f"gamma={self.gamma!r} is not in (0, 1]"),
                             value=self.gamma,
                             fix="give a small positive gamma such as 0.01 (gamma=0, the strictly minimal-bias "
                                 "correction, is too ill-conditioned to use)")


# -- measures as functions of the rank ---------------------------------------------------

def rank_measure(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """The measure `name` (``ndcg@10``, ``hit@10``, ``rr``, ...) as a function of one positive's rank.

    Read by the one parser; a registered measure that is a function of one rank declares it
    (``MeasureSpec.of_rank``: ndcg, hit, r, p, rr, ap; ``recall`` and ``mrr`` are read as r and rr).
    """
    measure = parse_measure(str(name).strip().lower())
    of_rank = measure.spec.of_rank
    if of_rank is None or measure.params:
        known = ", ".join(spec.name for spec in REGISTRY.values() if spec.of_rank is not None)
        raise MeasureError(what=literal(f"{name!r} is not a measure of one positive's rank"),
                           value=name,
                           fix=literal(f"choose among {known} (with @k where needed)"))
    if of_rank.needs_cutoff and measure.cutoff is None:
        raise MeasureError(what=literal(f"{name!r} needs a cutoff of 1 or more"), value=name,
                           fix=literal(f"write {measure.name}@10, for example"))
    return lambda rank: of_rank.function(np.asarray(rank, dtype=np.float64), measure.cutoff)


# -- the correction ----------------------------------------------------------------------

@functools.lru_cache(maxsize=16)
def sampled_rank_law(n: int, m: int) -> np.ndarray:
    """A[r - 1, j - 1] = P(sampled rank j | full rank r): a positive among n negatives, m drawn without replacement.

    Hypergeometric: j - 1 of the r - 1 negatives above it among the m draws
    from n, from log binomial coefficients (scipy's ``hypergeom.pmf`` gives the
    same, ``tests/recsys/test_sampled.py`` checks it, but takes a second for
    a 1,000 x 100 table).
    """
    from scipy.special import gammaln

    def log_choose(a, b):
        return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)

    above = np.arange(n + 1, dtype=np.float64)[:, None]          # r - 1 = 0..n
    drawn = np.arange(m + 1, dtype=np.float64)[None, :]          # j - 1 = 0..m
    possible = (drawn <= above) & (m - drawn <= n - above)
    with np.errstate(invalid="ignore"):
        logs = (log_choose(above, drawn) + log_choose(n - above, m - drawn)
                - log_choose(float(n), float(m)))
    law = np.where(possible, np.exp(np.where(possible, logs, 0.0)), 0.0)
    law.setflags(write=False)
    return law


def corrected_values(measure: Callable[[np.ndarray], np.ndarray], n: int, m: int,
                     gamma: float) -> np.ndarray:
    """x[j - 1], the corrected value of sampled rank j = 1..m + 1 (n negatives, m of them drawn).

    x = ((1 - gamma) A'A + gamma diag(c))^-1 A'b, A = :func:`sampled_rank_law`,
    b[r] = measure(r), c = column sums of A (module docstring).
    """
    law = sampled_rank_law(n, m)
    target = measure(np.arange(1, n + 2))          # a positive among n negatives: ranks 1..n + 1
    gram = (1 - gamma) * (law.T @ law) + gamma * np.diag(law.sum(axis=0))
    return np.linalg.solve(gram, law.T @ target)


# -- ranking -----------------------------------------------------------------------------

def _checked(y_true, y_score, popularity, sampling: str) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray | None]:
    truth = np.asarray(y_true, dtype=np.float64)
    scores = np.asarray(y_score, dtype=np.float64)
    if truth.ndim != 2 or truth.shape != scores.shape:
        raise InputError(what=literal(f"y_true {truth.shape} and y_score {scores.shape} are not two matrices of "
                                      "one shape"),
                         fix="give one row per user and one column per item in both")
    if np.isnan(truth).any():
        raise InputError(what="y_true holds NaN",
                         fix="mark items that are not candidates by NaN in y_score")
    weights = None
    if sampling == "popularity":
        if popularity is None:
            raise InputError(what="sampling='popularity' needs the items' popularity",
                             fix="pass popularity=[count of each item], one per column")
        weights = np.asarray(popularity, dtype=np.float64)
        if (weights.shape != (truth.shape[1],) or not np.all(np.isfinite(weights))
            or (weights < 0).any()):
            raise InputError(what=literal(f"popularity has shape {weights.shape}, or a negative or non-finite "
                                          "value"),
                             fix=literal(f"give {truth.shape[1]} counts of 0 or more"))
    return truth, scores, weights


def _ranks_among(scores: np.ndarray, rows: np.ndarray, positive_scores: np.ndarray) -> np.ndarray:
    """1 + how many of its row's `scores` are at least each positive's score, a block of positives at a time
    (a user with many positives would otherwise copy its row once per positive all at once)."""
    ranks = np.empty(len(rows), dtype=np.int64)
    block = max(1, _CHUNK_CELLS // max(1, scores.shape[1]))
    for start in range(0, len(rows), block):
        chosen = slice(start, start + block)
        ranks[chosen] = 1 + (scores[rows[chosen]] >= positive_scores[chosen, None]).sum(axis=1)
    return ranks


def _chunk_ranks(truth: np.ndarray, scores: np.ndarray, weights, m: int, rng: np.random.Generator):
    """Full and sampled rank of every positive of these rows, and each user's negatives and draws."""
    negative = (truth <= 0) & ~np.isnan(scores)
    rows, cols = np.nonzero((truth > 0) & ~np.isnan(scores))
    positive_scores = scores[rows, cols]
    negative_scores = np.where(negative, scores, -np.inf)
    full = _ranks_among(negative_scores, rows, positive_scores)
    keys = rng.exponential(size=truth.shape)
    if weights is not None:
        with np.errstate(divide="ignore"):
            keys = keys / weights[None, :]
    keys[~negative] = np.inf
    take = min(m, truth.shape[1])
    drawn = np.argpartition(keys, take - 1, axis=1)[:, :take] if take < truth.shape[1] else \
        np.broadcast_to(np.arange(truth.shape[1]), (len(truth), truth.shape[1]))
    drawn_keys = np.take_along_axis(keys, drawn, axis=1)
    sampled_scores = np.where(np.isfinite(drawn_keys), np.take_along_axis(scores, drawn, axis=1),
                              -np.inf)
    sampled = _ranks_among(sampled_scores, rows, positive_scores)
    available = negative.sum(axis=1)
    if weights is not None:
        available = (negative & (weights[None, :] > 0)).sum(axis=1)
    return rows, full, sampled, negative.sum(axis=1)[rows], np.minimum(available, m)[rows]


@dataclasses.dataclass(frozen=True)
class SampledEvaluation:
    """Sampled and full evaluation of the same scores, with the measured bias and the corrected estimate.

    ``full``, ``sampled``, ``corrected``: measure -> mean over the positives;
    ``bias(measure)``: sampled - full; ``corrected_bias(measure)``:
    corrected - full. ``full_ranks``, ``sampled_ranks``, ``users``: per
    positive. ``str()`` is the table.
    """

    measures: tuple[str, ...]
    full: dict[str, float]
    sampled: dict[str, float]
    corrected: dict[str, float]
    settings: Sampled
    full_ranks: np.ndarray
    sampled_ranks: np.ndarray
    users: np.ndarray

    def bias(self, measure: str) -> float:
        return self.sampled[measure] - self.full[measure]

    def corrected_bias(self, measure: str) -> float:
        return self.corrected[measure] - self.full[measure]

    def __str__(self) -> str:
        s = self.settings
        how = (f"corrected as Krichene & Rendle 2020 (gamma {s.gamma:g})" if s.sampling == "uniform"
               else "no correction: it assumes uniform sampling")
        lines = [f"sampled evaluation: {len(self.full_ranks)} positives, {s.negatives} {s.sampling} negatives each "
                 f"(seed {s.seed}); {how}",
                 f"{'measure':<12}{'full':>9}{'sampled':>9}{'bias':>9}{'corrected':>11}{'bias':>9}"]
        for name in self.measures:
            lines.append(f"{name:<12}{self.full[name]:>9.4f}{self.sampled[name]:>9.4f}{self.bias(name):>+9.4f}"
                         f"{self.corrected[name]:>11.4f}{self.corrected_bias(name):>+9.4f}")
        return "\n".join(lines)


def evaluate_sampled(y_true, y_score, measures: "str | Sequence[str]" = ("ndcg@10", "hit@10"), *,
                     sampled: Sampled = Sampled(), popularity=None) -> SampledEvaluation:
    """Rank each positive among sampled negatives and among all, and correct the sampled estimate.

    Parameters
    ----------
    y_true : (users, items) array
        Grades; above 0 is a positive, 0 or less a negative.
    y_score : (users, items) array
        Scores; NaN marks an item that is not a candidate of that user
        (already seen in training, say): neither ranked nor sampled.
    measures : str or list of str
        Functions of one positive's rank: ``ndcg@k``, ``hit@k`` (``r@k``,
        ``recall@k``), ``p@k``, ``rr`` (``mrr``, ``ap``); see the module docstring.
    sampled : Sampled
        ``Sampled(negatives=100, seed=0, sampling='uniform', gamma=0.01)``.
    popularity : array, optional
        One weight per item (column), for ``sampling='popularity'``.

    Returns
    -------
    SampledEvaluation

    Examples
    --------
    One user, 5 items: the positive (item 0) has two negatives above it, so
    its full rank is 3; with 2 sampled negatives its sampled rank depends on
    the draw.

    >>> result = evaluate_sampled([[1, 0, 0, 0, 0]], [[0.5, 0.9, 0.8, 0.1, 0.2]], ["hit@2", "rr"],
    ...                           sampled=Sampled(negatives=2, seed=0))
    >>> result.full_ranks.tolist(), result.full["rr"]
    ([3], 0.3333333333333333)
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    functions = {name: rank_measure(name) for name in names}
    truth, scores, weights = _checked(y_true, y_score, popularity, sampled.sampling)
    rng = np.random.default_rng(sampled.seed)
    chunk = max(1, _CHUNK_CELLS // max(1, truth.shape[1]))
    parts = [_chunk_ranks(truth[start:start + chunk], scores[start:start + chunk], weights,
                          sampled.negatives, rng)
             for start in range(0, len(truth), chunk)]
    starts = range(0, len(truth), chunk)
    users = (np.concatenate([p[0] + start for p, start in zip(parts, starts)]) if parts
             else np.zeros(0, np.int64))
    full, sampled_rank, pool, drawn = (np.concatenate([p[i] for p in parts]) if parts
                                       else np.zeros(0, np.int64)
                                       for i in range(1, 5))
    if len(full) == 0:
        raise InputError(what="no positive with a score: nothing to rank",
                         fix="give y_true with grades above 0 where y_score is not NaN")
    corrected = {name: _corrected_mean(functions[name], sampled_rank, pool, drawn, sampled)
                 for name in names}
    return SampledEvaluation(
        measures=tuple(names), full={n: float(functions[n](full).mean()) for n in names},
        sampled={n: float(functions[n](sampled_rank).mean()) for n in names}, corrected=corrected,
        settings=sampled, full_ranks=full, sampled_ranks=sampled_rank, users=users)


def _corrected_mean(measure, sampled_rank: np.ndarray, pool: np.ndarray, drawn: np.ndarray,
                    sampled: Sampled) -> float:
    """Mean corrected value over the positives, one correction per (negatives, draws) pair met."""
    if sampled.sampling != "uniform":
        return math.nan
    values = np.empty(len(sampled_rank))
    pairs, which = np.unique(np.stack([pool, drawn], axis=1), axis=0, return_inverse=True)
    for index, (n, m) in enumerate(pairs.tolist()):
        chosen = np.ravel(which) == index
        values[chosen] = corrected_values(measure, int(n), int(m),
                                          sampled.gamma)[sampled_rank[chosen] - 1]
    return float(values.mean())
