"""One local SparkSession per process, configured for streamplace's pipelines.

Python workers must run the interpreter that has pyarrow and pandas (this one), so
``PYSPARK_PYTHON`` is set to it. Arrow batches hold up to 100,000 rows (the ceiling
measurements in notes-spark.md used that), the UI is off, and Spark's log goes to a file
(log4j2.properties, given at JVM start) instead of the terminal.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from streamplace.spark.query.locality import LocalityJarError, jar_path, javac, locality_jar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "100000",
    "spark.sql.streaming.stopGracefullyOnShutdown": "false",
    "spark.driver.memory": "2g",
    "spark.sql.adaptive.enabled": "false",  # stages keep the planned task counts
    # Python workers talk to their executor over a Unix socket: over TCP loopback every task's first Arrow batch
    # waited ~40 ms (Nagle's algorithm against delayed ACKs; measured 40.7 ms → 3.5 ms, a 50-row task)
    "spark.python.unix.domain.socket.enabled": "true",
    # each executor's Python worker daemon imports numpy, pandas, pyarrow and the operators once and forks its
    # workers with them loaded (worker_daemon.py): ~0.7 CPU s less per worker started
    "spark.python.daemon.module": "streamplace.spark.daemons.worker_daemon",
    # local files without Hadoop's checksum layer, and the streaming checkpoint's logs written by rename: the
    # offset and commit logs of a batch then cost ~25 ms instead of ~145 ms (walCommit 57 → 8, commitOffsets
    # 87 → 15 ms per batch, measured); rename is atomic on a local (or POSIX) file system
    "spark.hadoop.fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
    "spark.hadoop.fs.AbstractFileSystem.file.impl": "org.apache.hadoop.fs.local.RawLocalFs",
    "spark.sql.streaming.checkpointFileManagerClass":
        "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager",
}


#: where this process's Spark log goes (set when the JVM starts; one JVM per process)
_LOG: dict[str, Path] = {}


def default_log_file() -> Path:
    """``$STREAMPLACE_HOME/logs`` (else ``~/.streamplace/logs``) / spark-<time>-<pid>.log."""
    home = Path(os.environ.get("STREAMPLACE_HOME") or Path.home() / ".streamplace")
    return home / "logs" / f"spark-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"


def log_file() -> Path | None:
    """The file Spark's log of this process goes to (None before the session starts)."""
    return _LOG.get("file")


def logging_options(path: Path, console_level: str | None = None) -> str:
    """JVM options that send Spark's log4j2 log to ``path`` and nothing to the terminal (``console_level``, e.g.
    ``info``, shows that much there too). Given at JVM start, they also cover what Spark prints before
    ``setLogLevel`` could act and at shutdown."""
    config = resources.files("streamplace.spark.runtime").joinpath("log4j2.properties")
    opts = [f"-Dlog4j2.configurationFile={config}", f"-Dstreamplace.log.file={path}"]
    if console_level:
        opts.append(f"-Dstreamplace.log.console={console_level}")
    return " ".join(opts)


@contextlib.contextmanager
def _output_to(path: Path) -> Iterator[None]:
    """Point this process's stdout and stderr file descriptors at ``path`` for the duration (a child started
    meanwhile keeps them), then restore them."""
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (*saved, fd):
            os.close(f)


def local_session(cores: int | None = None, conf: dict[str, str] | None = None,
                  master: str | None = None, log_to: Path | None = None,
                  console_level: str | None = None) -> SparkSession:
    """The process's SparkSession (created on first use): ``local[cores]`` unless a master URL is given. Spark's
    log goes to ``log_to`` (default: ``default_log_file()``), the terminal stays quiet (``console_level`` shows
    that level and above there too)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    path = _LOG.get("file") or (log_to or default_log_file()).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    merged = {**DEFAULT_CONF, **(conf or {})}
    if "spark.jars" not in merged and (jar := _locality_jar_if_buildable()) is not None:
        merged["spark.jars"] = jar  # LocatedRDD (locality.py): placed plans, calibrate's driver probe
    merged["spark.driver.extraJavaOptions"] = " ".join(
        x for x in (merged.get("spark.driver.extraJavaOptions"), logging_options(path, console_level)) if x)
    builder = SparkSession.builder.appName("streamplace").master(master or f"local[{cores or os.cpu_count() or 2}]")
    for key, value in merged.items():
        builder = builder.config(key, value)
    if console_level or "file" in _LOG:
        spark = builder.getOrCreate()
    else:  # the JVM (and the Python workers it forks) inherit the log file as stdout and stderr: what the JVM
        with _output_to(path):  # prints outside log4j ("WARNING: Using incubator modules", crash dumps) goes there
            spark = builder.getOrCreate()
    _LOG.setdefault("file", path)
    logging.getLogger("py4j").setLevel(logging.CRITICAL)  # its shutdown chatter (connection closed) is no news
    spark.sparkContext.setLogLevel("WARN")  # to the file; the terminal gets what console_level lets through
    return spark


def stop_active_session() -> None:
    """Stop this process's active SparkSession, if one runs (its executors go with it); nothing without PySpark."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return
    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()


def _locality_jar_if_buildable() -> str | None:
    """The locality jar's path, built now if a JDK is here; None without one (local runs do not need it)."""
    if not jar_path().exists() and javac() is None:
        return None
    try:
        return str(locality_jar())
    except LocalityJarError:
        return None


