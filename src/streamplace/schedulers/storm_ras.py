"""Storm 2.4.0's Resource Aware Scheduler (RAS) with its ``DefaultResourceAwareStrategy``: the static resource-aware
baseline of Ecker et al. (2025, §6), registered as ``storm-ras``.

What Storm 2.4.0 does (read in apache/storm: ``BaseResourceAwareStrategy``, ``DefaultResourceAwareStrategy``,
``conf/defaults.yaml``; nothing copied), as this model keeps it:

1. **Executor order** (``orderExecutors``): components sorted by their connections — Σ over neighbours (either
   direction) of the product of both replica counts — most first, ties by id; then, for each component in that
   order, one executor of it and one of each neighbour (neighbours by their connections to it, fewest first,
   ties by id), round after round while any of them has executors left.
2. **Node order**: before each executor, the supervisors sorted by how many of this topology's executors they
   hold already (most first), then by the least of their available CPU's and memory's shares of the cluster's
   available (highest first), then by the mean of the two shares, then the cluster's order (one rack: no
   DNS-to-switch mapping).
3. **First fit**: the executor goes to the first supervisor with its requested CPU (points, 100 = one core) and
   on-heap memory free, in a worker slot whose heap stays within ``topology.worker.max.heap.size.mb``; if none
   has room, RAS leaves the whole topology unscheduled — here an ``infeasible`` plan saying what was requested
   and what was left.

The requests are each operator's declared ``cpu`` and ``memory_mb`` (a component that sets its own resources,
as Ecker et al.'s topologies declare Storm's defaults, 10 points and 128 MB) unless ``cpu_percent`` /
``onheap_mb`` give every component one (Storm's ``topology.component.cpu.pcore.percent`` and
``topology.component.resources.onheap.memory.mb``, for components that set none). A supervisor's capacity is
its full CPU and memory (``supervisor.cpu.capacity``: RAS knows no utilization limit); its worker slots are the
node's ``slots``. Not modelled: acker and system executors (the papers' model has no acking), off-heap memory,
generic resources and several topologies competing. Pinning, which Storm's RAS does not have, is honoured as
streamplace's contract asks (a hard constraint): a pinned operator's executors are first fit on its nodes
only, the order otherwise RAS's.

Everything here is pure and deterministic. Complexity: O(E · N log N) for E executors on N supervisors (the
supervisors re-sorted per executor, as the strategy does), plus O(E · degree) for the executor order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.schedulers.base import EPS, BaseScheduler, Deadline, Placement, register

#: Storm 2.4.0's ``topology.worker.max.heap.size.mb`` default: at most this much on-heap memory per worker
RAS_HEAP_MB = 768.0


def ras_executor_order(topology: Topology) -> list[str]:
    """Storm 2.4.0's ``BaseResourceAwareStrategy.orderExecutors`` over a topology's replicas (one executor each):
    components sorted by their connections (Σ over neighbours of both replica counts' product), most first, ties
    by id; then for each component in that order, one executor of it and one of each neighbour (neighbours sorted
    by their connections to it, fewest first, ties by id), repeated while any of them has executors left.
    Returns the component of each executor in scheduling order. O(E · degree)."""
    n = {op.id: op.replicas for op in topology.operators}
    neighbours: dict[str, set[str]] = {op.id: set() for op in topology.operators}
    for s in topology.streams:
        if s.source != s.target:
            neighbours[s.source].add(s.target)
            neighbours[s.target].add(s.source)
    connections = {c: sum(n[x] * n[c] for x in neighbours[c]) for c in n}
    left = dict(n)
    out: list[str] = []
    for c in sorted(n, key=lambda c: (-connections[c], c)):
        around = sorted(neighbours[c], key=lambda x: (n[x] * n[c], x))
        while True:
            took = False
            for x in (c, *around):
                if left[x] > 0:
                    left[x] -= 1
                    out.append(x)
                    took = True
            if not took:
                break
    return out


@dataclass(frozen=True)
class RasResult:
    """What :func:`ras_assign` did: the node index of each executor placed, in scheduling order (with its
    component), and — when one fitted nowhere — why, as a sentence (then RAS schedules nothing)."""

    placed: tuple[tuple[str, int], ...]
    unplaced: str | None = None

    def replicas(self, cluster: Cluster) -> dict[str, dict[str, int]] | None:
        """``{operator: {node: count}}`` in placement order; None when RAS left the topology unscheduled."""
        if self.unplaced is not None:
            return None
        out: dict[str, dict[str, int]] = {}
        for comp, u in self.placed:
            per = out.setdefault(comp, {})
            name = cluster.nodes[u].id
            per[name] = per.get(name, 0) + 1
        return out


def ras_assign(topology: Topology, cluster: Cluster, heap_mb: float = RAS_HEAP_MB, cpu: float | None = None,
               memory: float | None = None) -> RasResult:
    """Storm 2.4.0's ``DefaultResourceAwareStrategy`` (one rack): each executor in :func:`ras_executor_order` goes
    to the first node, in the order (most of this topology's executors already there; the least available
    resource's share of the cluster's available, highest; the mean share, highest; cluster order), with room for
    its requested CPU and memory on a worker slot whose heap stays within ``heap_mb`` (a pinned operator: on its
    nodes only). Requests: ``cpu`` points and ``memory`` MB per executor, None for each operator's declared ``cpu``
    / ``memory_mb``. O(E · N log N)."""
    ops = {op.id: op for op in topology.operators}
    row = {op.id: i for i, op in enumerate(topology.operators)}
    allowed = allowed_mask(topology, cluster)
    nodes = cluster.nodes
    free_cpu = np.array([u.cpu for u in nodes], dtype=float)
    free_mem = np.array([u.memory_mb for u in nodes], dtype=float)
    heap = [[0.0] * max(1, u.slots) for u in nodes]
    held = [0] * len(nodes)
    order = ras_executor_order(topology)
    placed: list[tuple[str, int]] = []
    for k, comp in enumerate(order):
        need_cpu = ops[comp].cpu if cpu is None else cpu
        need_mem = ops[comp].memory_mb if memory is None else memory
        total_cpu, total_mem = free_cpu.sum(), free_mem.sum()
        share_cpu = free_cpu / total_cpu if total_cpu > 0 else np.zeros_like(free_cpu)
        share_mem = free_mem / total_mem if total_mem > 0 else np.zeros_like(free_mem)
        low, mean = np.minimum(share_cpu, share_mem), (share_cpu + share_mem) / 2
        chosen = None
        for u in sorted(range(len(nodes)), key=lambda u: (-held[u], -low[u], -mean[u], u)):
            if not allowed[row[comp], u] or free_cpu[u] + EPS < need_cpu or free_mem[u] + EPS < need_mem:
                continue
            slot = next((s for s, used in enumerate(heap[u]) if used + need_mem <= heap_mb + EPS), None)
            if slot is not None:
                chosen = (u, slot)
                break
        if chosen is None:
            return RasResult(tuple(placed), _unplaced(comp, k, len(order), need_cpu, need_mem, heap_mb, cluster,
                                                      allowed[row[comp]], free_cpu, free_mem, heap))
        u, slot = chosen
        free_cpu[u] -= need_cpu
        free_mem[u] -= need_mem
        heap[u][slot] += need_mem
        held[u] += 1
        placed.append((comp, u))
    return RasResult(tuple(placed))


def _unplaced(comp: str, k: int, total: int, need_cpu: float, need_mem: float, heap_mb: float, cluster: Cluster,
              allowed: np.ndarray, free_cpu: np.ndarray, free_mem: np.ndarray, heap: list[list[float]]) -> str:
    """Why executor ``k`` of ``comp`` fits on no supervisor it may use (``allowed``): requested against the most
    left of each resource there."""
    ids = cluster.ids
    may = np.flatnonzero(allowed)
    u_cpu, u_mem = int(may[np.argmax(free_cpu[may])]), int(may[np.argmax(free_mem[may])])
    room = np.array([heap_mb - min(slots) for slots in heap])
    u_heap = int(may[np.argmax(room[may])])
    both = [int(u) for u in may if free_cpu[u] + EPS >= need_cpu and free_mem[u] + EPS >= need_mem]
    where = "supervisor" if len(may) == len(cluster) else "supervisor it is pinned to"
    why = (f"no {where} has both free" if not both else
           f"the supervisors with both free ({', '.join(ids[u] for u in both[:3])}"
           f"{', …' if len(both) > 3 else ''}) have no worker with {need_mem:g} MB of heap left "
           f"(topology.worker.max.heap.size.mb = {heap_mb:g})")
    fix = "a larger worker_heap_mb or more slots per node" if both else "more or larger nodes, or smaller requests"
    return (f"executor {k + 1} of {total} ({comp}) requests {need_cpu:g} CPU points and {need_mem:g} MB; "
            f"{why}: most CPU left {free_cpu[u_cpu]:g} points ({ids[u_cpu]}), most memory left "
            f"{free_mem[u_mem]:g} MB ({ids[u_mem]}), most heap left in a worker {float(room[u_heap]):g} MB "
            f"({ids[u_heap]}); RAS leaves the topology unscheduled (fix: {fix})")


def storm_ras(topology: Topology, cluster: Cluster, heap_mb: float = RAS_HEAP_MB) -> dict[str, dict[str, int]] | None:
    """:func:`ras_assign` with the declared requests, as ``{operator: {node: count}}``; None when an executor fits
    nowhere (RAS then leaves the topology unscheduled). O(E · N log N)."""
    return ras_assign(topology, cluster, heap_mb).replicas(cluster)


@register
@dataclass(frozen=True)
class StormRas(BaseScheduler):
    """Storm 2.4.0's Resource Aware Scheduler: the topology's replica counts, placed as RAS would."""

    name = "storm-ras"
    summary = ("Storm 2.4.0's Resource Aware Scheduler (DefaultResourceAwareStrategy): executors by connections, "
               "first fit on the supervisors holding most of the topology, then most available; CPU and memory hard")

    #: ``topology.worker.max.heap.size.mb``: the on-heap MB one worker (slot) may hold
    worker_heap_mb: float = RAS_HEAP_MB
    #: every executor's CPU request in points (``topology.component.cpu.pcore.percent``); None: each operator's
    #: declared ``cpu``
    cpu_percent: float | None = None
    #: every executor's on-heap MB (``topology.component.resources.onheap.memory.mb``); None: each operator's
    #: declared ``memory_mb``
    onheap_mb: float | None = None

    @property
    def cpu_hard(self) -> bool:  # type: ignore[override]  # base: a ClassVar; here the requests decide
        """The declared CPU is hard when it is what RAS was asked for (it never over-commits a request)."""
        return self.cpu_percent is None

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        result = ras_assign(topology, cluster, self.worker_heap_mb, self.cpu_percent, self.onheap_mb)
        if result.unplaced is not None:
            return Placement(None, "infeasible", [result.unplaced])
        index = {op.id: i for i, op in enumerate(topology.operators)}
        counts = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
        for comp, u in result.placed:
            counts[index[comp], u] += 1
        return Placement(counts)
