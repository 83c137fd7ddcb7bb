"""The Python worker daemon of streamplace's executors: PySpark's own, with an operator's imports done once.

An executor starts its Python workers by forking one daemon process (``pyspark.daemon``), and each worker
then imports what its task needs: numpy, pandas, pyarrow and the operators, about 0.7 CPU seconds a worker
here, and a run on hetero-3 starts twelve of them (four replica slots on three nodes) while the executors
start — 13 of the 34 CPU seconds before its first micro-batch, on two cores. This daemon (Spark's
``spark.python.daemon.module``, set by session.py) imports them before it forks, so each node pays once and
its workers inherit them.

PySpark's daemon imports nothing heavy itself because a process that forks must not have other threads (a
lock one of them held would stay locked in the child), and pandas and pyarrow start some: OpenBLAS's thread
pool and jemalloc's background thread. Both are switched off here before the imports (``OPENBLAS_NUM_THREADS``
1, ``JE_ARROW_MALLOC_CONF`` background_thread:false; each worker runs one task on one thread anyway); should
a thread still be running after them, the daemon forks nothing from it and leaves the imports to the workers.

On a cluster that `cluster up` started here, the node's zygote (zygote.py) has done these imports once for all
the node's executors: this module asks it to fork the daemon, and imports for itself only where there is no
zygote or it refuses.
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
    import streamplace.spark.operators
    import streamplace.spark.pipeline
    import streamplace.spark.sink  # noqa: F401

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


def main() -> None:
    import sys

    from streamplace.spark.zygote import SOCKET_ENV, fork_daemon

    zygote = os.environ.get(SOCKET_ENV)
    if zygote and fork_daemon(zygote, sys.argv):  # its node's zygote forked the daemon, imports done (zygote.py)
        return
    if not ready_to_fork():  # never fork from a process with threads: start again without the imports
        os.execv(sys.executable, [sys.executable, "-m", "pyspark.daemon", *sys.argv[1:]])
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
