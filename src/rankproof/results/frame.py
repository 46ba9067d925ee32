"""A Results' per-query table as a pandas DataFrame (:meth:`rankproof.Results.to_pandas`).

One row per evaluated query: every measure, the DCG parts of NDCG, and the
per-query flags the evaluation kept. Here rather than in the Results class so
that the class module stays within its size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["per_query_frame"]


def per_query_frame(table: Any, measures: dict, ids: Any, order: "np.ndarray | None"):
    """The DataFrame of :meth:`rankproof.Results.to_pandas`: ``table`` is the results' QueryTable,
    ``measures`` measure -> its values, ``ids`` the query ids shown (None: the table's), ``order``
    the row order of :attr:`rankproof.Results.queries` (None: the table's)."""
    import pandas as pd

    columns: dict[str, Any] = {"query": table.queries.tolist() if ids is None else ids}
    for measure, result in measures.items():
        columns[str(measure)] = result.value
    for measure, result in measures.items():
        if measure.spec.dcg_parts:
            columns[f"{measure}:dcg"] = result.numerator
            columns[f"{measure}:ideal_dcg"] = result.denominator
    columns["in_run"] = table.in_run
    columns["retrieved"] = table.retrieved
    columns["unjudged_retrieved"] = table.unjudged_retrieved
    for measure, result in measures.items():
        if measure.spec.normalised:
            columns[f"zero_ideal:{measure}"] = result.zero_ideal
    frame = pd.DataFrame(columns)
    if order is not None:
        frame = frame.iloc[order].reset_index(drop=True)
    return frame
