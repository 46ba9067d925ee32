"""Reading score matrices: dense 2-D arrays, masked entries, ragged rows.

Every form becomes a :class:`~rankproof.data.scores.ScoreInput`: the row names and either the dense
matrices (kept as given when they are already float64 or float32 and C-ordered, so no
copy is made) or flat arrays with row offsets. Validation happens here, once;
each error names the row (and its query name), the column, and the fix.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from ...data.scores import ScoreInput, as_array
from ...pipeline.alignment import apply_negative_grades, apply_score_precision
from ...pipeline.rows import precision_ties
from ...protocol import Protocol, ScorePrecision
from ...errors import literal

__all__ = ["ScoreInput", "as_array", "read_scores"]


def decimal_names(rows: int) -> np.ndarray:
    """``np.arange(rows).astype(str)``, written as UTF-32 code points directly (compiled).

    The rows of a score matrix are named by their number; numpy's int-to-str
    conversion takes ~0.18 s for a million rows, a quarter of evaluating them
    (numpy arithmetic over digit columns: ~0.15 s; the compiled loop: ~0.01 s).

    >>> decimal_names(12)[[0, 9, 10, 11]].tolist()
    ['0', '9', '10', '11']
    """
    from ..._libs.dense import decimal_names as compiled

    return compiled(rows)


def _row_names(queries, rows: int) -> np.ndarray:
    if queries is None:
        return decimal_names(rows)
    names = (np.asarray([str(q) for q in queries]) if not isinstance(queries, np.ndarray)
             else queries.astype(str))
    if names.ndim != 1 or len(names) != rows:
        raise InputError(what=f"queries= names {len(names)} rows but there are {rows}",
                         fix="give one name per row")
    unique, counts = np.unique(names, return_counts=True)
    if (counts > 1).any():
        raise InputError(what=f"queries= names {literal(repr(str(unique[counts > 1][0])))} twice",
                         fix="give every row its own name", query=str(unique[counts > 1][0]))
    return names


def _ragged_from_lists(y_true, y_score) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(y_true) != len(y_score):
        raise InputError(what=f"y_true has {len(y_true)} rows and y_score {len(y_score)}",
                         fix="give one score list per relevance list")
    true_rows = [as_array(row, f"y_true row {i}").ravel() for i, row in enumerate(y_true)]
    score_rows = [as_array(row, f"y_score row {i}").ravel() for i, row in enumerate(y_score)]
    for i, (t, s) in enumerate(zip(true_rows, score_rows)):
        if len(t) != len(s):
            raise InputError(what=f"row {i}: {len(t)} relevance values but {len(s)} scores",
                             fix="give one score per candidate")
    lengths = np.array([len(t) for t in true_rows], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    relevance = np.concatenate(true_rows) if true_rows else np.zeros(0)
    # Integer scores stay integers here: read_scores keeps them exact.
    score = np.concatenate(score_rows) if score_rows else np.zeros(0)
    if score.dtype.kind not in "iu":
        score = score.astype(np.float64)
    return relevance, score, offsets


def _is_list_of_rows(value) -> bool:
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(
        np.ndim(row) == 1 for row in value[: min(len(value), 3)]) and len(
        {np.size(row) for row in value}) > 1


def _check_offsets(offsets, total: int) -> np.ndarray:
    offsets = as_array(offsets, "offsets")
    if offsets.ndim != 1 or len(offsets) < 2 or offsets.dtype.kind not in "iu":
        raise InputError(what="offsets must be a 1-D integer array [0, end of row 0, end of row 1, ..., n]")
    offsets = offsets.astype(np.int64)
    if offsets[0] != 0 or offsets[-1] != total:
        raise InputError(what=f"offsets must start at 0 and end at the number of entries ({total}); "
                         f"got {offsets[0]} ... {offsets[-1]}")
    backwards = np.flatnonzero(np.diff(offsets) < 0)
    if len(backwards):
        raise InputError(what=f"offsets decrease at row {backwards[0]}",
                         fix="give non-decreasing offsets")
    return offsets


def _locate(form: str, offsets: np.ndarray | None, columns: int, flat_index: int,
            queries: np.ndarray) -> str:
    if offsets is None:
        row, column = divmod(flat_index, columns)
        return f"row {row} (query {queries[row]}), column {column}"
    row = int(np.searchsorted(offsets, flat_index, side="right") - 1)
    return f"row {row} (query {queries[row]}), position {flat_index - offsets[row]}"


def read_scores(y_true, y_score, offsets, queries, protocol: Protocol) -> ScoreInput:
    """Validate and normalise the three input forms (see :func:`rankproof.evaluate_scores`)."""
    relevance, score, offsets, form = _shaped(y_true, y_score, offsets)
    rows = len(offsets) - 1 if offsets is not None else relevance.shape[0]
    if rows == 0:
        raise InputError(what="there are no rows to evaluate",
                         fix="give at least one query or user")
    names = _row_names(queries, rows)
    columns = relevance.shape[1] if offsets is None else 0
    # Scores stay as given (integers beyond 2^53 exact) until the pipeline's score_precision policy.
    score = np.asarray(score)
    if relevance.dtype.kind == "f":
        relevance = np.ascontiguousarray(relevance, dtype=np.float64)
    else:
        relevance = np.ascontiguousarray(relevance)

    def where(i: int) -> str:
        return _locate(form, offsets, columns, i, names)

    masked_flags = _masked(score, relevance, offsets is not None, where)
    masked = int(np.count_nonzero(masked_flags)) if masked_flags is not None else 0
    negative = 0
    if relevance.size and (masked or relevance.min() < 0):
        negative_flags = relevance < 0
        if masked_flags is not None:
            negative_flags &= ~masked_flags
        negative = int(np.count_nonzero(negative_flags))
    if negative:
        # The policy is the pipeline's; refused here, before any work, as for a qrels file.
        flat = np.where(negative_flags, relevance, 0).ravel()
        apply_negative_grades(flat, protocol, lambda i: {"source": f"y_true {where(i)}"},
                              noun="relevance")
    held = _held(score, form, protocol)
    return ScoreInput(queries=names, relevance=relevance, score=held, offsets=offsets,
                      masked=masked,
                      negative=negative, form=form,
                      precision_ties=_made_ties(score, held, offsets, protocol))


def _shaped(y_true, y_score, offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str]:
    """(relevance, score, offsets, form) of one of the three input forms, shapes checked."""
    if offsets is not None:
        relevance = as_array(y_true, "y_true")
        score = as_array(y_score, "y_score")
        if relevance.ndim != 1 or score.ndim != 1:
            raise InputError(what=f"with offsets=, y_true and y_score are flat 1-D arrays; got shapes "
                             f"{relevance.shape} and {score.shape}")
        if relevance.shape != score.shape:
            raise InputError(what=f"y_true has {len(relevance)} entries and y_score {len(score)}",
                             fix="give one score per candidate")
        return relevance, score, _check_offsets(offsets, len(score)), "ragged"
    if _is_list_of_rows(y_true) or _is_list_of_rows(y_score):
        return (*_ragged_from_lists(y_true, y_score), "ragged")
    relevance = as_array(y_true, "y_true")
    score = as_array(y_score, "y_score")
    if relevance.ndim != 2 or score.ndim != 2:
        shape = relevance.shape if relevance.ndim != 2 else score.shape
        name = "y_true" if relevance.ndim != 2 else "y_score"
        raise InputError(what=f"{name} has shape {shape}",
                         fix="give 2-D arrays (one row per query or user, one column per candidate), a list of "
                             "1-D arrays for rows of different lengths, or flat 1-D arrays with "
                             "offsets=[0, end of row 0, ...]")
    if relevance.shape != score.shape:
        raise InputError(what=f"y_true has shape {relevance.shape} but y_score has shape {score.shape}",
                         fix="give one score per relevance value")
    return relevance, score, None, "dense"


def _masked(score: np.ndarray, relevance: np.ndarray, ragged: bool, where) -> np.ndarray | None:
    """Which entries a NaN score masks (None for none); refuses a NaN score in ragged rows and a
    relevance that is not finite where its entry is not masked (``where(i)`` names entry i)."""
    # One cheap reduction each tells whether the detailed (allocating) checks are needed:
    # a sum is NaN only if some score is NaN (or +inf and -inf meet).
    with np.errstate(invalid="ignore", over="ignore"):  # +inf and -inf sum to NaN: then look closer
        maybe_masked = np.isnan(score.sum())
        relevance_finite = (relevance.dtype.kind != "f" or not relevance.size
                            or np.isfinite(relevance.sum()))
    masked_flags = np.isnan(score) if maybe_masked else None
    if masked_flags is not None and not masked_flags.any():
        masked_flags = None
    if masked_flags is not None and ragged:
        first = int(np.flatnonzero(masked_flags)[0])
        raise InputError(what="the score is NaN", source=f"y_score {where(first)}",
                         fix="ragged rows list only candidates, so drop the entry or give it a score")
    if not relevance_finite:
        bad = ~np.isfinite(relevance)
        if masked_flags is not None:
            bad &= ~masked_flags
        if bad.any():
            first = int(np.flatnonzero(bad.ravel())[0])
            raise InputError(what=f"relevance is {relevance.ravel()[first]}",
                             value=relevance.ravel()[first],
                             source=f"y_true {where(first)}",
                             fix="give a finite {grade}, or mask the entry by setting its score to NaN")
    return masked_flags


def _held(score: np.ndarray, form: str, protocol: Protocol) -> np.ndarray:
    """The scores under the score_precision policy; a dense float32 matrix under float64 is read as
    it is (every float32 is a float64: no float64 copy of a model's output)."""
    if (form == "dense" and score.dtype == np.float32
        and protocol.score_precision is ScorePrecision.FLOAT64):
        return np.ascontiguousarray(score)
    return apply_score_precision(score, protocol)


def _made_ties(score: np.ndarray, held: np.ndarray, offsets: np.ndarray | None,
               protocol: Protocol) -> int | None:
    """The groups of equal scores within a row that score_precision made (None at float64)."""
    if protocol.score_precision is ScorePrecision.FLOAT64:
        return None
    row = (np.repeat(np.arange(held.shape[0]), held.shape[1]) if offsets is None
           else np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)))
    return precision_ties(row, np.asarray(score, dtype=np.float64).ravel(), held.ravel())
