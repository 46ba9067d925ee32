"""Fixtures shared by every test folder, and the markers that sort the tests into tiers.

Markers (registered in pyproject.toml), set here from what a test uses, so that a
new test gets its marker without anyone remembering to add it:

- ``parity``: held to a peer library (pytrec_eval, scikit-learn, LightGBM,
  torchmetrics, ranx, pyndeval, statsmodels, ir_measures): the test, or a
  function of its module it calls, imports one, or reads a module-level name
  bound to one.
- ``oracle``: held to trec_eval's binaries or to the data in ../shared: the
  test uses a trec_eval fixture, calls ``trec_oracle.build_trec_eval*`` or
  reads a module-level path under ../shared.
- ``spark`` (the Spark tests' ``pytestmark``) and ``slow`` (set by hand, from
  ``pytest --durations``) are not derived.

``make test-fast`` deselects all four. A missing oracle goes through
``oracles.missing`` (a skip, or a failure under RANKPROOF_REQUIRE_ORACLES=1).
"""

from __future__ import annotations

import dis
import inspect
import os
import shutil
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from oracles import missing, shared
from paths import BUILD, CRANFIELD, SHARED, SRC
from trec_oracle import build_trec_eval, build_trec_eval9

# The suite runs on two workers on a 2-core machine that other jobs may share: slow input
# generation and a slow example are the machine, not a property that failed.
settings.register_profile("shared-machine", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile("shared-machine")

# Subprocesses (the command line run for real, Spark's Python workers) import this
# checkout's src too, as pytest's own `pythonpath` makes the tests do.
os.environ["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])

# ranx compiles its kernels with Numba (cache=True). The cache goes under build/ (ignored
# by git), not next to site-packages, which may be read-only: the parity tests then do not
# recompile on every run. Set before any test module imports ranx.
os.environ.setdefault("NUMBA_CACHE_DIR", str(BUILD / "numba-cache"))

PEERS = frozenset({"pytrec_eval", "sklearn", "lightgbm", "torch", "torchmetrics", "ranx", "pyndeval",
                   "statsmodels", "ir_measures", "cwl",
                   # the RAG frameworks of the parity extra (tests/protocol/test_rag_parity.py)
                   "llama_index", "haystack", "mlflow", "sentence_transformers", "mteb",
                   # judgments (issue 38): agreement, prediction-powered means, pools
                   "krippendorff", "ppi_py", "trectools"})
ORACLE_FIXTURES = frozenset({"trec_eval_binary", "trec_eval9_binary", "trec_eval_tests"})
ORACLE_CALLS = frozenset({"build_trec_eval", "build_trec_eval9"})


@pytest.fixture
def cranfield() -> Path:
    return CRANFIELD


@pytest.fixture(scope="session")
def trec_eval_binary() -> Path:
    """trec_eval 10, built into build/trec_eval from ../shared once."""
    return build_trec_eval()


@pytest.fixture(scope="session")
def trec_eval9_binary() -> Path:
    """trec_eval 9.0.8 (the version inside pytrec_eval), built into build/trec_eval9."""
    return build_trec_eval9()


@pytest.fixture(scope="session")
def trec_eval_tests() -> Path:
    """NIST's test files of trec_eval 10: inputs and expected outputs (../shared/data/trec_eval_test)."""
    return shared("data", "trec_eval_test")


def _code_of(function: Callable) -> types.CodeType | None:
    inner = getattr(getattr(function, "hypothesis", None), "inner_test", function)
    code = getattr(inspect.unwrap(inner), "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def _uses(function: Callable) -> tuple[set[str], set[str], list[object]]:
    """What a test function uses: the modules it imports (importorskip included), the global
    names it reads and their values; transitively through the functions of its own module
    it calls, and through the functions nested in it."""
    code = _code_of(function)
    namespace = getattr(function, "__globals__", {})
    modules: set[str] = set()
    names: set[str] = set()
    values: list[object] = []
    todo, seen = [code] if code else [], set()
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        seen.add(code)
        todo += [const for const in code.co_consts if isinstance(const, types.CodeType)]
        instructions = list(dis.get_instructions(code))
        for at, instruction in enumerate(instructions):
            if instruction.opname == "IMPORT_NAME":
                modules.add(instruction.argval)
            elif instruction.opname == "IMPORT_FROM":
                names.add(instruction.argval)
            elif instruction.argval == "importorskip":
                following = [i.argval for i in instructions[at + 1:at + 4] if i.opname == "LOAD_CONST"]
                modules.update(name for name in following[:1] if isinstance(name, str))
            elif instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and instruction.argval in namespace:
                names.add(instruction.argval)
                value = namespace[instruction.argval]
                values.append(value)
                if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
                    todo.append(value.__code__)
    return modules, names, values


def _module_of(value: object) -> str:
    if isinstance(value, types.ModuleType):
        return value.__name__
    module = getattr(value, "__module__", None) if callable(value) else None
    return module if isinstance(module, str) else ""


def tiers(item: pytest.Item) -> set[str]:
    """The markers conftest derives for a test: parity, oracle, both or none."""
    function = getattr(item, "function", None)
    if function is None:  # a doctest of src/rankproof
        return set()
    modules, names, values = _uses(function)
    modules |= {_module_of(value) for value in values}
    found = set()
    if {module.split(".")[0] for module in modules} & PEERS:
        found.add("parity")
    shared_paths = [value for value in values if isinstance(value, Path) and value.is_relative_to(SHARED)]
    if ORACLE_FIXTURES & set(item.fixturenames) or ORACLE_CALLS & names or shared_paths:
        found.add("oracle")
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for tier in sorted(tiers(item)):
            item.add_marker(tier)


# The one local[2] Spark session every Spark test shares (tests/spark: starting Spark costs tens of
# seconds). Without java the tests skip, saying so in one line (and fail under RANKPROOF_REQUIRE_ORACLES=1).
@pytest.fixture(scope="session")
def spark():
    if shutil.which("java") is None:
        missing("no java on PATH: the Spark tests need a Java 17 runtime")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing("pyspark is not installed (pip install -e '.[test]')")

    # The workers are started from PYSPARK_PYTHON: this interpreter, which imports rankproof
    # (its PYTHONPATH, or the editable install, is inherited by the workers).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("rankproof-tests")
               .config("spark.pyspark.python", sys.executable)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4").config("spark.default.parallelism", "2")
               .config("spark.driver.memory", "1g").config("spark.sql.adaptive.enabled", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


# The parity case counts the xdist workers sent (framework -> key -> count), summed on the controller.
WORKER_COUNTS: dict[str, dict[str, int]] = {}


def _parity_counts() -> dict:
    cases = sys.modules.get("differential_cases")
    return {framework: dict(counted) for framework, counted in (getattr(cases, "COUNTS", None) or {}).items()}


def pytest_sessionfinish(session) -> None:
    """On an xdist worker (``-n 2``), send this worker's parity case counts to the controller,
    which prints them (the worker's own terminal summary is not shown)."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["parity_counts"] = _parity_counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist's controller: add a finished worker's parity case counts to the totals."""
    for framework, counted in getattr(node, "workeroutput", {}).get("parity_counts", {}).items():
        totals = WORKER_COUNTS.setdefault(framework, {})
        for key, value in counted.items():
            totals[key] = totals.get(key, 0) + value


def pytest_terminal_summary(terminalreporter) -> None:
    """The differential parity suite's case counts (tests/support/differential_cases.py), after a run that held it:
    this process's, or under xdist the sum of the workers' (:func:`pytest_testnodedown`).

    Here rather than in tests/parity/conftest.py: a second module named conftest would shadow this
    one for ``from conftest import tiers`` (tests/test_tiers.py)."""
    counts = _parity_counts() or WORKER_COUNTS
    if not counts:
        return
    terminalreporter.section("differential parity: cases per framework")
    for framework, counted in sorted(counts.items()):
        shown = ", ".join(f"{key} {value}" for key, value in sorted(counted.items()))
        terminalreporter.write_line(f"{framework}: {shown}")
