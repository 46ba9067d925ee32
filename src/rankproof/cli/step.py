"""``rankproof evaluate``'s step: its arguments as the :class:`~rankproof.engines.executor.Step`
the executors take, and its inputs read the command line's way.

The command never tests an executor's name: it describes what it was given
(:func:`step_of`), asks :func:`~rankproof.engines.executor.choose`, and
iterates the chosen executor's Results. What is the command line's own
stays here: how its files are read (:func:`~rankproof.cli.inputs.read_inputs`,
a part's tables with ``--grade-map``), its side-data measures beside each
run, the out-of-core digest of the judgments, its flags in messages.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Mapping

from .inputs import QRELS_ROLES, RUN_ROLES, columns, read_inputs, read_qrels
from .usage import usage

__all__ = ["step_of", "CommandInputs", "Flags"]

# Options and uses as the command line spells them (the others are --<name with dashes>).
_FLAGS = {"ties_range": "--tie-range", "sorted": "--sorted", "accuracy_example": "-m ndcg@10",
          "executor": "--engine"}


class Flags(Mapping):
    """The command line's words for an option, a use or ``executor=<name>`` (``--engine <name>``)."""

    def __init__(self, given: Mapping[str, str]) -> None:
        self._given = {**_FLAGS, **given}

    def __getitem__(self, key: str) -> str:
        if key in self._given:
            return self._given[key]
        option, sep, value = key.partition("=")
        flag = self._given.get(option, f"--{option.replace('_', '-')}")
        return flag + (f" {value}" if sep else "")

    def __iter__(self):
        return iter(self._given)

    def __len__(self) -> int:
        return len(self._given)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]


class CommandInputs:
    """How ``rankproof evaluate`` reads its inputs, for whichever executor runs the step."""

    def __init__(self, args, protocol, names: list[str], wanted: list,
                 costs: "dict[str, float] | None" = None) -> None:
        self.args, self.protocol, self.names, self.wanted = args, protocol, names, wanted
        # The side data, read beside the runs once the step is chosen (cli.side.side_data_later).
        self.pending_side: Any = lambda: None
        self.costs = costs
        self._digests: dict[str, Any] = {}
        self._mapping: Any = None
        # The run whose side-data measures a thread computes, and the wait for them (_ranked).
        self._beside: Any = None

    def read(self, stages):
        """The judgments and an iterator over (name, run), read as every command reads them."""
        from .large import prepare_for

        prepare_for([self.args.qrels, *self.args.runs])
        qrels, runs = read_inputs(self.args, self.args.qrels, self.args.runs, self.names, stages)
        return qrels, (self._ranked(runs, qrels) if self.wanted else runs)

    def _ranked(self, runs, qrels):
        """Each run kept for the side-data measures, ranked once in its own buffers before the
        evaluation: the evaluation and the measures' cut then find it in order
        (cli.side.rank_owned_run). Its side-data measures start then, in a thread beside the
        evaluation (both only read the run; most of the evaluation leaves the second core idle),
        and :meth:`finish` takes their values."""
        from .side import later, rank_owned_run

        for name, ranking in runs:
            rank_owned_run(ranking, self.protocol)
            self._beside = (ranking, later(partial(self._side_values, ranking, qrels, None, True),
                                           "rankproof-side-measures"))
            yield name, ranking
            del ranking   # not held while the next run is read

    def _side_values(self, ranking, qrels, protocol, beside: bool = False) -> tuple:
        """(the side-data measures' values on `ranking`, the protocol they used, the seconds spent
        waiting for the side data, each measure's seconds); `beside` the evaluation, their
        compiled loops on this thread alone (recsys.side_eval.loops_on_this_thread). `protocol`
        None: the one the evaluation takes (layered judgments enter it, data.layering), so that
        :meth:`finish` finds the thread's values under the evaluation's protocol."""
        from ..data.intents import IntentQrels
        from ..data.layering import with_layers
        from ..recsys.side_eval import loops_on_this_thread, side_values

        if protocol is None:   # as evaluation.evaluate_read takes it
            judged = qrels.doc_qrels if isinstance(qrels, IntentQrels) else qrels
            protocol = with_layers(self.protocol, judged)
        started = time.perf_counter()
        side = self.pending_side()
        waited, spent = time.perf_counter() - started, dict[str, float]()
        with loops_on_this_thread(beside):
            values = side_values(ranking, self.wanted, side.with_judgments(qrels), protocol, spent)
        return values, protocol, waited, spent

    def truth(self):
        return read_qrels(self.args, self.args.qrels)

    def side_data(self):
        return self.pending_side()

    def part(self, truth, predictions, run):
        """A part of the log (pyarrow Tables of whole queries) as judgments and a run; the judgments
        go into the run's digest (:class:`~rankproof.cli.outofcore.QrelsDigest`)."""
        from ..data.grades import map_grades
        from ..data.qrels import Qrels
        from ..data.run import Run
        from .grade_map import grade_map
        from .outofcore import QrelsDigest

        qrels = Qrels.from_table(truth, **_roles(self.args, QRELS_ROLES), source=self.args.qrels,
                                 grades=str(self.protocol.grades))
        if self.args.grade_map is not None:
            if self._mapping is None:   # read once, for every part
                self._mapping = grade_map(self.args.grade_map)
            qrels = map_grades(qrels, self._mapping)
        self._digests.setdefault(run.path, QrelsDigest()).add(qrels)
        ranking = Run.from_table(predictions, **_roles(self.args, RUN_ROLES), source=run.path,
                                 name=run.name)
        return qrels, ranking

    def finish(self, results, run, ranking=None, qrels=None):
        """The run's Results with what the command adds: the out-of-core digest of the judgments
        (whatever the parts, for compare --results), the side-data measures of -m."""
        digest = self._digests.pop(run.path, None)
        if digest is not None:
            results = results.replace(qrels_digest=digest.hexdigest())
        if ranking is None or not self.wanted:
            return results
        from ..recsys.side_eval import with_side

        started = time.perf_counter()
        beside, self._beside = self._beside, None
        found = beside[1]() if beside is not None and beside[0] is ranking else None
        # Computed here when no thread computed them, or with another protocol than the
        # evaluation's (the thread takes the evaluation's: this is a guard).
        if found is None or found[1] != results.protocol:
            found = self._side_values(ranking, qrels, results.protocol)
        values, _, waited, spent = found
        if self.costs is not None:
            self.costs.setdefault("side data read (the wait for it, read beside the runs)", waited)
            self.costs[f"{run.name}: side-data measures (the wait for them, computed beside the "
                       "evaluation)"] = time.perf_counter() - started
            self.costs.update((f"{run.name}: {measure}", spent[measure]) for measure in spent)
        return with_side(results, values)


def _roles(args, roles) -> dict:
    """Every role's column name: those given (--columns, --ROLE-col), else the role's own name."""
    return {**{role: role for role in roles}, **columns(args, roles)}


def evaluation_options(args, engine: "str | None", **world):
    """The step's options from the command line's flags (--min-coverage, --allow-partial,
    --bounds, --tie-range) and `engine` (None when an executor runs the step); `world`: the
    notes and complete judgments of a log's truth."""
    from ..engines.options import EvaluationOptions

    return EvaluationOptions(min_coverage=args.min_coverage, allow_partial=args.allow_partial,
                             bounds=args.bounds, ties_range=args.tie_range, engine=engine,
                             **world)


def step_of(args, command: str, measures: list, inputs: CommandInputs, world: dict):
    """The step ``rankproof evaluate`` asks for: its files, measures, protocol, options and flags
    (`world`: the notes and complete judgments of a log's truth, cli.commands.evaluate.world_options)."""
    from ..engines import EXECUTORS
    from ..engines.executor import Source, Step
    from .engine import executor_settings
    from .progress import steps

    # --engine names an engine, or an executor of the whole step (looked up in the table).
    executor = args.engine if args.engine in EXECUTORS else None
    options = evaluation_options(args, None if executor else args.engine, **world)

    wanted, names = inputs.wanted, inputs.names
    settings, flags = executor_settings(args)   # each executor's own options (--spark-master)

    def refusal(what: str, fix: "str | None" = None) -> Exception:
        return usage(command, what, fix)

    shown = "--per-query" if args.per_query else f"--format {args.format}"
    uses = {"intents": bool(args.intents), "grade_map": args.grade_map is not None,
            "side_measures": bool(wanted), "side_only": bool(wanted) and not measures}
    return Step(
        truth=Source(args.qrels, _roles(args, QRELS_ROLES), args.qrels_format),
        runs=tuple(Source(path, _roles(args, RUN_ROLES), args.run_format, name)
                   for path, name in zip(args.runs, names)),
        measures=tuple(measures), protocol=inputs.protocol, options=options, executor=executor,
        memory_budget=args.memory_budget, sorted=args.log_sorted,
        uses=frozenset(key for key, used in uses.items() if used), side_measures=tuple(wanted),
        inputs=inputs, settings=settings,
        words=Flags({**flags, "side_measures": str(wanted[0]) if wanted else "",
                     "side_only": f"-m {wanted[0]} alone" if wanted else "",
                     "values_in_memory": shown}),
        progress=lambda total, label: steps(args, total, label), quiet=bool(args.quiet),
        costs=inputs.costs, values_in_memory=args.per_query or args.format in ("json", "parquet"),
        refusal=refusal)
