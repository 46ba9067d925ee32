"""AWRF (attention-weighted rank fairness) against a hand-worked table, and scipy's Jensen-Shannon distance."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from rankproof import Qrels, Run
from rankproof.cli import main
from rankproof.errors import InputError
from rankproof.recsys.awrf import awrf

GROUPS = {"a": ["g1"], "b": ["g2"], "c": ["g1", "g2"], "e": ["g3"]}   # d has no group


def _jsd_bits(p, q):
    p, q = np.asarray(p) / sum(p), np.asarray(q) / sum(q)
    m = (p + q) / 2
    return sum(x * math.log2(x / y) for x, y in zip(p, m) if x > 0) / 2 + \
        sum(x * math.log2(x / y) for x, y in zip(q, m) if x > 0) / 2


def test_the_hand_worked_table():
    # rank  item  groups   attention 1/log2 max(rank, 2)
    # 1     a     g1       1
    # 2     b     g2       1
    # 3     c     g1 g2    1/log2 3 = 0.63093
    # 4     d     -        1/2 (no group: takes no part)
    # 5     e     g3       1/log2 5 = 0.43068
    a3, a5 = 1 / math.log2(3), 1 / math.log2(5)
    p = [1 + a3, 1 + a3, a5]                              # g1, g2, g3
    relevant = [1, 0, 1]                                   # u's relevant: a (g1), d (none), e (g3)
    run = Run.from_dict({"u": ["a", "b", "c", "d", "e"]})
    qrels = Qrels.from_dict({"u": {"a": 1, "d": 1, "e": 2, "b": 0}})
    got = awrf(run, groups_of=GROUPS, qrels=qrels)
    assert got.values[0] == pytest.approx(1 - _jsd_bits(p, relevant), abs=1e-12)
    assert awrf(run, groups_of=GROUPS, target="uniform").values[0] == pytest.approx(1 - _jsd_bits(p, [1, 1, 1]))
    # catalogue: g1 holds a, c; g2 b, c; g3 e -> 2 : 2 : 1
    assert awrf(run, groups_of=GROUPS, target="catalogue").values[0] == pytest.approx(1 - _jsd_bits(p, [2, 2, 1]))
    # @2: a, b only -> 1 : 1 : 0 against 1 : 0 : 1
    assert awrf(run, 2, groups_of=GROUPS, qrels=qrels).values[0] == pytest.approx(1 - _jsd_bits([1, 1, 0],
                                                                                               relevant))
    # geometric attention 0.5^(rank - 1): g1 = 1 + 0.25, g2 = 0.5 + 0.25, g3 = 0.0625
    geometric = awrf(run, groups_of=GROUPS, target="uniform", attention="geometric").values[0]
    assert geometric == pytest.approx(1 - _jsd_bits([1.25, 0.75, 0.0625], [1, 1, 1]))
    # base e as TREC Fair Ranking 2021's script: 1 - scipy's Jensen-Shannon distance squared
    assert awrf(run, groups_of=GROUPS, qrels=qrels, base=math.e).values[0] == \
        pytest.approx(1 - jensenshannon(p, relevant) ** 2, abs=1e-12)


def test_no_grouped_item_gives_no_value_and_bad_input_is_refused():
    run = Run.from_dict({"u": ["d"], "v": ["a"]})
    got = awrf(run, groups_of=GROUPS, target="uniform")
    assert math.isnan(got.values[0]) and got.values[1] == pytest.approx(1 - _jsd_bits([1, 0, 0], [1, 1, 1]))
    assert awrf(Run.from_dict({}), groups_of=GROUPS, qrels={"u": {"a": 1}}).values.size == 0   # Spark's probe
    with pytest.raises(InputError, match="target"):
        awrf(run, groups_of=GROUPS, target="popular")
    with pytest.raises(InputError, match="judgments"):
        awrf(run, groups_of=GROUPS)


def test_the_cli_reads_the_groups_from_features(tmp_path, capsys):
    (tmp_path / "qrels").write_text("u 0 a 1\nu 0 e 2\n")
    (tmp_path / "run").write_text("u Q0 a 1 5 r\nu Q0 b 2 4 r\nu Q0 c 3 3 r\nu Q0 d 4 2 r\nu Q0 e 5 1 r\n")
    (tmp_path / "items.csv").write_text("item,category\na,g1\nb,g2\nc,g1\nc,g2\ne,g3\n")
    code = main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "ndcg", "-m", "awrf",
                 "-m", "awrf(preset=trec2021)", "--features", str(tmp_path / "items.csv"), "--format", "json",
                 "--quiet"])
    side = json.loads(capsys.readouterr().out)["runs"]["run"]["side"]
    assert code == 0
    p = [1 + 1 / math.log2(3), 1 + 1 / math.log2(3), 1 / math.log2(5)]
    assert side["awrf"]["value"] == pytest.approx(1 - _jsd_bits(p, [1, 0, 1]))
    assert side["awrf(preset=trec2021)"]["value"] == pytest.approx(1 - jensenshannon(p, [1, 0, 1]) ** 2)
