"""trec_eval's measure names: its ``-m`` arguments read into the values it prints, and
back.

The measures themselves are data, one :class:`~rankproof.measures.trec_table.TrecMeasure`
row each of :data:`~rankproof.measures.trec_table.TREC_MEASURES` (in
:mod:`rankproof.measures.trec_table`, whose names are importable from here too).
:func:`request` turns arguments such as ``P.5,10`` or ``official`` into
:class:`~rankproof.measures.trec_table.Line` values (``P_5``, ``P_10``), each with the
rankproof measure that computes it, as trec_eval reads them: its number parsing, its
nicknames, its shared gain table for dcg, ideal_dcg and ndcg. :func:`trec_eval_name`
goes the other way, from a rankproof measure to the name trec_eval prints.

>>> from rankproof.measures.trec_names import request
>>> [(line.name, str(line.measure)) for line in request(["P.5,10", "map"])]
[('map', 'ap'), ('P_5', 'p@5'), ('P_10', 'p@10')]
"""

from __future__ import annotations

import difflib
import functools
from typing import Callable, Sequence

from ..errors import MeasureError, literal
from .base import Measure
from .trec_table import (BY_NAME, MIN_GEO_MEAN, NICKNAMES, TREC_MEASURES, Line, NaN, Params,
                         Printed, Settings, Summary, TrecMeasure, c_atof, c_atol, gain_map)

__all__ = [
    "Params", "NaN", "Printed", "Summary", "TrecMeasure", "TREC_MEASURES", "NICKNAMES", "Line",
    "request", "trec_eval_name", "gain_order_warning", "c_atol", "c_atof", "MIN_GEO_MEAN",
    "BY_NAME", "Settings", "gain_map", "ONLY_IN_10",
]


def _long_cutoffs(text: str, name: str) -> list[int]:
    cutoffs = sorted(c_atol(part) for part in text.split(","))
    if cutoffs[0] <= 0:
        raise MeasureError(what="cutoffs must be integers >= 1 (trec_eval: negative cutoff)",
                           source=f"-m {name}.{text}", value=text)
    for a, b in zip(cutoffs, cutoffs[1:]):
        if a == b:
            raise MeasureError(what=f"cutoff {a} is given twice", fix="give each cutoff once",
                               source=f"-m {name}.{text}", value=a)
    return cutoffs


def _double_cutoffs(text: str, name: str) -> list[float]:
    cutoffs = sorted(c_atof(part) for part in text.split(","))
    for a, b in zip(cutoffs, cutoffs[1:]):
        if a == b:
            raise MeasureError(what=f"level {a:g} is given twice", fix="give each level once",
                               source=f"-m {name}.{text}", value=a)
    return cutoffs


def _pairs(text: str, name: str) -> list[tuple[str, float]]:
    # trec_eval's check: '=' and ',' must alternate, starting with '=' and ending after one.
    last = ","
    for char in text:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise MeasureError(what=f"write the parameters as level=gain pairs, e.g. -m {literal(name)}.1=3,2=9",
                           source=f"-m {name}.{text}", value=text)
    # Alternating separators leave exactly one '=' in each comma-separated item.
    return [(key, c_atof(value))
            for key, _, value in (item.partition("=") for item in text.split(","))]


def _unknown(name: str) -> MeasureError:
    names = [m.name for m in TREC_MEASURES] + list(NICKNAMES)
    near = difflib.get_close_matches(name, names, n=3)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return MeasureError(what=f"illegal measure {literal(repr(name))}{hint}", value=name,
                        fix="see rankproof trec-eval --help for the measures")


# Measures trec_eval 10 added: trec_eval 9.0.x does not know them (nor lists them in all_trec).
ONLY_IN_10 = tuple(m.name for m in TREC_MEASURES if m.only_in_10)


def request(arguments: Sequence[str], settings: Settings | None = None, *,
            version9: bool = False) -> list[Line]:
    """The printed values of ``-m`` arguments, in trec_eval's order.

    As in trec_eval: a nickname (``official``, ``all_trec``, ``set``) marks
    several measures; the first ``name.params`` given for a measure sets its
    parameters; the order of the arguments does not matter. ``version9``:
    trec_eval 9.0.x's measures (without :data:`ONLY_IN_10`).

    Raises MeasureError for an unknown or unsupported measure or bad parameters.
    """
    settings = settings or Settings()
    marked: set[str] = set()
    given: dict[str, str] = {}
    for argument in arguments:
        name, dot, text = argument.partition(".")
        if dot:
            if not text:
                raise MeasureError(what="nothing after the '.'", source=f"-m {argument}",
                                   value=argument,
                                   fix=f"write e.g. -m {literal(name)}.10 or -m {literal(name)}")
            given.setdefault(name, text)
        names = NICKNAMES.get(name, (name,))
        if version9:
            if name in BY_NAME and BY_NAME[name].only_in_10:
                raise MeasureError(what=f"illegal measure {literal(repr(name))}: trec_eval 9 does not have it (trec_eval 10 does: "
                                   "drop --v9)", value=name)
            names = tuple(one for one in names if one not in BY_NAME or not BY_NAME[one].only_in_10)
        for one in names:
            if one not in BY_NAME:
                raise _unknown(one)
            marked.add(one)
    # trec_eval's dcg, ideal_dcg and ndcg keep their gains in one shared table: each
    # measure with parameters overwrites it when initialised (in trec_eval's order), a
    # measure's printed name shows the table as it stood at its own initialisation, and
    # every one of them computes with the table as it stands at the end.
    shared_text: dict[str, str] = {}
    shared_name: dict[str, str | None] = {}
    for trec in TREC_MEASURES:
        if trec.shares and trec.name in marked:
            if trec.name in given:
                shared_text[trec.shares] = given[trec.name]
            shared_name[trec.name] = shared_text.get(trec.shares)
    lines: list[Line] = []
    for trec in TREC_MEASURES:
        if trec.name not in marked:
            continue
        if trec.unsupported:
            raise MeasureError(what=f"measure {trec.name} is not supported by rankproof trec-eval: "
                               f"{trec.unsupported}", value=trec.name)
        if trec.shares:
            lines.extend(_lines(trec, shared_text.get(trec.shares), settings,
                                shown=shared_name[trec.name]))
        else:
            lines.extend(_lines(trec, given.get(trec.name), settings))
    return lines


def _lines(trec: TrecMeasure, text: str | None, settings: Settings,
           shown: "str | None | bool" = False) -> list[Line]:
    name = trec.name
    build = trec.build or (lambda param, s: None)
    kind = trec.params
    if kind is Params.NONE:
        return [Line(name, build(None, settings), trec)]
    if kind is Params.LONG_CUTOFFS:
        return [Line(f"{name}_{k}", _built(trec, build, k, settings), trec, k)
                for k in _long_cutoffs(text or trec.default, name)]
    if kind is Params.DOUBLE_CUTOFFS:
        return [Line(f"{name}_{'%3.2f' % x}", _built(trec, build, x, settings), trec, x)
                for x in _double_cutoffs(text or trec.default, name)]
    suffix = text if shown is False else shown
    printed = f"{name}_{suffix}" if suffix is not None else name
    if kind is Params.DOUBLE_PARAMS:
        values = [c_atof(part) for part in (text or trec.default).split(",")]
        return [Line(printed, _built(trec, build, values, settings), trec, values)]
    pairs = _pairs(text, name) if text is not None else []
    return [Line(printed, _built(trec, build, pairs, settings), trec, pairs)]


def gain_order_warning(lines: Sequence[Line]) -> str | None:
    """Say so when trec_eval's ideal ranking would not be the true one.

    trec_eval sorts its gain table with a comparator that truncates the
    difference of two gains to an integer, so gains less than 1 apart count as
    equal and may come out in the wrong order (-m ndcg.1=0.5 leaves level 1 out
    of the ideal ranking when level 0 keeps gain 0). rankproof always uses the
    true ideal ranking; its value then differs from trec_eval's.
    """
    for line in lines:
        if not line.trec.sorts_gains or line.measure is None:
            continue
        gains = sorted({value for key, value in line.measure.params if key == "gain"
                        for _, value in value.gains})
        close = [(a, b) for a, b in zip(gains, gains[1:]) if b - a < 1]
        if close:
            a, b = close[0]
            return (f"{line.name}: gains {a:g} and {b:g} are less than 1 apart; trec_eval's gain sort treats "
                    "them as equal and can build a wrong ideal ranking, rankproof uses the true one, so the "
                    "values may differ from trec_eval's")
    return None


def _built(trec: TrecMeasure, build: Callable, param, settings: Settings) -> Measure | None:
    try:
        return build(param, settings)
    except MeasureError as error:
        message = str(error)
        if message.startswith("unknown measure"):
            raise MeasureError(what=f"trec_eval measure {trec.name} needs a rankproof measure that is not available "
                               f"here ({literal(message.split('.')[0])})",
                               value=trec.name) from None
        fields = error.what is not None and error.source is None
        raise MeasureError(what=error.what if fields else literal(message),
                           fix=error.fix if fields else None,
                           value=error.value, source=f"-m {trec.name}") from None


@functools.lru_cache(maxsize=None)
def _printed_names(cutoff: int | None) -> dict[Measure, str]:
    """trec_eval's printed name of each rankproof measure it computes as a mean (cutoffs at ``cutoff``)."""
    names: dict[Measure, str] = {}
    for trec in TREC_MEASURES:
        if (trec.unsupported or trec.summary is not Summary.MEAN or not trec.per_query
            or trec.build is None):
            continue
        if trec.params is Params.LONG_CUTOFFS:
            if cutoff is None:
                continue
            argument = f"{trec.name}.{cutoff}"
        else:
            argument = trec.name
        try:
            lines = request([argument])
        except MeasureError:
            continue
        for line in lines:
            if line.measure is not None:
                names.setdefault(line.measure, line.name)
    return names


def trec_eval_name(measure: Measure) -> str | None:
    """The name trec_eval prints for a rankproof measure (``map``, ``P_10``), or None when it has none.

    >>> from rankproof.measures.parse import parse_measures
    >>> [trec_eval_name(m) for m in parse_measures(["ap", "p@10", "ndcg@10", "rr", "alpha_ndcg@10"])]
    ['map', 'P_10', 'ndcg_cut_10', 'recip_rank', None]
    """
    return _printed_names(measure.cutoff).get(measure)
