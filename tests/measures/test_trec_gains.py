"""The trec family: g (G), bing (binG), ndcg_rel, rndcg (Rndcg), infap (infAP), rbp, rbp_resid.

Four kinds of checks:
- hand-computed golden values (one small query worked through in comments);
- agreement with trec_eval 10 itself, per query and in the mean, on random
  cases full of ties, unjudged and pooled-but-unjudged docs, negative grades,
  queries with nothing relevant, -l levels, -M cutoffs and gain parameters;
- slow reference functions below, written from the definitions, one query at
  a time: equal to the library on strict orders, and (through
  ``reference.expected``, brute-force enumeration of every order of the tied
  docs) equal to the library's exact expectation under ties=expected for the
  measures declared ties="exact" (bing, rndcg, rbp, rbp_resid);
- properties: bounds, the ideal ranking, invariance to renaming docs.

Qrels in the reference functions are ``{doc: grade}``; a negative grade means
"pooled but not judged" (trec_eval's RELVALUE_UNJUDGED), a doc absent from the
dict was never pooled. Gains are "linear" or a dict grade -> gain (unlisted
grades gain 0, like rankproof's gain maps).
"""

from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path

import pytest

import reference
from rankproof import Protocol, Qrels, Run, evaluate, parse_measure
from rankproof.errors import MeasureError, TieError
from rankproof.measures import REGISTRY, g, infap, rbp, rbp_resid, rndcg
from trec_oracle import write_case

TREC = Protocol.preset("trec_eval")
# ties=expected with trec_eval's reading of negative grades (pooled, unjudged).
EXPECTED = Protocol(ties="expected", negative_grades="unjudged")
INFAP_EPSILON = 0.00001


# ---------------------------------------------------------------------------
# Reference functions (one query, plain Python)
# ---------------------------------------------------------------------------
def _gain(grade: int, gain) -> float:
    if gain == "linear":
        return float(grade)
    return float(gain.get(grade, 0.0))


def _judged(doc, qrels) -> bool:
    return doc in qrels and qrels[doc] >= 0


def _ranked_gain(doc, qrels, gain) -> float:
    return _gain(qrels[doc], gain) if _judged(doc, qrels) else 0.0


def _ideal(qrels, gain) -> list[float]:
    """Positive gains of the judged pool, best first."""
    return sorted((x for x in (_gain(v, gain) for v in qrels.values() if v >= 0) if x > 0), reverse=True)


def _num_rel(qrels, rel) -> int:
    return sum(1 for v in qrels.values() if v >= 0 and v >= rel)


def _top(ranking, k):
    return list(ranking if k is None else ranking[:k])


def _log2_discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def ref_g(ranking, qrels, gain="linear", k=None):
    ideal = _ideal(qrels, gain)
    if not ideal:
        return None
    total = results = cost = 0.0
    for i, doc in enumerate(_top(ranking, k), 1):
        x = _ranked_gain(doc, qrels, gain)
        results += x
        # The ideal's cost of rank i: its gain, but never less than 1.
        cost += max(ideal[i - 1] if i <= len(ideal) else 0.0, 1.0)
        if x != 0:
            total += x / math.log2(2 + cost - results)
    return total / sum(ideal)


def ref_bing(ranking, qrels, rel=1, k=None):
    R = _num_rel(qrels, rel)
    if R == 0:
        return None
    total, nonrelevant_above = 0.0, 0
    for doc in _top(ranking, k):
        if _judged(doc, qrels) and qrels[doc] >= rel:
            total += 1.0 / math.log2(2 + nonrelevant_above)
        else:
            nonrelevant_above += 1
    return total / R


def _dcg_prefix(ranking, qrels, gain):
    """prefix[i] = DCG of the first i docs (log2 discount)."""
    prefix = [0.0]
    for i, doc in enumerate(ranking, 1):
        prefix.append(prefix[-1] + _ranked_gain(doc, qrels, gain) * _log2_discount(i))
    return prefix


def _ideal_prefix(ideal):
    prefix = [0.0]
    for i, x in enumerate(ideal, 1):
        prefix.append(prefix[-1] + x * _log2_discount(i))
    return prefix


def ref_ndcg_rel(ranking, qrels, gain="linear", k=None):
    ideal = _ideal(qrels, gain)
    P = len(ideal)
    if P == 0:
        return None
    top = _top(ranking, k)
    dcg, idcg = _dcg_prefix(top, qrels, gain), _ideal_prefix(ideal)
    total, found = 0.0, 0
    for i, doc in enumerate(top, 1):
        if _ranked_gain(doc, qrels, gain) > 0:
            total += dcg[i] / idcg[min(i, P)]
            found += 1
    total += (P - found) * dcg[-1] / idcg[P]
    return total / P if total > 0 else 0.0


def ref_rndcg(ranking, qrels, gain="linear", rel=1, k=None):
    ideal = _ideal(qrels, gain)
    P = len(ideal)
    if _num_rel(qrels, rel) == 0 or P == 0:
        return None
    top = _top(ranking, k)
    n = len(top)
    dcg, idcg = _dcg_prefix(top, qrels, gain), _ideal_prefix(ideal)
    padded = ideal + [0.0]
    points = [j for j in range(1, P + 1) if padded[j] != padded[j - 1]]
    if n >= P + 2:
        points.append(n)
    return sum(dcg[min(j, n)] / idcg[min(j, P)] for j in points) / len(points)


def ref_infap(ranking, qrels, rel=1, k=None):
    R = _num_rel(qrels, rel)
    if R == 0:
        return None
    total = 0.0
    relevant_above = nonrelevant_above = unjudged_above = 0
    for j, doc in enumerate(_top(ranking, k)):
        if doc not in qrels:
            continue  # never pooled: only moves the rank
        if qrels[doc] < 0:
            unjudged_above += 1
        elif qrels[doc] < rel:
            nonrelevant_above += 1
        else:
            if j == 0:
                total += 1.0
            else:
                pooled_share = (relevant_above + nonrelevant_above + unjudged_above) / j
                precision = (relevant_above + INFAP_EPSILON) / (relevant_above + nonrelevant_above + 2 * INFAP_EPSILON)
                total += 1.0 / (j + 1) + j / (j + 1) * pooled_share * precision
            relevant_above += 1
    return total / R


def ref_rbp(ranking, qrels, p=0.9, gain="linear", k=None):
    top_grade = max([v for v in qrels.values() if v >= 0], default=0)
    table = [_gain(v, gain) for v in range(0, top_grade + 1)]
    if gain != "linear":
        table += list(gain.values())
    low, high = min(table), max(table)

    def scaled(x):
        return (x - low) / (high - low) if low < 0 or high > 1 else x

    return (1 - p) * sum(scaled(_gain(qrels[doc], gain)) * p ** (i - 1)
                         for i, doc in enumerate(_top(ranking, k), 1) if _judged(doc, qrels))


def ref_rbp_resid(ranking, qrels, p=0.9, k=None):
    top = _top(ranking, k)
    unjudged = [i for i, doc in enumerate(top, 1) if not _judged(doc, qrels)]
    if not unjudged:
        return 0.0
    return p ** len(top) + (1 - p) * sum(p ** (i - 1) for i in unjudged)


REFERENCES = {"g": ref_g, "bing": ref_bing, "ndcg_rel": ref_ndcg_rel, "rndcg": ref_rndcg,
              "infap": ref_infap, "rbp": ref_rbp, "rbp_resid": ref_rbp_resid}


def _ref_kwargs(measure) -> dict:
    """A measure's settings as keywords of its reference function."""
    kwargs = {"k": measure.cutoff}
    for name in measure.spec.params:
        value = measure.setting(name, TREC)
        if name == "gain":
            value = "linear" if str(value) == "linear" else dict(value.gains)
        kwargs[name] = value
    return kwargs


def one_query(qrels: dict, ranking, measures, protocol=TREC) -> dict:
    run = Run.from_dict({"q": ranking if isinstance(ranking, dict) else list(ranking)})
    results = evaluate(Qrels.from_dict({"q": qrels}), run, measures, protocol)
    return {str(m): results.per_query(m).get("q") for m in results.means()}


# ---------------------------------------------------------------------------
# Golden values, by hand
# ---------------------------------------------------------------------------
# Pool: A=3, B=2, C=1, D=0, E=-1 (pooled, not judged); X was never pooled.
# Ranking: B, X, A, E, D (C is not retrieved). Gains (linear): 2, 0, 3, 0, 0.
# Positive pool gains, sorted: I = 3, 2, 1, so P = 3 and, at rel=1, R = 3.
# log2 discounts: rank 1: 1, rank 2: 0.6309297536, rank 3: 0.5.
# IDCG@1 = 3, IDCG@2 = 3 + 2 * 0.6309297536 = 4.2618595071, IDCG@3 = 4.7618595071.
GOLDEN_POOL = {"A": 3, "B": 2, "C": 1, "D": 0, "E": -1}
GOLDEN_RANKING = ["B", "X", "A", "E", "D"]
GOLDEN = {
    # G: costs max(I_i, 1) = 3, 2, 1, 1, 1, so C_i = 3, 5, 6, 7, 8; S_i = 2, 2, 5, 5, 5.
    # rank 1: 2 / log2(2 + 3 - 2) = 2 / log2(3); rank 3: 3 / log2(2 + 6 - 5) = 3 / log2(3).
    # (5 / log2 3) / (3 + 2 + 1) = 3.1546487679 / 6 = 0.5257747946
    "g": 0.5257747946,
    # binG: B has 0 non-relevant docs above: 1 / log2(2) = 1; A has 1 (X): 1 / log2(3) = 0.6309297536.
    # (1 + 0.6309297536) / R = 1.6309297536 / 3 = 0.5436432512
    "bing": 0.5436432512,
    # ndcg_rel: DCG@1 = 2, DCG@3 = 2 + 3 * 0.5 = 3.5 = DCG at the end.
    # B: 2 / IDCG@1 = 0.6666666667; A: 3.5 / IDCG@3 = 0.7350069851; C (missed): 3.5 / IDCG@3 again.
    # (0.6666666667 + 2 * 0.7350069851) / P = 2.1366806369 / 3 = 0.7122268790
    "ndcg_rel": 0.7122268790,
    # Rndcg: the ideal gain changes after ranks 1 (3->2), 2 (2->1), 3 (= P); n = 5 >= P + 2 adds rank 5.
    # DCG@1 / IDCG@1 = 2/3, DCG@2 / IDCG@2 = 2 / 4.2618595071 = 0.4692787260,
    # DCG@3 / IDCG@3 = 0.7350069851, DCG@5 / IDCG@3 = 0.7350069851; mean = 2.6059593630 / 4 = 0.6514898407
    "rndcg": 0.6514898407,
    # infAP: B at j = 0 adds 1. A at j = 2: above it 1 relevant, 0 judged non-relevant, 0 pooled unjudged
    # (X never pooled): 1/3 + (2/3) * (1/2) * (1 + 1e-5) / (1 + 2e-5) = 0.3333333333 + 0.3333300000.
    # (1 + 0.6666633334) / 3 = 0.5555544445
    "infap": 0.5555544445,
    # rbp, p = 0.5: grades reach 3 > 1, so gains are rescaled by / 3: B = 2/3 at rank 1, A = 1 at rank 3.
    # 0.5 * (2/3 * 1 + 1 * 0.25) = 0.4583333333
    "rbp(p=0.5)": 0.4583333333,
    # rbp_resid, p = 0.5: unjudged X (rank 2) and E (rank 4); 5 docs looked at.
    # 0.5 * (0.5 + 0.125) + 0.5^5 = 0.3125 + 0.03125 = 0.34375
    "rbp_resid(p=0.5)": 0.34375,
}


def test_golden_values():
    values = one_query(GOLDEN_POOL, GOLDEN_RANKING, list(GOLDEN))
    for name, expected in GOLDEN.items():
        assert values[name] == pytest.approx(expected, abs=1e-9), name


def test_golden_values_at_a_cutoff():
    # Top 2 only: B, X.
    values = one_query(GOLDEN_POOL, GOLDEN_RANKING, ["g@2", "bing@2", "ndcg_rel@2", "rndcg@2", "infap@2",
                                                     "rbp(p=0.5)@2", "rbp_resid(p=0.5)@2"])
    # G: only B counts: (2 / log2 3) / 6 = 0.2102921012
    assert values["g@2"] == pytest.approx(2 / math.log2(3) / 6)
    # binG: only B: 1 / 3
    assert values["bing@2"] == pytest.approx(1 / 3)
    # ndcg_rel: B: 2/3; A and C missed: 2 * DCG@2 / IDCG@3 = 2 * 2 / 4.7618595071; (2/3 + 0.8400139) / 3
    assert values["ndcg_rel@2"] == pytest.approx((2 / 3 + 2 * 2 / (3.5 + 2 / math.log2(3))) / 3)
    # Rndcg: n = 2 < P + 2: points 1, 2, 3 with DCG@1 = DCG@2 = DCG@3 = 2.
    assert values["rndcg@2"] == pytest.approx((2 / 3 + 2 / (3 + 2 / math.log2(3)) + 2 / (3.5 + 2 / math.log2(3))) / 3)
    # infAP: B only: 1 / 3
    assert values["infap@2"] == pytest.approx(1 / 3)
    # rbp: 0.5 * 2/3 = 1/3; rbp_resid: 0.5 * 0.5 (X at rank 2) + 0.5^2 = 0.5
    assert values["rbp(p=0.5)@2"] == pytest.approx(1 / 3)
    assert values["rbp_resid(p=0.5)@2"] == pytest.approx(0.5)


def test_golden_values_with_a_gain_map():
    # Gains 1 -> 3, 2 -> 9, 3 -> 3 (trec_eval: -m G.1=3,2=9; level 3 keeps gain 3).
    # Ideal I = 9 (B), 3, 3 (A, C); ranked gains: B = 9, A = 3.
    # G: C_i = 9, 12, 15, 16, 17; S_i = 9, 9, 12, 12, 12.
    # rank 1: 9 / log2(2 + 9 - 9) = 9; rank 3: 3 / log2(2 + 15 - 12) = 3 / log2(5) = 1.2920296742
    # (9 + 1.2920296742) / 15 = 0.6861353116
    values = one_query(GOLDEN_POOL, GOLDEN_RANKING, ["g(gain=map:0=0/1=3/2=9/3=3)"])
    assert values["g(gain=map:0=0/1=3/2=9/3=3)"] == pytest.approx(0.6861353116, abs=1e-9)


def test_zero_and_negative_gains():
    # Gains 0 -> -1, 1 -> 0, 2 -> 2: D (grade 0) now costs, C (grade 1) counts for nothing.
    gain = "map:0=-1/1=0/2=2/3=3"
    values = one_query(GOLDEN_POOL, ["D", "C", "B"], [f"g(gain={gain})", f"ndcg_rel(gain={gain})",
                                                      f"rndcg(gain={gain})"])
    # G: I = 3, 2 (P = 2, sum 5); costs 3, 2, then 1: C_i = 3, 5, 6. S_i = -1, -1, 1.
    # rank 1: -1 / log2(2 + 3 + 1) = -1 / log2 6; rank 3: 2 / log2(2 + 6 - 1) = 2 / log2 7.
    assert values[f"g(gain={gain})"] == pytest.approx((-1 / math.log2(6) + 2 / math.log2(7)) / 5)
    # ndcg_rel: DCG@3 = -1 + 0 + 2 * 0.5 = 0: B contributes 0 / IDCG@2, A (missed) 0 / IDCG@2: sum 0 -> 0.
    assert values[f"ndcg_rel(gain={gain})"] == 0.0
    # Rndcg: points 1 (3 -> 2) and 2 (= P); n = 3 < P + 2.
    # DCG@1 / IDCG@1 = -1/3; DCG@2 / IDCG@2 = -1 / (3 + 2 * 0.6309297536): the mean may be negative.
    assert values[f"rndcg(gain={gain})"] == pytest.approx((-1 / 3 - 1 / (3 + 2 / math.log2(3))) / 2)


def test_nothing_relevant_is_undefined_and_the_policy_decides():
    pool = {"A": 0, "B": 0, "C": -1}
    measures = ["g", "bing", "ndcg_rel", "rndcg", "infap"]
    assert set(one_query(pool, ["A", "C", "X"], measures).values()) == {0.0}
    excluded = one_query(pool, ["A", "C", "X"], measures, TREC.replace(zero_ideal="exclude"))
    assert set(excluded.values()) == {None}
    # rbp and rbp_resid are not normalised: always defined.
    assert one_query(pool, ["A", "C", "X"], ["rbp", "rbp_resid"], TREC.replace(zero_ideal="exclude")) == {
        "rbp": 0.0, "rbp_resid": pytest.approx(0.1 * (0.9 + 0.81) + 0.9 ** 3)}


def test_rbp_resid_is_zero_when_every_doc_is_judged():
    # trec_eval reports no residual (0) when no unjudged doc was retrieved, not p^n.
    assert one_query({"A": 1, "B": 0}, ["A", "B"], ["rbp_resid"])["rbp_resid"] == 0.0


def test_infap_tells_never_pooled_from_pooled_but_unjudged():
    # Relevant A at rank 2 after one doc: never pooled X is skipped entirely,
    # pooled-unjudged E counts as a pooled doc above (estimated relevant in the judged proportion).
    pool = {"A": 1, "E": -1}
    after_x = one_query(pool, ["X", "A"], ["infap"])["infap"]
    after_e = one_query(pool, ["E", "A"], ["infap"])["infap"]
    # After X: 1/2 + (1/2) * (0 / 1) * ... = 0.5
    assert after_x == pytest.approx(0.5)
    # After E: 1/2 + (1/2) * (1 / 1) * (0 + e) / (0 + 0 + 2e) = 1/2 + 1/4 = 0.75
    assert after_e == pytest.approx(0.75)
    # negative_grades=zero reads E as judged non-relevant: 1/2 + (1/2) * 1 * e / (1 + 2e) ~ 0.5
    zero = one_query(pool, ["E", "A"], ["infap"], TREC.replace(negative_grades="zero"))["infap"]
    assert zero == pytest.approx(0.5 + 0.5 * INFAP_EPSILON / (1 + 2 * INFAP_EPSILON))


def test_missing_query_scores_zero():
    qrels = Qrels.from_dict({"q1": {"A": 1}, "q2": {"A": 2, "B": -1}})
    run = Run.from_dict({"q1": ["A"]})
    results = evaluate(qrels, run, list(REFERENCES), TREC.replace(missing_query="zero"))
    for name in REFERENCES:
        assert results.per_query(name)["q2"] == 0.0, name


# ---------------------------------------------------------------------------
# Parameters and text forms
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["rbp(p=0.9)", "rbp(p=0.95)@10", "rbp_resid(p=0.5)", "rbp(p=1e-05)",
                                  "rbp(gain=exp2,p=0.8)", "g(gain=map:0=0/1=3/2=9)", "ndcg_rel(gain=exp2)",
                                  "rndcg(gain=map:1=1.5/2=9,rel=2)@20", "bing(rel=2)", "infap(rel=3)@100"])
def test_text_forms_round_trip(text):
    measure = parse_measure(text)
    assert str(measure) == text
    assert parse_measure(str(measure)) == measure


def test_persistence_is_written_in_its_shortest_form():
    assert str(rbp(p="0.950")) == "rbp(p=0.95)"
    assert str(rbp(p=0.1 + 0.2)) == "rbp(p=0.30000000000000004)"
    assert parse_measure(str(rbp(p=0.1 + 0.2))) == rbp(p=0.1 + 0.2)
    assert rbp(p=0.9).setting("p", TREC) == rbp.setting("p", TREC) == 0.9


@pytest.mark.parametrize("value", [0, 1, 1.5, -0.2, "0", "1.0", "nan", "inf", "x", True, None])
def test_persistence_out_of_range_is_refused_with_the_range(value):
    for measure in (rbp, rbp_resid):
        with pytest.raises(MeasureError, match=r"range \(0, 1\)"):
            measure(p=value)
    with pytest.raises(MeasureError, match=r"range \(0, 1\)"):
        parse_measure(f"rbp(p={value})")


def test_measures_take_only_their_parameters():
    with pytest.raises(MeasureError, match="does not take"):
        rbp_resid(gain="exp2")
    with pytest.raises(MeasureError, match="does not take"):
        g(rel=2)
    with pytest.raises(MeasureError, match="does not take"):
        infap(p=0.5)


def test_specs_say_which_tie_support_they_have():
    ties = {name: REGISTRY[name].ties for name in REFERENCES}
    assert ties == {"g": "ordered", "bing": "exact", "ndcg_rel": "ordered", "rndcg": "exact",
                    "infap": "ordered", "rbp": "exact", "rbp_resid": "exact"}
    for name in REFERENCES:
        assert REGISTRY[name].family == "trec"
        # Issue 14: in policy words (ties=ordered is not a value of the ties policy).
        words = "ties=docid or ties=input" if ties[name] == "ordered" else "exact expectation under ties=expected"
        assert words in REGISTRY[name].description and "ties=ordered" not in REGISTRY[name].description


@pytest.mark.parametrize("name", ["g", "ndcg_rel", "infap"])
def test_ordered_measures_refuse_ties_under_ties_expected(name):
    with pytest.raises(TieError, match=name):
        one_query({"A": 1, "B": 0}, {"A": 1.0, "B": 1.0}, [name], EXPECTED)


# ---------------------------------------------------------------------------
# Agreement with trec_eval 10
# ---------------------------------------------------------------------------
# write_case grades docs 0, 1, 2, 3, 5 or -1. trec_eval's gain parameters change
# the listed levels only (others keep gain = level), a gain map gives unlisted
# grades 0, so the map lists the other grades at their level.
GAIN_CASES = [
    ("1=3,2=9", "map:0=0/1=3/2=9/3=3/5=5"),
    ("0=-1,3=0,5=-2", "map:0=-1/1=1/2=2/3=0/5=-2"),  # negative and zero gains
    ("0=1,2=0", "map:0=1/1=1/3=3/5=5"),  # judged non-relevant docs gain
]
# rbp rescales its whole gain table, including levels absent from every
# query (trec_eval's table holds every level up to the query's top one), so
# its maps list grade 4 too.
RBP_GAIN_CASES = [
    ("0=0,1=3,2=9,3=3,4=4,5=5", "map:0=0/1=3/2=9/3=3/4=4/5=5"),
    ("0=-1,1=0.5,2=1,3=1,4=1,5=1", "map:0=-1/1=0.5/2=1/3=1/4=1/5=1"),
    ("0=0,1=0.25,2=0.5,3=1,4=1,5=1", "map:0=0/1=0.25/2=0.5/3=1/4=1/5=1"),  # within [0, 1]: not rescaled
]


def trec_eval(binary: Path, qrels: Path, run: Path, args: list[str]) -> tuple[dict, float]:
    """Per-query values and the mean of the one measure asked for."""
    out = subprocess.run([str(binary), "-q", *args, str(qrels), str(run)],
                         check=True, capture_output=True, text=True).stdout
    per_query, mean = {}, None
    for line in out.splitlines():
        _, query, value = line.split()
        if query == "all":
            mean = float(value)
        else:
            per_query[query] = float(value)
    return per_query, mean


def _cases(rng: random.Random) -> list[tuple[str, str]]:
    """(trec_eval -m argument, rankproof measure) pairs for one random case."""
    p = rng.choice([0.5, 0.8, 0.95])
    cases = [("G", "g"), ("binG", "bing"), ("ndcg_rel", "ndcg_rel"), ("Rndcg", "rndcg"), ("infAP", "infap"),
             ("rbp", "rbp"), ("rbp_resid", "rbp_resid"), (f"rbp.p={p}", f"rbp(p={p})"),
             (f"rbp_resid.p={p}", f"rbp_resid(p={p})")]
    params, gain = rng.choice(GAIN_CASES)
    cases += [(f"G.{params}", f"g(gain={gain})"), (f"ndcg_rel.{params}", f"ndcg_rel(gain={gain})"),
              (f"Rndcg.{params}", f"rndcg(gain={gain})")]
    params, gain = rng.choice(RBP_GAIN_CASES)
    cases.append((f"rbp.p={p},{params}", f"rbp(gain={gain},p={p})"))
    return cases


@pytest.mark.parametrize("seed", range(60))
def test_agrees_with_trec_eval(trec_eval_binary, tmp_path, seed):
    rng = random.Random(seed)
    qrels_path, run_path = write_case(rng, tmp_path)
    level = rng.choice([1, 1, 2])
    cutoff = rng.choice([None, None, 1, 3, 5])
    protocol = TREC.replace(rel=level)
    cases = _cases(rng)
    measures = [parse_measure(ours) for _, ours in cases]
    if cutoff is not None:
        measures = [m @ cutoff for m in measures]
    ours = evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path), measures, protocol)
    for (theirs_name, _), measure in zip(cases, measures):
        # One measure per call: trec_eval's rbp reads uninitialised variables
        # (see test_rbp_rescaling_is_reproducible), so no other measure may run before it.
        args = ["-l", str(level), "-m", theirs_name] + (["-M", str(cutoff)] if cutoff else [])
        theirs, theirs_mean = trec_eval(trec_eval_binary, qrels_path, run_path, args)
        per_query = ours.per_query(measure)
        assert set(per_query) == set(theirs)
        if any(math.isnan(v) for v in theirs.values()):
            continue  # Rndcg's 0/0: test_rndcg_with_no_positive_gain_but_relevant_docs
        for query, value in per_query.items():
            assert value == pytest.approx(theirs[query], abs=5.01e-5), (seed, theirs_name, cutoff, query)
        assert ours.mean(measure) == pytest.approx(theirs_mean, abs=5.01e-5), (seed, theirs_name)


def test_rndcg_with_no_positive_gain_but_relevant_docs(trec_eval_binary, tmp_path):
    # R > 0 but every gain is 0: trec_eval divides 0 by 0 zero times and prints nan;
    # rankproof calls the query undefined and the zero_ideal policy decides (0 in the preset).
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 A 1\nq1 0 B 0\nq2 0 A 1\n")
    run_path.write_text("q1 Q0 A 1 2 t\nq1 Q0 B 2 1 t\nq2 Q0 A 1 1 t\n")
    theirs, _ = trec_eval(trec_eval_binary, qrels_path, run_path, ["-m", "Rndcg.1=0"])
    assert math.isnan(theirs["q1"]) and math.isnan(theirs["q2"])
    qrels, run = Qrels.read_trec(qrels_path), Run.read_trec(run_path)
    measure = rndcg(gain="map:1=0")
    assert evaluate(qrels, run, [measure], TREC).per_query(measure) == {"q1": 0.0, "q2": 0.0}
    assert evaluate(qrels, run, [measure], TREC.replace(zero_ideal="exclude")).per_query(measure) == {}


def test_rbp_rescaling_is_reproducible(trec_eval_binary, tmp_path):
    # trec_eval 10's rbp rescales graded gains with a min and max it never
    # initialises: its value depends on what earlier measures left on the stack.
    # rankproof computes the intended value: gains / top grade here.
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 a 3\nq1 0 b 1\nq1 0 c 0\nq1 0 d 2\n")
    run_path.write_text("q1 Q0 a 1 5 t\nq1 Q0 b 2 4 t\nq1 Q0 x 3 3 t\nq1 Q0 d 4 2 t\n")
    # 0.1 * (3/3 + 0.9 * 1/3 + 0.729 * 2/3) = 0.1786
    alone, _ = trec_eval(trec_eval_binary, qrels_path, run_path, ["-m", "rbp"])
    ours = evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path), ["rbp"], TREC).per_query("rbp")
    assert ours["q1"] == pytest.approx(0.1 * (1 + 0.9 / 3 + 0.729 * 2 / 3))
    assert alone["q1"] == pytest.approx(ours["q1"], abs=5.01e-5)


# ---------------------------------------------------------------------------
# The reference functions: on strict orders, and brute force over tied orders
# ---------------------------------------------------------------------------
def _random_query(rng: random.Random, docs: int = 7) -> tuple[dict, list]:
    names = [f"d{i}" for i in range(docs + 3)]
    qrels = {doc: rng.choice([0, 0, 1, 1, 2, 3, -1]) for doc in rng.sample(names, rng.randint(1, docs))}
    scored = [(doc, float(rng.choice([1, 2, 2, 3, 3, 3]))) for doc in rng.sample(names, rng.randint(1, docs))]
    return qrels, scored


def _random_measure(rng: random.Random, name: str):
    measure = parse_measure(name)
    params = {}
    if "gain" in measure.spec.params:
        params["gain"] = rng.choice(["linear", "map:0=0/1=3/2=9/3=3", "map:0=-1/1=0/2=2/3=1", "map:1=0.5/2=1"])
    if "rel" in measure.spec.params:
        params["rel"] = rng.choice([1, 1, 2])
    if "p" in measure.spec.params:
        params["p"] = rng.choice([0.5, 0.9, 0.3])
    measure = measure(**params)
    cutoff = rng.choice([None, None, 1, 2, 3, 5])
    return measure if cutoff is None else measure @ cutoff


@pytest.mark.parametrize("seed", range(30))
def test_equals_the_reference_on_strict_orders(seed):
    # ties=docid: one order, the one reference.order_docid gives.
    rng = random.Random(seed)
    queries = {f"q{i}": _random_query(rng) for i in range(5)}
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in queries.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in queries.items()})
    measures = [_random_measure(rng, name) for name in REFERENCES for _ in range(3)]
    results = evaluate(qrels, run, measures, TREC)
    for measure in dict.fromkeys(measures):
        per_query = results.per_query(measure)
        for q, (pool, scored) in queries.items():
            expected = REFERENCES[measure.name](reference.order_docid(scored), pool, **_ref_kwargs(measure))
            assert per_query[q] == pytest.approx(expected if expected is not None else 0.0, abs=1e-12), \
                (seed, str(measure), q)


@pytest.mark.parametrize("seed", range(40))
def test_exact_measures_equal_brute_force_over_tied_orders(seed):
    rng = random.Random(1000 + seed)
    queries = {f"q{i}": _random_query(rng, docs=8) for i in range(4)}
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in queries.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in queries.items()})
    exact = [name for name in REFERENCES if REGISTRY[name].ties == "exact"]
    measures = [_random_measure(rng, name) for name in exact for _ in range(3)]
    results = evaluate(qrels, run, measures, EXPECTED.replace(zero_ideal="exclude"))
    for measure in dict.fromkeys(measures):
        per_query = results.per_query(measure)
        for q, (pool, scored) in queries.items():
            expected = reference.expected(REFERENCES[measure.name], scored, pool, **_ref_kwargs(measure))
            if expected is None:
                assert q not in per_query
            else:
                assert per_query[q] == pytest.approx(expected, abs=1e-12), (seed, str(measure), q)


def test_bing_across_the_cutoff_by_hand():
    # One group of 4 tied docs: relevant A, B; non-relevant C, D. Cutoff 2.
    # A relevant doc at in-group position 1 (prob. 1/2 that it is relevant) has 0
    # non-relevant docs above: 1; at position 2 (prob. 1/2), the doc above is
    # non-relevant with prob. 2/3: 2/3 / log2(3) + 1/3 * 1.
    # binG@2 = (1/2 * 1 + 1/2 * (2/3 * 0.6309297536 + 1/3)) / 2 = (0.5 + 0.3769765845) / 2 = 0.4384882923
    pool = {"A": 1, "B": 1, "C": 0, "D": 0}
    value = one_query(pool, {doc: 1.0 for doc in "ABCD"}, ["bing@2"], EXPECTED)["bing@2"]
    assert value == pytest.approx(0.4384882923, abs=1e-9)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(20))
def test_bounds(seed):
    rng = random.Random(2000 + seed)
    queries = {f"q{i}": _random_query(rng, docs=12) for i in range(6)}
    qrels = Qrels.from_dict({q: pool for q, (pool, _) in queries.items()})
    run = Run.from_dict({q: dict(scored) for q, (_, scored) in queries.items()})
    exact = ["bing", "rndcg", "rbp", "rbp_resid", "rbp(p=0.5)@3", "rbp_resid(p=0.5)@3", "bing@3", "rndcg@3"]
    for protocol, names in ((TREC, list(REFERENCES) + exact), (EXPECTED, exact)):
        results = evaluate(qrels, run, names, protocol)
        for name in names:
            for value in results.per_query(name).values():
                assert -1e-12 <= value <= 1 + 1e-12, (name, value)
        # What is known plus what is unknown cannot exceed 1 (gains rescaled to [0, 1]).
        for q, resid in results.per_query("rbp_resid").items():
            assert results.per_query("rbp")[q] + resid <= 1 + 1e-12


def test_the_ideal_ranking_scores_one():
    pool = {"A": 3, "B": 2, "C": 2, "D": 1, "E": 0}
    values = one_query(pool, ["A", "B", "C", "D", "E"], ["g", "bing", "ndcg_rel", "rndcg", "infap"])
    assert values["g"] == pytest.approx(1.0)
    assert values["bing"] == pytest.approx(1.0)
    assert values["ndcg_rel"] == pytest.approx(1.0)
    assert values["rndcg"] == pytest.approx(1.0)
    # infAP smooths precision among judged docs by 1e-5: just under 1.
    assert values["infap"] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("seed", range(10))
def test_exact_measures_do_not_depend_on_doc_names_under_ties(seed):
    rng = random.Random(3000 + seed)
    pool, scored = _random_query(rng, docs=10)
    rename = {doc: f"z{rng.random()}" for doc in {d for d, _ in scored} | set(pool)}
    names = ["bing", "rndcg", "rbp", "rbp_resid", "bing@2", "rndcg@3", "rbp@4", "rbp_resid@2"]
    before = one_query(pool, dict(scored), names, EXPECTED)
    after = one_query({rename[d]: v for d, v in pool.items()}, {rename[d]: s for d, s in scored}, names, EXPECTED)
    for name in names:
        assert before[name] == pytest.approx(after[name], abs=1e-12), name
