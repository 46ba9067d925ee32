"""The inputs of the commands that read two sets of judgments, then runs (agree, judge-bias, ppi).

``rankproof agree A B [RUN...]``, ``rankproof judge-bias HUMAN JUDGE RUN...``
and ``rankproof ppi HUMAN JUDGE RUN [BASELINE]`` compare two sources of
judgments: the first two inputs are qrels, the rest runs. Each source is read
on its own, so ``--layer`` (which would merge them) is refused, as is a second
input from stdin; the runs are read as every command reads them
(:func:`.inputs.read_inputs`, beside the first qrels).
"""

from __future__ import annotations

from typing import Iterator

from .inputs import read_inputs, read_qrels, run_names
from .usage import usage

__all__ = ["LAYER_AS_ONE_FILE", "read_two_qrels"]

#: The refusal of --layer where each source is one qrels file: (what, fix).
LAYER_AS_ONE_FILE = ("--layer: give the layered qrels of each source as one file here",
                     "layer them with rankproof evaluate --layer, or Qrels.layer in Python")


def read_two_qrels(args, command: str, *, runs: tuple[int, int | None], give: str,
                   layer: tuple[str, str] = LAYER_AS_ONE_FILE,
                   further: tuple[str, ...] = ()) -> tuple:
    """The two qrels of ``args.inputs``, the runs' names and an iterator over (name, run).

    `runs` is the least and the most number of runs (None: no most); outside it
    the command refuses in the words of `give`. `layer` is the (what, fix) of
    the refusal of ``--layer``; `further` are other inputs of the command (agree's
    --qrels), counted with the inputs when stdin ('-') is given twice.
    """
    least, most = runs
    count = len(args.inputs) - 2
    if count < least or (most is not None and count > most):
        raise usage(command, give)
    if args.layer:
        raise usage(command, *layer)
    if sum(path == "-" for path in [*args.inputs, *further]) > 1:
        raise usage(command, "stdin ('-') is given for two inputs",
                    "read at most one input from stdin")
    first, second, *paths = args.inputs
    names = run_names(paths, args.label)
    read: Iterator[tuple[str, object]]
    if paths:
        qrels, read = read_inputs(args, first, paths, names, intents=False)
    else:
        qrels, read = read_qrels(args, first), iter(())
    return qrels, read_qrels(args, second), names, read
