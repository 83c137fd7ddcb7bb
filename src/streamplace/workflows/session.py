"""The Spark session a use case runs on: local Spark, or an application on a cluster `cluster up` started (its
authentication, pinning and class archives), with Spark's log in a file whose path callers may show."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.spark import cluster as spark_cluster
from streamplace.spark import enact as spark_enact

if TYPE_CHECKING:
    from streamplace.spark.cluster import ClusterState


def open_session(master: str | None, state: ClusterState | None, cores: int | None, log_to: Path | None = None,
                 console_level: str | None = None) -> Any:
    """The process's SparkSession: on the cluster of ``state`` (workflows.cluster.cluster_at), else ``master`` or
    ``local[cores]``; Spark's log goes to ``log_to`` (default ~/.streamplace/logs/…), the terminal gets only
    ``console_level`` and above."""
    return spark_cluster.session_for(master, state, cores, log_to, console_level)


def spark_log() -> Path | None:
    """The file Spark's log of this process goes to (None before a session started)."""
    return spark_enact.log_file()
