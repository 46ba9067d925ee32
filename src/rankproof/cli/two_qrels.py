"""The inputs of the commands that read two sets of judgments, then runs (agree, judge-bias, ppi).

``rankproof agree A B [RUN...]``, ``rankproof judge-bias HUMAN JUDGE RUN...``
and ``rankproof ppi HUMAN JUDGE RUN [BASELINE]`` compare two sources of
judgments: the first two inputs are qrels, the rest runs. Each source is read
on its own, so ``--layer`` (which would merge them) is refused, as is a second
input from stdin; the runs are read as every command reads them
(:func:`.inputs.read_inputs`, beside the first qrels).
"""

from __future__ import annotations

import os
from typing import Iterator

from .inputs import read_inputs, read_qrels, run_names
from .usage import usage

__all__ = ["LAYER_AS_ONE_FILE", "read_two_qrels", "same_judgments"]

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
    --qrels), counted with the inputs when stdin ('-') is given twice. The same file given
    for two sources of judgments is refused (``_same_file``): compared with itself it agrees
    perfectly, a number resting on a mistake (:func:`same_judgments` says so of a copy).
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
    twice = _same_file([first, second, *further])
    if twice:
        raise usage(command, f"{twice} is given twice as judgments: the same file agrees with "
                             "itself, which says nothing about two sources",
                    "give each source's own qrels file")
    names = run_names(paths, args.label)
    read: Iterator[tuple[str, object]]
    if paths:
        qrels, read = read_inputs(args, first, paths, names, intents=False)
    else:
        qrels, read = read_qrels(args, first), iter(())
    return qrels, read_qrels(args, second), names, read


def _same_file(paths: list[str]) -> str | None:
    """The first path that names the same file as an earlier one (stdin aside), or None."""
    seen: list[str] = []
    for path in paths:
        if path == "-":
            continue
        for earlier in seen:
            try:
                same = os.path.samefile(path, earlier)
            except OSError:  # a file that is not there: its reader says so
                same = os.path.abspath(path) == os.path.abspath(earlier)
            if same:
                return path
        seen.append(path)
    return None


def same_judgments(judgments: list[dict], names: list[str]) -> list[str]:
    """A warning for each source whose judgments equal an earlier one's, grade for grade: two files
    with one content (a copy, or the same file under two names) agree perfectly, and the
    agreement measured says only that.

    >>> print(*same_judgments([{"q": {"d": 1}}, {"q": {"d": 2}}, {"q": {"d": 1}}], ["a", "b", "c"]))
    warning: c holds the same judgments as a (every grade equal): what is measured is a file's agreement with itself; was the same file given twice?
    """
    found = []
    for index, judged in enumerate(judgments):
        earlier = next((j for j in range(index) if judgments[j] == judged), None)
        if earlier is not None and judged:
            found.append(f"warning: {names[index]} holds the same judgments as {names[earlier]} "
                         "(every grade equal): what is measured is a file's agreement with itself; "
                         "was the same file given twice?")
    return found
