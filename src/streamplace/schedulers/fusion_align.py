"""Make a placement fusable on Spark: give a consumer its producer's replicas, node for node, where that pays.

On Spark, an operator fuses with its producer (model/fusion.py: one stage, no
shuffle, no stage barrier, no extra task wave) only when both have the same
replicas on the same nodes. The papers' placers never aim for that — R-Storm,
FFD and round robin spread a chain's replicas by their own rules — so a plan
that the spark engine would run as one stage per chain often runs one stage
per operator. This pass, applied after any scheduler's placement when asked
(``-p fusion=prefer`` with ``--engine spark``), walks the structurally fusable
streams u → v in topological order (so whole chains line up) and, where u and v
have as many replicas, proposes v's row := u's row. A proposal is kept only if
the nodes are allowed for v (pinning), memory still fits on every node (CPU too
where the scheduler treats it as hard), and the spark engine predicts no lower
sustainable throughput and no higher mean latency than the plan it replaces.
The scheduler's own placement stays the default (faithful to its paper).

Cost: at most one engine evaluation per fusable stream, O(streams · evaluate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.fusion import fusable_pairs
from streamplace.model.topology import Topology

EPS = 1e-9


@dataclass
class Alignment:
    counts: np.ndarray
    aligned: list[tuple[str, str]] = field(default_factory=list)  # streams whose operators now share replicas
    rejected: list[str] = field(default_factory=list)  # why a proposal was not kept, one line each


def align_for_fusion(topology: Topology, cluster: Cluster, counts: np.ndarray,
                     score: Callable[[np.ndarray], tuple[float, float]], cpu_hard: bool = False) -> Alignment:
    """``counts`` (operators × nodes) with fusable consumers moved onto their producers' replicas where allowed,
    feasible and no worse by ``score`` (→ (sustainable throughput, mean latency ms) of a placement)."""
    index = {op.id: i for i, op in enumerate(topology.operators)}
    mask = allowed_mask(topology, cluster)
    memory = np.array([op.memory_mb for op in topology.operators], dtype=float)
    cpu = np.array([op.cpu for op in topology.operators], dtype=float)
    out = Alignment(counts.copy())
    best = score(out.counts)
    for u, v in fusable_pairs(topology):
        iu, iv = index[u], index[v]
        row_u, row_v = out.counts[iu], out.counts[iv]
        if np.array_equal(row_u, row_v) or row_u.sum() != row_v.sum() or row_u.sum() == 0:
            continue
        where = np.flatnonzero(row_u)
        if not mask[iv, where].all():
            out.rejected.append(f"{v} may not run on all of {u}'s nodes (pinned)")
            continue
        proposal = out.counts.copy()
        proposal[iv] = row_u
        if (proposal.T @ memory > cluster.memory + EPS).any():
            out.rejected.append(f"{v} on {u}'s nodes would exceed a node's memory")
            continue
        if cpu_hard and (proposal.T @ cpu > cluster.cpu + EPS).any():
            out.rejected.append(f"{v} on {u}'s nodes would exceed a node's CPU points (hard)")
            continue
        candidate = score(proposal)
        if candidate[0] < best[0] * (1 - EPS) or candidate[1] > best[1] * (1 + EPS):
            out.rejected.append(f"{v} on {u}'s nodes: predicted {candidate[0]:,.4g} tuples/s and "
                                f"{candidate[1]:,.4g} ms against {best[0]:,.4g} and {best[1]:,.4g}")
            continue
        out.counts, best = proposal, candidate
        out.aligned.append((u, v))
    return out
