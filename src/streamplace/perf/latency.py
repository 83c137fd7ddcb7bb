"""End-to-end latency: M/M/1 per replica plus link latency (docs/architecture.md; ODRP Eq. 1, 8–11).

Each replica of i on u is an M/M/1 queue with service rate μ = 1000/e_iu
tuples/s and arrival rate r, so its response time is 1/(μ − r) (infinite when
r ≥ μ). The application latency is the longest source-to-sink path with, per
operator, its worst replica and, per stream, its worst node pair (ODRP); the
same path computed with rate-weighted means is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.topology import Topology
from streamplace.perf.cells import Cells


def replica_response_ms(cells: Cells, scale: float = 1.0) -> np.ndarray:
    """M/M/1 response time per cell in ms at the given scale of the source rates."""
    r = cells.rate * scale
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mu = np.where(cells.e > 0, 1000.0 / np.where(cells.e > 0, cells.e, 1.0), np.inf)
        resp = np.where(cells.e > 0, np.where(r < mu, 1000.0 / (mu - r), np.inf), 0.0)
    return resp


@dataclass(frozen=True)
class PathLatency:
    worst_ms: float
    mean_ms: float
    links_only_ms: float  # the latency-aware paper's s_lat: link latency accumulated on the worst path


def operator_latencies(cells: Cells, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(worst replica, rate-weighted mean) response time per operator in ms."""
    resp = replica_response_ms(cells, scale)
    worst = np.zeros(cells.n_ops)
    if resp.size:
        np.maximum.at(worst, cells.op, resp)
    weight = cells.count * np.maximum(cells.rate, 1e-300)
    with np.errstate(invalid="ignore"):
        total = np.bincount(cells.op, weights=weight, minlength=cells.n_ops)
        weighted = np.bincount(cells.op, weights=np.where(np.isfinite(resp), resp * weight, 0.0),
                               minlength=cells.n_ops)
    inf_ops = np.zeros(cells.n_ops, dtype=bool)
    if resp.size:
        np.logical_or.at(inf_ops, cells.op, ~np.isfinite(resp))
    mean = np.divide(weighted, total, out=np.zeros_like(weighted), where=total > 0)
    mean[inf_ops] = np.inf
    return worst, mean


def longest_paths(topology: Topology, node_weight: np.ndarray, edge_weight: np.ndarray) -> float:
    """Longest source-to-sink path; on cyclic graphs, DFS back edges are ignored."""
    idx = topology.index
    dist = np.full(len(topology.operators), -np.inf)
    for op in topology.sources:
        dist[idx[op.id]] = node_weight[idx[op.id]]
    best_edge: dict[tuple[int, int], float] = {}
    forward = topology.forward_graph
    for k, s in enumerate(topology.streams):
        if forward.has_edge(s.source, s.target):
            key = (idx[s.source], idx[s.target])
            best_edge[key] = max(best_edge.get(key, -np.inf), float(edge_weight[k]))
    succ: dict[int, list[tuple[int, float]]] = {}
    for (a, b), w in best_edge.items():
        succ.setdefault(a, []).append((b, w))
    for op_id in topology.acyclic_order:
        a = idx[op_id]
        if dist[a] == -np.inf:
            continue
        for b, w in succ.get(a, ()):
            cand = dist[a] + w + node_weight[b]
            if cand > dist[b]:
                dist[b] = cand
    ends = [idx[op.id] for op in topology.sinks] or list(range(len(dist)))
    value = max(float(dist[i]) for i in ends)
    return 0.0 if value == -np.inf else value


def path_latency(topology: Topology, cells: Cells, stream_worst: np.ndarray, stream_mean: np.ndarray,
                 scale: float = 1.0) -> PathLatency:
    worst_op, mean_op = operator_latencies(cells, scale)
    return PathLatency(
        longest_paths(topology, worst_op, stream_worst),
        longest_paths(topology, mean_op, stream_mean),
        longest_paths(topology, np.zeros(len(topology.operators)), stream_worst),
    )
