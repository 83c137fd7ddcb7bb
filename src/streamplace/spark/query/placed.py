"""The placed runtime: a plan's replicas on a standalone cluster's workers, each where the plan puts it.

Each operator (or fused chain) is one stage whose task l runs replica l. With placement "plan" task l prefers the
host of replica l's planned node (LocatedRDD, locality.py) and waits for it; with "spark" Spark's scheduler sends
it anywhere (the baseline every Spark user has). A task emulates the speed of the node it runs on (its worker's
NODE_ENV), and waits the longest emulated link latency from the nodes that feed it. Every chain reads one routed
exchange over the union of its inputs (row r in partition l when replica l is to take it), and the plan is cut
there. The driver plans each chain's exchange and stage once (a template, jvm/ChainTemplate.java) and per batch
only puts the batch's rows in: O(chains + streams) Py4J calls per batch, no planning, not O(nodes).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from functools import reduce
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from streamplace.errors import Problem, SpecError
from streamplace.model.layout import WorkerLayout, branches, check_enactable
from streamplace.model.plan import Plan
from streamplace.model.topology import Stream, Topology
from streamplace.spark.query.locality import executor_hosts, java_locations, locate, set_locality
from streamplace.spark.query.operators import OperatorTask
from streamplace.spark.query.pipeline import (
    BATCH_ID_PROPERTY,
    EXECUTOR_START_TIMEOUT_S,
    Pipeline,
    PipelineConfig,
    PlacedOperator,
    _warm_python_worker,
)


class PlacedPipeline(Pipeline):
    """A topology and plan on a standalone cluster's workers (``cfg.workers``), every replica placed (see the
    module's docstring)."""

    def __init__(self, spark: SparkSession, topology: Topology, plan: Plan, cfg: PipelineConfig) -> None:
        if cfg.workers is None:
            raise ValueError("PlacedPipeline: cfg.workers must list the cluster's workers (layout.py)")
        super().__init__(spark, topology, plan, cfg)
        #: per operator, its replicas' nodes and a task per node
        self.placed: dict[str, PlacedOperator] = {}
        #: placed by the plan: per operator, the JVM array of each replica's host that LocatedRDD takes (made once,
        #: reused by every batch: building it is a Py4J call per replica)
        self._locations: dict[str, Any] = {}
        #: per chain, its template (jvm/ChainTemplate.java): planned at the first batch, instantiated at every one
        self._templates: dict[tuple[str, ...], Any] = {}
        self._place(cfg.workers)

    def _fusion_layout(self) -> Mapping[str, Mapping[str, int]]:
        """Placed by the plan: operators fuse where their replicas per node are equal; under Spark's placement
        where their counts are."""
        if self.cfg.placement == "plan":
            return self.plan.replicas
        return {op_id: {"local": n} for op_id, n in self.parallelism.items()}

    def _streamed_chain(self) -> tuple[str, ...] | None:
        """None: each batch's rows are routed to their replicas first."""
        return None

    def _source_partitions(self, src_id: str) -> int:
        """One: the source's replicas read the batch through an exchange (_routed), so one partition, one task on
        any executor, reads it (a task per partition and node cost hetero-6 0.9 s a batch)."""
        return 1

    def _operator_task(self, op_id: str) -> OperatorTask | PlacedOperator:
        return self.placed[op_id]

    def _prepare_start(self) -> bool:
        set_locality(self.spark, self.cfg.placement)
        return self.start_executors()

    def _place(self, workers: list[WorkerLayout]) -> None:
        """Per operator, the node of each replica (global replica index, in the cluster's node order) and a task
        per node of the cluster that emulates that node's speed (under Spark's placement a replica may run on
        any node; a task emulates the node it finds itself on)."""
        check_enactable(self.topology, self.plan, workers)
        nodes = {op.id: tuple(b.node for b in branches(self.plan, op.id, workers) for _ in range(b.count))
                 for op in self.topology.operators}
        spread = self.cfg.placement == "spark"
        for op in self.topology.operators:  # each node's task waits for its input as the plan's nodes send it
            tasks = {w.node: dataclasses.replace(self._task(op.id, w.speedup), node=w.node,
                                                 fetch_wait_ms=self._fetch_wait_ms(op.id, w.node, nodes, spread))
                     for w in workers}
            self.placed[op.id] = PlacedOperator(nodes[op.id], tasks)
        if not spread:  # every replica's host now: a node without one is refused before the query starts
            hosts = {w.node: w.host for w in workers if w.host}
            missing = sorted({n for per in nodes.values() for n in per} - set(hosts))
            if missing:
                raise SpecError([Problem(f"replicas.*.{missing[0]}", f"no worker's host is known for node(s) "
                                         f"{', '.join(missing)}", "start the cluster's worker for each "
                                         "(`streamplace cluster status` shows which are registered)")])
            self._locations = {op: java_locations(self.spark, [hosts[n] for n in per]) for op, per in nodes.items()}

    def run_batch(self, batch: DataFrame, batch_id: int) -> None:
        """Every replica where the placement puts it: one stage per operator (or fused chain), its
        task l running replica l, on replica l's planned node (placement "plan": the partition prefers that node's
        host, LocatedRDD) or wherever Spark's scheduler sends it ("spark")."""
        frames, cached = self.build_placed(batch, batch_id)
        self._finish_batch(frames, cached, batch_id)

    def build_placed(self, batch: DataFrame, batch_id: int) -> tuple[dict[str, DataFrame], list[DataFrame]]:
        """The DataFrames of one placed micro-batch — per operator read as a DataFrame (an output, one with dead
        letters or several consumers; every chain's at the first batch, whose templates take their schemas) its
        output — and the ones persisted (to unpersist after the batch). Nothing runs here except the dead-letter
        writes. Per chain the driver instantiates the chain's template (ChainTemplate, planned at the first batch:
        _template) on the batch's input rows: the routed exchange over the union of its inputs, cut at the stage
        (LocatedRDD) when placed by the plan, and the chain's tasks — no analysis, planning or code generation per
        batch, a few Py4J calls per chain and input; a chain that feeds one other chain only passes on its rows.
        The tasks read the batch id from the local property Spark sets on a micro-batch's jobs (set here too, for a
        build outside a streaming query)."""
        frames: dict[str, DataFrame] = {}
        rows: dict[str, Any] = {}  # per operator, the JVM RDD of its output as its consumers' templates read it
        cached: list[DataFrame] = []
        self.spark.sparkContext.setLocalProperty(BATCH_ID_PROPERTY, str(batch_id))
        templates = self._jvm().streamplace.ChainTemplate
        source_rows = None
        for chain in self.chains:
            first, op = self.topology.op(chain[0]), self.topology.op(chain[-1])
            template = self._templates.get(chain)
            if first.is_source:
                if source_rows is None:
                    source_rows = templates.rowsOf(batch._jdf)
                inputs = [source_rows]
                template = template or self._template(chain, [(None, batch)])
            else:
                streams = [s for s in self.topology.streams if s.target == first.id and s.source in rows]
                inputs = [rows[s.source] for s in streams]
                template = template or self._template(chain, [(s, frames[s.source]) for s in streams])
            out = template.instantiate(inputs, f"streamplace chain {op.id}")
            plain = not self.logic[op.id].dead_letter and self.consumers[op.id] == 1
            if plain and op.id not in self.outputs and len(self._templates) == len(self.chains):
                rows[op.id] = out  # feeds one chain only: no DataFrame (ChainTemplate.frame, an analysis each)
                continue
            frames[op.id] = self._kept(DataFrame(template.frame(), batch.sparkSession), op.id, batch_id, cached)
            if self.consumers[op.id]:  # persisted or filtered (_kept): read as its plan now reads it
                rows[op.id] = out if plain else templates.rowsOf(frames[op.id]._jdf)
        return frames, cached

    def _jvm(self) -> Any:
        jvm = self.spark.sparkContext._jvm
        assert jvm is not None, "the SparkContext has no JVM (stopped?)"
        return jvm

    def _template(self, chain: tuple[str, ...], ins: list[tuple[Stream | None, DataFrame]]) -> Any:
        """The chain's template (jvm/ChainTemplate.java), made from this batch's inputs ``ins`` and kept for every
        later batch: the routed exchange (_routed) over a placeholder of each input's schema, and the chain's
        mapInArrow over a placeholder of the exchange's rows, both planned once. The tasks take the batch id from
        Spark (BATCH_ID_PROPERTY), so the same tasks serve every batch."""
        templates = self._jvm().streamplace.ChainTemplate
        first, last = self.topology.op(chain[0]), chain[-1]
        slots = [(s, DataFrame(templates.placeholder(f._jdf, i), f.sparkSession)) for i, (s, f) in enumerate(ins)]
        if first.is_source:
            slots = [(None, self._source_rows(slots[0][1], first.id, len(self.topology.sources) > 1))]
        exchange = self._routed(slots, first.id)
        cut = DataFrame(templates.placeholder(exchange._jdf, 0), exchange.sparkSession)
        stage = cut.mapInArrow(self._chain_mapper(chain, None, sink=self._direct_sink(last)), self._schema(last))
        template = templates(exchange._jdf, stage._jdf, self._locations.get(first.id))
        self._templates[chain] = template
        return template

    def _routed(self, ins: list[tuple[Stream | None, DataFrame]], op_id: str) -> DataFrame:
        """An operator's input in n partitions, row r in partition l when replica l is to take it: ``_t`` is a hash
        target of l (chosen so Spark's hash partitioner lands it on partition l) for l = a hash of the tuple id
        (shuffle grouping, sources), of the key (key grouping: a key always meets the same replica), every l for
        ``all``. One exchange over the union of the inputs, each projected once to the operator's columns (missing
        ones null). ``_t`` stays for the task to drop (_run_chain reads its own columns). Built once per chain, on
        placeholders (_template)."""
        n = self.parallelism[op_id]
        targets = f"array({', '.join(str(t) for t in self._target_values(n))})"
        prepared = []
        for s, f in ins:
            present = set(f.columns)
            cols = [f"`{c}`" if c in present else f"CAST(NULL AS {t}) AS `{c}`" for c, t in self.inputs[op_id]]
            if s is not None and s.grouping == "all":
                cols.append(f"explode({targets}) AS _t")
            else:
                field = (s.key or "key") if s is not None and s.grouping == "key" else "value"
                cols.append(f"element_at({targets}, pmod(hash(`{field}`), {n}) + 1) AS _t")
            prepared.append(f.selectExpr(*cols))
        return reduce(lambda a, b: a.union(b), prepared).repartition(n, "_t")

    def _fetch_wait_ms(self, op_id: str, node: str, nodes: dict[str, tuple[str, ...]], anywhere: bool = False
                       ) -> float:
        """The longest one-way latency from a node holding an upstream replica of ``op_id`` (``nodes``: each
        operator's replicas' nodes) to ``node`` (0 for a source, or when every input is local or no latencies are
        emulated). ``anywhere``: upstream replicas may run on any node (Spark's own placement)."""
        links = self.cfg.link_latency_ms
        if not links or self.topology.op(op_id).is_source:
            return 0.0
        upstream = set(links) if anywhere else {
            u for p in self.topology.forward_graph.predecessors(op_id) for u in nodes[p]}
        return max((links.get(u, {}).get(node, 0.0) for u in upstream if u != node), default=0.0)

    def start_executors(self, timeout_s: float = EXECUTOR_START_TIMEOUT_S) -> bool:
        """Wait until every node the plan uses has an executor (the application gets one per worker when it
        starts), then run one task on each (its Python worker daemon starts with the imports and forks the others
        the batches need in ~40 ms each: worker_daemon.py) and compute the hash targets the stages need. True when
        all that finished within ``timeout_s``; else the batches start what is missing."""
        deadline = time.monotonic() + timeout_s
        used = {n for p in self.placed.values() for n in p.nodes}
        hosts = sorted({w.host for w in self.cfg.workers or [] if w.node in used})
        while self._locations and not set(hosts) <= executor_hosts(self.spark):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)
        for n in self._counts():
            self._target_values(n)
        frame = self.spark.range(len(hosts), numPartitions=len(hosts))  # a task per node: its Python workers
        if self._locations:
            frame = locate(frame, java_locations(self.spark, hosts))
        frame.mapInArrow(_warm_python_worker, "id long").collect()
        return time.monotonic() <= deadline

    def _counts(self) -> set[int]:
        """The replica counts of the placed operators (each needs its hash targets)."""
        return {len(p.nodes) for p in self.placed.values()}
