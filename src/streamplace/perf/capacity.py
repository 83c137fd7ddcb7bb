"""CPU, memory and bandwidth per node, and the closed-form sustainable scale.

Every load in the model is affine in a common scale factor s of the source
rates: node CPU(s) = s·A_u + B_u, a replica's thread use s·a_c + MET_c,
NIC traffic s·T_u, rack uplink traffic s·R_r. The largest s that keeps every
node under its limit, every replica under one thread (100 points, where the
engine's ``replica_cap`` is ``thread``; Nasiri et al.'s own model, the ideal
default, caps only the machine) and every NIC and rack uplink under its
bandwidth is therefore a minimum of per-constraint ratios, computed in
O(cells + nodes + racks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.perf.cells import Cells


@dataclass(frozen=True)
class NodeLoads:
    cpu_rate: np.ndarray  # A_u: CPU points per unit of scale
    cpu_fixed: np.ndarray  # B_u: MET points
    memory: np.ndarray  # MB

    def cpu_at(self, scale: float) -> np.ndarray:
        return self.cpu_rate * scale + self.cpu_fixed


def node_loads(cells: Cells, topology_memory: np.ndarray) -> NodeLoads:
    n = cells.n_nodes
    return NodeLoads(
        np.bincount(cells.node, weights=cells.cpu_per_rate, minlength=n),
        np.bincount(cells.node, weights=cells.cpu_fixed, minlength=n),
        np.bincount(cells.node, weights=cells.count * topology_memory[cells.op], minlength=n),
    )


@dataclass(frozen=True)
class ScaleLimit:
    """The sustainable scale and what binds it."""

    scale: float
    kind: str  # "cpu" | "thread" | "bandwidth" | "rack uplink" | "none", or an engine's own (spark, flow)
    node: int | None = None
    op: int | None = None
    rack: int | None = None


def sustainable_scale(
    cells: Cells,
    loads: NodeLoads,
    cluster: Cluster,
    traffic_per_node: np.ndarray | None = None,
    utilization_limit: float | None = None,
    replica_cap: str = "thread",
    traffic_per_rack: np.ndarray | None = None,
) -> ScaleLimit:
    """Largest common scale of the source rates that no node, thread (where ``replica_cap`` is ``thread``),
    NIC or rack uplink exceeds."""
    limit = cluster.utilization_limit if utilization_limit is None else utilization_limit
    best = ScaleLimit(np.inf, "none")
    budget = limit * cluster.cpu - loads.cpu_fixed
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        node_s = np.where(loads.cpu_rate > 0, budget / loads.cpu_rate, np.where(budget < 0, 0.0, np.inf))
    node_s = np.maximum(node_s, 0.0)
    if node_s.size:
        u = int(np.argmin(node_s))
        if node_s[u] < best.scale:
            best = ScaleLimit(float(node_s[u]), "cpu", node=u)
    per_thread = cells.rate * cells.e / 10.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        thread_s = np.where(per_thread > 0, (100.0 - cells.met) / per_thread, np.inf)
    if thread_s.size and replica_cap == "thread":
        c = int(np.argmin(thread_s))
        if thread_s[c] < best.scale:
            best = ScaleLimit(float(thread_s[c]), "thread", node=int(cells.node[c]), op=int(cells.op[c]))
    if traffic_per_node is not None:
        bw = bandwidth_scale(cluster, traffic_per_node, traffic_per_rack)
        if bw.scale < best.scale:
            best = bw
    return best


def bandwidth_scale(cluster: Cluster, traffic_per_node: np.ndarray,
                    traffic_per_rack: np.ndarray | None = None) -> ScaleLimit:
    """Largest scale no NIC and no rack uplink exceeds its bandwidth at (inf where none is declared)."""
    best = ScaleLimit(np.inf, "none")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bw_s = np.where(traffic_per_node > 0, cluster.bandwidth_bytes / traffic_per_node, np.inf)
        rack_s = (np.where(traffic_per_rack > 0, cluster.rack_uplink_bytes / traffic_per_rack, np.inf)
                  if traffic_per_rack is not None else np.zeros(0))
    if bw_s.size:
        u = int(np.argmin(bw_s))
        best = ScaleLimit(float(bw_s[u]), "bandwidth", node=u)
    if rack_s.size and float(rack_s.min()) < best.scale:
        r = int(np.argmin(rack_s))
        best = ScaleLimit(float(rack_s[r]), "rack uplink", rack=r)
    return best
