"""``rankproof evaluate --dataset NAME RUN...``: judgments from an ir_datasets dataset by name.

The dataset's declared official measures become the default measures (read
through the peers' names: ir_measures' ``nDCG@10`` is ``ndcg@10``), and its
known quirks are applied as named steps and printed: BEIR's ArguAna and Quora
list a query's own id among the docs, which MTEB and BEIR drop from runs
(``ignore_identical_ids``). Needs ``rankproof[datasets]``.
"""

from __future__ import annotations

import argparse
from typing import Any

from .usage import usage

__all__ = ["add_dataset_option", "positionals", "dataset_qrels", "default_measures", "apply_quirks"]


def add_dataset_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", metavar="NAME",
                        help="judgments of an ir_datasets dataset (rankproof[datasets]); every positional is then "
                             "a run, the dataset's official measures are the default, its known quirks are applied")


def positionals(args, command: str) -> tuple[str | None, list[str]]:
    """(qrels path or None with --dataset, the runs) from the positionals."""
    if getattr(args, "dataset", None):
        return None, [args.qrels, *args.runs]
    if not args.runs:
        raise usage(command, "a run is required: give the qrels and at least one run",
                    "rankproof evaluate QRELS RUN [RUN ...], or --dataset NAME RUN [RUN ...]")
    return args.qrels, list(args.runs)


def dataset_qrels(name: str):
    """(Qrels, DatasetInfo) of the dataset."""
    from ..data.datasets import dataset_qrels as load
    from ..data.qrels import Qrels

    judgments, info = load(name)
    return Qrels.from_dict(judgments, source=name), info


def default_measures(info, asked) -> tuple[list, list[str]]:
    """The measures asked for, else the dataset's official ones that rankproof reads; and notes."""
    from ..errors import MeasureError
    from ..measures.parse import parse_measures

    if asked or not info.official_measures:
        return [], []
    measures, skipped = [], []
    for text in info.official_measures:
        try:
            measures += parse_measures([text])
        except MeasureError:
            skipped.append(text)
    notes = [f"{info.name}: its official measures {', '.join(info.official_measures)}"]
    if skipped:
        notes.append(f"{info.name}: not computed here: {', '.join(skipped)}")
    return measures, notes


def apply_quirks(info, run) -> tuple[Any, list[str]]:
    """The run with the dataset's quirks applied, and a note per quirk."""
    from ..data.run import Run

    notes = []
    for quirk, why in info.quirks:
        if quirk == "ignore_identical_ids":
            table = run.to_dict()
            kept = {query: {doc: score for doc, score in docs.items() if doc != query}
                    for query, docs in table.items()}
            dropped = (sum(len(docs) for docs in table.values())
                       - sum(len(docs) for docs in kept.values()))
            run = Run.from_dict(kept, name=run.name)
            notes.append(f"{info.name}: {quirk} applied to {run.name}: {dropped} ranked docs whose id is their "
                         "query's were dropped, as MTEB and BEIR do")
    return run, notes
