"""Run a sweep as Spark tasks (local or a cluster) and write its rows as Parquet.

The specs are resolved once on the driver and broadcast as spec documents
(each task rebuilds the ones its chunk uses); the instances are
split into ``partitions`` chunks, each a Spark task that plans and predicts its
instances one after another (bench/sweep.py). The rows go to a Parquet
directory (overwritten), with ``_sweep.json`` beside them: the axes, the
instance count and the wall time. A progress callback receives completed and
total tasks while the job runs (polled from Spark's status tracker).
Cost: one task per chunk; the work is the schedulers' own.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from streamplace.bench.sweep import META, ROW_SCHEMA, Instance, chunks, evaluate_instance
from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.spec.loader import cluster_to_doc, load_cluster, load_topology, topology_to_doc


@dataclass(frozen=True)
class SweepRun:
    path: str
    instances: int
    tasks: int
    seconds: float
    statuses: dict[str, int]

    @property
    def per_second(self) -> float:
        return self.instances / self.seconds if self.seconds > 0 else 0.0


def run_sweep(spark: Any, instances: Sequence[Instance], topologies: dict[str, Topology],
              clusters: dict[str, Cluster], out: Path, partitions: int | None = None,
              params: dict[str, dict[str, str]] | None = None,
              progress: Callable[[int, int], None] | None = None, engine: EngineSettings | None = None,
              engine_params: dict[str, str] | None = None) -> SweepRun:
    """Evaluate every instance in Spark tasks and write the rows under ``out`` (Parquet)."""
    sc = spark.sparkContext
    n_tasks = partitions or max(1, min(len(instances), 4 * sc.defaultParallelism, 400))
    # the model objects hold read-only mappings, which do not pickle: tasks get the spec documents
    specs = sc.broadcast(({k: topology_to_doc(t) for k, t in topologies.items()},
                          {k: cluster_to_doc(c) for k, c in clusters.items()}, params or {}, engine,
                          engine_params or {}))
    names = [name for name, _ in ROW_SCHEMA]

    def evaluate_chunk(chunk: list[Instance]) -> list[tuple]:
        topo_docs, cluster_docs, prm, eng, eng_prm = specs.value
        topos = {k: load_topology(d) for k, d in topo_docs.items() if any(i.topology == k for i in chunk)}
        clus = {k: load_cluster(d) for k, d in cluster_docs.items() if any(i.cluster == k for i in chunk)}
        return [tuple(row[k] for k in names)
                for inst in chunk
                for row in [evaluate_instance(inst, topos[inst.topology], clus[inst.cluster], prm.get(inst.scheduler),
                                              eng, eng_prm)]]

    parts = list(chunks(list(instances), n_tasks))
    rdd = sc.parallelize(parts, len(parts)).flatMap(evaluate_chunk)
    frame = spark.createDataFrame(rdd, ", ".join(f"{n} {t}" for n, t in ROW_SCHEMA))
    group = f"streamplace-sweep-{time.time_ns()}"
    failure: list[BaseException] = []

    def write() -> None:
        try:
            sc.setJobGroup(group, "streamplace sweep")
            frame.write.mode("overwrite").parquet(str(out))
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    started = time.perf_counter()
    worker = threading.Thread(target=write, name="sweep-writer", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.25)
        if progress is not None:
            progress(_completed_tasks(sc, group), len(parts))
    seconds = time.perf_counter() - started
    specs.unpersist()
    if failure:
        raise failure[0]
    if progress is not None:
        progress(len(parts), len(parts))
    statuses = {r["status"]: int(r["count"]) for r in spark.read.parquet(str(out)).groupBy("status").count().collect()}
    run = SweepRun(str(out), len(instances), len(parts), seconds, statuses)
    axes = {axis: sorted({getattr(i, axis) for i in instances}) for axis in ("topology", "cluster", "scheduler",
                                                                              "scale", "seed")}
    (out / META).write_text(json.dumps({**asdict(run), "per_second": run.per_second, "axes": axes,
                                        "master": sc.master, "cores": sc.defaultParallelism}, indent=2))
    return run


def _completed_tasks(sc: Any, group: str) -> int:
    tracker = sc.statusTracker()
    done = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else ():
            s = tracker.getStageInfo(stage)
            if s is not None:
                done += s.numCompletedTasks
    return done
