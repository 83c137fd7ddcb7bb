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
from streamplace.perf.cells import Cells, sorted_unique


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
    weighted, total = weighted.astype(float), total.astype(float)  # bincount of no cells is int64
    mean = np.divide(weighted, total, out=np.zeros(cells.n_ops), where=total > 0)
    mean[inf_ops] = np.inf
    return worst, mean


def longest_paths(topology: Topology, node_weight: np.ndarray, edge_weight: np.ndarray) -> float:
    """Longest source-to-sink path; on cyclic graphs, the streams pointing backwards in the topology's order are
    ignored. O(operators + streams)."""
    idx = topology.index
    dist = np.full(len(topology.operators), -np.inf)
    for op in topology.sources:
        dist[idx[op.id]] = node_weight[idx[op.id]]
    best_edge: dict[tuple[int, int], float] = {}
    forward = topology.forward_streams
    for k, s in enumerate(topology.streams):
        if forward[k]:
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


def forward_inputs(topology: Topology) -> list[tuple[int, np.ndarray]]:
    """Per operator in (cyclic-safe) topological order, the operators feeding it over forward streams (DFS back
    edges of a cyclic graph are left out, as for every path here): what ``instance_links_ms`` walks.
    O(operators + streams)."""
    idx = topology.index
    preds = topology.forward_predecessors
    out = []
    for op_id in topology.acyclic_order:
        ups = sorted(idx[p] for p in preds[op_id])
        if ups:
            out.append((idx[op_id], np.array(ups, dtype=np.intp)))
    return out


def instance_links_ms(present: np.ndarray, latency: np.ndarray, inputs: list[tuple[int, np.ndarray]],
                      sources: np.ndarray, sinks: np.ndarray) -> np.ndarray:
    """Ecker et al.'s (2025) s_lat for a batch of placements, over instance paths as the paper defines it: its
    operators are instances (replicas), s_lat(o) = max over predecessor instances p of s_lat(p) + l(p, o), 0 at
    a source, and s_lat(T) the largest over the sinks' instances. Replicas of one operator on one node share
    their value, so it is kept per (operator, node): D[j, v] = max over upstream i and nodes u holding i of
    D[i, u] + l(u, v), for the nodes v holding j. Taking each stream's worst node pair on top of the upstream
    operator's worst value instead (per operator) overstates it: src on A, x on A and B, sink on B is l(A, B),
    not 2·l(A, B). ``present`` (B, ops, nodes) bool; ``sinks`` empty: every operator ends a path.
    O(B · streams · nodes²)."""
    b, n_ops, _ = present.shape
    dist = np.full(present.shape, -np.inf)
    dist[:, sources, :] = np.where(present[:, sources, :], 0.0, -np.inf)
    for j, ups in inputs:
        reach = (dist[:, ups, :, None] + latency[None, None]).max(axis=(1, 2))  # (B, nodes): best over u and i
        dist[:, j, :] = np.where(present[:, j, :], np.maximum(dist[:, j, :], reach), -np.inf)
    ends = sinks if len(sinks) else np.arange(n_ops)
    out = dist[:, ends, :].reshape(b, -1).max(axis=1)
    return np.where(np.isfinite(out), out, 0.0)


def _top2(values: np.ndarray, keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per key k < size: the largest of ``values`` with that key, the index (into values) holding it, and the
    second largest (−inf where there is none)."""
    first = np.full(size, -np.inf)
    np.maximum.at(first, keys, values)
    at = np.full(size, -1, dtype=np.intp)
    hit = values >= first[keys]
    at[keys[hit][::-1]] = np.flatnonzero(hit)[::-1]  # the first index reaching the maximum
    rest = values.copy()
    rest[at[at >= 0]] = -np.inf
    second = np.full(size, -np.inf)
    np.maximum.at(second, keys, rest)
    return first, at, second


def _excluding(first: np.ndarray, owner: np.ndarray, second: np.ndarray, key: np.ndarray,
               me: np.ndarray) -> np.ndarray:
    """For each item with key ``key`` and identity ``me``: the largest value under that key held by another."""
    return np.where(owner[key] == me, second[key], first[key])


def reach_by_locality(cluster, u: np.ndarray, d: np.ndarray, v: np.ndarray) -> np.ndarray:
    """max over k of d[k] + latency(u[k], v[m]) for every target node v[m], with the cluster's default
    latencies by locality (no explicit pairs): O((|u| + |v|) · log) via the largest values per link group and
    zone, instead of the |u| × |v| block."""
    ln = cluster.links
    out = np.full(len(v), -np.inf)
    if not len(u):
        return out
    at_u = np.full(len(cluster), -1, dtype=np.intp)
    at_u[u] = np.arange(len(u))
    here = at_u[v] >= 0
    out[here] = d[at_u[v[here]]] + ln.same_node_ms
    group = cluster.link_group
    n_groups = int(group.max()) + 1
    g_first, g_at, g_second = _top2(d, group[u], n_groups)
    own = _excluding(g_first, np.where(g_at >= 0, u[np.maximum(g_at, 0)], -1), g_second, group[v], v)
    out = np.maximum(out, own + ln.same_rack_ms)  # other nodes of v's group
    groups = np.flatnonzero(np.isfinite(g_first))
    if ln.cross_zone_ms is None:  # every other group is cross_rack_ms away
        o_first, o_at, o_second = _top2(g_first[groups], np.zeros(len(groups), dtype=np.intp), 1)
        other = np.where(groups[o_at[0]] == group[v], o_second[0], o_first[0])
        return np.maximum(out, other + ln.cross_rack_ms)
    zone_of_group = np.zeros(n_groups, dtype=np.intp)
    zone_of_group[group] = cluster.zone_index
    n_zones = int(cluster.zone_index.max()) + 1
    zg = zone_of_group[groups]
    z_first, z_at, z_second = _top2(g_first[groups], zg, n_zones)
    owner = np.where(z_at >= 0, groups[np.maximum(z_at, 0)], -1)
    same_zone = _excluding(z_first, owner, z_second, cluster.zone_index[v], group[v])
    out = np.maximum(out, same_zone + ln.cross_rack_ms)  # other groups of v's zone
    zones = np.flatnonzero(np.isfinite(z_first))
    a_first, a_at, a_second = _top2(z_first[zones], np.zeros(len(zones), dtype=np.intp), 1)
    other = np.where(zones[a_at[0]] == cluster.zone_index[v], a_second[0], a_first[0])
    return np.maximum(out, other + ln.cross_zone_ms)


def plan_links_ms(topology: Topology, cluster, counts: np.ndarray) -> float:
    """s_lat (``instance_links_ms``) of one plan given as counts (ops, nodes): :func:`links_ms_of` its operators'
    nodes."""
    return links_ms_of(topology, cluster, [np.flatnonzero(row > 0) for row in counts])


def links_ms_of(topology: Topology, cluster, nodes: list[np.ndarray]) -> float:
    """s_lat (``instance_links_ms``) of one plan given as each operator's nodes (sorted indices): over the nodes
    the plan uses — their latency block where the cluster lists explicit pairs, else by locality without any
    block (``reach_by_locality``), so a plan on 100,000 nodes costs O(streams · (|U| + |V|) log), never a
    matrix of operators × nodes."""
    idx = topology.index
    sources = np.array([idx[o.id] for o in topology.sources], dtype=np.intp)
    sinks = np.array([idx[o.id] for o in topology.sinks], dtype=np.intp)
    inputs = forward_inputs(topology)
    used = sorted_unique(np.concatenate(nodes)) if nodes else np.zeros(0, dtype=np.intp)
    if not len(used):
        return 0.0
    if len(cluster.latency_pairs[2]) or len(used) <= 64:
        present = np.zeros((len(nodes), len(used)), dtype=bool)
        for i, at in enumerate(nodes):
            present[i, np.searchsorted(used, at)] = True
        block = cluster.latency_block(used, used)
        return float(instance_links_ms(present[None], block, inputs, sources, sinks)[0])
    starts = set(sources.tolist())
    dist = [np.zeros(len(nodes[i])) if i in starts else np.full(len(nodes[i]), -np.inf) for i in range(len(nodes))]
    for j, ups in inputs:
        reach = np.full(len(nodes[j]), -np.inf)
        for i in ups:
            reach = np.maximum(reach, reach_by_locality(cluster, nodes[i], dist[i], nodes[j]))
        dist[j] = np.maximum(dist[j], reach)
    ends = sinks if len(sinks) else np.arange(len(nodes))
    best = max((float(dist[i].max()) for i in ends if len(dist[i])), default=-np.inf)
    return best if np.isfinite(best) else 0.0
