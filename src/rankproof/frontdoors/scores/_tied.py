"""Rows of a score matrix whose candidates all have one score (issue 28).

Such a row says nothing about the order of its candidates: the tie policy
alone decides it (under ``ties=input`` the column order, silently). The
front door warns with the count and names the policy, as the table and file
path does for a run whose rankings are each one tie.
"""

from __future__ import annotations

import numpy as np

from ...protocol import Protocol, Ties
from ._input import ScoreInput

__all__ = ["tied_rows", "tied_rows_warning"]

_DECIDES = {
    Ties.EXPECTED: "their measures average over every order of the candidates (ties=expected)",
    Ties.INPUT: "their candidates are taken in column order, first column first (ties=input)",
    Ties.DOCID: "their candidates are taken by column index descending (ties=docid)",
}


def tied_rows(scores: ScoreInput) -> int:
    """The rows with two or more candidates whose scores are all equal.

    NaN entries of a dense matrix are not candidates (np.fmax and np.fmin
    skip them); a row of one candidate is no tie. Only row-sized
    temporaries, besides a boolean mask when the matrix has masked entries.
    """
    score = scores.score
    if scores.offsets is None:   # dense
        if score.ndim != 2 or score.shape[0] == 0 or score.shape[1] < 2:
            return 0
        # A row whose first two candidates differ is no tie: only the others are read whole (a
        # fixed cost of every evaluation, two passes over the matrix before). A NaN is no candidate,
        # so a row with one among its first two is read whole too.
        first, second = score[:, 0], score[:, 1]
        maybe = first == second
        if scores.masked:
            maybe |= np.isnan(first) | np.isnan(second)
        score = score[maybe] if not maybe.all() else score
        if score.shape[0] == 0:
            return 0
        counts = (np.full(score.shape[0], score.shape[1]) if not scores.masked
                  else (~np.isnan(score)).sum(axis=1))
        highest, lowest = np.fmax.reduce(score, axis=1), np.fmin.reduce(score, axis=1)
    else:
        lengths = np.diff(scores.offsets)
        starts = np.asarray(scores.offsets[:-1])[lengths > 0]
        if starts.size == 0:
            return 0
        counts = lengths[lengths > 0]
        highest, lowest = np.fmax.reduceat(score, starts), np.fmin.reduceat(score, starts)
    return int(np.count_nonzero((counts >= 2) & (highest == lowest)))


def tied_rows_warning(scores: ScoreInput, protocol: Protocol) -> tuple[str, ...]:
    """One line when rows are all one tie, with their count and the policy that orders them."""
    if protocol.ties not in _DECIDES:   # ties=error refuses ties itself
        return ()
    count = tied_rows(scores)
    if count == 0:
        return ()
    rows = "row has" if count == 1 else "rows have"
    return (f"{count} of {scores.num_rows} {rows} all their scores equal, so the scores give no order: "
            f"{_DECIDES[protocol.ties]}; check the model's scores for those rows, or choose the tie policy "
            "on purpose (protocol ties=...)",)
