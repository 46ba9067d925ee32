"""A real Spark cluster: a standalone master and one worker on 127.0.0.1, and an evaluation
submitted to it with a packed environment, by the commands docs/guide/spark.md gives.

The master and the worker are started with pyspark's own ``spark-class`` on free ports,
bound to 127.0.0.1, their work and log directories inside tmp_path, and stopped (their
process groups) whatever happens. The page's commands are read from the page itself (the
block after ``<!-- cluster-commands -->``), so that the test and the page cannot drift
apart; only the packing differs: ``pip install`` and ``venv-pack`` need the network, so
the test packs a virtual environment of its own that reaches this interpreter's packages
through a ``.pth`` file, with the layout venv-pack writes (the environment's directory at
the archive's root, ``bin/python`` a link to the base interpreter). The run's JSON must
equal the local engine's. Without java the test skips in one line (fails under
RANKPROOF_REQUIRE_ORACLES=1). Every wait has a timeout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest

from oracles import missing
from paths import ROOT

pytestmark = [pytest.mark.spark, pytest.mark.slow]

PAGE = ROOT / "docs" / "guide" / "spark.md"
START_TIMEOUT = 180  # seconds for a JVM to come up on a loaded 2-core machine
SUBMIT_TIMEOUT = 600


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _environment(tmp: Path) -> dict[str, str]:
    """The processes' environment: Spark bound to 127.0.0.1, its files in tmp, no PYTHONPATH
    (the executors must import rankproof from the packed environment)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYSPARK", "SPARK"))}
    env.pop("PYTHONPATH", None)
    env.update(SPARK_HOME=str(_spark_home()), SPARK_LOCAL_IP="127.0.0.1", SPARK_LOCAL_HOSTNAME="localhost",
               SPARK_LOG_DIR=str(tmp / "logs"), SPARK_WORKER_DIR=str(tmp / "work"),
               SPARK_LOCAL_DIRS=str(tmp / "local"), SPARK_CONF_DIR=str(tmp / "conf"),
               PATH=f"{_spark_home() / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    for name in ("logs", "work", "local", "conf"):
        (tmp / name).mkdir(exist_ok=True)
    return env


def _wait_for(log: Path, pattern: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if re.search(pattern, text):
            return
        if process.poll() is not None:
            raise AssertionError(f"{log.name}: the process ended ({process.returncode}): {text[-2000:]}")
        time.sleep(0.5)
    raise AssertionError(f"{log.name}: no {pattern!r} within {timeout} s: {log.read_text(errors='replace')[-2000:]}")


def _stop(process: subprocess.Popen) -> None:
    """Stop a daemon this test started, and what it started (its process group, by its id)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        except ProcessLookupError:
            pass


@pytest.fixture
def cluster(tmp_path):
    """spark://127.0.0.1:PORT of a standalone master with one worker (1 core, 2 GB)."""
    if shutil.which("java") is None:
        missing("no java on PATH: the Spark cluster test needs a Java 17 runtime")
    pytest.importorskip("pyspark")
    env = _environment(tmp_path)
    spark_class = str(_spark_home() / "bin" / "spark-class")
    port = _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen] = []
    try:
        master_log = tmp_path / "logs" / "master.out"
        with open(master_log, "wb") as out:
            started.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                 "--webui-port", str(_free_port())], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
                start_new_session=True))
        _wait_for(master_log, r"I have been elected leader|ALIVE", started[0], START_TIMEOUT)
        worker_log = tmp_path / "logs" / "worker.out"
        with open(worker_log, "wb") as out:
            started.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                 "--memory", "2g", "--webui-port", str(_free_port()), "--work-dir", str(tmp_path / "work"),
                 master_url], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=tmp_path, start_new_session=True))
        _wait_for(worker_log, r"Successfully registered with master", started[1], START_TIMEOUT)
        yield master_url, env
    finally:
        for process in reversed(started):
            _stop(process)


def page_commands() -> list[str]:
    """The shell commands of the page's cluster block (continuation lines joined)."""
    text = PAGE.read_text()
    block = text.split("<!-- cluster-commands -->", 1)[1].split("```", 2)[1]
    lines = block.split("\n", 1)[1].replace("\\\n", " ").splitlines()
    return [re.sub(r"\s+", " ", line).strip() for line in lines if line.strip()]


def _pack(tmp: Path) -> None:
    """env/ and env.tar.gz as the page's first command makes them (see the module's docstring)."""
    import rankproof

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "env")], check=True, timeout=120)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = tmp / "env" / "lib" / version / "site-packages"
    reach = [sysconfig.get_paths()["purelib"], str(Path(rankproof.__file__).resolve().parent.parent)]
    (site / "reach-the-test-environment.pth").write_text("\n".join(reach) + "\n")
    with tarfile.open(tmp / "env.tar.gz", "w:gz") as archive:
        for entry in sorted((tmp / "env").iterdir()):
            archive.add(entry, arcname=entry.name)


def _log(tmp: Path) -> None:
    """truth/ and predictions/: Parquet directories of two files each (users 0-59 judged,
    users 3-64 predicted; ratings 0-3, scores with ties)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    truth = [(u, int(i), int(rng.integers(0, 4))) for u in range(60)
             for i in rng.choice(40, size=int(rng.integers(1, 6)), replace=False)]
    predictions = [(u, int(i), float(rng.integers(0, 5))) for u in range(3, 65)
                   for i in rng.choice(40, size=int(rng.integers(1, 15)), replace=False)]
    for name, rows, columns in (("truth", truth, ("user", "item", "rating")),
                                ("predictions", predictions, ("user", "item", "score"))):
        (tmp / name).mkdir()
        table = pa.table({c: [r[j] for r in rows] for j, c in enumerate(columns)})
        half = table.num_rows // 2
        pq.write_table(table.slice(0, half), tmp / name / "part-0.parquet")
        pq.write_table(table.slice(half), tmp / name / "part-1.parquet")
        pq.write_table(table, tmp / f"{name}.parquet")  # one file, for the local engine


def test_an_evaluation_submitted_to_a_standalone_cluster_equals_the_local_engine(cluster, tmp_path, monkeypatch):
    master_url, env = cluster
    commands = page_commands()
    assert len(commands) == 3 and "venv-pack" in commands[0] and commands[2].startswith("PYSPARK_PYTHON=")
    _pack(tmp_path)
    _log(tmp_path)
    for command in commands[1:]:
        command = command.replace("spark://HOST:7077", master_url)
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=SUBMIT_TIMEOUT)
        said = [line for line in done.stderr.splitlines() if " INFO " not in line]
        assert done.returncode == 0, (command, done.stdout[-3000:], "\n".join(said)[-4000:])
    on_cluster = json.loads((tmp_path / "ndcg.json").read_text())
    # Only the cluster's executors evaluated: the worker ran an executor with the packed environment.
    assert list((tmp_path / "work").glob("app-*/*/env/bin/python")), "no executor unpacked env.tar.gz"

    from rankproof.cli.app import main

    arguments = commands[2].split("rankproof_main.py", 1)[1].split()
    local = [a for a in arguments if a not in ("--engine", "spark")]
    local[local.index("ndcg.json")] = "local.json"
    local = [a.rstrip("/") + ".parquet" if a in ("truth/", "predictions/") else a for a in local]
    monkeypatch.chdir(tmp_path)
    assert main(local + ["--label", "predictions=predictions.parquet", "--quiet"]) == 0
    on_this_machine = json.loads((tmp_path / "local.json").read_text())
    # The qrels are named by what was read: the directory truth/ there, the file truth.parquet here.
    assert (on_cluster["qrels"].pop("source"), on_this_machine["qrels"].pop("source")) == ("truth", "truth.parquet")
    # The digest of the qrels is computed by the local readers only (Spark's never holds them whole).
    assert on_cluster["qrels"].pop("digest") is None and on_this_machine["qrels"].pop("digest")
    assert list(on_cluster["runs"]) == ["predictions"]
    assert on_cluster == on_this_machine
