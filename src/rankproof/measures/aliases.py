"""Other tools' measure names, resolved to rankproof's canonical measures.

A user of trec_eval types ``P_10`` or ``ndcg_cut.10``, a user of ir_measures
``nDCG@10`` or ``RR``, a user of ranx ``mrr`` or ``hit_rate@10``. Each is read
as the canonical rankproof measure that computes the same value under the
protocol in force (``p@10``, ``ndcg@10``, ``rr``, ``hit@10``) and is printed
canonically. An alias names a measure, never a protocol: ties, unjudged docs,
missing queries and the other policies stay the protocol's.

Only names whose meaning is the canonical measure's are listed: ranx's and
ir_measures' nDCG use the grade as the gain (linear, as the ``gain`` default),
their AP, recall and R-precision divide by R, their precision by k, as the
default denominators do. ranx's ``ndcg_burges`` (gain 2^g - 1) resolves to
``ndcg(gain=exp2)``, which says so in its text.

trec_eval's names come from :mod:`rankproof.measures.trec_names` (the table the
``trec-eval`` drop-in uses), in both of its printed forms: ``P.10`` (as
``-m P.10``) and ``P_10`` (as printed).

Lookup is case-insensitive when the lower-case name means one measure only.

>>> from rankproof.measures import parse_measure
>>> [str(parse_measure(text)) for text in ("P_10", "ndcg_cut.10", "nDCG@10", "mrr@10", "recip_rank")]
['p@10', 'ndcg@10', 'ndcg@10', 'rr@10', 'rr']
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re

__all__ = ["Alias", "PEER_ALIASES", "aliases", "resolve", "suggest"]


@dataclasses.dataclass(frozen=True)
class Alias:
    """Another tool's name for a canonical measure.

    ``canonical`` is rankproof measure text without a cutoff (``ndcg``,
    ``ndcg(gain=exp2)``); ``cutoff`` a cutoff the name itself carries
    (trec_eval's ``P_10``); ``needs_cutoff``: the name is a family of cut
    measures (trec_eval's ``ndcg_cut``), usable only with a cutoff.
    """

    name: str
    canonical: str
    peer: str
    cutoff: "int | None" = None
    needs_cutoff: bool = False


# ir_measures and ranx, checked against their sources (ranx 0.3, ir_measures 0.4).
PEER_ALIASES: tuple[Alias, ...] = (
    Alias("nDCG", "ndcg", "ir_measures"),
    Alias("AP", "ap", "ir_measures"),
    Alias("RR", "rr", "ir_measures"),
    Alias("P", "p", "ir_measures"),
    Alias("R", "r", "ir_measures"),
    Alias("Success", "hit", "ir_measures", needs_cutoff=True),
    # ir_measures' Judged@k divides by min(k, len(list)) (its judged provider), not by k.
    Alias("Judged", "judged(precision_denominator=retrieved)", "ir_measures"),
    Alias("Rprec", "rprec", "ir_measures"),
    Alias("Bpref", "bpref", "ir_measures"),
    Alias("NumRet", "num_ret", "ir_measures"),
    Alias("NumQ", "num_q", "ir_measures"),
    Alias("NumRel", "num_rel", "ir_measures"),
    Alias("NumRelRet", "num_rel_ret", "ir_measures"),
    Alias("SetP", "set_p", "ir_measures"),
    Alias("SetR", "set_r", "ir_measures"),
    Alias("SetAP", "set_ap", "ir_measures"),
    Alias("SetF", "set_f", "ir_measures"),
    Alias("infAP", "infap", "ir_measures"),
    Alias("mrr", "rr", "ranx"),
    Alias("map", "ap", "ranx"),
    Alias("precision", "p", "ranx"),
    Alias("recall", "r", "ranx"),
    Alias("hit_rate", "hit", "ranx"),
    Alias("hits", "num_rel_ret", "ranx"),
    # The recommender libraries' spellings of hit rate (Elliot's and LibRecommender's HR,
    # torchmetrics' RetrievalHitRate); ``hit_rate`` above is ranx's and MS Recommenders'.
    Alias("HR", "hit", "recommender libraries"),
    Alias("HitRate", "hit", "torchmetrics"),
    Alias("r-precision", "rprec", "ranx"),
    Alias("ndcg_burges", "ndcg(gain=exp2)", "ranx"),
    Alias("dcg_burges", "dcg(gain=exp2)", "ranx"),
    # NIST ndeval's column names, and ir_measures' names for them (its pyndeval provider).
    Alias("alpha-nDCG", "alpha_ndcg", "ndeval"),
    Alias("ERR-IA", "err_ia", "ndeval"),
    Alias("P-IA", "p_ia", "ndeval"),
    Alias("strec", "s_recall", "ndeval"),
    Alias("alpha_nDCG", "alpha_ndcg", "ir_measures"),
    Alias("ERR_IA", "err_ia", "ir_measures"),
    Alias("P_IA", "p_ia", "ir_measures"),
    Alias("StRecall", "s_recall", "ir_measures"),
    # MTEB's and BEIR's own measures beside pytrec_eval's (mteb/_evaluators/retrieval_metrics.py:
    # recall_cap, top_k_accuracy): R_cap@k divides by min(R, k); their top-k accuracy (and
    # sentence-transformers' accuracy@k) is hit@k. ``Accuracy`` is ir_measures' measure of that
    # name (its accuracy provider): the share of (relevant, non-relevant) pairs ordered right.
    Alias("R_cap", "r(recall_denominator=min_k)", "MTEB/BEIR", needs_cutoff=True),
    Alias("Accuracy", "accuracy", "ir_measures"),
    Alias("Hole", "hole", "MTEB/BEIR", needs_cutoff=True),
    # ragas' non-LLM context precision: AP over the retrieved relevant contexts.
    Alias("context_precision", "ap(ap_denominator=hits)", "ragas"),
    # ir_measures' cwl_eval measures (its providers/cwl_eval.py): the same parameter names (T, p,
    # min_rel, max_rel); BPM@k is cwl_eval's BPM with K = k, read by resolve() below.
    Alias("INST", "inst", "ir_measures"),
    Alias("INSQ", "insq", "ir_measures"),
    Alias("SDCG", "sdcg", "ir_measures", needs_cutoff=True),
    Alias("NERR8", "nerr8", "ir_measures", needs_cutoff=True),
    Alias("NERR9", "nerr9", "ir_measures", needs_cutoff=True),
    Alias("NERR10", "nerr10", "ir_measures"),
    Alias("NERR11", "nerr11", "ir_measures"),
    Alias("BPM", "bpm", "ir_measures"),
    Alias("Compat", "compat", "ir_measures"),
    # Microsoft Recommenders' r_precision_at_k: relevant in the top min(R, k) / R.
    Alias("r_precision_at_k", "rprec", "Microsoft Recommenders", needs_cutoff=True),
)

# Words people use for a measure, for suggestions by meaning (not spelling alone).
MEANINGS: dict[str, tuple[str, ...]] = {
    "ndcg": ("normalized_dcg", "normalised_dcg", "normalized_discounted_cumulative_gain"),
    "dcg": ("discounted_cumulative_gain",),
    "ap": ("average_precision", "mean_average_precision"),
    "rr": ("reciprocal_rank", "mean_reciprocal_rank", "mrr"),
    "p": ("precision", "prec"),
    "r": ("recall", "rec"),
    "hit": ("hit_rate", "hitrate", "hr", "success", "hits_at"),
    "rprec": ("r_precision", "rprecision"),
    "judged": ("judged_rate", "judged_fraction"),
    "alpha_ndcg": ("alpha_dcg", "novelty_ndcg", "diversity_ndcg"),
    "s_recall": ("subtopic_recall", "intent_recall", "strecall", "coverage_of_intents"),
}


def _trec_aliases() -> list[Alias]:
    """trec_eval's names, from the drop-in's own table."""
    from .trec_names import TREC_MEASURES, Params, Settings, Summary

    found: list[Alias] = []
    for trec in TREC_MEASURES:
        # gm_map is a geometric mean of ap, num_ret a sum: other summaries, not other names.
        if trec.build is None or trec.unsupported or trec.summary is not Summary.MEAN:
            continue
        if trec.params is Params.LONG_CUTOFFS:
            base = trec.build(1, Settings())
            found.append(Alias(trec.name, base.name, "trec_eval", needs_cutoff=True))
            continue
        try:
            if trec.params in (Params.NONE, Params.PAIRS):
                built = trec.build(None if trec.params is Params.NONE else [], Settings())
            else:
                # parameterised forms (iprec_at_recall_0.10, utility.1,-1,0,0): see resolve()
                continue
        except Exception:  # a builder that needs its parameters
            continue
        if built is None or built.cutoff is not None:
            continue
        found.append(Alias(trec.name, str(built), "trec_eval"))
    return found


@functools.lru_cache(maxsize=None)
def aliases() -> tuple[Alias, ...]:
    """Every alias: trec_eval's (first), then ir_measures' and ranx's."""
    from .base import REGISTRY

    table = [a for a in _trec_aliases() + list(PEER_ALIASES) if a.name not in REGISTRY]
    return tuple(table)


@functools.lru_cache(maxsize=None)
def _by_lower() -> dict[str, tuple[Alias, ...]]:
    """Aliases by lower-case name; several distinct meanings make a name ambiguous."""
    from .base import REGISTRY

    table: dict[str, list[Alias]] = {}
    for name in REGISTRY:
        table.setdefault(name, []).append(Alias(name, name, "rankproof"))
    for alias in aliases():
        table.setdefault(alias.name.lower(), []).append(alias)
    return {key: tuple(values) for key, values in table.items()}


def _lookup(name: str) -> "tuple[str, bool, str] | None":
    """(canonical, needs a cutoff, who uses the name) for a name, exact case first."""
    candidates = tuple(a for a in aliases() if a.name == name) or _by_lower().get(name.lower(), ())
    if not candidates:
        return None
    meanings = {a.canonical for a in candidates}
    if len(meanings) > 1:
        from ..errors import MeasureError
        from ..errors import literal

        listed = ", ".join(f"{a.name} ({a.peer}: {a.canonical})" for a in candidates)
        raise MeasureError(what=f"measure name {literal(repr(name))} is ambiguous in lower case: {literal(listed)}",
                           fix="write it as one of these", value=name)
    peers = ", ".join(dict.fromkeys(a.peer for a in candidates))
    return candidates[0].canonical, all(a.needs_cutoff for a in candidates), peers


# trec_eval's parameterised names: P_10, P.10, ndcg_cut_10, iprec_at_recall_0.10, Rprec_mult.0.20.
_TREC_PARAM_FORM = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)[._](?P<value>\d*\.?\d+)$")
# ir_measures' interpolated precision: IPrec@0.1.
# Only in ir_measures' spelling: rankproof's iprec takes no cutoff, and iprec@5 stays refused.
_IPREC_FORM = re.compile(r"^IPrec@(?P<value>0?\.\d+|[01]\.0*|[01])$")
# ir_measures' BPM(T=1,max_rel=3)@10: cwl_eval's BPM with K = 10.
_BPM_FORM = re.compile(r"^BPM\s*(?:\((?P<params>[^()]*)\))?\s*@\s*(?P<k>\d+)$")


def resolve(text: str) -> "str | None":
    """The canonical measure text another tool's measure text means, or None.

    ``name``, ``name@k`` and ``name(param=value)@k`` with a peer's name, and
    trec_eval's ``name.k`` / ``name_k`` forms.

    >>> resolve("recall@100"), resolve("Success@10"), resolve("recall.100"), resolve("map_cut_10")
    ('r@100', 'hit@10', 'r@100', 'ap@10')
    >>> resolve("ndcg_burges@10")
    'ndcg(gain=exp2)@10'
    >>> resolve("BPM(T=2,max_rel=3)@10"), resolve("SDCG(max_rel=3)@5")
    ('bpm(T=2,max_rel=3,K=10)', 'sdcg(max_rel=3)@5')
    >>> resolve("ndcg@10") is None     # already canonical
    True
    """
    from ..errors import MeasureError

    stripped = text.strip()
    if stripped == "11pt_avg":   # trec_eval's name starts with a digit, which no measure name may
        return "interp_avg"
    match = _IPREC_FORM.match(stripped)
    if match:
        return f"iprec(recall={float(match['value'])!r})"
    match = _BPM_FORM.match(stripped)
    if match:   # ir_measures' BPM(T=..)@k: the cutoff is cwl_eval's cost budget K
        params = ",".join(filter(None, [match["params"], f"K={match['k']}"]))
        return f"bpm({params})"
    match = _TREC_PARAM_FORM.match(stripped)
    if match:
        trec = _trec_parameterised(match["base"], match["value"])
        if trec is not None:
            return trec
    match = re.match(r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_-]*)\s*(?P<rest>(?:\([^()]*\))?\s*(?:@.*)?)$", stripped)
    if match is None:
        return None
    from .base import REGISTRY

    name, rest = match["name"], match["rest"].strip()
    if name in REGISTRY:
        return None
    found = _lookup(name)
    if found is None:
        return None
    canonical, needs_cutoff, peers = found
    if needs_cutoff and "@" not in rest:
        raise MeasureError(what=f"{name} ({peers}) is a family of cut measures", value=name,
                           fix=f"give a cutoff: {name}@10 or {name}_10 (read as {canonical}@10)")
    params = ""
    if rest.startswith("("):
        close = rest.index(")")
        params, rest = rest[1:close], rest[close + 1:].strip()
    if params:
        if canonical.endswith(")"):
            canonical = canonical[:-1] + "," + params + ")"
        else:
            canonical = f"{canonical}({params})"
    return canonical + rest


def _trec_parameterised(base: str, value: str) -> "str | None":
    from ..errors import MeasureError
    from ..errors import literal
    from .trec_names import BY_NAME, Params, Settings

    trec = BY_NAME.get(base)
    if trec is None:
        lowered = [m for name, m in BY_NAME.items() if name.lower() == base.lower()]
        trec = lowered[0] if len(lowered) == 1 else None
    if trec is None or trec.build is None:
        return None
    if trec.params is Params.LONG_CUTOFFS:
        if not value.isdigit():
            raise MeasureError(what=f"{base}.{literal(value)}: trec_eval's {trec.name} takes an integer cutoff, "
                               f"e.g. {trec.name}.10", value=value)
        built = trec.build(int(value), Settings())
    elif trec.params is Params.DOUBLE_CUTOFFS:
        built = trec.build(float(value), Settings())
    else:
        return None
    return str(built)


def suggest(name: str, n: int = 3) -> list[str]:
    """Canonical names near ``name`` by meaning first (its aliases and the words
    for each measure), then by spelling.

    >>> suggest("recal")[0], suggest("precison")[0], suggest("reciprocal")[0]
    ('r', 'p', 'rr')
    """
    from .base import REGISTRY

    def key(text: str) -> str:
        return re.sub(r"[^a-z0-9]", "", text.lower())

    meaning: dict[str, str] = {}
    for canonical, words in MEANINGS.items():
        for word in words:
            meaning.setdefault(key(word), canonical)
    for alias in aliases():
        meaning.setdefault(key(alias.name), alias.canonical)
    typed = key(name)
    found: list[str] = []
    # A word typed whole inside a meaning ("reciprocal" in "reciprocal_rank") or close to one.
    if len(typed) >= 4:
        found += [canonical for word, canonical in meaning.items() if word.startswith(typed)]
    found += [meaning[word]
              for word in difflib.get_close_matches(typed, list(meaning), n=n, cutoff=0.75)]
    found += difflib.get_close_matches(name.lower(), list(REGISTRY), n=n, cutoff=0.5)
    return list(dict.fromkeys(found))[:n]
