"""Turn a topology and a plan into a Structured Streaming query (one micro-batch DAG per trigger).

How operators map to Spark (see docs/spark.md, "The pipeline on Spark"):

* Sources are Spark ``rate`` sources, one per source operator, with the plan's
  parallelism as partitions and the plan's source rate (else the operator's) as
  rows per second; a source's own logic (a generator) runs fused in that stage.
  With ``input: file`` in its logic, a source instead reads a directory that a
  generator thread fills with Parquet files at the rate (feeder.py).
* The streaming query's ``foreachBatch`` runs the rest of the DAG on each
  micro-batch. A lone rate source's first fused chain is part of the query's own
  plan instead (analysed once, not per batch; its tasks read the batch id from
  Spark's ``streaming.sql.batchId`` local property). Every other operator is its own stage: its input (the union of its
  upstream operators' outputs) is repartitioned to the operator's planned
  parallelism — a hash of the tuple id for shuffle grouping (even for unique
  ids, and deterministic on replay, unlike round robin), hash of the key for key
  grouping, every tuple to every replica for ``all`` — and ``mapInArrow`` runs the
  operator's logic in that many tasks. Cost: one shuffle per operator hop. When
  an operator's inputs are grouped differently (DEBS: routes by key, metronome
  ticks to all), each row gets a target partition id and one hash shuffle routes
  it there (the ids are chosen so the hash partitioner lands each on its own task).
* Operators may add columns (the DEBS and OEE operators do); a merge takes the
  union of its inputs' columns, missing ones null. Stateful logic (windowed
  count, top-k) keeps its state per partition under the checkpoint (state.py).
* An operator whose logic rejects malformed records (DEBS parse) writes them to
  ``out/_deadletter/OP/batch_id=N`` with the reason; the count is in its
  statistics. Nothing malformed stops the pipeline.
* An operator read by several downstream operators is persisted for the batch,
  so a fan-out never recomputes upstream work; it is unpersisted after the batch.
* Sinks write Parquet under ``out/SINK/batch_id=N`` with overwrite, so a batch
  replayed after a crash replaces its own output: with the query's checkpoint
  (source offsets and commits) the output holds every input exactly once.
  A ``memory`` sink keeps batches in a dict by batch id (tests).
"""

from __future__ import annotations

import abc
import functools
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any, Literal

from pyspark.sql import DataFrame, SparkSession, streaming
from pyspark.sql import functions as F

from streamplace.errors import Problem, SpecError
from streamplace.model.fusion import fused_chains
from streamplace.model.layout import NODE_ENV, WorkerLayout
from streamplace.model.plan import Plan
from streamplace.model.topology import Stream, Topology
from streamplace.perf.engines.spark import SOURCE_LEAD_S
from streamplace.spark.query import bounded_source
from streamplace.spark.query import sink as sink_files
from streamplace.spark.query.feeder import FileFeeder
from streamplace.spark.query.library import logic_of
from streamplace.spark.query.library.generic import busy
from streamplace.spark.query.logic import (
    BASE_COLUMNS,
    ERROR_COLUMN,
    Columns,
    arrow_schema,
    ddl,
    merge_columns,
)
from streamplace.spark.query.metrics import StatsParam
from streamplace.spark.query.operators import OperatorTask
from streamplace.spark.query.phase import align_rate_sources, source_lead
from streamplace.spark.query.sink import ParquetParts

#: the local property Spark's MicroBatchExecution sets on every job of a micro-batch (its id)
BATCH_ID_PROPERTY = "streaming.sql.batchId"

#: seconds the executors may take to start before the first batch (measured 20–45 s on 2 cores)
EXECUTOR_START_TIMEOUT_S = 180.0


@dataclass
class PipelineConfig:
    trigger_s: float = 1.0
    sink: Literal["parquet", "memory", "noop"] = "parquet"
    out_dir: Path = Path("streamplace-out")
    checkpoint_dir: Path | None = None  # default: out_dir/_checkpoint
    key_space: int = 1024
    speedup: dict[str, float] = field(default_factory=dict)  # operator → speed factor of its node (emulation)
    query_name: str | None = None
    #: fixed-size micro-batches holding ``batch_s`` seconds of each source's rate (Spark's rate-micro-batch
    #: source) instead of real-time rates: for measuring capacity with batches back to back (trigger_s 0);
    #: event times are then synthetic and latency meaningless
    batch_s: float | None = None
    #: seconds over which Spark's rate source ramps up to its rate (its ``rampUpTime``): the first micro-batches
    #: (JVM warm-up, executor start) then do not leave a backlog behind that later windows would measure
    ramp_up_s: float = 0.0
    #: seconds from the end of each of the rate sources' seconds to the trigger that reads it (phase.py): a fresh
    #: checkpoint gets a source start time with this phase, so latency does not depend on when the query started;
    #: None leaves the phase to chance (Spark's own start time)
    source_lead_s: float | None = SOURCE_LEAD_S
    #: whole seconds the rate sources start before the query (with the phase above), so that its first
    #: micro-batch reads them: without, that batch is empty (a rate source has no rows before its first second has
    #: passed) and the first rows wait a trigger more — 1.8–2.3 s of a run's start on hetero-3. Those rows' latency
    #: includes the head start; the warm-up does not measure them
    source_head_start_s: int = 1
    #: run consecutive operators that need no shuffle between them in one stage (model/fusion.py)
    fuse: bool = True
    #: the standalone cluster's workers (layout.py): when given, every operator's replicas run on the cluster and
    #: emulate the speed-up of the node each runs on (with ``placement`` "plan", replica l's task prefers the
    #: ``host`` of its planned node's worker and waits for it: task locality, locality.py); None runs wherever
    #: Spark likes (local)
    workers: list[WorkerLayout] | None = None
    #: "plan": every replica runs on the node the plan puts it on; "spark": the plan's replica counts, but Spark's
    #: own scheduler chooses where each task runs (the baseline every Spark user has)
    placement: Literal["plan", "spark"] = "plan"
    #: one-way latency between the planned nodes, ms ({a: {b: ms}}): on an emulated cluster (one machine, loopback)
    #: a placed task waits the longest latency from a node that feeds them before they process — the shuffle
    #: fetch crossing that link, once per micro-batch, as the spark engine models it. None: no wait
    link_latency_ms: dict[str, dict[str, float]] | None = None
    #: bounded sources (bounded_source.py; perf/admission.py computes the bound): source id → the most rows one
    #: micro-batch admits (None: no bound), the rest queued as the source's backlog; rows arrive one by one on the
    #: wall clock and carry their arrival time. None: Spark's ``rate`` source (whole seconds, unbounded batches)
    admission: dict[str, int | None] | None = None


class Pipeline(abc.ABC):
    """A topology and plan as a streaming query; ``start()`` runs it, ``stop()`` ends it. What every runtime shares
    (sources, operators' tasks and fused chains, outputs, dead letters, the end of a batch); LocalPipeline and
    PlacedPipeline (placed.py) are the two runtimes, ``pipeline_for`` (build.py) picks one."""

    def __init__(self, spark: SparkSession, topology: Topology, plan: Plan, cfg: PipelineConfig | None = None):
        self.spark, self.topology, self.plan = spark, topology, plan
        self.cfg = cfg or PipelineConfig()
        self.order = [topology.op(i) for i in topology.acyclic_order]  # back edges of cycles are not run
        self.parallelism = {op.id: max(1, plan.parallelism(op.id)) for op in topology.operators}
        self.consumers = {op.id: len(topology.successors(op.id)) for op in topology.operators}
        self.stats = spark.sparkContext.accumulator({}, StatsParam())
        self.batch_stats: dict[str, list[float]] = {}  # the counters after the last whole batch
        self.batch_done_at = time.perf_counter()  # when that batch's foreachBatch body ended
        self.batch_done_id = -1  # and its id
        #: the three above as one value, replaced whole by Spark's callback thread: read it once to get a batch's
        #: id, end and counters together (reading the attributes one by one may mix two batches)
        self.batch_done: tuple[int, float, dict[str, list[float]]] = (-1, self.batch_done_at, {})
        self._origin: float | None = None  # the bounded sources' arrival origin (origin())
        self.outputs = [op.id for op in self.order if self.consumers[op.id] == 0]  # sinks (and dangling operators)
        self.memory: dict[str, dict[int, Any]] = {op_id: {} for op_id in self.outputs}
        self.dead_letters: dict[str, dict[int, Any]] = {}
        self.logic = {op.id: logic_of(op, self.cfg.speedup.get(op.id, 1.0)) for op in topology.operators}
        self.file_input = {op.id for op in topology.sources if op.logic.get("input") == "file"}
        self.inputs, self.columns = self._columns()
        self.tasks = {op.id: self._task(op.id) for op in topology.operators}
        self.feeders: list[FileFeeder] = []
        self._values: dict[int, list[int]] = {}
        self.query: streaming.StreamingQuery | None = None
        self.executors_ready, self.executor_start_s = True, 0.0  # start(): did the executors start, how long
        #: operators run fused, one stage per chain (model/fusion.py): local runs fuse on equal parallelism,
        #: placed runs on equal replicas per node; an operator with a dead-letter output ends its chain
        dead = {op.id for op in topology.operators if self.logic[op.id].dead_letter}
        self.chains = fused_chains(topology, self._fusion_layout(), standalone=dead) if self.cfg.fuse else \
            [(op.id,) for op in self.order]
        self.streamed = self._streamed_chain()

    # ----------------------------------------------------------------- what each runtime decides
    @abc.abstractmethod
    def _fusion_layout(self) -> Mapping[str, Mapping[str, int]]:
        """Per operator, its replicas per node as fusion reads them (model/fusion.py): consecutive operators fuse
        where these are equal."""
        raise NotImplementedError

    @abc.abstractmethod
    def _streamed_chain(self) -> tuple[str, ...] | None:
        """The chain that runs inside the streaming query's own plan rather than being built on each micro-batch
        (None: every chain is built per batch)."""
        raise NotImplementedError

    @abc.abstractmethod
    def _source_partitions(self, src_id: str) -> int:
        """The partitions of the source's own reader."""
        raise NotImplementedError

    def _operator_task(self, op_id: str) -> OperatorTask | PlacedOperator:
        """What a chain's task runs for ``op_id``: its task (local) or its tasks per node (placed)."""
        return self.tasks[op_id]

    @abc.abstractmethod
    def run_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Run every operator on one micro-batch (the query's foreachBatch)."""
        raise NotImplementedError

    def _prepare_start(self) -> bool:
        """What the runtime does before the query starts; False when something it waited for did not come (the
        batches then start it)."""
        return True

    # ----------------------------------------------------------------- build

    def _columns(self) -> tuple[dict[str, Columns], dict[str, Columns]]:
        """Columns each operator's tasks receive, and those it emits downstream (without the dead-letter
        reason); checks that key fields exist. A file-fed source receives its generator's columns."""
        inputs: dict[str, Columns] = {}
        out: dict[str, Columns] = {}
        problems = []
        for op in self.order:
            incoming = [s for s in self.topology.streams if s.target == op.id and s.source in out]
            cols = BASE_COLUMNS if op.is_source else merge_columns([out[s.source] for s in incoming])
            for s in incoming:
                names = {n for n, _ in out[s.source]}
                if s.grouping == "key" and (s.key or "key") not in names:
                    problems.append(Problem(f"streams.{s.source}->{s.target}.key",
                                            f"no field {s.key!r} in {s.source}'s tuples ({', '.join(sorted(names))})",
                                            "group by a field the upstream operator emits (default: key)"))
            out[op.id] = tuple(c for c in self.logic[op.id].columns(cols) if c[0] != ERROR_COLUMN)
            inputs[op.id] = out[op.id] if op.id in self.file_input else cols
        if problems:
            raise SpecError(problems)
        return inputs, out

    def _task(self, op_id: str, node_speedup: float | None = None) -> OperatorTask:
        """The operator's task; with ``node_speedup`` its emulated work is also scaled by that node's speed."""
        op = self.topology.op(op_id)
        speed = self.cfg.speedup.get(op_id, 1.0) * (node_speedup or 1.0)
        if op_id in self.file_input:  # the feeder runs the generator; the source stage does the CPU work only
            logic = busy(op, {k: v for k, v in op.logic.items() if k == "cost_ms"}, speed)
        else:
            logic = self.logic[op_id] if node_speedup is None else logic_of(op, speed)
        return OperatorTask(op_id, logic, float(op.selectivity), self.consumers[op_id] == 0, self.parallelism[op_id],
                            str(self.checkpoint / "state"))

    def _chain_mapper(self, chain: tuple[str, ...], batch_id: int | None, sink: ParquetParts | None = None
                      ) -> Callable:
        """One function over a task's Arrow batches that runs every operator of ``chain`` in turn, each on the
        columns it reads (one Python worker round trip for the whole chain); with ``sink`` the tasks write the
        chain's output themselves (sink.py) and return nothing to Spark. ``batch_id`` None: each task reads its
        micro-batch's id from Spark (the streamed chain). Placed: each task picks its operators' tasks for the
        node it runs on (PlacedOperator.pick)."""
        steps = tuple((self._operator_task(op_id), tuple(c for c, _ in self.inputs[op_id])) for op_id in chain)
        return functools.partial(_run_chain, steps, self.stats, batch_id, sink)

    def _writes_own_files(self, op_id: str) -> bool:
        """Whether the operator's tasks write its Parquet output themselves (sink.py): an output without a
        dead-letter output (those go through Spark's writer, filtered) when the sink is Parquet."""
        return self.cfg.sink == "parquet" and not self.consumers[op_id] and not self.logic[op_id].dead_letter

    def _direct_sink(self, op_id: str) -> ParquetParts | None:
        """The writer of the operator's Parquet files when its tasks write them, else None."""
        if not self._writes_own_files(op_id):
            return None
        return ParquetParts(str(self.cfg.out_dir.resolve() / op_id), arrow_schema(self._output_columns(op_id)))

    def _rate(self, src_id: str) -> float:
        src = self.topology.op(src_id)
        rate = float(self.plan.source_rates.get(src_id) or src.rate or 0.0)
        if rate <= 0:
            raise SpecError([Problem(f"operators.{src_id}.rate", "a source needs a positive rate",
                                     "set rate (tuples/s) on the source or source_rates in the plan")])
        return rate

    def source_frame(self) -> DataFrame:
        frames = []
        for src in self.topology.sources:
            rate = self._rate(src.id)
            if src.id in self.file_input:
                directory = self.cfg.out_dir / "_input" / src.id
                directory.mkdir(parents=True, exist_ok=True)
                self.feeders.append(FileFeeder(directory, rate, self.logic[src.id].fn, self.cfg.key_space,
                                               min(0.5, self.cfg.trigger_s / 2)))
                df = self.spark.readStream.schema(ddl(self.columns[src.id])).parquet(str(directory))
            else:
                reader = self.spark.readStream.option("numPartitions", self._source_partitions(src.id))
                if self.bounded:
                    bounded_source.register(self.spark)
                    cap = self.cfg.admission.get(src.id) if self.cfg.admission else None
                    reader = (reader.format(bounded_source.NAME).option("rowsPerSecond", repr(rate))
                              .option("origin", repr(self.origin()))
                              .option("stallFile", str(self.checkpoint.resolve() / bounded_source.STALL_FILE)))
                    if cap is not None:
                        reader = reader.option("maxRowsPerTrigger", str(int(cap)))
                elif self.cfg.batch_s:
                    reader = reader.format("rate-micro-batch").option("rowsPerBatch",
                                                                      max(1, round(rate * self.cfg.batch_s)))
                else:
                    reader = reader.format("rate").option("rowsPerSecond", max(1, round(rate)))
                    if self.cfg.ramp_up_s:
                        reader = reader.option("rampUpTime", f"{max(1, round(self.cfg.ramp_up_s))}s")
                df = reader.load().select(F.col("timestamp").alias("ts"), F.col("value"),
                                          (F.col("value") % self.cfg.key_space).alias("key"))
            frames.append(df.withColumn("_src", F.lit(src.id)) if len(self.topology.sources) > 1 else df)
        frame = reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), frames)
        if self.streamed is not None:
            frame = frame.mapInArrow(self._chain_mapper(self.streamed, None, sink=self._direct_sink(self.streamed[-1])),
                                     self._schema(self.streamed[-1]))
        return frame

    def _output_columns(self, op_id: str) -> Columns:
        """The columns of the operator's mapInArrow output (with the dead-letter reason where it has one)."""
        return self.tasks[op_id].logic.columns(self.inputs[op_id])

    def _schema(self, op_id: str) -> str:
        """The DDL schema of the operator's output."""
        return ddl(self._output_columns(op_id))

    def _kept(self, frame: DataFrame, op_id: str, batch_id: int, cached: list[DataFrame]) -> DataFrame:
        """An operator's output as its consumers read it, for the local and the placed batch alike: with a dead
        letter, its failed rows written aside and dropped; persisted (and listed in ``cached``) where it is read
        more than once — by the dead-letter write and the consumers, or by several exchanges, each of which would
        recompute it."""
        if self.logic[op_id].dead_letter:
            frame = frame.persist()
            cached.append(frame)
            self._write(frame.where(F.col(ERROR_COLUMN).isNotNull()), f"_deadletter/{op_id}", batch_id)
            frame = frame.where(F.col(ERROR_COLUMN).isNull()).drop(ERROR_COLUMN)
        if self.consumers[op_id] > 1:
            frame = frame.persist()
            cached.append(frame)
        return frame

    def _finish_batch(self, frames: dict[str, DataFrame], cached: list[DataFrame], batch_id: int) -> None:
        """Run the outputs' jobs, free what the batch persisted, and keep its counters."""
        self._write_outputs({out: frames[out] for out in self.outputs}, batch_id)
        for frame in cached:
            frame.unpersist()
        self._batch_done(batch_id)

    def _write_outputs(self, outputs: dict[str, DataFrame], batch_id: int) -> None:
        """Run every output's job: an output whose tasks write their own files is then published; with the noop
        sink its stages just run; the others go through _write."""
        for out, frame in outputs.items():
            if self.cfg.sink == "noop":
                _run_job(frame)
                continue
            if not self._writes_own_files(out):
                self._write(frame, out, batch_id)
                continue
            sink_files.prepare(self.cfg.out_dir, out, batch_id)
            _run_job(frame)
            sink_files.publish(self.cfg.out_dir, out, batch_id)

    def _source_rows(self, batch: DataFrame, src_id: str, several: bool) -> DataFrame:
        """The micro-batch's rows of one source, in the columns its logic receives. A lone source's batch has
        them already (source_frame): each DataFrame step costs the driver an analysis (~10–20 ms a batch)."""
        if not several and src_id not in self.file_input and self.inputs[src_id] == BASE_COLUMNS:
            return batch
        x = batch.where(F.col("_src") == src_id) if several else batch
        return x.select(*[n for n, _ in self.inputs[src_id]])

    def _batch_done(self, batch_id: int) -> None:
        """Keep the operators' counters as they stand after a whole batch (a stop may cut the next one between
        stages, leaving the live accumulator with an upstream stage counted and its downstream not)."""
        stats, now = {k: list(v) for k, v in self.stats.value.items()}, time.perf_counter()
        self.batch_done = (batch_id, now, stats)
        self.batch_stats, self.batch_done_at, self.batch_done_id = stats, now, batch_id

    def _target_values(self, n: int) -> list[int]:
        """n ints whose hash partitions land on partitions 0..n−1 in order, one each."""
        if n not in self._values:
            rows = (self.spark.range(64 * n).select(F.col("id").cast("int").alias("v"))
                    .select("v", F.expr(f"pmod(hash(v), {n})").alias("p")).collect())
            first: dict[int, int] = {}
            for r in rows:
                first.setdefault(int(r["p"]), int(r["v"]))
            if len(first) < n:
                raise RuntimeError(f"no hash target for some of {n} partitions")
            self._values[n] = [first[p] for p in range(n)]
        return self._values[n]

    def _write(self, frame: DataFrame, sink: str, batch_id: int) -> None:
        if self.cfg.sink == "memory":
            target = self.memory if sink in self.memory else self.dead_letters
            target.setdefault(sink.removeprefix("_deadletter/"), {})[batch_id] = frame.toPandas()
        elif self.cfg.sink == "noop":
            _run_job(frame)
        else:
            frame.write.mode("overwrite").parquet(str(self.cfg.out_dir / sink / f"batch_id={batch_id}"))

    # ----------------------------------------------------------------- run
    @property
    def checkpoint(self) -> Path:
        return self.cfg.checkpoint_dir or self.cfg.out_dir / "_checkpoint"

    def start(self) -> Any:
        started = time.monotonic()
        self.executors_ready = self._prepare_start()
        self.executor_start_s = time.monotonic() - started
        # after the executors: a bounded source's rows start arriving when its frame is made (origin)
        writer = (self.source_frame().writeStream
                  .foreachBatch(self.run_batch)
                  .option("checkpointLocation", str(self.checkpoint))
                  .trigger(processingTime=f"{self.cfg.trigger_s} seconds"))
        if self.cfg.query_name:
            writer = writer.queryName(self.cfg.query_name)
        if self.cfg.source_lead_s is not None:
            align_rate_sources(self.checkpoint, self.rate_source_indices, self.cfg.source_lead_s,
                               head_start_s=self.cfg.source_head_start_s)
        for feeder in self.feeders:
            feeder.start()
        self.query = writer.start()
        return self.query

    @property
    def bounded(self) -> bool:
        """Do the sources admit a bounded number of rows per batch (bounded_source.py)?"""
        return self.cfg.admission is not None and not self.cfg.batch_s

    def origin(self) -> float:
        """The bounded sources' arrival origin, the same for all of them (bounded_source.arrival_origin)."""
        if self._origin is None:
            self._origin = bounded_source.arrival_origin(self.checkpoint)
        return self._origin

    @property
    def rate_source_indices(self) -> list[int]:
        """Positions among the query's sources (Spark numbers them in the order of the union) of the rate sources
        whose seconds run on the wall clock (not the rate-micro-batch source of fixed-size batches)."""
        if self.cfg.batch_s or self.bounded:
            return []
        return [i for i, src in enumerate(self.topology.sources) if src.id not in self.file_input]

    def source_lead_s(self) -> float | None:
        """The lead the first rate source runs with (None before its first batch or without one)."""
        indices = self.rate_source_indices
        return source_lead(self.checkpoint, indices[0]) if indices else None

    def stop(self, wait_s: float = 30.0) -> None:
        """Stop just after a micro-batch ends when one does within ``wait_s`` (pass 0 when batches run back to back):
        interrupting a batch mid-way is safe — it is replayed on restart — but noisy in Spark's log."""
        for feeder in self.feeders:
            feeder.stop()
        if self.query is None:
            return
        deadline = time.monotonic() + wait_s
        # Stop right after a batch ends, not merely while none runs: polling "not active" can land a moment
        # before the next trigger fires, and a batch cut after its first stages leaves the operators' counters
        # out of step (an upstream stage counted, its downstream not). Waiting for an active batch to finish
        # leaves almost a whole trigger interval for the stop to take effect.
        while self.query.isActive and not self._trigger_active() and time.monotonic() < deadline:
            time.sleep(0.02)
        while self.query.isActive and self._trigger_active() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.query.stop()

    def _trigger_active(self) -> bool:
        return bool(self.query is not None and self.query.status.get("isTriggerActive"))


class LocalPipeline(Pipeline):
    """The local runtime: every operator's tasks wherever Spark runs them (``local[n]``, or a cluster's executors
    without a plan's placement); a lone rate source's first chain runs inside the query's own plan."""

    def _fusion_layout(self) -> Mapping[str, Mapping[str, int]]:
        return {op_id: {"local": n} for op_id, n in self.parallelism.items()}

    def _streamed_chain(self) -> tuple[str, ...] | None:
        """The first chain of a lone rate source. Spark then analyses its ``mapInArrow`` once, when the query
        starts, instead of in every batch (~30 ms a batch here: benchmarks/batch_cost.py); its tasks read the batch
        id from the local property Spark sets for each micro-batch. Several sources or a file source need a
        projection first: None there."""
        if len(self.topology.sources) != 1:
            return None
        src = self.topology.sources[0]
        if src.id in self.file_input or self.inputs[src.id] != BASE_COLUMNS:
            return None
        return next(c for c in self.chains if c[0] == src.id)

    def _source_partitions(self, src_id: str) -> int:
        return self.parallelism[src_id]

    def run_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Every chain on this micro-batch, each operator in its planned parallelism of tasks."""
        frames: dict[str, DataFrame] = {}
        cached: list[DataFrame] = []
        several = len(self.topology.sources) > 1
        for chain in self.chains:
            op = self.topology.op(chain[-1])  # the chain's output is its last operator's
            if chain == self.streamed:
                frame = batch  # the query's plan ran it (source_frame)
            else:
                first = self.topology.op(chain[0])
                if first.is_source:
                    x = self._source_rows(batch, first.id, several)
                    if first.id in self.file_input and self.parallelism[first.id] > 1:
                        x = x.repartition(self.parallelism[first.id])
                else:
                    inputs = [(s, frames[s.source]) for s in self.topology.streams
                              if s.target == first.id and s.source in frames]
                    x = self._partition(inputs, first.id)
                frame = x.mapInArrow(self._chain_mapper(chain, batch_id, sink=self._direct_sink(op.id)),
                                     self._schema(op.id))
            frames[op.id] = self._kept(frame, op.id, batch_id, cached)
        self._finish_batch(frames, cached, batch_id)

    def _partition(self, inputs: list[tuple[Stream, DataFrame]], op_id: str) -> DataFrame:
        """The union of an operator's inputs, spread over its n tasks as each stream's grouping says."""
        n = self.parallelism[op_id]
        names = [c for c, _ in self.inputs[op_id]]
        groupings = {(s.grouping, s.key or "key" if s.grouping == "key" else None) for s, _ in inputs}

        def union(frames: list[DataFrame]) -> DataFrame:
            out = reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), frames)
            return out.select(*names, *[c for c in out.columns if c == "_p"])

        if groupings == {("shuffle", None)}:  # spread by a hash of the unique tuple id: even, and deterministic
            return union([f for _, f in inputs]).repartition(n, F.col("value"))  # on replay (no sort needed)
        if len(groupings) == 1 and (only := next(iter(groupings)))[0] == "key" and only[1] is not None:
            return union([f for _, f in inputs]).repartition(n, F.col(only[1]))
        routed = []
        for s, f in inputs:
            if s.grouping == "all":
                # one copy per task, made in the same stage (a cross join with a small frame plans a cartesian
                # product, which recomputes the upstream operator once per partition of that frame)
                copies = F.array(*[F.lit(v).cast("int") for v in self._target_values(n)])
                routed.append(f.withColumn("_p", F.explode(copies)))
            elif s.grouping == "key":
                routed.append(f.withColumn("_p", F.hash(F.col(s.key or "key"))))
            else:
                routed.append(f.withColumn("_p", F.hash(F.col("value"))))
        return union(routed).repartition(n, F.col("_p")).drop("_p")


def _warm_python_worker(batches: Iterator[Any]) -> Iterator[Any]:
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401

    yield from batches  # the worker imported this module to run it, and operators.py with it


def _run_job(frame: DataFrame) -> None:
    """Run ``frame``'s stages and drop the rows (the noop sink; tasks that write their own output)."""
    frame.write.format("noop").mode("overwrite").save()


def _columns_of(batches: Any, names: list[str]) -> Any:
    """The Arrow batches with exactly ``names`` as columns (zero-copy; as they come when they already have)."""
    for b in batches:
        yield b if b.schema.names == names else b.select(names)


@dataclass(frozen=True)
class PlacedOperator:
    """An operator's replicas on a standalone cluster: ``nodes[l]`` is replica l's planned node (task l of its
    stage), ``tasks`` its task for each node of the cluster, emulating that node's speed-up."""

    nodes: tuple[str, ...]
    tasks: dict[str, OperatorTask]

    def pick(self, partition: int) -> OperatorTask:
        """The task for the node this process runs on (its worker's NODE_ENV), else for replica ``partition``'s
        planned node (a process outside an emulated cluster's workers)."""
        here = os.environ.get(NODE_ENV)
        return self.tasks[here] if here in self.tasks else self.tasks[self.nodes[partition % len(self.nodes)]]


def _run_chain(steps: tuple[tuple[OperatorTask | PlacedOperator, tuple[str, ...]], ...], stats: Any,
               batch_id: int | None, sink: ParquetParts | None, batches: Any) -> Any:
    """Fused operators in one task: each takes the previous one's output batches, on the columns it reads; with
    ``sink`` the task writes the last one's output as its replica's Parquet file. ``batch_id`` None: the task's
    micro-batch id, which Spark's streaming engine sets as a local property of every job of the batch. A placed
    operator runs its task for the node this task runs on."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    partition = ctx.partitionId() if ctx is not None else 0
    tasks = tuple((t.pick(partition) if isinstance(t, PlacedOperator) else t, names) for t, names in steps)
    wait_ms = tasks[0][0].fetch_wait_ms if tasks else 0.0
    if wait_ms > 0:  # the emulated link: this task's shuffle input crossed it (PipelineConfig.link_latency_ms)
        time.sleep(wait_ms / 1000.0)
    if batch_id is None:
        value = ctx.getLocalProperty(BATCH_ID_PROPERTY) if ctx is not None else None
        if value is None:
            raise RuntimeError(f"a streamed chain ran outside a micro-batch (no {BATCH_ID_PROPERTY} property)")
        batch_id = int(value)
    for task, names in tasks:  # each on its own columns (a placed stage's input also carries its routing column)
        batches = _columns_of(batches, list(names))
        batches = task(batches, stats, batch_id)
    if sink is None:
        return batches
    return sink.write(batches, partition, batch_id)
