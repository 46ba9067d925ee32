"""Executors: what runs the whole evaluation step, and the one place one is chosen.

An *engine* computes measures over an aligned table; an *executor* runs the
whole step (read, align, evaluate, aggregate) for a front door's inputs:

- ``memory`` (:mod:`rankproof.executors.memory`): the inputs read whole,
  the step run in memory (the default, and the reference);
- ``outofcore`` (:mod:`rankproof.executors.outofcore`): files larger than
  the memory budget, evaluated in parts of whole queries
  (:mod:`rankproof.frontdoors.outofcore`);
- ``spark`` (:mod:`rankproof.executors.spark`): Parquet data evaluated on a
  Spark session (:mod:`rankproof.spark`).

They are registered in :data:`rankproof.engines.EXECUTORS`, in the order
:func:`choose` asks them, and imported on first use (an executor's module
imports its machinery inside its methods, so asking it costs nothing).
A front door (the ``evaluate`` command, :func:`rankproof.evaluate_frame`)
describes what it was given as a :class:`Step` and calls :func:`choose`:

1. the first executor whose :meth:`Executor.asked` says the options ask for
   it (``--engine spark``; a memory budget);
2. else the first whose :meth:`Executor.needed` says the inputs need it
   (files too large for memory);
3. else the default, ``memory``;

then the chosen executor's :meth:`Executor.check` refuses what it cannot take
(in the front door's words, :attr:`Step.words`), before any input is read.
No front door tests an executor's name. A new executor is one class (a
subclass of :class:`Executor`) and one line in ``EXECUTORS``.

>>> from rankproof.protocol import Protocol
>>> step = Step(truth=Source("qrels.txt"), runs=(Source("bm25.run", name="bm25"),), measures=(),
...             protocol=Protocol())
>>> choose(step).name
'memory'
>>> choose(step.replace(executor="spark")).name
'spark'
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import time
from typing import Any, Callable, ContextManager, Iterator, Mapping

from ..errors import InputError, literal
from .options import EvaluationOptions

__all__ = ["DEFAULT_EXECUTOR", "USES", "Source", "Step", "Setting", "Executor", "choose",
           "get_executor", "executor_names"]

# What runs the step when neither the options nor the inputs ask for another executor.
DEFAULT_EXECUTOR = "memory"
# The options and uses (Step.uses) an executor may not take, in the order they are refused.
USES = ("ties_range", "bounds", "intents", "grade_map", "side_measures", "side_only")


@dataclasses.dataclass(frozen=True)
class Source:
    """One input of the step: a path (``-``: stdin) or an in-memory table.

    ``columns``: role -> column name (``query``, ``doc``, and ``grade`` for
    judgments or ``score`` for a run); ``format``: the format asked for
    (None: from the file name); ``name``: a run's name in the results;
    ``label``: what messages call it (its path by default).
    """

    data: Any
    columns: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    format: "str | None" = None
    name: "str | None" = None
    label: "str | None" = None

    @property
    def shown(self) -> str:
        """What messages call the input: its label, else its path."""
        return self.label if self.label is not None else str(self.data)

    def is_file(self) -> bool:
        """Is the input a file on this machine (not stdin, a folder, a URL or a table)?"""
        data = self.data
        return isinstance(data, (str, os.PathLike)) and str(data) != "-" and os.path.isfile(data)

    @property
    def path(self) -> str:
        return str(self.data)


def _input_error(what: str, fix: "str | None" = None) -> Exception:
    return InputError(what=what, fix=fix)


def _no_progress(total: int, label: str) -> ContextManager:
    """A progress display that shows nothing (a front door without one)."""
    class Silent:
        def step(self, text: str = "") -> None:
            pass

    return contextlib.nullcontext(Silent())


@dataclasses.dataclass(frozen=True)
class Step:
    """The evaluation step a front door asks for: its inputs, measures, protocol and options.

    Attributes
    ----------
    truth, runs : Source
        The judgments and each run (in the order the results are given).
    measures : tuple of Measure
        The accuracy measures, parsed (may be empty when side-data measures
        alone are asked for).
    protocol : Protocol
        Resolved.
    options : EvaluationOptions
        The step's options (:class:`~rankproof.engines.options.EvaluationOptions`:
        ``engine``, ``min_coverage``, ``allow_partial``, ``bounds``,
        ``ties_range``, ``weights``, ``notes``, ``complete_judgments``,
        ``query_ids``), built and checked by the front door; :meth:`option`
        reads one.
    executor : str, optional
        The executor the front door names (``--engine spark``: an
        ``--engine`` choice that is an executor, not an engine).
    memory_budget : int, optional
        Bytes: the one parse of a budget is the front door's
        (:func:`rankproof.frontdoors.budget.parse_budget`).
    sorted : bool, optional
        Out of core: the files are sorted by query (None: find out).
    uses : frozenset of str
        What the inputs need beyond the options: ``intents`` (judgments per
        intent), ``grade_map``, ``side_measures``, ``side_only``.
    side_measures : tuple
        The side-data measures asked for (:mod:`rankproof.recsys`).
    inputs : object
        How the front door reads its inputs (each executor calls what it
        needs): ``read(stages) -> (qrels, iterator of (name, run))`` whole;
        ``part(truth_table, run_table, run) -> (qrels, run)`` for a part of
        the log; ``truth() -> qrels``; ``finish(results, run, ranking=None,
        qrels=None) -> results``: what the front door adds to a run's results
        (side-data measures, a digest); ``side_data() -> SideData``.
    settings : mapping
        The executors' own settings, by :attr:`Setting.dest` (``spark_master``;
        each executor declares its own, :attr:`Executor.settings`); None: not given.
    words : mapping
        How the front door spells an option or a use in a message
        (``{"ties_range": "--tie-range"}``); the option's name by default.
    progress : callable
        ``progress(total, label)``: a context manager whose value has
        ``step(text)`` (the front door's display; none by default).
    quiet : bool
        No display of the executor's own (out of core: the parts).
    costs : dict, optional
        Filled with the seconds each stage took (``--profile``).
    values_in_memory : bool
        Out of core: keep every query's values in memory (they are shown).
    stacklevel : int
        The warnings' stack level as the front door would give it to
        :func:`rankproof.evaluation.evaluate_read` (2: the front door's line;
        3: its caller's); the executor adds its own frame.
    refusal : callable
        ``refusal(what, fix) -> Exception``: what the front door raises when
        an executor refuses the step (the command line: its usage error).
    """

    truth: Source
    runs: tuple[Source, ...]
    measures: tuple
    protocol: Any
    options: EvaluationOptions = dataclasses.field(default_factory=EvaluationOptions)
    executor: "str | None" = None
    memory_budget: "int | None" = None
    sorted: "bool | None" = None
    uses: frozenset = frozenset()
    side_measures: tuple = ()
    inputs: Any = None
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    words: Mapping[str, str] = dataclasses.field(default_factory=dict)
    progress: Callable[[int, str], ContextManager] = _no_progress
    quiet: bool = True
    costs: "dict[str, float] | None" = None
    values_in_memory: bool = False
    stacklevel: int = 2
    refusal: Callable[[str, "str | None"], Exception] = _input_error

    def __post_init__(self) -> None:
        if not isinstance(self.options, EvaluationOptions):   # the value, never loose keywords
            raise TypeError(f"Step.options must be an EvaluationOptions (rankproof.engines.options); "
                            f"got {type(self.options).__name__}")

    def replace(self, **changes: Any) -> "Step":
        return dataclasses.replace(self, **changes)

    def word(self, key: str) -> str:
        """`key` (an option or a use) as the front door spells it."""
        return self.words.get(key, key)

    def option(self, key: str) -> Any:
        """The option `key` (an :class:`~rankproof.engines.options.EvaluationOptions` field),
        or None when `key` names no option (a use, :attr:`uses`)."""
        return getattr(self.options, key, None)

    def wants(self, key: str) -> bool:
        """Is the option or the use `key` asked for (a true option, or in :attr:`uses`)?"""
        return key in self.uses or bool(self.option(key))

    def refuse(self, what: str, fix: "str | None" = None) -> Exception:
        """The error to raise when an executor refuses the step (:attr:`refusal`)."""
        return self.refusal(what, fix)

    def cost(self, stage: str, started: float) -> float:
        """Record the seconds since `started` as `stage`'s (when costs are kept); the time now."""
        now = time.perf_counter()
        if self.costs is not None:
            self.costs[stage] = self.costs.get(stage, 0.0) + now - started
        return now


@dataclasses.dataclass(frozen=True)
class Setting:
    """One of an executor's own settings, and the command-line option that gives it.

    ``rankproof evaluate`` declares every registered executor's settings, each
    executor's in a help section of its own, and hands them to the step
    (:attr:`Step.settings`, by ``dest``); a setting given while another
    executor runs the step is refused (:func:`choose`).

    Attributes
    ----------
    flag : str
        The option (``--spark-master``).
    dest : str
        Its key in :attr:`Step.settings` (``spark_master``).
    metavar : str
        What the help calls its value (``URL``).
    help : str
        What it sets; the help starts it with the option that asks for the
        executor (``with --engine spark: ...``).

    >>> Setting("--toy-note", "toy_note", "TEXT", "a note the toy keeps").dest
    'toy_note'
    """

    flag: str
    dest: str
    metavar: str
    help: str


class Executor:
    """What runs the evaluation step; subclasses override :meth:`evaluate` and what they refuse.

    Attributes
    ----------
    name : str
        Its name in :data:`rankproof.engines.EXECUTORS` (and ``--engine``'s
        choice when the entry is offered).
    takes : frozenset of str
        The options and uses (:attr:`Step.uses`) it evaluates; any other one
        asked for is refused by :meth:`check`.
    settings : tuple of Setting
        Its own settings (:attr:`Step.settings`) and their options: given to
        another executor, they are refused.
    summary : str
        What ``--engine``'s help says of it, when it is offered by name.
    """

    name = "executor"
    takes: frozenset = frozenset()
    settings: tuple[Setting, ...] = ()
    summary = ""
    # What the refusals say the options and uses need instead (the default executor's place).
    elsewhere = "on this machine, in memory"

    def asked(self, step: Step) -> bool:
        """Do the step's options ask for this executor? By default: it is named
        (:attr:`Step.executor`, ``--engine <its name>``)."""
        return step.executor == self.name

    def needed(self, step: Step) -> bool:
        """Do the inputs need this executor when no option asks for one? By default: no."""
        return False

    def asking(self, step: Step) -> str:
        """What asked for this executor, in the front door's words (for a refusal's fix)."""
        return step.word(f"executor={self.name}")

    def refused(self, step: Step) -> list[str]:
        """The options and uses the step asks for that this executor does not take."""
        return [key for key in USES if step.wants(key) and key not in self.takes]

    def check(self, step: Step) -> None:
        """Refuse what it cannot take, before any input is read: :attr:`takes` by default."""
        for key in self.refused(step)[:1]:
            raise step.refuse(what=f"{step.word(key)} evaluates {self.elsewhere}",
                                  fix=f"leave out {self.asking(step)}")

    def evaluate(self, step: Step) -> Iterator[Any]:
        """Each run's :class:`~rankproof.Results`, in the order of :attr:`Step.runs`."""
        raise NotImplementedError


_loaded: dict[str, Executor] = {}


def executor_names() -> list[str]:
    """The executors registered, in the order :func:`choose` asks them."""
    from . import EXECUTORS

    return list(EXECUTORS)


def get_executor(name: str) -> Executor:
    """The executor registered under `name` (imported on first use)."""
    from . import EXECUTORS

    if name not in EXECUTORS:
        raise InputError(what=f"unknown executor {literal(repr(name))}", value=name,
                         fix=f"choose one of {', '.join(EXECUTORS)}")
    entry = EXECUTORS[name]
    if name not in _loaded or type(_loaded[name]).__module__ != entry.module:
        _loaded[name] = getattr(importlib.import_module(entry.module), entry.attribute)()
    return _loaded[name]


def choose(step: Step) -> Executor:
    """The executor of `step`: asked for by the options, else needed by the inputs, else the
    default; checked (:meth:`Executor.check`), and another executor's settings refused."""
    executors = [get_executor(name) for name in executor_names()]
    chosen = next((e for e in executors if e.asked(step)), None) or \
        next((e for e in executors if e.needed(step)), None) or get_executor(DEFAULT_EXECUTOR)
    for executor in executors:
        for setting in executor.settings:
            if executor is not chosen and step.settings.get(setting.dest) is not None:
                raise step.refuse(what=f"{step.word(setting.dest)} is for {executor.asking(step)}",
                                  fix=f"leave out {step.word(setting.dest)}")
    chosen.check(step)
    return chosen
