"""``--label NAME=RUN``: naming runs on the command line.

A run is named by its file name by default (its path where two files share
a name). ``--label bm25=runs/bm25.txt`` names it ``bm25`` instead; ``RUN``
may be the path as given, the same file by another path, or the default name.
"""

from __future__ import annotations

import os
from typing import Sequence

from ..errors import InputError
from .usage import literal

__all__ = ["apply_labels"]


def apply_labels(labels: Sequence[str] | None, paths: Sequence[str],
                 names: Sequence[str]) -> list[str]:
    """The run names after the ``--label NAME=RUN`` options.

    Parameters
    ----------
    labels : list of "NAME=RUN", or None
    paths : the run files, as given
    names : their default names, aligned with `paths`

    Examples
    --------
    >>> apply_labels(["BM25=a/bm25.run"], ["a/bm25.run", "a/ql.run"], ["bm25.run", "ql.run"])
    ['BM25', 'ql.run']
    >>> apply_labels(["QL=ql.run"], ["a/bm25.run", "a/ql.run"], ["bm25.run", "ql.run"])
    ['bm25.run', 'QL']
    """
    result = list(names)
    if not labels:
        return result
    real = [os.path.realpath(p) for p in paths]
    labelled: dict[int, str] = {}
    for item in labels:
        name, sep, run = item.partition("=")
        name, run = name.strip(), run.strip()
        if not sep or not name or not run:
            raise InputError(source=f"--label {item!r}", what="write NAME=RUN",
                             fix="for example --label bm25=runs/bm25.txt")
        matches = [i for i, (path, default) in enumerate(zip(paths, names))
                   if run in (path, default) or os.path.realpath(run) == real[i]]
        if not matches:
            raise InputError(source=f"--label {item}",
                             what=literal(f"{run} is not one of the runs given ({', '.join(paths)})"),
                             fix="give the run's path or file name after '='")
        index = matches[0]
        if index in labelled:
            raise InputError(source=f"--label {item}",
                             what=literal(f"{paths[index]} is already labelled {labelled[index]}"),
                             fix="label each run once")
        labelled[index] = result[index] = name
    repeated = sorted({n for n in result if result.count(n) > 1})
    if repeated:
        raise InputError(source="--label", what=literal(f"two runs would be named {repeated[0]}"),
                         fix="give each run a distinct name")
    return result
