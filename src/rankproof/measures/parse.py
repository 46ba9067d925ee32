"""Reading measures from text: ``ndcg@10``, ``ndcg(gain=exp2)@10``, other tools' names.

Every unknown name in a list is reported at once, each with the nearest
known names by meaning and by spelling (:func:`~rankproof.measures.aliases.suggest`).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from typing import Any

from ..errors import MeasureError
from ..errors import literal
from .aliases import resolve, suggest
from .base import REGISTRY, Measure
from .sets import expand_sets
from .vocabulary import VOCABULARIES, kind_of, known_names, spec_of

__all__ = ["parse_measure", "parse_measures", "parse_any", "read_measure_text", "MeasureText",
           "held_measure"]


_MEASURE_TEXT = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$"
)


def _unknown_measure(names: list[str], cutoffs: "list[str | None] | None" = None) -> MeasureError:
    """Every unknown name at once, each with the nearest names of every registry (the side-data
    measures' too, once the recommender package has registered them)."""
    others = {name: spec for name, spec in known_names().items() if name not in REGISTRY}
    parts = []
    for index, name in enumerate(names):
        cutoff = cutoffs[index] if cutoffs else None
        near = difflib.get_close_matches(name[:100].lower(), list(others), n=3, cutoff=0.75)
        near = list(dict.fromkeys(near + suggest(name[:100])))[:3]
        near = [f"{n}@{cutoff}" if cutoff and spec_of(n).cutoff else n for n in near]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        shown = name if len(name) <= 60 else name[:57] + "..."
        parts.append(f"{shown!r}{hint}")
    label = "unknown measure" if len(names) == 1 else "unknown measures"
    side = f"; side-data measures: {', '.join(others)}" if others else ""
    return MeasureError(what=f"{label} {literal('; '.join(parts))}. Known measures: {', '.join(REGISTRY)}{side} "
                        "(and the names of trec_eval, ir_measures and ranx: see `rankproof measures`)",
                        value=names)


def _canonical_text(text: str) -> str:
    """Another tool's name for a measure (P_10, nDCG@10, mrr) as rankproof's text."""
    return resolve(text) or text


@dataclasses.dataclass(frozen=True)
class MeasureText:
    """A measure's text split by the grammar ``name(key=value,...)@k``, before a registry checks the name.

    ``text`` is what was read (another tool's name already read as rankproof's), ``typed`` the text
    as the user wrote it (for the messages). :attr:`params` and :attr:`cutoff` check and give the
    parts after the name: a registry reads them once it knows the name (an unknown name is
    reported before a bad cutoff).
    """

    name: str
    raw_params: "str | None"
    raw_cutoff: "str | None"
    text: str
    typed: str

    @property
    def params(self) -> tuple[tuple[str, str], ...]:
        """The parameters as typed (text), in the order given."""
        return _params(self.raw_params, self.text)

    @property
    def cutoff(self) -> "int | None":
        """The integer after ``@`` (None without one); its range is the measure's to check."""
        return _cutoff(self.name, self.raw_cutoff, self.typed)


def read_measure_text(text: str, typed: "str | None" = None) -> MeasureText:
    """The grammar of every measure's text, ranking and side-data measures alike.

    >>> read = read_measure_text("ild(distance=jaccard)@10")
    >>> read.name, read.params, read.cutoff
    ('ild', (('distance', 'jaccard'),), 10)
    """
    typed = (text if typed is None else typed).strip()
    match = _MEASURE_TEXT.match(text)
    if match is None:
        raise MeasureError(what=f"cannot read measure {literal(repr(text))}", value=text,
                           fix="write it as name, name@k or name(param=value)@k, e.g. ndcg(gain=exp2)@10")
    return MeasureText(match["name"], match["params"], match["cutoff"], text, typed)


def _params(raw: "str | None", text: str) -> tuple[tuple[str, str], ...]:
    params: dict[str, str] = {}
    for item in (raw.split(",") if raw else ()):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise MeasureError(what=f"cannot read parameter {literal(repr(item.strip()))} of "
                               f"{literal(repr(text))}", fix="write key=value", value=text)
        if key.strip() in params:
            raise MeasureError(what=f"parameter {literal(key.strip())} is given twice in {literal(repr(text))}",
                               fix="give each parameter once", value=text)
        params[key.strip()] = value.strip()
    return tuple(params.items())


def _cutoff(name: str, raw: "str | None", typed: str) -> "int | None":
    if raw is None:
        return None
    if not re.fullmatch(r"[+-]?\d+", raw):
        # In the user's words: recall@abc, not the canonical r@abc it was read as.
        said = re.split(r"[@(]", typed, maxsplit=1)[0].strip() or name
        raise MeasureError(what=f"the cutoff k of {literal(said)} must be an integer >= 1; got "
                           f"{literal(repr(raw[:40]))} in {literal(repr(typed[:80]))}. Write {literal(said)}@10, "
                           "for instance", value=raw[:40])
    if len(raw.lstrip("+-")) > 19:   # past 64 bits (and int() refuses past 4,300 digits)
        raise MeasureError(what=f"the cutoff k of {name} has {len(raw):,} digits; it must be at most "
                           f"{2**63 - 1}", value=raw[:40] + "...",
                           fix=f"write {name} without @k to use the whole ranking")
    return int(raw)


def _parse_one(text: str) -> Measure:
    read = read_measure_text(_canonical_text(text), text)
    kind = kind_of(read.name)
    if kind is None:
        raise _unknown_measure([read.name], [read.raw_cutoff])
    if kind != "rank":   # a side-data measure where ranking measures are evaluated
        raise MeasureError(what=f"{literal(read.typed)} is a {kind}-data measure; this evaluation computes "
                           "ranking measures", value=read.typed,
                           fix="evaluate it with rankproof.recsys.evaluate_with_side, or on the command line "
                           "with its side data (rankproof measures lists what each reads)")
    return Measure(read.name, read.cutoff, read.params)


def parse_any(text: Any) -> Any:
    """Read any registered measure, ranking or side-data: the one parser of every name.

    The grammar is ``name(key=value,...)@k``
    (:func:`~rankproof.measures.parse.read_measure_text`); the registry that holds the name
    (:mod:`rankproof.measures.vocabulary`) checks the cutoff and the parameters and makes
    the value.

    Parameters
    ----------
    text : str or measure
        A measure's text (other tools' names too: ``nDCG@10``, ``P_10``), or a measure
        value, returned as it is.

    Returns
    -------
    Measure or SideMeasure
        A :class:`~rankproof.measures.base.Measure` for a ranking measure, a side-data
        measure (``rankproof.recsys.registry.SideMeasure``) for a name of the side-data
        registry, which the recommender package adds when imported (``import rankproof.recsys``).

    Raises
    ------
    MeasureError
        An unknown name (with the nearest names of every registry), a bad cutoff or parameter.

    Examples
    --------
    >>> parse_any("ndcg@10"), parse_any("nDCG@10")
    (Measure('ndcg@10'), Measure('ndcg@10'))
    >>> import rankproof.recsys
    >>> parse_any("coverage@10")
    SideMeasure('coverage@10')
    """
    if isinstance(text, tuple(v.measure_type for v in VOCABULARIES.values())):
        return text
    typed = str(text)
    read = read_measure_text(_canonical_text(typed), typed)
    kind = kind_of(read.name)
    if kind is None:
        raise _unknown_measure([read.name], [read.raw_cutoff])
    return VOCABULARIES[kind].build(read)


def parse_measure(text: "str | Measure") -> Measure:
    """Read one measure from its text form.

    Examples
    --------
    >>> parse_measure("ndcg@10")
    Measure('ndcg@10')
    >>> parse_measure("ndcg@0")
    Traceback (most recent call last):
    ...
    rankproof.errors.MeasureError: the cutoff k of ndcg must be >= 1; got 0. Write ndcg@10, for instance
    """
    if isinstance(text, Measure):
        return text
    return _parse_one(str(text))


def parse_measures(texts) -> list[Measure]:
    """Read several measures; every unknown name is reported at once."""
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    try:
        texts = list(texts)
    except TypeError:
        raise MeasureError(what="measures must be a measure name, a Measure or a list of them, e.g. "
                           f"['ndcg@10', 'ap']; got {type(texts).__name__}", value=texts) from None
    measures: list[Measure] = []
    unknown: list[str] = []
    cutoffs: list[str | None] = []
    for text in expand_sets(texts):
        if isinstance(text, Measure):
            measures.append(text)
            continue
        if not isinstance(text, str):
            raise MeasureError(what="a measure must be a name such as 'ndcg@10' or a Measure; got "
                               f"{literal(repr(str(text)[:40]))}", value=text)
        match = _MEASURE_TEXT.match(_canonical_text(str(text)))
        if match is not None and kind_of(match["name"]) is None:
            unknown.append(match["name"])
            cutoffs.append(match["cutoff"])
            continue
        measures.append(_parse_one(str(text)))
    if unknown:
        raise _unknown_measure(unknown, cutoffs)
    if not measures:
        raise MeasureError(what="no measure given", fix="ask for one, e.g. ndcg@10")
    return measures


def held_measure(text: "str | Measure", held, *, missing: str = "was not evaluated",
                 source: "str | None" = None) -> Measure:
    """The measure named by ``text`` when it is one of ``held`` (the measures a value holds);
    else a :class:`~rankproof.errors.MeasureError` that says it ``missing`` and names those held.

    >>> held_measure("P@5", [parse_measure("p@5"), parse_measure("ap")])
    Measure('p@5')
    >>> held_measure("ndcg", [parse_measure("ap")])
    Traceback (most recent call last):
    ...
    rankproof.errors.MeasureError: ndcg was not evaluated; these were: ap. Choose one of them or evaluate ndcg again
    """
    key = parse_measure(text)
    if key not in held:
        kept = ", ".join(str(measure) for measure in held)
        raise MeasureError(what=literal(f"{key} {missing}"), source=source, value=str(key),
                           fix=literal(f"these were: {kept}. Choose one of them or evaluate {key} "
                                       "again"))
    return key
