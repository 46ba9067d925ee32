"""``evaluate_frame``: evaluate a recommender's long log of (user, item, score) rows.

Recommender logs are two tables: the truth (the items each user interacted
with, optionally with a rating) and the predictions (the items recommended to
each user, with a score or in rank order). They become the same
:class:`~rankproof.data.qrels.Qrels` and :class:`~rankproof.data.run.Run`
every other entry point uses, through the vectorised table readers, and are
evaluated by :func:`rankproof.evaluate` under the same protocol. So a user is
a query, an item a document, a rating a grade, and every policy keeps its
meaning:

* an item recommended to a user but absent from that user's truth is
  non-relevant: the policy ``unjudged`` (default ``zero``: gain 0, counted as
  ``unjudged_retrieved``);
* a user in the truth with no predictions: ``missing_query`` (default
  ``zero``: scored as an empty list); predictions for fewer than half of
  the users of the truth (``min_coverage``) are refused by the coverage
  guard every front door shares, unless ``allow_partial=True``;
* a user in the predictions but not in the truth: ``extra_query`` (default
  ``ignore``: left out, counted as ``queries_missing_from_qrels``);
* a (user, item) pair twice in the predictions: ``duplicates`` (default
  ``error``); twice in the truth: always an error.

Nothing loops over users or rows in Python: 1M users with 20 predictions
each are a few numpy and pyarrow passes over flat columns.
"""

from __future__ import annotations

import os
from typing import Mapping

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import messages
from ..errors import USERS_AND_ITEMS, InputError, RankproofError
from ..io.formats import named_format
from ..engines.options import MIN_COVERAGE, EvaluationOptions
from ..evaluation import resolve_protocol
from ..measures.parse import parse_measures
from ..results import Results
from ..typing import MeasuresLike, ProtocolLike

__all__ = ["evaluate_frame"]


def _is_path(data) -> bool:
    return isinstance(data, (str, os.PathLike))


def _truth(data, user, item, rating, grades: str = "integer") -> Qrels:
    if rating is not None:
        if _is_path(data):
            return Qrels.read(data, query=user, doc=item, grade=rating, grades=grades)
        return Qrels.from_table(data, query=user, doc=item, grade=rating, source="truth",
                                grades=grades)
    # Without ratings every truth row is relevant with grade 1: read the pairs
    # with the run reader (which needs no third column) and judge them all 1.
    pairs = _pairs(data, user, item, None, "truth")
    query_codes = np.repeat(np.arange(pairs.num_queries, dtype=np.int64), np.diff(pairs.offsets))
    return Qrels(query_codes=query_codes, queries=pairs.queries, doc_codes=pairs.doc_codes,
                 docs=pairs.docs, grades=np.ones(len(pairs), dtype=np.int64), lines=pairs.lines,
                 source=pairs.source)


def _pairs(data, user, item, score, source: str, name: str | None = None) -> Run:
    if _is_path(data):
        return Run.read(data, query=user, doc=item, score=score, name=name)
    return Run.from_table(data, query=user, doc=item, score=score, source=source, name=name)


def weights_by_user(weights) -> dict[str, float] | None:
    """``{user id as text: weight}`` from a mapping or a pandas Series indexed by user
    (by query, for the front doors that speak of queries)."""
    if weights is None:
        return None
    if hasattr(weights, "index") and hasattr(weights, "to_numpy"):  # a pandas Series
        keys, values = weights.index.to_numpy(), weights.to_numpy()
    elif isinstance(weights, Mapping):
        keys, values = list(weights.keys()), list(weights.values())
    else:
        raise InputError(what="weights must be a mapping {{{query}: weight}} or a pandas Series indexed by {query}",
                         fix=f"got {type(weights).__name__}")
    # Users are read as text (7 and "7" are one user), so the keys are too.
    return dict(zip(np.asarray(keys).astype(str).tolist(),
                    np.asarray(values, dtype=np.float64).tolist()))




def integer_ids(data, column) -> bool:
    """Is the id column integer-typed? In-memory tables and Parquet files say;
    text files (CSV, TSV, JSON Lines) hold no type, so their ids stay text."""
    try:
        if _is_path(data):
            if named_format(data) != "parquet":
                return False
            import pyarrow as pa
            import pyarrow.parquet as pq

            return pa.types.is_integer(pq.read_schema(data).field(column).type)
        library = type(data).__module__.split(".")[0]
        if library == "pandas":
            return data[column].dtype.kind in "iu"
        if library == "polars":
            return data[column].dtype.is_integer()
        if library == "pyarrow":
            import pyarrow as pa

            return pa.types.is_integer(data.schema.field(column).type)
    except (KeyError, TypeError, AttributeError, ValueError, OSError):
        pass  # the readers report a missing or odd column in their own words
    return False


def ids_as_integers(queries: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Integer user ids back as integers, in numeric order (as pandas' groupby sorts them):
    the results' ``query_ids``, parsed from the interned text ids on first use of the ids.
    Beyond int64 (a uint64 id) the text ids stay: text keeps every digit."""
    try:
        ids = queries.astype(np.int64)
    except (OverflowError, ValueError):
        return None, None
    return ids, np.argsort(ids, kind="stable")


# The names before they were shared with rankproof.frontdoors.outofcore.
_integer_ids, _ids_as_integers = integer_ids, ids_as_integers

TRUTH_NOTE = messages.TRUTH_NOTE


def evaluate_frame(
    truth,
    predictions,
    measures: MeasuresLike,
    protocol: ProtocolLike = None,
    *,
    user="user",
    item="item",
    rating="rating",
    score="score",
    weights=None,
    name: str | None = None,
    memory_budget=None,
    sorted: bool | None = None,
    allow_partial: bool = False,
    min_coverage: float = MIN_COVERAGE,
) -> Results:
    """Evaluate recommendations given as a long log of rows, one per (user, item).

    Parameters
    ----------
    truth : pandas.DataFrame, polars.DataFrame, pyarrow.Table, or path
        The relevant items: one row per (user, item), with a rating unless
        ``rating=None``. A path is read by :meth:`rankproof.Qrels.read`
        (Parquet, CSV, TSV, JSON Lines, chosen by extension).
    predictions : same kinds as `truth`
        The recommended items: one row per (user, item), with a score unless
        ``score=None``. Items absent from the user's truth are non-relevant.
    measures : str, Measure or iterable of them
        E.g. ``["ndcg@10", "r@10", "ap@10", "hit@10", "rr@10"]``.
    protocol : Protocol, preset name or protocol text, default ``Protocol()``
        Every convention; see :class:`rankproof.Protocol` and the module notes
        for what each query policy means for users.
    user, item : str
        Column names of the user and item ids, in both tables. Ids may be
        strings or integers (``7`` and ``"7"`` are one id). When the user
        column of both tables is integer-typed (in-memory tables and Parquet
        files), results give the user ids back as integers, in numeric order
        (as ``groupby`` sorts them), so ``to_pandas()`` merges with a users
        table on ``query``; otherwise (text ids, CSV/TSV/JSON Lines files) as
        text, in text order.
    rating : str or None
        Column of integer ratings in `truth` (the grade: gain for NDCG, and
        relevant when ``>= rel`` for the binary measures). None: every truth
        row is relevant with grade 1.
    score : str or None
        Column of finite scores in `predictions`, higher first. None: the rows
        of each user are already in rank order, best first (no ties).
    weights : mapping user -> weight, or pandas.Series indexed by user, optional
        Per-user weights, for ``aggregation='weighted'``.
    name : str, optional
        The run's name in results; ``predictions`` by default.
    memory_budget : int or str, optional
        For logs given as Parquet, CSV or TSV files: evaluate them out of
        core, in parts of whole users, within this many bytes (or a size such
        as ``"2GB"``); the results are those of the in-memory evaluation, bit
        for bit (see :mod:`rankproof.frontdoors.outofcore` and the guide's page
        *Out-of-core and memory*). Without it, files whose evaluation would
        need more than a quarter of the machine's memory are evaluated out of
        core within that quarter.
    sorted : bool, optional
        Out of core only: True when both files are sorted by user, False to
        partition them by user on disk; None (default): streamed as sorted,
        partitioned as soon as a batch is out of order.
    allow_partial, min_coverage : optional
        The coverage guard of every front door
        (:func:`rankproof.results.guard_coverage`): predictions that cover
        none of the users of the truth, or fewer than `min_coverage` of them
        (default 0.5), are refused with
        :class:`~rankproof.errors.CoverageError`, as ``rankproof evaluate``
        refuses them; ``allow_partial=True`` evaluates them (the users without
        predictions score 0 by ``missing_query``) and warns.

    Returns
    -------
    Results
        Per-user values (``results.queries`` are the user ids, integers when
        the user columns are integers), means, the protocol and every count.

    Raises
    ------
    rankproof.errors.ParseError
        A column is missing, or an id, rating or score is missing or invalid;
        the message names the row, the user and the item.
    rankproof.errors.DuplicateError
        A (user, item) pair is in the truth twice, or in the predictions twice
        under ``duplicates=error``.
    rankproof.errors.InputError
        A negative rating under ``negative_grades=error``, or no user in both
        tables.

    Examples
    --------
    User 1 was recommended items 10, 11, 12 (in that order) and liked 11 and
    13; user 2 was recommended 20, 21 and liked 20.
    Recall@2: user 1 found 1 of 2, user 2 found 1 of 1, so (0.5 + 1) / 2:

    >>> import pandas as pd
    >>> truth = pd.DataFrame({"user": [1, 1, 2], "item": [11, 13, 20]})
    >>> predictions = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 20, 21],
    ...                             "score": [0.9, 0.8, 0.1, 0.7, 0.2]})
    >>> results = evaluate_frame(truth, predictions, ["r@2", "rr@2"], rating=None)
    >>> results.means()
    {'r@2': 0.75, 'rr@2': 0.75}
    >>> results.per_query("rr@2")   # user 1's first liked item is at rank 2
    {1: 0.5, 2: 1.0}
    """
    from ..engines.executor import choose

    try:
        # Bad options, measure names or policies fail before any table is read.
        options = EvaluationOptions(weights=weights_by_user(weights), allow_partial=allow_partial,
                                    min_coverage=min_coverage)
        measures = parse_measures(measures)
        protocol = resolve_protocol(protocol)
        names = (user, item, rating, score)
        step = _step(truth, predictions, measures, protocol, names, name, memory_budget, sorted,
                     options)
        # In memory, or out of core (asked for by a budget, or needed by files too large).
        return next(iter(choose(step).evaluate(step)))
    except RankproofError as error:
        # Worded by field (errors.render): users, items and ratings, the ids
        # as they are. An error raised as a finished string keeps its text.
        if error.has_fields:
            raise error.in_words_of(USERS_AND_ITEMS) from None
        raise


def _step(truth, predictions, measures, protocol, names: tuple, name, memory_budget, sorted,
          options: EvaluationOptions):
    """The step evaluate_frame asks the executors for (rankproof.engines.executor)."""
    from ..engines.executor import Source, Step
    from .budget import parse_budget

    user, item, rating, score = names
    # A recommender predicts for whom it predicts: users it skips score 0 by missing_query, and
    # the coverage guard refuses predictions for too few of the users of the truth, as the CLI
    # does.
    integer = integer_ids(truth, user) and integer_ids(predictions, user)
    run_name = name
    if name is None and _is_path(predictions):
        run_name = os.path.basename(str(predictions))
    options = options.replace(query_ids=ids_as_integers if integer else None, notes=(TRUTH_NOTE,),
                              complete_judgments=True)
    run = Source(predictions, {"query": user, "doc": item, "score": score}, name=run_name)
    return Step(truth=Source(truth, {"query": user, "doc": item, "grade": rating},
                             label="the truth"),
                runs=(run,), measures=tuple(measures), protocol=protocol, options=options,
                memory_budget=None if memory_budget is None else parse_budget(memory_budget),
                sorted=sorted, stacklevel=3,
                inputs=_FrameInputs(truth, predictions, names, name, str(protocol.grades)))


class _FrameInputs:
    """How evaluate_frame reads its tables or files, for the executor that runs the step."""

    def __init__(self, truth, predictions, names: tuple, name, grades: str) -> None:
        self.truth, self.predictions, self.names, self.name = truth, predictions, names, name
        self.grades = grades

    def read(self, stages):
        """The truth and the one run (made in a generator, so that only the evaluation holds it)."""
        user, item, rating, score = self.names

        def runs():
            yield self.name, _pairs(self.predictions, user, item, score, "predictions", self.name)

        return _truth(self.truth, user, item, rating, self.grades), runs()

    def part(self, truth_table, predictions_table, run):
        """A part of the log (pyarrow Tables of whole users) as judgments and a run."""
        user, item, rating, score = self.names
        return (_truth(truth_table, user, item, rating, self.grades),
                _pairs(predictions_table, user, item, score, "predictions", self.name))

    def finish(self, results, run, ranking=None, qrels=None):
        return results
