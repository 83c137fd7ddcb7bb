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

Complexity: the classes O(ops·nodes) (one comparison per cell of each table; rows that vary are sorted:
node_classes), the restriction O(ops·nodes kept), the expansion O(ops·nodes) (the dense plan the scheduler
returns).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.throughput_lp import node_classes


def kind_classes(model: ThroughputModel) -> np.ndarray:
    """Per node, the id of its class: nodes alike in every per-node value of ``model``."""
    return node_classes([model.e, model.rate_cost, model.met, model.allowed],
                        [model.cap, model.node_memory, model.thread_points, model.slots])


def kind_nodes(model: ThroughputModel, k: np.ndarray) -> np.ndarray | None:
    """The nodes a plan of at most Σk replicas needs (module docstring): of each class its first
    min(n_C, Σk + 1) nodes by index, ascending; None where that is every node. O(ops·nodes)."""
    n_nodes = model.e.shape[1]
    per_class = int(np.sum(k)) + 1
    if n_nodes <= per_class:
        return None
    classes = kind_classes(model)
    order = np.argsort(classes, kind="stable")  # the nodes of each class in index order, class after class
    size = np.bincount(classes)
    rank = np.arange(n_nodes) - np.repeat(np.cumsum(size) - size, size)
    keep = np.sort(order[rank < per_class])
    return None if len(keep) == n_nodes else keep


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
    out[:, keep] = counts
    return out
