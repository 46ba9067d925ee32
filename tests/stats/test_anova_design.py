"""Two-way ANOVA and the mixed model against statsmodels; topic set sizes against statsmodels' power
classes and the CI-width formula written out; discriminative power against the t-test; the recommendation."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from rankproof.errors import InputError
from rankproof.stats.anova import mixed_model, two_way_anova
from rankproof.stats.design import (anova_power, topics_for_anova, topics_for_ci_width, topics_for_t_test,
                                    variance_estimate)
from rankproof.stats.discriminative import bootstrap_asl, discriminative_power
from rankproof.stats.recommend import recommend_test

RNG = np.random.default_rng(4)
SCORES = RNG.random((12, 4)) * 0.5 + RNG.random((12, 1)) * 0.4 + np.array([0.0, 0.05, 0.1, 0.2])


def long_frame(scores):
    import pandas as pd

    topics, systems = scores.shape
    return pd.DataFrame({"score": scores.ravel(), "topic": np.repeat(np.arange(topics), systems),
                         "system": np.tile(np.arange(systems), topics)})


def test_two_way_anova_matches_statsmodels_anova_lm():
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    table = sm.stats.anova_lm(smf.ols("score ~ C(topic) + C(system)", long_frame(SCORES)).fit())
    result = two_way_anova(SCORES)
    assert result.ss_system == pytest.approx(table.loc["C(system)", "sum_sq"], rel=1e-10)
    assert result.ss_topic == pytest.approx(table.loc["C(topic)", "sum_sq"], rel=1e-10)
    assert result.ss_residual == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-10)
    assert result.f_system == pytest.approx(table.loc["C(system)", "F"], rel=1e-10)
    assert result.p_system == pytest.approx(table.loc["C(system)", "PR(>F)"], rel=1e-8)
    assert result.p_topic == pytest.approx(table.loc["C(topic)", "PR(>F)"], rel=1e-8)
    assert result.df_residual == table.loc["Residual", "df"]


def test_an_exactly_additive_matrix_has_no_residual_and_an_infinite_f():
    additive = np.add.outer([0.0, 0.5, 0.25], [0.1, 0.3])        # topic effect + system effect, no noise
    result = two_way_anova(additive)
    assert result.f_system == math.inf and result.p_system == 0.0
    flat = two_way_anova(np.add.outer([0.0, 0.5, 0.25], [0.2, 0.2]))
    assert math.isnan(flat.f_system) and flat.p_system == 1.0


def test_mixed_model_effects_are_the_differences_of_means_in_a_balanced_design():
    result = mixed_model(SCORES, ["a", "b", "c", "d"])
    means = SCORES.mean(axis=0)
    assert result.effects == pytest.approx(tuple(means - means[0]), abs=1e-6)
    # Residual variance of the REML fit: the two-way ANOVA's V_E in a balanced design.
    assert result.residual_variance == pytest.approx(two_way_anova(SCORES).residual_variance, rel=1e-4)


def test_mixed_model_without_statsmodels_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "statsmodels.formula.api", None)
    with pytest.raises(InputError) as caught:
        mixed_model(SCORES)
    assert "rankproof[stats]" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("difference, variance", [(0.1, 0.01), (0.05, 0.009), (0.02, 0.05)])
def test_t_test_topic_set_size_matches_statsmodels(difference, variance):
    from statsmodels.stats.power import TTestPower

    effect = difference / math.sqrt(2 * variance)
    expected = math.ceil(TTestPower().solve_power(effect, alpha=0.05, power=0.8))
    assert topics_for_t_test(difference, variance) == expected


@pytest.mark.parametrize("systems", [2, 3, 10])
def test_anova_topic_set_size_matches_statsmodels_ftest_power(systems):
    """Sakai's lambda = n minD**2 / (2 V_E) is statsmodels' f**2 * nobs with f**2 = minD**2 / (2 V_E m)."""
    from statsmodels.stats.power import FTestAnovaPower

    difference, variance = 0.1, 0.02
    n = topics_for_anova(difference, variance, systems)
    f = math.sqrt(difference ** 2 / (2 * variance * systems))
    peer = FTestAnovaPower()
    assert peer.power(f, n * systems, 0.05, systems) >= 0.8 > peer.power(f, (n - 1) * systems, 0.05, systems)
    assert float(anova_power(n, difference, variance, systems)) == pytest.approx(
        peer.power(f, n * systems, 0.05, systems), rel=1e-9)


def test_ci_width_topic_set_size_is_the_first_n_whose_expected_width_fits():
    from scipy import stats

    def expected_width(n, sd):
        c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
        return 2 * stats.t.ppf(0.975, n - 1) * c4 * sd / math.sqrt(n)

    sd = math.sqrt(2 * 0.01)
    n = topics_for_ci_width(0.1, 0.01)
    assert expected_width(n, sd) <= 0.1 < expected_width(n - 1, sd)


def test_design_is_monotone_and_refuses_nonsense():
    assert topics_for_t_test(0.05, 0.01) > topics_for_t_test(0.1, 0.01)
    assert topics_for_anova(0.1, 0.01, 10) > topics_for_anova(0.1, 0.01, 2)
    assert variance_estimate(SCORES) == pytest.approx(two_way_anova(SCORES).residual_variance)
    with pytest.raises(InputError, match="> 0"):
        topics_for_ci_width(0.0, 0.01)
    with pytest.raises(InputError, match="between 0 and 1"):
        topics_for_t_test(0.1, 0.01, power=1.5)


def test_bootstrap_asl_is_close_to_the_t_test_and_seeded():
    from scipy import stats

    rng = np.random.default_rng(1)
    d = rng.normal(0.05, 0.2, size=(3, 40))
    asl = bootstrap_asl(d, n_resamples=4000, seed=3)
    assert np.array_equal(asl, bootstrap_asl(d, n_resamples=4000, seed=3))
    for row, value in zip(d, asl):
        assert value == pytest.approx(stats.ttest_1samp(row, 0).pvalue, abs=0.03)


def test_discriminative_power_counts_pairs_below_alpha_and_ignores_system_order():
    rng = np.random.default_rng(2)
    separated = rng.normal(size=(30, 3)) * 0.05 + np.array([0.0, 0.3, 0.6])
    noise = rng.normal(size=(30, 3)) * 0.05
    result = discriminative_power({"sharp": separated, "flat": noise}, ["a", "b", "c"], n_resamples=500)
    sharp, flat = result
    assert sharp.power == 1.0 and flat.power < 1.0
    assert list(sharp.curve) == sorted(sharp.asl)
    swapped = discriminative_power({"sharp": separated[:, ::-1]}, ["c", "b", "a"], n_resamples=500)[0]
    assert sorted(swapped.asl) == pytest.approx(sorted(sharp.asl))


@pytest.mark.parametrize("topics, systems, words", [
    (5000, 3, "Ihemelandu"), (50, 2, "randomization"), (40, 12, "Wilcoxon"), (300, 5, "Tukey")])
def test_recommendation_follows_the_numbers(topics, systems, words):
    advice = recommend_test(topics, systems)
    assert words in str(advice) and advice.reference in str(advice)
