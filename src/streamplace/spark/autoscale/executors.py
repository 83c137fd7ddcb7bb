"""Realize: the driver's executor allocation client, through PySpark's gateway (standalone, YARN, Kubernetes).

``SparkContext.requestTotalExecutors`` and ``killExecutors`` are developer APIs with no PySpark wrapper. What
Spark's source says about them (CoarseGrainedSchedulerBackend, deploy/master/Master.scala), and so how they are
called here:

* a target is always set as an absolute total (``requestTotalExecutors``): ``requestExecutors(n)`` adds n to the
  stored target, which starts at 0, not at what runs;
* with dynamic allocation off, an application starts with no limit: the standalone master gives it every free
  core. The first decision sets a target, and the master then launches executors only while fewer run;
* a release first sets the target to what runs, then ``killExecutors(ids)`` lowers it by one per executor and
  kills them: the master sees the lower limit before the freed cores, so it starts no replacement;
* ``killExecutors`` refuses while dynamic allocation is on, and local mode has no allocation client (both return
  or raise before anything changes): ``allocation_mode`` says which, and what to change.

Which worker a new executor lands on is the cluster manager's choice (standalone: the worker with the most free
cores, ``spark.deploy.workerSelectionPolicy``); which executor goes is ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from streamplace.errors import StreamplaceError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class AllocationRefused(StreamplaceError, RuntimeError):
    """The application's executors cannot be changed from its driver (and why, and what to change)."""


@dataclass(frozen=True)
class LiveExecutor:
    id: str
    host: str
    cores: int
    added_epoch_s: float  # when it registered (wall clock, seconds since the epoch)


def allocation_mode(spark: SparkSession) -> str:
    """'' when the driver can request and release executors; else why it cannot (with the fix)."""
    if getattr(spark, "_jsc", None) is None and not hasattr(spark, "sparkContext"):
        return "a Spark Connect session has no driver-side executor allocation (recommend only)"
    try:
        sc = spark.sparkContext
        conf = sc.getConf()
    except Exception:  # Spark Connect raises on sparkContext
        return "a Spark Connect session has no driver-side executor allocation (recommend only)"
    master = str(sc.master)
    if master.startswith("local"):
        return f"local mode ({master}) runs every task in the driver: no executor to request (recommend only)"
    if conf.get("spark.dynamicAllocation.enabled", "false").lower() == "true":
        return ("spark.dynamicAllocation.enabled is true: Spark's own allocation manager owns the executors and "
                "refuses killExecutors (fix: start the application with spark.dynamicAllocation.enabled=false)")
    return ""


def on_a_cluster(spark: SparkSession) -> bool:
    """A classic session on a cluster manager (its executors can be read, whether or not they can be changed)."""
    try:
        return not str(spark.sparkContext.master).startswith("local")
    except Exception:  # Spark Connect
        return False


class ExecutorClient:
    """The application's executors: which run, and the calls that change them."""

    def __init__(self, spark: SparkSession):
        self.sc = spark.sparkContext
        self.jsc = self.sc._jsc.sc()
        jvm = self.sc._jvm
        assert jvm is not None, "the SparkContext has no JVM (stopped?)"
        self.jvm = jvm
        self.utils = jvm.org.apache.spark.api.python.PythonUtils
        self.target: int | None = None  # the last total asked for (None: never: no limit, every free core)
        #: executors released and still listed by Spark (a killed executor stays in the status store's live list
        #: for seconds): left out of live(), never released twice
        self.leaving: set[str] = set()

    def live(self) -> list[LiveExecutor]:
        """The live executors (the driver left out, and those released and not yet gone), from Spark's status
        store."""
        found = self.jsc.statusStore().executorList(True)
        listed = {str(found.apply(i).id()) for i in range(found.size())}
        self.leaving &= listed
        out = []
        for i in range(found.size()):
            e = found.apply(i)
            if str(e.id()) == "driver" or str(e.id()) in self.leaving:
                continue
            out.append(LiveExecutor(str(e.id()), str(e.hostPort()).rsplit(":", 1)[0], int(e.totalCores()),
                                    float(e.addTime().getTime()) / 1000.0))
        return sorted(out, key=lambda x: (x.added_epoch_s, x.id))

    def _empty_map(self) -> Any:
        return self.utils.toScalaMap(self.jvm.java.util.HashMap())

    def set_total(self, total: int) -> bool:
        """Ask the cluster manager for ``total`` executors in all (it starts more only while fewer run)."""
        self.target = max(0, int(total))
        return bool(self.jsc.requestTotalExecutors(self.target, 0, self._empty_map()))

    def release(self, ids: list[str]) -> bool:
        """Kill ``ids`` with no replacement: the target is set to what runs, then lowered by the kill. What runs
        leaves out the executors released before and still listed: counted, they raised the target above what
        would run, and the standalone master started a replacement (measured: 4 executors released to 1, then 2).
        An id already released is not asked again (Spark skips an executor pending removal, target and all)."""
        ids = [i for i in ids if i not in self.leaving]
        running = len(self.live())
        self.set_total(running)
        if not ids:
            return False
        names = self.jvm.java.util.ArrayList()
        for i in ids:
            names.add(i)
        done = bool(self.jsc.killExecutors(self.utils.toSeq(names)))
        self.leaving.update(ids)
        self.target = max(0, running - len(ids))
        return done
