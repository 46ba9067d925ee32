"""Position bias: fit_pbm (EM for the position-based click model), rankproof fit-pbm and
the file-backed discount it feeds (issue 17, item 6).

Recovery is tested on simulated logs: pairs shown at random ranks, clicks
drawn as Bernoulli(theta_r * alpha_qd) with known theta, seeded. With 400k
impressions the sampling error of each normalised theta_r is about 0.01;
the stated tolerance is 0.03 (absolute, on theta_r / theta_1).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rankproof import Protocol, Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.recsys.clicks import ClickLog, fit_pbm, read_clicks
from rankproof.errors import InputError, ParseError, ProtocolError

THETA = np.array([0.95, 0.7, 0.55, 0.45, 0.38, 0.3, 0.25, 0.2])
TOLERANCE = 0.03


def simulate(theta, queries=400, docs=12, sessions=125, seed=0):
    """Impressions (query, doc, rank, clicked): each session shows a random
    permutation's top len(theta) docs of its query."""
    rng = np.random.default_rng(seed)
    depth = len(theta)
    alpha = rng.uniform(0.05, 0.95, size=(queries, docs))
    query = np.repeat(np.arange(queries), sessions)
    shown = np.argsort(rng.random((queries * sessions, docs)), axis=1)[:, :depth]
    q = np.repeat(query, depth)
    d = shown.ravel()
    r = np.tile(np.arange(1, depth + 1), queries * sessions)
    clicked = rng.random(len(r)) < theta[r - 1] * alpha[q, d]
    return q, d, r, clicked


@pytest.mark.parametrize("seed", [0, 1])
def test_recovers_known_examination_probabilities(seed):
    q, d, r, c = simulate(THETA, seed=seed)
    fit = fit_pbm(ClickLog.from_arrays(q, d, r, c))
    assert fit.converged
    assert fit.examination[0] == 1.0
    np.testing.assert_allclose(fit.examination, THETA / THETA[0], atol=TOLERANCE)
    assert fit.impressions == len(r) and fit.clicks == int(c.sum())


def test_saturated_case_by_hand():
    # One pair at rank 1 (3 of 4 clicked) and rank 2 (1 of 4), another pair at
    # rank 2 only (1 of 5). Probabilities exist that reproduce every click rate
    # (theta_1 = 0.9, theta_2 = 0.3, alpha_a = 5/6, alpha_b = 2/3), so the
    # maximum likelihood fit does: theta_1 alpha_a = 3/4, theta_2 alpha_a = 1/4,
    # hence theta_2 / theta_1 = 1/3; scaled to theta_1 = 1, alpha_a = 0.75 and
    # alpha_b = (1/5) / (1/3) = 0.6.
    log = ClickLog.from_arrays(["q"] * 13, ["a"] * 8 + ["b"] * 5, [1] * 4 + [2] * 9,
                               [1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0])
    fit = fit_pbm(log)
    assert fit.examination.tolist() == pytest.approx([1.0, 1 / 3], abs=1e-5)
    assert fit.attractiveness.tolist() == pytest.approx([0.75, 0.6], abs=1e-4)
    # Log-likelihood at the saturated fit: sum over cells of c log p + (n - c) log(1 - p).
    expected = (3 * math.log(0.75) + math.log(0.25)) + (math.log(0.25) + 3 * math.log(0.75)) + (
        math.log(0.2) + 4 * math.log(0.8))
    assert fit.log_likelihood == pytest.approx(expected, abs=1e-4)


def test_gaps_and_missing_rank_one_clicks_are_refused():
    with pytest.raises(InputError, match="no impression at rank 2"):
        fit_pbm(ClickLog.from_arrays(["q", "q"], ["a", "b"], [1, 3], [1, 0]))
    assert fit_pbm(ClickLog.from_arrays(["q", "q"], ["a", "b"], [1, 3], [1, 0]), max_rank=1).examination.tolist() == [1.0]
    with pytest.raises(InputError, match="no click at rank 1"):
        fit_pbm(ClickLog.from_arrays(["q", "q"], ["a", "b"], [1, 2], [0, 1]))


@pytest.mark.parametrize("text, message", [
    ("q1 d1 1 1\nq1 d2 2\n", "line 2: has 3 fields"),
    ("q1 d1 0 1\n", "rank 0 is below 1"),
    ("q1 d1 x 1\n", "rank 'x' is not an integer"),
    ("q1 d1 1 2\n", "clicked '2' is not 0 or 1"),
    ("q1 d1 1 1\n\n  q1\td2   x 0\r\n", "line 3: .*rank 'x' is not an integer"),
])
def test_bad_logs_name_the_line(tmp_path, text, message):
    path = tmp_path / "clicks.txt"
    path.write_text(text)
    with pytest.raises(ParseError, match=message):
        read_clicks(path)


def test_any_blanks_separate_fields(tmp_path):
    plain = tmp_path / "plain.txt"
    rows = [("q", "a", 1, 1), ("q", "a", 1, 1), ("q", "a", 1, 1), ("q", "a", 1, 0),
            ("q", "a", 2, 1), ("q", "a", 2, 0), ("q", "a", 2, 0), ("q", "a", 2, 0)]
    plain.write_text("".join(f"{q} {d} {r} {c}\n" for q, d, r, c in rows))
    messy = tmp_path / "messy.txt"
    messy.write_text("".join(f"  {q}\t{d}   {r} {c} \r\n\n" for q, d, r, c in rows))
    assert fit_pbm(read_clicks(messy)).examination.tolist() == fit_pbm(read_clicks(plain)).examination.tolist()


def test_reads_csv_with_named_columns(tmp_path):
    path = tmp_path / "clicks.csv"
    path.write_text("qid,item,pos,click\n" + "".join(
        f"q,a,{r},{c}\n" for r, c in [(1, 1), (1, 1), (1, 1), (1, 0), (2, 1), (2, 0), (2, 0), (2, 0)]))
    log = read_clicks(path, query="qid", doc="item", rank="pos", clicked="click")
    assert fit_pbm(log).examination.tolist() == pytest.approx([1.0, 1 / 3], abs=1e-5)


# -- the discount file --------------------------------------------------------------
def test_discount_file_is_a_vector_with_path_and_digest(tmp_path):
    path = tmp_path / "discount.json"
    path.write_text(json.dumps({"discount": [1.0, 0.5]}))
    protocol = Protocol(discount=f"file:{path}")
    text = str(protocol)
    assert f"discount=file:{path}@sha256:" in text
    assert Protocol.from_text(text) == protocol
    # Ranks past the vector gain nothing: run [x, a] -> DCG = 0.5 * 1; ideal [a, b] = 1 + 0.5.
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 1}})
    r = evaluate(qrels, Run.from_dict({"q": ["x", "a", "b"]}), ["ndcg@3"], protocol)
    assert r.mean("ndcg@3") == pytest.approx(0.5 / 1.5)
    path.write_text(json.dumps([1.0, 0.25]))
    with pytest.raises(ProtocolError, match="changed since the protocol was written"):
        Protocol.from_text(text)


@pytest.mark.parametrize("content", ['{"examination": [1]}', "[1, -0.5]", "not json", '["a"]'])
def test_bad_discount_files_are_refused(tmp_path, content):
    path = tmp_path / "d.json"
    path.write_text(content)
    with pytest.raises(ProtocolError, match=str(path)):
        Protocol(discount=f"file:{path}")


def test_cli_fit_then_evaluate(tmp_path, capsys):
    q, d, r, c = simulate(THETA[:4], queries=50, docs=6, sessions=100, seed=3)
    clicks = tmp_path / "clicks.txt"
    clicks.write_text("".join(f"q{a} d{b} {k} {int(x)}\n" for a, b, k, x in zip(q, d, r, c)))
    out = tmp_path / "discount.json"
    assert main(["fit-pbm", str(clicks), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "EM converged" in err and "impressions" in err
    data = json.loads(out.read_text())
    assert data["model"] == "pbm" and data["discount"][0] == 1.0 and len(data["discount"]) == 4
    assert data["impressions"] == len(r)
    # The API on the same log gives the same vector.
    assert data["discount"] == fit_pbm(read_clicks(clicks)).examination.tolist()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 x 1 3 s\nq1 Q0 a 2 2 s\nq1 Q0 b 3 1 s\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg@3", "--format", "json",
                 "--policy", f"discount=file:{out}"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert f"discount=file:{out}@sha256:" in result["protocol_text"]
    v = data["discount"]
    expected = (v[1] + v[2]) / (v[0] + v[1])
    assert next(iter(result["runs"].values()))["mean"]["ndcg@3"] == pytest.approx(expected)


def test_cli_bad_log_is_one_line(tmp_path, capsys):
    clicks = tmp_path / "clicks.txt"
    clicks.write_text("q1 d1 1 1\nq1 d2 two 0\n")
    assert main(["fit-pbm", str(clicks), "-o", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "line 2" in err and "not an integer" in err
    assert not (tmp_path / "d.json").exists()


def _run_capped(argv, cwd, cap=1024**3):
    """The CLI in a subprocess under an address-space cap (a test that could run away runs under one)."""
    import os
    import resource
    import subprocess
    import sys

    from paths import SRC

    def bound():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "rankproof.cli", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, preexec_fn=bound)


@pytest.mark.parametrize("rank", ["100000000", "9000000000000000000"])
def test_a_deep_rank_in_a_tiny_log_is_a_gap_before_any_allocation(tmp_path, rank):
    # Before: 1 GB of counts for rank 10^8 before the gap was reported; a larger rank ran out of memory.
    (tmp_path / "clicks.txt").write_text(f"q1 d1 1 1\nq1 d2 {rank} 0\n")
    done = _run_capped(["fit-pbm", "clicks.txt"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"rankproof: clicks.txt: no impression at rank 2 (of ranks 1 to {rank}), so "
                                        "its examination is unknown; pass max_rank (--max-rank) below it"]


def test_a_gap_after_the_present_ranks_is_named():
    log = ClickLog.from_arrays(["q"] * 3, ["a", "b", "c"], [1, 2, 4], [1, 0, 0])
    with pytest.raises(InputError, match=r"no impression at rank 3 \(of ranks 1 to 4\)"):
        fit_pbm(log)
