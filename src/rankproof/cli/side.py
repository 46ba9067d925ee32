"""Side data on the command line: --items, --train, --features, --groups, and the measures that read them.

``rankproof evaluate`` takes side-data measures (``coverage@10``, ``novelty@10``,
...: :data:`rankproof.recsys.registry.SIDE_REGISTRY`) in ``-m`` beside the
accuracy measures. A side-data measure whose side data is not given is
refused in one line naming the flag, before any file is read.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from .usage import usage

if TYPE_CHECKING:
    from ..recsys.side import SideData

__all__ = ["add_side_options", "split", "side_data", "side_data_later", "later", "side_columns",
           "unread_side_data",
           "rank_owned_run", "SIDE_HELP", "SIDE_COLUMNS"]

SIDE_HELP = {
    "items": "the item catalogue (column item): coverage's universe",
    "train": "training interactions (columns user, item): popularity for novelty, long-tail share, ...",
    "features": "item categories (columns item, category; 'Action|Comedy' is two) for ILD, calibration, ...",
    "groups": "user groups (columns user, group): values per group",
}

# The columns --side-columns renames, and the readers' arguments (and flags) that read each one.
SIDE_COLUMNS = {"user": ("train", "groups"), "item": ("items", "train", "features"),
                "category": ("features",),
                "group": ("groups",), "count": ("train",)}


def add_side_options(parser: argparse.ArgumentParser) -> None:
    """--items, --train, --features, --groups: side data files (CSV, TSV, JSON Lines or Parquet).

    The flags are ``--`` and the kind (``rankproof.recsys.side.SIDE_FLAGS``, not imported here: building
    the parser loads no reader).
    """
    for kind, text in SIDE_HELP.items():
        parser.add_argument(f"--{kind}", metavar="FILE",
                            help=text + " (CSV, TSV, JSONL or Parquet)")
    parser.add_argument("--side-columns", metavar="SPEC",
                        help="the side data's column names, when not the defaults: e.g. "
                             "user=uid,item=movie,category=genres,group=segment,count=n (count: interactions "
                             "per row of --train; user=none: --train is a popularity table, item and count)")


def side_columns(text: "str | None", command: str) -> dict[str, dict[str, "str | None"]]:
    """--side-columns as each reader's keyword arguments: ``{"train": {"user": "uid"}, ...}``."""
    per_kind: dict[str, dict[str, "str | None"]] = {kind: {} for kind in SIDE_HELP}
    for pair in (text or "").split(","):
        if not pair.strip():
            continue
        role, equals, name = (part.strip() for part in pair.partition("="))
        if role not in SIDE_COLUMNS or not equals or not name:
            raise usage(command,
                        f"--side-columns {pair.strip()!r} is not ROLE=NAME with a role among "
                        f"{', '.join(SIDE_COLUMNS)}",
                        "write e.g. --side-columns user=uid,item=movie")
        for kind in SIDE_COLUMNS[role]:
            # user=none: --train is a popularity table (item, count), --groups still needs its users
            per_kind[kind][role] = None if (role, name, kind) == ("user", "none", "train") else name
    return per_kind


def split(texts) -> tuple[list, list]:
    """(accuracy measure texts, side-data measures) of -m.

    When every text reads as an accuracy measure (the two registries share no
    name), the recommender package is not imported: a plain evaluation is a
    whole process that a user times against trec_eval (~30 ms of imports)."""
    from ..errors import RankproofError
    from ..measures.parse import parse_measure
    from ..measures.sets import expand_sets

    texts = expand_sets(texts)
    try:
        for text in texts:
            parse_measure(text)
        return texts, []
    except RankproofError:
        pass   # a side-data measure, an alias or a typo: the recommender package tells which
    from ..recsys.side_eval import split_measures

    return split_measures(texts)


# recsys.side.SIDE_KINDS, here too so that a plain evaluation (no side-data flag, no side-data
# measure) does not import the recommender package (tests/cli/test_cli_imports.py holds them equal).
SIDE_ARGUMENTS = ("items", "train", "features", "groups")


def _nothing_to_read(args, measures) -> bool:
    return not measures and all(getattr(args, kind, None) is None for kind in SIDE_ARGUMENTS)


def unread_side_data(args, measures) -> list[str]:
    """The side-data flags given that no measure of -m reads (evaluate shows nothing of them)."""
    if _nothing_to_read(args, measures):
        return []
    from ..recsys.side import SIDE_FLAGS

    return [flag for kind, flag in SIDE_FLAGS.items() if getattr(args, kind, None) is not None
            and not any(measure.spec.reads_side(kind) for measure in measures)]


def rank_owned_run(run, protocol) -> bool:
    """:func:`rankproof.recsys.topk.rank_owned_run`: a run the command read and keeps for its side-data
    measures, ranked once in its own buffers before the evaluation (which then sorts nothing, nor
    does the measures' cut)."""
    from ..recsys.topk import rank_owned_run as rank

    return rank(run, protocol)


def later(work: "Callable[[], Any]", name: str) -> "Callable[[], Any]":
    """`work()` started in a daemon thread (named `name`; a process that ends meanwhile does not
    wait for it): the returned function waits for it and gives its value, or raises, in the
    caller's thread, what it raised."""
    import threading

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:   # handed to the caller's thread, raised there
            outcome["error"] = error

    worker = threading.Thread(target=run, name=name, daemon=True)
    worker.start()

    def result() -> Any:
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]
    return result


def side_data_later(args, command: str, measures, skip=()) -> "Callable[[], SideData | None]":
    """:func:`side_data` read in a background thread while the caller reads and evaluates its runs:
    the flags are checked now (a missing one refused at once, before any file is read); the returned
    function waits for the files and gives the side data, or raises what reading them raised."""
    if _nothing_to_read(args, measures):
        return lambda: None
    side_data(args, command, measures, skip, read_files=False)
    # A daemon thread: a run refused meanwhile ends the process without waiting for the side files.
    return later(lambda: side_data(args, command, measures, skip), "rankproof-side-data")


def side_data(args, command: str, measures, skip=(), read_files: bool = True) -> "SideData | None":
    """The side data the measures need, read; refused in one line when a flag is missing.

    The flags of `skip` are left unread; None when no side-data flag and no side-data measure is given
    (or, with ``read_files=False``, after the flags are checked)."""
    if _nothing_to_read(args, measures):
        return None
    from ..io.arrow import MissingColumnsError
    from ..recsys.registry import missing_side_data
    from ..recsys.side import SIDE_FLAGS, SideData
    from ..recsys.side_io import read_features, read_groups, read_items, read_train

    given = {kind: (getattr(args, kind, None) if SIDE_FLAGS[kind] not in skip else None)
             for kind in SIDE_FLAGS}
    # What is given stands for "present" while checking; files are read after.
    present = SideData(**{kind: (object() if path is not None else None)  # type: ignore[arg-type]
                          for kind, path in given.items()})
    for measure in measures:
        lacking = missing_side_data(measure, present)
        if lacking is not None:
            raise usage(command, f"{measure} needs side data that was not given",
                        f"give it with {lacking}")
    for kind, path in given.items():
        if path is not None and path == "-":
            raise usage(command, f"{SIDE_FLAGS[kind]} - : side data is read from a file, not stdin",
                        "give a path")
    if not read_files:
        return None
    named = side_columns(getattr(args, "side_columns", None), command)

    def read(kind: str, reader) -> Any:
        if given[kind] is None:
            return None
        try:
            return reader(given[kind], **named[kind])
        except MissingColumnsError as error:
            raise _in_option_words(error, SIDE_FLAGS[kind]) from None

    readers = {"items": read_items, "train": read_train, "features": read_features,
               "groups": read_groups}
    wanted = [kind for kind in readers if given[kind] is not None]
    if len(wanted) < 2:
        return SideData(**{kind: read(kind, readers[kind]) for kind in wanted})
    from concurrent.futures import ThreadPoolExecutor

    # The files are read side by side (Parquet and Arrow's kernels release the GIL: the training
    # log, the largest, is read beside the catalogue and the features); a bad file is still reported
    # in the order of the flags, as when they were read one after the other.
    with ThreadPoolExecutor(max_workers=2) as pool:
        pending = {kind: pool.submit(read, kind, readers[kind]) for kind in wanted}
        return SideData(**{kind: pending[kind].result() for kind in wanted})


def _in_option_words(error, flag: str) -> Exception:
    """A side file's missing column, worded with the command line's options (--side-columns)."""
    from ..errors import InputError, literal

    if error.no_header:
        return error
    shown = " and ".join(f"no column {name!r} (the {role} column of {flag})"
                         for role, name in error.missing.items())
    listing = ", ".join(repr(name) for name in error.present) or "none"
    example = ",".join(f"{role}=NAME" for role in error.missing)
    table = (" (user=none: the file is a popularity table)" if flag == "--train"
             and "user" in error.missing else "")
    return InputError(source=error.source, line=error.line, what=literal(shown),
                      fix=literal(f"its columns are {listing}; name them with --side-columns {example}{table}"))
