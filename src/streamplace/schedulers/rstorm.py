"""R-Storm (Peng et al., Middleware 2015): resource-aware scheduling, faithfully.

* Task selection (Algorithms 2–3): components in BFS order from the sources
  (neighbours are both downstream and upstream components, so every
  component is reached), then tasks interleaved one per component per round,
  so communicating tasks are scheduled in close succession.
* Node selection (Algorithm 4): the reference node is the node with the most
  available resources in the rack with the most available resources; the
  first task goes there. Every task then goes to the node minimizing
  ``sqrt(w_m·(m_τ − m_θ)² + w_c·(c_τ − c_θ)² + w_b·networkDistance(ref, θ))``
  over *available* memory m_θ and CPU c_θ, with memory and CPU normalized
  by the largest node so the weights compare like with like, and the
  rack-aware network distance 0 (same node), 0.5 (same rack), 1 (other rack).
* Memory is hard: a node without enough free memory is never chosen. CPU is
  soft: nodes with enough free CPU are preferred; only when none is left may
  CPU be over-committed, and the plan then carries a warning saying where.
* Several topologies are scheduled onto one cluster in turn (§6.5) by
  :meth:`RStorm.plan_many`, each with its own reference node.

Complexity: O(T·N) for T tasks on N nodes, vectorized over nodes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.schedulers.base import (
    EPS,
    BaseScheduler,
    Deadline,
    Placement,
    allowed_mask,
    capacity_shortfalls,
    register,
)


def bfs_components(topology: Topology) -> list[str]:
    """Algorithm 2: BFS over components from the spouts; neighbours in both directions."""
    neighbours: dict[str, list[str]] = {op: [] for op in topology.ids}
    for s in topology.streams:
        if s.target not in neighbours[s.source]:
            neighbours[s.source].append(s.target)
    for s in topology.streams:
        if s.source not in neighbours[s.target]:
            neighbours[s.target].append(s.source)
    visited: list[str] = []
    seen: set[str] = set()
    roots = [op.id for op in topology.sources] + list(topology.ids)
    for root in roots:
        if root in seen:
            continue
        queue = deque([root])
        seen.add(root)
        visited.append(root)
        while queue:
            com = queue.popleft()
            for n in neighbours[com]:
                if n not in seen:
                    seen.add(n)
                    visited.append(n)
                    queue.append(n)
    return visited


def task_order(topology: Topology, counts: dict[str, int] | None = None) -> list[int]:
    """Algorithm 3: one task per component per round, components in BFS order (operator indices)."""
    comps = [topology.index[c] for c in bfs_components(topology)]
    left = {i: (counts or {}).get(topology.operators[i].id, topology.operators[i].replicas) for i in comps}
    order: list[int] = []
    while any(left.values()):
        for i in comps:
            if left[i] > 0:
                order.append(i)
                left[i] -= 1
    return order


def reference_node(free_mem: np.ndarray, free_cpu: np.ndarray, cluster: Cluster, candidates: np.ndarray) -> int:
    """The node with most available resources in the rack with most available resources."""
    resources = free_mem / cluster.memory.max() + free_cpu / cluster.cpu.max()
    resources = np.where(candidates, resources, 0.0)
    per_rack = np.bincount(cluster.rack_index, weights=resources, minlength=len(cluster.racks))
    rack = int(np.argmax(per_rack))
    in_rack = np.where((cluster.rack_index == rack) & candidates, resources, -np.inf)
    if not np.isfinite(in_rack).any():
        return int(np.argmax(np.where(candidates, resources, -np.inf)))
    return int(np.argmax(in_rack))


@register
@dataclass(frozen=True)
class RStorm(BaseScheduler):
    """R-Storm: hard memory, soft CPU, rack-aware distance to a reference node."""

    name = "r-storm"
    summary = "R-Storm (Peng et al. 2015): BFS task order, Euclidean node selection around a reference node"

    weights: dict[str, float] = field(default_factory=lambda: {"memory": 1.0, "cpu": 1.0, "network": 1.0})
    cpu: Literal["soft", "hard"] = "soft"  # "hard": never over-commit declared CPU

    @property
    def cpu_hard(self) -> bool:  # type: ignore[override]
        return self.cpu == "hard"

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        free_mem = cluster.memory.astype(float).copy()
        free_cpu = cluster.cpu.astype(float).copy()
        return self._schedule(topology, cluster, free_mem, free_cpu, deadline)

    def _schedule(self, topology: Topology, cluster: Cluster, free_mem: np.ndarray, free_cpu: np.ndarray,
                  deadline: Deadline) -> Placement:
        """Place every task of one topology, consuming ``free_mem``/``free_cpu`` in place (atomic on failure)."""
        mem0, cpu0 = free_mem.copy(), free_cpu.copy()
        mask = allowed_mask(topology, cluster)
        mem_d = np.array([op.memory_mb for op in topology.operators], dtype=float)
        cpu_d = np.array([op.cpu for op in topology.operators], dtype=float)
        w_m = float(self.weights.get("memory", 1.0))
        w_c = float(self.weights.get("cpu", 1.0))
        w_b = float(self.weights.get("network", 1.0))
        m_norm, c_norm = float(cluster.memory.max()), float(cluster.cpu.max())
        counts = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
        order = task_order(topology)
        ref: int | None = None
        soft: dict[str, int] = {}
        timed_out_at: int | None = None
        for t, i in enumerate(order):
            fits_mem = mask[i] & (free_mem >= mem_d[i] - EPS)
            if not fits_mem.any():
                allowed = np.flatnonzero(mask[i])
                best = allowed[int(np.argmax(free_mem[allowed]))]
                reason = (f"{topology.operators[i].id} needs {mem_d[i]:g} MB per replica (task {t + 1} of "
                          f"{len(order)}); the node with the most free memory it may use, "
                          f"{cluster.nodes[best].id}, has {free_mem[best]:g} MB free after the earlier tasks "
                          "(memory is a hard constraint)")
                free_mem[:], free_cpu[:] = mem0, cpu0
                return Placement(None, "infeasible", [reason])
            fits_cpu = fits_mem & (free_cpu >= cpu_d[i] - EPS)
            if self.cpu == "hard" and not fits_cpu.any():
                reason = (f"{topology.operators[i].id} needs {cpu_d[i]:g} CPU points and {mem_d[i]:g} MB per "
                          f"replica; no node it may use has both free (most free CPU: "
                          f"{free_cpu[mask[i]].max():g} points)")
                free_mem[:], free_cpu[:] = mem0, cpu0
                return Placement(None, "infeasible", [reason])
            if timed_out_at is None and deadline.expired():
                timed_out_at = t
            if timed_out_at is not None:
                cand = fits_cpu if fits_cpu.any() else fits_mem
                u = int(np.argmax(cand))
            else:
                if ref is None:
                    ref = reference_node(free_mem, free_cpu, cluster, mask.any(axis=0))
                    first = fits_cpu if fits_cpu.any() else fits_mem
                    if first[ref]:
                        u = ref
                        counts[i, u] += 1
                        free_mem[u] -= mem_d[i]
                        free_cpu[u] -= cpu_d[i]
                        continue
                cand = fits_cpu if fits_cpu.any() else fits_mem
                d2 = (w_m * ((mem_d[i] - free_mem) / m_norm) ** 2
                      + w_c * ((cpu_d[i] - free_cpu) / c_norm) ** 2
                      + w_b * cluster.network_distance[ref])
                u = int(np.argmin(np.where(cand, d2, np.inf)))
            if not fits_cpu[u]:
                soft[cluster.nodes[u].id] = soft.get(cluster.nodes[u].id, 0) + 1
            counts[i, u] += 1
            free_mem[u] -= mem_d[i]
            free_cpu[u] -= cpu_d[i]
        result = Placement(counts)
        if soft:
            over = ", ".join(f"{n} ({-free_cpu[cluster.index[n]]:g} points over)" for n in soft)
            result.warnings.append(f"declared CPU over-committed (soft constraint) on: {over}")
        if timed_out_at is not None:
            result.status = "timeout"
            result.explanation.append(
                f"time limit of {self.time_limit_s:g} s reached after {timed_out_at} of {len(order)} tasks; "
                "the rest were placed first-fit")
        return result

    def plan_many(self, topologies: list[Topology], cluster: Cluster, profile: Profile | None = None) -> list[Plan]:
        """Schedule several topologies onto one cluster in turn (paper §6.5); each sees what is left."""
        free_mem = cluster.memory.astype(float).copy()
        free_cpu = cluster.cpu.astype(float).copy()
        plans = []
        for topo in topologies:
            deadline = Deadline(self.time_limit_s)
            reasons = capacity_shortfalls(topo, cluster, self.requested_counts(topo), cpu_hard=self.cpu_hard,
                                          used_memory=cluster.memory - free_mem, used_cpu=cluster.cpu - free_cpu)
            if reasons:
                plans.append(self._infeasible(topo, cluster, reasons, deadline))
                continue
            result = self._schedule(topo, cluster, free_mem, free_cpu, deadline)
            if result.counts is None:
                plans.append(self._infeasible(topo, cluster, result.explanation, deadline))
            else:
                plans.append(self.finish(topo, cluster, profile, result, deadline))
        return plans
