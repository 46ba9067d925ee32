"""A Spark session for rankproof: reuse the active one, or start a local one.

In local mode the Python workers are started by Spark from ``PYSPARK_PYTHON``
(or ``spark.pyspark.python``); left unset, they run the system's ``python3``,
which has neither rankproof nor pyarrow ("No module named 'pyarrow'"). So a
local session started here points both at the running interpreter. On a
cluster the workers' interpreter is the cluster's business: it must import
rankproof (see the README: ``--py-files`` of the wheel, or an environment).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession

__all__ = ["get_session", "local_conf"]


def local_conf(master: str = "local[2]") -> dict[str, str]:
    """The settings of a small local session: this interpreter for the workers,
    no web UI, few shuffle partitions (the default 200 is for clusters).

    >>> local_conf("local[1]")["spark.master"]
    'local[1]'
    """
    return {
        "spark.master": master,
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }


def get_session(master: str | None = None) -> "SparkSession":
    """The active Spark session, or a new one.

    Parameters
    ----------
    master : str, optional
        ``local[N]``, ``spark://host:port``, ``yarn``, ... When given and a
        session is active, that session is used as it is (Spark has one per
        process). A new local session gets :func:`local_conf`; a new session
        on a cluster only the master.
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    chosen = master or "local[2]"
    builder = SparkSession.builder.appName("rankproof")
    if chosen.startswith("local"):
        # Read by the launcher when the JVM starts, which the builder's
        # setting alone comes too late for.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        for key, value in local_conf(chosen).items():
            builder = builder.config(key, value)
    else:
        builder = builder.master(chosen)
    session = builder.getOrCreate()
    # A session started here is rankproof's own: its INFO and WARN lines
    # would bury the one-line messages of the command line.
    session.sparkContext.setLogLevel("ERROR")
    return session
