"""The measures reference, generated from the registry at build time.

One page per measure family (``MeasureSpec.family``) and an index, every
field read from :data:`rankproof.measures.REGISTRY`, the parameter table
(``PARAMS``), the default ``Protocol``, the engines' registry
(``engines.ENGINES``, each engine asked ``supports``) and the alias table
(``measures.aliases``). A measure added to the registry appears here with
no edit; ``REFERENCES`` only adds the literature where it is known (a
measure without an entry points at its family module's docstring).

``pages()`` returns ``{path under docs/: markdown}``; ``scripts/docs/hooks.py``
adds them to the site, and the tests read the same function.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

# Imported here, while the hooks load (mkdocs puts their folder on sys.path only then).
import side_pages

FOLDER = "reference/measures"

# What each family is, in one line (a family not listed here gets its modules' first lines).
FAMILY_TITLES = {
    "core": "Core measures: the DCG family and the classic binary measures",
    "trec": "trec_eval's measures: interpolated, set-based, gain-based and sampling",
    "diversity": "Diversity: intent-aware measures",
    "user": "User models",
    "cwl": "C/W/L measures: cwl_eval's user models, with a gain and a cost per document",
    "nuggets": "Nugget scores of answers (TREC RAG, nuggetizer): read from assignment files, not computed from a ranking",
}

_CWL = "L. Azzopardi, P. Thomas, A. Moffat. cwl_eval: an evaluation tool for information retrieval. SIGIR 2019"

# The literature behind a measure (a measure absent here cites its family module).
REFERENCES = {
    "dcg": "K. Järvelin, J. Kekäläinen. Cumulated gain-based evaluation of IR techniques. ACM TOIS 20(4), 2002.",
    "ideal_dcg": "K. Järvelin, J. Kekäläinen. Cumulated gain-based evaluation of IR techniques. ACM TOIS 20(4), 2002.",
    "ndcg": "K. Järvelin, J. Kekäläinen. Cumulated gain-based evaluation of IR techniques. ACM TOIS 20(4), 2002; "
            "C. Burges et al. Learning to rank using gradient descent. ICML 2005 (the exp2 gain).",
    "ap": "C. Buckley, E. Voorhees. Evaluating evaluation measure stability. SIGIR 2000; trec_eval's m_map.c.",
    "rr": "E. Voorhees. The TREC-8 question answering track report. TREC 1999; trec_eval's m_recip_rank.c.",
    "bpref": "C. Buckley, E. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004.",
    "rprec": "trec_eval's m_Rprec.c; C. Buckley, E. Voorhees. Evaluating evaluation measure stability. SIGIR 2000.",
    "infap": "E. Yilmaz, J. Aslam. Estimating average precision with incomplete and imperfect judgments. CIKM 2006.",
    "rbp": "A. Moffat, J. Zobel. Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS 27(1), 2008.",
    "rbp_resid": "A. Moffat, J. Zobel. Rank-biased precision for measurement of retrieval effectiveness. "
                 "ACM TOIS 27(1), 2008 (the residual).",
    "err": "O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan. Expected reciprocal rank for graded relevance. CIKM 2009.",
    "alpha_ndcg": "C. Clarke et al. Novelty and diversity in information retrieval evaluation. SIGIR 2008; "
                  "NIST's ndeval.",
    "err_ia": "O. Chapelle et al. Intent-based diversification of web search results. Information Retrieval 14, 2011; "
              "NIST's ndeval.",
    "ndcg_ia": "R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong. Diversifying search results. WSDM 2009; "
               "NIST's ndeval.",
    "p_ia": "R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong. Diversifying search results. WSDM 2009; NIST's ndeval.",
    "s_recall": "C. Zhai, W. Cohen, J. Lafferty. Beyond independent relevance. SIGIR 2003; NIST's ndeval.",
    "compat": "C. Clarke, A. Vtyurina, M. Smucker. Assessing top-k preferences. ACM TOIS 39(3), 2021; "
              "ir_measures' Compat.",
    **{name: f"{_CWL}; {paper}" for name, paper in {
        "cwl_p": "A. Moffat, P. Thomas, F. Scholer. Users versus models: what observation tells us about "
                 "effectiveness metrics. CIKM 2013",
        "cwl_rr": "P. Kantor, E. Voorhees. The TREC-5 confusion track. Information Retrieval 2, 2000",
        "cwl_ap": "D. Harman. Evaluation issues in information retrieval. IP&M 28(4), 1992",
        "cwl_rbp": "A. Moffat, J. Zobel. Rank-biased precision for measurement of retrieval effectiveness. "
                   "ACM TOIS 27(1), 2008",
        "sdcg": "K. Järvelin, J. Kekäläinen. Cumulated gain-based evaluation of IR techniques. ACM TOIS 20(4), 2002",
        "inst": "A. Moffat, P. Bailey, F. Scholer, P. Thomas. INST: an adaptive metric for information "
                "retrieval evaluation. ADCS 2015",
        "insq": "A. Moffat, P. Bailey, F. Scholer, P. Thomas. INST: an adaptive metric for information "
                "retrieval evaluation. ADCS 2015",
        "bpm": "F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu, S. Ma. Evaluating web search with a bejeweled player "
               "model. SIGIR 2017",
        "bpm_dynamic": "F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu, S. Ma. Evaluating web search with a bejeweled "
                       "player model. SIGIR 2017",
        "tbg": "M. Smucker, C. Clarke. Time-based calibration of effectiveness measures. SIGIR 2012",
        "umeasure": "T. Sakai, Z. Dou. Summaries, ranked retrieval and sessions: a unified framework for "
                    "information access evaluation. SIGIR 2013",
        "ift_goal": "L. Azzopardi, P. Thomas, N. Craswell. Measuring the utility of search engine result pages: "
                    "an information foraging based measure. SIGIR 2018",
        "ift_rate": "L. Azzopardi, P. Thomas, N. Craswell. Measuring the utility of search engine result pages: "
                    "an information foraging based measure. SIGIR 2018",
        "ift_goal_rate": "L. Azzopardi, P. Thomas, N. Craswell. Measuring the utility of search engine result "
                         "pages: an information foraging based measure. SIGIR 2018",
        **{f"nerr{n}": "L. Azzopardi, J. Mackenzie, A. Moffat. ERR is not C/W/L: exploring the relationship "
                       "between expected reciprocal rank and other metrics. ICTIR 2021" for n in (8, 9, 10, 11)},
    }.items()},
}


@dataclasses.dataclass(frozen=True)
class Entry:
    """One measure as the reference shows it (every field already text)."""

    name: str
    family: str
    module: str
    definition: str
    written: str
    parameters: tuple[str, ...]
    policies: tuple[str, ...]
    values: str
    ties: str
    engines: str
    other_names: str
    references: str


def family_title(family: str) -> str:
    return FAMILY_TITLES.get(family, family.capitalize())


def _number(value: float) -> str:
    return "∞" if value == math.inf else "−∞" if value == -math.inf else f"{value:g}"


def _parameters(spec, protocol) -> tuple[str, ...]:
    from rankproof.measures.base import PARAMS

    defaults = dict(spec.defaults)
    rows = []
    for name in spec.params:
        param = PARAMS[name]
        if param.policy:
            default = f"the protocol's, `{getattr(protocol, name)}` in the default protocol"
        else:
            value = defaults.get(name)
            default = "`" + str(value) + "`" if value is not None else "none (see the description)"
        rows.append(f"`{name}` ({'policy override' if param.policy else 'own'}; default {default}): "
                    f"{param.description}")
    return tuple(rows)


def _policies(spec) -> tuple[str, ...]:
    read = [f"`{name}`" for name in spec.policy_params]
    if spec.normalised:
        read.append("`zero_ideal` (a query with nothing relevant divides by 0)")
    if spec.ratio:
        read.append("`aggregation=micro` sums its numerators and denominators")
    return tuple(read)


def _written(spec) -> str:
    name = spec.name
    if spec.needs_cutoff:
        return f"`{name}@10` (a cutoff is required)"
    if not spec.cutoff:
        return f"`{name}` (no cutoff)"
    return f"`{name}` (whole ranking) or `{name}@10` (the top 10)"


def _values(spec) -> str:
    low, high = spec.value_range
    text = f"[{_number(low)}, {_number(high)}] under the default protocol"
    if spec.ideal_is_best:
        text += f"; the ideal ranking scores {_number(high)}"
    return text


def _ties(spec) -> str:
    if not spec.ranking:
        return "none: the values are read as given, not computed from a ranking"
    if spec.ties.value == "ordered":
        text = ("needs one order: under `ties=expected` a run with tied scores is refused "
                "(choose `ties=docid` or another order)")
    else:
        text = "exact: under `ties=expected` the value is the mean over every order of the tied docs (closed form)"
    if spec.check_ties is not None:
        doc = (spec.check_ties.__doc__ or "").strip().split("\n\n")[0]
        text += "; refused where " + " ".join(doc.split()) if doc else "; with a check of its own"
    return text


def engines_computing(measure) -> list[str]:
    """The engines (in the planner's order) that compute ``measure``: each engine
    is asked ``supports`` without an alignment, then (an engine that reads only
    score matrices) with a one-cell score matrix's marker."""
    import numpy as np

    from rankproof.engines import ENGINES, get_engine
    from rankproof.engines.dense import DenseMatrix

    matrix = SimpleNamespace(dense_matrix=DenseMatrix(np.zeros((1, 1)), np.zeros((1, 1))))
    found = []
    for name in ENGINES:
        engine = get_engine(name) if ENGINES[name].choice else _load(name)
        if engine.supports(measure):
            found.append(f"`{name}`")
        elif _supports_matrix(engine, measure, matrix):
            found.append(f"`{name}` (score matrices)")
    return found


def _load(name: str):
    import importlib

    from rankproof.engines import ENGINES

    entry = ENGINES[name]
    return getattr(importlib.import_module(entry.module), entry.attribute)()


def _supports_matrix(engine, measure, matrix) -> bool:
    try:
        return bool(engine.supports(measure, matrix))
    except (AttributeError, TypeError):  # an engine that needs a real alignment to answer
        return False


def other_names() -> dict[str, list[str]]:
    """Other tools' names per canonical measure name, from the alias table."""
    from rankproof.measures import parse_measure
    from rankproof.measures.aliases import aliases

    names: dict[str, list[str]] = {}
    for alias in aliases():
        canonical = parse_measure(alias.canonical)
        text = f"{alias.peer} `{alias.name}`"
        if alias.needs_cutoff:
            text += " (with a cutoff)"
        if canonical.params:
            text += f" = `{alias.canonical}`"
        names.setdefault(canonical.name, []).append(text)
    return names


def entries() -> list[Entry]:
    """Every registered measure, in registry order."""
    from rankproof import Protocol
    from rankproof.measures import REGISTRY, Measure

    protocol = Protocol()
    aliases = other_names()
    found = []
    for name, spec in REGISTRY.items():
        module = (spec.compute.__module__ if spec.compute is not None
                  else "rankproof.measures" if spec.ranking else f"rankproof.measures.{spec.family}")
        found.append(Entry(
            name=name, family=spec.family, module=module, definition=spec.description, written=_written(spec),
            parameters=_parameters(spec, protocol), policies=_policies(spec), values=_values(spec),
            ties=_ties(spec), engines=", ".join(engines_computing(Measure(name))) or "none",
            other_names="; ".join(aliases.get(name, [])) or "none known",
            references=REFERENCES.get(name, f"the docstring of `{module}`")))
    return found


def _bullets(items: tuple[str, ...], empty: str) -> str:
    if not items:
        return empty
    return "<br>".join(items)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def measure_section(entry: Entry) -> str:
    rows = [
        ("Definition", entry.definition),
        ("Written", entry.written),
        ("Parameters", _bullets(entry.parameters, "none")),
        ("Policies it reads", _bullets(entry.policies, "none beyond the row policies")),
        ("Values", entry.values),
        ("Tied scores", entry.ties),
        ("Engines", entry.engines),
        ("Other tools' names", entry.other_names),
        ("References", entry.references),
    ]
    table = "\n".join(f"| {key} | {_cell(value)} |" for key, value in rows)
    return f"## `{entry.name}` {{#{entry.name}}}\n\n| | |\n|---|---|\n{table}\n"


def _family_intro(modules: list[str]) -> str:
    import importlib

    parts = []
    for module in modules:
        doc = importlib.import_module(module).__doc__ or ""
        first = " ".join(doc.strip().split("\n\n")[0].split())
        parts.append(f"{first} (`{module}`)")
    return "\n\n".join(parts)


def family_page(family: str, members: list[Entry]) -> str:
    modules = list(dict.fromkeys(entry.module for entry in members))
    title = family_title(family)
    lines = [f"# {title}", "", "<!-- generated from rankproof.measures.REGISTRY by scripts/docs/measure_pages.py -->",
             "", _family_intro(modules), "",
             "Every measure also sees the row policies the pipeline applies before any measure "
             "(`unjudged`, `duplicates`, `negative_grades`, `ties`, `score_precision`); "
             "the policies listed per measure are those it reads itself.", ""]
    lines += [measure_section(entry) for entry in members]
    return "\n".join(lines)


def index_page(found: list[Entry]) -> str:
    from rankproof.engines import ENGINES, EXECUTORS

    lines = ["# Measures", "", "<!-- generated from rankproof.measures.REGISTRY by scripts/docs/measure_pages.py -->",
             "", f"{len(found)} measures, generated from the registry (`rankproof.measures.REGISTRY`): "
             "a measure added there appears here with no edit. Write them as text (`ndcg@10`, "
             "`p(rel=2)@5`) or in Python (`ndcg(gain=\"exp2\") @ 10`); other tools' names "
             "(`P_10`, `nDCG@10`, `mrr@10`) are read as the measure they mean. `-m cwl_eval` names a set "
             "(`rankproof.measures.sets`: cwl_eval's default measures). The measures that read side data "
             "(coverage, Gini, expected exposure, AWRF, ...) are on [their own page](side.md).", "",
             f"Engines, in the planner's order: {', '.join(f'`{name}`' for name in ENGINES)}; "
             f"executors of the whole evaluation elsewhere: {', '.join(f'`{name}`' for name in EXECUTORS)}.", "",
             "| measure | family | definition |", "|---|---|---|"]
    for entry in found:
        lines.append(f"| [`{entry.name}`]({entry.family}.md#{entry.name}) | {entry.family} | "
                     f"{_cell(entry.definition)} |")
    return "\n".join(lines) + "\n"


def families(found: list[Entry]) -> dict[str, list[Entry]]:
    grouped: dict[str, list[Entry]] = {}
    for entry in found:
        grouped.setdefault(entry.family, []).append(entry)
    return grouped


def pages() -> dict[str, str]:
    """``{path under docs/: markdown}``: the index, one page per family, then the side-data measures'."""
    found = entries()
    generated = {f"{FOLDER}/index.md": index_page(found)}
    for family, members in families(found).items():
        generated[f"{FOLDER}/{family}.md"] = family_page(family, members)
    generated[f"{FOLDER}/{side_pages.PAGE}.md"] = side_pages.page()
    return generated


def nav() -> list:
    """The nav section of the measures: the index, each family page, then the side-data measures'."""
    grouped = families(entries())
    return [f"{FOLDER}/index.md"] + [{family_title(family).split(":")[0]: f"{FOLDER}/{family}.md"}
                                     for family in grouped] + [
        {side_pages.TITLE.split(":")[0]: f"{FOLDER}/{side_pages.PAGE}.md"}]
