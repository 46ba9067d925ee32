"""One long query read and evaluated under an address-space limit (issue 28 item 7).

A TREC run of one query with 3M distinct docs (102 MB) is read and evaluated
in a subprocess under ``RLIMIT_AS`` (``prlimit --as``) of 1075 MiB. Measured
on the 2-core development machine in steps of 50 MiB, the smallest limit the
same script passes under: 1200 MiB before the read let go of each merged
part's hash slots, its tables and the file's bytes before the merge; 1000
MiB after. The limit lies between, 75 MiB from either. The scan is held to
two parts (``os.cpu_count``) so that the peak does not depend on the
machine's cores. benchmarks/long_query_bench.py measures the 5M-doc case.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

LINES = 3_000_000
LIMIT = 1075 << 20

SCRIPT = r"""
import os, sys
os.cpu_count = lambda: 2   # two scan parts whatever the machine
import rankproof
from rankproof.data.qrels import Qrels
from rankproof.data.run import Run
run = Run.read_trec(sys.argv[2])
qrels = Qrels.read(sys.argv[1])
results = rankproof.evaluate(qrels, run, ["ndcg@10"], allow_partial=True)
print(repr(results.mean("ndcg@10")))
"""


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as on Linux")
def test_one_query_of_three_million_docs_under_1075_mib(tmp_path):
    run = tmp_path / "run.txt"
    with open(run, "w") as handle:
        for start in range(0, LINES, 200_000):
            handle.write("".join(f"q1 Q0 d{i} {i + 1} {LINES - i}.5 r\n" for i in range(start, start + 200_000)))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")   # d1 second: ndcg@10 = 1 / log2(3)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(qrels), str(run)], capture_output=True, text=True,
                          env=env, preexec_fn=_limited, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.strip()) == pytest.approx(0.6309297535714575, abs=1e-12)
