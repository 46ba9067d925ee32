"""One exception hierarchy for every user-facing error.

Every message says what was wrong, where (file, line, query, doc) and what to
do about it, so the command line can print it as one line and exit with 2.
Internal bugs are never raised as :class:`RankproofError`.

An error raised with fields (``what``, ``source``, ``line`` or ``row``,
``query``, ``doc``, ``value``, ``fix``) is rendered by one function, :func:`render`, in
a :class:`Vocabulary`: the same duplicate is "query 7, doc d3: the doc is
listed twice for this query" from a run file and "user 7, item d3: the item
is listed twice for this user" from ``evaluate_frame``, chosen by field,
never by rewriting the text. ``what`` and ``fix`` name the words of the
vocabulary as ``{query}``, ``{doc}``, ``{grade}``, ``{queries}``, ``{docs}``,
``{grades}``, with their article as ``{a_query}``, ``{a_doc}``, ``{a_grade}``
("a doc", "an item"), and a judgment (one row of the qrels) as
``{judgment}``, ``{judgments}``, ``{judged}``. Text from the input (an id, a
value, a column name) goes into ``what`` through :func:`literal`, so that its
braces stay braces.

>>> error = DuplicateError(what="the {doc} is listed twice for this {query}", source="run.txt", line=3,
...                        query="7", doc="d3", fix="set the policy duplicates=first to keep the first")
>>> str(error)
'run.txt line 3: query 7, doc d3: the doc is listed twice for this query; set the policy duplicates=first to keep the first'
>>> error.render(USERS_AND_ITEMS)
'run.txt line 3: user 7, item d3: the item is listed twice for this user; set the policy duplicates=first to keep the first'
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .messages import PYTHON, Spelling

__all__ = [
    "Vocabulary",
    "literal",
    "shorten",
    "QUERIES_AND_DOCS",
    "USERS_AND_ITEMS",
    "render",
    "RankproofError",
    "InputError",
    "ParseError",
    "DuplicateError",
    "UnjudgedError",
    "TieError",
    "ZeroIdealError",
    "MissingQueryError",
    "ProtocolError",
    "MeasureError",
    "ComparabilityError",
    "RankproofWarning",
]


@dataclasses.dataclass(frozen=True)
class Vocabulary:
    """The words a front door's users use for queries, docs and grades."""

    query: str = "query"
    doc: str = "doc"
    grade: str = "grade"
    judgment: str = "judgment"  # one row of the qrels
    judged: str = "judged"      # said of a (query, doc) found in the qrels
    # The words with their article, when it is not "a" ("an item").
    a_query: str | None = None
    a_doc: str | None = None
    a_grade: str | None = None

    def words(self) -> dict[str, str]:
        return {"query": self.query, "doc": self.doc, "grade": self.grade,
                "queries": _plural(self.query), "docs": _plural(self.doc),
                "grades": _plural(self.grade),
                "judgment": self.judgment, "judgments": self.judgment + "s", "judged": self.judged,
                "a_query": self.a_query or "a " + self.query,
                "a_doc": self.a_doc or "a " + self.doc,
                "a_grade": self.a_grade or "a " + self.grade}


def _plural(word: str) -> str:
    """query -> queries, doc -> docs."""
    return (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in tuple("aeiou") else word
            + "s")


QUERIES_AND_DOCS = Vocabulary()
USERS_AND_ITEMS = Vocabulary(query="user", doc="item", grade="rating", judgment="row",
                             judged="in the truth",
                             a_doc="an item")


def literal(text: object) -> str:
    """Text from the input inside a ``what`` or ``fix`` template, its braces kept as braces.

    >>> render(what=f"no column {literal(repr('{x}'))} (named by {{grade}}=)", vocabulary=USERS_AND_ITEMS)
    "no column '{x}' (named by rating=)"
    """
    return str(text).replace("{", "{{").replace("}", "}}")


def shorten(text: object, width: int = 60, *, tell_length: bool = False) -> str:
    """Text from the input cut to `width` characters, so that a message stays one
    readable line: an ellipsis marks the cut, and `tell_length` adds how long it was.

    >>> shorten("x" * 100, 10), shorten("x" * 100, 10, tell_length=True), shorten("short")
    ('xxxxxxx...', 'xxxxxxx... (100 characters)', 'short')
    """
    text = str(text)
    if len(text) <= width:
        return text
    cut = text[: width - 3] + "..."
    return f"{cut} ({len(text):,} characters)" if tell_length else cut


def render(*, what: str, source: str | None = None, line: int | None = None, query: Any = None,
           doc: Any = None, fix: str | None = None, vocabulary: Vocabulary = QUERIES_AND_DOCS,
           row: int | None = None, spelling: str = PYTHON) -> str:
    """The one line an error prints: where, what was wrong, and what to do.

    An option the fix names as ``{do[allow_partial]}`` is written in `spelling`
    (:mod:`rankproof.errors.messages`): Python's parameter, or the command line's flag.

    >>> render(what="the run ranks none of the judged {queries}", fix="{do[allow_partial]}", spelling="cli")
    'the run ranks none of the judged queries; pass --allow-partial'
    """
    words: dict[str, Any] = {**vocabulary.words(), "do": Spelling(spelling)}
    text = where(source=source, line=line, query=None if query is None else str(query),
                 doc=None if doc is None else str(doc), vocabulary=vocabulary,
                 row=row) + what.format(**words)
    return text + (f"; {fix.format(**words)}" if fix else "")


def where(
    *,
    source: str | None = None,
    line: int | None = None,
    query: str | None = None,
    doc: str | None = None,
    vocabulary: Vocabulary = QUERIES_AND_DOCS,
    row: int | None = None,
) -> str:
    """Format a location prefix such as ``"run.txt line 17: query q3, doc D12: "``.

    `line` is a line of a text file; `row` the 1-based row of a table (a
    DataFrame, a Parquet file), ``"truth row 2: "``. Parts that are unknown
    are left out; an empty location gives ``""``.
    """
    head = " ".join(
        part
        for part in (source, f"row {row}" if row is not None else None,
                     f"line {line}" if line is not None else None)
        if part
    )
    subject = ", ".join(
        part
        for part in (
            f"{vocabulary.query} {query}" if query is not None else None,
            f"{vocabulary.doc} {doc}" if doc is not None else None,
        )
        if part
    )
    parts = [p for p in (head, subject) if p]
    return (": ".join(parts) + ": ") if parts else ""


class RankproofError(Exception):
    """Base class of every error rankproof raises on bad input or usage.

    Raised either with a finished message, or with fields (``what`` and
    where), which :meth:`render` words in any :class:`Vocabulary`.
    """

    def __init__(self, message: str | None = None, *, what: str | None = None,
                 source: str | None = None,
                 line: int | None = None, query: Any = None, doc: Any = None, value: Any = None,
                 fix: str | None = None, row: int | None = None) -> None:
        self.what, self.source, self.line, self.query, self.doc = what, source, line, query, doc
        self.value, self.fix, self.row = value, fix, row
        self.vocabulary = QUERIES_AND_DOCS
        super().__init__(message if message is not None else self.render())

    @property
    def has_fields(self) -> bool:
        return self.what is not None

    def render(self, vocabulary: Vocabulary = QUERIES_AND_DOCS, spelling: str = PYTHON) -> str:
        """The message in `vocabulary`'s words and `spelling`'s option names (the message as
        given when raised without fields)."""
        if self.what is None:
            return str(self.args[0]) if self.args else ""
        return render(what=self.what, source=self.source, line=self.line, query=self.query,
                      doc=self.doc,
                      fix=self.fix, vocabulary=vocabulary, row=self.row, spelling=spelling)

    def spelled(self, spelling: str) -> str:
        """The message in its own words (those of :meth:`in_words_of`), its options in `spelling`:
        the command line prints ``spelled("cli")``."""
        if self.what is None:
            return str(self)
        return self.render(getattr(self, "vocabulary", QUERIES_AND_DOCS), spelling)

    def fields(self) -> dict[str, Any]:
        """The fields the error was raised with (empty when raised with a finished message)."""
        if self.what is None:
            return {}
        return {"what": self.what, "source": self.source, "line": self.line, "row": self.row,
                "query": self.query,
                "doc": self.doc, "value": self.value, "fix": self.fix}

    def in_words_of(self, vocabulary: Vocabulary) -> "RankproofError":
        """The same error (type and fields) with its message in `vocabulary`'s words."""
        return self._copy({}, vocabulary)

    def replace(self, **changes: Any) -> "RankproofError":
        """The same error (type and every other field) with some fields changed, its message rendered anew.

        >>> InputError(what="bad {doc}", source="tmp1.run").replace(source="run.txt").render()
        'run.txt: bad doc'
        """
        return self._copy(changes, getattr(self, "vocabulary", QUERIES_AND_DOCS))

    def _copy(self, changes: dict[str, Any], vocabulary: Vocabulary) -> "RankproofError":
        copied = type(self)(str(self))
        copied.__dict__.update(self.__dict__)
        copied.__dict__.update(changes)
        copied.vocabulary = vocabulary
        copied.args = (copied.render(vocabulary),)
        return copied


class InputError(RankproofError, ValueError):
    """The qrels, the run or an argument cannot be used as given."""


class ParseError(InputError):
    """A file (or a row of a table) does not have the expected shape."""


class DuplicateError(InputError):
    """A document appears twice for one query."""


class UnjudgedError(InputError):
    """A ranked document has no judgment and the protocol says ``unjudged=error``."""


class TieError(InputError):
    """Tied scores met the protocol ``ties=error``."""


class ZeroIdealError(InputError):
    """A query has no relevant document and the protocol says ``zero_ideal=error``."""


class MissingQueryError(InputError):
    """A query is on one side only and the protocol says that is an error."""


class CoverageError(MissingQueryError):
    """A run ranks too few of the judged queries (none, or fewer than the share asked for)."""


class RankproofWarning(UserWarning):
    """A result that stands but may not mean what was meant (ids that half match, every ranking one tie):
    also stated by ``Results.warnings`` and, on the command line, as a ``warning:`` line."""


class ProtocolError(InputError):
    """An unknown policy, or a value a policy does not accept."""


class MeasureError(InputError):
    """An unknown measure, parameter or cutoff."""


class ComparabilityError(InputError):
    """Runs to compare were evaluated under different protocols, qrels or query sets."""


# The fix every "grade 1.5 is not an integer" message ends with (the grades policy).
REAL_GRADES_HINT = ("or set the policy grades=real to keep real-valued grades "
                    "(Qrels.read(..., grades='real'); rankproof --policy grades=real)")
