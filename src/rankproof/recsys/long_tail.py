"""RecBole's TailPercentage: the share of each top-k list in the long tail of the training log.

The long-tail family's other member, :func:`~rankproof.recsys.beyond.long_tail_share`,
puts every item outside the popular head in the tail, items never trained on
included. RecBole's tail is instead **the least-interacted training items**
(``tail_ratio`` in its config, :math:`t`):

- :math:`0 < t \\le 1`: the :math:`\\max(\\lfloor t\\,|I|\\rfloor, 1)` items of the training log with
  the fewest interactions (:math:`I` its items), equal counts in order of first appearance
  (RecBole: its internal item id, which numbers the items as they first appear in the dataset);
- :math:`t > 1`: every training item with at most :math:`t` interactions.

An item never trained on is not in the tail. Each list's value is the share
of its top k in the tail, and the measure their mean over the lists:

.. math:: \\mathrm{TailPercentage@}k = \\frac{1}{|U|} \\sum_u
          \\frac{|\\{i \\in \\mathrm{top}_k(u) : i \\in T\\}|}{|\\mathrm{top}_k(u)|}

(RecBole's lists all hold k items; a shorter list here divides by its length.)

Examples
--------
Training counts a 5, b 3, c 1, d 1, e 2 (5 items); tail 0.4: the floor(2) least interacted, c and d.

>>> from rankproof import Run
>>> train = {"a": 5, "b": 3, "c": 1, "d": 1, "e": 2}
>>> sorted(tail_items(train, 0.4)), sorted(tail_items(train, 2))   # ratio; count threshold (<= 2)
(['c', 'd'], ['c', 'd', 'e'])
>>> run = Run.from_dict({"u": ["a", "c", "x", "d"], "v": ["e", "b"]})
>>> tail_percentage(run, 3, training=train, tail=0.4).per_query()   # u: c of a, c, x; v: none
{'u': 0.3333333333333333, 'v': 0.0}
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, literal
from ..protocol import Protocol
from .beyond import ListValues
from .coverage import as_run
from .side import Interactions
from .side_params import check_cutoff
from .topk import sorted_top_rows

__all__ = ["tail_items", "tail_percentage"]


def _counts_in_order(training: Any) -> tuple[np.ndarray, np.ndarray]:
    """(items in order of first appearance, interactions of each)."""
    if isinstance(training, Interactions):
        items, counts = (np.asarray(training.items).astype(str),
                         np.asarray(training.counts, dtype=np.float64))
    elif isinstance(training, Mapping):
        items = np.asarray([str(i) for i in training.keys()])
        counts = np.asarray(list(training.values()), dtype=np.float64)
    elif isinstance(training, (str, bytes)):
        raise InputError(what="the training log must be a list of item ids (one per interaction) or a mapping "
                         "item -> count")
    else:
        items = np.asarray(list(training)).astype(str).reshape(-1)
        counts = np.ones(len(items))
    if items.size == 0:
        raise InputError(what="the training log has no item",
                         fix="give the item of every training interaction")
    ids, first, inverse = np.unique(items, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    return ids[order], np.bincount(inverse, counts, len(ids))[order]


def tail_items(training: Any, tail: float = 0.1) -> set[str]:
    """RecBole's long tail of a training log (see the module's docstring); `tail` its ``tail_ratio``."""
    if (isinstance(tail, bool) or not isinstance(tail, (int, float)) or not tail > 0
        or not math.isfinite(tail)):
        raise InputError(what=f"tail must be a share in (0, 1] or a count > 1, e.g. 0.1; got {literal(repr(tail))}",
                         value=tail)
    items, counts = _counts_in_order(training)
    if tail > 1:
        return set(items[counts <= tail].tolist())
    # fewest first; equal counts in order of first appearance
    order = np.argsort(counts, kind="stable")
    return set(items[order[:max(int(len(items) * tail), 1)]].tolist())


def tail_percentage(predictions, k: int, *, training: Any, tail: float = 0.1,
                    protocol: "Protocol | None" = None,
                    user="user", item="item", score="score") -> ListValues:
    """TailPercentage@k per list (see the module's docstring); an empty list is undefined (nan)."""
    k = check_cutoff(k, "tail_percentage")
    the_tail = np.array(sorted(tail_items(training, tail)), dtype=str)
    run = as_run(predictions, user, item, score)
    rows, query = sorted_top_rows(run, k, protocol if protocol is not None else Protocol())
    in_tail = np.isin(run.docs[run.doc_codes[rows]], the_tail).astype(np.float64)
    sizes = np.bincount(query, minlength=run.num_queries)
    total = np.bincount(query, weights=in_tail, minlength=run.num_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(sizes > 0, total / np.maximum(sizes, 1), np.nan)
    return ListValues(f"tail_percentage(tail={tail:g})@{k}", run.queries, values,
                      sizes.astype(np.int64))


# -- the registry (rankproof evaluate QRELS RUN -m "tail_percentage(tail=0.2)@10" --train train.csv)


def _registered(run, k: int, side, params: dict, protocol: Protocol) -> ListValues:
    return tail_percentage(run, k, training=side.needed("train"), tail=params["tail"],
                           protocol=protocol)


def _tail(value: Any) -> float:
    number = float(value)
    if not number > 0 or not math.isfinite(number):
        raise ValueError(f"expected a share in (0, 1] or a count > 1; got {str(value)[:40]!r}")
    return number


def _register() -> None:
    from .registry import LIST, SideParam, SideSpec, register_side

    register_side(SideSpec(
        "tail_percentage", "TailPercentage",
        "RecBole's TailPercentage: share of the top k in the long tail, "
        "the least-interacted training items (tail in (0, 1]: that share of the items, fewest interactions "
        "first; tail > 1: items with at most that many); items never trained on are not in it",
        LIST,
        (("train",),), _registered,
        (SideParam("tail", _tail, 0.1,
                   "tail=0.1: RecBole's tail_ratio, a share of the items or a count > 1"),)))


_register()
