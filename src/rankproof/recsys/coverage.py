"""Catalogue coverage@k: the share of a catalogue that appears in some top-k list.

Coverage describes a whole run, not a query: it has no per-query value to
average, so it is a function of its own rather than a per-query measure of
the registry.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from .topk import slot_counts
from ..data.run import Run
from ..errors import USERS_AND_ITEMS, InputError
from ..protocol import Protocol
from ..errors import literal
from .side_params import check_cutoff
from .slots import SlotCounts

__all__ = ["coverage", "Coverage", "distinct_ids"]


@dataclasses.dataclass(frozen=True)
class Coverage:
    """Catalogue coverage of a run at cutoff k.

    Attributes
    ----------
    value : float
        ``covered / catalogue_size``.
    covered : int
        Catalogue items in at least one top-k list.
    catalogue_size : int
        Distinct items of the catalogue.
    outside_catalogue : int
        Distinct items in some top-k list but not in the catalogue (counted,
        not covered).
    k : int
    """

    value: float
    covered: int
    catalogue_size: int
    outside_catalogue: int
    k: int


def as_run(predictions, user, item, score) -> Run:
    """Predictions as a Run: a Run as it is, a path read as a file, a table read by its columns."""
    if isinstance(predictions, Run):
        return predictions
    if isinstance(predictions, SlotCounts):   # a measure that reads more than the slot counts
        return predictions.lists
    if isinstance(predictions, (str, os.PathLike)):
        return Run.read(predictions, query=user, doc=item, score=score)
    return Run.from_table(predictions, query=user, doc=item, score=score, source="predictions")


def distinct_ids(ids) -> np.ndarray:
    """The distinct ids as sorted text: as they are when already so (the catalogue of ``--items`` is read
    sorted and distinct), else through :func:`numpy.unique`."""
    text = np.asarray(ids).astype(str, copy=False).reshape(-1)
    if text.size < 2 or bool((text[1:] > text[:-1]).all()):
        return text
    return np.unique(text)


def coverage(predictions, k: int, catalogue, protocol: "Protocol | None" = None, *,
             user="user", item="item", score="score") -> Coverage:
    """Share of the catalogue that appears in at least one user's top k.

    .. math:: \\mathrm{coverage@}k = \\frac{|C \\cap \\bigcup_u \\mathrm{top}_k(u)|}{|C|}

    Parameters
    ----------
    predictions : Run, or a table / Parquet path as for :func:`rankproof.evaluate_frame`
        The recommended lists (or their :class:`~rankproof.recsys.slots.SlotCounts` at `k`).
    k : int
        Cutoff, >= 1.
    catalogue : array-like of ids
        The item set C (ids as strings or integers; ``7`` and ``"7"`` are one id).
    protocol : Protocol, optional
        Only its ``ties`` policy is used: which items of a tied group that
        crosses the cutoff are in the top k. ``input`` keeps the given order,
        ``docid`` takes doc ids descending (trec_eval); ``expected`` and
        ``error`` refuse such a group, since the covered set is then not
        determined by the scores.
    user, item, score : str or None
        Column names when `predictions` is a table (``score=None``: rows in rank order).

    Returns
    -------
    Coverage

    Examples
    --------
    Top 2: u gets a, b; v gets a, d. Of the catalogue a..f, 3 of 6 are covered:

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": ["a", "b", "c"], "v": ["a", "d", "z"]})
    >>> coverage(run, 2, catalogue=list("abcdef"))
    Coverage(value=0.5, covered=3, catalogue_size=6, outside_catalogue=0, k=2)
    """
    k = check_cutoff(k, "coverage")
    if catalogue is None or isinstance(catalogue, (str, bytes)):
        # np.asarray(None).astype(str) is the catalogue {"None"}; a string is one id, not a list.
        raise InputError(what=f"the catalogue must be a list or array of {{doc}} ids; got "
                         f"{literal(repr(str(catalogue)[:40]))}",
                         value=catalogue).in_words_of(USERS_AND_ITEMS)
    items = distinct_ids(catalogue)
    if items.size == 0:
        raise InputError(what="the catalogue is empty",
                         fix="give the {doc} ids coverage is measured over").in_words_of(USERS_AND_ITEMS)
    protocol = protocol if protocol is not None else Protocol()
    if isinstance(predictions, SlotCounts):   # counted where the run lives (Spark)
        shown = predictions.counts_for(k, protocol)[0]
    else:
        run = as_run(predictions, user, item, score)
        # The distinct codes, sorted, by counting (no sort of the top-k rows; the counts shared).
        shown = run.docs[np.flatnonzero(slot_counts(run, k, protocol))]
    in_catalogue = np.isin(shown, items)
    covered = int(in_catalogue.sum())
    return Coverage(value=covered / items.size, covered=covered, catalogue_size=int(items.size),
                    outside_catalogue=int((~in_catalogue).sum()), k=int(k))
