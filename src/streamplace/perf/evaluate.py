"""Evaluate a plan: everything the model predicts, in one call.

Cost: O(cells + E log E + nodes + racks) time and memory with numpy doing the per-element work, for the E
(stream, node) entries of the streams' two ends (network.stream_shares; Σ over streams of the nodes its producer
and consumer run on) and one :func:`network.pair_sums` per stream. No array of operators × nodes or streams ×
nodes is built: costs are looked up per cell (cells.cell_costs), the instance paths walk each operator's nodes
(latency.links_ms_of), so a cluster of 100,000 nodes adds O(nodes) to a plan's evaluation, not O(operators ·
nodes) (issue 56; tests/test_evaluate_scale.py). A plan of 10,000 replicas on 1,000 nodes evaluates in a few tens
of milliseconds (benchmarks/evaluate_speed.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.capacity import ScaleLimit, node_loads, sustainable_scale
from streamplace.perf.cells import Cells, compile_cells, type_costs
from streamplace.perf.engines import (
    EngineFigures,
    EngineInputs,
    EngineModel,
    EngineSettings,
    IdealEngine,
    engine_or_ideal,
)
from streamplace.perf.latency import links_ms_of, path_latency
from streamplace.perf.network import StreamMetrics, stream_metrics, supports
from streamplace.perf.rates import OperatorRates, operator_rates
from streamplace.perf.score import LatencyScore, latency_score
from streamplace.perf.weighted import weighted_utilization


@dataclass(frozen=True)
class Evaluation:
    """What the model predicts for a plan at its source rates (scale 1) and at its limit."""

    sustainable_scale: float
    bottleneck: str
    throughput: float  # sink input rate at the sustainable scale (docs/architecture.md)
    offered_throughput: float  # sink input rate at the plan's source rates
    delivered_throughput: float  # sink input rate at min(1, sustainable scale)
    latency_ms: float  # worst path, worst replica and worst node pair (ODRP), at the source rates
    latency_mean_ms: float  # same path with rate-weighted means
    cpu_utilization: np.ndarray  # per node, at the source rates
    memory_mb: np.ndarray  # per node
    nodes_used: tuple[int, ...]
    availability: float
    log_availability: float
    cost: float  # ODRP Eq. 12: unit cost per replica + transfer cost per second
    cost_per_hour: float  # leasing cost of the nodes used
    inter_node_traffic: float  # ODRP T, bytes/s
    network_usage: float  # ODRP N, bytes/s · ms
    elastic_energy: float  # ODRP EE, bytes/s · ms²
    memory_violations: tuple[int, ...]
    score: LatencyScore
    weighted_utilization: float  # Nasiri et al. 2023 Eq. 7 at the sustainable scale
    engine: str = IdealEngine.name  # the name of the engine the throughput, latency and CPU figures are for
    engine_detail: dict[str, Any] = field(default_factory=dict)
    cluster: Cluster = field(repr=False, default=None)  # type: ignore[assignment]
    rates: OperatorRates = field(repr=False, default=None)  # type: ignore[assignment]
    streams: StreamMetrics = field(repr=False, default=None)  # type: ignore[assignment]
    cells: Cells = field(repr=False, default=None)  # type: ignore[assignment]

    @property
    def max_utilization(self) -> float:
        used = list(self.nodes_used)
        return float(self.cpu_utilization[used].max()) if used else 0.0

    @property
    def mean_utilization(self) -> float:
        used = list(self.nodes_used)
        return float(self.cpu_utilization[used].mean()) if used else 0.0

    def zero_reasons(self) -> list[str]:
        """Why no rate is sustainable, when none is: the nodes whose replicas' fixed overheads (MET) alone take
        more than the CPU the node may use. Empty when the plan sustains some rate (or no cell data)."""
        if self.sustainable_scale > 0 or self.cells is None or self.cluster is None:
            return []
        fixed = np.bincount(self.cells.node, weights=self.cells.cpu_fixed, minlength=self.cells.n_nodes)
        limit = self.cluster.cpu * self.cluster.utilization_limit
        return [f"the replicas' fixed overheads (MET) on {self.cluster.ids[u]} take {fixed[u]:,.0f} CPU points of "
                f"the {limit[u]:,.0f} it may use, so it sustains no rate at all (fix: fewer replicas there, "
                f"lower overheads, or a larger node)" for u in np.flatnonzero(fixed > limit + 1e-9)]

    def memory_notes(self) -> list[str]:
        """The nodes whose replicas need more memory than the node has: the plan could not start there (the
        predictions assume it does)."""
        if self.cluster is None:
            return []
        return [f"the replicas on {self.cluster.ids[u]} need {self.memory_mb[u]:,.0f} MB of memory; it has "
                f"{self.cluster.memory[u]:,.0f} MB, so the plan would not start there (fix: move replicas off it, "
                f"or plan again)" for u in self.memory_violations]

    def utilization_by_node(self) -> dict[str, float]:
        ids = self.cluster.ids
        return {ids[u]: round(float(self.cpu_utilization[u]), 6) for u in self.nodes_used}

    def predicted(self) -> dict[str, Any]:
        """The ``predicted`` block of the plan JSON."""
        return {
            "engine": self.engine,
            "sustainable_scale": _r(self.sustainable_scale),
            "bottleneck": self.bottleneck,
            "throughput": _r(self.throughput),
            "offered_throughput": _r(self.offered_throughput),
            "delivered_throughput": _r(self.delivered_throughput),
            "latency_ms": _r(self.latency_ms),
            "latency_mean_ms": _r(self.latency_mean_ms),
            "utilization": self.utilization_by_node(),
            "max_utilization": _r(self.max_utilization),
            "mean_utilization": _r(self.mean_utilization),
            "weighted_utilization": _r(self.weighted_utilization),
            "nodes_used": len(self.nodes_used),
            "availability": _r(self.availability),
            "cost": _r(self.cost),
            "cost_per_hour": _r(self.cost_per_hour),
            "inter_node_traffic": _r(self.inter_node_traffic),
            "network_usage": _r(self.network_usage),
            "elastic_energy": _r(self.elastic_energy),
            "latency_score": {k: _r(v) for k, v in self.score.as_dict().items()},
        } | ({"engine_detail": _clean(self.engine_detail)} if self.engine_detail else {})


def _r(x: float) -> float:
    return float(x) if not np.isfinite(x) else round(float(x), 6)


def _clean(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _r(v) if isinstance(v, float) else (_clean(v) if isinstance(v, Mapping) else v) for k, v in d.items()}


def _plan_inputs(plan: Plan | Mapping[str, Mapping[str, int]], source_rates: Mapping[str, float] | None,
                 split: str | None) -> tuple[Mapping[str, Mapping[str, int]], Mapping[str, float] | None, str]:
    """The replicas, source rates and split that evaluate() works from: a Plan's own where the caller gave none
    (a bare mapping has none), the even split by default."""
    if isinstance(plan, Plan):
        source_rates = source_rates if source_rates is not None else (plan.source_rates or None)
        return plan.replicas, source_rates, split or plan.split or "even"
    return plan, source_rates, split or "even"


def _ecker_score(topology: Topology, cluster: Cluster, cells: Cells, streams: StreamMetrics, cpu_util: np.ndarray,
                 memory: np.ndarray, n_used: int, utilization_limit: float) -> LatencyScore:
    """Ecker et al.'s latency score of the placement (latency_score): s_lat over instance paths, the nodes used,
    locality and the utilizations."""
    idx = topology.index
    edges = np.array([cells.parallelism[idx[s.source]] * cells.parallelism[idx[s.target]] for s in topology.streams],
                     dtype=float)
    s_lat = links_ms_of(topology, cluster, cells.nodes_by_op())  # Ecker et al.'s s_lat, over instance paths
    return latency_score(s_lat, n_used, len(cluster), streams.local_fraction, streams.tuples, cpu_util, memory,
                         cluster.memory, utilization_limit, edges=edges)


def evaluate(
    topology: Topology,
    cluster: Cluster,
    plan: Plan | Mapping[str, Mapping[str, int]],
    profile: Profile | None = None,
    *,
    source_rates: Mapping[str, float] | None = None,
    split: str | None = None,
    utilization_limit: float | None = None,
    score_utilization_limit: float = 0.95,
    rates: OperatorRates | None = None,
    tables: tuple[np.ndarray, np.ndarray] | None = None,
    engine: EngineSettings | None = None,
) -> Evaluation:
    """Predict throughput, latency, utilization, availability, cost and network load of a plan.

    ``plan`` may be a :class:`Plan` (its source rates and split are used) or a
    bare ``{operator: {node: count}}`` mapping. ``engine`` chooses whose throughput,
    latency and CPU figures these are (perf/engines); None is the ``ideal`` base model.
    """
    replicas, source_rates, split = _plan_inputs(plan, source_rates, split)
    rates = rates if rates is not None else operator_rates(topology, profile, source_rates)
    cells = compile_cells(topology, cluster, replicas, rates, profile, split, tables)
    memory_per_op = np.array([op.memory_mb for op in topology.operators], dtype=float)
    loads = node_loads(cells, memory_per_op)
    supp = supports(cells)
    streams = stream_metrics(topology, cluster, cells, rates, supp)
    eng = engine_or_ideal(engine)
    model, settings = eng.model, eng.settings
    sink_idx = [topology.index[op.id] for op in topology.sinks]
    offered = float(rates.input[sink_idx].sum()) if sink_idx else 0.0
    inputs = EngineInputs(topology, cluster, cells, rates, streams, offered)
    loads, detail = model.node_loads(settings, inputs, loads)
    limit = sustainable_scale(cells, loads, cluster, streams.node_traffic, utilization_limit,
                              model.replica_cap(settings), streams.rack_traffic)
    used_mask = np.bincount(cells.node, weights=cells.count, minlength=len(cluster)) > 0
    used = tuple(int(u) for u in np.flatnonzero(used_mask))
    paths = path_latency(topology, cells, streams.worst_latency_ms, streams.mean_latency_ms)
    figures = model.revise(settings, inputs, EngineFigures(limit, paths.worst_ms, paths.mean_ms,
                                                            loads.cpu_at(1.0) / cluster.cpu, detail))
    limit, cpu_util = figures.limit, figures.cpu_util
    throughput = offered * limit.scale if offered > 0 else 0.0
    delivered = offered * min(1.0, limit.scale)
    log_av = float(np.log(cluster.node_availability[used_mask]).sum())
    log_av += streams.link_log_availability
    unit_cost = np.array([op.unit_cost for op in topology.operators], dtype=float)
    deploy_cost = float((unit_cost * cells.parallelism).sum())
    score = _ecker_score(topology, cluster, cells, streams, cpu_util, loads.memory, len(used), score_utilization_limit)
    at_limit = limit.scale if np.isfinite(limit.scale) else 1.0
    util_at_limit = loads.cpu_at(at_limit) / cluster.cpu
    mem_viol = tuple(int(u) for u in np.flatnonzero(loads.memory > cluster.memory + 1e-9))
    return Evaluation(
        sustainable_scale=limit.scale,
        bottleneck=_describe(limit, topology, cluster, model),
        throughput=throughput,
        offered_throughput=offered,
        delivered_throughput=delivered,
        latency_ms=figures.latency_ms,
        latency_mean_ms=figures.latency_mean_ms,
        cpu_utilization=cpu_util,
        memory_mb=loads.memory,
        nodes_used=used,
        availability=float(np.exp(log_av)),
        log_availability=log_av,
        cost=deploy_cost + float(streams.transfer_cost.sum()),
        cost_per_hour=float(sum(cluster.nodes[u].cost_per_hour for u in used)),
        inter_node_traffic=float(streams.inter_node_bytes.sum()),
        network_usage=float(streams.network_usage.sum()),
        elastic_energy=float(streams.elastic_energy.sum()),
        memory_violations=mem_viol,
        score=score,
        weighted_utilization=(weighted_utilization(util_at_limit, tables[0], cluster) if tables is not None else
                              weighted_utilization(util_at_limit, type_costs(topology, cluster, profile), cluster,
                                                   by_type=True)),
        engine=eng.name,
        engine_detail=figures.detail,
        cluster=cluster,
        rates=rates,
        streams=streams,
        cells=cells,
    )


def _describe(limit: ScaleLimit, topology: Topology, cluster: Cluster, model: EngineModel) -> str:
    own = model.bottleneck(limit, topology, cluster)
    if own is not None:
        return own
    if limit.kind == "cpu" and limit.node is not None:
        return f"cpu of node {cluster.nodes[limit.node].id}"
    if limit.kind == "thread" and limit.op is not None and limit.node is not None:
        return (f"one-thread cap of a replica of {topology.operators[limit.op].id} "
                f"on {cluster.nodes[limit.node].id}")
    if limit.kind == "bandwidth" and limit.node is not None:
        return f"network bandwidth of node {cluster.nodes[limit.node].id}"
    if limit.kind == "rack uplink" and limit.rack is not None:
        return f"uplink of rack {cluster.racks[limit.rack]} to the other racks"
    return "none (no CPU-consuming operator)"
