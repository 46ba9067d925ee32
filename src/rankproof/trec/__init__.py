"""trec_eval compatibility: ``rankproof trec-eval`` and a pytrec_eval-style API.

Every trec_eval value is computed by an ordinary rankproof measure (so it also
works in ``rankproof evaluate``); :mod:`rankproof.measures.trec_names` maps trec_eval's
names and parameters to them, as a table.

>>> from rankproof.trec import evaluate
>>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}}
>>> run = {"q1": {"a": 1.0, "x": 2.0, "c": 0.5}}
>>> values = evaluate(qrels, run, {"map", "P.2", "ndcg_cut.10"})
>>> values["q1"]["P_2"]          # x is unjudged, a relevant: 1 of the top 2
0.5
>>> round(values["q1"]["map"], 4)  # (1/2 + 2/3) / 2 relevant docs
0.5833
"""

from __future__ import annotations

import warnings
from typing import Iterable, Mapping

import numpy as np

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError
from ..protocol import MissingQuery, Protocol
from ..errors import literal
from .values import TrecOptions, judged_grades, trec_protocol, trec_values
from ..measures.trec_names import (BY_NAME, NICKNAMES, TREC_MEASURES, Params, Printed, Settings,
                                   Summary, gain_order_warning, request)

__all__ = ["evaluate", "TREC_MEASURES", "NICKNAMES"]


def evaluate(
    qrels: "Mapping[str, Mapping[str, int]] | Qrels",
    run: "Mapping[str, Mapping[str, float]] | Run",
    measures: "Iterable[str] | str",
    *,
    relevance_level: int = 1,
    judged_docs_only: bool = False,
    preset: "str | Protocol" = "trec_eval",
    complete: bool = False,
) -> dict[str, dict[str, float]]:
    """Per-query trec_eval values, in the spirit of pytrec_eval's RelevanceEvaluator.

    Parameters
    ----------
    qrels : {query: {doc: grade}} or Qrels
    run : {query: {doc: score}} or Run
    measures : set of trec_eval measure names, as for ``-m``
        E.g. ``{"map", "ndcg_cut.10", "P.5", "all_trec"}``; ``"P"`` gives every
        default cutoff. When one measure is given with several parameter lists,
        the first given wins, as in trec_eval (sets have no order: give one).
    relevance_level : int
        trec_eval's ``-l``: the lowest grade counted as relevant by binary measures.
    judged_docs_only : bool
        trec_eval's ``-J``: drop unjudged docs from the rankings first.
    preset : "trec_eval" (trec_eval 10), "trec_eval9" (trec_eval 9 and pytrec_eval) or a Protocol
    complete : bool
        False (pytrec_eval): only queries both judged and ranked are evaluated.
        True: trec_eval's ``-c``, every judged query, unranked ones scored as an empty ranking.

    Returns
    -------
    {query: {trec_eval name: value}}
        Values as trec_eval holds them for one query before its summary:
        ``gm_map`` and ``gm_bpref`` are logarithms (``log(max(value, 1e-5))``)
        and ``num_q`` is 1, as pytrec_eval returns them. ``runid`` and
        ``relstring`` are not numbers and are left out.
    """
    if isinstance(measures, str):
        measures = [measures]
    qrels_data = qrels if isinstance(qrels, Qrels) else Qrels.from_dict(qrels)
    run_data = run if isinstance(run, Run) else Run.from_dict(run)
    if (not isinstance(relevance_level, int) or isinstance(relevance_level, bool) or relevance_level
        < 0):
        raise InputError(what=f"relevance_level must be an integer >= 0; got {literal(repr(relevance_level))}",
                         value=relevance_level)
    arguments = _merged(measures)
    lines = [line for line in request(arguments, Settings(grades=judged_grades(qrels_data)))
             if line.trec.printed is not Printed.STRING]  # runid and relstring: text, not numbers
    warning = gain_order_warning(lines)
    if warning:
        warnings.warn(warning, stacklevel=2)
    options = TrecOptions(relevance_level=relevance_level, judged_only=bool(judged_docs_only),
                          complete=bool(complete))
    protocol = trec_protocol(options, preset)
    if not complete:
        protocol = protocol.replace(missing_query=MissingQuery.EXCLUDE)
    keep = np.isin(run_data.queries, qrels_data.queries)
    if not keep.any() and not complete:
        return {}
    table = trec_values(qrels_data, run_data, lines, options, protocol)
    out: dict[str, dict[str, float]] = {query: {} for query in table.queries}
    for line, values in zip(table.lines, table.values):
        if line.trec.summary is Summary.RUNID or not isinstance(values, np.ndarray):
            continue
        for query, value in zip(table.queries, values.tolist()):
            out[query][line.name] = value
    return out


def _merged(measures: Iterable[str]) -> list[str]:
    """-m arguments from a set of measures: cutoffs given for one measure are joined
    (``{"P.5", "P.10"}`` gives P_5 and P_10, as pytrec_eval does)."""
    bare: set[str] = set()
    given: dict[str, list[str]] = {}
    for text in measures:
        name, dot, params = str(text).partition(".")
        if dot:
            given.setdefault(name, []).append(params)
        else:
            bare.add(name)
    arguments = sorted(bare)
    for name, texts in sorted(given.items()):
        kind = BY_NAME[name].params if name in BY_NAME else None
        if kind in (Params.LONG_CUTOFFS, Params.DOUBLE_CUTOFFS):
            parts = list(dict.fromkeys(part for text in texts for part in text.split(",")))
            arguments.append(f"{name}.{','.join(parts)}")
        elif len(set(texts)) > 1:
            raise InputError(what=literal(f"{name} is given with different parameters "
                                          f"({', '.join(sorted(set(texts)))})"),
                             fix="give its parameters once", value=name)
        else:
            arguments.append(f"{name}.{texts[0]}")
    return arguments
