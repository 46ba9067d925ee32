"""Side-data measures (novelty, long-tail share, ILD, coverage, Gini, ...) of a recommendation log on Spark.

:func:`side_values` evaluates measures of
:data:`rankproof.recsys.registry.SIDE_REGISTRY` on a Spark DataFrame of
(user, item, score) rows; the rows are partitioned by user.

- A per-list measure (kind ``list``): each partition's users are evaluated
  by the local code (the same function, the same side data, shipped with the
  task), so each user's value is the local engine's. Sums within a list may be
  taken in another row order after the shuffle, so values agree with the local
  ones to the last bits of a float (the tests hold them to 1e-12).
- A catalogue measure (kind ``catalogue``, one value for the whole run):
  :mod:`rankproof.spark.catalogue` gathers the items' top-k slot counts (or,
  for a measure that reads more, the top-k rows; for one without a cutoff,
  its per-user numbers (GAUC, percentile rank) or its counts per distinct
  score (pooled AUC)) and the driver takes the
  value with the local function: equal to the local engine's bit for bit.

The kind of each measure is read from the registry when it is asked for.
Every row carries its place in the input
(:data:`rankproof.spark.catalogue.INPUT_ROW`: Spark's
``monotonically_increasing_id``, the rows' order in a DataFrame and in one
Parquet file), and each partition puts its rows back in that order before
the local code sees them: rows tied on score keep the order they have on
one machine, under ``ties=expected`` (a measure that weighs ranks, such as
exposure, sees tied rows in input order) and ``ties=input`` alike.

Examples
--------
The call (on a session; see tests/spark/test_spark_side.py)::

    values = side_values(frame, ["novelty@10", "ild@10", "gini@10"], side, user="user", item="item", score="score")
    values[0].per_query()   # {user: value}, as rankproof.recsys.side_eval.side_values gives
    values[2].value         # the whole run's Gini, as on this machine
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..protocol import Protocol
from ..results.side import LIST, SideValue
from ..recsys.registry import SideMeasure, parse_side_measure
from ..recsys.side import SideData
from .catalogue import (INPUT_ROW, catalogue_plan, catalogue_values, check_catalogue, is_catalogue,
                        per_user_columns)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["side_values", "check_side_measures"]


def check_side_measures(measures: Sequence[SideMeasure], protocol: Protocol) -> None:
    """Refuse, before Spark starts, what Spark cannot evaluate: a catalogue measure without a cutoff made
    neither of per-user numbers nor of pairs."""
    check_catalogue(measures)


def _checked(measures: Sequence[Any], side: SideData, protocol: Protocol) -> list[SideMeasure]:
    """The measures parsed, with what Spark cannot take refused before it starts."""
    from ..recsys.side_eval import check_side_data

    parsed = [parse_side_measure(m) for m in measures]
    check_side_data(parsed, side)
    check_side_measures(parsed, protocol)
    return parsed


def side_values(frame: "DataFrame", measures: Sequence[Any], side: SideData,
                protocol: "Protocol | None" = None, *,
                user: str = "user", item: str = "item", score: str = "score",
                partitions: "int | None" = None) -> tuple[SideValue, ...]:
    """Each side-data measure on a Spark DataFrame of recommendations, in the order given: a per-list
    measure's users sorted as locally, a catalogue measure's one value as locally."""
    protocol = protocol if protocol is not None else Protocol()
    parsed = _checked(measures, side, protocol)
    lists = [m for m in parsed if not is_catalogue(m)]
    # on the driver, first
    plan = catalogue_plan([m for m in parsed if is_catalogue(m)], side, protocol)
    from pyspark.sql import functions as F

    selected = frame.selectExpr(f"CAST(`{user}` AS STRING) AS user",
                                f"CAST(`{item}` AS STRING) AS item",
                                f"CAST(`{score}` AS DOUBLE) AS score")
    selected = selected.withColumn(INPUT_ROW, F.monotonically_increasing_id())
    count = partitions or selected.sparkSession.sparkContext.defaultParallelism
    values = dict(zip(lists, _list_values(selected, lists, side, protocol, count) if lists else []))
    values.update(catalogue_values(selected, plan, side, protocol, count))
    return tuple(values[m] for m in parsed)


def _list_values(selected: "DataFrame", parsed: list[SideMeasure], side: SideData,
                 protocol: Protocol,
                 count: int) -> list[SideValue]:
    """The per-list measures, each partition's users evaluated by the local code."""
    from ..data.run import Run
    from ..recsys.side_eval import side_values as local_values

    # Each per-list measure on no rows first, on the driver: one lacking its side data or the
    # judgments is refused here in one line, not by a worker's traceback (catalogue ones:
    # catalogue_plan does it).
    local_values(Run.from_dict({}), parsed, side, protocol)

    def columns_of(run) -> list[np.ndarray]:   # each measure's value per user of a partition's run
        return [np.asarray(v.values) for v in local_values(run, parsed, side, protocol)]

    queries, columns = per_user_columns(selected, count, columns_of, len(parsed))
    out = []
    for m, values in zip(parsed, columns):
        defined = values[~np.isnan(values)]
        mean = float(defined.mean()) if defined.size else float("nan")
        out.append(SideValue(str(m), m.spec.display, LIST, mean, queries, values,
                             (("lists", len(values)), ("undefined", int(np.isnan(values).sum()))),
                             m.spec.higher_is_better))
    return out
