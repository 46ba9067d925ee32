"""The statistics of compare's rows, vectorised over a block of rows, and compare's option checks.

Each row is one pair of runs on one measure: its per-query differences
B - A. :func:`row_statistics` gives every row's means, effect size, wins,
ties and losses, p-value and interval; with ``method='auto'`` the p-value and
the interval of a row with thousands of queries come from the paired t-test
and the normal interval where :mod:`.asymptotic`'s checks say resampling
could not tell them apart, and from resampling otherwise.
"""

from __future__ import annotations

import difflib
import math
from typing import cast

import numpy as np

from ..errors import InputError, literal
from ..measures.base import Measure
from .asymptotic import (METHODS, MIN_QUERIES, LargeSample, berry_esseen, interval_check,
                         normal_intervals, p_value_check, t_p_values)
from .corrections import CORRECTIONS
from .keywords import BootstrapMethod, CorrectionName, TestName
from .resampling import mean_intervals
from .significance import TESTS

__all__ = ["row_statistics", "checked_options", "method_lines", "BOOTSTRAP_METHODS",
           "TIE_TOLERANCE"]

# Per-query values closer than this count as a tie (sums in another order differ by rounding).
TIE_TOLERANCE = 1e-12
BOOTSTRAP_METHODS = ("percentile", "BCa", "basic")


def choose(value: str, options, what: str) -> str:
    """``value`` if it is one of ``options``; else refused, naming the nearest option."""
    if value in options:
        return value
    near = difflib.get_close_matches(str(value), list(options), n=1)
    hint = f"did you mean {near[0]}? " if near else ""
    raise InputError(what=literal(f"unknown {what} {value!r}"), value=value,
                     fix=literal(f"{hint}choose one of {', '.join(options)}"))


def checked_options(*, test: str, correction: str, bootstrap_method: str, alpha: float,
                    confidence: float,
                    power: float, n_resamples: int, seed: int | None, method: str = "auto"
                    ) -> tuple[TestName, CorrectionName, BootstrapMethod]:
    """Refuse options compare cannot use; (test, correction, bootstrap method) as known names."""
    choose(method, METHODS, "method")
    test = choose(test, TESTS, "test")
    correction = choose(correction, CORRECTIONS, "correction")
    bootstrap_method = choose(bootstrap_method, BOOTSTRAP_METHODS, "bootstrap method")
    for name, value, low, high in (("alpha", alpha, 0, 1), ("confidence", confidence, 0, 1),
                                   ("power", power, 0, 1)):
        if not isinstance(value, (int, float)) or not low < value < high:
            raise InputError(what=literal(f"{name} must be a number in ({low}, {high}); got {value!r}"), value=value)
    if not isinstance(n_resamples, int) or isinstance(n_resamples, bool) or n_resamples < 1:
        raise InputError(what=literal(f"n_resamples must be a positive integer; got {n_resamples!r}"),
                         value=n_resamples)
    # A percentile interval needs resamples in both tails: at least 2 / (1 - confidence)
    # (40 at 95%); with fewer the interval need not even hold the estimate.
    fewest = math.ceil(2 / (1 - confidence) - 1e-9)
    if n_resamples < fewest:
        raise InputError(what=f"n_resamples {n_resamples} is too few for a {confidence:g} interval",
                         value=n_resamples,
                         fix=f"give at least {fewest} (--resamples {fewest}), 10000 for stable results")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputError(what=literal(f"seed must be a non-negative integer; got {str(seed)[:40]}"),
                         value=seed)
    return (cast(TestName, test), cast(CorrectionName, correction),
            cast(BootstrapMethod, bootstrap_method))


def row_statistics(values: np.ndarray, index: list[tuple[int, int, int]], names: list[str],
                   measure_list: list[Measure], *, test: TestName, confidence: float,
                   n_resamples: int,
                   seed: int | None, bootstrap_method: BootstrapMethod, method: str = "resampling"
                   ) -> dict[str, np.ndarray]:
    """Means, difference, effect size, wins, ties, losses, p-value and interval of each row of `index`,
    and how each row's p-value and interval were computed (``p_normal``, ``ci_normal`` with the
    checks' figures ``p_bound`` and ``ci_shift``; see :mod:`.asymptotic`)."""
    measure_index = np.array([m for m, _, _ in index])
    first = values[np.array([a for _, a, _ in index]), measure_index]
    second = values[np.array([b for _, _, b in index]), measure_index]
    d = second - first
    paired = ~np.isnan(d)
    n = paired.sum(axis=1)
    if (n < 2).any():
        m, a, b = index[int(np.flatnonzero(n < 2)[0])]
        raise InputError(what=literal(f"{names[a]} and {names[b]} share {int(n.min())} queries with a value for "
                                      f"{measure_list[m]}"), value=int(n.min()),
                         fix="a paired comparison needs at least 2")
    mean_a = np.where(paired, first, 0).sum(axis=1) / n
    mean_b = np.where(paired, second, 0).sum(axis=1) / n
    del first, second
    difference = np.where(paired, d, 0).sum(axis=1) / n
    deviation = np.sqrt(np.where(paired, (d - difference[:, None]) ** 2, 0).sum(axis=1) / (n - 1))
    # Differences equal to within the tie tolerance have no spread; what the sums leave
    # (1e-17 for seven differences of 2/3) is rounding, and would make d 5e15.
    scale = np.maximum(1.0, np.nanmax(np.where(paired, np.abs(d), 0.0), axis=1))
    deviation = np.where(deviation <= TIE_TOLERANCE * scale, 0.0, deviation)
    # Equal nonzero differences have no spread: the effect size d and the
    # t-test's p are undefined (NaN, shown as n/a), not infinite and 0.
    undefined = ~(deviation > 0) & (difference != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(deviation > 0, difference / deviation,
                          np.where(difference == 0, 0.0, np.nan))
    wins = (paired & (d > TIE_TOLERANCE)).sum(axis=1)
    losses = (paired & (d < -TIE_TOLERANCE)).sum(axis=1)
    chosen = _methods(d, test=test, confidence=confidence, n_resamples=n_resamples, method=method)
    p = np.empty(len(d))
    resampled = ~chosen["p_normal"]
    if resampled.any():
        p[resampled] = TESTS[test](d[resampled], n_resamples=n_resamples, seed=seed)
    p[chosen["p_normal"]] = chosen.pop("p_t")[chosen["p_normal"]]
    if test == "t":
        p = np.where(undefined, np.nan, p)
    intervals = chosen.pop("normal_ci")
    bootstrapped = ~chosen["ci_normal"]
    if bootstrapped.any():
        intervals[bootstrapped] = mean_intervals(d[bootstrapped], confidence, n_resamples, seed,
                                                 bootstrap_method)
    return {"mean_a": mean_a, "mean_b": mean_b, "difference": difference, "effect": effect,
            "wins": wins,
            "losses": losses, "ties": n - wins - losses, "n": n, "p": p, "low": intervals[:, 0],
            "high": intervals[:, 1], **chosen}


def _methods(d: np.ndarray, *, test: str, confidence: float, n_resamples: int, method: str
             ) -> dict[str, np.ndarray]:
    """Which rows take the paired t-test and the normal interval, the checks' figures, and those forms."""
    rows = len(d)
    if method == "resampling":
        return {"p_normal": np.zeros(rows, dtype=bool), "ci_normal": np.zeros(rows, dtype=bool),
                "p_bound": np.full(rows, np.nan), "p_guarantee": np.full(rows, np.nan),
                "ci_shift": np.full(rows, np.nan), "p_t": np.full(rows, np.nan),
                "normal_ci": np.full((rows, 2), np.nan)}
    moments = LargeSample(d)
    bound, p_switch, _ = p_value_check(moments, n_resamples)
    shift, ci_switch, _ = interval_check(moments, confidence, n_resamples)
    # forced: every row with a spread (constant rows keep their exact answers)
    if method == "normal":
        p_switch = ci_switch = (moments.sd > 0) & (moments.n >= 2)
    # Only the randomization test is replaced: t is the t-test already, Wilcoxon keeps scipy's own
    # forms.
    p_switch = p_switch & (test == "randomization")
    return {"p_normal": p_switch, "ci_normal": ci_switch, "p_bound": bound,
            "p_guarantee": berry_esseen(moments),
            "ci_shift": shift,
            "p_t": t_p_values(moments), "normal_ci": normal_intervals(moments, confidence)}


def method_lines(stat: dict[str, np.ndarray], *, method: str, test: str, confidence: float,
                 n_resamples: int, bootstrap_method: str) -> tuple[tuple[tuple[str, str], ...],
                                                                   tuple[str, ...]]:
    """(per row: how its p-value and interval were computed, the checks as sentences)."""
    p_normal, ci_normal, n = stat["p_normal"], stat["ci_normal"], stat["n"]
    resampled_p = {"randomization": f"randomization test ({n_resamples:,} sign flips)",
                   "t": "paired t-test",
                   "wilcoxon": "Wilcoxon signed-rank test"}[test]
    bootstrap = f"{bootstrap_method} bootstrap ({n_resamples:,} resamples)"
    methods = tuple(("paired t-test (normal check)" if pn else resampled_p,
                     "normal interval (skewness check)" if cn else bootstrap)
                    for pn, cn in zip(p_normal.tolist(), ci_normal.tolist()))
    if method == "resampling":
        return (methods,
                (f"method resampling: p from the {resampled_p}, intervals from the {bootstrap}",))
    if method == "auto" and not (n >= MIN_QUERIES).any():
        # no row is large enough to switch: nothing to report, the output as before
        return methods, ()
    lines = [f"method {method}: rows with {MIN_QUERIES:,} queries or more take the paired t-test and the normal "
             "interval where resampling could not tell them apart (rankproof.stats.asymptotic)"]
    allowed_p = 0.5 / math.sqrt(n_resamples)
    if test == "randomization":
        bound = stat["p_bound"][p_normal]
        guarantee = stat["p_guarantee"][p_normal]
        kept = int((~p_normal).sum())
        lines.append(f"p: paired t-test on {int(p_normal.sum())} of {len(n)} rows"
                     + (f" (|p - p_randomization| at most {float(bound.max()):.2g} by the Edgeworth kurtosis term, "
                        f"within {allowed_p:.2g} = 0.5/sqrt({n_resamples:,}), the Monte Carlo error of the test it "
                        f"replaces; Berry-Esseen guarantee {float(guarantee.max()):.2g})"
                        if len(bound) else "")
                     + (f"; {kept} kept the {resampled_p}, whose p has a Monte Carlo sd of at most "
                        f"{allowed_p:.2g}" if kept else ""))
    tail = (1 - confidence) / 2
    from scipy.special import ndtri

    z = float(ndtri(1 - tail))
    allowed_ci = (math.sqrt(tail * (1 - tail) / n_resamples)
                  / (math.exp(-z * z / 2) / math.sqrt(2 * math.pi)))
    shift = stat["ci_shift"][ci_normal]
    kept = int((~ci_normal).sum())
    lines.append(f"CI: normal interval (mean -+ {z:.3g} se) on {int(ci_normal.sum())} of {len(n)} rows"
                 + (f" (skewness moves the bootstrap ends by at most {float(shift.max()):.2g} se, within the "
                    f"{allowed_ci:.2g} se Monte Carlo error of {n_resamples:,} resamples)"
                    if len(shift) else "")
                 + (f"; {kept} kept the {bootstrap}, whose ends have a Monte Carlo sd of {allowed_ci:.2g} se"
                    if kept else ""))
    return methods, tuple(lines)


