"""RBO and tau_AP with ties: the variants of Corsi and Urbano (SIGIR 2024) and Urbano and Marrero (ICTIR 2017).

Expected values come from hand calculation, from the authors' reference
implementations (the README of julian-urbano/sigir2024-rbo and rows of its
rbo/test.csv; the documented example of the R package ircor), and from
brute force over every breaking of the ties.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from rankproof.errors import InputError
from rankproof.stats.similarity import rbo, tau_ap
from rankproof.stats.tied_rbo import rbo_tied


def _breakings(groups):
    """Every strict order a ranking of tie groups can be broken into."""
    return [[item for part in parts for item in part]
            for parts in itertools.product(*(itertools.permutations(group) for group in groups))]


def _random_groups(rng, n, pool=10):
    items, groups, i = rng.sample(range(pool), n), [], 0
    while i < n:
        size = rng.choice([1, 1, 2, 3])
        groups.append(items[i:i + size])
        i += size
    return groups


def test_rbo_ties_hand_worked():
    # S = ({a b}), L = (a b), p = 1/2: w sees a and b at depth 1 (A_1 = 2*1/(2+1)), a and b
    # are each at depth 1 with chance 1/2 (A_1 = 1/2), b's cosine A_1 = (1/2)/sqrt(1/2 * 1)
    tied, plain = [{"a", "b"}], ["a", "b"]
    w, a, b = (rbo(tied, plain, p=0.5, ties=v) for v in "wab")
    assert w.ext == pytest.approx(1 / 3 + 1 / 4 + 1 / 4)
    assert w.min == pytest.approx(1 / 3 + 1 / 4 + 2 * (math.log(2) - 1 / 2 - 1 / 8))
    assert a.ext == pytest.approx(1 / 4 + 1 / 4 + 1 / 4)
    assert b.ext == pytest.approx(0.5 * 0.5 / math.sqrt(0.5) + 1 / 4 + 1 / 4)
    # the same items seen: the unseen tail may add as much as after two identical untied lists
    assert w.residual == a.residual == pytest.approx(0.25 - 2 * (math.log(2) - 1 / 2 - 1 / 8))


def test_rbo_ties_reference_readme_example():
    # julian-urbano/sigir2024-rbo, rbo/Python/README.md
    x = ["red", {"blue", "green"}, "yellow", "pink"]
    y = [{"blue", "red"}, "white", {"yellow", "black", "purple"}, "green"]
    expected = {"a": (0.6922853, 0.3310519, 0.8930692, 0.5620173),
                "w": (0.7068257, 0.3429684, 0.9049857, 0.5620173),
                "b": (0.7207131, 0.3509163, 0.9129336, 0.5620173)}
    for variant, (ext, low, high, residual) in expected.items():
        got = rbo(x, y, p=0.95, ties=variant)
        assert (got.ext, got.min, got.max, got.residual) == pytest.approx((ext, low, high, residual), abs=1e-7)


# julian-urbano/sigir2024-rbo, rbo/test.csv: x, y, p, then (ext, min, max, res) of w, a, b
REFERENCE_ROWS = [
    ("(i5 i9 i13 i15 i16 i19 i20) (i3 i8)", "i6 (i4 i18) i2 i7 i8 i17 i14 (i11 i12) i1", 0.958074765324023,
     (0.0816485573277354, 0.0370062754797617, 0.59493569657566, 0.557929421095898),
     (0.0808189832771587, 0.0354671825076603, 0.593396603603558, 0.557929421095898),
     (0.0813693619867344, 0.0356267307324464, 0.593556151828344, 0.557929421095898)),
    ("i13 (i1 i4 i5 i6)", "i3 i14 i11 (i10 i15) i12 (i6 i9) i4 i2", 0.92238320668128,
     (0.117578490431637, 0.0763135264223449, 0.53999366118093, 0.463680134758586),
     (0.114619469221414, 0.0733545052121218, 0.537945108035391, 0.464590602823269),
     (0.11474835409049, 0.0734833900811979, 0.538589532380772, 0.465106142299574)),
    ("i11 (i8 i21) (i2 i18) (i6 i16 i20) (i4 i10)", "i8 (i9 i20 i21) (i2 i3) i13 i1 i11 i14 i19", 0.93912403977192,
     (0.482369482292872, 0.346394412736983, 0.712103626756557, 0.365709214019575),
     (0.46852753894333, 0.332552469387441, 0.698261683407016, 0.365709214019575),
     (0.486650566878314, 0.350675497322425, 0.716384711341999, 0.365709214019575)),
]


def _parse(text):
    """'a (b c) d' -> ['a', ['b', 'c'], 'd'] (the reference's notation)."""
    groups, current = [], None
    for word in text.split():
        if word.startswith("("):
            current = [word[1:]]
        elif word.endswith(")"):
            groups.append(current + [word[:-1]])
            current = None
        elif current is not None:
            current.append(word)
        else:
            groups.append(word)
    return groups


@pytest.mark.parametrize("row", REFERENCE_ROWS, ids=["uneven", "short-tied", "both-tied"])
def test_rbo_ties_reference_rows(row):
    x, y, p, *variants = row
    for variant, expected in zip("wab", variants):
        got = rbo(_parse(x), _parse(y), p=p, ties=variant)
        assert (got.ext, got.min, got.max, got.residual) == pytest.approx(expected, abs=1e-9)


def test_rbo_tie_machinery_without_ties_is_rbo():
    rng = random.Random(1)
    for _ in range(100):
        a, b = rng.sample(range(12), rng.randint(1, 8)), rng.sample(range(12), rng.randint(1, 8))
        p = rng.choice([0.5, 0.9, 0.95])
        plain = rbo(a, b, p)
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        for variant in "wab":
            low, residual, ext = rbo_tied([[i] for i in short], [[i] for i in long], p, variant)
            assert (low, residual, ext) == pytest.approx((plain.min, plain.residual, plain.ext), abs=1e-12)
            assert rbo(a, b, p, ties=variant) == plain


def test_rbo_a_is_the_mean_over_tie_breakings():
    # RBO^a is the expected RBO when ties are broken at random (Corsi and Urbano 2024): exactly for
    # the lower bound; for ext and the upper bound when both lists have the same length
    rng = random.Random(2)
    for case in range(60):
        even = case % 2 == 0
        n = rng.randint(2, 7)
        x = _random_groups(rng, n)
        y = _random_groups(rng, n if even else rng.randint(2, 7))
        p = rng.choice([0.6, 0.8, 0.95])
        got = rbo(x, y, p, ties="a")
        every = [rbo(bx, by, p) for bx in _breakings(x) for by in _breakings(y)]
        assert got.min == pytest.approx(sum(r.min for r in every) / len(every), abs=1e-12)
        if even:
            assert got.ext == pytest.approx(sum(r.ext for r in every) / len(every), abs=1e-12)
            assert got.max == pytest.approx(sum(r.max for r in every) / len(every), abs=1e-12)


def test_rbo_b_and_w_properties():
    rng = random.Random(3)
    for _ in range(40):
        n = rng.randint(2, 8)
        x, y = _random_groups(rng, n), _random_groups(rng, rng.choice([n, rng.randint(2, 8)]))
        a, b = rbo(x, y, 0.9, ties="a"), rbo(x, y, 0.9, ties="b")
        assert a.ext <= b.ext + 1e-12 and a.min <= b.min + 1e-12          # RBO^a <= RBO^b
        if sum(map(len, y)) == n:       # even lengths: the residual is the tail past both, the same
            assert a.residual == pytest.approx(b.residual) == pytest.approx(rbo(x, y, 0.9, ties="w").residual)
        assert rbo(y, x, 0.9, ties="w").ext == pytest.approx(rbo(x, y, 0.9, ties="w").ext)
        for variant in "wb":                                                # a ranking against itself
            assert rbo(x, x, 0.9, ties=variant).ext == pytest.approx(1.0)


def test_rbo_ranking_forms_and_refusals():
    as_groups = ["d1", {"d2", "d3"}, "d4"]
    as_scores = {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}
    as_lists = ["d1", ["d3", "d2"], "d4"]
    other = ["d3", "d1", "d4"]
    want = rbo(as_groups, other, 0.9, ties="a")
    assert rbo(as_scores, other, 0.9, ties="a") == want == rbo(as_lists, other, 0.9, ties="a")
    with pytest.raises(InputError, match="ties="):         # a tie needs a variant named
        rbo(as_groups, other, 0.9)
    with pytest.raises(InputError, match="repeated"):
        rbo(["d1", {"d1", "d2"}], other, 0.9, ties="a")
    with pytest.raises(InputError, match="empty"):
        rbo(["d1", set()], other, 0.9, ties="a")
    with pytest.raises(InputError, match="'w', 'a' or 'b'"):
        rbo(as_groups, other, 0.9, ties="x")
    assert rbo(("q1", "q2"), ["q1"], 0.9) == rbo(["q1", "q2"], ["q1"], 0.9)   # a tuple is a sequence


# ircor's documented example (man/tauAP.Rd), with R's rounding to one decimal
X = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
Y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
X1 = [0.7, 0.4, 0.3, 0.1, 0.6, 0.2, 0.9, 0.8, 0.1, 0.5]
Y1 = [0.5, 0.7, 0.3, 0.1, 0.1, 0.6, 0.9, 0.2, 0.4, 0.8]


def _scores(values):
    return dict(enumerate(values))


def test_tau_ap_ties_reference_example():
    assert tau_ap(_scores(X), _scores(Y)) == pytest.approx(0.3928571, abs=1e-7)
    assert tau_ap(_scores(X), _scores(Y), ties="a") == pytest.approx(0.3928571, abs=1e-7)
    assert tau_ap(_scores(X), _scores(Y1), ties="a") == pytest.approx(0.39903, abs=1e-5)
    assert tau_ap(_scores(X), _scores(Y1), ties="b") == pytest.approx(0.3317019, abs=1e-7)
    assert tau_ap(_scores(X1), _scores(Y1), ties="b") == pytest.approx(0.339418, abs=1e-6)
    assert tau_ap(_scores(Y1), _scores(X1), ties="b") == pytest.approx(0.339418, abs=1e-6)   # symmetric


def test_tau_ap_ties_hand_worked():
    truth = {"a": 3, "b": 2, "c": 1}
    # other ties a and b at the top. a: the pair a-b is in truth's order half the time,
    # k/(2(r+k-1)) = 1/2; c's group starts at rank 3, C = 2: 2 * 1/(3+1-2) = 1 -> 2/2 * 1.5 - 1
    # (the mean of tau_AP over (a b c) and (b a c): 1 and 0)
    assert tau_ap(truth, {"a": 1, "b": 1, "c": 0}, ties="a") == pytest.approx(2 / 2 * (1 / 2 + 1) - 1)
    # b, other against truth: only c is below the top group, C(c) = 2 of r - 1 = 2 -> 2/1 * 1 - 1;
    # truth against other: b (r = 2) has a above it, tied in other (0); c has 2 of 2 -> 2/2 * 1 - 1
    assert tau_ap(truth, {"a": 1, "b": 1, "c": 0}, ties="b") == pytest.approx(
        ((2 / 1 * 1 - 1) + (2 / 2 * (0 + 1) - 1)) / 2)
    assert tau_ap(truth, {"b": 3, "a": 2, "c": 1}, ties="b") == pytest.approx(
        tau_ap(truth, {"b": 3, "a": 2, "c": 1}, symmetric=True))


def test_tau_ap_a_is_the_mean_over_tie_breakings():
    rng = random.Random(4)
    for _ in range(100):
        n = rng.randint(2, 7)
        truth = dict(enumerate(rng.sample(range(100), n)))
        other = {i: rng.randint(0, 3) for i in range(n)}
        groups = [[i for i in other if other[i] == score] for score in sorted(set(other.values()), reverse=True)]
        every = [tau_ap(truth, {item: -rank for rank, item in enumerate(order)}) for order in _breakings(groups)]
        assert tau_ap(truth, other, ties="a") == pytest.approx(sum(every) / len(every), abs=1e-12)


def test_tau_ap_ties_refusals():
    truth = {"a": 3, "b": 3, "c": 1}
    with pytest.raises(InputError, match="ties='b'"):
        tau_ap(truth, {"a": 1, "b": 2, "c": 3}, ties="a")       # 'a' takes the reference as the truth
    with pytest.raises(InputError, match="'a' or 'b'"):
        tau_ap(truth, {"a": 1, "b": 2, "c": 3}, ties="w")
    assert math.isnan(tau_ap({"a": 1, "b": 1}, {"a": 2, "b": 1}, ties="b"))   # one side all tied
