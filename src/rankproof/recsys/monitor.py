"""Near-line monitoring: a current window of traffic against a reference window, with an alert on a real drop.

Each window is an evaluation (:class:`~rankproof.Results`, or results saved
by ``rankproof evaluate --format json -o FILE`` or ``--format parquet -o FILE``). The two must have been
evaluated under one protocol: their fingerprints must match, else
:func:`monitor` refuses in one line naming the policies that differ.

For each measure both windows hold, the report gives the reference and
current means over users (``aggregation=macro``; NaN values, users a measure
leaves out, are left out), the change (current - reference, also relative
to the reference) with

* a percentile bootstrap interval of the change: each window's users are
  resampled on their own (the windows are independent samples of users, not
  pairs), ``resamples`` times from one seeded generator;
* Welch's two-sample t-test of the means (``scipy.stats.ttest_ind`` with
  ``equal_var=False``): unpaired, because the users of two windows differ,
  and without assuming equal variances; two-sided p.

A measure *drops* when its change is negative and its size passes the
threshold ``max_drop`` (``"5%"``: relative to the reference mean;
``"0.01"``: absolute), and the drop is *significant* when Welch's p is below
``alpha``. An alert is raised when some measure drops beyond the threshold
significantly: :attr:`Monitoring.alert` is true and :attr:`Monitoring.alert_line`
says which; ``rankproof monitor`` prints that line on stderr and exits with
:data:`ALERT_EXIT` (3). Every measure is taken as higher-is-better.

The bootstrap of a mean over a million users is cheap: the mean of a
resample depends only on how many times each distinct value is drawn, so
with K distinct values (ndcg@10 over binary judgments has at most a few
thousand) a resample is one multinomial draw of K counts, the same
distribution as drawing users one by one. Small windows draw users as
:func:`rankproof.stats.resampling.resampled_statistics` does (scipy's
stream). Above :data:`MAX_GROUPS` distinct values, the values are grouped
into that many equal-width bins, each bin holding its values' mean (so the
point estimate is exact and a resampled mean moves by at most half a bin's
width, 1/8192 of the measure's range, and by far less on average: each
value's rounding is averaged over the users drawn).
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Sequence

import numpy as np

from ..errors import ComparabilityError, InputError, literal

__all__ = ["ALERT_EXIT", "MAX_GROUPS", "Threshold", "MonitorRow", "Monitoring", "monitor",
           "mean_resamples"]

ALERT_EXIT = 3
"""Exit code of ``rankproof monitor`` when a drop passes the threshold and is significant."""

MAX_GROUPS = 4096
# Users x resamples below which users are drawn one by one (the classic bootstrap's own stream).
_INDEX_DRAWS = 20_000_000


@dataclasses.dataclass(frozen=True)
class Threshold:
    """How large a drop must be to alert: ``Threshold.parse("5%")`` (relative) or ``"0.01"`` (absolute)."""

    value: float
    relative: bool

    @classmethod
    def parse(cls, text: "str | float | Threshold") -> "Threshold":
        if isinstance(text, Threshold):
            return text
        given = str(text).strip()
        relative = given.endswith("%")
        try:
            value = float(given[:-1] if relative else given)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            raise InputError(what=literal(f"max_drop {text!r} is not a drop such as 5% or 0.01"),
                             value=text,
                             fix="give a relative drop with % (5%) or an absolute one (0.01)")
        return cls(value / 100 if relative else value, relative)

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"{self.value:g}"

    def passed(self, reference: float, change: float) -> bool:
        """Whether a change (current - reference) is a drop beyond the threshold."""
        drop = -change
        return bool(drop > (self.value * abs(reference) if self.relative else self.value))


@dataclasses.dataclass(frozen=True)
class MonitorRow:
    """One measure: the two means, the change with its interval, Welch's p, and whether it alerts."""

    measure: str
    reference: float
    current: float
    change: float
    relative_change: float
    low: float
    high: float
    p: float
    users_reference: int
    users_current: int
    dropped: bool
    significant: bool

    @property
    def alert(self) -> bool:
        return self.dropped and self.significant


@dataclasses.dataclass(frozen=True)
class Monitoring:
    """The monitoring report; ``str()`` is its table, ``alert_line`` the one line of an alert (or None)."""

    rows: tuple[MonitorRow, ...]
    fingerprint: str
    max_drop: Threshold
    alpha: float
    confidence: float
    resamples: int
    seed: int
    current_name: str = "current"
    reference_name: str = "reference"

    @property
    def alert(self) -> bool:
        return any(row.alert for row in self.rows)

    @property
    def alert_line(self) -> str | None:
        alerts = [row for row in self.rows if row.alert]
        if not alerts:
            return None
        parts = [f"{row.measure} dropped {row.reference:.4f} -> {row.current:.4f} ({_relative(row.relative_change)}; "
                 f"{self.confidence:.0%} CI of the change [{row.low:+.4f}, {row.high:+.4f}], Welch p {_p(row.p)})"
                 for row in alerts]
        return f"ALERT: {'; '.join(parts)}: beyond max drop {self.max_drop} at alpha {self.alpha:g}"

    def __str__(self) -> str:
        users = (f" ({self.rows[0].users_current} vs {self.rows[0].users_reference} users)"
                 if self.rows else "")
        lines = [f"monitor: {self.current_name} vs {self.reference_name}, protocol {self.fingerprint}{users}",
                 f"change = current - reference; {self.confidence:.0%} percentile bootstrap ({self.resamples} "
                 f"resamples, seed {self.seed}); Welch's t-test (unpaired); alert: a drop beyond {self.max_drop} "
                 f"with p < {self.alpha:g}"]
        width = max([9, *(len(row.measure) for row in self.rows)]) + 2
        lines.append(f"{'measure':<{width}}{'reference':>10}{'current':>10}{'change':>10}{'relative':>10}"
                     f"{'CI low':>10}{'CI high':>10}{'p':>10}  status")
        for row in self.rows:
            status = "ALERT" if row.alert else ("drop, not significant" if row.dropped else "ok")
            lines.append(f"{row.measure:<{width}}{row.reference:>10.4f}{row.current:>10.4f}{row.change:>+10.4f}"
                         f"{_relative(row.relative_change):>10}{row.low:>+10.4f}{row.high:>+10.4f}{_p(row.p):>10}  {status}")
        return "\n".join(lines)


def _p(p: float) -> str:
    from ..results.pvalues import p_text

    return p_text(p)


def _relative(value: float) -> str:
    """A relative change, or n/a when the reference mean is 0 (no change relative to nothing)."""
    return f"{value:+.1%}" if math.isfinite(value) else "n/a"


def mean_resamples(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """`resamples` bootstrap means of `values` (users drawn with replacement), as the module docstring says."""
    from ..stats.resampling import resampled_statistics

    n = len(values)
    if n * resamples <= _INDEX_DRAWS:
        return resampled_statistics((values,), np.mean, resamples, rng)
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) > MAX_GROUPS:
        low, high = float(distinct[0]), float(distinct[-1])
        bins = np.minimum(((values - low) / (high - low) * MAX_GROUPS).astype(np.int64),
                          MAX_GROUPS - 1)
        counts = np.bincount(bins, minlength=MAX_GROUPS)
        sums = np.bincount(bins, weights=values, minlength=MAX_GROUPS)
        kept = counts > 0
        distinct, counts = sums[kept] / counts[kept], counts[kept]
    draws = rng.multinomial(n, counts / n, size=resamples)
    return (draws @ distinct) / n


def _window(value, name: str):
    """A window as (Results or SavedResults, its name): a path is read as saved results holding one run."""
    if isinstance(value, (str, os.PathLike)):
        from ..stats.saved import load_results

        runs = load_results(value)
        if len(runs) != 1:
            raise InputError(source=os.fspath(value),
                             what=literal(f"holds {len(runs)} runs, not one window"),
                             fix="save each window's evaluation of one run to its own file")
        return runs[0], os.path.basename(os.fspath(value))
    if not (hasattr(value, "values") and hasattr(value, "protocol") and hasattr(value, "measures")):
        raise InputError(what=literal(f"the {name} window is a {type(value).__name__}, not an evaluation"),
                         fix="pass Results (rankproof.evaluate_frame, ...) or a file from rankproof evaluate "
                             "--format parquet (or json) -o FILE")
    return value, str(getattr(value, "run_name", name))


def _same_protocol(current, reference) -> None:
    from ..protocol.policies import Aggregation

    if current.protocol.fingerprint != reference.protocol.fingerprint:
        mine, theirs = set(str(current.protocol).split()), set(str(reference.protocol).split())
        differ = ", ".join(sorted(mine - theirs)) or "a policy read from a file"
        raise ComparabilityError(what=literal(f"the current window's protocol {current.protocol.fingerprint} is not "
                                              f"the reference's {reference.protocol.fingerprint} (current has "
                                              f"{differ})"),
                                 fix="evaluate both windows under one protocol (the same --preset and --policy)")
    if current.protocol.aggregation != Aggregation.MACRO:
        raise InputError(what=literal(f"aggregation={current.protocol.aggregation} is not macro"),
                         fix="monitor compares means over users: evaluate the windows with aggregation=macro")


def monitor(current, reference, measures: "str | Sequence[str] | None" = None, *, max_drop="5%",
            alpha: float = 0.05, confidence: float = 0.95, resamples: int = 2000,
            seed: int = 0) -> Monitoring:
    """Compare a current window's evaluation with a reference window's; say whether a measure dropped.

    Parameters
    ----------
    current, reference : Results, SavedResults or path
        Evaluations of the two windows under one protocol (a path: a file
        written by ``rankproof evaluate --format parquet -o FILE`` or ``--format json``, one run).
    measures : str or list of str, optional
        By default every measure both windows hold.
    max_drop : str, float or Threshold
        ``"5%"`` relative to the reference mean, ``"0.01"`` (or 0.01) absolute.
    alpha : float
        Significance level of Welch's t-test.
    confidence, resamples, seed
        The bootstrap interval of each change.

    Returns
    -------
    Monitoring
        ``alert`` and ``alert_line``; ``str()`` the table.
    """
    threshold = Threshold.parse(max_drop)
    if not (0 < alpha < 1 and 0 < confidence < 1) or resamples < 1:
        raise InputError(what=literal(f"alpha {alpha}, confidence {confidence}, resamples {resamples}: alpha and "
                                      "confidence must be between 0 and 1, resamples at least 1"),
                         fix="e.g. alpha=0.05, confidence=0.95, resamples=2000")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(what=literal(f"seed must be a non-negative integer; got {str(seed)[:40]}"),
                         value=seed)
    (current, current_name), (reference, reference_name) = (_window(current, "current"),
                                                            _window(reference, "reference"))
    _same_protocol(current, reference)
    names = _measures(current, reference, measures)
    rng = np.random.default_rng(seed)
    rows = []
    for name in names:
        now, before = _present(current.values(name)), _present(reference.values(name))
        if len(now) < 2 or len(before) < 2:
            raise InputError(what=literal(f"{name}: a window holds fewer than 2 users with a value"),
                             fix="monitor windows of more users")
        change = float(now.mean() - before.mean())
        spread = mean_resamples(now, resamples, rng) - mean_resamples(before, resamples, rng)
        low, high = np.quantile(spread, [(1 - confidence) / 2, (1 + confidence) / 2])
        p = welch_p(now, before)
        p = 1.0 if math.isnan(p) else p      # two constant windows: no evidence of a change
        reference_mean = float(before.mean())
        rows.append(MonitorRow(
            measure=name, reference=reference_mean, current=float(now.mean()), change=change,
            relative_change=change / reference_mean if reference_mean else math.nan, low=float(low),
            high=float(high),
            p=p, users_reference=len(before), users_current=len(now),
            dropped=threshold.passed(reference_mean, change), significant=p < alpha))
    return Monitoring(rows=tuple(rows), fingerprint=current.protocol.fingerprint,
                      max_drop=threshold, alpha=alpha,
                      confidence=confidence, resamples=resamples, seed=seed,
                      current_name=current_name, reference_name=reference_name)


def welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """The two-sided p-value of Welch's t-test of two 1-D samples: ``scipy.stats.ttest_ind(a, b,
    equal_var=False).pvalue`` by the same operations in the same order (scipy 1.17's
    ``_moment``, ``_var``, ``_unequal_var_ttest_denom`` and the t distribution's ``sf``), so
    the same bits; ``scipy.special`` alone is imported (scipy.stats took 0.5 s of the command).

    >>> round(welch_p(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0, 8.0, 10.0])), 6)
    0.069134
    """
    from scipy.special import stdtr

    def mean_and_var(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = np.asarray(x.shape[0], dtype=x.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.mean((x - np.mean(x, axis=0, keepdims=True)) ** 2, axis=0) * (n / (n - 1))
        return np.mean(x, axis=0), var

    (m1, v1), (m2, v2) = (mean_and_var(np.asarray(a, dtype=np.float64)),
                          mean_and_var(np.asarray(b, dtype=np.float64)))
    n1, n2 = len(a), len(b)
    vn1, vn2 = v1 / n1, v2 / n2
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (vn1 + vn2) ** 2 / (vn1 ** 2 / (n1 - 1) + vn2 ** 2 / (n2 - 1))
        df = np.where(np.isnan(df), 1.0, df)
        t = np.divide(m1 - m2, np.sqrt(vn1 + vn2))
    return float(2 * stdtr(np.asarray(df, dtype=t.dtype), -np.abs(t)))


def _present(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return values[~np.isnan(values)]


def _measures(current, reference, measures) -> list[str]:
    if measures is None:
        theirs = {str(m) for m in reference.measures}
        names = [str(m) for m in current.measures if str(m) in theirs]
        if not names:
            raise InputError(what="the two windows hold no measure in common",
                             fix="evaluate both windows with the same measures (-m)")
        return names
    return [measures] if isinstance(measures, str) else [str(m) for m in measures]
