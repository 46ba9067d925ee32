"""Per-list side-data measures (novelty, long-tail share, ILD, ...) of a recommendation log on Spark.

:func:`side_values` evaluates the per-list measures of
:data:`rankproof.recsys.registry.SIDE_REGISTRY` on a Spark DataFrame of
(user, item, score) rows: the rows are partitioned by user, and each
partition's users are evaluated by the local code (the same function, the
same side data, shipped with the task), so each user's value is the local
engine's. Sums within a list may be taken in another row order after the
shuffle, so values agree with the local ones to the last bits of a float
(the tests hold them to 1e-12).

A catalogue measure (coverage) is not per list and is refused here; the
``ties=input`` policy is refused too, since the order of rows within a user is
not kept by the shuffle.

Examples
--------
The call (on a session; see tests/spark/test_spark_side.py)::

    values = side_values(frame, ["novelty@10", "ild@10"], side, user="user", item="item", score="score")
    values[0].per_query()   # {user: value}, as rankproof.recsys.side_eval.side_values gives
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..errors import MeasureError
from ..protocol import Protocol
from ..protocol.policies import Ties
from ..results.side import LIST, SideValue
from ..recsys.registry import SideMeasure, parse_side_measure
from ..recsys.side import SideData

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["side_values"]


def _checked(measures: Sequence[Any], protocol: Protocol) -> list[SideMeasure]:
    parsed = [parse_side_measure(m) for m in measures]
    for m in parsed:
        if m.spec.kind != LIST:
            raise MeasureError(what=f"{m} is a catalogue measure (one value for the whole run), not per list",
                               fix="evaluate it on this machine (rankproof.recsys.side_eval)", value=str(m))
    if protocol.ties == Ties.INPUT:
        raise MeasureError(what="ties=input: the order of a user's rows is not kept across Spark's shuffle",
                           fix="set ties=docid or ties=expected")
    return parsed


def side_values(frame: "DataFrame", measures: Sequence[Any], side: SideData, protocol: "Protocol | None" = None, *,
                user: str = "user", item: str = "item", score: str = "score",
                partitions: "int | None" = None) -> tuple[SideValue, ...]:
    """Each per-list side-data measure on a Spark DataFrame of recommendations, users sorted as locally."""
    from ..recsys.side_eval import side_values as local_values

    protocol = protocol if protocol is not None else Protocol()
    parsed = _checked(measures, protocol)
    from ..data.run import Run as _Run

    # Each measure on no rows first, on the driver: one lacking its side data or the judgments is refused
    # here in one line, not by a worker's traceback.
    local_values(_Run.from_dict({}), parsed, side, protocol)
    names = [f"v{i}" for i in range(len(parsed))]
    schema = "user string, " + ", ".join(f"{name} double" for name in names)

    def per_partition(batches):
        import pandas as pd

        from ..data.run import Run

        frames = [batch for batch in batches if len(batch)]
        if not frames:
            return
        rows = pd.concat(frames, ignore_index=True)
        run = Run.from_table(rows, query="user", doc="item", score="score", source="spark partition")
        values = local_values(run, parsed, side, protocol)
        yield pd.DataFrame({"user": run.queries.astype(str), **{n: v.values for n, v in zip(names, values)}})

    selected = frame.selectExpr(f"CAST(`{user}` AS STRING) AS user", f"CAST(`{item}` AS STRING) AS item",
                                f"CAST(`{score}` AS DOUBLE) AS score")
    count = partitions or selected.sparkSession.sparkContext.defaultParallelism
    collected = selected.repartition(count, "user").mapInPandas(per_partition, schema).toPandas()
    order = np.argsort(collected["user"].to_numpy().astype(str), kind="stable")
    queries = collected["user"].to_numpy().astype(str)[order]
    out = []
    for m, name in zip(parsed, names):
        values = collected[name].to_numpy(dtype=np.float64)[order]
        defined = values[~np.isnan(values)]
        mean = float(defined.mean()) if defined.size else float("nan")
        out.append(SideValue(str(m), m.spec.display, LIST, mean, queries, values,
                             (("lists", len(values)), ("undefined", int(np.isnan(values).sum()))),
                             m.spec.higher_is_better))
    return tuple(out)
