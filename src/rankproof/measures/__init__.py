"""Measures: immutable values, their registry and the parser.

Each registered measure is also a module attribute, ready to call and cut:
``ndcg(gain="exp2") @ 10``.
"""

from .base import REGISTRY, Measure, MeasureSpec, parse_measure, parse_measures

dcg = Measure("dcg")
ideal_dcg = Measure("ideal_dcg")
ndcg = Measure("ndcg")
ap = Measure("ap")
rr = Measure("rr")
p = Measure("p")
r = Measure("r")
hit = Measure("hit")
rprec = Measure("rprec")
bpref = Measure("bpref")
judged = Measure("judged")
num_ret = Measure("num_ret")
num_rel = Measure("num_rel")
num_rel_ret = Measure("num_rel_ret")

__all__ = [
    "REGISTRY", "Measure", "MeasureSpec", "parse_measure", "parse_measures",
    *REGISTRY,
]
