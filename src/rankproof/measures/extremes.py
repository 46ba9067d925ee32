"""Where a measure is highest and lowest over the orders of tied docs: its
*merit* order (``MeasureSpec.tie_merit``), for ``ties_range=True``.

A merit function ``merit(grade, judged, measure, protocol)`` gives each
ranked position a number such that moving a doc of higher merit up past an
adjacent doc of lower merit never lowers the measure. Then, by bubble sort
within each tied group (every step such a swap), the measure is highest when
each group is sorted by merit descending and lowest when sorted ascending:
the range needs two evaluations, whatever the size of the groups. A merit
function returns None where the swap argument does not hold for the
measure's settings (a gain map that is not a sum of gains by a decreasing
discount, AP over the hits with a cutoff); the range is then enumerated
(:func:`rankproof.pipeline.ties.tie_orders`), within its limit.

Why each holds (swapping adjacent docs ``a`` above ``b``, ``b`` of higher merit):

- DCG, NDCG, RBP (``by_gain``, ``by_gain_rbp``): the sum of gain(i) * d(i) with d
  non-increasing gains (gain_b - gain_a)(d(i) - d(i+1)) >= 0; the ideal does not
  depend on the order. An unjudged doc gains 0; RBP's gains rescaled to [0, 1]
  (a gain map beyond it) are not the map's order for unjudged docs: enumerated.
- ERR (``by_grade``): with stop chances R_a <= R_b at ranks i, i+1 the swap
  gains P * (R_b - R_a) * (1/i - 1/(i+1)) >= 0, the chance of going past both unchanged.
- P, R, hit, R-prec, relative P, num_rel_ret, AP (over R or min(R, k)), RR,
  bpref, interpolated precision (``by_grade``): binary relevance (grade >= rel)
  and a higher grade first means a relevant doc moves up past a non-relevant one:
  the relevant docs above every rank can only grow, every precision with them,
  and no judged non-relevant doc moves above a relevant one (bpref).
- judged@k (``by_judged``), unjudged@k (``by_unjudged``): a count of judged
  (unjudged) docs in the top k.
- set measures, num_ret, num_rel, ideal DCG (``any_order``): the order does not matter.

These are checked against brute-force enumeration of every order on random
small cases (tests/evaluation/test_tie_range.py).
"""

from __future__ import annotations

import numpy as np

from ..protocol import ApDenominator, Gain, Ideal
from ..protocol.values import DiscountVector, GainMap, LogDiscount

__all__ = ["by_gain", "by_gain_rbp", "by_grade", "by_grade_ap", "by_judged", "by_unjudged",
           "any_order"]


def _discount_decreases(discount) -> bool:
    """Is the discount non-increasing in the rank (and 0 past a vector's end)?"""
    if isinstance(discount, DiscountVector):
        values = np.asarray(discount.values)
        return bool((np.diff(values) <= 0).all())
    if isinstance(discount, LogDiscount):
        return discount.base > 1
    return True  # log2, reciprocal


def by_gain(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """The gain of each position's grade (0 unjudged), when the discount is non-increasing
    and the ideal does not depend on the order (enumerated under ideal=expanded)."""
    if ("discount" in measure.spec.params
        and not _discount_decreases(measure.setting("discount", protocol))):
        return None
    if _expanded_ideal(measure, protocol):
        return None
    gain = measure.setting("gain", protocol) if "gain" in measure.spec.params else Gain.LINEAR
    if isinstance(gain, GainMap):
        table = dict(gain.gains)
        keys = np.asarray(list(table), dtype=np.float64)
        values = np.asarray(list(table.values()), dtype=np.float64)
        at = np.searchsorted(keys, grade)
        found = (at < len(keys)) & (keys[np.minimum(at, len(keys) - 1)] == grade)
        # An unjudged doc gains 0, whatever the map gives grade 0 (map:0=-1 makes judged
        # non-relevant docs cost).
        return np.where(found & np.asarray(judged, dtype=bool),
                        values[np.minimum(at, len(keys) - 1)], 0.0)
    return np.asarray(grade, dtype=np.float64)  # linear and exp2 grow with the grade


def by_gain_rbp(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """RBP: by gain, unless a gain map's values leave [0, 1], which RBP rescales per
    query to [0, 1] for judged docs only (an unjudged doc stays at 0, below a judged
    doc of gain 0 then): enumerated."""
    gain = measure.setting("gain", protocol)
    if isinstance(gain, GainMap) and any(not 0.0 <= value <= 1.0 for _, value in gain.gains):
        return None
    return by_gain(grade, judged, measure, protocol)


def by_grade(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """The grade: relevant docs (and the higher grades) first."""
    return np.asarray(grade, dtype=np.float64)


def by_grade_ap(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """AP: by grade, unless it divides by the relevant docs in the top k, which
    a relevant doc moving into the cutoff can lower (then enumerated)."""
    if (measure.cutoff is not None
        and measure.setting("ap_denominator", protocol) is ApDenominator.HITS):
        return None
    return by_grade(grade, judged, measure, protocol)


def by_judged(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """Judged docs first."""
    return np.asarray(judged, dtype=np.float64)


def by_unjudged(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """Unjudged docs first."""
    return 1.0 - np.asarray(judged, dtype=np.float64)


def any_order(grade: np.ndarray, judged: np.ndarray, measure, protocol) -> np.ndarray | None:
    """The measure does not depend on the order of the ranked docs (an ideal
    under ideal=expanded does: which copies fall within k; enumerated)."""
    if _expanded_ideal(measure, protocol):
        return None
    return np.zeros(len(grade))


def _expanded_ideal(measure, protocol) -> bool:
    """Under ideal=expanded the copies ranked within the cutoff join the ideal: the order moves it."""
    return "ideal" in measure.spec.params and measure.setting("ideal", protocol) is Ideal.EXPANDED
