"""How concentrated the recommendations are on few items: the Gini index and
the Shannon entropy of the items' shares of all top-k slots.

Both describe a whole run, not a list, as catalogue coverage does
(:mod:`rankproof.recsys.coverage`). The libraries that report them disagree
on three choices, each a parameter here and each named in the result:

=================  ==========================================  =====================================
choice             values                                      who
=================  ==========================================  =====================================
``universe``       ``catalogue``: every catalogue item, those   RecBole ``GiniIndex``, Elliot ``Gini``
                   never recommended with share 0               LensKit ``ListGini``, ``ExposureGini``
                   ``recommended``: the items recommended       RecPack ``ItemGini``, Evidently
                   at least once                                ``PopularityBias`` (its ``gini``)
``normaliser``     ``n``: divide by the n items (the Gini of    RecBole, RecPack, LensKit
                   one item holding everything is 1 - 1/n)
                   ``n-1``: divide by n - 1 (it is then 1)      Elliot (which reports 1 - G), Evidently
``exposure``       ``uniform``: every top-k slot counts 1       all but LensKit ``ExposureGini``
                   ``geometric``: a slot at rank r counts       LensKit ``ExposureGini`` (patience
                   p^(r - 1) (``patience`` p); ``log``:         0.85)
                   1 / log2(r + 1)
``entropy`` base   ``e`` (nats) or ``2`` (bits); RecBole        RecBole ``ShannonEntropy``
                   divides its entropy by the number of
                   distinct recommended items
                   (``per_item=True``)
=================  ==========================================  =====================================

:data:`GINI_PRESETS` and :data:`ENTROPY_PRESETS` hold each library's choices;
the formulas are written out in :func:`gini` and :func:`entropy`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

import numpy as np

from ..errors import USERS_AND_ITEMS, InputError, literal
from .topk import ranked_rows, slot_counts
from ..protocol import Protocol
from ..typing import Exposure
from .catalogue_value import CatalogueResult
from .coverage import as_run, distinct_ids
from .slots import SlotCounts
from .side_params import check_cutoff, in_open_unit, one_of

__all__ = ["Concentration", "gini", "entropy", "item_counts", "item_exposure", "GINI_PRESETS",
           "ENTROPY_PRESETS"]

Universe = Literal["catalogue", "recommended"]

# Each library's Gini, as (universe, normaliser, reported as 1 - G). Read in their source: RecBole
# recbole/evaluator/metrics.py GiniIndex (indices over num_items, divided by num_items); Elliot
# elliot/evaluation/metrics/diversity/gini_index (over num_items, divided by num_items - 1, returns
# 1 - G); RecPack recpack/metrics ItemGini (the recommended items only, divided by n); Evidently
# 0.7.23 evidently/legacy/metrics/recsys/popularity_bias.py PopularityBias.get_gini (value_counts of
# the recommended items only, divided by (n_items - 1) x total); LensKit 2025.8.1
# lenskit/metrics/ranking/_gini.py ListGini (counts of the lists each item is in, zeros up to the
# item count, lenskit.stats.gini divides by n) and ExposureGini (the same over each item's summed
# exposure, GeometricRankWeight(patience=0.85): p^(rank - 1); the constant factor 1 - p of
# rankproof's geometric model cancels in the shares).
GINI_PRESETS = {
    "recbole": dict(universe="catalogue", normaliser="n", complement=False),
    "elliot": dict(universe="catalogue", normaliser="n-1", complement=True),
    "recpack": dict(universe="recommended", normaliser="n", complement=False),
    "evidently": dict(universe="recommended", normaliser="n-1", complement=False),
    "lenskit": dict(universe="catalogue", normaliser="n", complement=False),
    "lenskit_exposure": dict(universe="catalogue", normaliser="n", complement=False,
                             exposure="geometric",
                             patience=0.85),
}
# RecBole's ShannonEntropy: natural log, divided by the number of distinct recommended items.
ENTROPY_PRESETS = {
    "recbole": dict(base="e", per_item=True),
}


@dataclasses.dataclass(frozen=True)
class Concentration(CatalogueResult):
    """A run-level value of how its top-k slots spread over the items (its ``measure`` with every
    choice, e.g. ``gini(universe=catalogue,normaliser=n)@10``).

    Attributes
    ----------
    value : float
    items : int
        The n items the value is over (the universe).
    recommended : int
        Distinct items in some top-k list.
    slots : int
        Top-k slots of all lists (the sum of the counts).
    outside_catalogue : int
        Recommended items that are not in the catalogue (counted in the
        shares, and as items of the universe, so that the shares sum to 1).
    k : int
    """

    DETAIL = ("items", "recommended", "slots", "outside_catalogue")

    items: int
    recommended: int
    slots: int
    outside_catalogue: int
    k: int

    def __str__(self) -> str:
        return f"{self.measure} {self.value:.4f} over {self.items} items ({self.recommended} recommended)"


def item_counts(predictions, k: int, protocol: Protocol | None = None, *, user="user", item="item",
                score="score") -> tuple[np.ndarray, np.ndarray]:
    """How many top-k slots each recommended item takes: (sorted item ids, counts).

    The top k of each list is taken under the protocol's ``ties`` policy, as
    for :func:`rankproof.recsys.coverage`.

    >>> from rankproof import Run
    >>> item_counts(Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "c"]}), 2)
    (array(['a', 'b', 'c'], dtype='<U1'), array([2, 1, 1]))
    """
    if isinstance(predictions, SlotCounts):   # counted where the run lives (Spark): the same counts
        return predictions.counts_for(k, protocol)
    k = check_cutoff(k, "item_counts")
    run = as_run(predictions, user, item, score)
    counts = slot_counts(run, k, protocol if protocol is not None else Protocol())
    shown = np.flatnonzero(counts)
    return run.docs[shown], counts[shown].astype(np.int64)


def _catalogue(catalogue) -> np.ndarray:
    if catalogue is None or isinstance(catalogue, (str, bytes)):
        raise InputError(what="universe='catalogue' needs the catalogue: a list or array of {doc} ids",
                         fix="pass catalogue=[...], or universe='recommended'").in_words_of(USERS_AND_ITEMS)
    items = distinct_ids(catalogue)
    if items.size == 0:
        raise InputError(what="the catalogue is empty",
                         fix="give the {doc} ids").in_words_of(USERS_AND_ITEMS)
    return items


def item_exposure(predictions, k: int, protocol: Protocol | None = None, *,
                  exposure: Exposure = "uniform",
                  patience: float = 0.85, user="user", item="item",
                  score="score") -> tuple[np.ndarray, np.ndarray]:
    """The exposure each recommended item gets over all top-k lists: (sorted item ids, sums).

    A slot at 1-based rank r of its list counts 1 (``uniform``: the slot counts of
    :func:`item_counts`), p^(r - 1) (``geometric``, patience p, LensKit's
    ``GeometricRankWeight``) or 1 / log2(r + 1) (``log``).

    >>> from rankproof import Run
    >>> ids, sums = item_exposure(Run.from_dict({"u": ["a", "b"], "v": ["b", "a"]}), 2, exposure="geometric",
    ...                           patience=0.5)
    >>> ids.tolist(), sums.tolist()
    (['a', 'b'], [1.5, 1.5])
    """
    if exposure == "uniform":
        ids, counts = item_counts(predictions, k, protocol, user=user, item=item, score=score)
        return ids, counts.astype(np.float64)
    one_of("exposure", exposure, ("uniform", "log", "geometric"))
    if exposure == "geometric":
        in_open_unit("patience", patience, example=0.85)
    k = check_cutoff(k, "item_exposure")
    run = as_run(predictions, user, item, score)
    rows, _, rank = ranked_rows(run, k, protocol if protocol is not None else Protocol())
    # geometric as LensKit weighs it, p^(r - 1) (the 1 - p of recsys.exposure's model cancels in a
    # share); log as recsys.exposure's: 1 / log2(r + 1)
    weights = patience ** (rank - 1.0) if exposure == "geometric" else 1.0 / np.log2(rank + 1.0)
    sums = np.bincount(run.doc_codes[rows], weights=weights, minlength=len(run.docs))
    shown = np.flatnonzero(np.bincount(run.doc_codes[rows], minlength=len(run.docs)))
    return run.docs[shown], sums[shown]


def _shares(predictions, k, catalogue, universe, protocol, columns,
            weighting: tuple[Exposure, float] = ("uniform", 0.85)
            ) -> tuple[np.ndarray, int, int, float]:
    """The slot counts (or exposure sums) over the universe (zeros for catalogue items never
    recommended), with the recommended and outside-catalogue item counts and their total."""
    one_of("universe", universe, ("catalogue", "recommended"))
    ids, counts = item_exposure(predictions, k, protocol, exposure=weighting[0],
                                patience=weighting[1], **columns)
    if counts.sum() == 0:
        raise InputError(what="no list recommends any item",
                         fix="give lists with at least one {doc}"
                         ).in_words_of(USERS_AND_ITEMS)
    outside = 0
    if universe == "catalogue":
        items = _catalogue(catalogue)
        inside = np.isin(ids, items)
        outside = int((~inside).sum())
        zeros = items.size - int(inside.sum())
        counts = np.concatenate([np.zeros(zeros, dtype=counts.dtype), counts])
    return counts, len(ids), outside, float(counts.sum())


def _gini_choices(preset, universe, normaliser, exposure, patience) -> dict:
    """The Gini's choices: the defaults, or the preset's, with what was given (refused where it contradicts)."""
    chosen: dict = dict(universe="catalogue", normaliser="n", complement=False, exposure="uniform",
                        patience=0.85)
    if preset is not None:
        if preset not in GINI_PRESETS:
            raise InputError(what=f"no Gini preset {literal(repr(preset))}; choose one of "
                             f"{', '.join(GINI_PRESETS)}", value=preset)
        chosen.update(GINI_PRESETS[preset])
        for name, given in (("universe", universe), ("normaliser", normaliser),
                            ("exposure", exposure)):
            if given is not None and given != chosen[name]:
                raise InputError(what=f"the {preset} preset takes {name}={chosen[name]!r}, not {given!r}",
                                 fix=f"drop {name}= or the preset", value=given)
    for name, given in (("universe", universe), ("normaliser", normaliser), ("exposure", exposure),
                        ("patience", patience)):
        if given is not None:
            chosen[name] = given
    one_of("normaliser", chosen["normaliser"], ("n", "n-1"))
    in_open_unit("patience", chosen["patience"], example=0.85)
    return chosen


def gini(predictions, k: int, *, catalogue=None, universe: Universe | None = None,
         normaliser: Literal["n", "n-1"] | None = None, preset: str | None = None,
         protocol: Protocol | None = None, user="user", item="item", score="score",
         exposure: Exposure | None = None, patience: float | None = None) -> Concentration:
    """The Gini index of the items' shares of the top-k slots: 0 when every item
    of the universe is recommended equally often, near 1 when one item takes all.

    .. math::

        G@k = \\frac{1}{d} \\sum_{j=1}^{n} (2j - n - 1)\\, p_{(j)},
        \\qquad p_i = \\frac{c_i}{\\sum_l c_l}

    with c_i the top-k slots item i takes over all lists (with ``exposure``
    not ``uniform``: the exposure those slots give it, see :func:`item_exposure`), p_(1) <= ... <= p_(n)
    the shares in increasing order over the n items of the universe, and
    d = n (``normaliser='n'``) or n - 1 (``'n-1'``, so that one item holding
    every slot gives exactly 1). Reference: the Gini index of item
    recommendation counts (Castells, Hurley and Vargas, *Novelty and
    Diversity in Recommender Systems*, Recommender Systems Handbook, 2015).

    Parameters
    ----------
    predictions : Run, or a table / Parquet path as for :func:`rankproof.evaluate_frame`
    k : int
        Cutoff, >= 1.
    catalogue : array-like of ids, optional
        The items of the universe ``catalogue`` (needed by it). An item
        recommended but not in the catalogue is counted (``outside_catalogue``)
        and kept as an item of the universe, so that the shares sum to 1.
    universe : {"catalogue", "recommended"}, default "catalogue"
    normaliser : {"n", "n-1"}, default "n"
    preset : {"recbole", "elliot", "recpack", "evidently", "lenskit", "lenskit_exposure"}, optional
        A library's choices (:data:`GINI_PRESETS`); Elliot's is reported as
        1 - G, as Elliot does. A `universe`, `normaliser` or `exposure` that
        contradicts the preset is refused.
    exposure : {"uniform", "geometric", "log"}, default "uniform"
        What a slot counts: 1, or the exposure of its rank (LensKit's
        ``ExposureGini``: ``geometric``, patience 0.85).
    patience : float, default 0.85
        The p of ``exposure='geometric'``.
    protocol : Protocol, optional
        Only its ``ties`` policy: which items of a tied group crossing rank k are in the top k.

    Examples
    --------
    Top 2 of three lists: a, b | a, c | a, b. Slots: a 3, b 2, c 1 (6 in all).
    Over the recommended items (n = 3, shares 1/6, 2/6, 3/6 increasing):
    ((2 - 4) 1/6 + (4 - 4) 2/6 + (6 - 4) 3/6) / 3 = (4/6) / 3 = 2/9.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b"], "v": ["a", "c"], "w": ["a", "b"]})
    >>> round(gini(run, 2, universe="recommended").value, 6)
    0.222222

    Over a catalogue a..e (d and e never recommended: n = 5, shares 0, 0, 1/6, 2/6, 3/6):
    ((6 - 6) 1/6 + (8 - 6) 2/6 + (10 - 6) 3/6) / 5 = (8/3) / 5 = 0.5333.

    >>> round(gini(run, 2, catalogue=list("abcde")).value, 4)
    0.5333
    """
    k = check_cutoff(k, "gini")
    chosen = _gini_choices(preset, universe, normaliser, exposure, patience)
    universe, normaliser, weighting = chosen["universe"], chosen["normaliser"], chosen["exposure"]
    counts, recommended, outside, slots = _shares(predictions, k, catalogue, universe, protocol,
                                                  dict(user=user, item=item, score=score),
                                                  (weighting, float(chosen["patience"])))
    n = len(counts)
    shares = np.sort(counts) / slots
    rank = np.arange(1, n + 1, dtype=np.float64)
    divisor = n if normaliser == "n" else n - 1
    value = float(np.sum((2 * rank - n - 1) * shares) / divisor) if divisor > 0 else 0.0
    if chosen["complement"]:
        value = 1.0 - value
    weighed = "" if weighting == "uniform" else f",exposure={weighting}" + (
        f",patience={chosen['patience']:g}" if weighting == "geometric" else "")
    name = (f"gini(universe={universe},normaliser={normaliser}{weighed}"
            f"{',complement' if chosen['complement'] else ''})@{k}")
    if weighting != "uniform":   # the slots, not their exposure
        slots = float(item_counts(predictions, k, protocol, user=user, item=item,
                                  score=score)[1].sum())
    return Concentration(name, value, n, recommended, int(slots), outside, k)


def entropy(predictions, k: int, *, base: Literal["e", "2"] = "2", per_item: bool = False,
            preset: str | None = None, protocol: Protocol | None = None, user="user", item="item",
            score="score") -> Concentration:
    """The Shannon entropy of the items' shares of the top-k slots.

    .. math:: H@k = -\\sum_i p_i \\log p_i, \\qquad p_i = \\frac{c_i}{\\sum_l c_l}

    over the recommended items (an item never recommended adds 0), in bits
    (``base='2'``) or nats (``'e'``); ``per_item=True`` divides by the number
    of distinct recommended items, as RecBole's ``ShannonEntropy`` does
    (``preset='recbole'``: nats, per item). The maximum is log n, reached when
    n items share the slots equally.

    Examples
    --------
    Slots a 2, b 1, c 1 of 4: H = 1/2 log2 2 + 2 (1/4 log2 4) = 1.5 bits.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b"], "v": ["a", "c"]})
    >>> entropy(run, 2).value
    1.5
    >>> round(entropy(run, 2, preset="recbole").value, 6)    # 1.5 ln 2 / 3
    0.346574
    """
    k = check_cutoff(k, "entropy")
    if preset is not None:
        if preset not in ENTROPY_PRESETS:
            raise InputError(what=f"no entropy preset {literal(repr(preset))}; choose one of "
                             f"{', '.join(ENTROPY_PRESETS)}", value=preset)
        base, per_item = ENTROPY_PRESETS[preset]["base"], bool(ENTROPY_PRESETS[preset]["per_item"])  # type: ignore
    one_of("base", base, ("e", "2"))
    counts, recommended, _, total = _shares(predictions, k, None, "recommended", protocol,
                                            dict(user=user, item=item, score=score))
    shares = counts / total
    slots = int(total)
    value = float(-np.sum(shares * np.log(shares)))
    if base == "2":
        value /= math.log(2)
    if per_item:
        value /= recommended
    name = f"entropy(base={base}{',per_item' if per_item else ''})@{k}"
    return Concentration(name, value, recommended, recommended, slots, 0, k)
