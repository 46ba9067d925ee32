"""The side-data measures' reference page, generated from ``rankproof.recsys.SIDE_REGISTRY``.

The measures that read something beyond the judgments (a catalogue, a training
log, item features, user groups) have their own registry
(:mod:`rankproof.recsys.registry`); this page lists each with its definition,
how it is written, its parameters (parser default and description), what it
reads, its values and the peers' names and presets where they are known
(``PEERS``), the literature (``REFERENCES``). A measure added there appears here
with no edit. ``scripts/docs/measure_pages.py`` adds the page to the reference.
"""

from __future__ import annotations

import math

PAGE = "side"
TITLE = "Side-data measures: catalogue, popularity, features, groups and fairness of exposure"

# Other tools' names and the presets that reproduce them (a measure absent here: none known).
PEERS = {
    "ee_l": "TREC Fair Ranking 2020-2022 `EE-L`; expeval (diazf) `difference` (unnormalised)",
    "ee_d": "TREC Fair Ranking `EE-D`; expeval `disparity` (unnormalised)",
    "ee_r": "TREC Fair Ranking `EE-R`; expeval `relevance` (unnormalised)",
    "awrf": "TREC Fair Ranking 2021/22 `AWRF` (`preset=trec2021`: its script's discount and natural log). "
            "FairRankTune's `AWRF` is another statistic (group mean attention per item, combined by a ratio "
            "or a difference), not reproduced; LensKit ships no AWRF or expected exposure (lkpy#694); "
            "Elliot's fairness metrics are not installable here (elliot is not on PyPI)",
    "tail_percentage": "RecBole `TailPercentage` (`tail` = its `tail_ratio`; tested equal)",
    "gini": "RecBole, Elliot, RecPack, Evidently and LensKit's Gini indices (`preset=recbole`, `elliot`, "
            "`recpack`, `evidently`, `lenskit`, `lenskit_exposure`)",
    "gauc": "RecBole `GAUC` (`weights=clicks`)",
}

# The formula of the measures whose definition does not write it out.
FORMULAS = {
    "ee_l": "‖ε − ε*‖², ε_d = E_π[γ^(rank_π(d) − 1)] over the policy's rankings (0 from rank k + 1), "
            "ε*_d = (1/m) Σ_{i=b}^{min(b+m, k)−1} γ^i for an item of a grade held by m items below b of higher "
            "grades (0 for the others)",
    "ee_d": "‖ε‖² (ε as for `ee_l`)",
    "ee_r": "εᵀε* (ε, ε* as for `ee_l`); EE-L = EE-D − 2 EE-R + ‖ε*‖²",
    "awrf": "1 − JSD(p, q), p_g ∝ Σ_i a(i) [g ∈ G(d_i)], a(i) = 1 / log2 max(i, 2) or γ^(i−1); q the target "
            "(the relevant items' groups, the catalogue's or uniform); JSD in bits (base=e: nats)",
    "tail_percentage": "mean over users of |top_k(u) ∩ T| / |top_k(u)|, T the max(⌊t |I|⌋, 1) least-interacted "
                       "training items (t ≤ 1) or those with at most t interactions (t > 1)",
}

REFERENCES = {
    **{name: "F. Diaz, B. Mitra, M. Ekstrand, A. Biega, B. Carterette. Evaluating stochastic rankings with "
       "expected exposure. CIKM 2020." for name in ("ee_l", "ee_d", "ee_r")},
    "awrf": "P. Sapiezynski, W. Zeng, R. Robertson, A. Mislove, C. Wilson. Quantifying the impact of user "
            "attention on fair group representation in ranked lists. WWW 2019 companion; M. Ekstrand et al. "
            "Overview of the TREC 2021 Fair Ranking track.",
    "tail_percentage": "RecBole's evaluator (recbole/evaluator/metrics.py, TailPercentage); Z. Zhu et al. "
                       "Measuring and mitigating item under-recommendation bias. 2020.",
}


def _number(value: float) -> str:
    return "∞" if value == math.inf else f"{value:g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _written(spec) -> str:
    if spec.needs_cutoff:
        return f"`{spec.name}@10` (a cutoff is required)"
    if not spec.cutoff:
        return f"`{spec.name}` (no cutoff)"
    return f"`{spec.name}` (whole list) or `{spec.name}@10`"


def _reads(spec) -> str:
    from rankproof.recsys.side import SIDE_FLAGS

    if spec.reads:
        return spec.reads
    found = [" or ".join(SIDE_FLAGS[kind] for kind in alternatives) for alternatives in spec.needs]
    found += ["the judgments (QRELS)"] if spec.judgments else []
    return ", ".join(found) or "nothing beyond the run"


def section(spec) -> str:
    params = "<br>".join(f"`{p.name}` (default `{p.default}`): {p.description}" for p in spec.params) or "none"
    low, high = spec.value_range
    better = {True: "higher is better", False: "lower is better", None: "neither higher nor lower is better"}
    kind = ("one value per list (user), averaged" if spec.kind == "list"
            else "one value for the whole run (the catalogue's)")
    rows = [("Definition", spec.description)] + ([("Formula", FORMULAS[spec.name])] if spec.name in FORMULAS else [])
    rows += [("Written", _written(spec)), ("Parameters", params),
             ("Reads", _reads(spec)), ("Values", f"[{_number(low)}, {_number(high)}]; {kind}; "
                                                 f"{better[spec.higher_is_better]}"),
             ("Other tools' names", PEERS.get(spec.name, "none known")),
             ("References", REFERENCES.get(spec.name, f"the docstring of `{spec.compute.__module__}`"))]
    table = "\n".join(f"| {key} | {_cell(value)} |" for key, value in rows)
    return f"## `{spec.name}` {{#{spec.name}}}\n\n| | |\n|---|---|\n{table}\n"


def page() -> str:
    from rankproof.recsys import SIDE_REGISTRY

    lines = [f"# {TITLE}", "", "<!-- generated from rankproof.recsys.SIDE_REGISTRY by scripts/docs/side_pages.py -->",
             "", f"{len(SIDE_REGISTRY)} measures that read side data beside the judgments (the catalogue "
             "`--items`, the training log `--train`, item features `--features`, user groups `--groups`), "
             "evaluated with `-m` beside the accuracy measures (`rankproof evaluate QRELS RUN -m ndcg@10 "
             "-m coverage@10 --train train.csv`) or with `rankproof.recsys.evaluate_with_side`. "
             "Their disparity across user groups, with an interval, is `rankproof.stats.group_disparity` "
             "(and the report's per-user-group table).", "",
             "| measure | definition |", "|---|---|"]
    lines += [f"| [`{name}`](#{name}) | {_cell(spec.description)} |" for name, spec in SIDE_REGISTRY.items()]
    lines.append("")
    lines += [section(spec) for spec in SIDE_REGISTRY.values()]
    return "\n".join(lines)
