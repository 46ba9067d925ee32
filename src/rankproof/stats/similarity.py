"""Similarity of rankings: RBO, Kendall's tau-b, tau_AP, overlap@k, Jaccard@k, and repro measures.

The rankings compared are orders of distinct items, best first (tied items
grouped) or, for the correlations, scores of the same items (a system ordering:
``{system: score}``).

References
----------
- RBO: W. Webber, A. Moffat and J. Zobel, "A similarity measure for
  indefinite rankings", ACM TOIS 28(4) 2010 (section 4: RBO_min, RBO_res,
  RBO_ext, and their uneven-length forms, eqs. 30-32).
- Kendall's tau-b: M. G. Kendall, "The treatment of ties in ranking
  problems", Biometrika 33(3) 1945.
- tau_AP: E. Yilmaz, J. A. Aslam and S. Robertson, "A new rank correlation
  coefficient for information retrieval", SIGIR 2008.
- Repro measures: T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai,
  P. Schaer and I. Soboroff, "How to measure the reproducibility of
  system-oriented IR experiments", SIGIR 2020 (repro_eval).

Ties: RBO takes rankings with tied items (groups) when told how to treat
them, ``ties='w'``, ``'a'`` or ``'b'``: the variants of M. Corsi and J.
Urbano, "The treatment of ties in rank-biased overlap", SIGIR 2024
(:mod:`rankproof.stats.tied_rbo`). tau_AP takes tied scores with
``ties='a'`` or ``'b'``: J. Urbano and M. Marrero, "The treatment of ties in
AP correlation", ICTIR 2017. Without `ties`, tied input raises
:class:`InputError` that names the choice. tau-b handles ties (that is what
the b is for).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from dataclasses import dataclass

from rankproof.errors import InputError
from rankproof.stats.tied_rbo import TIE_VARIANTS, rbo_tied

__all__ = ["RBO", "rbo", "kendall_tau_b", "tau_ap", "overlap_at", "jaccard_at",
           "rmse", "effect_ratio", "delta_relative_improvement"]


@dataclass(frozen=True)
class RBO:
    """Rank-biased overlap of two rankings at persistence ``p``.

    ``min`` is the lower bound (unseen items never agree), ``residual`` the
    most the unseen items can add (``min + residual`` is the upper bound), and
    ``ext`` the extrapolation (unseen items agree at the rate seen at the end
    of the lists); ``min <= ext <= min + residual``.
    """

    min: float
    residual: float
    ext: float
    p: float

    @property
    def max(self) -> float:
        return self.min + self.residual


GROUPS = (set, frozenset, list)


def _groups(ranking: Any, name: str) -> list[list[Any]]:
    """A ranking as tie groups, best first: from item -> score (equal scores tie) or from a sequence
    of items and groups (a set, frozenset or list of items tied at one depth)."""
    if isinstance(ranking, Mapping):
        by_score: dict[float, list[Any]] = {}
        for item, score in ranking.items():
            value = float(score)
            if math.isnan(value):
                raise InputError(what=f"{name} gives a NaN score", doc=str(item),
                                 fix="score every item, or leave it out of the ranking")
            by_score.setdefault(value, []).append(item)
        groups = [by_score[score] for score in sorted(by_score, reverse=True)]
    else:
        groups = [list(entry) if isinstance(entry, GROUPS) else [entry] for entry in ranking]
    if any(not group for group in groups):
        raise InputError(what=f"{name} has an empty tie group", fix="leave empty groups out")
    items = [item for group in groups for item in group]
    if len(set(items)) != len(items):
        raise InputError(what=f"{name} has a repeated item; a ranking holds each item once",
                         fix="deduplicate the ranking (tied items go in one group: a set or list)")
    return groups


def _overlaps(short: list[Any], long: list[Any]) -> list[int]:
    """X_d for d = 1..l: |S[:min(d, s)] & L[:d]| (Webber et al. 2010, section 4.2)."""
    seen_s: set[Any] = set()
    seen_l: set[Any] = set()
    overlap, out = 0, []
    for d in range(len(long)):
        item_l = long[d]
        if d < len(short):
            item_s = short[d]
            if item_s == item_l:
                overlap += 1
            else:
                overlap += (item_s in seen_l) + (item_l in seen_s)
            seen_s.add(item_s)
        elif item_l in seen_s:
            overlap += 1
        seen_l.add(item_l)
        out.append(overlap)
    return out


def _log_tail(p: float, depth: int) -> float:
    """sum_{d > depth} p^d / d = -ln(1 - p) - sum_{d=1..depth} p^d / d."""
    return -math.log1p(-p) - sum(p ** d / d for d in range(1, depth + 1))


def rbo(a: Any, b: Any, p: float = 0.9, ties: str | None = None) -> RBO:
    """Rank-biased overlap of rankings `a` and `b` (Webber, Moffat and Zobel 2010).

    A ranking is a sequence of items, best first, in which a set, frozenset
    or list stands for items tied at one depth (``["d1", {"d2", "d3"}, "d4"]``),
    or a mapping item -> score (higher first, equal scores tied). Rankings
    with ties need `ties`, the variant of Corsi and Urbano (SIGIR 2024; see
    :mod:`rankproof.stats.tied_rbo`): ``"w"`` when a tie means equality (the
    group is seen whole at its first depth), ``"a"`` when it means
    uncertainty (the expected RBO over random tie-breaking), ``"b"`` the
    same corrected for the information the ties lose (``RBO^b(X, X) = 1``).
    Without ties every variant is the RBO below.

    With A_d = X_d / d the agreement at depth d, RBO = (1 - p) sum_{d>=1} p^(d-1) A_d.
    For a short list S of length s and a long one L of length l, X_d the
    overlap of S[:min(d, s)] and L[:d] (d <= l), and f = s + l - X_l:

        RBO_min = (1-p)/p [ sum_{d=1..l} X_d/d p^d + X_l sum_{d>l} p^d/d ]
        RBO_ext = (1-p)/p [ sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d-s)/(s d) p^d ]
                  + [ (X_l - X_s)/l + X_s/s ] p^l                      (eq. 32)
        RBO_res = (1-p)/p sum_{d>s} p^d (M_d - m_d)/d

    where m_d is the overlap the minimum assumes (X_d, then X_l past l) and
    M_d the largest overlap the unseen items allow: X_d + (d - s) for
    s < d <= l, min(d, X_l + (d - s) + (d - l)) past l. The extrapolation of
    eq. 32 assumes the unseen part of S agrees at S's rate X_s / s; treating
    S as if it ended at l (as common implementations do) is wrong for uneven
    lengths. Symmetric in `a` and `b`; identical lists give ext = 1.
    """
    if not 0.0 < p < 1.0:
        raise InputError(what="RBO's persistence p must be in (0, 1)", value=p)
    if ties is not None and ties not in TIE_VARIANTS:
        raise InputError(what="RBO's ties must be 'w', 'a' or 'b'", value=ties,
                         fix="'w' when a tie means equality, 'a' (or 'b') when it means uncertainty")
    first, second = _groups(a, "the first ranking"), _groups(b, "the second ranking")
    if len(first) < sum(map(len, first)) or len(second) < sum(map(len, second)):
        if ties is None:
            raise InputError(what="the rankings have tied items; say how RBO treats them",
                             fix="rbo(..., ties='a') when a tie means uncertainty (the expected RBO over "
                                 "random tie-breaking), 'w' when it means equality, 'b' for 'a' corrected "
                                 "by the information lost (Corsi and Urbano 2024)")
        return _rbo_ties(first, second, p, ties)
    return _rbo_strict([group[0] for group in first], [group[0] for group in second], p)


def _rbo_ties(first: list[list[Any]], second: list[list[Any]], p: float, ties: str) -> RBO:
    size_first, size_second = sum(map(len, first)), sum(map(len, second))
    short, long = (first, second) if size_first <= size_second else (second, first)
    if not short:
        return RBO(min=0.0, residual=1.0, ext=0.0, p=p)
    low, residual, ext = rbo_tied(short, long, p, ties)
    return RBO(min=low, residual=residual, ext=ext, p=p)


def _rbo_strict(first: list[Any], second: list[Any], p: float) -> RBO:
    short, long = (first, second) if len(first) <= len(second) else (second, first)
    s, l = len(short), len(long)
    if s == 0:
        return RBO(min=0.0, residual=1.0, ext=0.0, p=p)  # nothing seen: anything is possible
    x = _overlaps(short, long)
    x_s, x_l = x[s - 1], x[l - 1]
    head = sum(x[d - 1] / d * p ** d for d in range(1, l + 1))
    scale = (1 - p) / p
    rbo_min = scale * (head + x_l * _log_tail(p, l))
    extra = sum(x_s * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    rbo_ext = scale * (head + extra) + ((x_l - x_s) / l + x_s / s) * p ** l
    f = s + l - x_l
    gap = sum(p ** d * (d - s) / d for d in range(s + 1, l + 1))
    gap += sum(p ** d * (min(d, x_l + 2 * d - s - l) - x_l) / d for d in range(l + 1, f + 1))
    # past f every item can agree: M_d = d, m_d = X_l
    gap += p ** (f + 1) / (1 - p) - x_l * _log_tail(p, f)
    return RBO(min=rbo_min, residual=scale * gap, ext=rbo_ext, p=p)


def _pairs(x: Mapping[Any, float], y: Mapping[Any, float]) -> tuple[list[float], list[float]]:
    common = [key for key in x if key in y]
    if len(common) < 2:
        raise InputError(what="a rank correlation needs at least two items scored in both orderings",
                         value=len(common))
    return [float(x[k]) for k in common], [float(y[k]) for k in common]


def kendall_tau_b(x: Mapping[Any, float], y: Mapping[Any, float]) -> float:
    """Kendall's tau-b between two scorings of the same items (Kendall 1945).

    Over the n items scored in both, with P concordant and Q discordant pairs,
    n1 the pairs tied in x and n2 the pairs tied in y:

        tau_b = (P - Q) / sqrt((n0 - n1) (n0 - n2)),   n0 = n (n - 1) / 2

    (the value of ``scipy.stats.kendalltau``, variant ``b``). NaN when one
    scoring is constant.
    """
    xs, ys = _pairs(x, y)
    n = len(xs)
    concordant = discordant = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            tied_x += dx == 0
            tied_y += dy == 0
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    n0 = n * (n - 1) // 2
    denominator = math.sqrt((n0 - tied_x) * (n0 - tied_y))
    return (concordant - discordant) / denominator if denominator else math.nan


def _order(scores: list[float], name: str, note: str = "") -> list[int]:
    if len(set(scores)) != len(scores):
        raise InputError(what=f"{name} has tied scores{note or '; say how tau_AP treats them'}",
                         fix="tau_ap(..., ties='a') when the reference is the truth and only the compared "
                             "ordering ties, ties='b' when either may (Urbano and Marrero 2017)")
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def tau_ap(truth: Mapping[Any, float], other: Mapping[Any, float], symmetric: bool = False,
           ties: str | None = None) -> float:
    """AP rank correlation of `other` against `truth` (Yilmaz, Aslam and Robertson 2008).

    Higher score ranks first. Walking `other`'s order, with C(i) the number
    of the i - 1 items above rank i that `truth` also ranks above that item:

        tau_AP = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1

    Errors near the top cost more than errors near the bottom; when the
    errors are spread uniformly, tau_AP equals tau in expectation. Not
    symmetric: ``symmetric=True`` returns the mean of both directions.

    Tied scores raise :class:`InputError` unless `ties` names a variant of
    Urbano and Marrero ("The treatment of ties in AP correlation", ICTIR 2017):

    - ``"a"`` (accuracy: `truth` is a true order without ties, `other` an
      estimate that may tie): the expected tau_AP over every random breaking
      of `other`'s ties. For an item in a tie group of size t starting at
      rank r, with C the items above its group that `truth` also ranks above it,

          C * (1/t) sum_{k=1..t} 1/(r + k - 2)  +  (once per group) sum_{k=1..t-1} k / (2 (r + k - 1))

      replace C(i) / (i - 1) (its rank is uniform within the group; two tied
      items are in `truth`'s order half the time).
    - ``"b"`` (agreement: both may tie, neither is the truth): symmetric,
      the mean of both directions of

          tau_AP,b = 2 / |N| * sum_{i in N} C(i) / (r_i - 1) - 1

      over the items N outside `other`'s top group, r_i the first rank of
      i's group and C(i) the items of groups above it that `truth` ranks
      strictly above it. NaN when every item of one ordering ties.

    Both equal tau_AP (``"b"``: the symmetric tau_AP) without ties.
    """
    if ties is not None and ties not in ("a", "b"):
        raise InputError(what="tau_AP's ties must be 'a' or 'b'", value=ties,
                         fix="'a' when the first ordering is the truth (no ties in it), 'b' when neither is")
    if ties == "b":
        xs, ys = _pairs(truth, other)
        return (_tau_ap_b(xs, ys) + _tau_ap_b(ys, xs)) / 2
    if symmetric:
        return (tau_ap(truth, other, ties=ties) + tau_ap(other, truth, ties=ties)) / 2
    xs, ys = _pairs(truth, other)
    _order(xs, "the reference ordering",
           "" if ties is None
           else "; tau_AP's variant 'a' takes the reference as the truth: use ties='b'")
    if ties == "a":
        return _tau_ap_a(xs, ys)
    order = _order(ys, "the compared ordering")
    n = len(order)
    total = 0.0
    for i in range(1, n):
        below = order[i]
        correct = sum(xs[above] > xs[below] for above in order[:i])
        total += correct / i
    return 2 / (n - 1) * total - 1


def _tie_groups(scores: list[float]) -> list[list[int]]:
    """Item indices grouped by equal score, highest first."""
    by_score: dict[float, list[int]] = {}
    for index, score in enumerate(scores):
        by_score.setdefault(score, []).append(index)
    return [by_score[score] for score in sorted(by_score, reverse=True)]


def _tau_ap_a(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    total, rank, above = 0.0, 1, list[int]()       # rank: the group's first rank (1-based)
    for group in _tie_groups(ys):
        t = len(group)
        if rank > 1:
            spread = sum(1 / (rank + k - 2) for k in range(1, t + 1)) / t
            for item in group:
                total += sum(xs[j] > xs[item] for j in above) * spread
        total += sum(k / (2 * (rank + k - 1)) for k in range(1, t))
        above += group
        rank += t
    return 2 / (n - 1) * total - 1


def _tau_ap_b(xs: list[float], ys: list[float]) -> float:
    total, rank, above, counted = 0.0, 1, list[int](), 0
    for group in _tie_groups(ys):
        if rank > 1:
            for item in group:
                total += sum(xs[j] > xs[item] for j in above) / (rank - 1)
            counted += len(group)
        above += group
        rank += len(group)
    return 2 / counted * total - 1 if counted else math.nan


def overlap_at(a: Sequence[Any], b: Sequence[Any], k: int) -> float:
    """overlap@k = |A[:k] & B[:k]| / k (the agreement A_k of RBO)."""
    if k < 1:
        raise InputError(what="overlap@k needs k >= 1", value=k)
    return len(set(a[:k]) & set(b[:k])) / k


def jaccard_at(a: Sequence[Any], b: Sequence[Any], k: int) -> float:
    """Jaccard@k = |A[:k] & B[:k]| / |A[:k] | B[:k]| (1.0 when both are empty)."""
    if k < 1:
        raise InputError(what="Jaccard@k needs k >= 1", value=k)
    top_a, top_b = set(a[:k]), set(b[:k])
    union = top_a | top_b
    return len(top_a & top_b) / len(union) if union else 1.0


def _common(first: Mapping[Any, float], second: Mapping[Any, float]) -> list[Any]:
    topics = [t for t in first if t in second]
    if not topics:
        raise InputError(what="the two score sets share no topic")
    return topics


def rmse(original: Mapping[Any, float], reproduced: Mapping[Any, float]) -> float:
    """Root mean squared error of per-topic scores (Breuer et al. 2020, repro_eval).

    RMSE = sqrt( (1/n) sum_i (o_i - r_i)^2 ) over the n topics in both.
    """
    topics = _common(original, reproduced)
    return math.sqrt(sum((original[t] - reproduced[t]) ** 2 for t in topics) / len(topics))


def _mean(values: Mapping[Any, float]) -> float:
    return sum(values.values()) / len(values)


def effect_ratio(original_baseline: Mapping[Any, float], original_advanced: Mapping[Any, float],
                 reproduced_baseline: Mapping[Any, float],
                 reproduced_advanced: Mapping[Any, float]) -> float:
    """Effect ratio (Breuer et al. 2020): the reproduced improvement over the original one.

    ER = mean_j(a'_j - b'_j) / mean_i(a_i - b_i): per-topic improvements of
    the advanced run over the baseline, reproduced (primed) over original.
    ER = 1 reproduces the effect exactly; < 1 a smaller effect.
    """
    original = _common(original_baseline, original_advanced)
    reproduced = _common(reproduced_baseline, reproduced_advanced)
    delta = sum(original_advanced[t] - original_baseline[t] for t in original) / len(original)
    delta_r = (sum(reproduced_advanced[t] - reproduced_baseline[t] for t in reproduced)
               / len(reproduced))
    return delta_r / delta if delta else math.nan


def delta_relative_improvement(original_baseline: Mapping[Any, float],
                               original_advanced: Mapping[Any, float],
                               reproduced_baseline: Mapping[Any, float],
                               reproduced_advanced: Mapping[Any, float]) -> float:
    """Delta RI (Breuer et al. 2020): RI - RI', with RI = (mean(a) - mean(b)) / mean(b).

    0 when the relative improvement is reproduced exactly.
    """
    ri = (_mean(original_advanced) - _mean(original_baseline)) / _mean(original_baseline)
    ri_r = (_mean(reproduced_advanced) - _mean(reproduced_baseline)) / _mean(reproduced_baseline)
    return ri - ri_r
