"""``--engine`` and the executors' own options, declared from the registries.

``rankproof evaluate`` names no engine and no executor: ``--engine`` offers
what :func:`rankproof.engines.engine_names` offers, its help says what each
executor offered by name is (:attr:`~rankproof.engines.executor.Executor.summary`),
and every executor registered in :data:`rankproof.engines.EXECUTORS` adds its
own options (:attr:`~rankproof.engines.executor.Executor.settings`) in a help
section of its own. :func:`executor_settings` hands their values to the step
by their keys; :func:`~rankproof.engines.executor.choose` refuses one given
while another executor runs the step ("--spark-master is for --engine spark").
A new executor's option is one :class:`~rankproof.engines.executor.Setting`
in its class, not a line here.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_engine_options(parser)
>>> args = parser.parse_args(["--engine", "spark", "--spark-master", "local[1]"])
>>> args.engine, executor_settings(args)
('spark', ({'spark_master': 'local[1]'}, {'spark_master': '--spark-master'}))
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["engine_choices", "add_engine_options", "executor_settings"]


def engine_choices() -> tuple[str, ...]:
    """What --engine chooses: the engines the registry offers, then its executors (spark)."""
    from ..engines import engine_names

    return tuple(engine_names())


def _executors() -> list:
    from ..engines.executor import executor_names, get_executor

    return [get_executor(name) for name in executor_names()]


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine``, then each registered executor's own options under ``--engine NAME``."""
    from ..engines import DEFAULT_ENGINE, EXECUTORS

    choices = engine_choices()
    offered = [e for e in _executors() if e.name in choices]
    engines = [name for name in choices if name not in EXECUTORS]
    parser.add_argument("--engine", choices=choices, default=DEFAULT_ENGINE,
                        help=f"what computes the measures: {' or '.join(engines)} on this machine "
                             f"(default {DEFAULT_ENGINE})"
                             + "".join(f", or {e.name}" + (f" ({e.summary})" if e.summary else "")
                                       for e in offered))
    for executor in _executors():
        if executor.settings:   # one chosen from the inputs (out of core) is named, not asked for
            asking = f"--engine {executor.name}" if executor in offered else \
                f"the {executor.name} executor"
            group = parser.add_argument_group(asking + (f" ({executor.summary})"
                                                        if executor.summary else ""))
            for setting in executor.settings:
                group.add_argument(setting.flag, dest=setting.dest, metavar=setting.metavar,
                                   help=f"with {asking}: {setting.help}")


def executor_settings(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """Every executor's settings as given (None: not given), by key, and each key's option."""
    declared = [setting for executor in _executors() for setting in executor.settings]
    return ({setting.dest: getattr(args, setting.dest, None) for setting in declared},
            {setting.dest: setting.flag for setting in declared})
