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

On a cluster that `cluster up` started here, the node's zygote (spark/cluster/zygote.py) has done these imports
once for all the node's executors: this module asks it to fork the daemon (zygote_client.py), and imports for
itself only where there is no
zygote or it refuses.
"""

from __future__ import annotations

import os

from streamplace.spark.daemons.threadless import ready_to_fork
from streamplace.spark.daemons.zygote_client import SOCKET_ENV, fork_daemon


def main() -> None:
    import sys

    zygote = os.environ.get(SOCKET_ENV)
    if zygote and fork_daemon(zygote, sys.argv):  # its node's zygote forked the daemon, imports done
        return
    if not ready_to_fork():  # never fork from a process with threads: start again without the imports
        os.execv(sys.executable, [sys.executable, "-m", "pyspark.daemon", *sys.argv[1:]])
    from pyspark.daemon import manager

    manager()


if __name__ == "__main__":
    main()
