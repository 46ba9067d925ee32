"""URisk, TRisk and GeoRisk: hand-worked values, TRisk against scipy's one-sample t-test, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankproof.errors import InputError
from rankproof.stats.risk import georisk, risk_deltas, risk_table, trisk, urisk


def test_urisk_by_hand():
    # deltas +0.2, -0.1, +0.1, -0.3 at alpha 2: 0.2 - 0.3 + 0.1 - 0.9 = -0.9, over 4 topics.
    run, base = [0.5, 0.2, 0.4, 0.1], [0.3, 0.3, 0.3, 0.4]
    assert urisk(run, base, alpha=2) == pytest.approx(-0.225)
    assert urisk(run, base, alpha=0) == pytest.approx(np.mean(np.subtract(run, base)))


def test_trisk_is_the_one_sample_t_of_the_weighted_deltas():
    from scipy import stats

    rng = np.random.default_rng(0)
    run, base = rng.random(25), rng.random(25)
    t, p = trisk(run, base, alpha=5)
    peer = stats.ttest_1samp(risk_deltas(run, base, alpha=5), 0.0)
    assert t == pytest.approx(peer.statistic, rel=1e-12)
    assert p == pytest.approx(peer.pvalue, rel=1e-10)


def test_trisk_by_hand_and_degenerate_cases():
    # deltas 0.2, 0.1, 0.3: mean 0.2, sd 0.1, TRisk = 0.2 / (0.1 / sqrt 3)
    assert trisk([0.5, 0.4, 0.6], [0.3, 0.3, 0.3])[0] == pytest.approx(0.2 / (0.1 / math.sqrt(3)))
    assert trisk([0.5, 0.5], [0.5, 0.5]) == (0.0, 1.0)
    assert trisk([0.6, 0.6], [0.5, 0.5]) == (math.inf, 0.0)


def test_georisk_by_hand():
    """X = [[0.4, 0.2], [0.6, 0.2]]: S = (1.0, 0.4), T = (0.6, 0.8), N = 1.4; e = S T / N."""
    x = np.array([[0.4, 0.2], [0.6, 0.2]])
    e11, e21 = 0.6 * 1.0 / 1.4, 0.8 * 1.0 / 1.4
    z11, z21 = (0.4 - e11) / math.sqrt(e11), (0.6 - e21) / math.sqrt(e21)
    zrisk = z11 + z21 + 1.0 * z11          # z11 < 0 counts 1 + alpha times
    phi = 0.5 * (1 + math.erf(zrisk / 2 / math.sqrt(2)))
    assert georisk(x, alpha=1)[0] == pytest.approx(math.sqrt(1.0 / 2 * phi), rel=1e-12)
    assert georisk(x, alpha=1)[0] == pytest.approx(0.495040, abs=1e-6)


def test_georisk_ignores_the_order_of_systems_and_topics_and_punishes_losses():
    rng = np.random.default_rng(3)
    x = rng.random((15, 4))
    forward = georisk(x, alpha=2)
    assert georisk(x[::-1][:, [3, 1, 0, 2]], alpha=2) == pytest.approx(forward[[3, 1, 0, 2]])
    assert np.all(georisk(x, alpha=5) <= georisk(x, alpha=0) + 1e-12)


def test_risk_table_against_two_baselines():
    rng = np.random.default_rng(9)
    x = rng.random((10, 3))
    rows = risk_table(x, ["a", "b", "c"], baselines=["a", "b"], alpha=1)
    assert [(row.run, row.baseline) for row in rows] == [("c", "a"), ("c", "b")]
    assert rows[0].urisk == pytest.approx(urisk(x[:, 2], x[:, 0], 1))
    assert rows[0].georisk == pytest.approx(georisk(x[:, [2, 0, 1]], 1)[0])
    assert rows[0].wins + rows[0].losses <= 10
    with pytest.raises(InputError, match="baselines"):
        risk_table(x, ["a", "b", "c"], baselines=["z"])


@pytest.mark.parametrize("call", [lambda: urisk([0.1], [0.2], alpha=-1), lambda: georisk([[-0.1, 0.2]]),
                                  lambda: trisk([0.1], [0.2])])
def test_bad_risk_inputs_are_refused(call):
    with pytest.raises(InputError):
        call()
