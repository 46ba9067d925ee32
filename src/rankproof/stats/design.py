"""Topic set size design: how many topics a test collection needs (Sakai 2016).

Reference: T. Sakai, "Topic set size design", Information Retrieval Journal
19(3), 2016 (the t-test, one-way ANOVA and confidence-interval designs).

Each design takes a variance estimate from earlier runs: the residual
variance V_E of the two-way ANOVA of a topics x systems matrix (topic and
system effects; :func:`variance_estimate`). Under that additive model the
per-topic difference of two systems has variance 2 V_E.

Formulas (alpha the test's level, 1 - beta its power, n topics):

- paired t-test, minimum detectable difference minD: the smallest n with
  P(|T'| > t_{1-alpha/2, n-1}) >= 1 - beta, T' noncentral t with n - 1
  degrees of freedom and noncentrality sqrt(n) minD / sigma_d,
  sigma_d**2 = 2 V_E (:func:`rankproof.stats.power.queries_needed`);
- one-way ANOVA over m systems, minimum detectable range minD between the
  best and the worst system (the others at the grand mean, the least
  favourable case): the smallest n with P(F' > F_{1-alpha}(m-1, m(n-1)))
  >= 1 - beta, F' noncentral F with noncentrality lambda = n minD**2 / (2 V_E);
- confidence interval of a difference of width at most delta: the smallest n
  with 2 t_{1-alpha/2, n-1} E[s] / sqrt(n) <= delta, where
  E[s] = sigma_d sqrt(2 / (n-1)) Gamma(n/2) / Gamma((n-1)/2) is the expected
  sample standard deviation.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from .anova import two_way_anova
from .power import queries_needed

__all__ = ["variance_estimate", "topics_for_t_test", "topics_for_anova", "topics_for_ci_width",
           "anova_power"]

MAX_TOPICS = 10**7


def _positive(value: float, name: str) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise InputError(what=f"{name} must be a number > 0; got {value!r}", value=value)
    return float(value)


def _probability(value: float, name: str) -> float:
    if not (isinstance(value, (int, float)) and 0 < value < 1):
        raise InputError(what=f"{name} must be between 0 and 1; got {value!r}", value=value)
    return float(value)


def variance_estimate(scores) -> float:
    """V_E, the residual mean square of the two-way ANOVA of a topics x systems matrix."""
    return two_way_anova(scores).residual_variance


def topics_for_t_test(min_difference: float, variance: float, *, alpha: float = 0.05,
                      power: float = 0.8) -> int:
    """Topics a paired t-test needs to detect ``min_difference`` with ``power`` (Sakai 2016, section 4.1).

    ``variance`` is V_E; the difference of two systems has variance 2 V_E.

    >>> topics_for_t_test(0.1, 0.01)   # sigma_d = sqrt(0.02): effect 0.707
    18
    """
    effect = (_positive(min_difference, "the minimum difference")
              / math.sqrt(2 * _positive(variance, "the variance")))
    needed = queries_needed(effect, _probability(alpha, "alpha"), _probability(power, "the power"))
    if needed is None or needed >= MAX_TOPICS:
        raise _beyond(f"a paired t-test to detect {min_difference:g}")
    return needed


def anova_power(topics, min_range: float, variance: float, systems: int,
                alpha: float = 0.05) -> np.ndarray:
    """Power of the one-way ANOVA F test with ``topics`` topics per system (Sakai 2016, section 4.2)."""
    from scipy import stats

    topics = np.asarray(topics, dtype=np.float64)
    df_between, df_within = systems - 1, systems * (topics - 1)
    critical = stats.f.isf(alpha, df_between, df_within)
    noncentrality = topics * min_range ** 2 / (2 * variance)
    return stats.ncf.sf(critical, df_between, df_within, noncentrality)


def topics_for_anova(min_range: float, variance: float, systems: int, *, alpha: float = 0.05,
                     power: float = 0.8) -> int:
    """Topics a one-way ANOVA over ``systems`` systems needs to detect a range ``min_range`` (Sakai 2016).

    >>> topics_for_anova(0.1, 0.01, 2)
    17
    """
    min_range = _positive(min_range, "the minimum range")
    variance = _positive(variance, "the variance")
    alpha, power = _probability(alpha, "alpha"), _probability(power, "the power")
    if not isinstance(systems, int) or systems < 2:
        raise InputError(what=f"the ANOVA design needs at least 2 systems; got {systems!r}",
                         value=systems)
    return _smallest(lambda n: anova_power(n, min_range, variance, systems, alpha) >= power,
                     f"a one-way ANOVA to detect a range of {min_range:g}")


def _expected_width(topics: int, sd: float, alpha: float) -> float:
    from scipy import special, stats

    df = topics - 1
    c4 = math.sqrt(2 / df) * math.exp(special.gammaln(topics / 2) - special.gammaln(df / 2))
    return 2 * float(stats.t.isf(alpha / 2, df)) * c4 * sd / math.sqrt(topics)


def topics_for_ci_width(width: float, variance: float, *, alpha: float = 0.05) -> int:
    """Topics for a (1 - alpha) interval of a difference no wider than ``width`` on average (Sakai 2016, 4.3).

    >>> topics_for_ci_width(0.1, 0.01)
    33
    """
    width = _positive(width, "the interval width")
    sd = math.sqrt(2 * _positive(variance, "the variance"))
    alpha = _probability(alpha, "alpha")
    return _smallest(lambda n: _expected_width(n, sd, alpha) <= width,
                     f"an interval no wider than {width:g}")


def _beyond(what: str) -> InputError:
    return InputError(what=f"{what} needs more than {MAX_TOPICS:,} topics (the search's limit): the variance "
                           "is too large, or the difference too small, for any collection",
                      value=MAX_TOPICS,
                      fix="design for a larger difference")


def _smallest(enough, what: str = "this design") -> int:
    """The smallest n >= 2 for which ``enough(n)`` holds (it is monotone in n); refused past MAX_TOPICS
    (the search's limit is not an answer)."""
    low, high = 1, 2
    while not enough(high):
        if high >= MAX_TOPICS:
            raise _beyond(what)
        low, high = high, min(high * 2, MAX_TOPICS)
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high
