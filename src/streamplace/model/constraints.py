"""The hard constraints of a placement, checked on its replica-count matrix.

A plan may be called ``ok`` only when it keeps all of them (schedulers/base.py
checks every scheduler's result here, whatever its own search assumed):

* every operator has at least one replica;
* replicas only on nodes the operator may run on (``pinned``);
* no node holds more memory than it has (Σ replicas × memory_mb ≤ memory_mb);
* where the scheduler keeps the requested replica counts, exactly those counts;
* where the scheduler treats declared CPU points as hard (ffd, r-storm with
  ``cpu=hard``), no node holds more CPU points than it has.

Each violation is one sentence with what is required and what is available, so an
``infeasible`` plan explains itself. Cost: one scan of the count matrix for its nonzero cells, then
O(cells + operators + nodes) numpy work; no other (operators × nodes) array is built (issue 56: at 100,000 nodes
each such array of floats is 160 MB).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology

EPS = 1e-6


def violations(topology: Topology, cluster: Cluster, counts: np.ndarray, *,
               requested: Mapping[str, int] | None = None, cpu_hard: bool = False, limit: int = 5) -> list[str]:
    """The hard constraints that ``counts`` ((operators, nodes) replicas) breaks, at most ``limit`` sentences
    of each kind (a count of the rest follows)."""
    out: list[str] = []
    ops, ids = topology.operators, cluster.ids

    def add(lines: list[str]) -> None:
        out.extend(lines[:limit])
        if len(lines) > limit:
            out.append(f"… and {len(lines) - limit} more like it")

    op_at, node_at = np.nonzero(counts)  # the cells, by operator then node
    n = counts[op_at, node_at].astype(float)
    per_op = counts.sum(axis=1)
    add([f"{op.id} has no replica (every operator needs at least one)" for i, op in enumerate(ops) if per_op[i] < 1])
    outside = _outside(topology, cluster, op_at, node_at)
    add([f"{ops[i].id} has {int(counts[i, u])} replica(s) on {ids[u]}, but it is pinned to "
         f"{', '.join(ops[i].pinned or ())}" for i, u in zip(op_at[outside], node_at[outside], strict=True)])
    memory = np.bincount(node_at, weights=n * np.array([op.memory_mb for op in ops], dtype=float)[op_at],
                         minlength=len(cluster))
    add([f"{ids[u]} holds {memory[u]:,.0f} MB of replicas but has {cluster.memory[u]:,.0f} MB"
         for u in np.flatnonzero(memory > cluster.memory + EPS)])
    if requested is not None:
        add([f"{op.id} has {int(per_op[i])} replicas, {requested[op.id]} requested" for i, op in enumerate(ops)
             if op.id in requested and per_op[i] != requested[op.id]])
    if cpu_hard:
        cpu = np.bincount(node_at, weights=n * np.array([op.cpu for op in ops], dtype=float)[op_at],
                          minlength=len(cluster))
        add([f"{ids[u]} holds {cpu[u]:,.0f} CPU points of replicas but has {cluster.cpu[u]:,.0f}"
             for u in np.flatnonzero(cpu > cluster.cpu + EPS)])
    return out


def _outside(topology: Topology, cluster: Cluster, op_at: np.ndarray, node_at: np.ndarray) -> np.ndarray:
    """Per cell, whether its node is outside its operator's ``pinned`` nodes: O((cells + pinned nodes) · log)."""
    n = len(cluster)
    pinned = np.array([op.pinned is not None for op in topology.operators], dtype=bool)
    if not pinned.any():
        return np.zeros(len(op_at), dtype=bool)
    allowed = np.array([i * n + cluster.index[name] for i, op in enumerate(topology.operators)
                        for name in (op.pinned or ()) if name in cluster.index], dtype=np.int64)
    return pinned[op_at] & ~np.isin(op_at.astype(np.int64) * n + node_at, allowed)
