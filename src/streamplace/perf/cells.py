"""A plan compiled to flat arrays of replica *cells* (operator, node, count).

All per-replica quantities of the model — CPU ms per tuple e, fixed overhead
MET, per-replica input rate — are computed here once, vectorized over cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.rates import OperatorRates

#: Per-replica capacity used for capacity-weighted split when e = 0 (free operators).
_HUGE = 1e18


def _profile_by_type(topology: Topology, cluster: Cluster, profile: Profile | None
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """The profile's (e, MET) per (operator, node type), NaN where it has no entry; None without entries."""
    if profile is None or not profile.entries:
        return None
    types = {t: k for k, t in enumerate(cluster.types)}
    e_type = np.full((len(topology.operators), len(types)), np.nan)
    m_type = np.full_like(e_type, np.nan)
    for entry in profile.entries:
        i = topology.index.get(entry.operator)
        t = types.get(entry.node_type)
        if i is not None and t is not None:
            e_type[i, t] = entry.cost_ms
            m_type[i, t] = entry.overhead
    return e_type, m_type


def cost_tables(topology: Topology, cluster: Cluster, profile: Profile | None) -> tuple[np.ndarray, np.ndarray]:
    """(e, MET) for every (operator, node) pair, shape (n_ops, n_nodes).

    e comes from the profile entry for (operator, type of node) when there is
    one, else ``cost_ms / speedup`` of the node (docs/architecture.md).
    """
    cost = np.array([op.cost_ms for op in topology.operators], dtype=float)
    met = np.array([op.overhead for op in topology.operators], dtype=float)
    e = cost[:, None] / cluster.speedup[None, :]
    m = np.repeat(met[:, None], len(cluster), axis=1)
    by_type = _profile_by_type(topology, cluster, profile)
    if by_type is not None:
        e_type, m_type = by_type
        e_node = e_type[:, cluster.type_index]
        m_node = m_type[:, cluster.type_index]
        e = np.where(np.isnan(e_node), e, e_node)
        m = np.where(np.isnan(m_node), m, m_node)
    return e, m


def cell_costs(topology: Topology, cluster: Cluster, profile: Profile | None, op: np.ndarray, node: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(e, MET) of the pairs (op[c], node[c]) only: the values ``cost_tables`` holds there, computed the same
    way, in O(operators + pairs) time and memory instead of O(operators × nodes)."""
    cost = np.array([o.cost_ms for o in topology.operators], dtype=float)
    met = np.array([o.overhead for o in topology.operators], dtype=float)
    e = cost[op] / cluster.speedup[node]
    m = met[op]
    by_type = _profile_by_type(topology, cluster, profile)
    if by_type is not None:
        e_type, m_type = by_type
        t = cluster.type_index[node]
        e_given, m_given = e_type[op, t], m_type[op, t]
        e = np.where(np.isnan(e_given), e, e_given)
        m = np.where(np.isnan(m_given), m, m_given)
    return e, m


def type_costs(topology: Topology, cluster: Cluster, profile: Profile | None) -> np.ndarray:
    """e per (operator, node type), each type's column that of its first node (what weighted.type_weights
    reads from a whole ``cost_tables``): O(operators × types)."""
    _, first = np.unique(cluster.type_index, return_index=True)
    n_ops = len(topology.operators)
    op = np.repeat(np.arange(n_ops, dtype=np.intp), len(first))
    node = np.tile(first.astype(np.intp), n_ops)
    return cell_costs(topology, cluster, profile, op, node)[0].reshape(n_ops, len(first))


def replica_capacity(e: np.ndarray, met: np.ndarray) -> np.ndarray:
    """Most tuples/s one replica (one thread, 100 points) sustains: (100 − MET)·1000 / (100·e)."""
    with np.errstate(divide="ignore"):
        return np.where(e > 0, (100.0 - met) * 10.0 / np.where(e > 0, e, 1.0), _HUGE)


@dataclass(frozen=True)
class Cells:
    """Flat per-cell arrays of a plan; ``rate`` is the per-replica input rate at scale 1."""

    op: np.ndarray
    node: np.ndarray
    count: np.ndarray
    e: np.ndarray
    met: np.ndarray
    rate: np.ndarray
    split_share: np.ndarray
    parallelism: np.ndarray
    n_ops: int
    n_nodes: int

    @property
    def cpu_per_rate(self) -> np.ndarray:
        """CPU points per cell per unit of scale: count · r · e / 10."""
        return self.count * self.rate * self.e / 10.0

    @property
    def cpu_fixed(self) -> np.ndarray:
        return self.count * self.met

    def share_matrix(self) -> np.ndarray:
        """P[i, u]: fraction of operator i's (split) input processed on node u."""
        p = np.zeros((self.n_ops, self.n_nodes))
        np.add.at(p, (self.op, self.node), self.split_share)
        return p

    def nodes_by_op(self) -> list[np.ndarray]:
        """Per operator, the nodes it runs on, sorted: O(cells log cells), no (operators × nodes) matrix."""
        order = np.lexsort((self.node, self.op))
        bounds = np.searchsorted(self.op[order], np.arange(self.n_ops + 1))
        return [self.node[order[bounds[i]:bounds[i + 1]]] for i in range(self.n_ops)]

    def count_matrix(self) -> np.ndarray:
        c = np.zeros((self.n_ops, self.n_nodes))
        np.add.at(c, (self.op, self.node), self.count)
        return c


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` of a 1-d array, by a sort: numpy 2.4's plain ``unique`` hashes (slower on large
    arrays) and imports numpy.ma on its first call, ~30 ms of every command's start. O(n log n)."""
    out = np.sort(values)
    if len(out) > 1:
        keep = np.empty(len(out), dtype=bool)
        keep[0] = True
        np.not_equal(out[1:], out[:-1], out=keep[1:])
        out = out[keep]
    return out


def compile_cells(
    topology: Topology,
    cluster: Cluster,
    replicas: Mapping[str, Mapping[str, int]],
    rates: OperatorRates,
    profile: Profile | None = None,
    split: str = "even",
    tables: tuple[np.ndarray, np.ndarray] | None = None,
) -> Cells:
    """Flatten ``replicas`` into cells and compute each replica's input rate.

    Even split gives every replica of i the same share of the split input;
    capacity split gives each a share proportional to its one-thread
    capacity on its node (what pull-based Spark tasks approximate).
    ``all``-grouped input reaches every replica whole. O(cells).
    """
    t_index, c_index = topology.index, cluster.index
    op_idx: list[int] = []
    node_idx: list[int] = []
    counts: list[float] = []
    for op, per in replicas.items():  # Python work per operator; per cell, C-level extends (500,000 cells)
        op_idx.extend([t_index[op]] * len(per))
        node_idx.extend(map(c_index.__getitem__, per))
        counts.extend(per.values())
    op_a = np.asarray(op_idx, dtype=np.intp)
    node_a = np.asarray(node_idx, dtype=np.intp)
    count_a = np.asarray(counts, dtype=float)
    kept = count_a > 0
    if not kept.all():
        op_a, node_a, count_a = op_a[kept], node_a[kept], count_a[kept]
    if tables is not None:
        e, met = tables[0][op_a, node_a], tables[1][op_a, node_a]
    else:
        e, met = cell_costs(topology, cluster, profile, op_a, node_a)
    n_ops = len(topology.operators)
    par = np.bincount(op_a, weights=count_a, minlength=n_ops)
    if split == "capacity":
        cap = replica_capacity(e, met)
        weight = count_a * cap
        total = np.bincount(op_a, weights=weight, minlength=n_ops)
        share = np.divide(weight, total[op_a], out=np.zeros_like(weight), where=total[op_a] > 0)
    else:
        share = np.divide(count_a, par[op_a], out=np.zeros_like(count_a), where=par[op_a] > 0)
    per_replica_share = np.divide(share, count_a, out=np.zeros_like(share), where=count_a > 0)
    rate = rates.input_split[op_a] * per_replica_share + rates.input_all[op_a]
    return Cells(op_a, node_a, count_a, e, met, rate, share, par, n_ops, len(cluster))
