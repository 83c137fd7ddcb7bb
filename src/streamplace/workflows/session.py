"""The Spark session a use case runs on: local Spark, or an application on a cluster `cluster up` started (its
authentication, pinning and class archives), with Spark's log in a file whose path callers may show."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def open_session(master: str | None, state: Any, cores: int | None, log_to: Path | None = None,
                 console_level: str | None = None) -> Any:
    """The process's SparkSession: on the cluster of ``state`` (workflows.cluster.cluster_at), else ``master`` or
    ``local[cores]``; Spark's log goes to ``log_to`` (default ~/.streamplace/logs/…), the terminal gets only
    ``console_level`` and above."""
    # lazy: command-line start
    from streamplace.spark.cluster.connect import session_for

    return session_for(master, state, cores, log_to, console_level)


def spark_log() -> Path | None:
    """The file Spark's log of this process goes to (None before a session started)."""
    # lazy: command-line start
    from streamplace.spark.runtime.session import log_file

    return log_file()
