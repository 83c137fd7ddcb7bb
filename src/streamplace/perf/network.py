"""Per-stream network metrics of a plan (ODRP, paper 003, Eq. 4–7 and 17–20).

For a stream (i, j) with tuple rate λ and b bytes per tuple, the share of
its traffic between nodes u and v is p_i(u)·q_j(v): p_i(u) is the fraction of
i's output produced on u, q_j(v) the fraction of j's input consumed on v
(ODRP's λ/(|U||V|) per replica pair, summed over multiplicities). An
``all``-grouped stream is delivered whole to each of j's n_j replicas, so
its volume is multiplied by n_j.

Worst-pair latency is computed on the supports of i and j only, so a stream
costs O(|U_i|·|U_j|), not O(nodes²).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.cells import Cells
from streamplace.perf.rates import OperatorRates


@dataclass(frozen=True)
class StreamMetrics:
    """Arrays indexed by stream, plus per-node NIC traffic at scale 1."""

    local_fraction: np.ndarray
    tuples: np.ndarray  # tuples/s carried (× n_j for all-grouping)
    inter_node_bytes: np.ndarray  # ODRP T per stream, bytes/s
    worst_latency_ms: np.ndarray  # ODRP Eq. 4
    mean_latency_ms: np.ndarray  # traffic-weighted
    network_usage: np.ndarray  # ODRP N per stream, bytes/s · ms
    elastic_energy: np.ndarray  # ODRP EE per stream, bytes/s · ms²
    transfer_cost: np.ndarray  # per second, cost_per_mb · MB/s
    node_out: np.ndarray
    node_in: np.ndarray
    links_used: np.ndarray | None  # boolean n×n, only when some link availability < 1

    @property
    def node_traffic(self) -> np.ndarray:
        """Bytes/s through each NIC in its busier direction (links are full duplex)."""
        return np.maximum(self.node_out, self.node_in)


def supports(cells: Cells) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per operator: (nodes, output shares, replica counts) over the nodes it runs on."""
    order = np.argsort(cells.op, kind="stable")
    bounds = np.searchsorted(cells.op[order], np.arange(cells.n_ops + 1))
    out = []
    for i in range(cells.n_ops):
        sl = order[bounds[i]:bounds[i + 1]]
        out.append((cells.node[sl], cells.split_share[sl], cells.count[sl]))
    return out


def stream_bytes(topology: Topology) -> np.ndarray:
    """Bytes per tuple of every stream: its own ``bytes_per_tuple``, else its source operator's."""
    idx = topology.index
    return np.array(
        [s.bytes_per_tuple if s.bytes_per_tuple is not None else topology.operators[idx[s.source]].bytes_per_tuple
         for s in topology.streams], dtype=float)


def stream_shares(topology: Topology, cells: Cells
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per stream: source and target operator, all-grouping flag, and the (streams × nodes) shares p(u) of its
    producer's output and q(v) of its consumer's input on each node (q by replica count for ``all``)."""
    idx = topology.index
    p = cells.share_matrix()
    counts = cells.count_matrix()
    q_all = np.divide(counts, cells.parallelism[:, None], out=np.zeros_like(counts),
                      where=cells.parallelism[:, None] > 0)
    src = np.array([idx[s.source] for s in topology.streams], dtype=np.intp)
    tgt = np.array([idx[s.target] for s in topology.streams], dtype=np.intp)
    is_all = np.array([s.grouping == "all" for s in topology.streams], dtype=bool)
    if not len(topology.streams):
        return src, tgt, is_all, np.zeros((0, cells.n_nodes)), np.zeros((0, cells.n_nodes))
    return src, tgt, is_all, p[src], np.where(is_all[:, None], q_all[tgt], p[tgt])


def stream_metrics(
    topology: Topology,
    cluster: Cluster,
    cells: Cells,
    rates: OperatorRates,
    supp: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> StreamMetrics:
    supp = supports(cells) if supp is None else supp
    n_streams = len(topology.streams)
    n = cells.n_nodes
    src, tgt, is_all, ps, qs = stream_shares(topology, cells)
    bytes_per = stream_bytes(topology)
    mult = np.where(is_all, cells.parallelism[tgt], 1.0) if n_streams else np.zeros(0)
    tuples = rates.stream * mult
    volume = tuples * bytes_per
    local = (ps * qs).sum(axis=1) if n_streams else np.zeros(0)
    node_out = (volume[:, None] * ps * (1.0 - qs)).sum(axis=0) if n_streams else np.zeros(n)
    node_in = (volume[:, None] * qs * (1.0 - ps)).sum(axis=0) if n_streams else np.zeros(n)

    lat = cluster.latency
    cost_mat = cluster.link_cost_per_mb
    any_cost = bool(cost_mat.any())
    track_links = bool((cluster.link_availability < 1.0).any())
    used = np.zeros((n, n), dtype=bool) if track_links else None
    worst = np.zeros(n_streams)
    mean = np.zeros(n_streams)
    usage = np.zeros(n_streams)
    energy = np.zeros(n_streams)
    tcost = np.zeros(n_streams)
    for k in range(n_streams):
        u_nodes, u_share, _ = supp[src[k]]
        v_nodes, v_share, v_count = supp[tgt[k]]
        if u_nodes.size == 0 or v_nodes.size == 0:
            continue
        if is_all[k]:
            v_share = v_count / v_count.sum()
        sub = lat[np.ix_(u_nodes, v_nodes)]
        worst[k] = sub.max()
        flow = u_share[:, None] * v_share[None, :]
        mean[k] = float((flow * sub).sum())
        usage[k] = volume[k] * mean[k]
        energy[k] = volume[k] * float((flow * sub * sub).sum())
        if any_cost:
            tcost[k] = volume[k] / 1e6 * float((flow * cost_mat[np.ix_(u_nodes, v_nodes)]).sum())
        if used is not None:
            used[np.ix_(u_nodes, v_nodes)] = True
    if used is not None:
        np.fill_diagonal(used, False)
    return StreamMetrics(local, tuples, volume * (1.0 - local), worst, mean, usage, energy, tcost,
                         node_out, node_in, used)
