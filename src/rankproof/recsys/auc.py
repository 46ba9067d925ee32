"""Area under the ROC curve of each user's scored items, and its user-weighted
mean GAUC, as click-through-rate models are judged in industry.

The negatives are a policy, stated here: a user's negatives are the items of
that user's scored list that are not relevant (the impressions without a click
in a CTR log), not the unscored rest of the catalogue. Ties between a positive
and a negative count one half (the Mann-Whitney statistic; scikit-learn's
``roc_auc_score`` does the same).

- :func:`user_auc`: one AUC per user (:class:`~rankproof.recsys.beyond.ListValues`);
- :func:`gauc`: their mean weighted by ``weights`` (``impressions``: the
  user's scored items, as in Zhou et al. 2018; ``clicks``: the user's
  positives; ``uniform``), over the users whose AUC is defined;
- :func:`pooled_auc`: one AUC over every (user, item) row pooled, which
  compares scores across users (the "global AUC" of CTR papers).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import numpy as np

from .beyond import ListValues
from .catalogue_value import CatalogueResult
from .coverage import as_run
from .ranked import item_sets
from .side_params import choice, one_of

__all__ = ["AUCValue", "gauc", "pooled_auc", "user_auc"]

Weights = Literal["impressions", "clicks", "uniform"]
_WEIGHTS = ("impressions", "clicks", "uniform")


@dataclasses.dataclass(frozen=True)
class AUCValue(CatalogueResult):
    """A catalogue-level AUC value (its ``measure`` e.g. ``gauc(weights=impressions)``).

    Attributes
    ----------
    value : float
        ``nan`` when no user (or no row) has both a positive and a negative.
    users : int
        Users whose AUC entered the value (all users with a row, for pooled AUC).
    positives, negatives : int
        Rows that are relevant / not relevant among those users.
    """

    DETAIL = ("users", "positives", "negatives")

    users: int
    positives: int
    negatives: int


def _labels(predictions, relevant, columns: dict):
    """The run and a 0/1 label per row (1 where the user's item is relevant)."""
    run = as_run(predictions, columns["user"], columns["item"], columns["score"])
    positive = item_sets(relevant, "relevant")
    labels = np.zeros(len(run.doc_codes), dtype=bool)
    items = run.docs[run.doc_codes]
    for q, user in enumerate(run.queries.tolist()):
        wanted = positive.get(str(user))
        if wanted:
            lo, hi = int(run.offsets[q]), int(run.offsets[q + 1])
            labels[lo:hi] = [item in wanted for item in items[lo:hi].tolist()]
    return run, labels


def _mann_whitney(scores: np.ndarray, labels: np.ndarray) -> float:
    pos = int(labels.sum())
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return float("nan")
    # scipy.stats is imported here, not at the top: `rankproof evaluate` imports this package
    # to tell side-data measures from accuracy ones, and scipy.stats costs it ~0.4 s.
    from scipy.stats import rankdata

    ranks = rankdata(scores)   # average ranks: a tie counts one half
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


def user_auc(predictions, relevant, *, user="user", item="item", score="score") -> ListValues:
    """AUC of each user's scored items: the share of (positive, negative) pairs ranked right.

    .. math:: \\mathrm{AUC}(u) = \\frac{1}{|P_u||N_u|} \\sum_{i \\in P_u} \\sum_{j \\in N_u}
              \\left([s_{ui} > s_{uj}] + \\tfrac12 [s_{ui} = s_{uj}]\\right)

    P_u are the user's scored items that are relevant, N_u the user's other
    scored items (the module's negatives policy). Undefined (nan) for a user
    with no positive or no negative. Reference: Hanley and McNeil, "The
    meaning and use of the area under a ROC curve", Radiology 1982; per user as
    in Rendle et al., "BPR", UAI 2009.

    Examples
    --------
    u: a (0.9, relevant), b (0.5), c (0.5, relevant), d (0.1). Pairs a>b, a>d,
    c=b (one half), c>d: 3.5 / 4.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}, "v": {"x": 1.0}})
    >>> values = user_auc(run, {"u": ["a", "c"], "v": ["x"]})
    >>> values.per_query(), values.undefined   # v has no negative
    ({'u': 0.875}, 1)
    """
    run, labels = _labels(predictions, relevant, dict(user=user, item=item, score=score))
    return ListValues("auc", run.queries, _per_user_columns(run, labels)["auc"],
                      np.diff(run.offsets).astype(np.int64))


def gauc(predictions, relevant, *, weights: Weights = "impressions", user="user", item="item",
         score="score") -> AUCValue:
    """Group AUC: the users' AUCs averaged with user weights.

    .. math:: \\mathrm{GAUC} = \\frac{\\sum_u w_u \\, \\mathrm{AUC}(u)}{\\sum_u w_u}

    over the users whose AUC is defined (see :func:`user_auc`), with w_u the
    user's scored items (``impressions``, Zhou et al., "Deep Interest Network
    for click-through rate prediction", KDD 2018), the user's positives
    (``clicks``) or 1 (``uniform``, the plain mean of per-user AUC).

    Examples
    --------
    u (4 items, AUC 0.875) and w (2 items, AUC 0): (4 x 0.875 + 2 x 0) / 6.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}, "w": {"y": 0.2, "z": 0.8}})
    >>> rel = {"u": ["a", "c"], "w": ["y"]}
    >>> round(gauc(run, rel).value, 6), gauc(run, rel, weights="uniform").value
    (0.583333, 0.4375)
    """
    one_of("weights of gauc", weights, _WEIGHTS)
    run, labels = _labels(predictions, relevant, dict(user=user, item=item, score=score))
    return _gauc_value(_per_user_columns(run, labels), weights)


def _per_user_columns(run, labels: np.ndarray) -> dict[str, np.ndarray]:
    """Each user's AUC, scored items (impressions) and relevant ones among them (clicks), in run.queries order:
    what GAUC is made of, user by user (so a part of the users gives its users' numbers)."""
    values = np.full(run.num_queries, np.nan)
    for q in range(run.num_queries):
        lo, hi = int(run.offsets[q]), int(run.offsets[q + 1])
        values[q] = _mann_whitney(run.scores[lo:hi], labels[lo:hi])
    query = np.repeat(np.arange(run.num_queries), np.diff(run.offsets))
    clicks = np.bincount(query, weights=labels.astype(np.float64), minlength=run.num_queries)
    return {"auc": values, "impressions": np.diff(run.offsets).astype(np.float64), "clicks": clicks}


def _gauc_value(columns: dict[str, np.ndarray], weights: str) -> AUCValue:
    """GAUC from the users' columns (:func:`_per_user_columns`), summed in user order."""
    per_user, impressions, clicks = columns["auc"], columns["impressions"], columns["clicks"]
    w = {"impressions": impressions, "clicks": clicks, "uniform": np.ones(len(per_user))}[weights]
    defined = ~np.isnan(per_user)
    total = float(w[defined].sum())
    value = float((w[defined] * per_user[defined]).sum() / total) if total > 0 else float("nan")
    pos = int(clicks[defined].sum())
    return AUCValue(f"gauc(weights={weights})", value, int(defined.sum()), pos,
                    int(impressions[defined].sum()) - pos)


def pooled_auc(predictions, relevant, *, user="user", item="item", score="score") -> AUCValue:
    """AUC over all (user, item) rows pooled: scores are compared across users.

    .. math:: \\mathrm{AUC} = \\frac{1}{|P||N|} \\sum_{(u,i) \\in P} \\sum_{(v,j) \\in N}
              \\left([s_{ui} > s_{vj}] + \\tfrac12 [s_{ui} = s_{vj}]\\right)

    Examples
    --------
    Positives 0.9, 0.5, 0.2 against negatives 0.5, 0.1, 0.8: 0.9 wins 3,
    0.5 wins 1 and ties 1 (1.5), 0.2 wins 1: 5.5 of 9 pairs.

    >>> from rankproof import Run
    >>> run = Run.from_dict({"u": {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.1}, "w": {"y": 0.2, "z": 0.8}})
    >>> round(pooled_auc(run, {"u": ["a", "c"], "w": ["y"]}).value, 6)
    0.611111
    """
    run, labels = _labels(predictions, relevant, dict(user=user, item=item, score=score))
    value = _mann_whitney(run.scores, labels)
    pos = int(labels.sum())
    return AUCValue("pooled_auc", value, run.num_queries, pos, len(labels) - pos)


# -- the registry (rankproof evaluate -m auc -m gauc -m pooled_auc): judgments from the qrels ------
# The negatives on the command line are the module's policy: a user's scored items (the run's rows)
# that the qrels do not judge relevant (grade >= the protocol's rel). Items the run does not score
# are no negatives: a run of top-k lists gives AUC within those lists; for AUC over impressions or
# the catalogue, give the run the score of every candidate.


def _registered_auc(run, k, side, params: dict, protocol):
    return user_auc(run, side.relevant(protocol.rel))


def _judged_labels(run, side, protocol):
    """The run and its rows' labels from the evaluation's judgments (grade >= the protocol's rel)."""
    return _labels(run, side.relevant(protocol.rel), dict(user="user", item="item", score="score"))


def _gauc_part(run, k, side, params: dict, protocol) -> dict[str, np.ndarray]:
    return _per_user_columns(*_judged_labels(run, side, protocol))


def _gauc_whole(users, columns: dict, items, k, side, params: dict, protocol):
    return _gauc_value(columns, params["weights"]).catalogue_value()


def _registered_pooled(run, k, side, params: dict, protocol):
    return pooled_auc(run, side.relevant(protocol.rel)).catalogue_value()


def _pooled_labels(run, k, side, params: dict, protocol) -> np.ndarray:
    return _judged_labels(run, side, protocol)[1]


def _pooled_whole(twice_u: int, positives: int, negatives: int, users: int, params: dict):
    """Pooled AUC from twice its U statistic: U / (P N), the one rounding of the same exact ratio that
    :func:`pooled_auc` takes from average ranks (their sums are exact in float64 below 2^53)."""
    value = twice_u / (2 * positives * negatives) if positives and negatives else float("nan")
    return AUCValue("pooled_auc", value, users, positives, negatives).catalogue_value()


def _register() -> None:
    from .registry import CATALOGUE, LIST, PerUser, PooledPairs, SideParam, SideSpec, register_side

    among = ("over each user's scored items: the run's items judged relevant (grade >= rel) against the user's "
             "other scored items; a tie counts 1/2")
    common: dict[str, Any] = dict(cutoff=False, needs_cutoff=False, judgments=True,
                                  reads="the judgments (QRELS) and the run's scores")
    per_user = PerUser(_gauc_part, _gauc_whole)
    register_side(
        SideSpec("auc", "AUC", f"area under the ROC curve per user, {among}", LIST, (),
                 _registered_auc, **common),
        SideSpec("gauc", "GAUC",
                 f"group AUC: the users' AUCs weighted by impressions, clicks or 1, {among}",
                 CATALOGUE, (), per_user.compute,
                 (SideParam("weights", choice(*_WEIGHTS), "impressions",
                            "weights=impressions, clicks or uniform"),),
                 per_user=per_user, **common),
        SideSpec("pooled_auc", "Pooled AUC",
                 "one AUC over every (user, item) row pooled: scores compared across "
                 "users", CATALOGUE, (), _registered_pooled,
                 pairs=PooledPairs(_pooled_labels, _pooled_whole),
                 **common))


_register()
