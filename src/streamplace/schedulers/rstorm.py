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

Complexity: O(N log N + T + R·D·log G) for T tasks of D distinct demands (memory, CPU; up to HEAP_DEMANDS) on
N nodes that fall in G groups of alike nodes (NodeStates: same free memory, free CPU and distance; a handful on
a homogeneous cluster, at most N), placed in R runs (tasks that go to one node in a row; about the nodes used):
each demand keeps a heap of the groups by score; a run's node is held out of the groups and scored on its own,
O(1) per task, and joins its group when the run ends, pushing it into D heaps. With more distinct demands,
O(N log N + T·G), the groups scanned per task (vectorized beyond PYTHON_GROUPS); an operator restricted to some
nodes scans all N for its tasks. The per-task bookkeeping is in Python floats and lists, not numpy scalars
(issue 56: 500,000 tasks).
"""

from __future__ import annotations

import heapq
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
    """Algorithm 3: one task per component per round, components in BFS order (operator indices): task r of the
    component at position p comes at (round r, position p), sorted in numpy. O(T log T) for T tasks."""
    comps = [topology.index[c] for c in bfs_components(topology)]
    n = np.maximum([(counts or {}).get(topology.operators[i].id, topology.operators[i].replicas) for i in comps],
                   0).astype(np.int64)
    owner = np.repeat(np.arange(len(comps), dtype=np.int64), n)  # each task's component position
    rounds = np.arange(len(owner), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    at = np.argsort(rounds * max(len(comps), 1) + owner, kind="stable")
    return np.asarray(comps, dtype=np.int64)[owner[at]].tolist()


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


class NodeStates:
    """The nodes grouped by what Algorithm 4 sees of them: free memory, free CPU and distance to the reference
    node. Nodes of one group score alike and the lowest-indexed node wins a tie, so a task needs only each
    group's score and its lowest node: on a homogeneous cluster a handful of groups (untouched nodes per
    distance, the node being filled, full nodes) stand for thousands of nodes. Each group keeps its nodes in a
    heap; a node that leaves a group is dropped from the heap when it reaches the top. The choice is the one a
    scan of every node makes (same scores, same tie-break), in O(groups) per task instead of O(nodes)."""

    def __init__(self, free_mem: np.ndarray, free_cpu: np.ndarray, dist: np.ndarray,
                 demands: list[tuple[float, float]] | None = None,
                 weights: tuple[float, float, float] = (1.0, 1.0, 1.0), norms: tuple[float, float] = (1.0, 1.0)):
        self.dist = dist
        # With a few distinct task demands (memory, CPU) known in advance, each demand keeps two lazy heaps of
        # (score, lowest node, group) — over the groups with its memory and CPU free, and with its memory free —
        # so a task's choice is a heap's top (stale entries dropped as they surface) instead of a scan of every
        # live group: O(log G) per task and O(D log G) per node moved, for D demands and G groups.
        self.weights, self.norms = weights, norms
        self.demand_of: dict[tuple[float, float], int] = {}
        if demands is not None and len(set(demands)) <= HEAP_DEMANDS:
            for demand in demands:
                self.demand_of.setdefault(demand, len(self.demand_of))
        self.demands = list(self.demand_of)
        self.by_cpu: list[list[tuple[float, int, int]]] = [[] for _ in self.demands]
        self.by_mem: list[list[tuple[float, int, int]]] = [[] for _ in self.demands]
        self.compact_at = COMPACT_AT  # a heap longer than this is cleared of stale entries
        self.slot_of: dict[tuple[float, float, float], int] = {}
        self.keys: list[tuple[float, float, float]] = []  # per group: free memory, free CPU, distance
        self.heaps: list[list[int]] = []
        self.first: list[int] = []  # per group: its lowest node (-1 when empty)
        self.live: dict[int, None] = {}  # the groups with nodes, as an ordered set
        # The node of the current run (-1: none): the last node given a task, held out of the groups while the
        # tasks that follow go to it too, with its free memory and CPU; the other nodes' best entry per demand
        # for the run (the heaps do not change during a run). A run costs one node's moves between groups, not
        # one per task: a node of 400 points takes about 40 tasks of 10 in a row (issue 56).
        self.run = -1
        self.run_free = (0.0, 0.0)
        self.run_best: list[tuple[tuple[float, int] | None, tuple[float, int] | None] | None] = [None] * len(
            self.demands)
        keys = np.stack([free_mem, free_cpu, dist], axis=1)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        for row in uniq:
            self._slot((float(row[0]), float(row[1]), float(row[2])))
        self.node_slot: list[int] = inverse.reshape(-1).astype(np.intp).tolist()  # a list: read per task
        self.dist_of: list[float] = dist.astype(float).tolist()
        for u, g in enumerate(self.node_slot):  # ascending: each heap is built sorted
            self.heaps[g].append(u)
        for g in range(len(self.heaps)):
            self._top(g)

    def _slot(self, key: tuple[float, float, float]) -> int:
        g = self.slot_of.get(key)
        if g is None:
            g = self.slot_of[key] = len(self.heaps)
            self.keys.append(key)
            self.heaps.append([])
            self.first.append(-1)
        return g

    def move(self, u: int, free_mem: float, free_cpu: float) -> None:
        """Node ``u`` now has these free resources (it was given a task). The node of the current run only records
        them, O(1); another node ends the run — the run's node joins the group of its free resources — and starts
        its own, leaving its group: O(D log G) for D demands and G groups, once per run."""
        if u == self.run:
            self.run_free = (free_mem, free_cpu)
            return
        if self.run >= 0:
            self._join(self.run, *self.run_free)
        old = self.node_slot[u]
        self.node_slot[u] = -1  # in no group: its entries in its group's heap are stale from now on
        self._top(old)
        self.run, self.run_free = u, (free_mem, free_cpu)
        self.run_best = [None] * len(self.demands)

    def _join(self, u: int, free_mem: float, free_cpu: float) -> None:
        """Node ``u``, in no group, into the group of these free resources."""
        key = (free_mem, free_cpu, self.dist_of[u])
        g = self.slot_of.get(key)
        if g is None:
            g = self._slot(key)
        self.node_slot[u] = g
        heapq.heappush(self.heaps[g], u)
        self._top(g)

    def _top(self, g: int) -> None:
        heap = self.heaps[g]
        while heap and self.node_slot[heap[0]] != g:
            heapq.heappop(heap)
        was = self.first[g]
        self.first[g] = heap[0] if heap else -1
        if heap:
            self.live[g] = None
            if self.demands and heap[0] != was:
                self._announce(g)
        else:
            self.live.pop(g, None)

    def _announce(self, g: int) -> None:
        """Group ``g``'s score and lowest node into the heaps of the demands it can take (as ``best`` scores)."""
        m, c, d = self.keys[g]
        w_m, w_c, w_b = self.weights
        m_norm, c_norm = self.norms
        f = self.first[g]
        by_mem, by_cpu, push = self.by_mem, self.by_cpu, heapq.heappush
        for k, (mem, cpu) in enumerate(self.demands):
            if not m >= mem - EPS:
                continue
            x, y = (mem - m) / m_norm, (cpu - c) / c_norm
            entry = (w_m * (x * x) + w_c * (y * y) + w_b * d, f, g)
            push(by_mem[k], entry)
            if c >= cpu - EPS:
                push(by_cpu[k], entry)
            if len(by_mem[k]) > self.compact_at:
                self._compact()

    def _compact(self) -> None:
        """Drop the stale entries (a group's former lowest node) that never reached a heap's top: the heaps stay
        within a constant factor of the live groups, amortized O(1) per entry pushed."""
        first = self.first
        for heaps in (self.by_cpu, self.by_mem):
            for k, heap in enumerate(heaps):
                heaps[k] = [entry for entry in heap if first[entry[2]] == entry[1]]
                heapq.heapify(heaps[k])
        self.compact_at = 2 * max(len(heap) for heap in self.by_mem) + COMPACT_AT

    def _heap_best(self, heap: list[tuple[float, int, int]]) -> tuple[float, int] | None:
        """The score and lowest node of the best-scoring group still holding it in ``heap`` (None: none)."""
        first = self.first
        while heap and first[heap[0][2]] != heap[0][1]:
            heapq.heappop(heap)
        return (heap[0][0], heap[0][1]) if heap else None

    def best(self, mem: float, cpu: float, weights: tuple[float, float, float],
             norms: tuple[float, float]) -> tuple[int, int]:
        """The node Algorithm 4 picks (least score, lowest index on a tie) among the nodes with the memory and CPU
        free for a task, and among those with the memory free; -1 where there is none. The groups' best come
        from the demand's heaps (once per run: O(log G) amortized) or a scan of the groups (O(G)); the run's node
        is scored on its own, O(1)."""
        k = self.demand_of.get((mem, cpu))
        if k is not None and weights == self.weights and norms == self.norms:
            return self.best_of_demand(k, mem, cpu)
        o_cpu, o_mem = self._scan(mem, cpu, weights, norms)
        return self._with_run(o_cpu, o_mem, mem, cpu, weights, norms)

    def best_of_demand(self, k: int, mem: float, cpu: float) -> tuple[int, int]:
        """:meth:`best` for the ``k``-th demand (``mem``, ``cpu``) of those given, under the weights and norms given:
        the other nodes' best from the demand's heaps once per run, the run's node scored here. O(1) but the
        first of a run (amortized O(log G))."""
        found = self.run_best[k]
        if found is None:
            found = self.run_best[k] = (self._heap_best(self.by_cpu[k]), self._heap_best(self.by_mem[k]))
        return self._with_run(found[0], found[1], mem, cpu, self.weights, self.norms)

    def _with_run(self, o_cpu: tuple[float, int] | None, o_mem: tuple[float, int] | None, mem: float, cpu: float,
                  weights: tuple[float, float, float], norms: tuple[float, float]) -> tuple[int, int]:
        """The nodes :meth:`best` picks, given the other groups' best (``o_cpu``: with the memory and CPU free,
        ``o_mem``: with the memory free; None: none) and the run's node, scored here: O(1)."""
        u = self.run
        if u >= 0:
            m, c = self.run_free
            if m >= mem - EPS:
                w_m, w_c, w_b = weights
                x, y = (mem - m) / norms[0], (cpu - c) / norms[1]
                key = (w_m * (x * x) + w_c * (y * y) + w_b * self.dist_of[u], u)
                if o_mem is None or key < o_mem:
                    o_mem = key
                if c >= cpu - EPS and (o_cpu is None or key < o_cpu):
                    o_cpu = key
        return (o_cpu[1] if o_cpu is not None else -1), (o_mem[1] if o_mem is not None else -1)

    def _scan(self, mem: float, cpu: float, weights: tuple[float, float, float],
              norms: tuple[float, float]) -> tuple[tuple[float, int] | None, tuple[float, int] | None]:
        """(score, lowest node) of the best group with the memory and CPU free, and with the memory free (None:
        none), by scanning the groups: O(G)."""
        w_m, w_c, w_b = weights
        if len(self.live) > PYTHON_GROUPS:
            live = list(self.live)
            m, c, d = np.array([self.keys[g] for g in live]).T
            first = np.array([self.first[g] for g in live])
            d2 = w_m * ((mem - m) / norms[0]) ** 2 + w_c * ((cpu - c) / norms[1]) ** 2 + w_b * d
            fits_mem = m >= mem - EPS
            out: list[tuple[float, int] | None] = []
            for ok in (fits_mem & (c >= cpu - EPS), fits_mem):
                if not ok.any():
                    out.append(None)
                    continue
                score = np.where(ok, d2, np.inf)
                low = score.min()
                out.append((float(low), int(first[score == low].min())))
            return out[0], out[1]
        best_cpu: tuple[float, int] | None = None
        best_mem: tuple[float, int] | None = None
        for g in self.live:  # a few groups: plain Python beats numpy's per-call cost
            m, c, d = self.keys[g]
            if not m >= mem - EPS:
                continue
            x, y = (mem - m) / norms[0], (cpu - c) / norms[1]
            key = (w_m * (x * x) + w_c * (y * y) + w_b * d, self.first[g])
            if best_mem is None or key < best_mem:
                best_mem = key
            if c >= cpu - EPS and (best_cpu is None or key < best_cpu):
                best_cpu = key
        return best_cpu, best_mem


#: up to this many groups of nodes, a task's choice loops in Python; beyond it, in numpy
PYTHON_GROUPS = 48
#: up to this many distinct task demands (memory, CPU), NodeStates keeps a heap per demand instead of scanning
HEAP_DEMANDS = 8
#: the least length at which a demand's heap is cleared of stale entries
COMPACT_AT = 1024


@register
@dataclass(frozen=True)
class RStorm(BaseScheduler):
    """R-Storm: hard memory, soft CPU, rack-aware distance to a reference node."""

    name = "r-storm"
    summary = "R-Storm (Peng et al. 2015): BFS task order, Euclidean node selection around a reference node"

    weights: dict[str, float] = field(default_factory=lambda: {"memory": 1.0, "cpu": 1.0, "network": 1.0})
    cpu: Literal["soft", "hard"] = "soft"  # "hard": never over-commit declared CPU

    @property
    def cpu_hard(self) -> bool:  # type: ignore[override]  # base: a ClassVar; here it follows the `cpu` field
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
        demands = sorted({(float(mem_d[i]), float(cpu_d[i])) for i in set(order)})
        ref: int | None = None
        states: NodeStates | None = None  # built once the reference node is known
        whole: np.ndarray = np.all(mask, axis=1)  # operators that may use every node: their choice goes by node groups
        dist = np.zeros(len(cluster))
        weights, norms = (w_m, w_c, w_b), (m_norm, c_norm)
        soft: dict[str, int] = {}
        timed_out_at: int | None = None
        whole_of, mem_of, cpu_of = whole.tolist(), mem_d.tolist(), cpu_d.tolist()  # Python values, read per task
        fmem, fcpu = free_mem.tolist(), free_cpu.tolist()  # the free resources as Python floats, read per task
        placed_op: list[int] = []  # task t went to node placed_node[t]: counted once at the end
        placed_node: list[int] = []
        hard = self.cpu == "hard"
        demand_k: list[int] = []  # per operator, its demand's heaps in NodeStates (-1: none, scanned)
        for t, i in enumerate(order):
            grouped = states is not None and whole_of[i]
            if grouped:
                assert states is not None
                k = demand_k[i]
                u_cpu, u_mem = (states.best_of_demand(k, mem_of[i], cpu_of[i]) if k >= 0 else
                                states.best(mem_of[i], cpu_of[i], weights, norms))
                any_mem, any_cpu = u_mem >= 0, u_cpu >= 0
            else:
                fits_mem = mask[i] & (free_mem >= mem_d[i] - EPS)
                fits_cpu = fits_mem & (free_cpu >= cpu_d[i] - EPS)
                any_mem, any_cpu = bool(fits_mem.any()), bool(fits_cpu.any())
            if not any_mem:
                allowed = np.flatnonzero(mask[i])
                best = allowed[int(np.argmax(free_mem[allowed]))]
                reason = (f"{topology.operators[i].id} needs {mem_d[i]:g} MB per replica (task {t + 1} of "
                          f"{len(order)}); the node with the most free memory it may use, "
                          f"{cluster.nodes[best].id}, has {free_mem[best]:g} MB free after the earlier tasks "
                          "(memory is a hard constraint)")
                free_mem[:], free_cpu[:] = mem0, cpu0
                return Placement(None, "infeasible", [reason])
            if hard and not any_cpu:
                reason = (f"{topology.operators[i].id} needs {cpu_d[i]:g} CPU points and {mem_d[i]:g} MB per "
                          f"replica; no node it may use has both free (most free CPU: "
                          f"{free_cpu[mask[i]].max():g} points)")
                free_mem[:], free_cpu[:] = mem0, cpu0
                return Placement(None, "infeasible", [reason])
            if timed_out_at is None and not t & 63 and deadline.expired():  # the clock read every 64 tasks
                timed_out_at = t
            if timed_out_at is not None:  # first fit
                fits_mem = mask[i] & (free_mem >= mem_d[i] - EPS)
                fits_cpu = fits_mem & (free_cpu >= cpu_d[i] - EPS)
                u = int(np.argmax(fits_cpu if any_cpu else fits_mem))
            elif grouped:
                u = u_cpu if any_cpu else u_mem
            else:
                cand = fits_cpu if any_cpu else fits_mem
                u = -1
                if ref is None:
                    ref = reference_node(free_mem, free_cpu, cluster, np.any(mask, axis=0))
                    dist = cluster.distance_from(ref)
                    states = NodeStates(free_mem, free_cpu, dist, demands, weights, norms)
                    demand_k = [states.demand_of.get((m, c), -1) for m, c in zip(mem_of, cpu_of, strict=True)]
                    if cand[ref]:
                        u = ref
                if u < 0:
                    d2 = (w_m * ((mem_d[i] - free_mem) / m_norm) ** 2
                          + w_c * ((cpu_d[i] - free_cpu) / c_norm) ** 2
                          + w_b * dist)
                    u = int(np.argmin(np.where(cand, d2, np.inf)))
            # the same float64 subtractions as on the arrays, in Python floats (no numpy scalar per task)
            fm, fc = fmem[u], fcpu[u]
            if not fc >= cpu_of[i] - EPS:
                soft[cluster.nodes[u].id] = soft.get(cluster.nodes[u].id, 0) + 1
            placed_op.append(i)
            placed_node.append(u)
            fm, fc = fm - mem_of[i], fc - cpu_of[i]
            free_mem[u], free_cpu[u] = fmem[u], fcpu[u] = fm, fc
            if states is not None:
                if u == states.run:  # the run goes on: O(1)
                    states.run_free = (fm, fc)
                else:
                    states.move(u, fm, fc)
        # counted at the end: the tasks' cells sorted, each distinct cell added once (np.add.at takes 1.5 s for
        # 500,000 tasks; a sort of their flat indices a few ms). O(T log T).
        cell = np.sort(np.array(placed_op, dtype=np.int64) * len(cluster) + np.array(placed_node, dtype=np.int64))
        if len(cell):
            first = np.flatnonzero(np.concatenate(([True], cell[1:] != cell[:-1])))
            counts.reshape(-1)[cell[first]] += np.diff(np.append(first, len(cell)))
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
