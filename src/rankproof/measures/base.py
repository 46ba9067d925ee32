"""Measures as immutable values with one canonical text form.

A :class:`Measure` is a name, an optional cutoff and optional per-measure
overrides of protocol policies. Its text form omits what is not set, so
``parse_measure(str(m)) == m`` and measures work as dict keys::

    ndcg            ndcg@10          ndcg(gain=exp2)@10        p(rel=2)@5

In Python, calling a measure with keywords returns a new one, and ``@`` sets
the cutoff:

>>> from rankproof.measures import ndcg, p
>>> str(ndcg(gain="exp2") @ 10)
'ndcg(gain=exp2)@10'
>>> from rankproof.measures import parse_measure
>>> parse_measure("p(rel=2)@5") == p(rel=2) @ 5
True
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
from typing import Any, Callable, Iterable

from ..errors import MeasureError, ProtocolError
from ..errors import literal
from ..protocol.policies import parse_discount, parse_gain, parse_rel, parse_enum, Ideal
from ..protocol import ApDenominator, PrecisionDenominator, RecallDenominator
from .of_rank import OfRank

__all__ = ["Measure", "MeasureSpec", "measure_text", "Param", "PARAMS", "REGISTRY", "register",
           "register_param",
           "parse_float", "TieSupport", "Dcg", "GradeTable", "WHOLE_EVALUATION_DEFAULTS",
           "whole_evaluation_default",
           "refuse_whole_evaluation_defaults", "EXECUTORS"]

# The executors a measure may run on (measures.vocabulary): in memory on this machine, out of core
# (in parts of whole users within a memory budget), on Spark (partitioned by query).
EXECUTORS: tuple[str, ...] = ("memory", "outofcore", "spark")


@dataclasses.dataclass(frozen=True)
class Param:
    """A measure parameter.

    ``policy=True``: an override of the protocol policy of the same name (its
    default is the protocol's). Otherwise a parameter of the measure itself,
    whose default is given by the measure's spec.
    """

    name: str
    parse: Callable[[Any], Any]
    description: str
    policy: bool = True


def parse_float(value: Any) -> float:
    """A finite number (booleans refused)."""
    import math

    if isinstance(value, bool):
        raise ProtocolError(what=f"expected a number; got {value!r}", value=value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ProtocolError(what=f"expected a number; got {literal(repr(value))}",
                            value=value) from None
    if not math.isfinite(number):
        raise ProtocolError(what=f"expected a finite number; got {literal(repr(value))}",
                            value=value)
    return number


PARAMS: dict[str, Param] = {
    "gain": Param("gain", parse_gain, "gain of a grade: linear, exp2 or map:G=V/..."),
    "discount": Param("discount", parse_discount, "rank discount: log2, reciprocal or vector:..."),
    "ideal": Param("ideal", lambda v: parse_enum("ideal", Ideal, v),
                   "ideal pool: judged, retrieved or expanded"),
    "rel": Param("rel", parse_rel, "lowest grade counted as relevant"),
    "precision_denominator": Param(
        "precision_denominator",
        lambda v: parse_enum("precision_denominator", PrecisionDenominator, v),
        "denominator of P@k: k or retrieved (min(k, list length))"),
    "recall_denominator": Param(
        "recall_denominator", lambda v: parse_enum("recall_denominator", RecallDenominator, v),
        "denominator of R@k: relevant (R) or min_k (min(R, k))"),
    "ap_denominator": Param(
        "ap_denominator", lambda v: parse_enum("ap_denominator", ApDenominator, v),
        "denominator of AP@k: relevant (R), min_k (min(R, k)) or hits (relevant in the top k)"),
}


def register_param(param: Param) -> Param:
    """Declare a measure parameter (families call this for their own parameters)."""
    existing = PARAMS.get(param.name)
    if existing is not None and existing != param:
        raise ValueError(f"parameter {param.name} is declared twice, differently")
    PARAMS[param.name] = param
    return param


class TieSupport(str, enum.Enum):
    """What a measure does with tied scores under ``ties=expected``.

    A ``str`` enum, so ``spec.ties == "ordered"`` reads as before.
    """

    # A closed form gives the exact expectation over the orders of each tied group.
    EXACT = "exact"
    # Needs one order: under ties=expected a run with tied groups is refused.
    ORDERED = "ordered"

    def __str__(self) -> str:
        return self.value


class Dcg(str, enum.Enum):
    """Which part of the DCG family a measure is: the sum, the ideal's sum, or their ratio."""

    SUM = "dcg"
    IDEAL = "ideal_dcg"
    NORMALISED = "ndcg"


class GradeTable(str, enum.Enum):
    """A table indexed by grade a measure reads: the gain of each grade (gain and
    discount settings), or ERR's chance that a doc of that grade stops the user."""

    GAIN = "gain"
    STOP_CHANCE = "stop_chance"


@dataclasses.dataclass(frozen=True)
class MeasureSpec:
    """What a measure is: data, including the function that computes it.

    ``compute(context, measure)`` returns per-query
    :class:`~rankproof.measures.compute.Values`, vectorised over all queries.

    The registry is the one source of per-measure capabilities: engines,
    results and the command line read these fields and never test a
    measure's name or family.
    """

    name: str
    description: str
    params: tuple[str, ...]
    compute: Callable | None = None
    cutoff: bool = True
    # Measures normalised by something that is 0 when nothing is relevant
    # (ideal DCG, R): the protocol's zero_ideal policy applies to them.
    normalised: bool = False
    # Measures that are a ratio of per-query sums, so micro averaging means
    # sum of numerators over sum of denominators.
    ratio: bool = False
    # What tied scores need under ties=expected (see TieSupport); the strings
    # "exact" and "ordered" are read as the enum.
    ties: TieSupport = TieSupport.EXACT
    # Defaults of the measure's own (non-policy) parameters.
    defaults: tuple[tuple[str, Any], ...] = ()
    family: str = "core"
    # The compiled kernel's kind that computes the measure in its fused pass
    # (a name of the kind enum of _libs/ranked.pyx); None: no kernel.
    kernel: str | None = None
    # The kernel computes the measure cut at k too; False: the kernel knows the uncut
    # measure only (rprec), and a cut one goes to the numpy engine.
    kernel_cutoff: bool = True
    # The DCG family: the sum, the ideal's sum, or NDCG, whose numerator and
    # denominator are the DCG and the ideal DCG (the "DCG parts").
    dcg: Dcg | None = None
    # The table indexed by grade the measure reads, if any.
    grade_table: GradeTable | None = None
    # Needs judgments per intent (IntentQrels): the diversity measures.
    needs_intents: bool = False
    # Is evaluated only with a cutoff (err_ia: ndeval normalises by the top k).
    needs_cutoff: bool = False
    # The values a query can take under the default protocol (gain maps or
    # negative gains can leave it for the gain measures).
    value_range: tuple[float, float] = (0.0, 1.0)
    # The ideal ranking of a query with something relevant scores the top of
    # value_range (without a cutoff; the judged relevant docs by grade, best first).
    ideal_is_best: bool = False
    # Decided by the first relevant doc alone (rr, hit): the docs ranked below
    # it cannot change the value (explain counts unjudged docs only above it).
    first_relevant_only: bool = False
    # ``check_ties(alignment, measure, protocol)`` raises TieError when the
    # measure has no exact closed form over this alignment's tied groups
    # beyond what ``ties`` says (AP over the hits with a group crossing k).
    # The planner runs it once, whatever the engine.
    check_ties: Callable | None = None
    # ``tie_merit(grade, judged, measure, protocol)``: a number per ranked
    # position such that the measure is highest with each tied group sorted by
    # it descending and lowest ascending (see measures/extremes.py), for
    # ties_range=True; None (or a None returned): the orders are enumerated.
    tie_merit: Callable | None = None
    # The value reads the judgments of every query, not its query's alone (hole: a doc judged
    # for no query at all): an executor that splits the queries (Spark) refuses it.
    reads_all_judgments: bool = False
    # Computed from a ranking against judgments. False: the values are read as given, not computed
    # (nugget scores of answers, from nuggetizer's assignment files: rankproof.evaluate_nuggets);
    # no engine computes them and evaluate refuses them.
    ranking: bool = True
    # A count (num_ret, num_rel, ...): its aggregate is the protocol's counts policy, the mean or
    # the sum over the queries (trec_eval sums them): the aggregation is part of the measure's spec.
    count: bool = False
    # Registered by rankproof.measures.define (a user's function): replaceable, and pickled
    # with its spec so that another process (a Spark executor) can compute it.
    defined_by_user: bool = False
    # Undefined values leave the mean whatever zero_ideal says (accuracy: no pair to order; the peer
    # skips the query). Counted among the excluded queries.
    always_excluded: bool = False
    # The lines of arithmetic that give one query's value (explain's working, measures/working.py):
    # ``working(groups, measure, protocol, k, num_rel)``; None: not written out.
    working: Callable | None = None
    # The measure as a function of one positive's rank (measures/of_rank.py; sampled evaluation,
    # recsys/sampled.py); None: not a function of one rank.
    of_rank: OfRank | None = None
    # The executors that evaluate it (names of EXECUTORS); None: read from the fields above (none
    # when not computed from a ranking; in memory only when it needs intents or reads every
    # query's judgments, which a part or a partition does not hold).
    executors: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ties", TieSupport(self.ties))
        if self.executors is None:
            object.__setattr__(self, "executors", _executors_of(self))

    @property
    def needs(self) -> tuple[tuple[str, ...], ...]:
        """What it reads besides a ranking and the judgments, as a side-data measure's ``needs``
        says it: the judgments per intent for the diversity measures."""
        return (("intents",),) if self.needs_intents else ()

    @property
    def dcg_parts(self) -> bool:
        """Do the numerator and denominator hold the DCG and the ideal DCG?"""
        return self.dcg is Dcg.NORMALISED

    @property
    def fields(self) -> tuple[str, ...]:
        """The optional fields of Values the measure fills: numerator and
        denominator for ratios (micro averaging), undefined when normalised
        (zero_ideal)."""
        return (("numerator", "denominator") if self.ratio else ()) + (("undefined",)
                                                                       if self.normalised else ())

    @property
    def own_params(self) -> tuple[str, ...]:
        """The measure's own parameters (not overrides of a protocol policy), in declared order."""
        return tuple(name for name in self.params if not PARAMS[name].policy)

    @property
    def policy_params(self) -> tuple[str, ...]:
        """The protocol policies the measure reads and a measure may override (gain, rel, ...)."""
        return tuple(name for name in self.params if PARAMS[name].policy)


def _executors_of(spec: MeasureSpec) -> tuple[str, ...]:
    """The executors of a spec that does not name them (see MeasureSpec.executors)."""
    if not spec.ranking:
        return ()
    return EXECUTORS[:1] if spec.needs_intents or spec.reads_all_judgments else EXECUTORS


REGISTRY: dict[str, MeasureSpec] = {}


def register(*specs: MeasureSpec) -> None:
    """Add measures to the registry (each family module registers its own)."""
    for spec in specs:
        if spec.name in REGISTRY:
            raise ValueError(f"measure {spec.name} is registered twice")
        for name in spec.params:
            if name not in PARAMS:
                raise ValueError(f"measure {spec.name}: undeclared parameter {name}")
        REGISTRY[spec.name] = spec


def _check_cutoff(name: str, k: Any) -> int:
    # bool is an int subclass; True must not mean a cutoff of 1.
    if isinstance(k, bool) or not isinstance(k, int):
        raise MeasureError(what=f"the cutoff k of {name} must be an integer >= 1; got {literal(repr(k))}. "
                           f"Write {name}@10, for instance", value=k)
    if k < 1:
        raise MeasureError(what=f"the cutoff k of {name} must be >= 1; got {k}. Write {name}@10, for instance",
                           value=k)
    if k > _LARGEST_CUTOFF:
        raise MeasureError(what=f"the cutoff k of {name} must be at most {_LARGEST_CUTOFF}; got {str(k)[:30]}. "
                           f"Write {name} without @k to use the whole ranking", value=k)
    return k


# Cut-offs are held in int64 arrays (trec_eval's atol saturates here too).
_LARGEST_CUTOFF = 2**63 - 1


@dataclasses.dataclass(frozen=True)
class Measure:
    """A measure: name, optional cutoff, optional policy overrides.

    Parameters
    ----------
    name : str
        A registered name (see ``rankproof.measures.REGISTRY``).
    cutoff : int or None
        Only the top ``cutoff`` ranks count; None means the whole ranking.
    params : tuple of (str, value)
        Overrides of protocol policies for this measure alone, sorted by name.
    """

    name: str
    cutoff: int | None = None
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        spec = REGISTRY.get(self.name)
        if spec is None:
            raise _unknown_name(self.name)
        if self.cutoff is not None:
            if not spec.cutoff:
                raise MeasureError(what=f"{self.name} takes no cutoff",
                                   fix=f"write {self.name} without @k",
                                   value=self.cutoff)
            _check_cutoff(self.name, self.cutoff)
        parsed = {}
        for key, value in dict(self.params).items():
            if key not in spec.params:
                accepted = ", ".join(spec.params) or "none"
                raise MeasureError(what=f"{self.name} does not take the parameter {literal(repr(key))}; "
                                   f"it accepts: {accepted}", value=key)
            try:
                parsed[key] = PARAMS[key].parse(value)
            except (ProtocolError, MeasureError) as error:
                raise MeasureError(what=f"{self.name}: {error.what or literal(error)}",
                                   fix=error.fix,
                                   value=error.value) from None
        object.__setattr__(self, "params", tuple(sorted(parsed.items())))

    @property
    def spec(self) -> MeasureSpec:
        return REGISTRY[self.name]

    def __call__(self, **params: Any) -> "Measure":
        merged = dict(self.params)
        merged.update(params)
        return Measure(self.name, self.cutoff, tuple(merged.items()))

    def __matmul__(self, k: int) -> "Measure":
        return Measure(self.name, _check_cutoff(self.name, k), self.params)

    def setting(self, name: str, protocol) -> Any:
        """A parameter's value: the measure's override, else the protocol's policy
        (policy parameters) or the spec's default (the measure's own)."""
        given = dict(self.params)
        if name in given:
            return given[name]
        if PARAMS[name].policy:
            return getattr(protocol, name)
        return dict(self.spec.defaults)[name]

    def __str__(self) -> str:
        return measure_text(self.name, self.params, self.cutoff)

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def __reduce_ex__(self, protocol):
        # A user-defined measure travels with its spec (and function): the process that
        # unpickles it (a Spark executor) has not run the file that defined it.
        spec = REGISTRY.get(self.name)
        if spec is not None and spec.defined_by_user:
            _ship_by_value(spec)
            declared = {name: PARAMS[name] for name in spec.params}
            return _rebuild_measure, (spec, declared, self.name, self.cutoff, self.params)
        return super().__reduce_ex__(protocol)


def _rebuild_measure(spec: MeasureSpec, declared: dict, name: str, cutoff: "int | None",
                     params: tuple) -> Measure:
    """A user-defined measure unpickled in another process (a Spark executor): its spec, the
    function with it, and its parameters are registered there first."""
    for key, param in declared.items():
        PARAMS.setdefault(key, param)
    REGISTRY.setdefault(name, spec)
    measure = object.__new__(Measure)
    for field, value in (("name", name), ("cutoff", cutoff), ("params", params)):
        object.__setattr__(measure, field, value)
    return measure


def _ship_by_value(spec: MeasureSpec) -> None:
    """Let the pickler Spark uses (cloudpickle: pyspark's copy or the package) send a user-defined
    measure's function by value: Spark's executors cannot import the user's file. Only picklers
    already imported are told (importing pyspark here would slow every pickling)."""
    import sys

    function = getattr(spec.compute, "user_function", None)
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    if module is None or module.__name__ == "__main__" or module.__name__.startswith("rankproof"):
        return
    for pickler in ("pyspark.cloudpickle", "cloudpickle"):
        found = sys.modules.get(pickler)
        if found is not None and hasattr(found, "register_pickle_by_value"):
            try:
                found.register_pickle_by_value(module)
            except ValueError:   # a module cloudpickle will not take: by reference
                pass


def measure_text(name: str, params: tuple[tuple[str, Any], ...], cutoff: int | None) -> str:
    """A measure's canonical text: ``name(key=value,...)@cutoff``, what the parser reads back.

    >>> measure_text("ndcg", (("gain", "exp2"),), 10)
    'ndcg(gain=exp2)@10'
    """
    text = name
    if params:
        text += "(" + ",".join(f"{k}={v}" for k, v in params) + ")"
    if cutoff is not None:
        text += f"@{cutoff}"
    return text


def _unknown_name(name: str) -> MeasureError:
    """A Measure built with a name the registry lacks (the parser suggests by meaning too: see
    :func:`rankproof.measures.parse.parse_measure`)."""
    near = difflib.get_close_matches(name[:100], list(REGISTRY), n=3)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return MeasureError(what=f"unknown measure {literal(repr(name[:60]))}{hint}. Known measures: "
                        f"{', '.join(REGISTRY)}", value=name)


# Parameters whose default is read from the whole evaluation (ERR's max_grade, the C/W/L measures'
# max_rel: the highest judged grade of every evaluated query): a part of it (a Spark partition,
# an out-of-core part) would take its own highest grade, so they must be given there.
WHOLE_EVALUATION_DEFAULTS = ("max_grade", "max_rel")


def whole_evaluation_default(measure: "Measure") -> str | None:
    """The parameter of `measure` left to a default read from every evaluated query, or None.

    >>> from rankproof.measures.parse import parse_measure
    >>> whole_evaluation_default(parse_measure("err@10")), whole_evaluation_default(parse_measure("err(max_grade=4)@10"))
    ('max_grade', None)
    """
    given = dict(measure.params)
    if "rel" in given:   # binary gains: no highest grade is read
        return None
    return next((name for name in WHOLE_EVALUATION_DEFAULTS if name in measure.spec.params
                 and name not in given),
                None)


def refuse_whole_evaluation_defaults(measures: "Iterable[Measure]", where: str, piece: str) -> None:
    """Refuse a measure left to such a default (:func:`whole_evaluation_default`) where the
    evaluation is cut into pieces (``where="on Spark", piece="partition"``): each piece would take
    the highest grade of its own queries. A measure that reads every query's judgments
    (``MeasureSpec.reads_all_judgments``: hole) is refused there too: a piece knows its own
    queries' judgments only (a doc judged for another query would count as a hole)."""
    for measure in measures:
        if measure.spec.reads_all_judgments:
            raise MeasureError(what=f"{literal(measure)} is not computed {where}: a {piece} knows only its own "
                                    "queries' judgments",
                               fix="use unjudged@k, or evaluate in memory",
                               value=str(measure))
        name = whole_evaluation_default(measure)
        if name is not None:
            raise MeasureError(what=f"{literal(measure)} {where} needs {name}=: its default, the highest judged "
                                    f"{{grade}} of all evaluated {{queries}}, is not known to a {piece}",
                               fix=f"e.g. {literal(measure.spec.name)}({name}=4)",
                               value=str(measure))

