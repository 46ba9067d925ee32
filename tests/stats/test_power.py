"""The paired t-test's power and the queries it needs, from scipy.special (a light import) and equal to
the last bit to scipy.stats' distributions, which the formulas were written with."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankproof.stats.power import queries_needed, t_test_power


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1])
def test_the_power_is_scipy_stats_to_the_last_bit(alpha):
    n = np.array([2, 3, 10, 34, 1_000, 123_457, 10**7], dtype=np.float64)
    for effect in (0.001, 0.05, 0.5, 3.0, -0.2):
        critical = stats.t.isf(alpha / 2, n - 1)
        nc = abs(effect) * np.sqrt(n)
        expected = 1.0 - stats.nct.cdf(critical, n - 1, nc) + np.nan_to_num(stats.nct.cdf(-critical, n - 1, nc),
                                                                                nan=0.0)
        assert np.array_equal(t_test_power(effect, n, alpha), expected)


def test_the_queries_needed_start_from_scipy_stats_normal_bound():
    # z_(alpha/2) + z_power with scipy.stats' normal: 34 queries for half a standard deviation (Cohen's
    # tables: 34 pairs for d = 0.5 at 80% power, two-sided 5%), and the bound itself for a tiny effect.
    assert queries_needed(0.5) == 34
    z = stats.norm.isf(0.025) + stats.norm.isf(0.2)
    found = queries_needed(0.01)
    assert found is not None and (z / 0.01) ** 2 <= found <= (z / 0.01) ** 2 * 1.01
    assert t_test_power(0.01, found) >= 0.8 > t_test_power(0.01, found - 1)
