"""Storm 0.9.5's default scheduler, as Nasiri et al. (2023) ran it: the baseline of their Figs. 13–20.

What Storm 0.9.5 does (read in apache/storm v0.9.5: ``scheduler/DefaultScheduler.clj``,
``scheduler/EvenScheduler.clj``, ``daemon/common.clj``, ``scheduler/Cluster.java``; nothing copied):

1. **Tasks and executors.** The topology Nimbus runs is the user's plus ``__acker`` (with
   ``topology.acker.executors`` tasks — by default as many as ``topology.workers``) and ``__system`` (no
   task). Its components are sorted by id and their tasks numbered from 1 in that order; with the default
   one task per executor an executor is a task. So the executors, sorted by task id, are every component's
   executors in one block, the blocks in component-id order (``__acker`` sorts before lower-case ids: ``_``
   is U+005F).
2. **Slots.** The free worker slots, (supervisor, port), come in the order the cluster lists its supervisors
   — a Java ``HashMap`` keyed by each supervisor's random id, so an order nobody chooses. ``sort-slots``
   groups them by supervisor, orders the groups by their number of free slots, most first (a stable sort:
   equal groups keep their order), and interleaves the groups: every supervisor's first slot, then every
   second slot, and so on.
3. **The deal.** It takes the first W = min(``topology.workers``, free slots) of those slots and deals the
   executors, sorted by task id, round-robin over them: executor k goes to slot k mod W. (DefaultScheduler
   first frees the slots of a topology whose workers are unevenly loaded; a fresh topology has none.)

Nasiri et al. give each machine one worker process (their problem statement) and use Storm's defaults
otherwise; their default runs get the replica counts of their own algorithm (the simulations say so; we
assume it of the 3-machine runs too). So W = one worker per machine and W ackers. The ackers take the
first W executors — one per worker — and shift nothing; they cost nothing in the papers' CPU model,
which has no acking. What is left unknown is the node order of step 2: :func:`node_orders` enumerates or
samples it, and a figure is then a spread over orders, not one number.

Worker processes on one machine share its CPU in streamplace's models, so the result is a count of
replicas per (operator, node). Pinning is not Storm's default scheduler's and is ignored by :func:`even_counts`;
the ``storm-even`` scheduler honours it, as streamplace's contract asks (a hard constraint) and ``round-robin``
does: a pinned operator's executors are dealt over the deal's workers on its nodes instead (:func:`repin`), the
other executors where Storm puts them.

:class:`StormEven` registers it as the ``storm-even`` scheduler: the topology's replica counts placed as above,
the supervisors listed in the cluster's node order unless ``node_order`` or ``seed`` says otherwise — a default
chosen to be reproducible, not Storm's (which no one chooses). It differs from ``round-robin`` where the ackers
shift the deal (``ackers`` ≠ ``workers``), where nodes have unequal slots (``sort-slots`` puts the most free
first) and where the supervisor order is another.

Everything here is a pure function of its inputs. Complexity: O(E log E + S) for E executors and S slots
(the sort of the components, one pass over the slots, one over the executors).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register

#: Storm's acker component id; it sorts before any id that starts with a lower-case letter or a digit ≥ '`'
ACKER = "__acker"
#: the name the plans of this module carry
NAME = "storm-even"

T = TypeVar("T")
Slot = tuple[int, int]  # (node index, port index on that node)


def executor_components(parallelism: Mapping[str, int], ackers: int = 0) -> list[str]:
    """The component of each executor, in Storm's order: components sorted by id (the ``__acker`` block
    included when ``ackers`` > 0), each component's executors together — the order of task ids, one task per
    executor. Python compares strings by code point, as Java's ``String.compareTo`` does by UTF-16 unit for
    every character of the Basic Multilingual Plane. O(C log C + E) for C components and E executors."""
    if ackers < 0 or any(n < 0 for n in parallelism.values()):
        raise ValueError("executor counts must be >= 0")
    if ACKER in parallelism:
        raise ValueError(f"{ACKER!r} is Storm's own component id; a topology cannot use it")
    counts = dict(parallelism)
    if ackers:
        counts[ACKER] = ackers
    return [c for c in sorted(counts) for _ in range(counts[c])]


def sort_slots(slots: Sequence[Slot]) -> list[Slot]:
    """Storm 0.9.5's ``sort-slots``: group the slots by node in the order the nodes first appear, order the
    groups by size, largest first, keeping equal groups in their order (a stable sort, as Clojure's
    ``sort-by`` is), then interleave them — first slots of every group, then second slots, … O(S + N log N)."""
    groups: dict[int, list[Slot]] = {}
    for slot in slots:
        groups.setdefault(slot[0], []).append(slot)
    ordered = sorted(groups.values(), key=len, reverse=True)  # reverse=True keeps equal keys in order
    longest = max((len(g) for g in ordered), default=0)
    return [g[k] for k in range(longest) for g in ordered if k < len(g)]


def deal(executors: Sequence[T], slots: Sequence[Slot], workers: int) -> list[tuple[T, Slot]]:
    """EvenScheduler's assignment: the first W = min(``workers``, len(slots)) slots, executor k to slot k mod W
    (Storm zips the sorted executors with the slots repeated). O(E)."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    used = list(slots[: min(workers, len(slots))])
    if not used:
        raise ValueError("no free worker slot: Storm would leave the topology unassigned")
    return [(e, used[k % len(used)]) for k, e in enumerate(executors)]


def listed_slots(cluster: Cluster, node_order: Sequence[int] | None = None) -> list[Slot]:
    """The free slots as Storm's cluster lists them: node by node in ``node_order`` (None: the cluster's
    order), each node's ``slots`` ports in turn. O(S)."""
    order = range(len(cluster)) if node_order is None else node_order
    if sorted(order) != list(range(len(cluster))):
        raise ValueError(f"node_order must be a permutation of 0..{len(cluster) - 1}, got {list(order)}")
    return [(u, p) for u in order for p in range(cluster.nodes[u].slots)]


def even_counts(topology: Topology, cluster: Cluster, *, workers: int | None = None, ackers: int | None = None,
                node_order: Sequence[int] | None = None) -> np.ndarray:
    """Replicas per (operator, node) — rows in the topology's operator order — of Storm 0.9.5's default
    scheduler placing ``topology``'s requested replica counts on ``cluster``.

    ``workers``: ``topology.workers`` (None: one per node, Nasiri et al.'s set-up); ``ackers``:
    ``topology.acker.executors`` (None: Storm's default, as many as workers); ``node_order``: the order the
    cluster lists its supervisors (None: the cluster's own). O(E log E + S)."""
    w = len(cluster) if workers is None else workers
    a = w if ackers is None else ackers
    index = {op.id: i for i, op in enumerate(topology.operators)}
    executors = executor_components({op.id: op.replicas for op in topology.operators}, a)
    counts = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
    for comp, (node, _port) in deal(executors, sort_slots(listed_slots(cluster, node_order)), w):
        if comp != ACKER:
            counts[index[comp], node] += 1
    return counts


def even_plan(topology: Topology, cluster: Cluster, *, workers: int | None = None, ackers: int | None = None,
              node_order: Sequence[int] | None = None) -> Plan:
    """:func:`even_counts` as a plan at the topology's offered source rates (not predicted: pass it to
    ``perf.evaluate``). O(E log E + S + ops·N)."""
    counts = even_counts(topology, cluster, workers=workers, ackers=ackers, node_order=node_order)
    replicas = {op.id: {cluster.nodes[u].id: int(counts[i, u]) for u in np.flatnonzero(counts[i])}
                for i, op in enumerate(topology.operators)}
    rates = {op.id: float(op.rate) for op in topology.operators if op.rate is not None}
    params = {"workers": len(cluster) if workers is None else workers, "ackers": ackers,
              "node_order": None if node_order is None else [cluster.nodes[u].id for u in node_order]}
    return Plan(scheduler=NAME, topology=topology.name, cluster=cluster.name, replicas=replicas,
                source_rates=rates, params=params)


def node_orders(cluster: Cluster, limit: int = 720, seed: int = 0) -> list[tuple[int, ...]]:
    """Orders of the nodes Storm may list its supervisors in, one per distinct sequence of node types
    (identical machines are interchangeable in the model): all of them when there are at most ``limit``,
    else ``limit`` distinct ones drawn with ``seed`` (the first always the cluster's own order).

    Why: the order comes from a hash of random supervisor ids; no experiment can name it, so a figure of the
    default is a spread over orders. O(min(N!, limit·N) ) — exhaustive only while N! ≤ 40,320 (N ≤ 8)."""
    types = [n.type for n in cluster.nodes]
    distinct = math.factorial(len(types)) // math.prod(math.factorial(types.count(t)) for t in set(types))
    identity = tuple(range(len(cluster)))
    if distinct <= limit and len(types) <= 8:
        seen: dict[tuple[str, ...], tuple[int, ...]] = {}
        for perm in itertools.permutations(identity):
            seen.setdefault(tuple(types[u] for u in perm), perm)
        return [identity] + [p for p in seen.values() if p != identity
                             and tuple(types[u] for u in p) != tuple(types)]
    rng = np.random.default_rng(seed)
    out = {tuple(types): identity}
    tries = 0
    while len(out) < limit and tries < 100 * limit:
        perm = tuple(int(u) for u in rng.permutation(len(cluster)))
        out.setdefault(tuple(types[u] for u in perm), perm)
        tries += 1
    return list(out.values())


def supervisor_order(cluster: Cluster, node_order: Sequence[str] | None = None,
                     seed: int | None = None) -> tuple[list[int] | None, str | None]:
    """The node indices in the order Storm lists its supervisors: the nodes ``node_order`` names first, in its
    order, then the rest in the cluster's; or, with ``seed``, a random permutation drawn with it (Storm's order
    comes from a hash of random supervisor ids); or None — the cluster's own order. The second value says why
    the order cannot be used (a name not a node, a node named twice), else None. O(N)."""
    if seed is not None:
        return [int(u) for u in np.random.default_rng(seed).permutation(len(cluster))], None
    if node_order is None:
        return None, None
    unknown = [n for n in node_order if n not in cluster.index]
    if unknown:
        return None, (f"storm-even.node_order names {', '.join(unknown)}, not a node of {cluster.name} "
                      f"(fix: name some of {', '.join(cluster.ids[:8])}{', …' if len(cluster) > 8 else ''})")
    if len(set(node_order)) != len(node_order):
        return None, "storm-even.node_order names a node twice (fix: name each node at most once)"
    first = [cluster.index[n] for n in node_order]
    named = set(first)
    return first + [u for u in range(len(cluster)) if u not in named], None


@register
@dataclass(frozen=True)
class StormEven(BaseScheduler):
    """Storm 0.9.5's default scheduler (DefaultScheduler → EvenScheduler) as Nasiri et al. ran it."""

    name = NAME
    summary = ("Storm 0.9.5's default EvenScheduler: executors (with __acker) in task-id order dealt over "
               "sort-slots' worker slots, one worker per node; supervisors in the cluster's order unless "
               "node_order or seed (Storm's own order is nobody's choice)")

    workers: int | None = None  # topology.workers; None: one per node (Nasiri et al.'s set-up)
    ackers: int | None = None  # topology.acker.executors; None: Storm's default, as many as workers
    #: the order Storm lists its supervisors in: these nodes first, in this order, the rest in the cluster's;
    #: None (and no seed): the cluster's own order
    node_order: tuple[str, ...] | None = None
    #: a random supervisor order drawn with this seed, as Storm's hash of random ids gives one; None: node_order
    seed: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.seed is not None and self.node_order is not None:
            raise SchedulerParamError("storm-even takes node_order or seed, not both (fix: drop one)")

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        order, problem = supervisor_order(cluster, self.node_order, self.seed)
        if problem:
            return Placement(None, "infeasible", [problem])
        try:
            counts = even_counts(topology, cluster, workers=self.workers, ackers=self.ackers, node_order=order)
        except ValueError as exc:  # an operator named __acker, Storm's own component id
            return Placement(None, "infeasible", [str(exc)])
        moved = repin(topology, cluster, counts, len(cluster) if self.workers is None else self.workers, order)
        return Placement(counts, explanation=[  # the order, workers and ackers it ran with are the plan's params
            f"pinned {', '.join(moved)} dealt over the workers on their nodes (Storm's EvenScheduler has no "
            "pinning)"] if moved else [])


def repin(topology: Topology, cluster: Cluster, counts: np.ndarray, workers: int,
          node_order: Sequence[int] | None = None) -> list[str]:
    """Deal each pinned operator's replicas round-robin over the deal's first ``workers`` slots that lie on its
    nodes (over all of its nodes' slots, in ``sort-slots``' order, when none of them does), in place; returns the
    operators dealt again. O(S + pinned replicas)."""
    mask = allowed_mask(topology, cluster)
    slots = [u for u, _ in sort_slots(listed_slots(cluster, node_order))]
    used = slots[: min(workers, len(slots))]
    moved = []
    for i, op in enumerate(topology.operators):
        if op.pinned is None:
            continue
        own = [u for u in used if mask[i, u]] or [u for u in slots if mask[i, u]]
        counts[i] = np.bincount(np.array(own, dtype=np.intp)[np.arange(op.replicas) % len(own)],
                                minlength=len(cluster))
        moved.append(op.id)
    return moved
