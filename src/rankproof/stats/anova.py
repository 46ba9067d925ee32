"""Models with topic and system effects: two-way ANOVA, and a linear mixed model through statsmodels.

Reference: the two-way ANOVA without replication (randomised complete block
design), e.g. Montgomery, *Design and Analysis of Experiments*, ch. 4; its
use for IR topics x systems: Banks, Over and Zhang (1999) and Tague-Sutcliffe
and Blustein (1995); Carterette (2012, ACM TOIS 30(1)) for the mixed model
with a random topic effect.

Formula: x_ij = mu + tau_i (topic i) + beta_j (system j) + e_ij over n topics
and k systems. With grand mean m, topic means m_i. and system means m_.j,

    SS_system   = n sum_j (m_.j - m)**2,        df = k - 1
    SS_topic    = k sum_i (m_i. - m)**2,        df = n - 1
    SS_residual = sum_ij (x_ij - m_i. - m_.j + m)**2,  df = (n - 1)(k - 1)

and F = (SS / df) / (SS_residual / df_residual), p from the F distribution
(scipy). The residual mean square V_E is the variance estimate topic set
size design reads (Sakai 2016).

The linear mixed model (fixed system effects, a random intercept per topic)
needs statsmodels (``pip install rankproof[stats]``): :func:`mixed_model`.
In a complete balanced design its F test of the systems equals the ANOVA's.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np

from ..errors import InputError
from .matrix import checked_matrix, checked_names

__all__ = ["Anova", "two_way_anova", "mixed_model", "MixedModel"]


@dataclasses.dataclass(frozen=True)
class Anova:
    """The two-way ANOVA table of a topics x systems matrix (the formulas: the module's docstring).

    Attributes
    ----------
    topics, systems : int
        n and k, the matrix's rows and columns.
    ss_system, ss_topic, ss_residual : float
        The sums of squares of the system effect, the topic effect and the residual.
    f_system, p_system : float
        The F test that every system has the same mean: F, and p from the F distribution with
        (k - 1, (n - 1)(k - 1)) degrees of freedom; with no residual variance, inf and 0 where
        the effect is not 0, nan and 1 where it is 0 too.
    f_topic, p_topic : float
        The same for the topics, with (n - 1, (n - 1)(k - 1)) degrees of freedom.
    """

    topics: int
    systems: int
    ss_system: float
    ss_topic: float
    ss_residual: float
    f_system: float
    p_system: float
    f_topic: float
    p_topic: float

    @property
    def df_system(self) -> int:
        return self.systems - 1

    @property
    def df_topic(self) -> int:
        return self.topics - 1

    @property
    def df_residual(self) -> int:
        return (self.topics - 1) * (self.systems - 1)

    @property
    def residual_variance(self) -> float:
        """V_E = SS_residual / df_residual."""
        return self.ss_residual / self.df_residual


def two_way_anova(scores) -> Anova:
    """Two-way ANOVA without replication (topic and system effects) of a topics x systems matrix.

    Examples
    --------
    System means 1.5, 2.5, 4 around a grand mean of 8/3: SS = 2 (1.36111 + 0.02778 + 1.77778).

    >>> result = two_way_anova([[1.0, 2.0, 3.0], [2.0, 3.0, 5.0]])
    >>> round(result.ss_system, 6), round(result.ss_topic, 6), round(result.ss_residual, 6)
    (6.333333, 2.666667, 0.333333)
    """
    matrix = checked_matrix(scores)
    topics, systems = matrix.shape
    grand = matrix.mean()
    topic_means = matrix.mean(axis=1)
    system_means = matrix.mean(axis=0)
    ss_system = topics * float(((system_means - grand) ** 2).sum())
    ss_topic = systems * float(((topic_means - grand) ** 2).sum())
    residual = matrix - topic_means[:, None] - system_means[None, :] + grand
    ss_residual = float((residual ** 2).sum())
    df_residual = (topics - 1) * (systems - 1)
    total = ss_system + ss_topic + ss_residual
    f_system, p_system = _f_test(ss_system, systems - 1, ss_residual, df_residual, total)
    f_topic, p_topic = _f_test(ss_topic, topics - 1, ss_residual, df_residual, total)
    return Anova(topics=topics, systems=systems, ss_system=ss_system, ss_topic=ss_topic,
                 ss_residual=ss_residual,
                 f_system=f_system, p_system=p_system, f_topic=f_topic, p_topic=p_topic)


def _f_test(ss: float, df: int, ss_residual: float, df_residual: int, total: float) -> tuple[float,
                                                                                             float]:
    """(F, p). No residual variance (an exactly additive matrix; sums of squares below 1e-24 of the
    total count as rounding): F = inf and p = 0 where the effect is nonzero, F = nan and p = 1 where
    it is 0 too."""
    # scipy.stats.f.sf is scipy.special.fdtrc (the same bits), without importing scipy.stats (a
    # second of a command's time).
    from scipy.special import fdtrc

    scale = max(total, np.finfo(float).tiny)
    if ss_residual <= 1e-24 * scale:
        return (math.inf, 0.0) if ss > 1e-24 * scale else (math.nan, 1.0)
    f = (ss / df) / (ss_residual / df_residual)
    return float(f), float(fdtrc(df, df_residual, f))


@dataclasses.dataclass(frozen=True)
class MixedModel:
    """Fixed system effects (relative to the first system) with a random topic intercept."""

    systems: tuple[str, ...]
    effects: tuple[float, ...]
    standard_errors: tuple[float, ...]
    p_values: tuple[float, ...]
    topic_variance: float
    residual_variance: float


def mixed_model(scores, systems: Sequence[str] | None = None) -> MixedModel:
    """Linear mixed model score ~ system + (1 | topic), fitted by REML with statsmodels' ``MixedLM``.

    ``effects[j]`` is system j's mean minus the first system's (0 for the
    first); ``p_values`` are the Wald tests of those effects.
    """
    try:
        import statsmodels.formula.api as smf
    except ImportError:
        raise InputError(what="the mixed model needs statsmodels, which is not installed",
                         fix="pip install 'rankproof[stats]'") from None
    import pandas as pd

    matrix = checked_matrix(scores)
    names = checked_names(systems, matrix.shape[1])
    topics, count = matrix.shape
    frame = pd.DataFrame({"score": matrix.ravel(), "topic": np.repeat(np.arange(topics), count),
                          "system": np.tile(np.arange(count), topics)})
    fit = smf.mixedlm("score ~ C(system)", frame, groups=frame["topic"]).fit(reml=True)
    keys = [f"C(system)[T.{j}]" for j in range(1, count)]
    return MixedModel(systems=names, effects=(0.0, *(float(fit.fe_params[key]) for key in keys)),
                      standard_errors=(0.0, *(float(fit.bse[key]) for key in keys)),
                      p_values=(1.0, *(float(fit.pvalues[key]) for key in keys)),
                      topic_variance=float(fit.cov_re.iloc[0, 0]),
                      residual_variance=float(fit.scale))
