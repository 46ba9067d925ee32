"""The user models of the C/W/L measures: each one's continuation probability C(i).

Every function takes :class:`Lists` (one row per query, one column per rank
1..n, n = ``max_n``) and the measure's settings, and returns the matrix C
(C[:, i] is the chance the user reads on from rank i + 1 to rank i + 2), or,
for TBG and U-measure, which are defined by their weights, the matrix W of
the chance each rank is the one examined (each row sums to 1). The formulas
are those of cwl_eval (Azzopardi, Thomas and Moffat 2019), the reference
implementation of each measure as a C/W/L model; :mod:`rankproof.measures.cwl`
turns C or W into the five quantities cwl_eval reports.

Notation: g_i the gain at rank i (in [0, 1]), c_i its cost, G_i = g_1 + ... + g_i,
K_i = c_1 + ... + c_i.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["Lists", "MODELS"]


@dataclasses.dataclass(frozen=True)
class Lists:
    """Gains, costs and their running sums of a block of queries, cut at and padded to n ranks."""

    gain: np.ndarray
    cost: np.ndarray
    cum_gain: np.ndarray
    cum_cost: np.ndarray
    k: int | None

    @property
    def rank(self) -> np.ndarray:
        """1..n as a row (broadcast over the queries)."""
        return np.arange(1, self.gain.shape[1] + 1, dtype=np.float64)[None, :]

    def before(self, k: int | None) -> np.ndarray:
        """Rank < k, as a row of 0/1: the user reads on from the first k - 1 ranks only (no k: every rank)."""
        return (self.rank < (k if k is not None else np.inf)).astype(np.float64)


def precision(lists: Lists, s: dict) -> np.ndarray:
    """P@k: C(i) = 1 for i < k, else 0 (every one of the top k is read)."""
    return np.broadcast_to(lists.before(lists.k), lists.gain.shape).copy()


def rbp(lists: Lists, s: dict) -> np.ndarray:
    """RBP (Moffat and Zobel 2008): C(i) = p."""
    return np.full(lists.gain.shape, s["p"])


def reciprocal_rank(lists: Lists, s: dict) -> np.ndarray:
    """RR: C(i) = 1 until the first rank with a positive gain, 0 from there on."""
    return (np.cumsum(lists.gain > 0, axis=1) == 0).astype(np.float64)


def average_precision(lists: Lists, s: dict) -> np.ndarray:
    """AP as C/W/L: with S_i = sum_{j >= i} g_j / j, C(i) = S_{i+1} / S_i (0 when S_{i+1} = 0)."""
    share = lists.gain / lists.rank
    tail = np.cumsum(share[:, ::-1], axis=1)[:, ::-1]      # S_i
    after = np.zeros_like(tail)
    after[:, :-1] = tail[:, 1:]                            # S_{i+1}; S_{n+1} = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(after > 0, after / np.where(tail > 0, tail, 1.0), 0.0)


def scaled_dcg(lists: Lists, s: dict) -> np.ndarray:
    """SDCG@k, DCG's discount as a user model: C(i) = log2(i + 1) / log2(i + 2) for i < k, else 0."""
    rank = lists.rank
    return np.broadcast_to(np.log(rank + 1.0) / np.log(rank + 2.0) * lists.before(lists.k),
                           lists.gain.shape).copy()


def inst(lists: Lists, s: dict) -> np.ndarray:
    """INST (Moffat et al. 2015): C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - G_i."""
    total = s["T"] + (s["T"] - lists.cum_gain) + lists.rank
    return ((total - 1.0) / total) ** 2


def insq(lists: Lists, s: dict) -> np.ndarray:
    """INSQ (Moffat, Bailey, Scholer and Thomas 2015): C(i) = ((i + 2T - 1) / (i + 2T))^2."""
    total = lists.rank + 2.0 * s["T"]
    return np.broadcast_to(((total - 1.0) / total) ** 2, lists.gain.shape).copy()


def _below(cum: np.ndarray, limit) -> np.ndarray:
    """1 while ``cum < limit`` has held at every rank so far (the user keeps going), else 0."""
    return np.logical_and.accumulate(cum < limit, axis=1).astype(np.float64)


def bpm_static(lists: Lists, s: dict) -> np.ndarray:
    """BPM static (Zhang et al. 2017): C(i) = 1 while G_i < T and K_i < K, else 0."""
    return _below(lists.cum_gain, s["T"]) * _below(lists.cum_cost, s["K"])


def bpm_dynamic(lists: Lists, s: dict) -> np.ndarray:
    """BPM dynamic: the gain target moves after each rank read, T_{i+1} = T_i + hb (g_i - gain_med).

    cwl_eval 1.0.12 updates the gain target again (by hc) in its cost loop, after
    the gain constraint is fixed, and never moves K: the cost constraint is the
    static one and hc changes nothing. Reproduced, so that the values are cwl_eval's.
    """
    step = s["hb"] * (lists.gain - s["gain_med"])
    # The running target, added left to right as cwl_eval's loop adds it (same rounding).
    target = np.cumsum(np.concatenate([np.full((len(step), 1), float(s["T"])), step[:, :-1]],
                                      axis=1), axis=1)
    return _below(lists.cum_gain, target) * _below(lists.cum_cost, s["K"])


def _ift_goal(lists: Lists, s: dict) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 - 1.0 / (1.0 + s["b1"] * np.exp((s["T"] - lists.cum_gain) * s["R1"]))


def _ift_rate(lists: Lists, s: dict) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + s["b2"] * np.exp((s["A"] - lists.cum_gain / lists.cum_cost) * s["R2"]))


def ift_goal(lists: Lists, s: dict) -> np.ndarray:
    """IFT-C1 (Azzopardi, Thomas and Craswell 2018): C(i) = 1 - 1 / (1 + b1 e^{(T - G_i) R1})."""
    return _ift_goal(lists, s)


def ift_rate(lists: Lists, s: dict) -> np.ndarray:
    """IFT-C2: C(i) = 1 / (1 + b2 e^{(A - G_i / K_i) R2}), the rate of gain against the expected A."""
    return _ift_rate(lists, s)


def ift_goal_rate(lists: Lists, s: dict) -> np.ndarray:
    """IFT-C1-C2: the product of the goal and the rate continuations."""
    return _ift_goal(lists, s) * _ift_rate(lists, s)


def nerr8(lists: Lists, s: dict) -> np.ndarray:
    """NERR eq. 8 (Azzopardi, Mackenzie and Moffat 2021): C(i) = 1 - g_i for i < k, else 0."""
    return (1.0 - lists.gain) * lists.before(lists.k)


def nerr9(lists: Lists, s: dict) -> np.ndarray:
    """NERR eq. 9: C(i) = (i / (i + 1)) (1 - g_i) for i < k, else 0."""
    rank = lists.rank
    return rank / (rank + 1.0) * (1.0 - lists.gain) * lists.before(lists.k)


def nerr10(lists: Lists, s: dict) -> np.ndarray:
    """NERR eq. 10: C(i) = p (1 - g_i), RBP-like to the full depth."""
    return s["p"] * (1.0 - lists.gain)


def nerr11(lists: Lists, s: dict) -> np.ndarray:
    """NERR eq. 11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), INSQ-like to the full depth."""
    total = lists.rank + 2.0 * s["T"]
    return ((total - 1.0) / total) ** 2 * (1.0 - lists.gain)


def tbg_weights(lists: Lists, s: dict) -> np.ndarray:
    """TBG (Smucker and Clarke 2012) as weights: W(i) proportional to D(K_{i-1}), D(x) = h 2^{-x/h} / ln 2.

    K_0 = 0; h is the half-life in cost units. Rows are normalised to sum to 1.
    """
    h = s["halflife"]
    start = np.zeros_like(lists.cum_cost)
    start[:, 1:] = lists.cum_cost[:, :-1]
    weight = h * np.exp2(-start / h) / np.log(2.0)
    return weight / weight.sum(axis=1, keepdims=True)


def umeasure_weights(lists: Lists, s: dict) -> np.ndarray:
    """U-measure (Sakai and Dou 2013) as weights: W(i) proportional to max(0, 1 - K_{i-1} / L), i < n.

    K_0 = 0 (the position of the doc's first character); the last rank gets
    weight 0, as cwl_eval gives it. Rows are normalised to sum to 1.
    """
    start = np.zeros_like(lists.cum_cost)
    start[:, 1:] = lists.cum_cost[:, :-1]
    weight = np.maximum(0.0, 1.0 - start / s["L"])
    weight[:, -1] = 0.0
    return weight / weight.sum(axis=1, keepdims=True)


# name -> (function, returns weights rather than continuations)
MODELS = {
    "cwl_p": (precision, False), "cwl_rbp": (rbp, False), "cwl_rr": (reciprocal_rank, False),
    "cwl_ap": (average_precision, False), "sdcg": (scaled_dcg, False), "inst": (inst, False),
    "insq": (insq, False), "bpm": (bpm_static, False), "bpm_dynamic": (bpm_dynamic, False),
    "tbg": (tbg_weights, True), "umeasure": (umeasure_weights, True), "ift_goal": (ift_goal, False),
    "ift_rate": (ift_rate, False), "ift_goal_rate": (ift_goal_rate, False), "nerr8": (nerr8, False),
    "nerr9": (nerr9, False), "nerr10": (nerr10, False), "nerr11": (nerr11, False),
}
