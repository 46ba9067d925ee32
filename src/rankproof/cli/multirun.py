"""Many runs against one qrels (compare, systems, segments): each run evaluated as it is read,
the next run read meanwhile.

These commands spend most of their time reading a run and evaluating it, once per run. The
qrels are read once, beside the first run (:func:`rankproof.cli.inputs.read_inputs`), and
shared by every evaluation; then, while this thread evaluates run i, a second thread reads
run i + 1 (Arrow's Parquet reader and the compiled interning release the GIL, so on two cores
the reading hides behind the evaluation). Memory stays bounded: one run is evaluated while at
most one more is read, and each run is handed to the evaluation as its only holder, so it is
ranked in place and freed once aligned (:func:`rankproof.evaluation.evaluate_read`); only its
per-query values stay. The commands also read their files within
:func:`rankproof.io.shared_ids.sharing`: the users' vocabulary is made once for the truth and
every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:
    from ..engines.options import EvaluationOptions

__all__ = ["evaluated_runs", "read_ahead"]


def evaluated_runs(qrels, read: Iterable[tuple[str, Any]], measures, protocol, stages=None, *,
                   options: EvaluationOptions) -> Iterator[tuple[str, Any]]:
    """(name, Results) of every run of `read` (``read_inputs``' runs), in order, each evaluated
    on `qrels` as soon as it is read while the next one is read in a second thread.

    `options`: :func:`rankproof.evaluate`'s keywords as one value
    (:class:`~rankproof.engines.options.EvaluationOptions`: allow_partial, min_coverage, bounds,
    ...); `stages` (a progress display) is told of each run evaluated.
    """
    from ..evaluation import evaluate_read

    for name, run in read_ahead(read):
        held = [run]
        del run   # the evaluation holds the run alone: ranked in place, freed once aligned
        results = evaluate_read(lambda: (qrels, held.pop()), measures, protocol, options=options)
        if stages is not None:
            stages.step(f"evaluated {name}")
        yield name, results


_END = object()


def read_ahead(items: Iterable[Any]) -> Iterator[Any]:
    """`items` in order, each next one taken (read) in a second thread while the caller works on
    the one it was given: at most one item waits ahead.

    An error raised while taking an item is raised here when the caller asks for that item,
    so errors come in the order of the items. An item is not held here once it is given, so
    the caller may hold its only reference.

    >>> list(read_ahead(iter(["a", "b", "c"])))
    ['a', 'b', 'c']
    """
    from concurrent.futures import ThreadPoolExecutor

    source = iter(items)
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rankproof-read-ahead")
    try:
        pending = pool.submit(next, source, _END)
        while True:
            held = [pending.result()]
            if held[0] is _END:
                return
            # The next item is read while the caller works on this one (the old future is let go).
            pending = pool.submit(next, source, _END)
            yield held.pop()
    finally:
        # A caller that stops early (an error) does not wait for a read it will not use.
        pool.shutdown(wait=False, cancel_futures=True)
