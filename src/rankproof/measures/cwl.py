"""The C/W/L measures: every user model of cwl_eval, with a gain and a cost per document.

The C/W/L framework (Moffat, Bailey, Scholer and Thomas 2013, 2017; the tool:
Azzopardi, Thomas and Moffat, "cwl_eval: An evaluation tool for information
retrieval", SIGIR 2019) describes a measure by its user: C(i), the chance the
user reads on from rank i to rank i + 1, gives the chance rank i is examined

    W(i) = prod_{j<i} C(j) / sum_{r=1}^{n} prod_{j<r} C(j)

and the chance the user stops at rank i, L(i) = prod_{j<i} C(j) (1 - C(i)).
From a gain g_i in [0, 1] and a cost c_i per ranked document, each measure
reports five quantities, as cwl_eval prints them (``quantity=``):

- ``eu``, the expected utility per document read: sum_i W(i) g_i (the measure);
- ``etu``, the expected total utility: sum_i L(i) (g_1 + ... + g_i);
- ``ec``, the expected cost per document: sum_i W(i) c_i;
- ``etc``, the expected total cost: sum_i L(i) (c_1 + ... + c_i);
- ``ed``, the expected depth (documents read): 1 / W(1).

As in cwl_eval, each ranking is cut at ``max_n`` (1000) ranks and padded to
it with documents of gain 0 and cost 1; an unjudged document has gain 0.
The user models and their C(i) are in :mod:`rankproof.measures.cwl_models`.

Gains. cwl_eval reads gains in [0, 1] from its gain file (a qrels file whose
grades are gains: evaluate it under ``grades=real``). Here a grade r becomes
g = max(r - min_rel, 0) / (max_rel - min_rel), as ir_measures passes grades
to cwl_eval. ``min_rel`` is 0 by default; ``max_rel`` is 1 when no judged
grade of the evaluated queries is above 1 (a gain file is read as is), else
the highest judged grade (grades 0..3 give gains 0, 1/3, 2/3, 1). A judged
grade above a given ``max_rel`` is an error, as cwl_eval refuses a gain
above its maximum. Giving ``rel=R`` makes gains binary
(1 for a grade >= R), as ir_measures does for P, RR, AP and RBP.

Costs. 1 per document unless ``costs=`` names a cost file
(:mod:`rankproof.measures.cwl_costs`: cwl_eval's ``element_type cost``
file with ``elements=`` naming the run whose second column holds each
document's element type, or a cost per doc id, or per query and doc).

The order is the ranking's: under ``ties=expected`` a run with tied scores
is refused (these measures have no closed form over the orders); cwl_eval
reads the run in file order (``ties=input``).

>>> from rankproof import Qrels, Run, evaluate
>>> qrels = Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
>>> run = Run.from_dict({"q": ["a", "b", "c"]})
>>> evaluate(qrels, run, ["cwl_p@2", "cwl_p(quantity=etu)@2", "cwl_rr(quantity=ed)"]).means()
{'cwl_p@2': 0.5, 'cwl_p(quantity=etu)@2': 1.0, 'cwl_rr(quantity=ed)': 1.0}
"""

from __future__ import annotations

import numpy as np

from ..errors import MeasureError, ProtocolError, literal
from ..kernels.segments import ranks_within
from .base import Measure, MeasureSpec, Param, TieSupport, parse_float, register, register_param
from .compute import Context, Values
from .cwl_costs import DEFAULT_COST, parse_costs, parse_elements, position_costs
from .cwl_models import MODELS, Lists

__all__ = ["CWL", "QUANTITIES", "cwl_gains", "cwl_values"]

QUANTITIES = ("eu", "etu", "ec", "etc", "ed")
# Cells of one block of queries (rows) by max_n ranks: a few MiB per matrix whatever the query
# count.
_BLOCK_CELLS = 1 << 19


def _number(name: str, low: float | None = None, strict: bool = True, high: float | None = None):
    """A parser of a finite number (held as int when integral), with bounds."""
    def parse(value):
        try:
            number = parse_float(value)
        except ProtocolError:
            raise MeasureError(what=f"{name} must be a number; got {literal(repr(value))}",
                               value=value) from None
        below = low is not None and (number <= low if strict else number < low)
        if below or (high is not None and number > high):
            bound = ">" if strict else ">="
            upper = f" and <= {high:g}" if high is not None else ""
            raise MeasureError(what=f"{name} must be a number {bound} {low:g}{upper}; got {number!r}", value=value)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return parse


# The deepest max_n: every ranking is padded to it, one float64 per rank in each of a few matrices,
# so a depth of 1e9 (an allocation of gigabytes per query) is refused rather than tried.
MAX_DEPTH = 1_000_000


def _max_n(value):
    number = _number("max_n", 1)(value)
    if not isinstance(number, int):
        raise MeasureError(what=f"max_n must be a whole number of ranks >= 2; got {value!r}",
                           value=value)
    if number > MAX_DEPTH:
        raise MeasureError(what=f"max_n {number} is beyond the deepest ranking rankproof pads to ({MAX_DEPTH:,})",
                           value=value,
                           fix="give a depth of at most 1000000 (cwl_eval's default is 1000)")
    return number


def _quantity(value):
    text = str(value).strip().lower()
    if text not in QUANTITIES:
        raise MeasureError(what=f"quantity must be one of {', '.join(QUANTITIES)}; got {literal(repr(value))}",
                           value=value,
                           fix="eu: expected utility per document; etu: expected total utility; "
                           "ec / etc: expected cost per document / in total; ed: expected depth")
    return text


def _numeric(name: str, description: str, low: float | None = None, strict: bool = True,
             high: float | None = None) -> Param:
    """A number parameter of the C/W/L measures (not a policy), with :func:`_number`'s bounds."""
    return Param(name, _number(name, low, strict, high), description, policy=False)


for _param in (
    _numeric("T", "C/W/L: the total gain the user wants (INST, INSQ, NERR11, BPM, IFT)", 0),
    _numeric("K", "C/W/L BPM: the total cost the user will spend (documents, with costs of 1)",
             0),
    _numeric("hb", "C/W/L BPM dynamic: how far each gain moves the gain target"),
    _numeric("hc", "C/W/L BPM dynamic: how far each gain moves the cost budget (no effect in "
             "cwl_eval 1.0.12)"),
    _numeric("gain_med", "C/W/L BPM dynamic: the median gain", 0, strict=False, high=1),
    _numeric("halflife", "C/W/L TBG: the half-life of the user's attention, in cost units", 0),
    _numeric("L", "C/W/L U-measure: the text length (in cost units) after which nothing is read",
             0),
    _numeric("A", "C/W/L IFT: the rate of gain per unit of cost the user expects"),
    _numeric("b1", "C/W/L IFT: the goal intercept", 0, strict=False),
    _numeric("b2", "C/W/L IFT: the rate intercept", 0, strict=False),
    _numeric("R1", "C/W/L IFT: how rational the user is about the goal T", 0, strict=False),
    _numeric("R2", "C/W/L IFT: how rational the user is about the rate A", 0, strict=False),
    _numeric("min_rel", "C/W/L: the grade of gain 0 (lower grades also gain 0)"),
    _numeric("max_rel", "C/W/L: the grade of gain 1 (default: 1, or the highest judged grade "
             "when above 1; a higher judged grade is an error)"),
    Param("quantity", _quantity, "C/W/L: which of cwl_eval's quantities: eu, etu, ec, etc or ed",
          policy=False),
    Param("max_n", _max_n,
          "C/W/L: every ranking is cut at and padded to this depth (cwl_eval's max_n)",
          policy=False),
    Param("costs", parse_costs,
          "C/W/L: a file of costs (element_type cost, doc cost or query doc cost)", policy=False),
    Param("elements", parse_elements,
          "C/W/L: the TREC run whose second column names each doc's element type", policy=False),
):
    register_param(_param)


def cwl_gains(ctx: Context, m: Measure) -> np.ndarray:
    """The C/W/L gain in [0, 1] of every ranked position (see the module docstring).

    Raises MeasureError when a judged grade exceeds ``max_rel`` or ``max_rel <= min_rel``.
    """
    a = ctx.alignment
    rel = dict(m.params).get("rel")
    if rel is not None:
        return (a.judged & (a.grade >= rel)).astype(np.float64)
    low, high = m.setting("min_rel", ctx.protocol), m.setting("max_rel", ctx.protocol)
    top = float(np.max(a.pool_grade, initial=low))
    if high is None:   # a gain file's gains as they are; a grade scale up to its top grade
        high = max(1.0, top)
    if high <= low:
        raise MeasureError(what=f"{literal(m)}: max_rel must be above min_rel; got min_rel={low}, max_rel={high}",
                           value=high)
    if top > high:
        raise MeasureError(what=f"{literal(m)}: a judged {{grade}} {top:g} is above max_rel={high}, so its gain "
                           "would exceed 1", value=top,
                           fix=f"set max_rel={top:g} (grades are scaled to [0, 1]) or give rel=R for binary gains")
    scaled = np.maximum(a.grade.astype(np.float64) - low, 0.0) / (high - low)
    return np.where(a.judged, scaled, 0.0)


def _continuation_of(weight: np.ndarray) -> np.ndarray:
    """C from W as cwl_eval derives it: W(i + 1) / W(i), 0 where W(i) = 0 and at the last rank."""
    cont = np.zeros_like(weight)
    with np.errstate(divide="ignore", invalid="ignore"):
        cont[:, :-1] = np.where(weight[:, :-1] > 0, weight[:, 1:] / weight[:, :-1], 0.0)
    return cont


def _expectations(found: np.ndarray, by_weight: bool, lists: Lists, quantity: str) -> np.ndarray:
    """One of the five quantities per row, from C (or from W for the models defined by W)."""
    cont = _continuation_of(found) if by_weight else found
    reach = np.ones_like(cont)
    reach[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
    weight = found if by_weight else reach / reach.sum(axis=1, keepdims=True)
    if quantity == "eu":
        return (weight * lists.gain).sum(axis=1)
    if quantity == "ec":
        return (weight * lists.cost).sum(axis=1)
    if quantity == "ed":
        return 1.0 / weight[:, 0]
    stop = reach * (1.0 - cont)
    return (stop * (lists.cum_gain if quantity == "etu" else lists.cum_cost)).sum(axis=1)


def cwl_values(ctx: Context, m: Measure) -> Values:
    """The measure's quantity for every query, blocks of queries at a time (see the module docstring)."""
    a = ctx.alignment
    settings = {name: m.setting(name, ctx.protocol) for name in m.spec.own_params}
    n = settings["max_n"]
    if m.spec.needs_cutoff and m.cutoff is None:
        raise MeasureError(what=f"{literal(m)} needs a cutoff: its user reads the top k",
                           value=str(m),
                           fix=f"write {m.name}@10, for instance")
    if m.cutoff is not None and m.cutoff > n:
        raise MeasureError(what=f"{literal(m)}: the cutoff {m.cutoff} is beyond max_n={n}, the depth every ranking "
                           "is cut at", value=m.cutoff,
                           fix=f"write {m.name}(max_n={m.cutoff})@{m.cutoff}")
    gains = cwl_gains(ctx, m)
    key = ("cwl_costs", settings["costs"], settings["elements"])
    if key not in ctx.cache:
        ctx.cache[key] = position_costs(a, settings["costs"], settings["elements"])
    costs = ctx.cache[key]
    model, by_weight = MODELS[m.name]
    lengths = a.lengths
    rank0 = ranks_within(lengths)
    query = np.repeat(np.arange(a.num_queries), lengths)
    out = np.zeros(a.num_queries)
    step = max(1, _BLOCK_CELLS // n)
    for first in range(0, a.num_queries, step):
        last = min(a.num_queries, first + step)
        lo, hi = int(a.offsets[first]), int(a.offsets[last])
        keep = rank0[lo:hi] < n
        rows, cols = query[lo:hi][keep] - first, rank0[lo:hi][keep]
        gain = np.zeros((last - first, n))
        gain[rows, cols] = gains[lo:hi][keep]
        cost = np.full((last - first, n), DEFAULT_COST)
        cost[rows, cols] = costs[lo:hi][keep]
        lists = Lists(gain, cost, np.cumsum(gain, axis=1), np.cumsum(cost, axis=1), m.cutoff)
        out[first:last] = _expectations(model(lists, settings), by_weight, lists,
                                        settings["quantity"])
    return Values(out)


_COMMON = ("min_rel", "max_rel", "rel", "quantity", "max_n", "costs", "elements")
_COMMON_DEFAULTS = (("min_rel", 0), ("max_rel", None), ("quantity", "eu"), ("max_n", 1000),
                    ("costs", None),
                    ("elements", None))
_REPORTS = ("Reports cwl_eval's expected utility per document (quantity=eu, the default), or its expected total "
            "utility, cost per document, total cost or depth (quantity=etu, ec, etc, ed).")


def _spec(name: str, description: str, own: tuple[tuple[str, object], ...] = (),
          cutoff: bool = False) -> MeasureSpec:
    return MeasureSpec(
        name, f"{description} {_REPORTS}", tuple(p for p, _ in own) + _COMMON, cwl_values,
        cutoff=cutoff,
        needs_cutoff=cutoff, ties=TieSupport.ORDERED, defaults=own + _COMMON_DEFAULTS, family="cwl")


CWL = [
    _spec("cwl_p",
          "C/W/L precision at k (cwl_eval's P@k): C(i) = 1 for i < k, else 0; EU = (g_1 + ... + g_k) / k.",
          cutoff=True),
    _spec("cwl_rr",
          "C/W/L reciprocal rank (cwl_eval's RR): C(i) = 1 until the first rank with a positive gain."),
    _spec("cwl_ap",
          "C/W/L average precision (cwl_eval's AP): C(i) = S_{i+1} / S_i, S_i = sum_{j>=i} g_j / j."),
    _spec("cwl_rbp",
          "C/W/L rank-biased precision (cwl_eval's RBP, Moffat and Zobel 2008): C(i) = p.",
          (("p", 0.9),)),
    _spec("sdcg",
          "scaled DCG at k (cwl_eval's NDCG-k, ir_measures' SDCG): C(i) = log2(i + 1) / log2(i + 2) for "
          "i < k, else 0; the DCG@k discount as a distribution.", cutoff=True),
    _spec("inst",
          "INST (Moffat, Bailey, Scholer and Thomas 2015): C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, "
          "T_i = T - (g_1 + ... + g_i).", (("T", 1),)),
    _spec("insq",
          "INSQ (Moffat, Bailey, Scholer and Thomas 2015): C(i) = ((i + 2T - 1) / (i + 2T))^2.",
          (("T", 1),)),
    _spec("bpm",
          "Bejeweled player model, static (Zhang et al. 2017): C(i) = 1 while g_1 + ... + g_i < T and "
          "c_1 + ... + c_i < K, else 0.", (("T", 1), ("K", 10))),
    _spec("bpm_dynamic",
          "Bejeweled player model, dynamic (Zhang et al. 2017; cwl_eval's BPM-Dynamic): as bpm, the "
          "gain target moving after each rank read by hb (g_i - gain_med); cwl_eval 1.0.12 never moves K, and "
          "neither does this.", (("T", 1), ("K", 10), ("hb", 1), ("hc", 1), ("gain_med", 0.5))),
    _spec("tbg", "time-biased gain (Smucker and Clarke 2012; cwl_eval's TBG): W(i) proportional to "
          "2^(-(c_1 + ... + c_{i-1}) / halflife).", (("halflife", 224),)),
    _spec("umeasure", "U-measure (Sakai and Dou 2013; cwl_eval's U): W(i) proportional to "
          "max(0, 1 - (c_1 + ... + c_{i-1}) / L), costs in characters.", (("L", 1000),)),
    _spec("ift_goal",
          "information foraging, goal only (Azzopardi, Thomas and Craswell 2018; cwl_eval's IFT-C1): "
          "C(i) = 1 - 1 / (1 + b1 e^((T - G_i) R1)).", (("T", 2), ("b1", 0.9), ("R1", 10))),
    _spec("ift_rate", "information foraging, rate only (cwl_eval's IFT-C2): "
          "C(i) = 1 / (1 + b2 e^((A - G_i / K_i) R2)), K_i the cost so far.",
          (("A", 0.2), ("b2", 0.9), ("R2", 10))),
    _spec("ift_goal_rate",
          "information foraging, goal and rate (cwl_eval's IFT-C1-C2): the product of ift_goal's "
          "and ift_rate's C(i).",
          (("T", 2), ("b1", 0.9), ("R1", 10), ("A", 0.2), ("b2", 0.9), ("R2", 10))),
    _spec("nerr8",
          "not (but nearly) ERR, eq. 8 (Azzopardi, Mackenzie and Moffat 2021): C(i) = 1 - g_i for i < k, "
          "else 0.", cutoff=True),
    _spec("nerr9", "not (but nearly) ERR, eq. 9: C(i) = (i / (i + 1)) (1 - g_i) for i < k, else 0.",
          cutoff=True),
    _spec("nerr10", "not (but nearly) ERR, eq. 10: C(i) = p (1 - g_i).", (("p", 0.9),)),
    _spec("nerr11", "not (but nearly) ERR, eq. 11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i).",
          (("T", 1),)),
]
register(*CWL)
