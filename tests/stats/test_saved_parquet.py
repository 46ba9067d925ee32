"""Saved results in the Parquet layout (``rankproof evaluate --format parquet -o FILE``): read back equal to the
JSON layout of the same evaluation, taken by compare and monitor, and refused in one line when edited or foreign.

Expected values: hand-worked reciprocal ranks, and the JSON layout's values (the format a peer of this one
has long read back); never the Parquet reader's own output.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof.cli import main
from rankproof.errors import InputError
from rankproof.stats import load_results

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\nq4 0 x 0\n"
# q1: a at 1 (rr 1); q2: c at 2 (rr 1/2); q3: d not retrieved (rr 0); q4: no relevant doc (excluded: NaN)
RUN = "q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq2 Q0 z 1 3 s\nq2 Q0 c 2 2 s\nq3 Q0 e 1 1 s\nq4 Q0 x 1 1 s\n"
OTHER = "q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\nq2 Q0 c 1 3 t\nq3 Q0 d 1 1 t\nq4 Q0 x 1 1 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "s.run").write_text(RUN)
    (tmp_path / "t.run").write_text(OTHER)
    return tmp_path


def evaluate(folder, fmt: str, *runs: str, name: str = "") -> str:
    out = str(folder / (name or f"saved.{fmt}"))
    args = ["evaluate", str(folder / "q.qrels"), *[str(folder / r) for r in runs or ("s.run",)],
            "-m", "rr", "-m", "p@2", "--policy", "zero_ideal=drop", "--format", fmt, "-o", out, "--quiet"]
    assert main(args) == 0
    return out


def one_line_refusal(capsys, argv, *needles):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    for needle in needles:
        assert needle in captured.err, captured.err
    return captured.err


def test_parquet_reads_back_as_the_json_layout_and_by_hand(files):
    from_json = load_results(evaluate(files, "json", "s.run", "t.run"))
    from_parquet = load_results(evaluate(files, "parquet", "s.run", "t.run"))
    assert [s.run_name for s in from_parquet] == [s.run_name for s in from_json] == ["s.run", "t.run"]
    for a, b in zip(from_json, from_parquet):
        assert b.queries == a.queries and b.protocol == a.protocol and b.protocol.fingerprint == a.protocol.fingerprint
        assert (b.qrels_digest, b.qrels_source) == (a.qrels_digest, a.qrels_source)
        assert [str(m) for m in b.measures] == [str(m) for m in a.measures] == ["rr", "p@2"]
        for m in a.measures:
            np.testing.assert_array_equal(b.values(m), a.values(m))   # NaN where excluded, in both
            assert b.mean(m) == a.mean(m)
    s = dict(zip(from_parquet[0].queries, from_parquet[0].values("rr")))
    assert (s["q1"], s["q2"], s["q3"]) == (1.0, 0.5, 0.0) and math.isnan(s["q4"])
    assert from_parquet[0].mean("rr") == pytest.approx(0.5)


def test_the_layout_is_one_row_per_run_and_query_with_the_document_in_the_metadata(files):
    table = pq.read_table(evaluate(files, "parquet", "s.run", "t.run"))
    assert table.column_names == ["run", "query", "rr", "p@2"]
    assert table.num_rows == 8 and table.schema.field("rr").type == pa.float64()
    document = json.loads(table.schema.metadata[b"rankproof"])
    assert set(document["runs"]) == {"s.run", "t.run"} and "per_query" not in document["runs"]["s.run"]
    assert document["fingerprint"] == load_results(evaluate(files, "json"))[0].protocol.fingerprint


def test_compare_takes_parquet_and_json_saved_results_alike(files, capsys):
    parquet = evaluate(files, "parquet", "s.run", "t.run")
    json_file = evaluate(files, "json", "s.run", "t.run")
    outputs = []
    for path in (parquet, json_file):
        assert main(["compare", "--results", path, "-m", "rr", "--format", "json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]


def test_parquet_needs_an_output_file(files, capsys):
    for extra in ([], ["-o", "-"]):
        one_line_refusal(capsys, ["evaluate", str(files / "q.qrels"), str(files / "s.run"), "--format", "parquet",
                                  *extra], "--format parquet writes a binary file", "-o FILE")


def rewrite(path: str, table=None, metadata=None) -> str:
    table = table if table is not None else pq.read_table(path)
    if metadata is not None:
        table = table.replace_schema_metadata(metadata)
    pq.write_table(table, path)
    return path


def edited_metadata(path: str, edit) -> dict:
    document = json.loads(pq.read_table(path).schema.metadata[b"rankproof"])
    edit(document)
    return {"rankproof": json.dumps(document)}


@pytest.mark.parametrize("case, needles", [
    ("foreign", ["without rankproof's 'rankproof' metadata"]),
    ("fingerprint", ["does not match its protocol text", "edited"]),
    ("missing column", ["no column for p@2"]),
    ("text column", ["the column rr is string, not float64"]),
    ("infinite", ["is not a finite measure value", "query q2, rr"]),
    ("twice", ["query q1 has two rows"]),
    ("stray run", ["rows of run u.run, which the metadata does not name"]),
    ("truncated", ["not a readable Parquet file"]),
])
def test_edited_or_foreign_parquet_is_refused_in_one_line(files, capsys, case, needles):
    path = evaluate(files, "parquet")
    table = pq.read_table(path)
    if case == "foreign":
        rewrite(path, table.replace_schema_metadata(None))
    elif case == "fingerprint":
        rewrite(path, metadata=edited_metadata(path, lambda d: d.update(fingerprint="0123456789ab")))
    elif case == "missing column":
        rewrite(path, table.drop_columns(["p@2"]))
    elif case == "text column":
        rewrite(path, table.set_column(2, "rr", table.column("rr").cast(pa.string())))
    elif case == "infinite":
        values = table.column("rr").to_numpy().copy()
        values[table.column("query").to_pylist().index("q2")] = np.inf
        rewrite(path, table.set_column(2, "rr", pa.array(values)))
    elif case == "twice":
        rewrite(path, pa.concat_tables([table, table.slice(0, 1)]))
    elif case == "stray run":
        runs = pa.array(["s.run"] * (table.num_rows - 1) + ["u.run"]).dictionary_encode()
        rewrite(path, table.set_column(0, "run", runs))
    elif case == "truncated":
        data = open(path, "rb").read()
        with open(path, "wb") as stream:
            stream.write(data[: len(data) // 2])
    with pytest.raises(InputError):
        load_results(path)
    one_line_refusal(capsys, ["compare", "--results", path], os.path.basename(path), *needles)


def test_a_failed_write_leaves_no_file(files, capsys, monkeypatch):
    import rankproof.report.output as output

    def refuse(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "replace", refuse)
    out = files / "w.parquet"
    one_line_refusal(capsys, ["evaluate", str(files / "q.qrels"), str(files / "s.run"), "--format", "parquet",
                              "-o", str(out)], "w.parquet", "No space left")
    assert sorted(os.listdir(files)) == ["q.qrels", "s.run", "t.run"]


def test_two_evaluations_of_one_name_are_refused(files):
    from rankproof import Qrels, Run
    from rankproof import evaluate as evaluate_runs
    from rankproof.report.columnar import to_parquet

    qrels = Qrels.from_dict({"q": {"a": 1}})
    results = [evaluate_runs(qrels, Run.from_dict({"q": ["a"]}, name="same"), ["rr"]),
               evaluate_runs(qrels, Run.from_dict({"q": ["b", "a"]}, name="same"), ["rr"])]
    with pytest.raises(InputError, match="two evaluations are named same"):
        to_parquet(results)


@pytest.mark.parametrize("ids", [
    ["q1", "q2", "q3"],                     # text order: distinct by neighbours
    ["10", "9", "2", "1"],                  # numbers: distinct as integers
    ["1", "01", "001", "2"],                # one number, three ids: hashed, distinct
    ["7", "x", "7", "a", "x"],              # text with repeats: the first in text order is named
    ["5", "3", "05", "3"],                  # numbers with a repeat
    ["b", "a"], ["a", "a"], ["only"], [],
])
def test_repeated_ids_are_found_without_a_python_set(ids):
    from rankproof.stats.saved_parquet import _repeated

    repeats = sorted(q for q in set(ids) if ids.count(q) > 1)   # the old reader's answer: np.unique's first
    assert _repeated(pa.array(ids, type=pa.string())) == (repeats[0] if repeats else None)
