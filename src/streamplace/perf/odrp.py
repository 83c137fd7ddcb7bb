"""The QoS metrics of ODRP (Cardellini et al. 2017, Eq. 1–21) for one deployment.

A deployment gives every operator i a multiset U_i of nodes (here: replica
counts per node). With λ_i the operator's input rate, μ_i its service rate on
the reference processor (1000 / cost_ms), S_u a node's speed-up:

* operator latency R_{i,U} = max_{u∈U} R_i(λ_i/|U|)/S_u with the M/M/1
  R_i(x) = 1/(μ_i − x) (Eq. 1); cost C_{i,U} = |U|·C_i·Res_i (Eq. 2);
* stream (i, j): delay max_{u∈U, v∈V} d_uv (Eq. 4); between replicas on u and v
  flows λ_ij·U(u)·V(v)/(|U||V|) (Eq. 7, summed over multiplicities); its
  transfer cost, inter-node traffic T, network usage N and elastic energy EE
  weight that flow by C_uv, b_ij, b_ij·d_uv and b_ij·d_uv² over u ≠ v (Eq. 5,
  18–20);
* response time R: the worst source-to-sink path of operator latencies and
  stream delays (Eq. 8–11); cost C (Eq. 12–14); availability A: the product
  over used nodes and used links (Eq. 15, 16 in log form);
* the SAW utility F (Eq. 21) with normalization bounds.

These are the paper's own semantics (every stream split evenly, M/M/1 on the
reference processor divided by the speed-up), kept separate from the general
performance model so ODRP is reproduced exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx
import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.rates import operator_rates

Z_METRICS = ("T", "N", "EE")


@dataclass(frozen=True)
class Weights:
    """w_r, w_a, w_c, w_z ≥ 0 summing to 1, and which network metric Z is (T, N or EE)."""

    r: float = 0.25
    a: float = 0.25
    c: float = 0.25
    z: float = 0.25
    metric: str = "T"

    def __post_init__(self) -> None:
        values = {"r": self.r, "a": self.a, "c": self.c, "z": self.z}
        negative = [k for k, v in values.items() if v < 0]
        if negative:
            raise SchedulerParamError(f"ODRP weights must be >= 0; weights.{negative[0]} = {values[negative[0]]} "
                                      "(fix: use non-negative weights that sum to 1)")
        if abs(sum(values.values()) - 1.0) > 1e-6:
            raise SchedulerParamError(f"ODRP weights must sum to 1; w_r + w_a + w_c + w_z = {sum(values.values()):g} "
                                      "(fix: e.g. weights.r=0.25, weights.a=0.25, ... for all four)")
        if self.metric not in Z_METRICS:
            raise SchedulerParamError(f"ODRP network metric must be one of T, N, EE, got {self.metric!r}")


@dataclass(frozen=True)
class Bounds:
    """Normalization bounds of Eq. 21: response time in ms, availability as a probability, cost, Z."""

    r_min: float | None = None
    r_max: float | None = None
    a_min: float | None = None
    a_max: float | None = None
    c_min: float | None = None
    c_max: float | None = None
    z_min: float | None = None
    z_max: float | None = None

    def missing(self, w: Weights) -> list[str]:
        """The metrics with a positive weight that lack a bound (to be computed: schedulers/odrp.py)."""
        return [key for key, weight in (("r", w.r), ("a", w.a), ("c", w.c), ("z", w.z))
                if weight > 0 and (getattr(self, f"{key}_min") is None or getattr(self, f"{key}_max") is None)]

    def known(self, key: str) -> tuple[float, float]:
        """Metric ``key``'s (r, a, c or z) min and max bound, both known: given, or computed when planning."""
        lo, hi = getattr(self, f"{key}_min"), getattr(self, f"{key}_max")
        if lo is None or hi is None:
            raise ValueError(f"ODRP bounds.{key}_min and {key}_max are not both known")
        return lo, hi

    def check(self, w: Weights) -> None:
        """Every metric with a positive weight and both bounds given needs min < max (availability in (0, 1]);
        a missing bound is computed when planning."""
        for key, weight in (("r", w.r), ("a", w.a), ("c", w.c), ("z", w.z)):
            if weight <= 0:
                continue
            lo, hi = getattr(self, f"{key}_min"), getattr(self, f"{key}_max")
            if lo is None or hi is None:
                continue
            if not hi > lo:
                raise SchedulerParamError(f"ODRP bounds.{key}_max ({hi:g}) must exceed bounds.{key}_min ({lo:g})")
            if key == "a" and not 0 < lo <= 1 >= hi:
                raise SchedulerParamError("ODRP availability bounds must lie in (0, 1] (e.g. a_min=0.95, a_max=1)")


#: Cardellini et al. 2017 Table 2 (reference-data.md); Z is the inter-node traffic in tuples/s there.
DEBS2015_BOUNDS = Bounds(r_min=5.0, r_max=450.0, a_min=0.95, a_max=1.0, c_min=8.0, c_max=18.0, z_min=0.0,
                         z_max=3400.0)


@dataclass(frozen=True)
class OdrpInstance:
    """Plan-independent data of an ODRP instance (arrays indexed by operator, node and stream)."""

    lam: np.ndarray  # operator input rates (tuples/s)
    mu: np.ndarray  # service rates on the reference processor (tuples/s; inf when cost is 0)
    unit_cost: np.ndarray  # C_i · Res_i per replica
    res: np.ndarray  # Res_i
    capacity: np.ndarray  # Res_u
    speedup: np.ndarray
    node_log_av: np.ndarray
    link_log_av: np.ndarray
    delay: np.ndarray  # d_uv in ms
    link_cost: np.ndarray  # per MB
    src: np.ndarray
    tgt: np.ndarray
    stream_rate: np.ndarray
    stream_bytes: np.ndarray
    sources: np.ndarray
    sinks: np.ndarray
    order: tuple[int, ...]  # a topological order (back edges ignored)
    forward: tuple[bool, ...]  # per stream: part of the DAG used for paths
    reach: np.ndarray  # reach[i, j]: j is downstream of (or is) i along forward streams
    memory: np.ndarray  # MB per replica: a hard limit per node beside Res_u (the paper's model has no memory)
    mem_cap: np.ndarray  # MB per node

    @classmethod
    def build(cls, topology: Topology, cluster: Cluster, profile: Profile | None = None,
              capacity: str = "slots", executors_per_slot: int = 4,
              source_rates: Mapping[str, float] | None = None,
              operator_rates_override: Mapping[str, float] | None = None) -> OdrpInstance:
        rates = operator_rates(topology, profile, source_rates)
        lam = rates.input.copy()
        stream_rate = rates.stream.copy()
        idx = topology.index
        src = np.array([idx[s.source] for s in topology.streams], dtype=np.intp)
        if operator_rates_override:  # measured input rates: every stream then carries α × its source's rate
            for op, value in operator_rates_override.items():
                lam[idx[op]] = float(value)
            stream_rate = rates.selectivity[src] * lam[src]
        cost = np.array([op.cost_ms for op in topology.operators], dtype=float)
        with np.errstate(divide="ignore"):
            mu = np.where(cost > 0, 1000.0 / np.where(cost > 0, cost, 1.0), np.inf)
        if capacity == "cpu":
            res = np.array([op.cpu for op in topology.operators], dtype=float)
            cap = cluster.cpu.astype(float)
        else:
            res = np.ones(len(topology.operators))
            cap = np.array([n.slots * executors_per_slot for n in cluster.nodes], dtype=float)
        tgt = np.array([idx[s.target] for s in topology.streams], dtype=np.intp)
        stream_bytes = np.array(
            [s.bytes_per_tuple if s.bytes_per_tuple is not None else topology.operators[idx[s.source]].bytes_per_tuple
             for s in topology.streams], dtype=float)
        forward_graph = topology.forward_graph
        reach = np.eye(len(topology.operators), dtype=bool)
        for op_id in topology.ids:  # along forward streams only, as the response time is (back edges ignored)
            for down in nx.descendants(forward_graph, op_id):
                reach[idx[op_id], idx[down]] = True
        return cls(
            lam=lam, mu=mu, unit_cost=np.array([op.unit_cost for op in topology.operators], dtype=float) * res,
            res=res, capacity=cap, speedup=cluster.speedup.astype(float),
            node_log_av=np.log(cluster.node_availability), link_log_av=np.log(cluster.link_availability),
            delay=np.asarray(cluster.latency, dtype=float), link_cost=np.asarray(cluster.link_cost_per_mb, dtype=float),
            src=src, tgt=tgt, stream_rate=stream_rate, stream_bytes=stream_bytes,
            sources=np.array([idx[o.id] for o in topology.sources], dtype=np.intp),
            sinks=np.array([idx[o.id] for o in topology.sinks], dtype=np.intp),
            order=tuple(idx[o] for o in topology.acyclic_order),
            forward=tuple(forward_graph.has_edge(s.source, s.target) for s in topology.streams),
            reach=reach, memory=np.array([op.memory_mb for op in topology.operators], dtype=float),
            mem_cap=cluster.memory.astype(float),
        )

    def latency_ms(self, i: int, n: int, u: int) -> float:
        """R_i(λ_i/n)/S_u in ms (Eq. 1); inf when a replica would be unstable (λ_i/n ≥ μ_i)."""
        if not np.isfinite(self.mu[i]):
            return 0.0
        x = self.lam[i] / n
        if x >= self.mu[i]:
            return math.inf
        return 1000.0 / ((self.mu[i] - x) * self.speedup[u])


@dataclass(frozen=True)
class OdrpQoS:
    response_ms: float
    cost: float
    log_availability: float
    T: float
    N: float
    EE: float

    @property
    def availability(self) -> float:
        return math.exp(self.log_availability)

    def z(self, metric: str) -> float:
        return {"T": self.T, "N": self.N, "EE": self.EE}[metric]

    def utility(self, w: Weights, b: Bounds) -> float:
        """F of Eq. 21 (the terms with zero weight are skipped, so their bounds may be absent)."""
        f = 0.0
        if w.r:
            f += w.r * (b.r_max - self.response_ms) / (b.r_max - b.r_min)  # type: ignore[operator]
        if w.a:
            f += w.a * (self.log_availability - math.log(b.a_min)) / (math.log(b.a_max) - math.log(b.a_min))  # type: ignore[arg-type]
        if w.c:
            f += w.c * (b.c_max - self.cost) / (b.c_max - b.c_min)  # type: ignore[operator]
        if w.z:
            f += w.z * (b.z_max - self.z(w.metric)) / (b.z_max - b.z_min)  # type: ignore[operator]
        return f

    def as_dict(self) -> dict[str, float]:
        return {"response_ms": self.response_ms, "cost": self.cost, "availability": self.availability,
                "inter_node_traffic": self.T, "network_usage": self.N, "elastic_energy": self.EE}


def odrp_qos(inst: OdrpInstance, counts: np.ndarray, z_in_tuples: bool = True) -> OdrpQoS:
    """All ODRP metrics of a deployment given as replica counts (operators × nodes).

    ``z_in_tuples``: T, N and EE count tuples (b = 1) as in the paper's Table 2 (Z_max = 3400 tuples/s);
    False weights them by the streams' bytes per tuple.
    """
    n = counts.sum(axis=1)
    n_ops = counts.shape[0]
    op_lat = np.zeros(n_ops)
    for i in range(n_ops):
        nodes = np.flatnonzero(counts[i])
        op_lat[i] = max(inst.latency_ms(i, int(n[i]), int(u)) for u in nodes)
    share = counts / n[:, None]
    used = counts > 0
    delays = np.zeros(len(inst.src))
    transfer = t_sum = n_sum = ee_sum = 0.0
    links_used = np.zeros_like(inst.delay, dtype=bool)
    off = ~np.eye(counts.shape[1], dtype=bool)
    for k, (i, j) in enumerate(zip(inst.src, inst.tgt, strict=True)):
        pairs = np.outer(used[i], used[j])
        delays[k] = float(inst.delay[pairs].max())
        links_used |= pairs & off
        flow = inst.stream_rate[k] * np.outer(share[i], share[j])
        b = 1.0 if z_in_tuples else inst.stream_bytes[k]
        t_sum += b * float((flow * off).sum())
        n_sum += b * float((flow * inst.delay * off).sum())
        ee_sum += b * float((flow * inst.delay ** 2 * off).sum())
        transfer += inst.stream_bytes[k] / 1e6 * float((flow * inst.link_cost).sum())
    finish = np.full(n_ops, -np.inf)
    for i in inst.sources:
        finish[i] = op_lat[i]
    incoming: dict[int, list[int]] = {}
    for k, j in enumerate(inst.tgt):
        if inst.forward[k]:
            incoming.setdefault(int(j), []).append(k)
    for j in inst.order:
        for k in incoming.get(j, ()):
            i = inst.src[k]
            finish[j] = max(finish[j], finish[i] + delays[k] + op_lat[j])
    response = float(max(finish[s] for s in inst.sinks)) if len(inst.sinks) else float(finish.max())
    cost = float((inst.unit_cost * n).sum()) + transfer
    log_av = float(inst.node_log_av[used.any(axis=0)].sum()) + float(inst.link_log_av[links_used].sum())
    return OdrpQoS(response, cost, log_av, t_sum, n_sum, ee_sum)
