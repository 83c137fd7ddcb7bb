"""One local SparkSession per process, configured for streamplace's pipelines.

Python workers must run the interpreter that has pyarrow and pandas (this one), so
``PYSPARK_PYTHON`` is set to it. Arrow batches hold up to 100,000 rows (the ceiling
measurements in notes-spark.md used that), the UI is off and logs are quiet.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

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
}


def local_session(cores: int | None = None, conf: dict[str, str] | None = None,
                  master: str | None = None) -> SparkSession:
    """The process's SparkSession (created on first use): ``local[cores]`` unless a master URL is given."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("streamplace").master(master or f"local[{cores or os.cpu_count() or 2}]")
    for key, value in {**DEFAULT_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
