"""Side data on the command line: --items, --train, --features, --groups, and the measures that read them.

``rankproof evaluate`` takes side-data measures (``coverage@10``, ``novelty@10``,
...: :data:`rankproof.recsys.registry.SIDE_REGISTRY`) in ``-m`` beside the
accuracy measures. A side-data measure whose side data is not given is
refused in one line naming the flag, before any file is read.
"""

from __future__ import annotations

import argparse
from typing import Any

from .usage import usage

__all__ = ["add_side_options", "split", "side_data", "SIDE_HELP"]

SIDE_HELP = {
    "items": "the item catalogue (column item): coverage's universe",
    "train": "training interactions (columns user, item): popularity for novelty, long-tail share, ...",
    "features": "item categories (columns item, category; 'Action|Comedy' is two) for ILD, calibration, ...",
    "groups": "user groups (columns user, group): values per group",
}


def add_side_options(parser: argparse.ArgumentParser) -> None:
    """--items, --train, --features, --groups: side data files (CSV, TSV, JSON Lines or Parquet).

    The flags are ``--`` and the kind (``rankproof.recsys.side.SIDE_FLAGS``, not imported here: building
    the parser loads no reader).
    """
    for kind, text in SIDE_HELP.items():
        parser.add_argument(f"--{kind}", metavar="FILE", help=text + " (CSV, TSV, JSONL or Parquet)")


def split(texts) -> tuple[list, list]:
    """(accuracy measure texts, side-data measures) of -m."""
    from ..recsys.side_eval import split_measures

    return split_measures(list(texts))


def side_data(args, command: str, measures) -> object:
    """The side data the measures need, read; refused in one line when a flag is missing,
    or given without a measure that reads it."""
    from ..recsys.registry import missing_side_data
    from ..recsys.side import SIDE_FLAGS, SideData
    from ..recsys.side_io import read_features, read_groups, read_items, read_train

    given = {kind: getattr(args, kind, None) for kind in SIDE_FLAGS}
    # What is given stands for "present" while checking; files are read after.
    present = SideData(**{kind: (object() if path is not None else None)  # type: ignore[arg-type]
                          for kind, path in given.items()})
    for measure in measures:
        lacking = missing_side_data(measure, present)
        if lacking is not None:
            raise usage(command, f"{measure} needs side data that was not given", f"give it with {lacking}")
    for kind, path in given.items():
        if path is not None and path == "-":
            raise usage(command, f"{SIDE_FLAGS[kind]} - : side data is read from a file, not stdin",
                        "give a path")
    def read(kind: str, reader) -> Any:
        return reader(given[kind]) if given[kind] is not None else None

    return SideData(items=read("items", read_items), train=read("train", read_train),
                    features=read("features", read_features), groups=read("groups", read_groups))
