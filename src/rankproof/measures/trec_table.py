"""trec_eval's measures as data: name, parameters, printing, summary rule, and
the rankproof measure that computes each value.

Every trec_eval 10 measure is one :class:`TrecMeasure` row of
:data:`TREC_MEASURES`, in trec_eval's own order (the order it prints in). A
row says how trec_eval reads the measure's parameters (``-m P.5,10``), how it
names each printed value (``P_5``), which rankproof measure computes that
value (``p@5``), whether it prints an integer, a number or a string, and how
the summary line ``all`` combines the queries (mean, sum, geometric mean).
:mod:`rankproof.measures.trec_names` reads ``-m`` arguments with this table
(and gives its names).

Rows whose ``measure`` is None are computed here, not by a rankproof measure
(``runid``, ``num_q``, ``relstring``); rows with an ``unsupported`` reason are
trec_eval measures rankproof does not compute (preference and multi-judge
formats).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any, Callable, Sequence

from ..errors import MeasureError
from .base import Measure
from ..protocol import GainMap

__all__ = [
    "Params", "NaN", "Printed", "Summary", "TrecMeasure", "TREC_MEASURES", "NICKNAMES", "Line",
    "c_atol", "c_atof", "MIN_GEO_MEAN", "BY_NAME", "Settings", "gain_map",
]

# trec_eval's floor for a per-query value inside a geometric mean.
MIN_GEO_MEAN = 0.00001


class Params(enum.Enum):
    """How trec_eval reads the text after the first '.' of ``-m name.params``."""

    NONE = "none"                    # takes none (any given are ignored)
    LONG_CUTOFFS = "long cutoffs"    # P.5,10: integers, sorted, one value each, name_<k>
    # iprec_at_recall..1,.2: numbers, sorted, one value each, name_<%3.2f>
    DOUBLE_CUTOFFS = "double cutoffs"
    DOUBLE_PARAMS = "double params"  # utility.2,-1,0,0: numbers as given, one value, name_<text>
    PAIRS = "pairs"                  # ndcg.1=3,2=9: level=gain pairs, one value, name_<text>


class NaN(enum.Enum):
    """Where trec_eval computes 0 / 0 (and prints -nan)."""

    # iprec_at_recall, 11pt_avg: precision num_rel_ret / num_ret with
    EMPTY_RANKING = "empty ranking"
                                      # nothing retrieved (after -J), at levels cut at 0 relevant
                                      # docs
    # Rndcg: relevant docs (R > 0) but no judged doc of positive
    NO_POSITIVE_GAIN = "no positive gain"
                                           # gain, so no ideal-gain boundary to average over


class Printed(enum.Enum):
    """How one value is printed."""

    DOUBLE = "double"    # %6.4f
    LONG = "long"        # %ld
    STRING = "string"    # relstring: '...'; runid: as is


class Summary(enum.Enum):
    """What the summary line ``all`` holds."""

    MEAN = "mean"            # per-query values averaged (with -c over every judged query)
    SUM = "sum"              # per-query values summed (num_ret, num_rel, ...)
    GEOMETRIC = "geometric"  # exp(mean(log(max(value, MIN_GEO_MEAN)))): gm_map, gm_bpref
    NUM_Q = "num_q"          # the number of queries
    RUNID = "runid"          # the run tag of the run file's last line
    NONE = "none"            # relstring: per query only


@dataclasses.dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure.

    Attributes
    ----------
    name : trec_eval's name (``-m name``).
    params : how its parameters are read.
    default : its default parameters as trec_eval's text (``"5,10,15"``), or ``""``.
    build : the rankproof measure computing one printed value from one parameter
        (a cutoff, a level, or the whole parameter list), or None when this module
        computes it.
    printed, summary : printing of values and of the summary line.
    per_query : printed for each query under ``-q`` (gm_map and gm_bpref are not).
    unsupported : why rankproof does not compute it, or "".
    shares : measures with the same key share one parameter list in trec_eval (dcg,
        ideal_dcg and ndcg): see :func:`request`.
    nan : where trec_eval divides 0 by 0 and prints -nan, which a rankproof measure scores
        by its zero_ideal policy instead.
    sorts_gains : builds an ideal ranking by sorting its gain table (see :func:`gain_order_warning`).
    """

    name: str
    params: Params = Params.NONE
    default: str = ""
    build: Callable | None = None
    printed: Printed = Printed.DOUBLE
    summary: Summary = Summary.MEAN
    per_query: bool = True
    unsupported: str = ""
    shares: str = ""
    nan: NaN | None = None
    sorts_gains: bool = False
    # Under -c trec_eval recounts it from the qrels (every grade > 0, whatever -l says).
    recounted_under_c: bool = False
    # trec_eval 10 added it: trec_eval 9.0.x does not know it (nor lists it in all_trec).
    only_in_10: bool = False


@dataclasses.dataclass(frozen=True)
class Line:
    """One printed value of a requested measure: ``P_5`` of ``P``."""

    name: str
    measure: Measure | None
    trec: TrecMeasure
    param: Any = None  # a number, a tuple of numbers or None, by measure


# -- trec_eval's number parsing ---------------------------------------------------
_ATOL = re.compile(r"\s*([+-]?\d+)")
_ATOF = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def c_atol(text: str) -> int:
    """C's atol: the leading integer of the text, 0 when there is none (``"23.4"`` is 23)."""
    match = _ATOL.match(text)
    if not match:
        return 0
    # glibc's atol (strtol) saturates at LONG_MIN and LONG_MAX: P.99999999999999999999
    # is P_9223372036854775807 in trec_eval.
    return min(max(int(match.group(1)), -(2**63)), 2**63 - 1)


def c_atof(text: str) -> float:
    """C's atof for decimal text: the leading number of the text, 0.0 when there is none."""
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


# -- building rankproof measures --------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Settings:
    """What the builders need beyond a measure's own parameters."""

    grades: tuple[int, ...] = ()      # judged grades (>= 0) present in the qrels
    num_docs: int = 0                 # trec_eval -N


def _plain(name: str) -> Callable:
    return lambda param, settings: Measure(name)


def _cut(name: str) -> Callable:
    return lambda k, settings: Measure(name, k)


def _level(name: str, key: str) -> Callable:
    return lambda x, settings: Measure(name, None, ((key, x),))


def gain_map(pairs: Sequence[tuple[str, float]], grades: Sequence[int]) -> GainMap | None:
    """trec_eval's gains as a rankproof gain map, or None for its default (gain = grade).

    trec_eval gives a listed level its listed gain and every other level gain =
    level; a rankproof map gives unlisted grades 0, so the map lists every grade
    the qrels hold (and every listed level).
    """
    listed: dict[int, float] = {}
    for name, value in pairs:
        if re.fullmatch(r"[+-]?\d+", name):
            level = int(name)
            if level < 0:
                raise MeasureError(what=f"gain for level {name}: trec_eval applies negative levels to unjudged "
                                   "{docs} (-1 never pooled, -2 pooled but unjudged), which rankproof does not "
                                   "support", fix="give gains for levels >= 0", value=level)
            listed.setdefault(level, value)
    if not listed:
        return None
    table = {grade: float(grade) for grade in grades}
    table.update(listed)
    return GainMap.from_mapping(table)


def _gains(name: str, *extra: str) -> Callable:
    def build(pairs, settings: Settings) -> Measure:
        params: list[tuple[str, object]] = []
        for key in extra:  # named real parameters, such as rbp's p
            for pair_name, value in pairs:
                if pair_name == key:
                    params.append((key, value))
                    break
        table = gain_map(pairs, settings.grades)
        if table is not None:
            params.append(("gain", table))
        return Measure(name, None, tuple(params))
    return build


def _utility(values, settings: Settings) -> Measure:
    if len(values) != 4:
        raise MeasureError(what="utility takes exactly 4 coefficients (relevant retrieved, non-relevant retrieved, "
                           "relevant missed, non-relevant missed), e.g. -m utility.1,-1,0,0; got "
                           f"{len(values)}", value=values)
    a, b, c, d = values
    return Measure("utility", None,
                   (("a", a), ("b", b), ("c", c), ("d", d), ("docs", settings.num_docs)))


def _interp_avg(values, settings: Settings) -> Measure:
    return Measure("interp_avg", None, (("levels", "/".join(repr(float(v)) for v in values)),))


def _set_f(values, settings: Settings) -> Measure:
    return Measure("set_f", None, (("beta", values[0]),))


_TENS = "5,10,15,20,30,100,200,500,1000"
_ELEVEN = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
_PREFS = "a preference-judgment measure: needs trec_eval's -R prefs format, which rankproof does not read"
_JG = "a multi-judge measure: needs trec_eval's -R qrels_jg format, which rankproof does not read"

TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", printed=Printed.STRING, summary=Summary.RUNID, per_query=False),
    TrecMeasure("num_q", printed=Printed.LONG, summary=Summary.NUM_Q, per_query=False),
    TrecMeasure("num_ret", build=_plain("num_ret"), printed=Printed.LONG, summary=Summary.SUM),
    TrecMeasure("num_rel", build=_plain("num_rel"), printed=Printed.LONG, summary=Summary.SUM,
                recounted_under_c=True),
    TrecMeasure("num_rel_ret", build=_plain("num_rel_ret"), printed=Printed.LONG,
                summary=Summary.SUM),
    TrecMeasure("map", build=_plain("ap")),
    TrecMeasure("gm_map", build=_plain("ap"), summary=Summary.GEOMETRIC, per_query=False),
    TrecMeasure("Rprec", build=_plain("rprec")),
    TrecMeasure("bpref", build=_plain("bpref")),
    TrecMeasure("recip_rank", build=_plain("rr")),
    TrecMeasure("iprec_at_recall", Params.DOUBLE_CUTOFFS, _ELEVEN, _level("iprec", "recall"),
                nan=NaN.EMPTY_RANKING),
    TrecMeasure("P", Params.LONG_CUTOFFS, _TENS, _cut("p")),
    TrecMeasure("relstring", Params.DOUBLE_PARAMS, "10", printed=Printed.STRING,
                summary=Summary.NONE),
    TrecMeasure("recall", Params.LONG_CUTOFFS, _TENS, _cut("r")),
    TrecMeasure("infAP", build=_plain("infap")),
    TrecMeasure("gm_bpref", build=_plain("bpref"), summary=Summary.GEOMETRIC, per_query=False),
    TrecMeasure("Rprec_mult", Params.DOUBLE_CUTOFFS, "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
                _level("rprec_mult", "mult")),
    TrecMeasure("utility", Params.DOUBLE_PARAMS, "1,-1,0,0", _utility),
    TrecMeasure("11pt_avg", Params.DOUBLE_PARAMS, _ELEVEN, _interp_avg, nan=NaN.EMPTY_RANKING),
    TrecMeasure("binG", build=_plain("bing")),
    TrecMeasure("G", Params.PAIRS, "", _gains("g"), sorts_gains=True),
    TrecMeasure("dcg", Params.PAIRS, "", _gains("dcg"), shares="ndcg", only_in_10=True),
    TrecMeasure("ideal_dcg", Params.PAIRS, "", _gains("ideal_dcg"), shares="ndcg", sorts_gains=True,
                only_in_10=True),
    TrecMeasure("ndcg", Params.PAIRS, "", _gains("ndcg"), shares="ndcg", sorts_gains=True),
    TrecMeasure("ndcg_rel", Params.PAIRS, "", _gains("ndcg_rel"), sorts_gains=True),
    TrecMeasure("Rndcg", Params.PAIRS, "", _gains("rndcg"), nan=NaN.NO_POSITIVE_GAIN,
                sorts_gains=True),
    TrecMeasure("ndcg_cut", Params.LONG_CUTOFFS, _TENS, _cut("ndcg")),
    TrecMeasure("map_cut", Params.LONG_CUTOFFS, _TENS, _cut("ap")),
    TrecMeasure("relative_P", Params.LONG_CUTOFFS, _TENS, _cut("relative_p")),
    TrecMeasure("success", Params.LONG_CUTOFFS, "1,5,10", _cut("hit")),
    TrecMeasure("set_P", build=_plain("set_p")),
    TrecMeasure("set_relative_P", build=_plain("set_relative_p")),
    TrecMeasure("set_recall", build=_plain("set_r")),
    TrecMeasure("set_map", build=_plain("set_ap")),
    TrecMeasure("set_F", Params.DOUBLE_PARAMS, "1.0", _set_f),
    TrecMeasure("num_nonrel_judged_ret", build=_plain("num_nonrel_judged_ret"),
                printed=Printed.LONG,
                summary=Summary.SUM),
    *(TrecMeasure(name, unsupported=_PREFS) for name in (
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair",
        "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
        "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")),
    TrecMeasure("map_avgjg", unsupported=_JG),
    TrecMeasure("P_avgjg", unsupported=_JG),
    TrecMeasure("Rprec_mult_avgjg", unsupported=_JG),
    TrecMeasure("yaap", unsupported="yaap (yet another AP) has no rankproof measure yet"),
    TrecMeasure("rbp", Params.PAIRS, "", _gains("rbp", "p"), only_in_10=True),
    TrecMeasure("rbp_resid", Params.PAIRS, "", _gains("rbp_resid", "p"), only_in_10=True),
    TrecMeasure("unj", Params.LONG_CUTOFFS, "5,10,20", _cut("unjudged"), only_in_10=True),
)
BY_NAME = {m.name: m for m in TREC_MEASURES}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref",
             "recip_rank", "iprec_at_recall", "P")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": _OFFICIAL + (
        "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg",
        "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG",
        "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
                  "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
