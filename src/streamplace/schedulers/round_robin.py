"""Round robin after Storm's default EvenScheduler: blind to resources, even over worker slots.

A simplification of Storm's deal, kept as the plain baseline: no ``__acker`` executors and the nodes' slots
interleaved in the cluster's order. ``storm-even`` (storm_even.py) is Storm 0.9.5's own, acker and
``sort-slots`` included; in the cluster's order, with an acker per worker and equal slot counts, the two place
the same.

Storm takes ``workers`` worker slots, interleaved across nodes (slot 1 of
every node, then slot 2, …), sorts executors by component id and deals them
round-robin over those workers. Pinned operators are dealt over the workers
of their allowed nodes only. Because it ignores resources, the plan may break
memory; it is then reported ``infeasible`` with the node and the overshoot,
never returned as if it could run.

Complexity: O(T + S + ops·N) for T tasks, S slots and N nodes, in numpy (an operator's replicas dealt
in one step), plus one scan of the (ops × N) counts for their nonzero cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.schedulers.base import EPS, BaseScheduler, Deadline, Placement, register


def interleaved_slots(cluster: Cluster) -> list[int]:
    """Node index of each worker slot, interleaved across nodes as Storm's ``sort-slots`` does: O(S + N·max
    slots) in numpy."""
    slots = np.array([n.slots for n in cluster.nodes], dtype=np.int64)
    most = int(slots.max())
    return np.concatenate([np.flatnonzero(slots > k) for k in range(most)]).tolist()


@register
@dataclass(frozen=True)
class RoundRobin(BaseScheduler):
    """A round robin after Storm's default scheduler (storm-even: Storm 0.9.5's own)."""

    name = "round-robin"
    summary = ("round robin after Storm's EvenScheduler: executors dealt over worker slots in the cluster's order, "
               "resource-blind (storm-even is Storm 0.9.5's own)")

    workers: int | None = None  # worker slots to use (Storm's topology.workers); default one per node

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.workers is not None and self.workers < 1:
            raise SchedulerParamError(f"round-robin.workers must be >= 1, got {self.workers}")

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        slots = interleaved_slots(cluster)
        n_workers = len(cluster) if self.workers is None else self.workers
        workers = slots[: min(n_workers, len(slots))]
        dealing = np.array(workers, dtype=np.intp)
        mask = allowed_mask(topology, cluster)
        n = len(cluster)
        counts = np.zeros((len(topology.operators), n), dtype=np.int64)
        dealt = 0
        pinned_dealt: dict[tuple[int, ...], int] = {}
        for i in sorted(range(len(topology.operators)), key=lambda k: topology.operators[k].id):
            op = topology.operators[i]
            if op.pinned is None:  # replica r goes to worker (dealt + r) mod W
                counts[i] += np.bincount(dealing[(dealt + np.arange(op.replicas)) % len(workers)], minlength=n)
                dealt += op.replicas
                continue
            own = [u for u in workers if mask[i, u]] or [u for u in slots if mask[i, u]]
            key = tuple(sorted(set(own)))
            k = pinned_dealt.get(key, 0)
            counts[i] += np.bincount(np.array(own, dtype=np.intp)[(k + np.arange(op.replicas)) % len(own)],
                                     minlength=n)
            pinned_dealt[key] = k + op.replicas
        # per node, Σ over operators in order (as a sum down the columns of counts × memory), over the nonzero cells
        op_at, node_at = np.nonzero(counts)
        memory = np.bincount(node_at, weights=counts[op_at, node_at] * np.array(
            [o.memory_mb for o in topology.operators])[op_at], minlength=len(cluster))
        over = np.flatnonzero(memory > cluster.memory + EPS)
        if over.size:
            reasons = [
                f"round-robin ignores resources and would put {memory[u]:,.0f} MB on {cluster.nodes[u].id}, "
                f"which has {cluster.memory[u]:,.0f} MB (memory is hard; fix: use r-storm or ffd, "
                "or more workers)"
                for u in over[:5]
            ]
            if over.size > 5:
                reasons.append(f"… and {over.size - 5} more nodes over their memory")
            return Placement(None, "infeasible", reasons)
        return Placement(counts)
