"""Popularity bias between the short head and the long tail, as Elliot defines it:
PopRSP and PopREO (Zhu et al., "Measuring and mitigating item
under-recommendation bias in personalized ranking systems", SIGIR 2020), and
APLT and ACLT, the long-tail items of each list (Abdollahpouri et al.,
"Controlling popularity bias in learning-to-rank recommendation", RecSys 2017;
"Managing popularity bias in recommender systems with personalized
re-ranking", FLAIRS 2019).

The head/tail split is Elliot's, stated as a policy: items sorted by training
popularity (the number of users who interacted with the item), most popular
first (ties by item id, ascending), enter the short head until their
interactions sum to ``ratio`` (0.8) of all training interactions, the item that
reaches it included; the long tail is every other training item. Items absent
from training are in neither group.

PopRSP and PopREO are the relative standard deviation (population std over the mean)
of a rate over the two groups, which for two groups is
|r_head - r_tail| / (r_head + r_tail): 0 is parity, 1 is one group never
recommended.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Protocol
from .beyond import ListValues
from .catalogue_value import CatalogueResult
from .coverage import as_run
from .topk import top_rows

__all__ = ["PopParity", "pop_reo", "pop_rsp", "short_head", "aplt", "aclt"]


@dataclasses.dataclass(frozen=True)
class PopParity(CatalogueResult):
    """A catalogue-level popularity-parity value (its ``measure`` e.g. ``pop_rsp(ratio=0.8)@10``).

    Attributes
    ----------
    value : float
        std / mean of the two groups' rates; ``nan`` when a rate is undefined.
    head_rate, tail_rate : float
        The rate of each group (see :func:`pop_rsp` and :func:`pop_reo`).
    head_items, tail_items : int
        Items in each group.
    """

    DETAIL = ("head_rate", "tail_rate", "head_items", "tail_items")

    head_rate: float
    tail_rate: float
    head_items: int
    tail_items: int


def _train_sets(train: Any) -> dict[str, set[str]]:
    if not isinstance(train, Mapping):
        raise InputError(what="train must map each user to the items of that user's training interactions; got "
                         f"{literal(type(train).__name__)}",
                         fix="give a mapping such as train=dict(u1=[i1, i2])",
                         value=type(train).__name__)
    return {str(u): ({str(items)} if isinstance(items, str) else {str(i) for i in items})
            for u, items in train.items()}


def short_head(train: Mapping, ratio: float = 0.8) -> tuple[set[str], set[str]]:
    """Elliot's short head and long tail of the training items (see the module).

    Examples
    --------
    Users per item: a 3, b 2, c 1 (6 interactions; 0.8 x 6 = 4.8): a (3) then b (5 >= 4.8).

    >>> head, tail = short_head({"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]})
    >>> sorted(head), sorted(tail)
    (['a', 'b'], ['c'])
    """
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise InputError(what=f"ratio must be a share of the interactions in (0, 1], e.g. 0.8; got {literal(repr(ratio))}",
                         value=ratio)
    counts: dict[str, int] = {}
    for items in _train_sets(train).values():
        for i in items:
            counts[i] = counts.get(i, 0) + 1
    if not counts:
        raise InputError(what="the training interactions have no item",
                         fix="give each user's training items")
    order = sorted(counts, key=lambda i: (-counts[i], i))
    limit = sum(counts.values()) * ratio
    head: set[str] = set()
    for i in order:
        head.add(i)
        limit -= counts[i]
        if limit <= 0:
            break
    return head, set(order) - head


def _tops(predictions, k: int, protocol: Protocol | None,
          columns: tuple[str, str, str]) -> dict[str, list[str]]:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(what=f"the cutoff k must be an integer >= 1; got {literal(repr(k))}",
                         value=k)
    run = as_run(predictions, *columns)
    rows = top_rows(run, int(k), protocol if protocol is not None else Protocol())
    query = np.searchsorted(run.offsets, rows, side="right") - 1
    out: dict[str, list[str]] = {str(q): [] for q in run.queries.tolist()}
    for q, doc in zip(run.queries[query].tolist(), run.docs[run.doc_codes[rows]].tolist()):
        out[str(q)].append(str(doc))
    return out


def _parity(name: str, num: np.ndarray, den: np.ndarray, head: set, tail: set) -> PopParity:
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = num / den
    mean = float(np.mean(rates))
    value = float(np.std(rates) / mean) if np.all(den > 0) and mean > 0 else math.nan
    return PopParity(name, value, float(rates[0]), float(rates[1]), len(head), len(tail))


def pop_rsp(predictions, k: int, *, train: Mapping, ratio: float = 0.8,
            protocol: Protocol | None = None,
            user="user", item="item", score="score") -> PopParity:
    """Popularity-based ranking statistical parity@k (Elliot's ``PopRSP``).

    .. math:: r_g = \\frac{\\sum_u |\\mathrm{top}_k(u) \\cap g|}{\\sum_u |g \\setminus T_u|},
              \\quad \\mathrm{PopRSP} = \\frac{\\mathrm{std}(r_{head}, r_{tail})}{\\mathrm{mean}(r_{head}, r_{tail})}

    with T_u the user's training items, summed over the run's users.

    Examples
    --------
    Head {a, b}, tail {c} (as in :func:`short_head`); x gets a, c and y gets
    a, b, neither with training items. Head 3 slots of 2 + 2 items: 0.75;
    tail 1 of 1 + 1: 0.5; std 0.125 over mean 0.625.

    >>> from rankproof import Run
    >>> train = {"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]}
    >>> result = pop_rsp(Run.from_dict({"x": ["a", "c"], "y": ["a", "b"]}), 2, train=train)
    >>> result.head_rate, result.tail_rate, round(result.value, 6)
    (0.75, 0.5, 0.2)
    """
    head, tail = short_head(train, ratio)
    trained = _train_sets(train)
    num = np.zeros(2)
    den = np.zeros(2)
    for u, top in _tops(predictions, k, protocol, (user, item, score)).items():
        shown = set(top)
        seen = trained.get(u, set())
        num += [len(shown & head), len(shown & tail)]
        den += [len(head - seen), len(tail - seen)]
    return _parity(f"pop_rsp(ratio={ratio:g})@{k}", num, den, head, tail)


def pop_reo(predictions, k: int, *, train: Mapping, relevant: Mapping, ratio: float = 0.8,
            protocol: Protocol | None = None, user="user", item="item", score="score") -> PopParity:
    """Popularity-based ranking equal opportunity@k (Elliot's ``PopREO``).

    .. math:: r_g = \\frac{\\sum_u |\\mathrm{top}_k(u) \\cap R_u \\cap g|}{\\sum_u |(R_u \\cap g) \\setminus T_u|},
              \\quad \\mathrm{PopREO} = \\frac{\\mathrm{std}(r_{head}, r_{tail})}{\\mathrm{mean}(r_{head}, r_{tail})}

    with R_u the user's relevant (test) items; users with no relevant item are left out.

    Examples
    --------
    Head {a, b}, tail {c}; x (relevant b, c) gets a, c: a tail hit of 1 tail
    and 1 head relevant; y (relevant a) gets a, b: a head hit. Head 1 / 2,
    tail 1 / 1: std 0.25 over mean 0.75.

    >>> from rankproof import Run
    >>> train = {"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]}
    >>> run = Run.from_dict({"x": ["a", "c"], "y": ["a", "b"]})
    >>> result = pop_reo(run, 2, train=train, relevant={"x": ["b", "c"], "y": ["a"]})
    >>> result.head_rate, result.tail_rate, round(result.value, 6)
    (0.5, 1.0, 0.333333)
    """
    head, tail = short_head(train, ratio)
    trained = _train_sets(train)
    wanted = _train_sets(relevant)
    num = np.zeros(2)
    den = np.zeros(2)
    for u, top in _tops(predictions, k, protocol, (user, item, score)).items():
        rel = wanted.get(u, set())
        if not rel:
            continue
        hits = set(top) & rel
        seen = trained.get(u, set())
        num += [len(hits & head), len(hits & tail)]
        den += [len((head & rel) - seen), len((tail & rel) - seen)]
    return _parity(f"pop_reo(ratio={ratio:g})@{k}", num, den, head, tail)


def _long_tail_items(predictions, k: int, train: Mapping, ratio: float, share: bool,
                     protocol: "Protocol | None",
                     columns: tuple[str, str, str]) -> ListValues:
    _, tail = short_head(train, ratio)
    tops = _tops(predictions, k, protocol, columns)
    users = np.array(sorted(tops), dtype=str)
    sizes = np.array([len(tops[u]) for u in users.tolist()], dtype=np.int64)
    counts = np.array([len(set(tops[u]) & tail) for u in users.tolist()], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(sizes > 0, counts / sizes, np.nan) if share else counts
    name = "aplt" if share else "aclt"
    return ListValues(f"{name}(ratio={ratio:g})@{k}", users, values, sizes)


def aplt(predictions, k: int, *, train: Mapping, ratio: float = 0.8,
         protocol: Protocol | None = None,
         user="user", item="item", score="score") -> ListValues:
    """Average percentage of long-tail items@k (Elliot's ``APLT``): per user, the share of the top k in the
    long tail of :func:`short_head`; the mean over users is the measure.

    .. math:: \\mathrm{APLT}(u) = \\frac{|\\mathrm{top}_k(u) \\cap \\Gamma|}{|\\mathrm{top}_k(u)|}

    with Γ the long tail: training items outside the short head. Items absent from training are in neither
    group, so they count as no long-tail item (Elliot's tail lists only the training matrix's items). A user
    with an empty list is undefined (nan).

    Examples
    --------
    Head {a, b}, tail {c} (as in :func:`short_head`); x gets a, c: 1 of 2; y gets c, d (d untrained): 1 of 2.

    >>> from rankproof import Run
    >>> train = {"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]}
    >>> aplt(Run.from_dict({"x": ["a", "c"], "y": ["c", "d"], "z": ["b"]}), 2, train=train).per_query()
    {'x': 0.5, 'y': 0.5, 'z': 0.0}
    """
    return _long_tail_items(predictions, k, train, ratio, True, protocol, (user, item, score))


def aclt(predictions, k: int, *, train: Mapping, ratio: float = 0.8,
         protocol: Protocol | None = None,
         user="user", item="item", score="score") -> ListValues:
    """Average coverage of long-tail items@k (Elliot's ``ACLT``): per user, how many of the top k are in the
    long tail of :func:`short_head` (a count, not a share: see :func:`aplt`).

    .. math:: \\mathrm{ACLT}(u) = |\\mathrm{top}_k(u) \\cap \\Gamma|

    >>> from rankproof import Run
    >>> train = {"u": ["a", "b", "c"], "v": ["a", "b"], "w": ["a"]}
    >>> aclt(Run.from_dict({"x": ["a", "c"], "y": ["c", "d"]}), 2, train=train, ratio=0.5).per_query()
    {'x': 1.0, 'y': 1.0}
    """
    return _long_tail_items(predictions, k, train, ratio, False, protocol, (user, item, score))


# -- the registry (rankproof evaluate -m pop_rsp@10 --train train.csv) -----------------------------


def _ratio(value: Any) -> float:
    number = float(value)
    if not 0 < number <= 1:
        raise ValueError(f"expected ratio in (0, 1]; got {str(value)[:40]!r}")
    return number


def _registered_pop_rsp(run, k: int, side, params: dict, protocol: Protocol):
    history = side.training_history(f"pop_rsp@{k}")
    return pop_rsp(run, k, train=history, ratio=params["ratio"],
                   protocol=protocol).catalogue_value()


def _registered_pop_reo(run, k: int, side, params: dict, protocol: Protocol):
    # The relevant items: the evaluation's judgments with grade >= the protocol's rel.
    return pop_reo(run, k, train=side.training_history(f"pop_reo@{k}"),
                   relevant=side.relevant(protocol.rel), ratio=params["ratio"],
                   protocol=protocol).catalogue_value()


def _registered_aplt(run, k: int, side, params: dict, protocol: Protocol):
    return aplt(run, k, train=side.training_history(f"aplt@{k}"), ratio=params["ratio"],
                protocol=protocol)


def _registered_aclt(run, k: int, side, params: dict, protocol: Protocol):
    return aclt(run, k, train=side.training_history(f"aclt@{k}"), ratio=params["ratio"],
                protocol=protocol)


def _register() -> None:
    from .registry import CATALOGUE, LIST, SideParam, SideSpec, register_side

    register_side(SideSpec(
        "pop_rsp", "PopRSP",
        "Elliot's popularity ranking statistical parity: std/mean of the short head's and "
        "long tail's top-k rates (0: parity)", CATALOGUE, (("train",),), _registered_pop_rsp,
        (SideParam("ratio", _ratio, 0.8,
                   "ratio=0.8: the share of training interactions in the short head"),),
        higher_is_better=False, value_range=(0.0, 1.0)))
    register_side(SideSpec(
        "pop_reo", "PopREO",
        "Elliot's popularity ranking equal opportunity: std/mean of the short head's and long "
        "tail's top-k recall of the judged relevant items (0: parity)", CATALOGUE, (("train",),),
        _registered_pop_reo,
        (SideParam("ratio", _ratio, 0.8,
                   "ratio=0.8: the share of training interactions in the short head"),),
        higher_is_better=False, value_range=(0.0, 1.0), judgments=True,
        reads="--train (with its users) and the judgments (QRELS)"))
    ratio = SideParam("ratio", _ratio, 0.8,
                      "ratio=0.8: the share of training interactions in the short head")
    register_side(
        SideSpec("aplt", "APLT",
                 "Elliot's average percentage of long-tail items: the share of the top k outside "
                 "the short head of the training items (untrained items count as no long-tail item)", LIST,
                 (("train",),), _registered_aplt, (ratio,), value_range=(0.0, 1.0),
                 reads="--train (with its users)"),
        SideSpec("aclt", "ACLT",
                 "Elliot's average coverage of long-tail items: how many of the top k are outside "
                 "the short head of the training items", LIST, (("train",),), _registered_aclt,
                 (ratio,),
                 value_range=(0.0, math.inf), reads="--train (with its users)"))


_register()
