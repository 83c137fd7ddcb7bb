"""Importing what an operator's task needs without starting threads (OpenBLAS's pool, jemalloc's background
thread are switched off first), so that the process may still fork: the worker daemon (worker_daemon.py) and
the node's zygote (zygote.py) both preload here, then fork workers that inherit the imports.
"""

from __future__ import annotations

import os
import threading

#: set before numpy and pyarrow load; the workers inherit them
THREADLESS_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                  "JE_ARROW_MALLOC_CONF": "background_thread:false"}


def with_threadless_defaults(env: dict[str, str]) -> dict[str, str]:
    """``env`` as ``preload()`` leaves it: the single-thread settings wherever ``env`` sets none."""
    return {**THREADLESS_ENV, **env}


def _threads() -> int:
    """Threads of this process as the kernel sees them (native ones included, which ``threading`` misses)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def preload() -> bool:
    """Import what an operator's task needs; True when this process still has a single thread after it."""
    for key, value in THREADLESS_ENV.items():
        os.environ.setdefault(key, value)
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import pyarrow
    import pyarrow.compute
    import pyarrow.pandas_compat
    import pyarrow.parquet  # noqa: F401
    import pyspark.sql.pandas.serializers
    import pyspark.worker  # noqa: F401

    # what unpickling an operator's task imports (its function lives in pipeline.py, its writer in sink.py): a
    # worker's first task spent 0.12–0.16 CPU s on these before they were preloaded
    # lazy: PySpark and pyarrow, loaded once THREADLESS_ENV is set (they would start threads before)
    import streamplace.spark.query.operators
    import streamplace.spark.query.pipeline
    import streamplace.spark.query.sink  # noqa: F401

    return _threads() == 1


def ready_to_fork() -> bool:
    """``preload()``, and when this process is still single-threaded after it (False otherwise: it must not
    fork), freeze what the imports made: it stays out of the forked workers' collections, which otherwise touched
    every object and copied its pages (measured: a worker's first collection and 200,000 allocations took 94 ms
    of CPU and 19,000 page faults, frozen 43 ms and 12,000)."""
    if not preload():
        return False
    import gc

    gc.freeze()
    return True
