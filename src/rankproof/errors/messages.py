"""One table of the advice rankproof's messages give, in two spellings and for three worlds.

A message that tells the reader what to do names an option. In Python that is a
parameter or a policy (``allow_partial=True``, ``Protocol(rel=4)``); on the command
line, a flag (``--allow-partial``, ``--policy rel=4``). Each option is written here
once, in both spellings, and a message names it by key: an error's ``fix`` as
``{do[allow_partial]}`` (filled in by :func:`rankproof.errors.render`, in the spelling
asked for: Python's by default, the command line's when ``rankproof`` prints it), and
other text through :func:`spell`. So a Python error names Python names only and a CLI
error CLI flags only.

>>> spell("check the ids, or {do[allow_partial]} to evaluate it anyway", CLI)
'check the ids, or pass --allow-partial to evaluate it anyway'
>>> spell("check the ids, or {do[allow_partial]} to evaluate it anyway")
'check the ids, or pass allow_partial=True to evaluate it anyway'

The world of the data decides which advice appears at all. TREC qrels judge a pool:
a doc outside it is *unjudged*, which is not the same as non-relevant, and the
results say so. A recommender log's truth, and a RAG row's reference ids, are
complete by definition: an item absent from a user's truth is non-relevant, so the
TREC advice ("unjudged is not non-relevant") would be wrong there.

>>> applies("unjudged_advice", LOG), applies("unjudged_advice", TREC)
(False, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Iterator

__all__ = ["PYTHON", "CLI", "SPELLINGS", "TREC", "LOG", "RAG", "WORLDS", "OPTIONS", "ADVICE",
           "Spelling",
           "spell", "applies", "world_of_columns", "LOG_COLUMNS", "TRUTH_NOTE",
           "REFERENCE_NOTE", "swap_hint", "SCORE_COLUMNS", "GRADE_COLUMNS"]

PYTHON = "python"
CLI = "cli"
SPELLINGS = (PYTHON, CLI)

TREC = "trec"   # qrels and runs: a judged pool, unjudged docs are unknown
LOG = "log"     # a recommender's truth and predictions: the truth is complete
RAG = "rag"     # RAG rows: each row's reference ids are complete for it
WORLDS = (TREC, LOG, RAG)

def _switch(verb: str, keyword: str, flag: str = "") -> tuple[str, str]:
    """A yes/no option in its two spellings: ``keyword=True`` and its flag (the keyword's
    own name with dashes unless `flag` says otherwise), after `verb`."""
    return f"{verb} {keyword}=True", f"{verb} --{flag or keyword.replace('_', '-')}"


def _policy(setting: str) -> tuple[str, str]:
    """A policy set to a value (``ties=input``) in its two spellings."""
    return f"set the policy {setting}", f"give --policy {setting}"


# key: (Python spelling, command line spelling). An option with a value is named as
# ``{do[key=value]}`` (``{do[chunk_sep=#]}``), which fills its ``{value}``.
OPTIONS: dict[str, tuple[str, str]] = {
    "allow_partial": _switch("pass", "allow_partial"),
    "min_coverage": ("lower min_coverage", "lower --min-coverage"),
    "allow_mismatch": _switch("pass", "allow_mismatch"),
    "folds": ("use between 2 folds and the number of judged queries (folds=)",
              "give --folds between 2 and the number of judged queries"),
    "bounds": _switch("evaluate with", "bounds"),
    "ties_range": _switch("evaluate with", "ties_range", flag="tie-range"),
    "ties_input": _policy("ties=input"),
    "ids_casefold": _policy("ids=casefold"),
    "chunk_map": ("set the policy chunk_map (chunk_map='sep:#', 'regex:PATTERN' or 'file:PATH')",
                  "give --chunk-map (sep:#, regex:PATTERN or file:PATH)"),
    "chunk_sep": ("set chunk_map='sep:{value}'", "give --chunk-map sep:{value}"),
    "condense": ("compare with Protocol(unjudged='condense')",
                 "compare with --policy unjudged=condense"),
    "judged_at": ("check judged@{value}", "check -m judged@{value}"),
    "grade_map": ("map the grades to a smaller scale (rankproof.data.grades.map_grades)",
                  "map the grades to a smaller scale (--grade-map)"),
    "real_grades": ("set the policy grades=real (Qrels.read(..., grades='real'))",
                    "give --policy grades=real"),
    "intents": ("read the qrels with rankproof.IntentQrels.read(...)", "give --intents"),
    "judgments_first": ("pass the judgments first: evaluate(qrels, run), "
                        "evaluate_frame(truth, predictions)",
                        "give the judgments first: rankproof evaluate QRELS RUN"),
}

# Column names that say what a table holds, lower case: a score column makes a table a run
# (predictions), a grade column makes it judgments (a truth).
SCORE_COLUMNS = frozenset({"score", "scores", "sim", "similarity", "prediction", "predicted",
                           "pred"})
GRADE_COLUMNS = frozenset({"grade", "rel", "relevance", "label", "judgment", "rating", "qrel"})

# Advice and the worlds it is true in. "unjudged_advice": the TREC warning that unjudged
# docs inside the cutoff are scored as non-relevant; "truth_note": the log's statement that
# its truth is complete; "rating_note": graded truth counted as relevant from grade 1 on.
ADVICE: dict[str, tuple[str, ...]] = {
    "unjudged_advice": (TREC,),
    "truth_note": (LOG,),
    "reference_note": (RAG,),
    "rating_note": (LOG, RAG, TREC),
}

# What a log's results state (Results.notes): its truth is complete.
TRUTH_NOTE = "truth: an item absent from a user's truth is non-relevant (counted as unjudged)"
# ... and a RAG file's: each row's reference ids are all its relevant ids.
REFERENCE_NOTE = "reference ids: an id absent from a row's reference ids is non-relevant (counted as unjudged)"

# Column names that make a table a recommender log (the user and item columns of a truth file).
LOG_COLUMNS = frozenset({"user", "user_id", "userid", "item", "item_id", "itemid"})


class Spelling(Mapping):
    """The options of :data:`OPTIONS` in one spelling, for ``str.format``'s ``{do[key]}``."""

    def __init__(self, spelling: str = PYTHON) -> None:
        if spelling not in SPELLINGS:
            raise ValueError(f"spelling must be one of {SPELLINGS}, not {spelling!r}")
        self._index = SPELLINGS.index(spelling)

    def __getitem__(self, key: str) -> str:
        name, _, value = key.partition("=")
        text = OPTIONS[name][self._index]
        return text.replace("{value}", value) if value else text

    def __iter__(self) -> Iterator[str]:
        return iter(OPTIONS)

    def __len__(self) -> int:
        return len(OPTIONS)


def spell(template: str, spelling: str = PYTHON, **fields: object) -> str:
    """`template` with its ``{do[key]}`` options in `spelling` and its other fields filled in."""
    return template.format(do=Spelling(spelling), **fields)


def applies(advice: str, world: str) -> bool:
    """Whether the advice of :data:`ADVICE` is true of data of this world."""
    return world in ADVICE[advice]


def swap_hint(present: object, missing: object) -> str | None:
    """The hint for judgments and rankings given in each other's place, or None.

    A table read as judgments that misses its grade column but has a score column is a
    run; a table read as a run that misses its score column but has a grade column (and
    no score column) is judgments. Following the usual advice (name the grade column)
    would then read scores as grades: the hint comes first.

    >>> swap_hint(["user", "item", "score"], ["grade"])
    "its columns look like rankings (a score column, 'score'), not judgments: check that the judgments \
and the rankings are not swapped, {do[judgments_first]}"
    >>> swap_hint(["user", "item", "rating"], ["score"]) is not None, swap_hint(["qid", "docno"], ["grade"])
    (True, None)
    """
    names = {str(name).lower(): str(name) for name in present}  # type: ignore[attr-defined]
    wanted = {str(role).lower() for role in missing}  # type: ignore[attr-defined]
    scores = [names[n] for n in names if n in SCORE_COLUMNS]
    grades = [names[n] for n in names if n in GRADE_COLUMNS]
    if wanted & {"grade", "rating"} and scores:
        seen, held, instead = "rankings (a score column", scores[0], "judgments"
    elif "score" in wanted and grades and not scores:
        seen, held, instead = "judgments (a grade column", grades[0], "rankings"
    else:
        return None
    # a template: the column's braces stay braces
    held = held.replace("{", "{{").replace("}", "}}")
    return (f"its columns look like {seen}, {held!r}), not {instead}: check that the judgments and the "
            "rankings are not swapped, {do[judgments_first]}")


def world_of_columns(names: object) -> str:
    """:data:`LOG` when the columns named for the query and doc roles are a user's and an item's, else
    :data:`TREC`.

    >>> world_of_columns(["user", "item", "rating"]), world_of_columns(["qid", "docno"])
    ('log', 'trec')
    """
    names = names if isinstance(names, (list, tuple, set, frozenset)) else [names]
    return LOG if any(str(name).lower() in LOG_COLUMNS for name in names) else TREC
