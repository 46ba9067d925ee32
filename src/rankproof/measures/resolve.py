"""The measures asked for, parsed once each and checked against the protocol before any input is read."""

from __future__ import annotations

from ..errors import InputError, MeasureError, ProtocolError, literal
from ..protocol import Aggregation, Grades, Protocol
from .base import Measure
from .parse import parse_measures

__all__ = ["resolve_measures"]


def resolve_measures(measures, protocol: Protocol) -> list[Measure]:
    """Parse the measures asked for, once each, in the order first asked
    for, and check them against the protocol (a real rel under integer
    grades, micro averaging of a measure that is not a ratio)."""
    measure_list = parse_measures(measures)
    # One result per distinct measure, in the order first asked for.
    measure_list = list(dict.fromkeys(measure_list))
    _refuse_nugget_scores(measure_list, protocol)
    if protocol.grades is not Grades.REAL:
        real_rel = [str(m) for m in measure_list if "rel" in m.spec.params
                    and isinstance(m.setting("rel", protocol), float)]
        if real_rel:
            raise InputError(what=f"{literal(real_rel[0])} sets a real-valued rel, but the protocol says grades=integer",
                             fix="set the policy grades=real, or give an integer rel")
    if protocol.aggregation is Aggregation.MICRO:
        not_ratio = [str(m) for m in measure_list if not m.spec.ratio]
        if not_ratio:
            raise InputError(
                what=f"aggregation='micro' (sum of numerators / sum of denominators) applies to ratio "
                     f"measures (ndcg, p, r, rprec, judged); not to {literal(', '.join(not_ratio))}",
                fix="use aggregation='macro' for them")
    return measure_list


def _refuse_nugget_scores(measure_list: list[Measure], protocol: Protocol) -> None:
    """Nugget scores are read from assignment files, never computed from a ranking (and their protocol's
    nuggets policy is theirs alone)."""
    fix = "nugget scores are read from nuggetizer's assignment files: rankproof.evaluate_nuggets(path) or " \
          "rankproof nuggets FILE"
    read = [str(m) for m in measure_list if not m.spec.ranking]
    if read:
        raise MeasureError(what=f"{literal(read[0])} is not computed from a ranking", value=read[0],
                           fix=fix)
    if protocol.nuggets.scored:
        raise ProtocolError(what=f"the protocol says nuggets={protocol.nuggets}, the policy of nugget scores, "
                                 "not of rankings", value=str(protocol.nuggets), fix=fix)
