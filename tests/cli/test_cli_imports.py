"""What `rankproof evaluate` imports on a plain TREC evaluation: fixed costs of every command.

The TREC workloads of issue 24 are whole processes, so a heavy import on the plain path is a
regression of the speed targets that no unit test of values sees: scipy.stats alone costs
~0.4 s (it came in once through the recommender package, which `evaluate` imports to tell
side-data measures from accuracy ones). The test runs the command in a fresh interpreter and
lists the heavy packages it imported.
"""

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# Packages a plain TREC evaluation has no use for; each costs 0.05-0.5 s to import.
HEAVY = ("scipy", "pandas", "polars", "pyarrow", "rich", "concurrent.futures",
         # rankproof's own packages a plain evaluation does not use (recsys: ~30 ms)
         "rankproof.recsys", "rankproof.spark", "rankproof.stats",
         # the other commands' modules: only the command run is built (~0.1 s for all eighteen)
         "rankproof.cli.commands.rag", "rankproof.cli.commands.why", "rankproof.cli.commands.report", "rankproof.cli.commands.compare",
         "rankproof.cli.commands.nuggets", "rankproof.cli.commands.monitor")

CODE = """
import sys
from rankproof.cli import main
code = main(sys.argv[1:])
heavy = {heavy!r}
print(code, sorted(name for name in sys.modules if name in heavy))
"""


def test_plain_trec_evaluation_imports_no_heavy_package(tmp_path):
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    run.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 3.0 x\n")
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = ["evaluate", str(qrels), str(run), "-m", "ndcg@10", "-m", "ap", "--format", "json",
            "-o", str(tmp_path / "out.json"), "--quiet"]
    result = subprocess.run([sys.executable, "-c", CODE.format(heavy=HEAVY), *args],
                            capture_output=True, text=True, env=env, check=True)
    assert result.stdout.split("\n")[-2] == "0 []", result.stdout + result.stderr


def test_a_parquet_log_evaluation_imports_no_pandas(tmp_path):
    # pyarrow imports pandas (~0.3 s, 40 MB) on Array.to_numpy() and pa.array(): the readers
    # take numbers from Arrow's buffers instead (io.arrow.numpy_of).
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, log = tmp_path / "truth.parquet", tmp_path / "log.parquet"
    pq.write_table(pa.table({"user": [1, 1, 2], "item": [5, 6, 7], "rating": [1, 0, 2]}), truth)
    pq.write_table(pa.table({"user": [2, 1, 1], "item": [7, 6, 5], "score": [0.5, 0.9, 0.1]}), log)
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = ["evaluate", str(truth), str(log), "--columns", "query=user,doc=item,grade=rating,score=score",
            "-m", "ndcg@10", "-m", "ap@10", "--format", "json", "-o", str(tmp_path / "out.json"), "--quiet"]
    heavy = ("scipy", "pandas", "polars", "rich", "rankproof.recsys", "rankproof.stats")
    result = subprocess.run([sys.executable, "-c", CODE.format(heavy=heavy), *args],
                            capture_output=True, text=True, env=env, check=True)
    assert result.stdout.split("\n")[-2] == "0 []", result.stdout + result.stderr


def test_the_side_data_arguments_are_the_recommender_side_data_kinds():
    from rankproof.cli.side import SIDE_ARGUMENTS
    from rankproof.recsys.side import SIDE_KINDS

    assert SIDE_ARGUMENTS == SIDE_KINDS


def test_every_command_is_built_by_its_own_name():
    from rankproof.cli.parser import COMMAND_MODULES, build_parser, command_module

    for name in COMMAND_MODULES:
        assert command_module(name).NAME == name
        only = build_parser(name)._subparsers._group_actions[0].choices   # argparse keeps them there
        assert list(only) == [name] and only[name].get_default("handler") == command_module(name).run
    # the whole parser (rankproof --help, a mistyped command) still lists every command
    listed = build_parser()._subparsers._group_actions[0].choices   # argparse keeps them there
    assert list(listed) == list(COMMAND_MODULES)
