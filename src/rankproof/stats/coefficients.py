"""Chance-corrected agreement coefficients from counts: Krippendorff's alpha, Gwet's AC1/AC2, kappa.

Each function takes additive counts (sums over units, so that a bootstrap
over topics only re-weights per-topic sums) and works on a batch: the
leading axes of the counts are resamples, the last one or two are the
categories. :mod:`rankproof.stats.label_agreement` builds the counts from
qrels.

References
----------
- K. Krippendorff, "Computing Krippendorff's alpha-reliability", Annenberg
  School for Communication, 2011.
- K. L. Gwet, "Computing inter-rater reliability and its variance in the
  presence of high agreement", British Journal of Mathematical and
  Statistical Psychology 61, 2008; Handbook of Inter-Rater Reliability, 4th
  edition, 2014, chapter 4.
- J. Cohen, "Weighted kappa", Psychological Bulletin 70(4), 1968.
"""

from __future__ import annotations

import numpy as np

from rankproof.errors import InputError

__all__ = ["ALPHA_LEVELS", "GWET_WEIGHTS", "alpha_from_coincidence", "gwet_from_counts",
           "gwet_weights",
           "kappa_from_confusion"]

ALPHA_LEVELS = ("nominal", "ordinal", "interval")
GWET_WEIGHTS = ("identity", "linear", "quadratic")


def _ordinal_distance(totals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal metric from the value totals n_g (batch, q) -> (batch, q, q).

    delta_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2: the distance between
    two ranks is the mass of values lying between them.
    """
    q = totals.shape[-1]
    cumulative = np.cumsum(totals, axis=-1)
    c, k = np.indices((q, q))
    low, high = np.minimum(c, k), np.maximum(c, k)
    between = cumulative[..., high] - cumulative[..., low] + totals[..., low]
    return (between - (totals[..., c] + totals[..., k]) / 2) ** 2


def alpha_from_coincidence(coincidence: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's alpha from the coincidence matrix (Krippendorff 2011).

    With o_ck the coincidences (each unit's ordered pairs of values from
    different coders, weighted 1 / (m_u - 1) for a unit holding m_u values),
    n_c = sum_k o_ck, n = sum_c n_c and delta^2 the level's distance::

        alpha = 1 - (n - 1) sum_ck o_ck delta_ck / sum_ck n_c n_k delta_ck

    nominal: delta = 1 when c != k; interval: (v_c - v_k)^2; ordinal: the
    squared mass between the two ranks (see ``_ordinal_distance``). NaN when
    the expected disagreement is 0 (one value only). `coincidence` is
    (..., q, q), `values` the q sorted category values.

    Examples
    --------
    Two coders, three units graded (0, 0), (1, 1), (0, 1): o = [[2, 1], [1, 2]],
    n_0 = n_1 = 3, n = 6, alpha = 1 - 5 * 2 / (3 * 3 * 2) = 4 / 9:

    >>> o = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> round(float(alpha_from_coincidence(o, np.array([0.0, 1.0]), "nominal")), 4)
    0.4444
    """
    totals = coincidence.sum(axis=-1)
    n = totals.sum(axis=-1)
    q = len(values)
    if level == "nominal":
        distance = np.broadcast_to(1.0 - np.eye(q), coincidence.shape)
    elif level == "interval":
        distance = np.broadcast_to(np.subtract.outer(values, values) ** 2, coincidence.shape)
    elif level == "ordinal":
        distance = _ordinal_distance(totals)
    else:
        raise InputError(what="Krippendorff's alpha level must be nominal, ordinal or interval",
                         value=level)
    observed = (coincidence * distance).sum(axis=(-2, -1))
    expected = (totals[..., :, None] * totals[..., None, :] * distance).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1.0 - (n - 1) * observed / expected, np.nan)


def gwet_weights(values: np.ndarray, weights: str) -> np.ndarray:
    """Gwet's agreement weights over the sorted category values (Gwet 2014, chapter 3).

    identity: 1 on the diagonal; linear: 1 - |v_k - v_l| / (v_max - v_min);
    quadratic: 1 - (v_k - v_l)^2 / (v_max - v_min)^2 (the values themselves,
    not their positions, as in Gwet's own software).
    """
    q = len(values)
    spread = float(values[-1] - values[0]) if q > 1 else 1.0
    difference = np.abs(np.subtract.outer(values, values)) / (spread or 1.0)
    table = {"identity": np.eye(q), "linear": 1.0 - difference, "quadratic": 1.0 - difference ** 2}
    if weights not in table:
        raise InputError(what="Gwet's weights are identity, linear or quadratic", value=weights)
    return table[weights]


def gwet_from_counts(agreement: np.ndarray, pairable: np.ndarray, classified: np.ndarray,
                     units: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Gwet's AC1 (identity weights) or AC2 from unit sums (Gwet 2008; 2014 chapter 4).

    With r_ik the raters putting unit i in category k, r_i = sum_k r_ik and
    r*_ik = sum_l w_kl r_il (w the agreement weights):

        p_a = (1 / n2) sum_{i: r_i >= 2} sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))
        pi_k = (1 / n1) sum_{i: r_i >= 1} r_ik / r_i
        p_e = sum_kl w_kl / (q (q - 1)) * sum_k pi_k (1 - pi_k)
        AC = (p_a - p_e) / (1 - p_e)

    The arguments are the sums: `agreement` = sum of the unit agreements
    above (batch,), `pairable` = n2, `classified` (batch, q) = sum of the
    r_ik / r_i, `units` = n1. NaN with fewer than two categories.
    """
    q = weights.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        p_a = agreement / pairable
        pi = classified / units[..., None]
        if q < 2:
            return np.full(np.shape(p_a), np.nan)
        p_e = weights.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=-1)
        return np.where(p_e < 1, (p_a - p_e) / (1 - p_e), np.nan)


def kappa_from_confusion(matrix: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa of confusion matrices (..., q, q), weighted by positions (Cohen 1968).

    kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij with O the observed
    proportions, E the product of their margins and w_ij = [i != j],
    |i - j| (linear) or (i - j)^2 (quadratic); the batched form of
    :func:`rankproof.stats.agreement.kappa_of`. NaN when chance
    disagreement is 0.
    """
    total = matrix.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = matrix / total[..., None, None]
    expected = observed.sum(axis=-1)[..., :, None] * observed.sum(axis=-2)[..., None, :]
    i, j = np.indices(matrix.shape[-2:])
    table = {None: (i != j).astype(float), "linear": np.abs(i - j).astype(float),
             "quadratic": ((i - j) ** 2).astype(float)}
    if weights not in table:
        raise InputError(what="kappa weights are none, linear or quadratic", value=weights)
    w = table[weights]
    chance = (w * expected).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance > 0, 1.0 - (w * observed).sum(axis=(-2, -1)) / chance, np.nan)
