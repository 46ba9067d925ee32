"""Reading measures from text: ``ndcg@10``, ``ndcg(gain=exp2)@10``, other tools' names.

Every unknown name in a list is reported at once, each with the nearest
known names by meaning and by spelling (:func:`~rankproof.measures.aliases.suggest`).
"""

from __future__ import annotations

import re

from ..errors import MeasureError
from ..errors import literal
from .aliases import resolve, suggest
from .base import REGISTRY, Measure
from .sets import expand_sets

__all__ = ["parse_measure", "parse_measures"]


_MEASURE_TEXT = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$"
)


def _unknown_measure(names: list[str], cutoffs: "list[str | None] | None" = None) -> MeasureError:
    parts = []
    for index, name in enumerate(names):
        cutoff = cutoffs[index] if cutoffs else None
        near = [f"{n}@{cutoff}" if cutoff and REGISTRY[n].cutoff else n for n in suggest(name[:100])]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        shown = name if len(name) <= 60 else name[:57] + "..."
        parts.append(f"{shown!r}{hint}")
    label = "unknown measure" if len(names) == 1 else "unknown measures"
    return MeasureError(what=f"{label} {literal('; '.join(parts))}. Known measures: {', '.join(REGISTRY)} "
                        "(and the names of trec_eval, ir_measures and ranx: see `rankproof measures`)",
                        value=names)


def _canonical_text(text: str) -> str:
    """Another tool's name for a measure (P_10, nDCG@10, mrr) as rankproof's text."""
    return resolve(text) or text


def _parse_one(text: str) -> Measure:
    typed = text.strip()
    text = _canonical_text(text)
    match = _MEASURE_TEXT.match(text)
    if match is None:
        raise MeasureError(what=f"cannot read measure {literal(repr(text))}", value=text,
                           fix="write it as name, name@k or name(param=value)@k, e.g. ndcg(gain=exp2)@10")
    name = match["name"]
    if name not in REGISTRY:
        raise _unknown_measure([name], [match["cutoff"]])
    params: dict[str, str] = {}
    if match["params"]:
        for item in match["params"].split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise MeasureError(what=f"cannot read parameter {literal(repr(item.strip()))} of "
                                   f"{literal(repr(text))}", fix="write key=value", value=text)
            if key.strip() in params:
                raise MeasureError(what=f"parameter {literal(key.strip())} is given twice in {literal(repr(text))}",
                                   fix="give each parameter once", value=text)
            params[key.strip()] = value.strip()
    cutoff = None
    if match["cutoff"] is not None:
        raw = match["cutoff"]
        if not re.fullmatch(r"[+-]?\d+", raw):
            # In the user's words: recall@abc, not the canonical r@abc it was read as.
            said = re.split(r"[@(]", typed, maxsplit=1)[0].strip() or name
            raise MeasureError(what=f"the cutoff k of {literal(said)} must be an integer >= 1; got "
                               f"{literal(repr(raw))} in {literal(repr(typed))}. Write {literal(said)}@10, for "
                               "instance", value=raw)
        if len(raw.lstrip("+-")) > 19:   # past 64 bits (and int() refuses past 4,300 digits)
            raise MeasureError(what=f"the cutoff k of {name} has {len(raw):,} digits; it must be at most "
                               f"{2**63 - 1}", value=raw[:40] + "...",
                               fix=f"write {name} without @k to use the whole ranking")
        cutoff = int(raw)
    return Measure(name, cutoff, tuple(params.items()))


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
        if match is not None and match["name"] not in REGISTRY:
            unknown.append(match["name"])
            cutoffs.append(match["cutoff"])
            continue
        measures.append(_parse_one(str(text)))
    if unknown:
        raise _unknown_measure(unknown, cutoffs)
    if not measures:
        raise MeasureError(what="no measure given", fix="ask for one, e.g. ndcg@10")
    return measures
