"""max-throughput by kind of node: its search on the nodes a plan can use, not on every node of a large cluster.

Nodes with the same column of every table the throughput model holds — e, r, MET and allowed for every
operator, capacity, memory, points per replica, replica cap (``kind_classes``) — are interchangeable: swapping
two of them in a count matrix swaps their loads and memory and leaves its scale, its fit and every other node's
load unchanged (the storm engine's serialization CPU too: it reads each node's shares only). max-throughput's
plans hold at most K = Σ_i k_i replicas, so they use at most K nodes, of any one class too. Every plan is
therefore, after swapping nodes within classes, a plan on the first min(n_C, K + 1) nodes of each class C by
index (``kind_nodes``): the model restricted to them (``restrict``) has the same plans, up to those swaps, with
the same scales — the same integer problem, on ops × Σ_C min(n_C, K + 1) cells instead of ops × nodes (the
one spare node per class keeps an empty node of every class in reach of each move, as in the whole cluster).
Its LP bound is a bound too (it relaxes the same problem; no looser than the whole cluster's, and tighter
where node count bounds the relaxation). On a 100,000-node cluster of one machine kind with 200 operators at
k = 10 that is 200 × 2,001 cells a count matrix, not 200 × 100,000: the starts (the rounded LP, typed, uniform
and hetero's), the population search and the exact check all run on it, and the plan found is written back to
the cluster's own nodes (``expand``).

The scheduler finds the classes from the cluster itself (``cluster_classes``: speed-up, CPU, memory, node type
where a profile gives costs by type, and which pinned operators may use the node — everything the model's
per-node values are made of, so nodes of one such class have equal columns: alike, or split finer, which keeps
more nodes and stays exact) and builds the model on the kept nodes only (``kind_model``): no ops × nodes table
of the whole cluster is made.

Complexity: the classes from the cluster O(nodes·(per-node values + pinned operators)) (node_classes: one
comparison per value, the values that vary sorted), from a model O(ops·nodes); the model on the kept nodes
O(ops·m') (m' = Σ_C min(n_C, Σk + 1) ≤ classes·(Σk + 1)), where the whole cluster's is O(ops·nodes); the
expansion O(ops·nodes) (the dense plan the scheduler returns).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.throughput_lp import node_classes


def kind_classes(model: ThroughputModel) -> np.ndarray:
    """Per node, the id of its class: nodes alike in every per-node value of ``model``."""
    return node_classes([model.e, model.rate_cost, model.met, model.allowed],
                        [model.cap, model.node_memory, model.thread_points, model.slots])


def kind_nodes(model: ThroughputModel, k: np.ndarray) -> np.ndarray | None:
    """The nodes a plan of at most Σk replicas needs (module docstring), from the model's classes: of each class
    its first min(n_C, Σk + 1) nodes by index, ascending; None where that is every node. O(ops·nodes)."""
    return first_of_classes(kind_classes(model), int(np.sum(k)) + 1)


def first_of_classes(classes: np.ndarray, per_class: int) -> np.ndarray | None:
    """Of each class its first ``per_class`` nodes by index, ascending; None where that is every node.
    O(nodes·log nodes)."""
    n_nodes = len(classes)
    if n_nodes <= per_class:
        return None
    order = np.argsort(classes, kind="stable")  # the nodes of each class in index order, class after class
    size = np.bincount(classes)
    rank = np.arange(n_nodes) - np.repeat(np.cumsum(size) - size, size)
    keep = np.sort(order[rank < per_class])
    return None if len(keep) == n_nodes else keep


def cluster_classes(topology: Topology, cluster: Cluster, profile: Profile | None) -> np.ndarray:
    """Per node, the id of its class of nodes alike in everything ThroughputModel.build reads of a node: speed-up
    (e = cost / speed-up), CPU (its capacity), memory, its type where the profile gives costs or overheads by
    type, and whether each pinned operator may use it."""
    per_node = [cluster.speedup, cluster.cpu, cluster.memory]
    if profile is not None and profile.entries:
        per_node.append(cluster.type_index.astype(float))
    pinned = [i for i, op in enumerate(topology.operators) if op.pinned is not None]
    per_op = [allowed_mask(topology, cluster)[pinned]] if pinned else []
    return node_classes(per_op, per_node)


def kind_model(topology: Topology, cluster: Cluster, profile: Profile | None, k: np.ndarray,
               engine: EngineSettings | None = None, replica_cap: str | None = None,
               tasks_per_node: int | None = None) -> tuple[ThroughputModel, np.ndarray | None]:
    """ThroughputModel.build's model (with ``engine``, ``replica_cap``, ``tasks_per_node``) on the first Σk + 1
    nodes of each class of ``cluster_classes`` only, and those nodes (None, and the whole cluster's model, where
    that is every node) — the same model as the whole cluster's restricted to them (``restrict``), without the
    whole cluster's ops × nodes tables. The links are left out: the throughput model reads none."""
    keep = first_of_classes(cluster_classes(topology, cluster, profile), int(np.sum(k)) + 1)
    if keep is not None:
        nodes = cluster.nodes
        cluster = Cluster(cluster.name, tuple(nodes[u] for u in keep.tolist()),
                          utilization_limit=cluster.utilization_limit)
    return ThroughputModel.build(topology, cluster, profile, engine=engine, replica_cap=replica_cap,
                                 tasks_per_node=tasks_per_node), keep


def restrict(model: ThroughputModel, keep: np.ndarray) -> ThroughputModel:
    """``model`` on the nodes ``keep`` only (in their order); operator values and serialization costs as they
    are."""
    return dataclasses.replace(
        model, e=model.e[:, keep], met=model.met[:, keep], cap=model.cap[keep], node_memory=model.node_memory[keep],
        allowed=model.allowed[:, keep], rate_cost=model.rate_cost[:, keep],
        replica_points=None if model.replica_points is None else model.replica_points[keep],
        node_slots=None if model.node_slots is None else model.node_slots[keep])


def expand(counts: np.ndarray, keep: np.ndarray, n_nodes: int) -> np.ndarray:
    """A count matrix on the nodes ``keep`` written back to all ``n_nodes`` (the others empty)."""
    out = np.zeros((counts.shape[0], n_nodes), dtype=counts.dtype)
    # through flat indices: numpy's 2-d fancy assignment took 0.26 s for 200 × 2,001 cells of a 200 × 100,000 table
    flat = (np.arange(counts.shape[0])[:, None] * n_nodes + keep[None, :]).ravel()
    out.reshape(-1)[flat] = counts.ravel()
    return out
