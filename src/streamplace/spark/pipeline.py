"""Turn a topology and a plan into a Structured Streaming query (one micro-batch DAG per trigger).

How operators map to Spark (see the README, "The pipeline on Spark"):

* Sources are Spark ``rate`` sources, one per source operator, with the plan's
  parallelism as partitions and the plan's source rate (else the operator's) as
  rows per second; a source's own logic runs fused in that stage.
* The streaming query's ``foreachBatch`` runs the rest of the DAG on each
  micro-batch. Every other operator is its own stage: its input (the union of its
  upstream operators' outputs) is repartitioned to the operator's planned
  parallelism — round robin for shuffle grouping, hash of the key for key
  grouping, every tuple to every replica for ``all`` — and ``mapInArrow`` runs the
  operator's logic in that many tasks. Cost: one shuffle per operator hop.
* An operator read by several downstream operators is persisted for the batch,
  so a fan-out never recomputes upstream work; it is unpersisted after the batch.
* Sinks write Parquet under ``out/SINK/batch_id=N`` with overwrite, so a batch
  replayed after a crash replaces its own output: with the query's checkpoint
  (source offsets and commits) the output holds every input exactly once.
  A ``memory`` sink keeps batches in a dict by batch id (tests).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any, Literal

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from streamplace.errors import Problem, SpecError
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.spark.metrics import StatsParam
from streamplace.spark.operators import SCHEMA_DDL, OperatorTask, logic_of

COLUMNS = ("ts", "value", "key")


@dataclass
class PipelineConfig:
    trigger_s: float = 1.0
    sink: Literal["parquet", "memory", "noop"] = "parquet"
    out_dir: Path = Path("streamplace-out")
    checkpoint_dir: Path | None = None  # default: out_dir/_checkpoint
    key_space: int = 1024
    speedup: dict[str, float] = field(default_factory=dict)  # operator → speed factor of its node (emulation)
    query_name: str | None = None


class Pipeline:
    """A topology and plan as a streaming query; ``start()`` runs it, ``stop()`` ends it."""

    def __init__(self, spark: SparkSession, topology: Topology, plan: Plan, cfg: PipelineConfig | None = None):
        self.spark, self.topology, self.plan = spark, topology, plan
        self.cfg = cfg or PipelineConfig()
        self.order = [topology.op(i) for i in topology.acyclic_order]  # back edges of cycles are not run
        self.parallelism = {op.id: max(1, plan.parallelism(op.id)) for op in topology.operators}
        self.consumers = {op.id: len(topology.successors(op.id)) for op in topology.operators}
        self.stats = spark.sparkContext.accumulator({}, StatsParam())
        self.memory: dict[str, dict[int, Any]] = {s.id: {} for s in topology.operators if s.is_sink}
        self.tasks = {op.id: OperatorTask(op.id, logic_of(op, self.cfg.speedup.get(op.id, 1.0)), float(op.selectivity),
                                          op.is_sink) for op in topology.operators}
        self._check_keys()
        self.query = None

    # ----------------------------------------------------------------- build
    def _check_keys(self) -> None:
        for s in self.topology.streams:
            if s.grouping == "key" and (s.key or "key") not in COLUMNS:
                raise SpecError([Problem(f"streams.{s.source}->{s.target}.key", f"no field {s.key!r} in the tuples "
                                         f"({', '.join(COLUMNS)})", "group by key (the default key field)")])

    def _mapper(self, op_id: str) -> Callable:
        return functools.partial(_run_task, self.tasks[op_id], self.stats)

    def source_frame(self) -> DataFrame:
        frames = []
        for src in self.topology.sources:
            rate = float(self.plan.source_rates.get(src.id) or src.rate or 0.0)
            if rate <= 0:
                raise SpecError([Problem(f"operators.{src.id}.rate", "a source needs a positive rate",
                                         "set rate (tuples/s) on the source or source_rates in the plan")])
            df = (self.spark.readStream.format("rate").option("rowsPerSecond", max(1, round(rate)))
                  .option("numPartitions", self.parallelism[src.id]).load())
            frames.append(df.select(F.col("timestamp").alias("ts"), F.col("value"),
                                    (F.col("value") % self.cfg.key_space).alias("key"), F.lit(src.id).alias("_src")))
        return reduce(DataFrame.unionByName, frames)

    def run_batch(self, batch: DataFrame, batch_id: int) -> None:
        frames: dict[str, DataFrame] = {}
        cached: list[DataFrame] = []
        several = len(self.topology.sources) > 1
        for op in self.order:
            if op.is_source:
                x = batch.where(F.col("_src") == op.id) if several else batch
                frame = x.drop("_src").mapInArrow(self._mapper(op.id), SCHEMA_DDL)
            else:
                inputs = [frames[s.source] for s in self.topology.streams if s.target == op.id and s.source in frames]
                x = reduce(DataFrame.unionByName, inputs)
                frame = self._partition(x, op.id).mapInArrow(self._mapper(op.id), SCHEMA_DDL)
            if self.consumers[op.id] > 1:
                frame = frame.persist()
                cached.append(frame)
            frames[op.id] = frame
        for sink in self.topology.sinks:
            self._write(frames[sink.id], sink.id, batch_id)
        for frame in cached:
            frame.unpersist()

    def _partition(self, x: DataFrame, op_id: str) -> DataFrame:
        n = self.parallelism[op_id]
        incoming = [s for s in self.topology.streams if s.target == op_id]
        keyed = [s for s in incoming if s.grouping == "key"]
        if keyed:
            return x.repartition(n, F.col(keyed[0].key or "key"))
        if any(s.grouping == "all" for s in incoming):
            replicas = self.spark.range(n).withColumnRenamed("id", "_replica")
            return x.crossJoin(replicas).repartition(n, F.col("_replica")).drop("_replica")
        return x.repartition(n)

    def _write(self, frame: DataFrame, sink: str, batch_id: int) -> None:
        if self.cfg.sink == "memory":
            self.memory[sink][batch_id] = frame.toPandas()
        elif self.cfg.sink == "noop":
            frame.write.format("noop").mode("overwrite").save()
        else:
            frame.write.mode("overwrite").parquet(str(self.cfg.out_dir / sink / f"batch_id={batch_id}"))

    # ----------------------------------------------------------------- run
    @property
    def checkpoint(self) -> Path:
        return self.cfg.checkpoint_dir or self.cfg.out_dir / "_checkpoint"

    def start(self) -> Any:
        writer = (self.source_frame().writeStream.foreachBatch(self.run_batch)
                  .option("checkpointLocation", str(self.checkpoint))
                  .trigger(processingTime=f"{self.cfg.trigger_s} seconds"))
        if self.cfg.query_name:
            writer = writer.queryName(self.cfg.query_name)
        self.query = writer.start()
        return self.query

    def stop(self, wait_s: float = 30.0) -> None:
        """Stop between micro-batches when possible (interrupting one mid-way is safe, but noisy in Spark's log)."""
        if self.query is None:
            return
        deadline = time.monotonic() + wait_s
        while self.query.isActive and self.query.status.get("isTriggerActive") and time.monotonic() < deadline:
            time.sleep(0.05)
        self.query.stop()


def _run_task(task: OperatorTask, stats: Any, batches: Any) -> Any:
    return task(batches, stats)
