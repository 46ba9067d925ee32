"""A Spark session for rankproof: reuse the active one, or start a local one.

In local mode the Python workers are started by Spark from ``PYSPARK_PYTHON``
(or ``spark.pyspark.python``); left unset, they run the system's ``python3``,
which has neither rankproof nor pyarrow ("No module named 'pyarrow'"). So a
local session started here points both at the running interpreter. On a
cluster the workers' interpreter is the cluster's business: it must import
rankproof (see docs/guide/spark.md: a packed environment with ``--archives``).

A local session started here compiles with the JVM's quick JIT compiler
only (:data:`LOCAL_JAVA_OPTIONS`), which costs less CPU than the optimising
one for the JVM's small share of the work. A session started here is quiet: the log level is set when the JVM starts
(``spark.log.level``), the console progress bar is off, and what the JVM
writes to stderr while it starts (log4j's profile, the native-hadoop
warning) goes to a file no one reads unless the start fails. Under
``spark-submit`` the JVM is already there, with its master: that session is
used as it is.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import warnings
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

__all__ = ["get_session", "local_conf", "LOCAL_JAVA_OPTIONS", "QUIET_CONF", "SparkStartError",
           "quiet_pyspark"]

# Every session rankproof starts: no progress bar, no web UI, only errors logged.
QUIET_CONF = {"spark.ui.showConsoleProgress": "false", "spark.ui.enabled": "false",
              "spark.log.level": "ERROR"}


class SparkStartError(RuntimeError):
    """Spark did not start; the message holds pyspark's reason and the JVM's last line."""


# The local JVM compiles with the quick JIT compiler only (C1): rankproof's work runs in Python, the
# JVM schedules tasks and moves Arrow buffers, and the optimising compiler (C2) spent more CPU
# compiling than it saved: 12 -> 7.5 CPU seconds to start the JVM and its session, 26 -> 15 for a
# whole evaluation of 200k users (benchmarks/README.md, the Spark profile).
LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"


def local_conf(master: str = "local[2]") -> dict[str, str]:
    """The settings of a small local session: this interpreter for the workers,
    no web UI, few shuffle partitions (the default 200 is for clusters), the
    quick JIT compiler only (:data:`LOCAL_JAVA_OPTIONS`; ``JAVA_TOOL_OPTIONS``
    or ``spark.driver.extraJavaOptions`` in spark-defaults.conf when set
    instead).

    >>> local_conf("local[1]")["spark.master"]
    'local[1]'
    """
    settings = {
        "spark.master": master,
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        **QUIET_CONF,
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }
    if not _java_options_given():
        settings["spark.driver.extraJavaOptions"] = LOCAL_JAVA_OPTIONS
    return settings


def _java_options_given() -> bool:
    """Whether the user chose the driver JVM's options (then rankproof adds none)."""
    if (os.environ.get("JAVA_TOOL_OPTIONS")
        or "extraJavaOptions" in os.environ.get("PYSPARK_SUBMIT_ARGS", "")):
        return True
    home = (os.environ.get("SPARK_CONF_DIR")
            or os.path.join(os.environ.get("SPARK_HOME", ""), "conf"))
    try:
        with open(os.path.join(home, "spark-defaults.conf")) as defaults:
            return any(line.split()[:1] == ["spark.driver.extraJavaOptions"] for line in defaults)
    except OSError:
        return False


def quiet_pyspark() -> None:
    """Drop pyspark's warning on the pandas version (``mapInArrow`` checks it; rankproof passes no
    pandas): call inside ``warnings.catch_warnings()``."""
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")


@contextlib.contextmanager
def _jvm_stderr() -> Iterator:
    """Standard error (file descriptor 2) sent to a temporary file while the JVM starts:
    the JVM inherits it, and keeps it, so its start-up lines never reach the terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield capture
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def get_session(master: str | None = None) -> "SparkSession":
    """The active Spark session, or a new, quiet one.

    Parameters
    ----------
    master : str, optional
        ``local[N]``, ``spark://host:port``, ``yarn``, ... When given and a
        session is active, that session is used as it is (Spark has one per
        process). A new local session gets :func:`local_conf`; a new session
        on a cluster the master and :data:`QUIET_CONF`. Under ``spark-submit``
        without `master`, the session of spark-submit's ``--master``.

    Raises
    ------
    SparkStartError
        Spark could not start (no Java runtime, a master that does not answer).
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("rankproof")
    # inside spark-submit: its JVM, its master
    if master is None and os.environ.get("PYSPARK_GATEWAY_PORT"):
        return builder.getOrCreate()
    chosen = master or "local[2]"
    if chosen.startswith("local"):
        # Read by the launcher when the JVM starts, which the builder's
        # setting alone comes too late for.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        settings = local_conf(chosen)
    else:
        settings = {"spark.master": chosen, **QUIET_CONF}
    for key, value in settings.items():
        builder = builder.config(key, value)
    with _jvm_stderr() as capture:
        try:
            session = builder.getOrCreate()
        # pyspark's own exception types: one line, with what the JVM said
        except Exception as error:
            capture.seek(0)
            said = [line.strip() for line in capture.read().decode(errors="replace").splitlines()
                    if line.strip()]
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
            raise SparkStartError(reason + (f" (the JVM said: {said[-1][:200]})" if said
                                            else "")) from None
    # Set again for the session's whole life (spark.log.level covers the start).
    session.sparkContext.setLogLevel("ERROR")
    return session
