"""Per-stream network metrics of a plan (ODRP, Cardellini et al. 2017, Eq. 4–7 and 17–20).

For a stream (i, j) with tuple rate λ and b bytes per tuple, the share of
its traffic between nodes u and v is p_i(u)·q_j(v): p_i(u) is the fraction of
i's output produced on u, q_j(v) the fraction of j's input consumed on v
(ODRP's λ/(|U||V|) per replica pair, summed over multiplicities). An
``all``-grouped stream is delivered whole to each of j's n_j replicas, so
its volume is multiplied by n_j.

A stream's latency and cost sums over its node pairs come from the links'
structure, not from n × n matrices: a pair's default latency depends only on
whether the two nodes are one node, share a rack (a rack group), share a zone,
so the flow-weighted sums are sums of products of per-group shares, corrected
for the explicit pairs (:func:`pair_sums`). A stream costs O(|U_i| + |V_j| +
groups + explicit pairs); the worst pair's latency comes from how many pairs
fall in each level. Only link availability below 1 needs the pairs themselves:
then the links used among the nodes in use are marked in a matrix of those
nodes only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.cells import Cells, sorted_unique
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
    link_log_availability: float  # Σ log availability over the distinct links the streams use (0: all up)
    rack_out: np.ndarray  # per rack: bytes/s leaving it for other racks
    rack_in: np.ndarray

    @property
    def node_traffic(self) -> np.ndarray:
        """Bytes/s through each NIC in its busier direction (links are full duplex)."""
        return np.maximum(self.node_out, self.node_in)

    @property
    def rack_traffic(self) -> np.ndarray:
        """Bytes/s through each rack's uplink in its busier direction."""
        return np.maximum(self.rack_out, self.rack_in)


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


@dataclass(frozen=True)
class StreamShares:
    """Every stream's producer and consumer shares on the nodes either end runs on, as flat entries sorted by
    (stream, node): at entry e, node ``node[e]`` holds the share ``p[e]`` of stream ``stream[e]``'s producer
    output and the share ``q[e]`` of its consumer's input (0 where that end has no replica there; q by replica
    count for an ``all``-grouped stream). ``src``, ``tgt`` and ``is_all`` are per stream. A (streams × nodes)
    matrix of them would be mostly zeros: at 100,000 nodes and 300 streams it would take 240 MB per matrix."""

    src: np.ndarray
    tgt: np.ndarray
    is_all: np.ndarray
    stream: np.ndarray
    node: np.ndarray
    p: np.ndarray
    q: np.ndarray


def _ranges(start: np.ndarray, ops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each k, the positions start[ops[k]] … start[ops[k] + 1] − 1, concatenated, and k for each of them."""
    lo, length = start[ops], start[ops + 1] - start[ops]
    owner = np.repeat(np.arange(len(ops), dtype=np.intp), length)
    first = np.cumsum(length) - length
    return np.arange(int(length.sum()), dtype=np.intp) - first[owner] + lo[owner], owner


def _sorted_union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.union1d(a, b)`` for keys that come sorted (each stream's nodes ascending, streams in order): a stable
    sort of the two runs merges them in O(len(a) + len(b)) — numpy's timsort finds the runs — where union1d
    hashes or sorts from scratch (3 s for the 10⁶ keys of 500,000 replicas). Correct, only slower, on any
    input."""
    both = np.sort(np.concatenate([a, b]), kind="stable")
    keep = np.ones(len(both), dtype=bool)
    keep[1:] = both[1:] != both[:-1]
    return both[keep]


def stream_shares(topology: Topology, cells: Cells) -> StreamShares:
    """Per stream, its producer's share p(u) of output and its consumer's share q(v) of input on the nodes either
    runs on (q by replica count for ``all``), as sorted flat entries: O(E log E) time and O(cells + E) memory for
    E = Σ over streams of the producer's and consumer's nodes, never O(streams · nodes)."""
    idx = topology.index
    src = np.array([idx[s.source] for s in topology.streams], dtype=np.intp)
    tgt = np.array([idx[s.target] for s in topology.streams], dtype=np.intp)
    is_all = np.array([s.grouping == "all" for s in topology.streams], dtype=bool)
    n = max(cells.n_nodes, 1)
    order = np.lexsort((cells.node, cells.op))  # cells by operator, then node
    start = np.searchsorted(cells.op[order], np.arange(cells.n_ops + 1))
    par = cells.parallelism[cells.op]
    q_all = np.divide(cells.count, par, out=np.zeros_like(cells.count), where=par > 0)
    at_a, k_a = _ranges(start, src)
    at_b, k_b = _ranges(start, tgt)
    cell_a, cell_b = order[at_a], order[at_b]
    key_a = k_a.astype(np.int64) * n + cells.node[cell_a]
    key_b = k_b.astype(np.int64) * n + cells.node[cell_b]
    keys = _sorted_union(key_a, key_b)
    p = np.zeros(len(keys))
    q = np.zeros(len(keys))
    p[np.searchsorted(keys, key_a)] = cells.split_share[cell_a]
    q[np.searchsorted(keys, key_b)] = np.where(is_all[k_b], q_all[cell_b], cells.split_share[cell_b])
    return StreamShares(src, tgt, is_all, (keys // n).astype(np.intp), (keys % n).astype(np.intp), p, q)


def pair_sums(cluster: Cluster, u: np.ndarray, p: np.ndarray, v: np.ndarray, q: np.ndarray
              ) -> tuple[float, float, float, float]:
    """Over the node pairs U × V of a stream with weights p(a)·q(b): the worst latency of any pair, Σ p q lat,
    Σ p q lat² and Σ p q cost per MB — equal to sums over ``cluster.latency[np.ix_(u, v)]`` and
    ``link_cost_per_mb`` in O(|U| + |V| + groups + explicit pairs).

    Off the diagonal a pair's default latency is ``same_rack_ms`` within a link group (cluster.link_group),
    ``cross_rack_ms`` across groups of one zone and ``cross_zone_ms`` (when given) across zones; the weight
    of each level is a difference of Σ_group P_g Q_g sums, the number of pairs likewise with counts."""
    ln = cluster.links
    both, iu, iv = np.intersect1d(u, v, assume_unique=True, return_indices=True)
    m_node, c_node = float((p[iu] * q[iv]).sum()), float(len(both))
    total_m, total_c = float(p.sum()) * float(q.sum()), float(len(u)) * float(len(v))

    def grouped(index: np.ndarray) -> tuple[float, float]:
        size = int(index.max()) + 1
        gu, gv = index[u], index[v]
        mass = float(np.bincount(gu, weights=p, minlength=size) @ np.bincount(gv, weights=q, minlength=size))
        count = float(np.bincount(gu, minlength=size).astype(float) @ np.bincount(gv, minlength=size))
        return mass, count

    m_group, c_group = grouped(cluster.link_group)
    if ln.cross_zone_ms is not None:
        m_zone, c_zone = grouped(cluster.zone_index)
    else:
        m_zone, c_zone = total_m, total_c
    values = np.array([ln.same_node_ms, ln.same_rack_ms, ln.cross_rack_ms,
                       ln.cross_zone_ms if ln.cross_zone_ms is not None else ln.cross_rack_ms])
    mass = np.array([m_node, m_group - m_node, m_zone - m_group, total_m - m_zone])
    count = np.array([c_node, c_group - c_node, c_zone - c_group, total_c - c_zone])
    mean, square = float(values @ mass), float((values * values) @ mass)
    cost = ln.cost_per_mb * (total_m - m_node)
    worst_pairs = -np.inf
    at_u = at_v = None
    for table in (cluster.latency_pairs, cluster.cost_pairs):
        a, b, val = table
        if not len(val):
            continue
        if at_u is None:
            at_u, at_v = np.full(len(cluster), -1, dtype=np.intp), np.full(len(cluster), -1, dtype=np.intp)
            at_u[u], at_v[v] = np.arange(len(u)), np.arange(len(v))
        assert at_v is not None
        hit = (at_u[a] >= 0) & (at_v[b] >= 0)
        a, b, val = a[hit], b[hit], val[hit]
        w = p[at_u[a]] * q[at_v[b]]
        if table is cluster.cost_pairs:
            cost += float(w @ (val - ln.cost_per_mb))
            continue
        base = cluster.default_latency(a, b)
        mean += float(w @ (val - base))
        square += float(w @ (val * val - base * base))
        level = np.where(cluster.link_group[a] == cluster.link_group[b], 1, 2)
        if ln.cross_zone_ms is not None:
            level = np.where(cluster.zone_index[a] != cluster.zone_index[b], 3, level)
        count -= np.bincount(level, minlength=4)
        if len(val):
            worst_pairs = float(val.max())
    present = count > 0.5
    worst = max(float(values[present].max()) if present.any() else -np.inf, worst_pairs)
    return worst, mean, square, cost


def link_log_availability(cluster: Cluster, pairs: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """Σ log availability over the distinct links (node pairs, not a node with itself) that the streams'
    supports ``pairs`` use: a matrix of the nodes in use only, O(m²) for m of them."""
    if not pairs or not cluster.has_link_failures:
        return 0.0
    nodes = sorted_unique(np.concatenate([x for uv in pairs for x in uv]))
    at = np.full(len(cluster), -1, dtype=np.intp)
    at[nodes] = np.arange(len(nodes))
    used = np.zeros((len(nodes), len(nodes)), dtype=bool)
    for u, v in pairs:
        used[np.ix_(at[u], at[v])] = True
    np.fill_diagonal(used, False)
    total = float(used.sum()) * float(np.log(cluster.links.availability))
    a, b, val = cluster.availability_pairs
    hit = (at[a] >= 0) & (at[b] >= 0)
    a, b, val = a[hit], b[hit], val[hit]
    on = used[at[a], at[b]]
    return total + float((np.log(val[on]) - np.log(cluster.links.availability)).sum())


def stream_metrics(
    topology: Topology,
    cluster: Cluster,
    cells: Cells,
    rates: OperatorRates,
    supp: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> StreamMetrics:
    """Every stream's traffic, latency, cost and the NIC and rack-uplink loads they make, at scale 1: O(E log E +
    nodes + racks) for the E flat entries of :func:`stream_shares`, plus :func:`pair_sums` per stream."""
    supp = supports(cells) if supp is None else supp
    n_streams = len(topology.streams)
    n = cells.n_nodes
    shares = stream_shares(topology, cells)
    src, tgt, is_all, at = shares.src, shares.tgt, shares.is_all, shares.stream
    bytes_per = stream_bytes(topology)
    mult = np.where(is_all, cells.parallelism[tgt], 1.0) if n_streams else np.zeros(0)
    tuples = rates.stream * mult
    volume = tuples * bytes_per
    # (bincount of no entries is int64: cast)
    local = np.bincount(at, weights=shares.p * shares.q, minlength=n_streams).astype(float)
    # per node, the streams' terms in stream order (each stream's entries are sorted, so bincount adds them in
    # the order a sum over a dense (streams × nodes) matrix did)
    node_out = np.bincount(shares.node, weights=volume[at] * shares.p * (1.0 - shares.q), minlength=n).astype(float)
    node_in = np.bincount(shares.node, weights=volume[at] * shares.q * (1.0 - shares.p), minlength=n).astype(float)
    rack_out, rack_in = rack_flows(cluster, volume, shares)

    any_cost = cluster.has_link_cost
    worst = np.zeros(n_streams)
    mean = np.zeros(n_streams)
    usage = np.zeros(n_streams)
    energy = np.zeros(n_streams)
    tcost = np.zeros(n_streams)
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(n_streams):
        u_nodes, u_share, _ = supp[src[k]]
        v_nodes, v_share, v_count = supp[tgt[k]]
        if u_nodes.size == 0 or v_nodes.size == 0:
            continue
        if is_all[k]:
            v_share = v_count / v_count.sum()
        worst[k], mean[k], square, cost = pair_sums(cluster, u_nodes, u_share, v_nodes, v_share)
        usage[k] = volume[k] * mean[k]
        energy[k] = volume[k] * square
        if any_cost:
            tcost[k] = volume[k] / 1e6 * cost
        pairs.append((u_nodes, v_nodes))
    return StreamMetrics(local, tuples, volume * (1.0 - local), worst, mean, usage, energy, tcost,
                         node_out, node_in, link_log_availability(cluster, pairs), rack_out, rack_in)


def rack_flows(cluster: Cluster, volume: np.ndarray, shares: StreamShares) -> tuple[np.ndarray, np.ndarray]:
    """Per rack, the bytes/s its streams send to and receive from other racks: a stream's producer share in
    rack a times its consumer share outside a (and the reverse), from the shares' flat entries summed per
    (stream, rack): O(E log E + racks), never a (streams × racks) or (streams × nodes) matrix."""
    n_racks = len(cluster.racks)
    if not len(volume) or n_racks < 2:
        return np.zeros(n_racks), np.zeros(n_racks)
    keys, inverse = np.unique(shares.stream.astype(np.int64) * n_racks + cluster.rack_index[shares.node],
                              return_inverse=True)
    p_rack = np.bincount(inverse, weights=shares.p, minlength=len(keys))
    q_rack = np.bincount(inverse, weights=shares.q, minlength=len(keys))
    k, rack = keys // n_racks, keys % n_racks
    out = np.bincount(rack, weights=volume[k] * p_rack * (1.0 - q_rack), minlength=n_racks)
    into = np.bincount(rack, weights=volume[k] * q_rack * (1.0 - p_rack), minlength=n_racks)
    return out.astype(float), into.astype(float)
