"""The pandas baseline of frame_bench.py: ndcg@10, recall@10 and ap@10 of a long log.

Written the way a careful pandas user would: sort, rank with cumcount, merge
with the truth, and aggregate with groupby sums (no Python function per
user, which would be far slower). Definitions as rankproof's defaults:
linear gain (the rating), log2 discount, ideal from every truth row of the
user, relevant = rating >= 1, recall over R, AP@k over R. Scores have no ties.

Two variants, both kept here:

* ``vectorised`` (the default): groupby aggregations only, as above;
* ``apply``: the textbook version, ``groupby("user").apply`` of a function
  that scores one user's rows, which is what most tutorials show.

Usage: python pandas_groupby.py TRUTH.parquet PREDICTIONS.parquet OUT.parquet [vectorised|apply]
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

K = 10


def evaluate(truth: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    ranked = predictions.sort_values(["user", "score"], ascending=[True, False])
    ranked["rank"] = ranked.groupby("user").cumcount() + 1
    top = ranked[ranked["rank"] <= K].merge(truth, on=["user", "item"], how="left")
    top["rating"] = top["rating"].fillna(0)
    top["relevant"] = (top["rating"] >= 1).astype(float)
    top["dcg"] = top["rating"] / np.log2(top["rank"] + 1)
    top["hits_so_far"] = top.groupby("user")["relevant"].cumsum()
    top["precision_at_hit"] = top["relevant"] * top["hits_so_far"] / top["rank"]
    per_user = top.groupby("user").agg(dcg=("dcg", "sum"), hits=("relevant", "sum"),
                                       precision_sum=("precision_at_hit", "sum"))

    ideal = truth.sort_values(["user", "rating"], ascending=[True, False])
    ideal["rank"] = ideal.groupby("user").cumcount() + 1
    ideal = ideal[ideal["rank"] <= K]
    ideal_dcg = (ideal["rating"] / np.log2(ideal["rank"] + 1)).groupby(ideal["user"]).sum()
    num_relevant = (truth["rating"] >= 1).groupby(truth["user"]).sum()

    out = pd.DataFrame({"ideal_dcg": ideal_dcg, "R": num_relevant}).join(per_user, how="left").fillna(0.0)
    result = pd.DataFrame(index=out.index)
    result["ndcg@10"] = np.where(out["ideal_dcg"] > 0, out["dcg"] / out["ideal_dcg"].where(out["ideal_dcg"] > 0, 1), 0.0)
    result["r@10"] = np.where(out["R"] > 0, out["hits"] / out["R"].where(out["R"] > 0, 1), 0.0)
    result["ap@10"] = np.where(out["R"] > 0, out["precision_sum"] / out["R"].where(out["R"] > 0, 1), 0.0)
    return result.reset_index()


def _one_user(rows: pd.DataFrame) -> pd.Series:
    """Every measure of one user, from its merged rows (rating NaN: not in the truth)."""
    recommended = rows[rows["score"].notna()].sort_values("score", ascending=False).head(K)
    ratings = recommended["rating"].fillna(0).to_numpy()
    discount = 1 / np.log2(np.arange(2, len(ratings) + 2))
    truth_ratings = np.sort(rows["rating"].dropna().to_numpy())[::-1][:K]
    ideal = float((truth_ratings / np.log2(np.arange(2, len(truth_ratings) + 2))).sum())
    relevant = ratings >= 1
    R = int((rows["rating"] >= 1).sum())
    precision_sum = float((relevant * np.cumsum(relevant) / np.arange(1, len(relevant) + 1)).sum())
    return pd.Series({
        "ndcg@10": float((ratings * discount).sum()) / ideal if ideal > 0 else 0.0,
        "r@10": relevant.sum() / R if R else 0.0,
        "ap@10": precision_sum / R if R else 0.0,
    })


def evaluate_apply(truth: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    merged = predictions.merge(truth, on=["user", "item"], how="outer")
    return merged.groupby("user")[["score", "rating"]].apply(_one_user).reset_index()


def main(truth_path: str, predictions_path: str, out_path: str, variant: str = "vectorised") -> None:
    truth = pd.read_parquet(truth_path, columns=["user", "item", "rating"])
    predictions = pd.read_parquet(predictions_path, columns=["user", "item", "score"])
    result = (evaluate_apply if variant == "apply" else evaluate)(truth, predictions)
    result["user"] = result["user"].astype(str)
    result.to_parquet(out_path, index=False)


if __name__ == "__main__":
    main(*sys.argv[1:5])
