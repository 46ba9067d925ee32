"""Expected percentile ranking: hand-worked values, RecPack's PercentileRanking, the command line.

RecPack 0.3.6 (the peer) is not installed: it would downgrade numpy. The table below is worked by hand
from its ``metrics/percentile_ranking.py`` (``_calculate``) and stands in.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import InputError, MeasureError
from rankproof.recsys.percentile import percentile_rank
from rankproof.recsys.registry import SIDE_REGISTRY, compute_side, parse_side_measure
from rankproof.recsys.side import SideData


def test_recpack_percentile_ranking_worked_from_its_source():
    # 5 items. y_pred u0: i0 0.9, i1 0.5, i3 0.7 (i2, i4 score 0: RecPack ranks them not, so the run
    # leaves them out); u1: all 0 (no list); u2: no y_true (eliminated).
    # ranks u0: i0 1, i3 2, i1 3 -> rank / 5 - 1 / 5: 0, 0.2, 0.4. y_true u0 = {i1, i2}: i1 0.4 (a hit);
    # i2 missed: (max 0.4 + 1) / 2 = 0.7. u1 = {i4}: (0 + 1) / 2 = 0.5. 100 x (0.4 + 0.7 + 0.5) / 3.
    run = Run.from_dict({"u0": {"i0": 0.9, "i1": 0.5, "i3": 0.7}, "u2": {"i0": 1.0}})
    truth = {"u0": ["i1", "i2"], "u1": ["i4"]}
    catalogue = [f"i{i}" for i in range(5)]
    for result in (percentile_rank(run, truth, catalogue=catalogue),
                   percentile_rank(run, truth, catalogue=catalogue, preset="recpack")):
        assert result.value == pytest.approx(100 * 1.6 / 3, abs=1e-12)
        assert (result.users, result.relevant, result.universe) == (2, 3, 5)
    per_user = percentile_rank(run, truth, catalogue=catalogue).per_user.per_query()
    assert per_user == pytest.approx({"u0": 100 * 1.1 / 2})   # u1 has no list, so no per-user row here


def test_hu_grade_weights_users_average_fraction_and_cutoff():
    run = Run.from_dict({"u": ["a", "b", "c", "d"]})
    truth = {"u": {"b": 3, "d": 1, "z": 0}, "v": {"a": 2}}   # z: grade 0, not relevant
    # universe a..d: 4. u: b at 2 -> 1/4, d at 4 -> 3/4; v no list: 1/2
    hu = percentile_rank(run, truth, catalogue="abcd", preset="hu")
    assert hu.value == pytest.approx(100 * (3 * 0.25 + 1 * 0.75 + 2 * 0.5) / 6)
    assert "weights=grade" in hu.measure
    users = percentile_rank(run, truth, catalogue="abcd", average="users", scale="fraction")
    assert users.value == pytest.approx(((0.25 + 0.75) / 2 + 0.5) / 2)
    # k=2: u's list is a, b; d is no longer ranked: (2 - 1 + 4) / 8
    cut = percentile_rank(run, truth, catalogue="abcd", k=2, scale="fraction")
    assert cut.value == pytest.approx((0.25 + 5 / 8 + 0.5) / 3)
    assert cut.measure.endswith("@2")
    # the universe grows by the run's and the judgments' items: e in the truth makes it 5
    assert percentile_rank(run, {"u": ["e"]}, catalogue="abcd").universe == 5


def test_policies_and_presets_are_checked():
    run = Run.from_dict({"u": ["a"]})
    with pytest.raises(InputError, match="preset=recpack sets weights=binary"):
        percentile_rank(run, {"u": ["a"]}, weights="grade", preset="recpack")
    with pytest.raises(InputError, match="average must be one of"):
        percentile_rank(run, {"u": ["a"]}, average="micro")
    assert np.isnan(percentile_rank(run, {}, catalogue="a").value)


def test_registered_reads_the_judgments_and_the_catalogue():
    spec = SIDE_REGISTRY["percentile_rank"]
    assert spec.kind == "catalogue" and spec.judgments and not spec.needs_cutoff
    run = Run.from_dict({"u": ["a", "b"]})
    side = SideData(items=np.array(list("abcd"))).with_judgments(Qrels.from_dict({"u": {"b": 1}}))
    value = compute_side(parse_side_measure("percentile_rank"), run, side)
    assert value.value == pytest.approx(25.0) and dict(value.detail)["universe"] == 4
    with pytest.raises(MeasureError, match="needs side data"):
        compute_side(parse_side_measure("percentile_rank"), run, SideData())


def test_cli_evaluate_percentile_rank(tmp_path, capsys):
    (tmp_path / "truth.csv").write_text("user,item,grade\nu,b,2\nu,e,1\nv,a,1\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu,a,3\nu,b,2\nu,c,1\nv,c,1\n")
    (tmp_path / "items.csv").write_text("item\na\nb\nc\nd\ne\n")
    code = main([str(a) for a in ("evaluate", tmp_path / "truth.csv", tmp_path / "recs.csv", "--columns",
                                  "query=user,doc=item", "-m", "ndcg@3", "-m", "percentile_rank",
                                  "-m", "percentile_rank(preset=hu)", "-m", "percentile_rank(scale=fraction)@1",
                                  "--items", tmp_path / "items.csv", "--format", "json", "--quiet")])
    out, err = capsys.readouterr()
    assert code == 0, err
    side = json.loads(out)["runs"]["recs.csv"]["side"]
    # 5 items. u: b at 2 -> 1/5; e missed -> (3 - 1 + 5) / 10; v: a missed, list of 1 -> (1 - 1 + 5) / 10
    assert side["percentile_rank"]["value"] == pytest.approx(100 * (0.2 + 0.7 + 0.5) / 3)
    assert side["percentile_rank(preset=hu)"]["value"] == pytest.approx(100 * (2 * 0.2 + 0.7 + 0.5) / 4)
    # @1: u's list is a: b and e missed -> (1 - 1 + 5) / 10 each
    assert side["percentile_rank(scale=fraction)@1"]["value"] == pytest.approx(0.5)
