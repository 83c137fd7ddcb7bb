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
``infeasible`` plan explains itself. Cost: O(operators × nodes) numpy work.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from streamplace.model.allowed import allowed_mask
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

    per_op = counts.sum(axis=1)
    add([f"{op.id} has no replica (every operator needs at least one)" for i, op in enumerate(ops) if per_op[i] < 1])
    outside = counts * ~allowed_mask(topology, cluster)
    add([f"{ops[i].id} has {int(outside[i, u])} replica(s) on {ids[u]}, but it is pinned to "
         f"{', '.join(ops[i].pinned or ())}" for i, u in zip(*np.nonzero(outside), strict=True)])
    memory = counts.T @ np.array([op.memory_mb for op in ops], dtype=float)
    add([f"{ids[u]} holds {memory[u]:,.0f} MB of replicas but has {cluster.memory[u]:,.0f} MB"
         for u in np.flatnonzero(memory > cluster.memory + EPS)])
    if requested is not None:
        add([f"{op.id} has {int(per_op[i])} replicas, {requested[op.id]} requested" for i, op in enumerate(ops)
             if op.id in requested and per_op[i] != requested[op.id]])
    if cpu_hard:
        cpu = counts.T @ np.array([op.cpu for op in ops], dtype=float)
        add([f"{ids[u]} holds {cpu[u]:,.0f} CPU points of replicas but has {cluster.cpu[u]:,.0f}"
             for u in np.flatnonzero(cpu > cluster.cpu + EPS)])
    return out
