"""The one local[2] Spark session every Spark test shares (starting Spark costs tens of seconds).

Without java the tests skip, saying so in one line (and fail under RANKPROOF_REQUIRE_ORACLES=1, as in CI).
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from oracles import missing


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
