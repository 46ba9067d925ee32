"""``evaluate_scores``: ranking measures of score matrices (recommenders, learning to rank).

Rows are queries (users); each row's entries are its candidates, with a
relevance grade (``y_true``) and a score (``y_score``). Three forms:

- dense 2-D arrays of the same shape;
- dense with masked entries: a NaN score means "not a candidate of this row";
- ragged rows: a list of 1-D arrays per side, or flat 1-D arrays with
  ``offsets`` (row ``i`` is ``offsets[i]:offsets[i + 1]``).

Every candidate is judged (its relevance is given), and the row's candidates
are its whole judged pool: the ideal ranking of NDCG is the best order of the
row, so ``ideal=judged`` and ``ideal=retrieved`` coincide; the printed
results say so. Doc ids are column indices (ragged: positions in the row), so
``ties=docid`` orders tied entries by column index descending and
``ties=input`` by column index ascending.

scikit-learn's ``ndcg_score`` / ``dcg_score`` are the ``sklearn`` preset
(which is rankproof's default protocol): ties averaged (``ties=expected``),
linear gain, rows without relevance scored 0. ``log_base=b`` of
``dcg_score`` is the discount ``log:b``; ``sample_weight=w`` is
``aggregation=weighted`` with ``weights=w``. ``ignore_ties=True`` claims
there are no ties: on scores without ties every tie policy gives its value;
on tied scores it takes the order of numpy's default (unstable) argsort,
reversed, which follows no rule. Where that sort happens to be stable the
order is column index descending among ties, which is ``ties=docid``.

LightGBM's ``ndcg@k`` eval metric is the ``lightgbm`` preset: gain
``2^r - 1``, a stable sort by score (``ties=input``), queries without a
relevant doc scored 1.
"""

from __future__ import annotations

import warnings as python_warnings
from typing import Mapping

import numpy as np

from ...errors import InputError, RankproofWarning
from ...engines.options import EvaluationOptions
from ...evaluation import evaluate_alignment, resolve_measures, resolve_protocol, weights_wanted
from ...pipeline.aligned import AlignmentLike
from ...pipeline.dense import DenseAlignment, dense_applies
from ...pipeline.scores import check_num_relevant, score_alignment
from ...protocol import Protocol
from ...errors import literal
from ...results import Results, guard_coverage
from ._input import as_array, read_scores
from ._tied import tied_rows_warning
from ...typing import MeasuresLike, ProtocolLike

__all__ = ["evaluate_scores", "DenseAlignment"]  # DenseAlignment lived here (now pipeline/dense)


def evaluate_scores(
    y_true,
    y_score,
    measures: MeasuresLike,
    protocol: ProtocolLike = None,
    *,
    weights=None,
    offsets=None,
    queries=None,
    num_relevant=None,
    ties_range: bool = False,
) -> Results:
    """Evaluate score matrices under an explicit protocol.

    Parameters
    ----------
    y_true : array-like (rows, columns), list of 1-D arrays, or flat 1-D with ``offsets``
        Relevance grade of every candidate (integers, or real numbers as
        scikit-learn allows; NaN only where the score is masked).
    y_score : array-like, same form as ``y_true``
        Scores; higher ranks first. In a dense matrix, NaN marks an entry that
        is not a candidate of its row (counted as ``masked_entries``).
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "ap@10", "rr"]``.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        ``"sklearn"`` and ``"lightgbm"`` reproduce those libraries.
    weights : array-like (rows,) or mapping query -> weight, optional
        Row weights, with ``aggregation=weighted`` (scikit-learn's ``sample_weight``).
    offsets : 1-D int array, optional
        Row boundaries of flat ``y_true`` / ``y_score``: ``[0, end of row 0, ..., n]``.
    queries : sequence, optional
        Row names, e.g. user ids; results give them back as given (integers
        stay integers), in row order. Default: the row index ``0, 1, ...``.
    num_relevant : array-like of int (rows,), optional
        The number of relevant items of each row in the whole catalogue,
        candidates included. Without it, a row's candidates are its whole
        pool: right when the matrix covers the catalogue, but when it holds
        only some candidates per user (a retrieval stage's top N), recall's
        denominator R and the ideal DCG count only the relevant candidates
        (and the summary says so). With it, the ``num_relevant - relevant
        candidates`` items outside the matrix join the pool at grade
        ``protocol.rel`` (for graded relevance a lower bound on their gain),
        counted as ``relevant_outside_candidates``; the values then equal
        :func:`rankproof.evaluate_frame` on the same users and items.
    ties_range : bool, default False
        Also each measure's min and max over the orders of tied candidates
        (:meth:`Results.tie_range`, as :func:`rankproof.evaluate` gives them).

    Returns
    -------
    Results
        Per-row values, means, counts (``masked_entries``, ``tied_groups``, ...)
        and the protocol, with the note that each row's candidates are its pool.

    Examples
    --------
    Row 0 ranks grades 2, 0, 1 (scores 0.9, 0.8, 0.1); DCG@2 = 2 and the ideal
    2 + 1/log2(3) = 2.6309, so NDCG@2 = 0.7602. Row 1 ties its two candidates:
    the expectation over both orders is (1 + 1/log2(3)) / 2 / 1 = 0.8155.

    >>> from rankproof import evaluate_scores
    >>> results = evaluate_scores([[2, 0, 1], [0, 1, 0]],
    ...                           [[0.9, 0.8, 0.1], [0.5, 0.5, float("nan")]], "ndcg@2")
    >>> {q: round(v, 4) for q, v in results.per_query("ndcg@2").items()}
    {0: 0.7602, 1: 0.8155}
    >>> results.counts["masked_entries"], results.counts["tied_groups"]
    (1, 1)

    LightGBM scores a row without relevant candidates 1 and takes tied
    candidates in their input order:

    >>> evaluate_scores([[0, 0], [0, 1]], [[1, 2], [3, 3]], "ndcg@1", "lightgbm").per_query("ndcg@1")
    {0: 1.0, 1: 0.0}

    Candidates from a retrieval stage: the user liked 4 items, 1 of which is
    among the 3 candidates and ranked first. Recall@3 is 1/4, not 1/1:

    >>> evaluate_scores([[1, 0, 0]], [[0.9, 0.5, 0.1]], "r@3", num_relevant=[4]).mean("r@3")
    0.25
    """
    options = EvaluationOptions(weights=weights, ties_range=ties_range)
    protocol = resolve_protocol(protocol)
    measure_list = resolve_measures(measures, protocol)
    scores = read_scores(y_true, y_score, offsets, queries, protocol)
    # Rows keep the caller's names and their dtype (the row index by default),
    # in row order, so per-query values line up with the matrix rows.
    ids = np.arange(scores.num_rows) if queries is None else np.asarray(list(queries))
    weight_array = _row_weights(weights, scores.queries, ids, protocol)
    alignment: AlignmentLike
    if num_relevant is not None:
        # The pool reaches beyond the matrix: the general alignment holds it.
        alignment = score_alignment(scores, protocol, check_num_relevant(num_relevant, scores))
    elif dense_applies(scores, protocol) and not ties_range:
        # The dense engine takes ndcg / dcg / ideal_dcg; any other measure goes to the next
        # engine, which reads the general alignment the dense one builds on first use. The
        # range over tied orders reorders flat arrays: it takes the general alignment at once.
        alignment = DenseAlignment(scores, protocol)
    else:
        alignment = score_alignment(scores, protocol)
    tied = tied_rows_warning(scores, protocol)
    for line in tied:
        python_warnings.warn(line, RankproofWarning, stacklevel=2)
    results = evaluate_alignment(alignment, measure_list, protocol, weights=weight_array,
                                 run_name="y_score",
                                 options=options.replace(query_ids=ids), warnings=tied)
    # Every row is both judged and ranked, so a score matrix always passes; the guard is the one
    # every front door calls (the scikit-learn scorer and the streaming evaluator come through
    # here).
    guard_coverage(results, source="y_score against y_true")
    return results


def _row_weights(weights, queries: np.ndarray, ids: np.ndarray,
                 protocol: Protocol) -> np.ndarray | None:
    if not weights_wanted(weights, protocol,
                          "pass weights=[one per row] (scikit-learn's sample_weight) "
                                              "or weights={query: weight}"):
        return None
    if isinstance(weights, Mapping):
        # Keyed by the row's id as given (0, 1, ... by default) or by its text.
        keys = [i if i in weights else q for i, q in zip(ids.tolist(), queries.tolist())]
        missing = [str(k) for k in keys if k not in weights]
        if missing:
            raise InputError(what=f"no weight for rows {literal(', '.join(missing[:3]))}",
                             fix="give every row a weight", value=missing)
        array = np.array([float(weights[k]) for k in keys])
    else:
        array = as_array(weights, "weights").astype(np.float64).ravel()
        if len(array) != len(queries):
            raise InputError(what=f"weights has {len(array)} values for {len(queries)} rows",
                             fix="give one per row")
    bad = np.flatnonzero(~np.isfinite(array) | (array < 0))
    if len(bad):
        raise InputError(what=f"row {bad[0]} ({{query}} {literal(queries[bad[0]])}) has weight {array[bad[0]]}",
                         source="weights", fix="weights must be finite and non-negative",
                         value=array[bad[0]])
    if array.sum() == 0:
        raise InputError(what="weights are all zero", fix="give at least one row a positive weight")
    return array
