"""Text and JSON of a many-system analysis (``rankproof systems``): means with letters, the ANOVA line,
the pairs, the matrix of significant pairs, risk and design."""

from __future__ import annotations

import json
import math

from .letters import compact_letters, pair_matrix
from .compare import p_phrase, p_text

__all__ = ["to_text", "to_json"]


def _number(value: float, digits: int = 4) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _p(value: float) -> str:
    return p_text(value)


def _p_equals(value: float) -> str:
    return p_phrase(value)


def _columns(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                             for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def _means(analysis, tests, digits: int = 4) -> list[str]:
    index = {name: i for i, name in enumerate(tests.systems)}
    significant = [(index[p.system_a], index[p.system_b]) for p in tests.significant]
    letters = compact_letters(tests.means, significant) if not tests.baselines else None
    order = sorted(range(len(tests.systems)), key=lambda i: (-tests.means[i], i))
    header = ["system", "mean"] + (["group"] if letters else [])
    rows = [[tests.systems[i], _number(tests.means[i], digits)] + ([letters[i]] if letters else [])
            for i in order]
    return _columns([header, *rows], {1})


def _pairs(tests, digits: int = 4) -> list[str]:
    rows = [["pair", "difference", "statistic", "p (adjusted)", ""]]
    for pair in tests.pairs:
        rows.append([f"{pair.system_b} - {pair.system_a}", f"{pair.difference:+.{digits}f}",
                     _number(pair.statistic),
                     _p(pair.p_value), "*" if pair.significant else ""])
    return _columns(rows, {1, 2, 3})


def _measure(analysis, digits: int = 4) -> list[str]:
    tests, anova = analysis.tests, analysis.anova
    family = f"against {', '.join(tests.baselines)}" if tests.baselines else "all pairs"
    draws = ("every permutation" if tests.exact
             else f"{tests.n_resamples} permutations, seed {tests.seed}")
    # a large-sample limit (rankproof.stats.large_systems): its method and check
    if getattr(tests, "method", ""):
        draws = tests.method
    lines = [f"{analysis.measure}:", *_means(analysis, tests, digits),
             f"  two-way ANOVA: systems F({anova.df_system}, {anova.df_residual}) = {_number(anova.f_system, 2)}, "
             f"{_p_equals(anova.p_system)}; topics F({anova.df_topic}, {anova.df_residual}) = "
             f"{_number(anova.f_topic, 2)}, {_p_equals(anova.p_topic)}",
             f"  {tests.procedure}, {family} ({draws}); * adjusted p < {tests.alpha}:",
             *_pairs(tests, digits)]
    index = {name: i for i, name in enumerate(tests.systems)}
    tested = {(index[p.system_a], index[p.system_b]): p.significant for p in tests.pairs}
    lines += ["  significant pairs (row against column: + better, - worse, . not significant):",
              *("  " + line
                for line in pair_matrix(tests.systems, tests.means, tested).split("\n"))]
    lines += _mixed(analysis, digits) + _risk(analysis, digits) + _design(analysis)
    return lines


def _mixed(analysis, digits: int = 4) -> list[str]:
    model = analysis.mixed
    if model is None:
        return []
    rows = [["system", f"- {model.systems[0]}", "SE", "p"]]
    for name, effect, error, p in list(zip(model.systems, model.effects, model.standard_errors,
                                           model.p_values))[1:]:
        rows.append([name, f"{effect:+.{digits}f}", f"{error:.{digits}f}", _p(p)])
    return [f"  mixed model (score ~ system + (1 | topic), REML): topic variance {model.topic_variance:.4g}, "
            f"residual variance {model.residual_variance:.4g}; effects against {model.systems[0]}:",
            *_columns(rows, {1, 2, 3})]


def _risk(analysis, digits: int = 4) -> list[str]:
    if not analysis.risk:
        return []
    rows = [["run", "baseline", "URisk", "TRisk", "p", "wins", "losses", "GeoRisk"]]
    for risk in analysis.risk:
        rows.append([risk.run, risk.baseline, f"{risk.urisk:+.{digits}f}", _number(risk.trisk, 2),
                     _p(risk.p_value),
                     str(risk.wins), str(risk.losses), _number(risk.georisk, digits)])
    alpha = analysis.risk[0].alpha
    return [f"  risk (alpha {alpha:g}; TRisk < -2: riskier than the baseline, > 2: safer):",
            *_columns(rows, {2, 3, 4, 5, 6, 7})]


def _design(analysis) -> list[str]:
    size = analysis.design
    if size is None:
        return []
    return [f"  topic set size (Sakai 2016; residual variance V_E = {size.variance:.4g}, power {size.power:g}): "
            f"{size.t_test} topics for a t-test to detect {size.min_difference:g}, {size.anova} for a one-way "
            f"ANOVA to detect a range of {size.min_difference:g}, {size.ci} for a confidence interval of a "
            f"difference no wider than {size.ci_width:g}"]


def to_text(analysis, digits: int = 4) -> str:
    """The analysis as plain text, one block per measure (``digits``: decimals of means, differences, effects
    and risks; p-values keep 4)."""
    lines = [f"{len(analysis.systems)} systems on {analysis.topics} topics (those every run has)",
             str(analysis.recommendation), ""]
    for measure in analysis.measures:
        lines += _measure(measure, digits) + [""]
    if analysis.discrimination:
        lines.append("discriminative power (Sakai 2006: share of pairs with bootstrap ASL < alpha):")
        rows = [["measure", "power", "ASL curve (sorted)"]]
        for item in analysis.discrimination:
            rows.append([item.measure, f"{item.power:.3f}",
                         " ".join(f"{v:.3f}" for v in item.curve)])
        lines += _columns(rows, {1}) + [""]
    return "\n".join(lines)


def to_json(analysis) -> str:
    """Every number at full precision; an undefined or infinite one (an F without residual variance,
    a TRisk without spread) as null."""
    import dataclasses

    data = dataclasses.asdict(analysis)
    data["settings"] = dict(analysis.settings)
    for item, source in zip(data["discrimination"], analysis.discrimination):
        item["power"], item["curve"] = source.power, list(source.curve)
    for item, source in zip(data["measures"], analysis.measures):
        item["anova"]["residual_variance"] = source.anova.residual_variance
    return json.dumps(_finite(data), indent=2, default=str, allow_nan=False) + "\n"


def _finite(value):
    """NaN and infinities as null (JSON has no such numbers); the text output spells them out."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
