"""Byte-mutation fuzzing of every reader (issue 13).

Real files (the start of the bundled Cranfield qrels and BM25 run, written in
every input format) are mutated by hypothesis: bytes replaced by hostile ones
(NUL, vertical tab, brackets, quotes, invalid UTF-8, a BOM, huge numbers),
cut short, or repeated. Whatever the bytes, the command line must answer with
exit 0, or exit 2 and one line on stderr: never an internal error (exit 1),
never a traceback, and it must change no file but its output.

The CLI runs in this process (``rankproof.cli.main``) to keep the suite
fast; tests/io/test_hostile_files.py runs the crafted hostile cases in subprocesses
under a 2 GiB address-space limit.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankproof.cli.app import main

from paths import CRANFIELD

QRELS_LINES = (CRANFIELD / "qrels.txt").read_bytes().splitlines()[:40]
RUN_LINES = (CRANFIELD / "bm25.run").read_bytes().splitlines()[:60]
QRELS = b"\n".join(QRELS_LINES) + b"\n"
RUN = b"\n".join(RUN_LINES) + b"\n"


def _table(lines: list[bytes], names: tuple[str, ...], picks: tuple[int, ...], delimiter: str) -> bytes:
    rows = [delimiter.join(names)]
    for line in lines:
        fields = line.decode().split()
        rows.append(delimiter.join(fields[i] for i in picks))
    return ("\n".join(rows) + "\n").encode()


def _jsonl(lines: list[bytes]) -> bytes:
    out = []
    for line in lines:
        fields = line.decode().split()
        out.append(json.dumps({"query": fields[0], "doc": fields[2], "score": float(fields[4])}))
    return ("\n".join(out) + "\n").encode()


def _parquet(lines: list[bytes]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    fields = [line.decode().split() for line in lines]
    table = pa.table({"query": [f[0] for f in fields], "doc": [f[2] for f in fields],
                      "score": [float(f[4]) for f in fields]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _saved() -> bytes:
    from rankproof import Qrels, Run, evaluate
    from rankproof.report.data import to_json

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "q").write_bytes(QRELS)
        (Path(folder) / "r").write_bytes(RUN)
        result = evaluate(Qrels.read(Path(folder) / "q"), Run.read(Path(folder) / "r", name="r"), ["ndcg@10"])
    return to_json([result], per_query=True).encode()


# name -> (seed bytes, file name to mutate, command with the other files fixed)
SEEDS = {
    "trec-qrels": (QRELS, "q", ["evaluate", "q", "r"]),
    "trec-run": (RUN, "r", ["evaluate", "q", "r"]),
    "gzip-run": (gzip.compress(RUN), "r.gz", ["evaluate", "q", "r.gz"]),
    "csv-run": (_table(RUN_LINES, ("query", "doc", "score"), (0, 2, 4), ","), "r.csv", ["evaluate", "q", "r.csv"]),
    "tsv-qrels": (_table(QRELS_LINES, ("query", "doc", "grade"), (0, 2, 3), "\t"), "q.tsv",
                  ["evaluate", "q.tsv", "r"]),
    "jsonl-run": (_jsonl(RUN_LINES), "r.jsonl", ["evaluate", "q", "r.jsonl"]),
    "parquet-run": (_parquet(RUN_LINES), "r.parquet", ["evaluate", "q", "r.parquet"]),
    "grade-map": (b'{"0": 0, "1": 1, "2": 2, "3": 3, "4": 4, "-1": 0}', "map.json",
                  ["evaluate", "q", "r", "--grade-map", "map.json"]),
    "saved-results": (None, "a.json", ["compare", "--results", "a.json", "b.json"]),
    "trec-eval-run": (RUN, "r", ["trec-eval", "-q", "q", "r"]),
}

HOSTILE = [b"\x00", b"\x0b", b"\x0c", b"\t", b"\r", b"\n", b" ", b"#", b'"', b"{", b"[", b"]", b"}", b",",
           b"\xff", b"\xc3", b"\xef\xbb\xbf", b"9" * 25, b"-", b"1e308", b"NaN", b"all", b"|", b"\\"]

edits = st.lists(st.tuples(st.floats(0, 1), st.sampled_from(HOSTILE), st.booleans()), min_size=1, max_size=6)


def _mutate(data: bytes, changes, cut: float | None, repeat: int) -> bytes:
    data = bytearray(data)
    for where, byte, insert in changes:
        at = min(int(where * len(data)), max(len(data) - 1, 0))
        if insert:
            data[at:at] = byte
        else:
            data[at:at + len(byte)] = byte
    if cut is not None:
        data = data[: int(cut * len(data))]
    return bytes(data) * repeat


def _run(argv: list[str], folder: Path) -> tuple[int, str]:
    import os

    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv + (["-o", "out.txt"] if argv[0] in ("evaluate", "compare") else []))
    finally:
        os.chdir(previous)
    return code, err.getvalue()


@pytest.mark.parametrize("name", sorted(SEEDS))
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(changes=edits, cut=st.none() | st.floats(0, 1), repeat=st.sampled_from([1, 1, 1, 2]))
def test_mutated_input_is_read_or_refused_in_one_line(name, changes, cut, repeat):
    seed, target, argv = SEEDS[name]
    if seed is None:
        seed = _SAVED
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        files = {"q": QRELS, "r": RUN, "b.json": _SAVED, target: _mutate(seed, changes, cut, repeat)}
        for file, content in files.items():
            (folder / file).write_bytes(content)
        code, err = _run(argv, folder)
        assert code in (0, 2), err
        if code == 2:
            assert len(err.splitlines()) == 1 and "internal error" not in err and "Traceback" not in err, err
        for file, content in files.items():
            assert (folder / file).read_bytes() == content, f"{file} changed"
        left = {p.name for p in folder.iterdir()} - set(files) - {"out.txt"}
        assert not left, f"files left behind: {left}"


_SAVED = _saved()
