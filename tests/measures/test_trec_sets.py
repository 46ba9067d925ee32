"""The trec family (measures/trec_sets.py): interpolated precision, Rprec_mult,
relative_P, the set measures, num_nonrel_judged_ret, utility and unj.

Four kinds of tests:
- golden values computed by hand in the comments;
- agreement with trec_eval 10 itself, per query and on the mean, on random
  cases full of ties, unjudged docs, negative grades and queries with nothing
  relevant (plus trec_eval -J against unjudged=condense);
- for the ties="exact" measures, agreement with brute-force enumeration of
  every order of tied docs; for the ordered ones, with a one-query reference
  under ties=docid, for both iprec_rounding policies;
- properties and bounds, and the text forms and parameter errors.
"""

import math
import random
import subprocess
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import reference
from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.errors import MeasureError, TieError
from rankproof.measures import REGISTRY, parse_measure
from rankproof.measures.trec_sets import TREC_SETS, Levels, Number
from trec_oracle import write_case

TREC = Protocol.preset("trec_eval")
FAMILY = [spec.name for spec in TREC_SETS]  # family "trec" is shared with trec_gains.py


def values(qrels: dict, run: dict, measure: str, protocol=TREC) -> dict:
    results = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), [measure], protocol)
    return results.per_query(measure)


# ---------------------------------------------------------------------------
# One-query references, written from the trec_eval definitions
# ---------------------------------------------------------------------------
# ranking: doc ids best first; pool: {doc: grade >= 0} (judged docs). A doc of
# the ranking absent from the pool is unjudged. None: undefined (R = 0) for the
# measures that are normalised (their zero_ideal policy decides).


def _num_rel(pool, rel):
    return sum(1 for g in pool.values() if g >= rel)


def _relevant_ranks(ranking, pool, rel):
    return [i for i, d in enumerate(ranking, 1) if d in pool and pool[d] >= rel]


def _level_rank(x, num_rel, rounding):
    scaled = x * num_rel  # a float product, as in C
    if rounding == "legacy":
        return int(scaled + 0.9)
    # lround: halves away from zero, on the exact value of the float
    return math.floor(Fraction(scaled) + Fraction(1, 2))


def ref_iprec(ranking, pool, recall=0.0, rel=1, rounding="round"):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    ranks = _relevant_ranks(ranking, pool, rel)
    c = _level_rank(recall, num_rel, rounding)
    if not ranks or c > len(ranks):
        return 0.0
    # Interpolated precision at the c-th relevant doc: the best precision at it
    # or at any later relevant doc (precision only drops between them).
    return max(j / ranks[j - 1] for j in range(max(c, 1), len(ranks) + 1))


def ref_interp_avg(ranking, pool, levels=tuple(i / 10 for i in range(11)), rel=1, rounding="round"):
    if _num_rel(pool, rel) == 0:
        return None
    return sum(ref_iprec(ranking, pool, x, rel, rounding) for x in levels) / len(levels)


def ref_rprec_mult(ranking, pool, mult=1.0, rel=1):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    c = int(mult * num_rel + 0.9)
    return len([r for r in _relevant_ranks(ranking, pool, rel) if r <= c]) / c if c else 0.0


def ref_relative_p(ranking, pool, k=None, rel=1):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    k = len(ranking) if k is None else k
    found = len([r for r in _relevant_ranks(ranking, pool, rel) if r <= k])
    return found / min(k, num_rel) if min(k, num_rel) else 0.0


def ref_set_p(ranking, pool, rel=1):
    return len(_relevant_ranks(ranking, pool, rel)) / len(ranking) if ranking else 0.0


def ref_set_relative_p(ranking, pool, rel=1):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    return len(_relevant_ranks(ranking, pool, rel)) / min(len(ranking), num_rel) if ranking else 0.0


def ref_set_r(ranking, pool, rel=1):
    num_rel = _num_rel(pool, rel)
    return None if num_rel == 0 else len(_relevant_ranks(ranking, pool, rel)) / num_rel


def ref_set_ap(ranking, pool, rel=1):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    found = len(_relevant_ranks(ranking, pool, rel))
    return found * found / (len(ranking) * num_rel) if ranking else 0.0


def ref_set_f(ranking, pool, beta=1.0, rel=1):
    num_rel = _num_rel(pool, rel)
    if num_rel == 0:
        return None
    found = len(_relevant_ranks(ranking, pool, rel))
    if found == 0:
        return 0.0
    p, r = found / len(ranking), found / num_rel
    return (beta + 1) * p * r / (beta * p + r)


def ref_num_nonrel_judged_ret(ranking, pool, k=None, rel=1):
    return sum(1 for d in ranking[:k] if d in pool and pool[d] < rel)


def ref_utility(ranking, pool, a=1.0, b=-1.0, c=0.0, d=0.0, docs=0, rel=1):
    found = len(_relevant_ranks(ranking, pool, rel))
    num_rel = _num_rel(pool, rel)
    return a * found + b * (len(ranking) - found) + c * (num_rel - found) + d * (docs + found - len(ranking) - num_rel)


def ref_unjudged(ranking, pool, k=None):
    count = sum(1 for d in ranking[:k] if d not in pool)
    denominator = len(ranking) if k is None else k
    return count / denominator if denominator else 0.0


# ---------------------------------------------------------------------------
# Golden values, by hand
# ---------------------------------------------------------------------------
# Query q: pool {A: 1, B: 0, C: 2, D: 1, E: 0} (R = 3 at rel=1: A, C, D);
# run, best first: A, B, X, C, E, Y  (X and Y never judged).
# Relevant at ranks 1 and 4 (2 of R = 3 retrieved); D is not retrieved.
GOLD_QRELS = {"q": {"A": 1, "B": 0, "C": 2, "D": 1, "E": 0}}
GOLD_RUN = {"q": {"A": 6.0, "B": 5.0, "X": 4.0, "C": 3.0, "E": 2.0, "Y": 1.0}}


@pytest.mark.parametrize("measure, want", [
    # precision at the relevant ranks: 1/1 and 2/4; interpolated: 1, then 0.5.
    # recall 0: level rank lround(0) = 0 -> best precision from the 1st relevant on = 1.
    ("iprec", 1.0),
    # 0.3 * 3 = 0.9 -> lround 1 -> max(1/1, 2/4) = 1
    ("iprec(recall=0.3)", 1.0),
    # 0.5 * 3 = 1.5 -> lround 2 -> 2/4 = 0.5
    ("iprec(recall=0.5)", 0.5),
    # 1.0 * 3 = 3 > 2 relevant retrieved -> 0
    ("iprec(recall=1)", 0.0),
    # 11 levels: x*3 = 0, .3, .6, .9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3 -> ranks
    # 0,0,1,1,1,2,2,2,2,3,3 -> 1,1,1,1,1,.5,.5,.5,.5,0,0 -> 7/11
    ("interp_avg", 7 / 11),
    # levels 0.25 (0.75 -> 1) and 0.5 (1.5 -> 2): (1 + 0.5) / 2
    ("interp_avg(levels=0.25/0.5)", 0.75),
    # mult 1: rank (long)(3.9) = 3: relevant in top 3 = 1 -> 1/3 (= Rprec)
    ("rprec_mult", 1 / 3),
    # mult 2: rank (long)(6.9) = 6 -> 2/6
    ("rprec_mult(mult=2)", 2 / 6),
    # mult 3: rank (long)(9.9) = 9, past the 6 docs: still divided by 9 -> 2/9
    ("rprec_mult(mult=3)", 2 / 9),
    # mult 0.2: rank (long)(0.6 + 0.9) = 1 -> 1/1
    ("rprec_mult(mult=0.2)", 1.0),
    # relative_P: k=2 -> 1 / min(2, 3); k=5 -> 2 / min(5, 3); k=10 -> 2/3
    ("relative_p@2", 0.5),
    ("relative_p@5", 2 / 3),
    ("relative_p@10", 2 / 3),
    # set measures over the 6 retrieved: P = 2/6, R = 2/3
    ("set_p", 2 / 6),
    ("set_relative_p", 2 / 3),  # 2 / min(6, 3)
    ("set_r", 2 / 3),
    ("set_ap", 4 / 18),  # 2^2 / (6 * 3)
    ("set_f", 4 / 9),  # 2 (1/3)(2/3) / (1/3 + 2/3) = (4/9) / 1
    ("set_f(beta=0.5)", 0.4),  # 1.5 (1/3)(2/3) / (0.5/3 + 2/3) = (1/3) / (5/6): 0.4 as well
    ("set_f(beta=2)", 3 * (1 / 3) * (2 / 3) / (2 / 3 + 2 / 3)),  # (2/3) / (4/3) = 0.5
    ("num_nonrel_judged_ret", 2.0),  # B and E
    ("num_nonrel_judged_ret@3", 1.0),  # B
    # a*2 + b*4 + c*1 + d*(N + 2 - 6 - 3)
    ("utility", 2 - 4),
    ("utility(a=2,b=-0.5,c=-1,d=0.25,docs=100)", 2 * 2 - 0.5 * 4 - 1 * 1 + 0.25 * 93),
    # unjudged: X, Y. @2: 0/2; @3: 1/3; @10: 2/10 (past the end: divided by 10); none: 2/6
    ("unjudged@2", 0.0),
    ("unjudged@3", 1 / 3),
    ("unjudged@10", 0.2),
    ("unjudged", 2 / 6),
])
def test_golden(measure, want):
    assert values(GOLD_QRELS, GOLD_RUN, measure)["q"] == pytest.approx(want, abs=1e-12)


def test_golden_rel_level_and_nothing_relevant():
    # rel=2: R = 1 (C, rank 4). set_p = 1/6; iprec(0.5): lround(0.5) = 1 -> 1/4.
    protocol = TREC.replace(rel=2)
    assert values(GOLD_QRELS, GOLD_RUN, "set_p", protocol)["q"] == pytest.approx(1 / 6)
    assert values(GOLD_QRELS, GOLD_RUN, "iprec(recall=0.5)", protocol)["q"] == pytest.approx(0.25)
    # B and E, and now A (grade 1 < 2) are judged non-relevant
    assert values(GOLD_QRELS, GOLD_RUN, "num_nonrel_judged_ret", protocol)["q"] == 3
    # Nothing relevant: trec_eval scores 0 (zero_ideal=zero); undefined otherwise.
    qrels = {"q": {"A": 0, "B": 0}}
    for measure in ("iprec", "interp_avg", "rprec_mult", "relative_p@5", "set_relative_p", "set_r",
                    "set_ap", "set_f"):
        assert values(qrels, GOLD_RUN, measure)["q"] == 0.0
        assert values(qrels, GOLD_RUN, measure, TREC.replace(zero_ideal="exclude")) == {}
    # ... but set precision, utility and unjudged are defined: 0/6, -6, 4/6
    assert values(qrels, GOLD_RUN, "set_p")["q"] == 0.0
    assert values(qrels, GOLD_RUN, "utility")["q"] == -6.0
    assert values(qrels, GOLD_RUN, "unjudged")["q"] == pytest.approx(4 / 6)


def test_golden_iprec_rounding_policies():
    # R = 3, level 0.5: round -> lround(1.5) = 2 (precision 2/4 at the 2nd relevant);
    # legacy -> (long)(1.5 + 0.9) = 2 as well. Level 0.4: 1.2 -> round 1, legacy (long)2.1 = 2.
    legacy = TREC.replace(iprec_rounding="legacy")
    assert values(GOLD_QRELS, GOLD_RUN, "iprec(recall=0.4)")["q"] == 1.0
    assert values(GOLD_QRELS, GOLD_RUN, "iprec(recall=0.4)", legacy)["q"] == 0.5
    # 11 levels under legacy: ranks (long)(x*3 + 0.9) = 0,1,1,1,2,2,2,2,3,3,3 -- at 0.7,
    # 0.7*3 + 0.9 is 2.9999999999999996 in float64 (C's double arithmetic), so rank 2
    # -> 1,1,1,1,.5,.5,.5,.5,0,0,0 -> 6/11
    assert 0.7 * 3 + 0.9 < 3
    assert values(GOLD_QRELS, GOLD_RUN, "interp_avg", legacy)["q"] == pytest.approx(6 / 11)
    assert Protocol.preset("trec_eval9").iprec_rounding.value == "legacy"


def test_golden_interpolation_takes_the_later_maximum():
    # Relevant at ranks 2, 3 and 6 of 6 (R = 4): precisions 1/2, 2/3, 3/6.
    # The 1st relevant's interpolated precision is max(1/2, 2/3, 1/2) = 2/3.
    qrels = {"q": {"b": 1, "c": 1, "f": 1, "z": 1, "a": 0}}
    run = {"q": ["a", "b", "c", "d", "e", "f"]}
    assert values(qrels, run, "iprec(recall=0.25)")["q"] == pytest.approx(2 / 3)  # lround(1) = 1
    assert values(qrels, run, "iprec")["q"] == pytest.approx(2 / 3)
    assert values(qrels, run, "iprec(recall=0.75)")["q"] == pytest.approx(0.5)  # 3rd relevant
    assert values(qrels, run, "iprec(recall=1)")["q"] == 0.0  # 4th never retrieved


def test_golden_ties_expected():
    # Ranking: A alone, then a tie {B, C, X} (B relevant, C judged non-relevant,
    # X unjudged). pool {A: 1, B: 1, C: 0}, R = 2.
    qrels = {"q": {"A": 1, "B": 1, "C": 0}}
    run = {"q": {"A": 2.0, "B": 1.0, "C": 1.0, "X": 1.0}}
    expected = Protocol(ties="expected")
    # relative_P@2: 1 + P(B at rank 2) = 1 + 1/3, over min(2, 2)
    assert values(qrels, run, "relative_p@2", expected)["q"] == pytest.approx((4 / 3) / 2)
    # unj@2: P(X at rank 2) = 1/3, over 2
    assert values(qrels, run, "unjudged@2", expected)["q"] == pytest.approx(1 / 6)
    # Rprec_mult 0.5: rank (long)(1.9) = 1 -> A -> 1
    assert values(qrels, run, "rprec_mult(mult=0.5)", expected)["q"] == 1.0
    # num_nonrel_judged_ret@3: C in ranks 2..3 with probability 2/3
    assert values(qrels, run, "num_nonrel_judged_ret@3", expected)["q"] == pytest.approx(2 / 3)
    # the interpolated measures need one order
    with pytest.raises(TieError, match="iprec"):
        values(qrels, run, "iprec", expected)
    with pytest.raises(TieError, match="interp_avg"):
        values(qrels, run, "interp_avg", expected)


# ---------------------------------------------------------------------------
# trec_eval 10 itself
# ---------------------------------------------------------------------------
RECALL_LEVELS = [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
                 0.85, 0.9, 0.95, 1.0]
MULTS = [0.1, 0.2, 0.25, 0.4, 0.5, 0.6, 0.75, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0]
CUTOFFS = [1, 2, 3, 4, 5, 7, 10, 15, 20]


def _text(x: float) -> str:
    return str(Number(x))


def trec_eval_case(rng: random.Random):
    """Random trec_eval flags and the matching rankproof measures: (flags, {trec name: measure})."""
    flags, names = [], {}
    levels = sorted(rng.sample(RECALL_LEVELS, rng.randint(1, 6)))
    flags += ["-m", "iprec_at_recall." + ",".join(_text(x) for x in levels)]
    names.update({f"iprec_at_recall_{x:3.2f}": f"iprec(recall={_text(x)})" for x in levels})
    if rng.random() < 0.4:
        flags += ["-m", "11pt_avg"]
        names["11pt_avg"] = "interp_avg"
    else:
        avg = sorted(rng.choices(RECALL_LEVELS, k=rng.randint(1, 5)))  # repeats allowed
        flags += ["-m", "11pt_avg." + ",".join(_text(x) for x in avg)]
        names["11pt_avg_" + ",".join(_text(x) for x in avg)] = f"interp_avg(levels={'/'.join(_text(x) for x in avg)})"
    mults = sorted(rng.sample(MULTS, rng.randint(1, 5)))
    flags += ["-m", "Rprec_mult." + ",".join(_text(x) for x in mults)]
    names.update({f"Rprec_mult_{x:3.2f}": f"rprec_mult(mult={_text(x)})" for x in mults})
    cuts = sorted(rng.sample(CUTOFFS, rng.randint(1, 4)))
    flags += ["-m", "relative_P." + ",".join(map(str, cuts)), "-m", "unj." + ",".join(map(str, cuts))]
    names.update({f"relative_P_{k}": f"relative_p@{k}" for k in cuts})
    names.update({f"unj_{k}": f"unjudged@{k}" for k in cuts})
    flags += ["-m", "set_P", "-m", "set_relative_P", "-m", "set_recall", "-m", "set_map",
              "-m", "num_nonrel_judged_ret"]
    names.update({"set_P": "set_p", "set_relative_P": "set_relative_p", "set_recall": "set_r",
                  "set_map": "set_ap", "num_nonrel_judged_ret": "num_nonrel_judged_ret"})
    if rng.random() < 0.3:
        flags += ["-m", "set_F"]
        names["set_F"] = "set_f"
    else:
        beta = rng.choice([0.0, 0.25, 0.5, 1.0, 2.0, 3.5])
        flags += ["-m", f"set_F.{_text(beta)}"]
        names[f"set_F_{_text(beta)}"] = f"set_f(beta={_text(beta)})"
    if rng.random() < 0.3:
        flags += ["-m", "utility"]
        names["utility"] = "utility"
    else:
        coefficients = [rng.choice([-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0]) for _ in range(4)]
        docs = rng.choice([0, 50, 1000])
        flags += ["-m", "utility." + ",".join(_text(x) for x in coefficients), "-N", str(docs)]
        a, b, c, d = (_text(x) for x in coefficients)
        names["utility_" + ",".join(_text(x) for x in coefficients)] = f"utility(a={a},b={b},c={c},d={d},docs={docs})"
    return flags, names


def run_trec_eval(binary: Path, args: list, qrels: Path, run: Path) -> dict:
    out = subprocess.run([str(binary), "-q", *args, str(qrels), str(run)],
                         check=True, capture_output=True, text=True).stdout
    values = defaultdict(dict)
    for line in out.splitlines():
        name, query, value = line.split()
        values[query][name] = float(value)
    return values


@pytest.mark.parametrize("seed", range(80))
def test_matches_trec_eval(trec_eval_binary, tmp_path, seed):
    rng = random.Random(1000 + seed)
    qrels_path, run_path = write_case(rng, tmp_path)
    level = rng.choice([0, 1, 1, 1, 2, 3])
    flags, names = trec_eval_case(rng)
    protocol = TREC.replace(rel=level)
    judged_only = seed % 4 == 3  # trec_eval -J: unjudged docs dropped before measuring
    if judged_only:
        flags = ["-J", *flags]
        protocol = protocol.replace(unjudged="condense")
    theirs = run_trec_eval(trec_eval_binary, ["-l", str(level), *flags], qrels_path, run_path)
    ours = evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path), list(names.values()), protocol)
    seen = set()
    for query, row in theirs.items():
        for name, value in row.items():
            if name not in names:
                continue  # runid, num_q
            seen.add(name)
            measure = names[name]
            if math.isnan(value):
                # trec_eval divides 0 by 0 for a query left with no docs (here by -J):
                # interpolated precision at a level whose rank cut-off is 0. We score 0.
                assert judged_only and name.startswith(("iprec_at_recall", "11pt_avg")), (seed, name, query)
                if query != "all":
                    assert ours.per_query(measure)[query] == 0.0
                continue
            if query == "all":
                if name == "num_nonrel_judged_ret":  # summed over queries, not averaged
                    assert value == sum(ours.per_query(measure).values())
                else:
                    assert value == pytest.approx(ours.mean(measure), abs=5.01e-5), (seed, name)
            else:
                assert value == pytest.approx(ours.per_query(measure)[query], abs=5.01e-5), (seed, name, query)
    assert seen == set(names), set(names) - seen


# ---------------------------------------------------------------------------
# References: brute force over tied orders, and the ordered measures
# ---------------------------------------------------------------------------
DOC_IDS = ["d1", "d2", "d10", "D1", "a", "a#b", "zz", "d3", "x9", "m", "d20"]


def random_case(rng: random.Random, num_queries: int):
    """{query: (pool, scored)}: ties, unjudged docs, judged docs never retrieved,
    queries with nothing relevant."""
    case = {}
    for i in range(num_queries):
        docs = rng.sample(DOC_IDS, rng.randint(2, 8))
        pool_docs = rng.sample(docs, rng.randint(0, len(docs)))
        extra = [f"j{i}{n}" for n in range(rng.randint(0, 3))]
        top = rng.choice([0, 1, 2, 3])
        pool = {d: rng.randint(0, top) for d in pool_docs + extra}
        if not pool:
            pool = {f"j{i}": rng.randint(0, top)}
        ranked = rng.sample(docs, rng.randint(1, len(docs)))
        spread = rng.choice([1, 2, 3, 8])
        scored = [(d, float(rng.randint(0, spread))) for d in ranked]
        case[f"q{i}"] = (pool, scored)
    return case


def evaluate_case(case, measure, protocol):
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in case.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in case.items()})
    return evaluate(qrels, run, [measure], protocol).per_query(measure)


def random_exact_measure(rng: random.Random):
    """(measure text, reference function, its keyword arguments) of a ties="exact" measure."""
    rel = rng.choice([0, 1, 1, 2])
    k = rng.choice([None, 1, 2, 3, 5, 10])
    at = f"@{k}" if k else ""
    choice = rng.choice(["rprec_mult", "relative_p", "set_p", "set_relative_p", "set_r", "set_ap", "set_f",
                         "num_nonrel_judged_ret", "utility", "unjudged"])
    if choice == "rprec_mult":
        mult = rng.choice(MULTS)
        return f"rprec_mult(mult={_text(mult)},rel={rel})", ref_rprec_mult, {"mult": mult, "rel": rel}
    if choice in ("relative_p", "num_nonrel_judged_ret"):
        fn = ref_relative_p if choice == "relative_p" else ref_num_nonrel_judged_ret
        return f"{choice}(rel={rel}){at}", fn, {"k": k, "rel": rel}
    if choice == "set_f":
        beta = rng.choice([0.0, 0.5, 1.0, 2.0])
        return f"set_f(beta={_text(beta)},rel={rel})", ref_set_f, {"beta": beta, "rel": rel}
    if choice == "utility":
        a, b, c, d = (rng.choice([-1.0, 0.0, 0.5, 2.0]) for _ in range(4))
        docs = rng.choice([0, 40])
        text = f"utility(a={_text(a)},b={_text(b)},c={_text(c)},d={_text(d)},docs={docs},rel={rel})"
        return text, ref_utility, {"a": a, "b": b, "c": c, "d": d, "docs": docs, "rel": rel}
    if choice == "unjudged":
        return f"unjudged{at}", ref_unjudged, {"k": k}
    fn = {"set_p": ref_set_p, "set_relative_p": ref_set_relative_p, "set_r": ref_set_r, "set_ap": ref_set_ap}[choice]
    return f"{choice}(rel={rel})", fn, {"rel": rel}


@pytest.mark.parametrize("seed", range(150))
def test_exact_measures_match_brute_force_over_tie_orders(seed):
    rng = random.Random(seed)
    case = random_case(rng, rng.randint(1, 5))
    text, fn, kwargs = random_exact_measure(rng)
    assert parse_measure(text).spec.ties == "exact"
    ours = evaluate_case(case, text, Protocol(ties="expected", zero_ideal="exclude"))
    docid = evaluate_case(case, text, Protocol(ties="docid", zero_ideal="exclude"))
    for query, (pool, scored) in case.items():
        want = reference.expected(fn, scored, pool, **kwargs)
        if want is None:
            assert query not in ours and query not in docid, (text, query)
            continue
        assert ours[query] == pytest.approx(want, abs=1e-12), (seed, text, query)
        in_docid_order = fn(reference.order_docid(scored), pool, **kwargs)
        assert docid[query] == pytest.approx(in_docid_order, abs=1e-12), (seed, text, query)


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.parametrize("rounding", ["round", "legacy"])
def test_interpolated_measures_match_reference(seed, rounding):
    rng = random.Random(seed)
    case = random_case(rng, rng.randint(1, 5))
    rel = rng.choice([0, 1, 1, 2])
    protocol = Protocol(ties="docid", zero_ideal="exclude", iprec_rounding=rounding)
    recall = rng.choice(RECALL_LEVELS + [1 / 3, 0.125])
    levels = sorted(rng.choices(RECALL_LEVELS, k=rng.randint(1, 6)))
    checks = [
        (f"iprec(recall={_text(recall)},rel={rel})", ref_iprec, {"recall": recall}),
        (f"interp_avg(rel={rel})", ref_interp_avg, {}),
        (f"interp_avg(levels={'/'.join(_text(x) for x in levels)},rel={rel})", ref_interp_avg, {"levels": levels}),
    ]
    for text, fn, kwargs in checks:
        ours = evaluate_case(case, text, protocol)
        for query, (pool, scored) in case.items():
            want = fn(reference.order_docid(scored), pool, rel=rel, rounding=rounding, **kwargs)
            if want is None:
                assert query not in ours
            else:
                assert ours[query] == pytest.approx(want, abs=1e-12), (seed, text, query)


def test_interpolated_measures_accept_untied_runs_under_ties_expected():
    qrels = {"q": {"a": 1, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert values(qrels, run, "iprec(recall=1)", Protocol())["q"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(40))
def test_properties(seed):
    rng = random.Random(seed)
    case = random_case(rng, rng.randint(2, 6))
    docid = Protocol(ties="docid")
    k = rng.choice([1, 2, 3, 5, 10])
    measures = ["iprec(recall=0)", "iprec(recall=0.3)", "iprec(recall=0.6)", "iprec(recall=1)", "interp_avg",
                "interp_avg(levels=0.6)", "rprec", "rprec_mult", "set_p", "set_r", "set_ap", "set_f",
                "set_relative_p", f"relative_p@{k}", f"p@{k}", f"r@{k}", "num_rel", f"unjudged@{k}",
                f"judged@{k}", "utility", "utility(a=2,b=0,c=0,d=0)", "num_rel_ret", "num_ret",
                "num_nonrel_judged_ret", "set_f(beta=0)"]
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in case.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in case.items()})
    results = evaluate(qrels, run, measures, docid)
    v = {m: results.values(m) for m in measures}
    for m in measures:
        if parse_measure(m).spec.normalised or m.startswith(("set_p", "unjudged", "iprec", "interp")):
            assert ((v[m] >= 0) & (v[m] <= 1 + 1e-12)).all(), m
    # interpolated precision never rises with the recall level
    assert (v["iprec(recall=0)"] >= v["iprec(recall=0.3)"]).all()
    assert (v["iprec(recall=0.3)"] >= v["iprec(recall=0.6)"]).all()
    assert (v["iprec(recall=0.6)"] >= v["iprec(recall=1)"]).all()
    assert np.allclose(v["interp_avg(levels=0.6)"], v["iprec(recall=0.6)"])
    # Rprec_mult at mult 1 is R-precision: (long)(R + 0.9) = R
    assert np.allclose(v["rprec_mult"], v["rprec"])
    # set AP = set P * set R; set F(0) = set P where something relevant is retrieved
    assert np.allclose(v["set_ap"], v["set_p"] * v["set_r"])
    assert np.allclose(v["set_f(beta=0)"], np.where(v["num_rel_ret"] > 0, v["set_p"], 0.0))
    harmonic = np.divide(2 * v["set_p"] * v["set_r"], v["set_p"] + v["set_r"],
                         out=np.zeros(len(v["set_p"])), where=v["set_p"] + v["set_r"] > 0)
    assert np.allclose(v["set_f"], harmonic)
    # relative P is P@k while k <= R, and recall@k once k >= R
    R = v["num_rel"]
    assert np.allclose(v[f"relative_p@{k}"][k <= R], v[f"p@{k}"][k <= R])
    assert np.allclose(v[f"relative_p@{k}"][(k >= R) & (R > 0)], v[f"r@{k}"][(k >= R) & (R > 0)])
    # unjudged and judged fractions of the top k add up to the share of k filled
    assert np.allclose(v[f"unjudged@{k}"] + v[f"judged@{k}"], np.minimum(v["num_ret"], k) / k)
    # utility is linear in its coefficients; default: relevant - non-relevant retrieved
    assert np.allclose(v["utility(a=2,b=0,c=0,d=0)"], 2 * v["num_rel_ret"])
    assert np.allclose(v["utility"], 2 * v["num_rel_ret"] - v["num_ret"])
    # judged non-relevant + relevant + unjudged = retrieved
    whole = evaluate(qrels, run, ["unjudged"], docid).values("unjudged")
    assert np.allclose(v["num_nonrel_judged_ret"] + v["num_rel_ret"] + whole * v["num_ret"], v["num_ret"])


@pytest.mark.parametrize("seed", range(20))
def test_exact_measures_do_not_depend_on_doc_names(seed):
    """Under ties=expected, renaming docs (which reorders ties under docid) changes nothing."""
    rng = random.Random(seed)
    case = random_case(rng, 3)
    renamed = {q: ({"r" + d[::-1]: g for d, g in pool.items()}, [("r" + d[::-1], s) for d, s in scored])
               for q, (pool, scored) in case.items()}
    for measure in ("relative_p@3", "rprec_mult(mult=0.5)", "unjudged@2", "num_nonrel_judged_ret@2", "set_f"):
        first = evaluate_case(case, measure, Protocol())
        second = evaluate_case(renamed, measure, Protocol())
        assert first == pytest.approx(second, abs=1e-12), measure


# ---------------------------------------------------------------------------
# Text forms and parameters
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "iprec", "iprec(recall=0.1)", "iprec(recall=0)", "iprec(recall=1)", "iprec(recall=0.25,rel=2)",
    "interp_avg", "interp_avg(levels=0.25/0.5/0.75)", "interp_avg(levels=0/0.1/0.2/0.3/0.4/0.5/0.6/0.7/0.8/0.9/1)",
    "interp_avg(levels=0.5/0.5)", "rprec_mult(mult=0.2)", "rprec_mult(mult=1.5)", "relative_p@5", "relative_p",
    "set_p", "set_relative_p", "set_r", "set_ap", "set_f", "set_f(beta=0.5)", "set_f(beta=2)",
    "num_nonrel_judged_ret", "num_nonrel_judged_ret@10", "utility", "utility(a=1,b=-1,c=0,d=0,docs=0)",
    "utility(a=2.5,b=-0.1,docs=1000)", "unjudged", "unjudged@10",
])
def test_text_round_trips(text):
    measure = parse_measure(text)
    assert str(measure) == text
    assert parse_measure(str(measure)) == measure
    assert hash(parse_measure(str(measure))) == hash(measure)


def test_numbers_print_shortest_and_levels_parse_to_floats():
    from rankproof.measures import interp_avg, iprec, set_f, utility
    assert str(iprec(recall=0.2)) == "iprec(recall=0.2)"
    assert str(iprec(recall=0.1 + 0.2)) == "iprec(recall=0.30000000000000004)"  # a different number
    assert str(parse_measure("iprec(recall=0.20000000000000001)")) == "iprec(recall=0.2)"
    assert str(parse_measure("iprec(recall=1e-1)")) == "iprec(recall=0.1)"
    assert str(set_f(beta=1)) == "set_f(beta=1)"
    assert str(utility(a=-1.0, docs=5)) == "utility(a=-1,docs=5)"
    levels = parse_measure("interp_avg(levels=0.75/0.25/0.5)").setting("levels", Protocol())
    assert isinstance(levels, tuple) and levels == (0.25, 0.5, 0.75)  # sorted: the mean is order-free
    assert all(type(x) is Number and isinstance(x, float) for x in levels)
    assert interp_avg(levels=(0.5, 0.25)) == parse_measure("interp_avg(levels=0.25/0.5)")
    default = parse_measure("interp_avg").setting("levels", Protocol())
    assert isinstance(default, Levels) and default == tuple(i / 10 for i in range(11))
    assert str(default) == "0/0.1/0.2/0.3/0.4/0.5/0.6/0.7/0.8/0.9/1"
    assert parse_measure("utility").setting("a", Protocol()) == 1.0
    assert parse_measure("utility").setting("b", Protocol()) == -1.0
    assert parse_measure("set_f").setting("beta", Protocol()) == 1.0
    assert parse_measure("rprec_mult").setting("mult", Protocol()) == 1.0
    assert parse_measure("iprec").setting("recall", Protocol()) == 0.0


@pytest.mark.parametrize("text, message", [
    ("iprec(recall=1.5)", r"recall must be a number in \[0, 1\]; got '1.5'"),
    ("iprec(recall=-0.1)", r"recall must be a number in \[0, 1\]"),
    ("iprec(recall=half)", r"recall must be a number in \[0, 1\]"),
    ("iprec(recall=nan)", r"recall must be a number in \[0, 1\]"),
    ("iprec@5", "iprec takes no cutoff"),
    ("interp_avg(levels=0.5/2)", r"each of levels must be a number in \[0, 1\]"),
    ("interp_avg(levels=0.5//0.7)", r"levels must be recall levels in \[0, 1\] joined by '/'"),
    ("interp_avg(levels=0.5,0.7)", "cannot read parameter"),
    ("rprec_mult(mult=0)", r"mult must be a number in \(0, inf\)"),
    ("rprec_mult(mult=-1)", r"mult must be a number in \(0, inf\)"),
    ("set_f(beta=-0.5)", r"beta must be a number in \[0, inf\)"),
    ("set_f(beta=inf)", r"beta must be a number in \[0, inf\)"),
    ("utility(a=x)", "a must be a finite number"),
    ("utility(docs=1.5)", r"docs .* must be an integer in \[0, inf\)"),
    ("utility(docs=-3)", r"docs .* must be an integer in \[0, inf\)"),
    ("utility(e=1)", "does not take the parameter 'e'"),
    ("set_p@10", "set_p takes no cutoff"),
    ("set_r(mult=2)", "does not take the parameter 'mult'"),
    ("unjudged(rel=2)", "does not take the parameter 'rel'"),
])
def test_bad_parameters(text, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(text)


def test_python_values_are_checked_too():
    from rankproof.measures import interp_avg, iprec, utility
    with pytest.raises(MeasureError, match=r"\[0, 1\]"):
        iprec(recall=2)
    with pytest.raises(MeasureError, match="levels"):
        interp_avg(levels=())
    with pytest.raises(MeasureError, match="docs"):
        utility(docs=True)


def test_every_measure_is_registered_with_its_tie_support():
    assert set(FAMILY) == {"iprec", "interp_avg", "rprec_mult", "relative_p", "set_p", "set_relative_p", "set_r",
                           "set_ap", "set_f", "num_nonrel_judged_ret", "utility", "unjudged"}
    for name in FAMILY:
        spec = REGISTRY[name]
        assert spec.family == "trec"
        assert spec.ties == ("ordered" if name in ("iprec", "interp_avg") else "exact"), name
        assert "Ties:" in spec.description and "[trec_eval " in spec.description, name
