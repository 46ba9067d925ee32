"""Catalogue-level side-data measures (coverage, Gini, entropy, ...) of a recommendation log on Spark.

A catalogue measure is one value for the whole run (kind ``catalogue`` in
:data:`rankproof.recsys.registry.SIDE_REGISTRY`; the list is read from the
registry when the measures are asked for, so a measure registered later needs
no change here). Its value is taken on the driver by the measure's own local
function, from what Spark gathers in one pass over the rows, partitioned by user:

- **the items' top-k slot counts** (:class:`~rankproof.recsys.slots.SlotCounts`),
  for a measure that reads nothing else (coverage, Gini, entropy): each
  partition counts its users' top-k slots with the local
  :func:`~rankproof.recsys.concentration.item_counts`, Spark adds the counts
  per item as 64-bit integers, and the driver hands the sorted counts to the
  measure in place of the run. The counts are the local engine's exactly,
  so the value is too, to the last bit, whatever the partitioning;
- **the top-k rows of every list**, for a measure that reads more (a user's
  list, the ranks: PopRSP, an exposure-weighted Gini): each partition keeps
  its users' top rows with the local :func:`~rankproof.pipeline.cuts.top_rows`,
  and the driver evaluates the measure on a run of those rows. This holds
  k rows per user in the driver's memory.

- **per-user numbers**, for a measure without a cutoff that says how it is
  put together from them (its spec's :class:`~rankproof.recsys.registry.PerUser`:
  GAUC, percentile rank): each partition gives its users' numbers with the
  measure's own ``part``, and the driver puts every user's together, in the
  order of a Run's users, with its ``whole`` (and the run's distinct items,
  when it reads them). The local engine computes ``whole(part(run))``: the
  same sums in the same order, so the same value;
- **counts per distinct score**, for a measure over every (positive,
  negative) pair of rows across users (its spec's
  :class:`~rankproof.recsys.registry.PooledPairs`: pooled AUC): each
  partition labels its users' rows with the measure's ``labels``, Spark adds
  the positives and negatives per distinct score, then, range-partitioned by
  score, each range gives twice its Mann-Whitney U over its scores and its
  counts; the driver adds the ranges in score order, each shifted by the
  negatives below it. Integers throughout, so the U is exact, and so is the
  one rounding of U / (P N) that the local engine takes too.

Which of them a measure takes is found by asking it on the driver first,
before Spark is (:func:`catalogue_plan`), with a one-item :class:`SlotCounts`:
a measure that reads more raises :class:`~rankproof.recsys.slots.NeedsRows`,
and one that lacks its side data or the judgments is refused there. A measure without a cutoff that says
neither how it is made of per-user numbers nor of pairs reads every row of every list, and is refused. A rankproof error in a partition (a
tie across rank k under ``ties=error``) is raised again in the driver with its fields.

Each partition puts its rows back in input order (the :data:`INPUT_ROW`
column :mod:`rankproof.spark.side` adds) before the local code sees them, so rows
tied on score inside a top k keep the order they have on this machine.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from .. import errors
from ..errors import InputError, MeasureError, RankproofError
from ..protocol import Protocol
from ..recsys.registry import CATALOGUE, PerUser, PooledPairs, SideMeasure
from ..recsys.side import SideData
from ..recsys.slots import NeedsRows, SlotCounts
from ..results.side import SideValue

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

__all__ = ["INPUT_ROW", "is_catalogue", "check_catalogue", "CataloguePlan", "catalogue_plan",
           "catalogue_values",
           "per_user_columns"]

# Each row's place in the input, carried across the shuffle (rankproof.spark.side adds it).
INPUT_ROW = "row"
_COUNTS_SCHEMA = "k long, item string, count long, error string"
_ROWS_SCHEMA = "user string, item string, score double, error string"


def is_catalogue(measure: SideMeasure) -> bool:
    """Whether the registry says the measure is one value for the whole run."""
    return measure.spec.kind == CATALOGUE


def _user_parts(measure: SideMeasure) -> "PerUser | None":
    """The per-user parts Spark takes the measure from: those of a measure without a cutoff that has them."""
    return measure.spec.per_user if measure.cutoff is None else None


def _pooled_pairs(measure: SideMeasure) -> "PooledPairs | None":
    """The pairs across users Spark takes the measure from: those of a measure without a cutoff and without
    per-user parts that has them."""
    return measure.spec.pairs if measure.cutoff is None and measure.spec.per_user is None else None


def check_catalogue(measures: Sequence[SideMeasure]) -> None:
    """Refuse, before Spark starts, a catalogue measure Spark cannot gather for: one without a cutoff that
    is made neither of per-user numbers nor of pairs."""
    for measure in measures:
        if (is_catalogue(measure) and measure.cutoff is None and _user_parts(measure) is None
                and _pooled_pairs(measure) is None):
            raise MeasureError(what=f"{measure} reads every row of every list (it takes no cutoff k), which "
                                    "--engine spark does not gather to the driver",
                               fix="evaluate it on this machine", value=str(measure))


def _side_value(measure: SideMeasure, run: Any, side: SideData, protocol: Protocol) -> SideValue:
    """The local engine's value (rankproof.recsys.side_eval.side_values) of one measure on a run or its slots."""
    from ..recsys.side_eval import side_values

    return side_values(run, [measure], side, protocol)[0]


def _reads_counts_only(measure: SideMeasure, side: SideData, protocol: Protocol) -> bool:
    """Asked on a one-item SlotCounts: False if the measure reads more than the slot counts. A measure
    refused whatever the rows (side data or judgments lacking: MeasureError) is refused here, before Spark."""
    probe = SlotCounts(int(measure.cutoff or 1), protocol, np.array(["?"]),
                       np.array([1], dtype=np.int64))
    try:
        _side_value(measure, probe, side, protocol)
    except NeedsRows:
        return False
    except MeasureError:   # refused whatever the rows
        raise
    except InputError:  # a refusal of the probe's own data: the real counts will say what is wrong
        pass
    return True


@dataclasses.dataclass(frozen=True)
class CataloguePlan:
    """What Spark gathers for the catalogue measures: the slot counts for `counted`, the top-k rows for `rowed`,
    per-user numbers for `by_user`, counts per distinct score for `by_pairs`."""

    counted: tuple[SideMeasure, ...] = ()
    rowed: tuple[SideMeasure, ...] = ()
    by_user: tuple[tuple[SideMeasure, PerUser], ...] = ()
    by_pairs: tuple[tuple[SideMeasure, PooledPairs], ...] = ()


def catalogue_plan(measures: Sequence[SideMeasure], side: SideData,
                   protocol: Protocol) -> CataloguePlan:
    """Each catalogue measure asked on the driver (see the module's docstring), before Spark is: what it reads."""
    from ..data.run import Run
    from ..recsys.side_eval import side_values

    check_catalogue(measures)
    by_user = tuple((m, parts) for m in measures if (parts := _user_parts(m)) is not None)
    by_pairs = tuple((m, pairs) for m in measures if (pairs := _pooled_pairs(m)) is not None)
    taken = {m for m, _ in by_user} | {m for m, _ in by_pairs}
    # lacking side data or judgments: refused here
    side_values(Run.from_dict({}), list(taken), side, protocol)
    rest = [m for m in measures if m not in taken]
    counted = tuple(m for m in rest if _reads_counts_only(m, side, protocol))
    return CataloguePlan(counted, tuple(m for m in rest if m not in counted), by_user, by_pairs)


def _raise_first(errors_seen: Iterator[Any]) -> None:
    """Raise again, in the driver, the first rankproof error a partition sent (as rankproof.spark.partition's
    ``error_summary`` words it): its type and fields."""
    for text in errors_seen:
        if not isinstance(text, str):   # no error: null, NaN once in pandas
            continue
        summary = json.loads(text)
        kind = getattr(errors, summary["type"], None)
        if not (isinstance(kind, type) and issubclass(kind, RankproofError)):
            kind = RankproofError
        fields = summary.get("fields")
        if fields:   # a row number would be the partition's, not the input's
            raise kind(**{**fields, "row": None})
        raise kind(summary["message"])


def _on_partitions(frame: "DataFrame", count: int, work: Callable[[Any], Any],
                   schema: str) -> "DataFrame":
    """`work(run)` on each partition's users (rows repartitioned by user) -> a pandas frame of `schema`;
    a rankproof error goes to the driver as a row (every other column null)."""
    names = [part.split()[0] for part in schema.split(",")]

    def per_partition(batches):
        import pandas as pd

        from ..data.run import Run
        from .partition import error_summary

        frames = [batch for batch in batches if len(batch)]
        if not frames:
            return
        try:
            rows = pd.concat(frames, ignore_index=True)
            if INPUT_ROW in rows:   # the input order, kept within tied scores
                rows = rows.sort_values(INPUT_ROW, kind="stable")
            yield work(Run.from_table(rows, query="user", doc="item", score="score",
                                      source="spark partition"))
        except RankproofError as error:
            yield pd.DataFrame({**{name: [None] for name in names},
                                "error": [json.dumps(error_summary(error))]})

    return frame.repartition(count, "user").mapInPandas(per_partition, schema)


def _slot_counts(frame: "DataFrame", count: int, cutoffs: list[int],
                 protocol: Protocol) -> dict[int, SlotCounts]:
    """Each cutoff's slot counts over the whole run: counted per partition, added per item in Spark (int64)."""
    from pyspark.sql import functions as F

    def work(run):
        import pandas as pd

        from ..recsys.concentration import item_counts

        parts = [(k, *item_counts(run, k, protocol)) for k in cutoffs]
        # One frame from whole arrays: pandas' concat of string columns would give Arrow chunks
        # Spark refuses.
        return pd.DataFrame({"k": np.concatenate([np.full(len(ids), k, dtype=np.int64)
                                                  for k, ids, _ in parts]),
                             "item": np.concatenate([ids for _, ids, _ in parts]),
                             "count": np.concatenate([counts for _, _, counts in parts]),
                             "error": None})

    added = (_on_partitions(frame, count, work, _COUNTS_SCHEMA).groupBy("k", "item", "error")
             .agg(F.sum("count").alias("count")).toPandas())
    _raise_first(iter(added["error"].tolist()))
    out = {}
    for k in cutoffs:
        mine = added[added["k"] == k]
        ids = mine["item"].to_numpy().astype(str)
        # sorted as a Run's vocabulary, as item_counts gives them
        order = np.argsort(ids, kind="stable")
        out[k] = SlotCounts(k, protocol, ids[order], mine["count"].to_numpy(dtype=np.int64)[order])
    return out


def _top_rows(frame: "DataFrame", count: int, k: int, protocol: Protocol):
    """A run of the top-k rows of every list (k the largest cutoff asked for), gathered to the driver."""
    from ..data.run import Run

    def work(run):
        import pandas as pd

        from ..pipeline.cuts import top_rows

        rows = top_rows(run, k, protocol)
        query = np.searchsorted(run.offsets, rows, side="right") - 1
        return pd.DataFrame({"user": run.queries[query], "item": run.docs[run.doc_codes[rows]],
                             "score": run.scores[rows], "error": None})

    gathered = _on_partitions(frame, count, work, _ROWS_SCHEMA).toPandas()
    _raise_first(iter(gathered["error"].tolist()))
    return Run.from_table(gathered, query="user", doc="item", score="score",
                          source="spark top rows")


def catalogue_values(frame: "DataFrame", plan: CataloguePlan, side: SideData, protocol: Protocol,
                     count: int) -> dict[SideMeasure, SideValue]:
    """Each catalogue measure's value (the plan's) on a DataFrame of (user, item, score) rows (strings, strings,
    doubles), spread over `count` partitions by user; the values are the local engine's (see the module's
    docstring)."""
    counted, rowed = plan.counted, list(plan.rowed)
    slots = (_slot_counts(frame, count, sorted({int(m.cutoff or 0) for m in counted}), protocol)
             if counted else {})
    values: dict[SideMeasure, SideValue] = {}
    for measure in counted:
        try:
            values[measure] = _side_value(measure, slots[int(measure.cutoff or 0)], side, protocol)
        except NeedsRows:   # it read more than the probe showed: give it the rows too
            rowed.append(measure)
    if rowed:
        run = _top_rows(frame, count, max(int(m.cutoff or 0) for m in rowed), protocol)
        for measure in rowed:
            values[measure] = _side_value(measure, run, side, protocol)
    for measure, parts in plan.by_user:
        values[measure] = _from_users(frame, count, measure, parts, side, protocol)
    for measure, pairs in plan.by_pairs:
        values[measure] = _from_pairs(frame, count, measure, pairs, side, protocol)
    return values


def per_user_columns(frame: "DataFrame", count: int,
                     columns_of: Callable[[Any], Sequence[np.ndarray]],
                     width: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """`columns_of(run)` on each partition's users: `width` columns of one number per user of the run (in
    ``run.queries`` order), gathered to the driver and sorted by user as a Run's users are. A rankproof error
    in a partition is raised again in the driver with its fields."""
    schema = "user string, " + "".join(f"c{i} double, " for i in range(width)) + "error string"

    def work(run):
        import pandas as pd

        columns = columns_of(run)
        return pd.DataFrame({"user": run.queries.astype(str),
                             **{f"c{i}": np.asarray(column, dtype=np.float64)
                                for i, column in enumerate(columns)},
                             "error": None})

    gathered = _on_partitions(frame, count, work, schema).toPandas()
    _raise_first(iter(gathered["error"].tolist()))
    users = gathered["user"].to_numpy().astype(str)
    order = np.argsort(users, kind="stable")
    return users[order], [gathered[f"c{i}"].to_numpy(dtype=np.float64)[order] for i in range(width)]


def _from_users(frame: "DataFrame", count: int, measure: SideMeasure, parts: PerUser,
                side: SideData,
                protocol: Protocol) -> SideValue:
    """A measure of per-user parts (:class:`~rankproof.recsys.registry.PerUser`): each partition's users'
    numbers by its ``part``, put together on the driver in a Run's user order by its ``whole``."""
    from ..data.run import Run
    from ..recsys.side_eval import catalogue_side_value

    params = measure.settings()
    # its columns, asked on no rows
    names = list(parts.part(Run.from_dict({}), None, side, params, protocol))

    def columns_of(run) -> list[np.ndarray]:
        numbers = parts.part(run, None, side, params, protocol)
        return [numbers[name] for name in names]

    users, columns = per_user_columns(frame, count, columns_of, len(names))
    items = None
    if parts.items:
        items = np.unique(frame.select("item").distinct().toPandas()["item"].to_numpy().astype(str))
    return catalogue_side_value(measure, parts.whole(users, dict(zip(names, columns)), items, None,
                                                     side, params,
                                                     protocol))


_SCORES_SCHEMA = "score double, pos long, neg long, error string"
_RANGES_SCHEMA = "low double, pos long, neg long, twice long"


def _from_pairs(frame: "DataFrame", count: int, measure: SideMeasure, pairs: PooledPairs,
                side: SideData,
                protocol: Protocol) -> SideValue:
    """A measure over every (positive, negative) pair across users
    (:class:`~rankproof.recsys.registry.PooledPairs`), from counts per distinct score (see the module's
    docstring)."""
    from pyspark.sql import functions as F

    from ..recsys.side_eval import catalogue_side_value

    params = measure.settings()

    def work(run):
        import pandas as pd

        labels = np.asarray(pairs.labels(run, None, side, params, protocol), dtype=bool)
        rows = pd.DataFrame({"score": run.scores.astype(np.float64), "pos": labels.astype(np.int64),
                             "neg": (~labels).astype(np.int64)})
        counted = rows.groupby("score", sort=False, as_index=False).sum()
        return counted.assign(error=None)

    scores = (_on_partitions(frame, count, work, _SCORES_SCHEMA).groupBy("score", "error")
              .agg(F.sum("pos").alias("pos"), F.sum("neg").alias("neg")).cache())
    try:
        _raise_first(iter(r["error"]
                          for r in scores.filter(F.col("error").isNotNull()).limit(1).collect()))
        ranges = (scores.filter(F.col("error").isNull()).drop("error").repartitionByRange(count,
                                                                                          "score")
                  .mapInPandas(_twice_u_of_ranges, _RANGES_SCHEMA).toPandas())
    finally:
        scores.unpersist()
    twice, positives, negatives = _join_ranges(ranges)
    users = frame.select("user").distinct().count()
    return catalogue_side_value(measure, pairs.whole(twice, positives, negatives, users, params))


def _twice_u_of_ranges(batches):
    """One range of distinct scores: its lowest score, positives, negatives and twice its own U (each pair in
    the range a positive scores above counts 2, a tie 1)."""
    import pandas as pd

    frames = [batch for batch in batches if len(batch)]
    if not frames:
        return
    rows = pd.concat(frames, ignore_index=True).sort_values("score", kind="stable")
    pos, neg = rows["pos"].to_numpy(np.int64), rows["neg"].to_numpy(np.int64)
    below = np.cumsum(neg) - neg
    yield pd.DataFrame({"low": [float(rows["score"].iloc[0])], "pos": [int(pos.sum())],
                        "neg": [int(neg.sum())],
                        "twice": [int((pos * (2 * below + neg)).sum())]})


def _join_ranges(ranges) -> tuple[int, int, int]:
    """Twice the U over all rows, the positives and the negatives, from the ranges' own (in Python integers):
    each range's positives also beat every negative of the ranges below it."""
    twice = positives = negatives = 0
    for row in ranges.sort_values("low", kind="stable").itertuples(index=False):
        twice += int(row.twice) + 2 * int(row.pos) * negatives
        positives += int(row.pos)
        negatives += int(row.neg)
    return twice, positives, negatives
