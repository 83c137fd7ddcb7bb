"""Where a cluster's JVM class archives live and the JVM options that map them (jvm_archive.py writes them).

Kept apart from the priming so that a session's configuration (connect.py) can name the archives without
importing what writes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ARCHIVE_DIR = "jvm-archives"
DRIVER_ARCHIVE, EXECUTOR_ARCHIVE = "driver.jsa", "executor.jsa"


def archive_dir(state_dir: str | Path) -> Path:
    return Path(state_dir) / ARCHIVE_DIR


def use_option(archive: Path) -> str:
    """The JVM option that maps ``archive`` (empty when there is none)."""
    return f"-XX:SharedArchiveFile={archive}" if archive.is_file() else ""


def driver_options(state: Any) -> str:
    """JVM options for a driver that runs on the cluster of ``state`` (a ClusterState)."""
    return use_option(archive_dir(state.state_dir) / DRIVER_ARCHIVE)


def executor_options(state: Any) -> str:
    """JVM options for the executors of the cluster of ``state``: none when a worker runs on another host."""
    if any(w.remote for w in state.workers):
        return ""
    return use_option(archive_dir(state.state_dir) / EXECUTOR_ARCHIVE)
