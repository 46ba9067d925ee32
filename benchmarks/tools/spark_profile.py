"""Profile one Spark tool of spark_bench.py stage by stage: what load changes least.

Usage: python spark_profile.py TOOL TRUTH.parquet PREDICTIONS.parquet [PARTITIONS] [--json PATH]

TOOL is ``spark2`` (rankproof.spark.evaluate on local[2], per-user values
written to Parquet, as spark_tools.py does) or ``evaluator`` (Spark's
RankingEvaluator, ndcgAtK k=10, as spark_tools.py builds it). The session has
the web UI on a free port, so that after the job Spark's REST API gives, per
stage: tasks, executorRunTime, executorCpuTime (JVM threads only), JVM GC
time, input and shuffle bytes. Then the CPU seconds of each process of the
tree from /proc (the driver's Python, the JVM, Spark's Python workers: these
are what a Python ``mapInArrow`` costs and the JVM's metrics do not see),
and the wall time of each step in the driver. Printed as one table; --json
also writes it. PROFILE_JAVA_OPTIONS (environment) sets the driver JVM's
options (spark.driver.extraJavaOptions), e.g. ``-XX:TieredStopAtLevel=1``.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from spark_tools import BINARY, GRADED  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _session(partitions: int):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("rankproof-profile")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.ui.enabled", "true").config("spark.ui.port", str(_free_port()))
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "6g")
               .config("spark.sql.shuffle.partitions", str(partitions))
               .config("spark.driver.extraJavaOptions", os.environ.get("PROFILE_JAVA_OPTIONS", ""))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        for child in children.get(pid, []):
            found.append(child)
            todo.append(child)
    return found


def _cpu_tree() -> dict[str, float]:
    """CPU seconds (user + system, with reaped children's) of the JVM and of Spark's Python workers."""
    totals = {"jvm": 0.0, "python workers": 0.0, "other": 0.0}
    for pid in _descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        seconds = sum(int(v) for v in fields[11:15]) / TICKS
        kind = "jvm" if "java" in command.split(" ")[0] else "python workers" if "pyspark" in command else "other"
        totals[kind] += seconds
    return totals


def _jvm_threads() -> dict[str, float]:
    """CPU seconds of the JVM's live threads by kind (JIT compilers, GC, Spark's task threads, ...);
    threads that ended are in the JVM's total only."""
    import re

    kinds: dict[str, float] = {}
    for pid in _descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"java" not in handle.read().split(b"\0")[0]:
                    continue
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in threads:
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as handle:
                    text = handle.read()
            except OSError:
                continue
            name = text[text.index("(") + 1:text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            kind = name if os.environ.get("PROFILE_RAW_THREADS") else re.sub(r"[-#\s]*\d+$", "", name).strip() or name
            kinds[kind] = kinds.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return dict(sorted(((k, round(v, 2)) for k, v in kinds.items() if v >= 0.05), key=lambda kv: -kv[1]))


def _stages(session) -> list[dict]:
    url = session.sparkContext.uiWebUrl
    app = session.sparkContext.applicationId
    with urllib.request.urlopen(f"{url}/api/v1/applications/{app}/stages?status=complete") as answer:
        stages = json.load(answer)
    rows = []
    for s in sorted(stages, key=lambda s: (s["stageId"], s["attemptId"])):
        rows.append({"stage": s["stageId"], "name": s["name"].split(" at ")[0], "tasks": s["numTasks"],
                     "run_s": s["executorRunTime"] / 1e3, "cpu_s": s["executorCpuTime"] / 1e9,
                     "gc_s": s["jvmGcTime"] / 1e3, "input_mb": s["inputBytes"] / 2**20,
                     "shuffle_read_mb": s["shuffleReadBytes"] / 2**20,
                     "shuffle_write_mb": s["shuffleWriteBytes"] / 2**20,
                     "spill_mb": s["diskBytesSpilled"] / 2**20})
    return rows


def _rankproof(session, truth: str, predictions: str, out: str, steps: list) -> dict:
    from rankproof import spark as rankproof_spark

    results = rankproof_spark.evaluate(truth, predictions, [GRADED, BINARY], "spark", query="user", doc="item",
                                       grade="rating", score="score", allow_partial=True, spark=session)
    steps.append(("evaluate", time.perf_counter()))
    results.write_parquet(out)
    steps.append(("write per-user values", time.perf_counter()))
    return results.means()


def _evaluator(session, truth: str, predictions: str, steps: list) -> dict:
    sys.argv = sys.argv[:1]
    from spark_tools import evaluator

    value = evaluator(truth, predictions, "-", int(session.conf.get("spark.sql.shuffle.partitions")))
    steps.append(("evaluate", time.perf_counter()))
    return value


def main(tool: str, truth: str, predictions: str, partitions: str = "16", *rest: str) -> None:
    started = time.perf_counter()
    steps = [("start", started)]
    session = _session(int(partitions))
    steps.append(("JVM and session", time.perf_counter()))
    if tool == "spark2":
        out = f"/tmp/spark-profile-{os.getpid()}.out"
        means = _rankproof(session, truth, predictions, out, steps)
        os.system(f"rm -rf {out}")
    elif tool == "evaluator":
        means = _evaluator(session, truth, predictions, steps)
    else:
        raise SystemExit(f"unknown tool {tool!r}")
    cpu = _cpu_tree()
    cpu["driver python"] = sum(os.times()[:2])
    threads = _jvm_threads()
    stages = _stages(session)
    report = {"tool": tool, "means": means, "cpu_s": cpu, "jvm_threads_s": threads, "stages": stages,
              "steps": [(name, round(t - p, 2)) for (name, t), (_, p) in zip(steps[1:], steps[:-1])],
              "wall_s": round(time.perf_counter() - started, 2)}
    print(f"{tool}: wall {report['wall_s']} s; steps " + ", ".join(f"{n} {s} s" for n, s in report["steps"]))
    print("CPU s: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()))
    print("JVM threads, CPU s: " + ", ".join(f"{k} {v}" for k, v in threads.items()))
    print(f"{'stage':>5} {'name':<28}{'tasks':>6}{'run s':>8}{'cpu s':>8}{'gc s':>7}{'in MB':>8}{'shr MB':>8}"
          f"{'shw MB':>8}")
    for s in stages:
        print(f"{s['stage']:>5} {s['name'][:27]:<28}{s['tasks']:>6}{s['run_s']:>8.1f}{s['cpu_s']:>8.1f}{s['gc_s']:>7.1f}"
              f"{s['input_mb']:>8.0f}{s['shuffle_read_mb']:>8.0f}{s['shuffle_write_mb']:>8.0f}")
    print(json.dumps(means))
    if "--json" in rest:
        with open(rest[rest.index("--json") + 1], "w") as handle:
            json.dump(report, handle, indent=1)
    session.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
