"""Hostile input (issue 13): never destroy a file, never run out of memory,
never a silently wrong number.

One table of cases. Each case makes its files inside ``tmp_path`` (regular
files, private device nodes, FIFOs, symlinks: never the machine's own
devices), runs the CLI in a subprocess under a 2 GiB address-space limit (as
``prlimit --as=2G`` would), and checks

- the exit code;
- that stderr is exactly one line holding the given words (when the exit is 2),
  and never a traceback nor a Python warning;
- the state of every file afterwards: inputs unchanged byte for byte, device
  nodes still devices, FIFOs still FIFOs, symlinks still symlinks, and no
  temporary file left behind.
"""

from __future__ import annotations

import functools
import gzip
import os
import resource
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from paths import CRANFIELD, SRC

# Every case runs the command line in a process of its own: ~1 s each, a minute in all.
pytestmark = pytest.mark.slow

MEMORY_LIMIT = 2 * 1024**3


# -- file kinds ----------------------------------------------------------------------
class Device:
    """A private character device node (major, minor) made with mknod inside tmp_path."""

    def __init__(self, major: int, minor: int) -> None:
        self.major, self.minor = major, minor


NULL = Device(1, 3)  # what /dev/null is
ZERO = Device(1, 5)  # what /dev/zero is
URANDOM = Device(1, 9)  # what /dev/urandom is
FULL = Device(1, 7)  # what /dev/full is


class Fifo:
    """A named pipe inside tmp_path, with no writer and no reader."""


@dataclass(frozen=True)
class Link:
    """A symlink to another file of the case."""

    to: str


def _cranfield(name: str) -> bytes:
    return (CRANFIELD / name).read_bytes()


QRELS = _cranfield("qrels.txt")
RUN = _cranfield("bm25.run")


@dataclass
class Case:
    """One hostile input: files, command, expected outcome and the state afterwards."""

    id: str
    files: dict
    argv: list
    exit: int
    words: tuple = ()
    # Files the command may change (its outputs); every other file must be as it was.
    outputs: tuple = ()
    # What the outputs must hold afterwards: a substring of their text.
    output_words: tuple = ()
    stdout_words: tuple = ()
    env: dict = field(default_factory=dict)
    stdin: bytes | None = None
    # A file of the case to give as stdin (a private device node, say).
    stdin_file: str | None = None
    # Words stdout must not hold.
    stdout_absent: tuple = ()
    # Python code to run instead of the CLI (the public Python API).
    python: str | None = None
    timeout: float = 120
    # Bytes a writer thread puts into the case's FIFO (as <(...) would).
    fifo_writes: bytes | None = None


def _make(folder: Path, files: dict) -> None:
    for name, content in files.items():
        path = folder / name
        if isinstance(content, Device):
            try:
                os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(content.major, content.minor))
            except (PermissionError, OSError) as error:
                pytest.skip(f"cannot make a private device node here (mknod: {error})")
        elif isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, Link):
            os.symlink(content.to, path)
        elif callable(content):
            path.write_bytes(content())
        else:
            path.write_bytes(content)


def _state(folder: Path) -> dict:
    """What each entry of the folder is, and its bytes for regular files."""
    state = {}
    for path in sorted(folder.iterdir()):
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            state[path.name] = ("symlink", os.readlink(path))
        elif stat.S_ISCHR(info.st_mode):
            state[path.name] = ("chardev", info.st_rdev)
        elif stat.S_ISFIFO(info.st_mode):
            state[path.name] = ("fifo",)
        else:
            state[path.name] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return state


def _bounded_memory(limit: int = MEMORY_LIMIT):
    def bound() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return bound


def run_cli(argv, cwd: Path, env: dict | None = None, stdin: bytes | None = None, timeout: float = 60,
            memory: int = MEMORY_LIMIT):
    environment = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
    environment.pop("RANKPROOF_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "rankproof.cli", *argv], cwd=cwd, env=environment,
                          input=stdin if stdin is not None else b"", capture_output=True, timeout=timeout,
                          preexec_fn=_bounded_memory(memory))


def check_one_line(stderr: str, words=()) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "Warning" not in stderr and "internal error" not in stderr, stderr
    for word in words:
        assert word in stderr, (word, stderr)


# File contents that take time to make are made only when their case runs
# (a callable in Case.files), and once.
@functools.cache
def _gzip_of_zeros(gibibytes: int) -> bytes:
    """A gzip file of that many GiB of zero bytes (a decompression bomb).

    Gzip members may follow one another; one member of 64 MiB repeated makes
    the bomb without compressing gigabytes here.
    """
    member = gzip.compress(bytes(64 << 20), 9)
    return member * (gibibytes * 16)


@functools.cache
def _gzip_of_repeated_lines() -> bytes:
    """About 100 MB of valid run lines in about a megabyte of gzip."""
    member = gzip.compress(b"1 Q0 d 1 1 t\n" * 1_000_000, 9)
    return member * 8


@functools.cache
def _parquet_of_identical_rows(rows: int) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    index = pa.array([0] * rows)
    table = pa.table({"query": pa.array(["1"]).take(index), "doc": pa.array(["184"]).take(index),
                      "score": pa.array([1.0]).take(index)})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@functools.cache
def _saved_document() -> str:
    from rankproof import Qrels, Run, evaluate
    from rankproof.report.data import to_json

    qrels = Qrels.read(CRANFIELD / "qrels.txt")
    results = [evaluate(qrels, Run.read(CRANFIELD / name, name=name), ["ndcg@10"])
               for name in ("bm25.run", "tfidf.run")]
    return to_json(results, per_query=True)


def _saved(edit=None) -> bytes:
    """A results file as rankproof evaluate --format json writes it, optionally edited."""
    import json

    document = json.loads(_saved_document())
    if edit is not None:
        edit(document)
    return json.dumps(document).encode()


def _first_value(value):
    def edit(document):
        run = next(iter(document["runs"].values()))
        query = next(iter(run["per_query"]))
        run["per_query"][query]["ndcg@10"] = value
    return edit


def _mean_as_list(document):
    for run in document["runs"].values():
        run["mean"] = [1, 2]


# Two queries on which run b gains the same over run a: no spread in the differences.
CONSTANT_QRELS = b"1 0 x 1\n2 0 y 1\n"
CONSTANT_A = b"1 Q0 z 1 2 a\n1 Q0 x 2 1 a\n2 Q0 w 1 2 a\n2 Q0 y 2 1 a\n"
CONSTANT_B = b"1 Q0 x 1 2 b\n1 Q0 z 2 1 b\n2 Q0 y 1 2 b\n2 Q0 w 2 1 b\n"

BIG_ID = b"d" * (1 << 20)


def api(statement: str) -> str:
    """Python code running one call of the public API: a RankproofError is one line and exit 2."""
    return ("import math, sys\n"
            "from rankproof import Qrels, Run, evaluate, coverage\n"
            "from rankproof.errors import RankproofError\n"
            "try:\n"
            f"    {statement}\n"
            "except RankproofError as error:\n"
            "    print(error, file=sys.stderr)\n"
            "    sys.exit(2)\n")

CASES = [
    # -- output safety ------------------------------------------------------------------
    Case("o-onto-char-device", {"q": QRELS, "r": RUN, "null": NULL},
         ["evaluate", "q", "r", "-o", "null"], 0, outputs=("null",)),
    Case("o-onto-fifo-with-reader-is-written-in-place", {"q": QRELS, "r": RUN, "pipe": Fifo()},
         ["evaluate", "q", "r", "-o", "pipe"], 0, outputs=("pipe",)),
    Case("o-onto-the-run", {"q": QRELS, "x.run": RUN},
         ["evaluate", "q", "x.run", "-o", "x.run"], 2, ("x.run", "same file as the input")),
    Case("o-onto-the-qrels", {"q": QRELS, "x.run": RUN},
         ["evaluate", "q", "x.run", "-o", "q"], 2, ("-o q", "same file as the input")),
    Case("o-onto-a-symlink-to-the-run", {"q": QRELS, "x.run": RUN, "link": Link("x.run")},
         ["evaluate", "q", "x.run", "-o", "link"], 2, ("same file as the input",)),
    Case("o-onto-the-second-run", {"q": QRELS, "a": RUN, "b": RUN},
         ["evaluate", "q", "a", "b", "-o", "b"], 2, ("same file as the input",)),
    Case("compare-o-onto-a-run", {"q": QRELS, "a": RUN, "b": _cranfield("tfidf.run")},
         ["compare", "q", "a", "b", "-o", "b"], 2, ("same file as the input",)),
    Case("o-onto-the-grade-map", {"q": QRELS, "r": RUN, "map.json": b'{"1": 1}'},
         ["evaluate", "q", "r", "--grade-map", "map.json", "-o", "map.json"], 2, ("same file as the input",)),
    Case("o-through-a-symlink-keeps-the-link", {"q": QRELS, "r": RUN, "out.txt": b"old", "link": Link("out.txt")},
         ["evaluate", "q", "r", "-o", "link"], 0, outputs=("out.txt",), output_words=("ndcg@10",)),
    Case("o-onto-a-read-only-file", {"q": QRELS, "r": RUN, "ro.txt": b"keep"},
         ["evaluate", "q", "r", "-o", "ro.txt"], 2, ("ro.txt", "read-only")),
    # Like -o /proc/x (an OSError from the file system), without touching a system path.
    Case("o-name-too-long", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "-o", "x" * 300], 2, ("cannot be written", "too long")),
    Case("stdout-onto-a-full-device", {"q": QRELS, "r": RUN, "full": FULL},
         ["evaluate", "q", "r"], 2, ("standard output", "No space left")),
    # -- inputs that never end, bombs, crashes ------------------------------------------
    Case("run-is-a-zero-device", {"q": QRELS, "z": ZERO}, ["evaluate", "q", "z"], 2, ("z line 1", "NUL")),
    Case("qrels-is-a-urandom-device", {"u": URANDOM, "r": RUN}, ["evaluate", "u", "r"], 2, ("u line",)),
    Case("grade-map-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["evaluate", "q", "r", "--grade-map", "z"], 2, ("--grade-map z", "NUL")),
    # issue 28: report --segments read its file whole (and /dev/zero ran away), took JSON null and
    # lists for segment names, recursed without the nesting limit, and ignored a file naming no query.
    Case("segments-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["report", "q", "r", "--segments", "z", "-o", "out.html"], 2, ("--segments z", "NUL")),
    Case("segments-json-200000-deep", {"q": QRELS, "r": RUN, "s.json": b'{"1": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"},
         ["report", "q", "r", "--segments", "s.json", "-o", "out.html"], 2, ("--segments s.json", "nested")),
    Case("segments-json-null-label", {"q": QRELS, "r": RUN, "s.json": b'{"1": null, "2": "long"}'},
         ["report", "q", "r", "--segments", "s.json", "-o", "out.html"], 2, ("query '1'", "null", "not a name")),
    Case("segments-json-list-label", {"q": QRELS, "r": RUN, "s.json": b'{"1": ["x"]}'},
         ["report", "q", "r", "--segments", "s.json", "-o", "out.html"], 2, ("query '1'", "not a name")),
    Case("segments-naming-no-query", {"q": QRELS, "r": RUN, "s.txt": b"001 short\n002 long\n"},
         ["report", "q", "r", "--segments", "s.txt", "-o", "out.html"], 2, ("none of its 2 queries", "'001'")),
    # issue 28: stdin was read whole into memory, then copied to a temporary file, before any check.
    Case("evaluate-stdin-is-a-zero-device", {"q": QRELS, "z": ZERO},
         ["evaluate", "q", "-"], 2, ("stdin", "NUL"), stdin_file="z"),
    # issue 28: every side file is read as the qrels and runs are, or refused before it is read.
    Case("discount-file-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["evaluate", "q", "r", "-m", "ndcg(discount=file:z)@10"], 2, ("discount file", "not a regular file")),
    Case("discount-policy-file-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["evaluate", "q", "r", "--policy", "discount=file:z"], 2, ("z:", "not a regular file")),
    Case("chunk-map-file-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["evaluate", "q", "r", "--policy", "chunk_map=file:z"], 2, ("z:", "chunk map", "not a regular file")),
    Case("chunk-map-file-is-binary", {"q": QRELS, "r": RUN, "b": b"\0" * 3_000_000},
         ["evaluate", "q", "r", "--policy", "chunk_map=file:b"], 2, ("b:", "NUL")),
    Case("trec-eval-z-scores-from-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["trec-eval", "-Z", "z", "q", "r"], 2, ("-Z z", "NUL")),
    Case("trec-eval-qrels-is-a-zero-device", {"z": ZERO, "r": RUN},
         ["trec-eval", "z", "r"], 2, ("z line 1", "NUL")),
    Case("intent-weights-is-a-zero-device", {"q": QRELS, "r": RUN, "z": ZERO},
         ["evaluate", "q", "r", "--intents", "--intent-weights", "z"], 2, ("z line 1", "intent weights file")),
    Case("trec-eval-stdin-is-a-zero-device", {"q": QRELS, "z": ZERO},
         ["trec-eval", "q", "-"], 2, ("stdin", "NUL"), stdin_file="z"),
    Case("run-is-a-fifo-with-no-writer", {"q": QRELS, "pipe": Fifo()},
         ["evaluate", "q", "pipe"], 2, ("pipe", "FIFO", "RANKPROOF_FIFO_TIMEOUT"),
         env={"RANKPROOF_FIFO_TIMEOUT": "1"}, timeout=30),
    Case("run-through-a-fifo-with-a-writer", {"q": QRELS, "pipe": Fifo()}, ["evaluate", "q", "pipe"], 0,
         stdout_words=("0.3408",), fifo_writes=RUN),
    Case("seven-column-run-through-a-fifo", {"q": QRELS, "pipe": Fifo()}, ["trec-eval", "-m", "ndcg", "q", "pipe"], 0,
         stdout_words=("ndcg", "all\t0.4192"),
         fifo_writes=b"".join(line + b" extra\n" for line in RUN.splitlines())),
    Case("gzip-bomb-of-zeros", {"q": QRELS, "bomb.run.gz": lambda: _gzip_of_zeros(3)},
         ["evaluate", "q", "bomb.run.gz"], 2, ("bomb.run.gz line 1", "NUL")),
    Case("gzip-bomb-of-text", {"q": QRELS, "text.run.gz": _gzip_of_repeated_lines},
         ["evaluate", "q", "text.run.gz"], 2, ("decompression ratio", "RANKPROOF_MAX_DECOMPRESSION_RATIO"),
         env={"RANKPROOF_MAX_DECOMPRESSION_RATIO": "20"}),
    Case("parquet-bomb", {"q": QRELS, "bomb.parquet": lambda: _parquet_of_identical_rows(4_000_000)},
         ["evaluate", "q", "bomb.parquet"], 2, ("bomb.parquet", "decompression ratio")),
    Case("jsonl-nested-10000-deep", {"q": QRELS, "r.jsonl": b'{"query": "1", "doc": "184", "score": 1, "x": '
                                     + _nested(10_000) + b"}\n"},
         ["evaluate", "q", "r.jsonl"], 2, ("r.jsonl line 1", "nesting", "RANKPROOF_MAX_NESTING_DEPTH")),
    Case("grade-map-nested-100000-deep", {"q": QRELS, "r": RUN, "map.json": _nested(100_000)},
         ["evaluate", "q", "r", "--grade-map", "map.json"], 2, ("map.json", "nesting")),
    Case("saved-results-nested-100000-deep", {"a.json": _nested(100_000)},
         ["compare", "--results", "a.json"], 2, ("a.json", "nesting")),
    Case("one-megabyte-doc-id", {"q": QRELS, "r": b"1 Q0 " + BIG_ID + b" 1 1 t\n"},
         ["evaluate", "q", "r"], 2, ("r line 1", "id length", "RANKPROOF_MAX_ID_LENGTH")),
    Case("one-megabyte-doc-id-in-csv", {"q": QRELS, "r.csv": b"query,doc,score\n1," + BIG_ID + b",1\n"},
         ["evaluate", "q", "r.csv"], 2, ("r.csv line 2", "id length", "RANKPROOF_MAX_ID_LENGTH")),
    Case("one-megabyte-query-id-in-qrels", {"q": BIG_ID + b" 0 d 1\n", "r": RUN},
         ["evaluate", "q", "r"], 2, ("q line 1", "id length")),
    # -- internal errors that were bad input -------------------------------------------------
    Case("cutoff-beyond-int64", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "-m", "ndcg@99999999999999999999"], 2, ("cutoff", "ndcg")),
    Case("rprec-mult-1e300", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "-m", "rprec_mult(mult=1e300)"], 0, stdout_words=("0.0000",)),
    Case("trec-eval-cutoff-beyond-long", {"q": QRELS, "r": RUN},
         ["trec-eval", "-m", "P.99999999999999999999", "q", "r"], 0,
         stdout_words=("P_9223372036854775807 \tall\t0.0000",)),
    Case("grade-map-value-beyond-int64", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "--grade-map", "1:99999999999999999999,2:2,3:3,4:4"], 2, ("--grade-map", "64-bit")),
    Case("grade-map-key-beyond-int64", {"q": QRELS, "r": RUN, "map.json": b'{"99999999999999999999": 1}'},
         ["evaluate", "q", "r", "--grade-map", "map.json"], 2, ("--grade-map", "64-bit")),
    Case("compare-negative-seed", {"q": QRELS, "a": RUN, "b": _cranfield("tfidf.run")},
         ["compare", "q", "a", "b", "--seed", "-1"], 2, ("seed",)),
    Case("compare-one-resample", {"q": QRELS, "a": RUN, "b": _cranfield("tfidf.run")},
         ["compare", "q", "a", "b", "--resamples", "1"], 2, ("n_resamples", "too few")),
    Case("saved-results-mean-is-a-list", {"a.json": lambda: _saved(_mean_as_list)},
         ["compare", "--results", "a.json"], 2, ("a.json", "mean")),
    Case("saved-results-with-infinity", {"a.json": lambda: _saved(_first_value(float("inf")))},
         ["compare", "--results", "a.json"], 2, ("a.json", "finite")),
    Case("saved-results-with-1e308", {"a.json": lambda: _saved(_first_value(1e308))},
         ["compare", "--results", "a.json"], 2, ("a.json", "finite")),
    # -- numbers -------------------------------------------------------------------------
    Case("exp2-gain-of-grade-1100", {"q": b"1 0 a 1100\n1 0 b 1\n", "r": b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"},
         ["evaluate", "q", "r", "-m", "ndcg(gain=exp2)@10"], 2, ("grade 1100", "exp2")),
    Case("trec-eval-gain-1e308", {"q": b"1 0 a 1\n1 0 b 2\n", "r": b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"},
         ["trec-eval", "-m", "ndcg.1=1e308,2=1e308", "q", "r"], 2, ("gain",)),
    Case("from-dict-grade-2-to-the-70", {}, [], 2, ("grade", "64-bit"),
         python=api('Qrels.from_dict({"q": {"a": 2**70}})')),
    Case("from-dict-grade-2-to-the-64-plus-3", {}, [], 2, ("grade", "64-bit"),
         python=api('Qrels.from_dict({"q": {"a": 2**64 + 3}})')),
    Case("from-dict-list-grade", {}, [], 2, ("grade",), python=api('Qrels.from_dict({"q": {"a": [1]}})')),
    Case("from-dict-bool-grade", {}, [], 2, ("grade",), python=api('Qrels.from_dict({"q": {"a": True}})')),
    Case("from-dict-none-doc-id", {}, [], 2, ("doc id None",), python=api('Qrels.from_dict({"q": {None: 1}})')),
    Case("from-dict-nan-doc-id", {}, [], 2, ("doc id nan",), python=api('Run.from_dict({"q": {math.nan: 1.0}})')),
    Case("from-dict-tuple-doc-id", {}, [], 2, ("doc id",), python=api('Run.from_dict({"q": [(1, 2)]})')),
    Case("from-dict-empty-doc-id", {}, [], 2, ("empty",), python=api('Run.from_dict({"q": [""]})')),
    Case("from-dict-of-none", {}, [], 2, ("mapping",), python=api("Qrels.from_dict(None)")),
    Case("from-dict-score-10-to-the-400", {}, [], 2, ("score", "float64"),
         python=api('Run.from_dict({"q": {"a": 10**400}})')),
    Case("evaluate-with-measures-42", {}, [], 2, ("measures",),
         python=api('evaluate(Qrels.from_dict({"q": {"a": 1}}), Run.from_dict({"q": ["a"]}), 42)')),
    Case("weights-with-a-string", {}, [], 2, ("weight of query q1",),
         python=api('evaluate(Qrels.from_dict({"q1": {"a": 1}}), Run.from_dict({"q1": ["a"]}), ["ndcg"], '
                    '"aggregation=weighted", weights={"q1": "a"})')),
    Case("coverage-with-no-catalogue", {}, [], 2, ("catalogue",),
         python=api('coverage(Run.from_dict({"u": ["a"]}), 2, None)')),
    # Whatever runs out of memory (here: evaluation, made to fail), the user gets one line and exit 2.
    Case("memory-error-is-one-line-exit-2", {"q": QRELS, "r": RUN}, [], 2, ("out of memory", "RANKPROOF_MAX_ID_LENGTH"),
         python=("import sys\nimport rankproof.evaluation\n"
                 "def evaluate(*args, **kwargs):\n    raise MemoryError()\n"
                 "sys.modules['rankproof.evaluation'].evaluate = evaluate\n"
                 "sys.modules['rankproof.evaluation'].evaluate_read = evaluate\n"
                 "from rankproof.cli import main\nsys.exit(main(['evaluate', 'q', 'r']))")),
    Case("measure-parameter-given-twice", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "-m", "ndcg(gain=exp2,gain=linear)@10"], 2, ("gain", "twice")),
    Case("grade-map-maps-a-grade-twice", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "--grade-map", "1:2,1:3"], 2, ("mapped twice",)),
    Case("unknown-100-kb-measure-name", {"q": QRELS, "r": RUN},
         ["evaluate", "q", "r", "-m", "x" * 100_000], 2, ("unknown measure",)),
    Case("int64-scores-stay-exact", {}, [], 0, stdout_words=("0.0",), stdout_absent=("0.5",),
         python=("import numpy as np\nfrom rankproof import evaluate_scores\n"
                 "r = evaluate_scores(np.array([[0, 1]]), np.array([[2**62 + 1, 2**62]], dtype=np.int64), ['ndcg@1'])\n"
                 "print(r.mean('ndcg@1'))")),
    Case("query-named-all-in-csv", {"q": b"all 0 d 1\nb 0 d 1\n", "r": b"all Q0 d 1 1 t\nb Q0 e 1 1 t\n"},
         ["evaluate", "q", "r", "--per-query", "--format", "csv"], 2, ("'all'", "json")),
    Case("query-named-all-in-trec", {"q": b"all 0 d 1\nb 0 d 1\n", "r": b"all Q0 d 1 1 t\nb Q0 e 1 1 t\n"},
         ["evaluate", "q", "r", "--per-query", "--format", "trec"], 2, ("'all'",)),
    Case("markdown-escapes-a-pipe-in-a-query-id", {"q": b"x|y 0 d 1\n", "r": b"x|y Q0 d 1 1 t\n"},
         ["evaluate", "q", "r", "--per-query", "--format", "markdown", "-m", "ndcg"], 0,
         stdout_words=("| x\\|y | 1.0000 |",)),
    Case("trec-eval-hint-names-no-option-it-lacks", {"q": b"1 0 a 1\n", "r": b"1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n"},
         ["trec-eval", "q", "r"], 2, ("listed twice", "rankproof evaluate --policy duplicates=first")),
    Case("t-test-on-zero-variance-says-undefined", {"q": CONSTANT_QRELS, "a": CONSTANT_A, "b": CONSTANT_B},
         ["compare", "q", "a", "b", "--test", "t", "-m", "ndcg"], 0, stdout_words=("n/a",),
         stdout_absent=("< 0.0001", "<0.0001", "0.0000", "inf")),
]


def _stdout_for(case: Case, folder: Path):
    if case.id == "stdout-onto-a-full-device":
        return open(folder / "full", "wb")
    return subprocess.PIPE


def _write_fifo(path: Path, data: bytes) -> None:
    with open(path, "wb") as stream:
        stream.write(data)


def _read_fifo(path: Path, sink: list) -> None:
    with open(path, "rb") as stream:
        sink.append(stream.read())


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_hostile(case: Case, tmp_path: Path) -> None:
    import threading

    _make(tmp_path, case.files)
    if "ro.txt" in case.files:
        os.chmod(tmp_path / "ro.txt", 0o444)
    before = _state(tmp_path)
    reader, received = None, []
    fifos = [name for name, content in case.files.items() if isinstance(content, Fifo) and name in case.outputs]
    if fifos:
        reader = threading.Thread(target=_read_fifo, args=(tmp_path / fifos[0], received), daemon=True)
        reader.start()
    if case.fifo_writes is not None:
        pipe = next(name for name, content in case.files.items() if isinstance(content, Fifo))
        threading.Thread(target=_write_fifo, args=(tmp_path / pipe, case.fifo_writes), daemon=True).start()
    stdout = _stdout_for(case, tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(SRC), **case.env}
    environment.pop("RANKPROOF_DEBUG", None)
    command = [sys.executable, "-c", case.python] if case.python else [
        sys.executable, "-m", "rankproof.cli", *case.argv]
    stdin = open(tmp_path / case.stdin_file, "rb") if case.stdin_file else None
    try:
        done = subprocess.run(command, cwd=tmp_path, env=environment, stdin=stdin,
                              input=None if stdin else (case.stdin or b""), stdout=stdout,
                              stderr=subprocess.PIPE, timeout=case.timeout, preexec_fn=_bounded_memory())
    finally:
        if stdout is not subprocess.PIPE:
            stdout.close()
        if stdin is not None:
            stdin.close()
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == case.exit, (done.returncode, stderr)
    if case.exit == 2:
        check_one_line(stderr, case.words)
        assert len(stderr) < 2000, "the message echoes too much of the input"
    else:
        assert "Traceback" not in stderr and "Warning" not in stderr, stderr
    if case.stdout_words or case.stdout_absent:
        text = (done.stdout or b"").decode("utf-8", "replace")
        for word in case.stdout_words:
            assert word in text, (word, text)
        for word in case.stdout_absent:
            assert word not in text, (word, text)
    if reader is not None:
        reader.join(timeout=30)
        assert received and b"ndcg@10" in received[0]

    after = _state(tmp_path)
    assert sorted(after) == sorted(before), "files were added or removed (a temporary file left behind?)"
    for name, was in before.items():
        now = after[name]
        if name in case.outputs and was[0] == "file":
            assert now[0] == "file"
            assert now[2] == was[2], "the output's mode changed"
            for word in case.output_words:
                assert word.encode() in now[1]
        else:
            assert now == was, f"{name} changed: {was[:1]} -> {now[:1]}"


def test_a_run_killed_while_reading_stdin_leaves_no_temporary_file(tmp_path):
    # issue 28: stdin's copy kept a name until the end; kill -9 left it (171 MB) in the temporary folder.
    import time

    _make(tmp_path, {"q": QRELS})
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "rankproof.cli", "evaluate", "q", "-"], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(SRC), "TMPDIR": str(temporary)},
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=_bounded_memory())
    try:
        process.stdin.write(RUN * 20)     # ~10 MB, and the stream stays open: the copy is under way
        process.stdin.flush()
        copying = False
        for _ in range(300):
            links = []
            for fd in Path(f"/proc/{process.pid}/fd").iterdir():
                try:
                    links.append(os.readlink(fd))
                except OSError:
                    pass
            if any("rankproof-stdin-" in link for link in links):
                copying = True
                break
            time.sleep(0.05)
        assert copying, "the copy of stdin was never seen open"
        assert list(temporary.iterdir()) == [], "the copy has a name while it is written"
    finally:
        process.kill()
        process.wait(timeout=30)
    assert list(temporary.iterdir()) == []


# -- output: what a table row cannot express ----------------------------------------------
_SIGNAL_DURING_WRITE = """
import os, signal, sys
import rankproof.report.output as output
from rankproof.cli import main

def replace(source, target):  # the signal arrives between writing the temporary file and the rename
    os.kill(os.getpid(), signal.{name})
    raise SystemExit("the signal did not interrupt the write")

output.os.replace = replace
# A process started under nohup inherits SIGHUP ignored, which main() rightly leaves so: the test is of
# a process whose handlers are the defaults, as a terminal's are.
signal.signal(signal.{name}, signal.SIG_DFL)
sys.exit(main(["evaluate", "q", "r", "-o", "out.txt"]))
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_termination_during_the_write_leaves_the_old_output_and_no_temporary_file(name, tmp_path):
    _make(tmp_path, {"q": QRELS, "r": RUN, "out.txt": b"old"})
    before = _state(tmp_path)
    done = subprocess.run([sys.executable, "-c", _SIGNAL_DURING_WRITE.format(name=name)], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, timeout=60)
    assert done.returncode == 128 + getattr(signal, name), done.stderr
    check_one_line(done.stderr.decode(), ("signal",))
    assert _state(tmp_path) == before


def test_a_new_output_gets_the_umask_mode(tmp_path):
    _make(tmp_path, {"q": QRELS, "r": RUN})
    done = subprocess.run([sys.executable, "-c", "import os, sys; os.umask(0o027); from rankproof.cli import main; "
                           "sys.exit(main(['evaluate', 'q', 'r', '-o', 'new.txt']))"],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o640


def test_a_replaced_output_keeps_its_mode(tmp_path):
    _make(tmp_path, {"q": QRELS, "r": RUN, "out.txt": b"old"})
    os.chmod(tmp_path / "out.txt", 0o604)
    done = run_cli(["evaluate", "q", "r", "-o", "out.txt"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o604
    assert b"ndcg@10" in (tmp_path / "out.txt").read_bytes()


def test_a_closed_stdout_is_one_line_exit_2(tmp_path):
    _make(tmp_path, {"q": QRELS, "r": RUN})
    done = subprocess.run([sys.executable, "-m", "rankproof.cli", "evaluate", "q", "r"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(SRC)}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=60, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2, done.stderr
    check_one_line(done.stderr.decode(), ("standard output is closed",))


# -- the small-file and the large-file TREC paths accept and refuse the same files -------------
# Past 24 MB the TREC reader takes another path. Padding both files at the end
# with one more query "zz" (judged non-relevant throughout, so it changes no
# other query's value) pushes them past any such threshold; line numbers of
# the original lines stay the same.
_PADDING_LINES = 1_800_000


@functools.cache
def _padding() -> tuple[bytes, bytes]:
    qrels = b"".join(b"zz 0 d%08d 0\n" % i for i in range(_PADDING_LINES))
    run = b"".join(b"zz Q0 d%08d 1 -%d t\n" % (i, i) for i in range(_PADDING_LINES))
    return qrels, run

SAME_BYTES = {
    # Refused: \v and \f split "18\v4" into two columns, as trec_eval's isspace() does.
    "vertical-tab-and-form-feed-inside-fields": (b"1 0 \x0b 3\n1 0 18\x0b4 2\n2 0 5\x0c1 1\n",
                                                 b"1 Q0 \x0b 1 2 t\n1 Q0 18\x0b4 2 1 t\n2 Q0 5 1 1 t\n"),
    # Accepted: \v and \f as separators; other control and non-ASCII blanks stay inside ids.
    "vertical-tab-and-form-feed-as-separators": ("1\x0b0\x0c18 4\n2 0 5 1\n1 0 a\x1cb 1\n1 0 c\u00a0d 1\n".encode(),
                                                 "1 Q0 18\x0b1 4 t\n2\x0cQ0 5 1 1 t\n1 Q0 a\x1cb 2 3 t\n"
                                                 "1 Q0 c\u00a0d 3 2 t\n".encode()),
}


def _outcome(folder: Path, qrels: bytes, run: bytes):
    (folder / "q").write_bytes(qrels)
    (folder / "r").write_bytes(run)
    # 54 MB of input: the address space the large path reserves (arrow's pools,
    # a thread per core) needs more than the 2 GiB of the hostile cases.
    done = run_cli(["evaluate", "q", "r", "-m", "ndcg@10", "--per-query", "--format", "csv"], folder,
                   memory=4 * 1024**3)
    # The padding query's row and the mean it moves are not compared.
    rows = [row for row in done.stdout.splitlines() if not row.startswith((b"r,zz,", b"r,all,"))]
    # The counts on stderr count the padding query too.
    stderr = [line for line in done.stderr.splitlines() if b": counts: " not in line]
    return done.returncode, rows, stderr


@pytest.mark.parametrize("name", sorted(SAME_BYTES))
def test_small_and_large_trec_paths_agree(name, tmp_path):
    qrels, run = SAME_BYTES[name]
    small = _outcome(tmp_path, qrels, run)
    qrels_padding, run_padding = _padding()
    large = _outcome(tmp_path, qrels + qrels_padding, run + run_padding)
    assert small == large
    # trec_eval splits fields with isspace(): \v and \f separate columns.
    expected_exit = 0 if name == "vertical-tab-and-form-feed-as-separators" else 2
    assert small[0] == expected_exit, small


@pytest.mark.parametrize("name", sorted(SAME_BYTES))
def test_trec_eval_accepts_and_refuses_the_same_files(name, tmp_path):
    from trec_oracle import build_trec_eval

    binary = build_trec_eval()
    qrels, run = SAME_BYTES[name]
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    theirs = subprocess.run([str(binary), "q", "r"], cwd=tmp_path, capture_output=True, timeout=60)
    ours = run_cli(["trec-eval", "q", "r"], tmp_path)
    assert (theirs.returncode == 0) == (ours.returncode == 0), (theirs.stderr, ours.stderr)
    if theirs.returncode == 0:
        assert ours.stdout == theirs.stdout


# -- rr under ties=expected: linear in the size of the tie group, and exact -------------------
def test_rr_of_a_long_tie_group_is_the_hypergeometric_expectation():
    """Expected rr of n tied docs holding r relevant ones, cut at k:
    sum over q <= k of C(n - q, r - 1) / C(n, r) / q (the first relevant doc
    is at position q with that probability), computed here with exact fractions."""
    from fractions import Fraction
    from math import comb

    from rankproof import Qrels, Run, evaluate

    n, relevant = 300, 3
    judged = {"big": {f"d{i}": int(i % 100 == 7) for i in range(n)}}
    ranked = {"big": {f"d{i}": 1.0 for i in range(n)}}
    for other in range(50):  # many short queries beside it
        judged[f"q{other}"] = {"a": 1}
        ranked[f"q{other}"] = {"a": 1.0}
    results = evaluate(Qrels.from_dict(judged), Run.from_dict(ranked), ["rr", "rr@150"])
    for measure, k in (("rr", n), ("rr@150", 150)):
        expected = sum(Fraction(comb(n - q, relevant - 1), comb(n, relevant)) / q
                       for q in range(1, min(n - relevant + 1, k) + 1))
        value = dict(zip(results.queries, results.values(measure).tolist()))["big"]
        assert value == pytest.approx(float(expected), rel=1e-12)


# -- the per-query table is laid out as rich lays it out (rich is the oracle here) -------------
def test_per_query_table_matches_rich(tmp_path):
    import io

    from rich.console import Console
    from rich.table import Table

    qrels = b"q1 0 a 2\nq1 0 b 1\nlong-query-id-7 0 c 1\nz 0 d 1\n"
    run = b"q1 Q0 a 1 2 t\nq1 Q0 c 2 1 t\nlong-query-id-7 Q0 c 1 1 t\nz Q0 e 1 1 t\n"
    _make(tmp_path, {"q": qrels, "r": run})
    done = run_cli(["evaluate", "q", "r", "--per-query", "-m", "ndcg@10", "-m", "rr"], tmp_path)
    assert done.returncode == 0, done.stderr
    console = Console(file=io.StringIO(), width=200, highlight=False, soft_wrap=True, color_system=None)
    table = Table(title="per query: r", box=None, header_style="bold", title_justify="left", pad_edge=False)
    table.add_column("query")
    for name in ("ndcg@10", "rr"):
        table.add_column(name, justify="right")
    ideal_q1 = 2 + 1 / __import__("math").log2(3)
    for row in (("long-query-id-7", 1.0, 1.0), ("q1", 2 / ideal_q1, 1.0), ("z", 0.0, 0.0)):
        table.add_row(row[0], *(f"{v:.4f}" for v in row[1:]))
    console.print(table)
    expected = "\n".join(line.rstrip() for line in console.file.getvalue().splitlines())
    assert expected in done.stdout.decode()
