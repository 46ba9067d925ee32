"""Out-of-core evaluation: recommender logs larger than memory, in parts of bounded size.

A log is two files (Parquet, CSV or TSV): the truth and the predictions,
one row per (user, item). They are read in batches (Parquet row groups, CSV
blocks: :class:`~rankproof.frontdoors.log_files.Log`) and cut into *parts*,
each a set of whole users with all their truth and prediction rows; each
part is evaluated in memory by the evaluation step (:func:`rankproof.evaluate`,
called by the out-of-core executor, :mod:`rankproof.executors.outofcore`, for
``evaluate_frame`` and the command line's ``evaluate``), so by the same
pipeline and engine, and the parts' per-user values are joined by
:meth:`rankproof.Results.concat` in the order one evaluation of the whole
gives: the values, counts and means are those of the in-memory path, bit
for bit.

Two ways to cut parts:

* **sorted**: both files sorted by user (ascending, as pyarrow compares the
  column: numbers numerically, text bytewise). The predictions are streamed;
  a part ends before the last user read so far, whose rows (the *tail*) are
  carried into the next part, and the truth is read up to the same user.
  Only one part (and one batch) is in memory at a time.
* **partitioned**: any order. A first pass hashes each user to one of K
  buckets and appends its rows to the bucket's Parquet file in a temporary
  folder (file order kept within a user); a second pass evaluates the
  buckets one by one. The folder is removed on success, failure and Ctrl-C.

``sorted=None`` (the default) tries the sorted way and falls back to the
partition as soon as a batch is out of order.

The memory budget B (:mod:`rankproof.frontdoors.budget`) is what the
evaluation may hold besides a fixed overhead (:data:`~rankproof.frontdoors.budget.OVERHEAD`:
the interpreter and the libraries): the per-user values of every user and one
part at a time; a budget too small for that is refused, naming the smallest
one that is not. Files go out of core by themselves when an in-memory
evaluation (:data:`IN_MEMORY` times their Arrow size) would exceed the
default budget.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Callable, Iterator, Sequence

from ..errors import InputError, ParseError, RankproofWarning, literal
from ..report.progress import Part, Steps, within
from ..results import Results
from ..results.coverage import COVERAGE_WARNING_START
from .budget import (EXPANSION, MEMORY_FRACTION, OVERHEAD, PER_USER, default_budget,
                     estimated_users, lasting_folder,
                     parse_budget, part_rows_for, temporary_folder, text_block, values_bytes)
from .log_files import Log
from .partition import partitioned_parts
from .spill import Joined

__all__ = ["EXPANSION", "IN_MEMORY", "MEMORY_FRACTION", "OVERHEAD", "PER_USER", "Log",
           "parse_budget",
           "default_budget", "estimated_bytes", "needs_out_of_core", "evaluate_log"]

# Peak bytes of a whole log's in-memory evaluation per byte of its Arrow input (3.4 measured on
# the same log): whether files are evaluated out of core when no budget is given.
IN_MEMORY = 4
# Batches read at once, at most (rows); a part holds one or more.
MAX_BATCH_ROWS = 1 << 20


def estimated_bytes(logs: Sequence[Log]) -> int:
    """What an in-memory evaluation of these files would need at its peak, about."""
    return sum(log.size() for log in logs) * IN_MEMORY


def needs_out_of_core(paths: Sequence, budget: int | None = None) -> bool:
    """Would an in-memory evaluation of these Parquet/CSV/TSV files exceed the budget (default: the default one)?"""
    try:
        logs = [Log.of(path, (), "") for path in paths]
        return estimated_bytes(logs) > (default_budget() if budget is None else budget)
    except (InputError, ParseError, OSError, ValueError):
        # Not a readable table (pyarrow's ArrowInvalid is a ValueError): the in-memory
        # reader's own checks name the file and what is wrong with it.
        return False


class OutOfOrder(Exception):
    """A batch of a log said to be sorted by user is not (the sorted way gives up)."""


# -- the users of a batch ------------------------------------------------------------------

def _users(table, user: str, as_text: bool):
    import pyarrow as pa
    import pyarrow.compute as pc

    column = table.column(user)
    if (as_text and not pa.types.is_string(column.type)
        and not pa.types.is_large_string(column.type)):
        column = pc.cast(column, pa.string())
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def _check_sorted(users, previous) -> None:
    """Raise OutOfOrder unless `users` is ascending and starts at or after `previous`."""
    import pyarrow.compute as pc

    n = len(users)
    if n > 1 and not pc.all(pc.greater_equal(users.slice(1), users.slice(0, n - 1))).as_py():
        raise OutOfOrder
    if previous is not None and n and users[0].as_py() < previous:
        raise OutOfOrder


# -- cutting parts -------------------------------------------------------------------------

class _Buffered:
    """One sorted log's batches with the rows not yet given out held back (the carried tail)."""

    def __init__(self, batches: Iterator, user: str, as_text: bool,
                 on_batch: Callable[[], None]) -> None:
        self._batches, self._user, self._text, self._on_batch = batches, user, as_text, on_batch
        self.held: list = []      # (table, users) pieces in file order
        self.rows = 0
        self.done = False
        self._last = None

    def read(self) -> bool:
        """One more batch into the held rows; False at the end of the file."""
        if self.done:
            return False
        for table in self._batches:
            if table.num_rows == 0:
                continue
            users = _users(table, self._user, self._text)
            _check_sorted(users, self._last)
            self._last = users[len(users) - 1].as_py()
            self.held.append((table, users))
            self.rows += table.num_rows
            self._on_batch()
            return True
        self.done = True
        return False

    def last_user(self):
        return self._last

    def take_before(self, boundary) -> list:
        """Give out the held rows of users before `boundary` (every held row when None)."""
        import pyarrow.compute as pc

        given = []
        while self.held:
            table, users = self.held[0]
            count = (len(users) if boundary is None else pc.sum(pc.less(users, boundary)).as_py()
                     or 0)
            if count == len(users):
                given.append(table)
                self.held.pop(0)
                continue
            if count:
                given.append(table.slice(0, count))
                self.held[0] = (table.slice(count), users.slice(count))
            break
        self.rows = sum(t.num_rows for t, _ in self.held)
        return given


def _sorted_parts(truth: _Buffered, predictions: _Buffered,
                  part_rows: int) -> Iterator[tuple[list, list]]:
    """Parts of whole users from two logs sorted by user: (truth tables, prediction tables)."""
    while True:
        while predictions.rows < part_rows and predictions.read():
            pass
        # One user longer than a part: read on until a next user starts (or the end).
        while not predictions.done and predictions.held and \
                predictions.held[0][1][0].as_py() == predictions.last_user() and predictions.read():
            pass
        boundary = None if predictions.done else predictions.last_user()
        if boundary is None:  # the last part: the truth of its users (and of none after) with it
            while (not truth.done
                   and (truth.last_user() is None or truth.last_user() <= predictions.last_user())):
                truth.read()
        while boundary is not None and not truth.done and (truth.last_user() is None
                                                           or truth.last_user() < boundary):
            truth.read()
        part_predictions = predictions.take_before(boundary)
        if boundary is None:
            # The predictions are done: the rest of the truth (users nobody predicted for), in
            # parts.
            yield truth.take_before(None), part_predictions
            while truth.read():
                if truth.rows >= part_rows:
                    yield truth.take_before(None), []
            rest = truth.take_before(None)
            if rest:
                yield rest, []
            return
        yield truth.take_before(boundary), part_predictions


def _tables(pieces: list):
    import pyarrow as pa

    return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces, promote_options="permissive")


def _release() -> None:
    """Hand the memory Arrow's pool keeps after a part back to the system (the budget is of the process)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


# -- the evaluation ------------------------------------------------------------------------

def _first_rows(log: Log, count: int):
    """The log's first `count` rows (fewer in a shorter file) as one Table, None when it has none."""
    pieces, found = [], 0
    for table in log.batches(count):
        pieces.append(table)
        found += table.num_rows
        if found >= count:
            break
    return _tables(pieces).slice(0, count) if found else None


def _sizes(truth: Log, predictions: Log, budget: int, batch_rows: int | None, part_rows: int | None,
           measures: int, in_memory: bool) -> tuple[int, int, int, bool]:
    """(batch rows, part rows of predictions, prediction rows, values spilled to disk?) for the budget
    (see :func:`~rankproof.frontdoors.budget.part_rows_for`; refused when too small). The values
    are spilled when they would take more than half the budget, unless asked to stay `in_memory`."""
    truth_bytes, prediction_bytes = truth.size(), predictions.size()
    first = _first_rows(predictions, 1 << 16)
    first_rows = max(1, first.num_rows) if first is not None else 1
    rows = predictions.rows()
    if rows is None:  # CSV: rows from the first block
        rows = (max(1, int(prediction_bytes / max(1.0, first.nbytes / first_rows)))
                if first is not None else 1)
    users = (estimated_users(rows, _users(first, predictions.user, False)) if first is not None
             else 1.0)
    # input bytes per prediction row, truth included
    per_row = (truth_bytes + prediction_bytes) / max(1, rows)
    spilled = not in_memory and values_bytes(users, measures) > budget / 2
    if part_rows is None:
        text = truth.format != "parquet" or predictions.format != "parquet"
        part_rows = part_rows_for(budget, users, per_row,
                                  source=f"{literal(predictions.path)} and its truth",
                                  block=predictions.block if text else 0, measures=measures,
                                  spilled=spilled)
    if batch_rows is None:
        batch_rows = int(min(MAX_BATCH_ROWS, max(1024, part_rows // 4)))
    return batch_rows, part_rows, rows, spilled


def _evaluate_parts(parts: Iterator[tuple[list, list]], evaluate_part: Callable,
                    stages: Steps | Part,
                    done: Joined) -> Joined:
    """Evaluate each part into `done`; a part without truth or without predictions joins its neighbour."""
    def evaluated(truth: list, predictions: list) -> Results:
        if not truth or not predictions:
            raise InputError(what=f"the log's {'truth' if not truth else 'predictions'} file holds no rows",
                             fix="give at least one row in each file")
        with warnings.catch_warnings():
            # A part holds some users only: the coverage guard (and its warning) reads the whole
            # evaluation, in the front door that called evaluate_log.
            warnings.filterwarnings("ignore", message=COVERAGE_WARNING_START,
                                    category=RankproofWarning)
            found = evaluate_part(_tables(truth), _tables(predictions))
        found.counts  # counted now, so that the part's alignment is freed  # noqa: B018
        # Its values and counts only: not the part's judgments (which its Results keeps for a
        # digest).
        kept = Results.concat([found])
        del found
        _release()
        return kept

    # A part is evaluated as soon as it has both; a part without one of them is carried into the
    # next, and one left at the end joins the last evaluated part (whose input is kept for that).
    last: tuple[list, list] | None = None
    carried: tuple[list, list] = ([], [])
    for truth, predictions in parts:
        truth, predictions = carried[0] + truth, carried[1] + predictions
        if truth and predictions:
            last, carried = None, ([], [])
            done.append(evaluated(truth, predictions))
            last = (truth, predictions)
            stages.step(f"evaluated {len(done)} parts")
        else:
            carried = (truth, predictions)
    if carried[0] or carried[1] or not done:
        if last is not None:
            done.replace_last(evaluated(last[0] + carried[0], last[1] + carried[1]))
        else:
            done.append(evaluated(*carried))
    return done


def evaluate_log(truth: Log, predictions: Log, evaluate_part: Callable, *, memory_budget=None,
                 sorted: bool | None = None, query_ids=None, run_name: str | None = None,
                 progress: bool = False,
                 temporary: str | None = None, batch_rows: int | None = None,
                 part_rows: int | None = None, measures: int = 3,
                 values_in_memory: bool = False) -> Results:
    """Evaluate a log part by part within a memory budget; the Results of the whole.

    Parameters
    ----------
    truth, predictions : Log
        The two files (:meth:`Log.of`).
    evaluate_part : callable
        ``evaluate_part(truth_table, predictions_table) -> Results``: a front
        door's in-memory evaluation of a part (pyarrow Tables of whole users).
    memory_budget : int or str, optional
        Bytes, or a size such as ``"2GB"``; :func:`default_budget` by default.
        The process stays within it plus the fixed :data:`OVERHEAD`; a budget
        too small for the log is an InputError naming the smallest one.
    sorted : bool, optional
        True: both files are sorted by user (an out-of-order batch is an
        error); False: partition by user on disk; None: sorted, else partition.
    query_ids
        The ids the results show (see :func:`rankproof.evaluation.evaluate_alignment`).
    run_name : str, optional
        The run's name in results.
    progress : bool
        A progress display on stderr (shown only when it is a terminal).
    temporary : str, optional
        The folder for the partition's temporary folder (default: the system's).
    batch_rows, part_rows : int, optional
        Rows read at once and prediction rows per part, instead of those the
        budget gives (tests cut parts at chosen places with them).
    measures : int
        The measures evaluated (side-data measures included): what each
        user's values take (:func:`~rankproof.frontdoors.budget.per_user_bytes`).
    values_in_memory : bool
        Hold every user's values in memory (a budget too small for them is
        refused). By default they are written to disk part by part when
        they would take more than half the budget, and the Results hold
        them memory-mapped (:mod:`rankproof.frontdoors.spill`).
    """
    budget = default_budget() if memory_budget is None else parse_budget(memory_budget)
    truth, predictions = (replace(log, block=text_block(budget)) for log in (truth, predictions))
    batch_rows, part_rows, rows, spilled = _sizes(truth, predictions, budget, batch_rows, part_rows,
                                                  measures,
                                                  values_in_memory)
    done = Joined((lambda: lasting_folder(temporary)) if spilled else None)
    try:
        return _evaluate(truth, predictions, evaluate_part, done, sorted=sorted,
                         query_ids=query_ids,
                         run_name=run_name, progress=progress, temporary=temporary,
                         batch_rows=batch_rows,
                         part_rows=part_rows, rows=rows)
    except BaseException:
        done.discard()
        raise


def _evaluate(truth: Log, predictions: Log, evaluate_part: Callable, done: Joined, *, sorted,
              query_ids, run_name,
              progress, temporary, batch_rows: int, part_rows: int, rows: int) -> Results:
    """evaluate_log's passes: sorted, else (or when a batch is out of order) partitioned."""
    as_text = not (truth.is_integer() and predictions.is_integer())
    # Steps: each batch of predictions read, each part evaluated (the partition: truth batches too).
    steps = math.ceil(rows / batch_rows) + math.ceil(rows / part_rows)
    with within(steps if sorted is not False else 2 * steps, "evaluating the log",
                quiet=not progress) as stages:
        if sorted is not False:
            try:
                parts = _sorted_parts(_Buffered(truth.batches(batch_rows), truth.user, as_text,
                                                lambda: None),
                                      _Buffered(predictions.batches(batch_rows), predictions.user,
                                                as_text,
                                                lambda: stages.step("reading the sorted log")),
                                      part_rows)
                return _evaluate_parts(parts, evaluate_part, stages, done).results(run_name,
                                                                                   query_ids)
            except OutOfOrder:
                done.restart()   # start over, partitioned
                if sorted:
                    raise InputError(what="the log is not sorted by {query}, but it was said to be (sorted=True, "
                                          "--sorted)",
                                     fix="sort both files by {query}, or let rankproof "
                                                           "partition them (leave out --sorted; sorted=None)") from None
        with temporary_folder(temporary) as folder:
            parts = partitioned_parts(truth.batches(batch_rows), predictions.batches(batch_rows),
                                      (lambda t: _users(t, truth.user, as_text),
                                       lambda t: _users(t, predictions.user, as_text)),
                                      rows, part_rows, batch_rows, folder, stages.step)
            _evaluate_parts(parts, evaluate_part, stages, done)
        return done.results(run_name, query_ids)
