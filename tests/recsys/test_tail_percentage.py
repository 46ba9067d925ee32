"""RecBole's TailPercentage (tail_percentage): the tail by hand, and equal to RecBole's own metric."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from rankproof import Run
from rankproof.cli import main
from rankproof.errors import InputError
from rankproof.recsys.long_tail import tail_items, tail_percentage


def test_the_tail_by_hand():
    log = ["a", "b", "a", "c", "d", "a", "b", "e"]   # a 3, b 2, c 1, d 1, e 1 (first seen: a b c d e)
    assert tail_items(log, 0.4) == {"c", "d"}         # floor(0.4 x 5) = 2 fewest: c, d before e (seen first)
    assert tail_items(log, 0.1) == {"c"}              # floor(0.5) = 0 -> at least 1
    assert tail_items(log, 1.0) == {"a", "b", "c", "d", "e"}
    assert tail_items(log, 2) == {"b", "c", "d", "e"}   # a count threshold: at most 2 interactions
    run = Run.from_dict({"u": ["x", "c", "a", "e"], "v": ["d"], "w": []})
    got = tail_percentage(run, 3, training=log, tail=0.6)   # tail c, d, e; x never trained on: not tail
    assert got.per_query()["u"] == pytest.approx(1 / 3) and got.per_query()["v"] == 1.0
    assert np.isnan(got.values[list(got.queries).index("w")])
    with pytest.raises(InputError, match="tail"):
        tail_items(log, 0)


@pytest.mark.parity
def test_equals_recbole_tail_percentage():
    try:
        from recbole.evaluator.collector import DataStruct
        from recbole.evaluator.metrics import TailPercentage
        import torch
    except Exception as error:   # pragma: no cover - recbole is in the test extra
        pytest.skip(f"recbole not importable: {error}")
    rng = np.random.default_rng(39)
    # RecBole numbers items as they first appear: the log lists each item first in id order.
    log = list(range(1, 41)) + [int(i) for i in rng.zipf(1.6, 300) if i <= 40]
    lists = np.array([rng.choice(np.arange(1, 46), 10, replace=False) for _ in range(25)])   # 41-45: unseen
    run = Run.from_dict({f"u{u}": [str(i) for i in row] for u, row in enumerate(lists)})
    for tail in (0.1, 0.35, 1.0, 3, 7.5):
        metric = TailPercentage({"topk": [1, 5, 10], "metric_decimal_place": 12, "tail_ratio": tail})
        data = DataStruct()
        data.set("rec.items", torch.tensor(lists))
        data.set("data.count_items", Counter(log))
        theirs = metric.calculate_metric(data)
        for k in (1, 5, 10):
            ours = tail_percentage(run, k, training=[str(i) for i in log], tail=tail).mean
            assert ours == pytest.approx(theirs[f"tailpercentage@{k}"], abs=1e-11), (tail, k)


def test_the_cli_reads_train(tmp_path, capsys):
    (tmp_path / "qrels").write_text("u 0 a 1\n")
    (tmp_path / "run").write_text("u Q0 a 1 3 r\nu Q0 c 2 2 r\nu Q0 x 3 1 r\n")
    (tmp_path / "train.csv").write_text("user,item\np,a\np,b\nq,a\nq,c\n")   # a 2, b 1, c 1
    code = main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "ndcg", "-m",
                 "tail_percentage(tail=0.5)@3", "--train", str(tmp_path / "train.csv"), "--format", "json",
                 "--quiet"])
    side = json.loads(capsys.readouterr().out)["runs"]["run"]["side"]
    assert code == 0   # tail: floor(1.5) = 1 item, b (seen before c): none of a, c, x
    assert side["tail_percentage(tail=0.5)@3"]["value"] == 0.0
