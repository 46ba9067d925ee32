"""IPS-weighted hit rate and nDCG: hand-worked values, RecPack's IPSHitRateK, the command line.

RecPack 0.3.6 (the peer) is not installed: it would downgrade numpy. The tables below are worked by hand
from its ``metrics/ips.py`` (``IPSMetric.fit``, ``IPSHitRateK._calculate``), its ``ElementwiseMetricK.value``
and its own test of ``IPSMetric``, and stand in.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import InputError, MeasureError
from rankproof.recsys.ips import inverse_propensities, ips_hit_rate, ips_ndcg
from rankproof.recsys.registry import SIDE_REGISTRY, compute_side, parse_side_measure
from rankproof.recsys.side import Interactions, SideData

# RecPack's test_IPSMetric: item 0 seen twice, items 1, 2, 3 once (5 interactions), item 5 never.
POPULARITY = ["i0", "i0", "i1", "i2", "i3"]
L3 = 1 / math.log2(3)


def test_recpack_inverse_propensities():
    weights, unseen = inverse_propensities(POPULARITY)
    assert weights["i0"] == 5 / 2 and [weights[i] for i in ("i1", "i2", "i3")] == [5, 5, 5]
    assert unseen == 0   # RecPack: an infinite inverse propensity is set to 0
    assert inverse_propensities(POPULARITY, cap=3)[0]["i1"] == 3   # ip_cap
    assert inverse_propensities(POPULARITY, cap=3, unseen="cap")[1] == 3


def test_recpack_ips_hit_rate_worked_from_its_source():
    # K = 2. u0 (relevant i0, i1) gets i1, i4: hit i1 -> 5. u1 (relevant i3, i5) gets i5, i3: 0 + 5.
    # u2 has no relevant item: RecPack eliminates it. value: the mean of the users' sums.
    run = Run.from_dict({"u0": {"i1": 0.9, "i4": 0.8, "i0": 0.1}, "u1": {"i5": 0.9, "i3": 0.8},
                         "u2": {"i0": 1.0}})
    result = ips_hit_rate(run, 2, relevant={"u0": ["i0", "i1"], "u1": ["i3", "i5"]}, popularity=POPULARITY)
    assert result.per_query() == {"u0": 5.0, "u1": 5.0}
    assert result.mean == 5.0 and result.undefined == 1
    # K = 3: u0's i0 enters (5/2)
    assert ips_hit_rate(run, 3, relevant={"u0": ["i0", "i1"]}, popularity=POPULARITY).per_query()["u0"] == 7.5


def test_exponent_and_user_without_list():
    # exponent 2: w = (N / n)^2: i0 25/4, i1 25. v has relevant items and no list: 0
    run = Run.from_dict({"u": ["i0", "i1"]})
    result = ips_hit_rate(run, 2, relevant={"u": ["i0", "i1"], "v": ["i0"]}, popularity=POPULARITY, exponent=2)
    assert result.per_query() == {"u": 25 / 4 + 25}
    assert "exponent=2" in result.measure


def test_ips_ndcg_both_normalisers_by_hand():
    # u ranks i0 (w 5/2), i4 (not relevant), i1 (w 5); relevant i0, i1.
    run = Run.from_dict({"u": ["i0", "i4", "i1"]})
    relevant = {"u": ["i0", "i1"]}
    dcg = 5 / 2 + 5 * 0.5   # rank 3: 1 / log2(4)
    best = ips_ndcg(run, 3, relevant=relevant, popularity=POPULARITY).per_query()["u"]
    assert best == pytest.approx(dcg / (5 + 5 / 2 * L3), abs=1e-15)   # ideal: i1 then i0
    plain = ips_ndcg(run, 3, relevant=relevant, popularity=POPULARITY, normaliser="ideal").per_query()["u"]
    assert plain == pytest.approx(dcg / (1 + L3), abs=1e-15)   # can pass 1
    assert plain > 1
    # all relevant items unseen: weight 0, the ideal is 0: undefined
    assert np.isnan(ips_ndcg(run, 3, relevant={"u": ["i9"]}, popularity=POPULARITY).values[0])


def test_bad_policies_are_input_errors():
    run = Run.from_dict({"u": ["i0"]})
    with pytest.raises(InputError, match="exponent"):
        ips_hit_rate(run, 1, relevant={"u": ["i0"]}, popularity=POPULARITY, exponent=0)
    with pytest.raises(InputError, match="unseen=cap"):
        ips_hit_rate(run, 1, relevant={"u": ["i0"]}, popularity=POPULARITY, cap=None, unseen="cap")
    with pytest.raises(InputError, match="normaliser"):
        ips_ndcg(run, 1, relevant={"u": ["i0"]}, popularity=POPULARITY, normaliser="max")


def test_registered_with_train_and_the_judgments():
    for name in ("ips_hit_rate", "ips_ndcg"):
        spec = SIDE_REGISTRY[name]
        assert spec.kind == "list" and spec.judgments and spec.needs == (("train",),)
    train = Interactions(None, np.array(POPULARITY), np.ones(5, dtype=np.int64))
    side = SideData(train=train).with_judgments(Qrels.from_dict({"u": {"i1": 1}}))
    run = Run.from_dict({"u": ["i1"]})
    assert compute_side(parse_side_measure("ips_hit_rate(cap=4)@1"), run, side).per_query() == {"u": 4.0}
    assert compute_side(parse_side_measure("ips_hit_rate(cap=none,exponent=0.5)@1"), run, side).per_query() == \
        {"u": pytest.approx(math.sqrt(5))}
    with pytest.raises(MeasureError, match="needs the judgments"):
        compute_side(parse_side_measure("ips_ndcg@1"), run, SideData(train=train))
    with pytest.raises(MeasureError, match="expected a number > 0"):
        parse_side_measure("ips_hit_rate(cap=-1)@1")


def test_cli_evaluate_ips(tmp_path, capsys):
    (tmp_path / "truth.csv").write_text("user,item,grade\nu,i0,1\nu,i1,1\nv,i3,1\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu,i0,3\nu,i4,2\nu,i1,1\nv,i2,2\nv,i3,1\n")
    (tmp_path / "train.csv").write_text("user,item\na,i0\nb,i0\na,i1\nc,i2\nd,i3\n")
    code = main([str(a) for a in ("evaluate", tmp_path / "truth.csv", tmp_path / "recs.csv", "--columns",
                                  "query=user,doc=item", "-m", "ndcg@3", "-m", "ips_hit_rate@3",
                                  "-m", "ips_ndcg@3", "--train", tmp_path / "train.csv", "--format", "json",
                                  "--quiet")])
    out, err = capsys.readouterr()
    assert code == 0, err
    side = json.loads(out)["runs"]["recs.csv"]["side"]
    # w: i0 5/2, i1 i2 i3 5. u: i0 + i1 = 7.5; v: i3 at rank 2 = 5
    assert side["ips_hit_rate@3"]["per_query"] == {"u": 7.5, "v": 5.0}
    assert side["ips_ndcg@3"]["per_query"]["u"] == pytest.approx((5 / 2 + 5 / 2) / (5 + 5 / 2 * L3), abs=1e-15)
    assert side["ips_ndcg@3"]["per_query"]["v"] == pytest.approx(L3, abs=1e-15)


def test_report_shows_the_new_measures_beside_accuracy(tmp_path):
    """rankproof report: serendipity, percentile rank and the IPS measures in the Beyond accuracy section,
    with the values evaluate gives (docs/guide/recommenders.md works the same files by hand)."""
    files = {"truth.csv": "user,item,grade\nu,a,1\nu,b,1\nu,e,1\nv,c,1\n",
             "recs.csv": "user,item,score\nu,a,3\nu,b,2\nu,c,1\nv,a,2\nv,c,1\n",
             "train.csv": "user,item\nu,a\nu,d\nv,a\nv,b\nw,a\nw,c\nw,e\n",
             "genres.csv": "item,category\na,Drama\nb,Comedy\nc,Drama|Comedy\nd,Drama\ne,Horror\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = tmp_path / "report.html"
    assert main([str(a) for a in ("report", tmp_path / "truth.csv", tmp_path / "recs.csv", "--columns",
                                  "query=user,doc=item", "-m", "ndcg@3", "-m", "serendipity@3", "-m",
                                  "percentile_rank", "-m", "ips_hit_rate@3", "-m", "ips_ndcg@3", "--train",
                                  tmp_path / "train.csv", "--features", tmp_path / "genres.csv", "--resamples",
                                  "50", "-o", out)]) == 0
    section = out.read_text()
    section = section[section.index('class="beyond-values"'):]
    # serendipity: u 1/3 (b unlike u's dramas), v 1/4; percentile: (0 + 1/5 + 7/10 + 1/5) / 4;
    # IPS weights a 7/3, others 7: u 7/3 + 7, v 7
    for measure, shown in (("serendipity@3", "0.2917"), ("percentile_rank", "27.5000"),
                           ("ips_hit_rate@3", "8.1667")):
        assert f'data-measure="{measure}">{shown}</td>' in section, measure
