"""``hetero``: the heterogeneity-aware throughput maximizer of Nasiri et al. 2023.

* FirstAssignment (Algorithm 1): one instance per component, components in
  descending selectivity α; each goes to the machine where its predicted
  TCU at the initial rate R0 is least (the largest slope Y = 1/e, the
  fastest machine for it) among those with room; it fails if no machine can
  take a component at R0.
* MaximizeThroughput (Algorithm 2): the source rate rises by rate/Scale
  (Scale = 1 first, so the rate doubles). While no machine is over-utilized
  the state is kept as the latest stable one. When one is, the hottest task
  (highest TCU) of the first over-utilized machine names the component that
  gets a new instance, placed on the most suitable machine: the fastest
  machine for that component that stays within capacity with it (ties: the
  least loaded). If no machine can take it, Scale doubles and the latest
  stable state is restored. It ends when Scale exceeds ``max_divisor``
  (2048 in the authors' simulator).

The authors' simulator (h-nasiri/Scheduling-Simulator) departs from the text in
three rules, each a parameter that defaults to the text: ``bottleneck=ratio``
(the component whose instance has the largest ratio of new to available input
rate over every over-utilized machine), ``multi_add=N`` (when one new instance
fits nowhere, try 2 … N at once; the code tries up to 199), ``ties=lowest-id``
(the first of equally fast machines, not the least loaded).

Over-utilized means above L·cpu of the node or, for a single task, above one
thread (docs/architecture.md's cap). Rates split evenly over a component's instances
(Storm's shuffle grouping), as in the paper. The result carries the replica
counts, the placement and the highest source rate sustained.

Complexity: FirstAssignment O(ops·nodes) (a node's instance count kept as it grows, not summed per component);
each iteration of MaximizeThroughput O(nodes + ops + cells) with numpy (cells: those holding an instance —
the authors' bottleneck rule reads only them; the latest stable state is kept by the instances added since it,
not by copying the ops × nodes counts), and O(ops·nodes) once to set up; the number of iterations is
O(log(rate range) + replicas added + log2(max_divisor)). The same plans as the dense O(ops·nodes) iteration
(tests/test_throughput_lp.py compares the rule with it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, replica_cap_of
from streamplace.perf.rates import selectivities
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import EPS, BaseScheduler, Deadline, Placement, register
from streamplace.schedulers.capacity import S_CAP, sustained_rates


@register
@dataclass(frozen=True)
class Hetero(BaseScheduler):
    """Nasiri et al.'s (2023) FirstAssignment + MaximizeThroughput."""

    name = "hetero"
    summary = "heterogeneity-aware throughput maximizer (Nasiri et al. 2023): replica counts, placement, max rate"
    chooses_parallelism = True

    initial_scale: float = 0.01  # R0 as a fraction of the topology's offered source rates
    max_divisor: int = 2048
    max_replicas: int | None = None  # k_i where the operator sets no max_replicas (None: unlimited)
    max_iterations: int = 200_000
    polish_s: float = 0.0  # > 0: after the paper's algorithm, hill-climb on replicas for this many seconds
    #: the authors' simulator (h-nasiri/Scheduling-Simulator), not the paper's text: which task names the
    #: component that gets a new instance — "hottest" (the text: highest TCU on the first over-utilized machine)
    #: or "ratio" (the code: largest new-to-available input rate over every over-utilized machine)
    bottleneck: Literal["hottest", "ratio"] = "hottest"
    #: the code: when one new instance fits nowhere, try 2, 3, … at once (each takes a smaller share) before
    #: halving the rate step; 0 (the text): never; the code tries up to 199
    multi_add: int = 0
    #: among equally fast machines with room: "least-loaded" (our reading of "most suitable") or "lowest-id"
    #: (the code: the first in its table)
    ties: Literal["least-loaded", "lowest-id"] = "least-loaded"
    #: what caps one instance's CPU: "engine" (the engine's model: ideal — ``ideal.replica_cap``; storm and
    #: spark — a thread), "machine" (the paper: only the machine's capacity, MAC — an instance may take more
    #: than one core of a multi-core machine) or "thread" (one core, 100 points, as a Storm executor is)
    replica_cap: Literal["engine", "machine", "thread"] = "engine"
    #: the paper's k_j: at most this many instances on one machine (its exhaustive baseline's bound; None: no cap)
    tasks_per_node: int | None = None

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def caps(self, topology: Topology) -> np.ndarray:
        default = self.max_replicas if self.max_replicas is not None else 10**9
        return np.array([op.max_replicas or default for op in topology.operators], dtype=np.int64)

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        return self._place(topology, cluster, profile, deadline, current, self._cap(engine))

    def _cap(self, engine: EngineSettings | None) -> str:
        """``machine`` or ``thread``: the setting, or with ``engine`` the engine's model's."""
        return replica_cap_of(engine) if self.replica_cap == "engine" else self.replica_cap

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None, cap: str | None = None) -> Placement:
        cap = cap or self._cap(None)
        model = ThroughputModel.build(topology, cluster, profile, replica_cap=cap, tasks_per_node=self.tasks_per_node)
        alpha = selectivities(topology, profile)
        first = first_assignment(model, alpha, self.initial_scale, list(topology.ids))
        if isinstance(first, str):
            return Placement(None, "infeasible", [first])
        counts, scale = first
        counts, scale, timed_out, iterations = maximize_throughput(
            model, counts, scale, self.caps(topology), self.max_divisor, self.max_iterations, deadline,
            self.rules())
        note = ""
        if self.polish_s > 0 and not timed_out:
            before = scale
            counts, scale, moves = polish(model, counts, self.caps(topology), Deadline(self.polish_s))
            note = f"; polish: {moves} moves, scale {before:.6g} → {scale:.6g}"
        placement = Placement(counts)
        placement.source_rates = sustained_rates(topology, scale)
        placement.warnings.append(f"hetero: {iterations} iterations; sustained {scale:.6g} × the offered rates"
                                  + note)
        if timed_out:
            placement.status = "timeout"
            placement.explanation.append(f"time limit {self.time_limit_s} s reached; latest stable state returned")
        return placement

    def rules(self) -> Rules:
        return Rules(self.bottleneck, self.multi_add, self.ties)

    def heuristic(self, topology: Topology, cluster: Cluster, profile: Profile | None, model: ThroughputModel,
                  k: np.ndarray) -> tuple[np.ndarray, float] | None:
        """Counts and sustained scale, or None when FirstAssignment fails (used to warm-start ``optimal``)."""
        first = first_assignment(model, selectivities(topology, profile), self.initial_scale)
        if isinstance(first, str):
            return None
        counts, scale, _, _ = maximize_throughput(model, first[0], first[1], k, self.max_divisor,
                                                  self.max_iterations, Deadline(None), self.rules())
        return counts, scale


def first_assignment(model: ThroughputModel, alpha: np.ndarray, initial_scale: float,
                     names: list[str] | None = None) -> tuple[np.ndarray, float] | str:
    """Algorithm 1. Returns (counts, R0 scale) or the reason it failed (naming the operator by ``names``).

    R0 starts at ``initial_scale`` of the offered rates, or lower where even that makes some operator's one
    instance too big for every machine it may use (offered rates far above what the cluster holds): at the
    largest scale its best machine still holds it alone, then halved until all instances fit together."""
    n_ops, n_nodes = model.e.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        per = model.lam_one[:, None] * model.rate_cost  # points per unit of scale of one instance, per node
        room = np.minimum(model.cap, model.thread_points)[None, :] - model.met
        alone = np.where(model.allowed & (per > 0) & (room > 0), room / per, np.where(per > 0, 0.0, np.inf))
    best_alone = alone.max(axis=1) if n_nodes else np.zeros(n_ops)
    scale = float(min(initial_scale, best_alone.min())) if n_ops else initial_scale
    if not scale > 0:
        scale = initial_scale  # an instance's fixed overhead alone does not fit: the loop below says which
    for _ in range(30):  # halve R0 until the single instances fit (the paper assumes a small R0)
        counts = np.zeros((n_ops, n_nodes), dtype=np.int64)
        load = np.zeros(n_nodes)
        mem = np.zeros(n_nodes)
        tasks = np.zeros(n_nodes, dtype=np.int64)  # instances per machine (counts' column sums, kept as they grow)
        failed = None
        for i in np.argsort(-alpha, kind="stable"):
            tcu = model.lam_one[i] * scale * model.rate_cost[i] + model.met[i]
            room = (model.allowed[i] & (load + tcu <= model.cap + EPS) & (tcu <= model.thread_points + EPS)
                    & (mem + model.memory[i] <= model.node_memory + EPS) & (tasks < model.slots))
            if not room.any():
                failed = int(i)
                break
            u = int(np.argmin(np.where(room, tcu, np.inf)))
            counts[i, u] = 1
            tasks[u] += 1
            load[u] += tcu[u]
            mem[u] += model.memory[i]
        if failed is None:
            return counts, scale
        scale /= 2.0
    who = names[failed] if names is not None and failed is not None else f"#{failed}"
    return (f"FirstAssignment cannot place one instance of operator {who} on any machine it may use: its "
            "memory or fixed overhead (MET) does not fit next to the other components")


@dataclass(frozen=True)
class Rules:
    """Where the authors' simulator departs from the paper's text (defaults: the text)."""

    bottleneck: str = "hottest"
    multi_add: int = 0
    ties: str = "least-loaded"


@dataclass
class State:
    """An execution graph at scale 1, kept incrementally: each change costs O(nodes), not O(ops × nodes).

    a[u]: CPU points per unit of scale on node u; b[u]: fixed points (MET); mem[u]: MB;
    n[i]: instances of i; thread[i]: the most tuples/s one instance of i sustains on any node it runs on;
    tasks[u]: instances on node u (counts' column sums); cells: the flat indices i·nodes + u of the cells holding
    an instance, ascending (row-major).
    """

    counts: np.ndarray
    a: np.ndarray
    b: np.ndarray
    mem: np.ndarray
    n: np.ndarray
    thread: np.ndarray
    tasks: np.ndarray
    cells: np.ndarray

    @classmethod
    def of(cls, model: ThroughputModel, counts: np.ndarray) -> State:
        n = counts.sum(axis=1).astype(float)
        per = model.per_replica(n)
        a = (counts * per[:, None] * model.rate_cost).sum(axis=0)
        b = (counts * model.met).sum(axis=0)
        mem = (counts * model.memory[:, None]).sum(axis=0)
        cap = thread_rates(model)
        thread = np.where(counts > 0, cap, np.inf).min(axis=1)
        return cls(counts.copy(), a, b, mem, n, thread, counts.sum(axis=0).astype(float),
                   np.flatnonzero(counts > 0))

    def copy(self) -> State:
        return State(self.counts.copy(), self.a.copy(), self.b.copy(), self.mem.copy(), self.n.copy(),
                     self.thread.copy(), self.tasks.copy(), self.cells.copy())

    def assign(self, other: State, changed: list[tuple[int, int]]) -> None:
        """Become a copy of ``other``, whose counts differ from this state's only in the cells ``changed``:
        O(nodes + ops + cells + changes), where a copy of the counts is O(ops · nodes)."""
        for i, w in changed:
            self.counts[i, w] = other.counts[i, w]
        self.a, self.b, self.mem = other.a.copy(), other.b.copy(), other.mem.copy()
        self.n, self.thread, self.tasks, self.cells = other.n.copy(), other.thread.copy(), other.tasks.copy(), \
            other.cells.copy()

    def add(self, model: ThroughputModel, i: int, w: int, cap_iw: float) -> None:
        n = self.n[i]
        row = self.counts[i] * model.rate_cost[i] * model.lam[i]
        self.a -= row * (1.0 / n - 1.0 / (n + 1))
        self.a[w] += (model.lam[i] / (n + 1) + model.lam_all[i]) * model.rate_cost[i, w]
        self.b[w] += model.met[i, w]
        self.mem[w] += model.memory[i]
        if self.counts[i, w] == 0:
            flat = i * self.counts.shape[1] + w
            self.cells = np.insert(self.cells, np.searchsorted(self.cells, flat), flat)
        self.counts[i, w] += 1
        self.tasks[w] += 1
        self.n[i] = n + 1
        self.thread[i] = min(self.thread[i], cap_iw)


def thread_rates(model: ThroughputModel) -> np.ndarray:
    """Tuples/s one instance of i sustains on u within one thread: (100 − MET)/(e/10); inf where only the
    machine caps a replica (the paper's MAC)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(model.rate_cost > 0, (model.thread_points[None, :] - model.met)
                        / np.where(model.rate_cost > 0, model.rate_cost, 1.0), np.inf)


def _over(model: ThroughputModel, st: State, scale: float) -> tuple[int, int] | None:
    """(first over-utilized node, its hottest operator) or None."""
    over = st.a * scale + st.b > model.cap + EPS
    first = int(over.argmax()) if over.any() else None
    per = model.per_replica(np.maximum(st.n, 1)) * scale
    threads = per > st.thread * (1 + 1e-12)
    if threads.any():  # components with an instance above one thread
        for i in np.flatnonzero(threads):
            hot = (st.counts[i] > 0) & (per[i] * model.rate_cost[i] + model.met[i] > model.thread_points + EPS)
            if hot.any() and (first is None or hot.argmax() < first):
                first = int(hot.argmax())
    if first is None:
        return None
    present = st.counts[:, first] > 0
    tcu = per * model.rate_cost[:, first] + model.met[:, first]
    return first, int(np.argmax(np.where(present, tcu, -np.inf)))


def _ratio_bottleneck(model: ThroughputModel, st: State, scale: float, stable: State,
                      stable_scale: float) -> int | None:
    """The authors' simulator: over every over-utilized machine, the operator whose per-instance input rate now is
    largest against the rate its instances there could take at the last stable state (their input then plus
    the machine's free CPU then, shared among them); None when nothing is over-utilized.

    Every ratio is of a cell holding an instance now (elsewhere there is none), so only those cells are
    computed (``State.cells``), in row-major order — the same values, the same first largest (or first NaN) as
    over the whole (ops, nodes) table: O(cells + nodes), where the table took a dozen (ops, nodes) passes per
    iteration."""
    load = st.a * scale + st.b
    per = model.per_replica(np.maximum(st.n, 1)) * scale
    over_node = load > model.cap + EPS
    ii, uu = np.divmod(st.cells, st.counts.shape[1])
    rate, met, tp = model.rate_cost[ii, uu], model.met[ii, uu], model.thread_points[uu]
    over_thread = per[ii] * rate + met > tp + EPS
    if not over_node.any() and not over_thread.any():
        return None
    free = model.cap - (stable.a * stable_scale + stable.b)
    per_then = model.per_replica(np.maximum(stable.n, 1)) * stable_scale
    held_then = stable.counts[ii, uu]
    with np.errstate(divide="ignore", invalid="ignore"):
        available = per_then[ii] + free[uu] / (np.maximum(held_then, 1) * rate)
        thread_cap = (tp - met) / rate
        ratio_node = np.where(over_node[uu] & (held_then > 0), per[ii] / available, -np.inf)
        ratio_thread = np.where(over_thread, per[ii] / thread_cap, -np.inf)
    ratio = np.maximum(ratio_node, ratio_thread)
    if not np.isfinite(ratio).any():  # only instances added since the stable state are over: the hottest rule
        hot = _over(model, st, scale)
        return None if hot is None else hot[1]
    return int(ii[int(np.argmax(ratio))])


def _best_machine(model: ThroughputModel, st: State, scale: float, i: int, ties: str = "least-loaded",
                  extra: int = 1) -> list[int] | None:
    """The fastest machines for ``extra`` new instances of operator i whose CPU budgets hold with them, chosen one
    after another at the per-instance rate they will all have; ties between equally fast machines go to the least
    loaded (or, ``ties="lowest-id"``, the first)."""
    n = st.n[i]
    r_old = model.lam[i] * scale / n
    r_new = model.lam[i] * scale / (n + extra)
    tcu_new = (r_new + model.lam_all[i] * scale) * model.rate_cost[i] + model.met[i]  # a new instance on each node
    # op i's existing instances slow down everywhere; each new one adds tcu_new where it goes
    load = st.a * scale + st.b + st.counts[i] * (r_new - r_old) * model.rate_cost[i]
    mem = st.mem.copy()
    tasks = st.tasks.copy()  # instances per machine, against k_j where there is one
    chosen = []
    for _ in range(extra):
        new_load = load + tcu_new
        # "enough capacity to serve this new instance" is the machine's CPU budget (Nasiri et al. 2023); a new
        # instance above one thread is not refused here: it makes its machine over-utilized at the next check,
        # whose hottest task it then is, so the component gets yet another instance and the per-instance rate drops.
        room = model.allowed[i] & (new_load <= model.cap + EPS) & (mem + model.memory[i] <= model.node_memory + EPS) \
            & (tasks < model.slots)
        if not room.any():
            return None
        e = np.where(room, model.e[i], np.inf)
        fastest = e <= e.min() * (1 + 1e-12)
        w = int(np.argmax(fastest)) if ties == "lowest-id" else int(np.argmin(np.where(fastest, new_load / model.cap,
                                                                                        np.inf)))
        chosen.append(w)
        load[w] += tcu_new[w]
        mem[w] += model.memory[i]
        tasks[w] += 1
    return chosen


def maximize_throughput(model: ThroughputModel, counts: np.ndarray, scale: float, k: np.ndarray, max_divisor: int,
                        max_iterations: int, deadline: Deadline,
                        rules: Rules | None = None) -> tuple[np.ndarray, float, bool, int]:
    """Algorithm 2: returns the latest stable (counts, scale), whether time ran out, and iterations. ``rules``
    switch to the authors' simulator where it departs from the text (Rules)."""
    rules = rules or Rules()
    caps = thread_rates(model)
    current, rate = State.of(model, counts), scale
    final, final_rate = current.copy(), scale
    changed: list[tuple[int, int]] = []  # the cells current's counts differ from final's in (the instances added)
    divisor = 1
    it = 0
    while divisor <= max_divisor and it < max_iterations:
        it += 1
        if it % 256 == 0 and deadline.expired():
            return final.counts, final_rate, True, it
        if rules.bottleneck == "ratio":
            i = _ratio_bottleneck(model, current, rate, final, final_rate)
        else:
            hot = _over(model, current, rate)
            i = None if hot is None else hot[1]
        if i is None:
            final.assign(current, changed)  # the latest stable state is now this one
            final_rate, changed = rate, []
            if rate >= S_CAP:
                break
            rate = min(rate + rate / divisor, S_CAP)
            continue
        placed = None
        for extra in range(1, max(rules.multi_add, 1) + 1):  # the text adds one; the code tries more at once
            if current.n[i] + extra > k[i]:
                break
            placed = _best_machine(model, current, rate, i, rules.ties, extra)
            if placed is not None:
                break
        if placed is not None:
            for w in placed:
                current.add(model, i, w, float(caps[i, w]))
                changed.append((i, w))
            continue
        divisor *= 2
        current.assign(final, changed)  # the stable state; the next pass raises it by rate/divisor
        rate, changed = final_rate, []
    return final.counts, final_rate, False, it


POLISH_NODES = 24  # nodes with the most head-room considered as destinations per step


def polish(model: ThroughputModel, counts: np.ndarray, k: np.ndarray, deadline: Deadline
           ) -> tuple[np.ndarray, float, int]:
    """Hill climbing on the count matrix (an extension, not in Nasiri et al. 2023): relieve the bottleneck node by
    adding an instance of one of its components elsewhere, moving one away, or removing one; take the best
    strictly improving step until none improves or time runs out. Every step keeps memory and k_i."""
    current = counts.copy()
    scale = model.max_scale(current)
    moves = 0
    while not deadline.expired():
        n = current.sum(axis=1)
        per = model.per_replica(n)
        a = (current * per[:, None] * model.rate_cost).sum(axis=0)
        b = (current * model.met).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            node_s = np.where(a > 0, (model.cap - b) / a, np.inf)
        u = int(np.argmin(node_s))
        relieve = set(np.flatnonzero(current[:, u] > 0).tolist())
        with np.errstate(divide="ignore", invalid="ignore"):
            thread_s = np.where((current > 0) & (per[:, None] * model.rate_cost > 0),
                                (model.thread_points[None, :] - model.met) / (per[:, None] * model.rate_cost), np.inf)
        if thread_s.min() <= node_s[u]:  # a single thread binds: give that component more instances
            i_t, u_t = np.unravel_index(int(np.argmin(thread_s)), thread_s.shape)
            relieve = {int(i_t)}
            u = int(u_t)
        head = model.cap - (a * scale + b)
        targets = np.argsort(-head)[:POLISH_NODES]
        mem = (current * model.memory[:, None]).sum(axis=0)
        cands = []
        for i in sorted(relieve):
            for v in targets:
                if v == u or not model.allowed[i, v] or mem[v] + model.memory[i] > model.node_memory[v] \
                        or current[:, v].sum() >= model.slots[v]:
                    continue
                if n[i] < k[i]:
                    c = current.copy()
                    c[i, v] += 1
                    cands.append(c)
                c = current.copy()
                c[i, u] -= 1
                c[i, v] += 1
                cands.append(c)
            if n[i] > 1:
                c = current.copy()
                c[i, u] -= 1
                cands.append(c)
        if not cands:
            break
        batch = np.stack(cands)
        scales = model.max_scale_batch(batch)
        # leximin: the scale first, then how many nodes sit at it, then the next tightest node — so moves that
        # relieve one of several tied bottlenecks count as progress (a plain max-min search stalls on ties)
        spread = node_scales(model, batch)
        at_min = (spread <= scales[:, None] * (1 + 1e-9)).sum(axis=1)
        second = np.sort(np.where(spread <= scales[:, None] * (1 + 1e-9), np.inf, spread), axis=1)[:, 0]
        base_spread = node_scales(model, current[None])[0]
        base_at_min = int((base_spread <= scale * (1 + 1e-9)).sum())
        better = (scales > scale * (1 + 1e-9)) | (
            (scales >= scale * (1 - 1e-12)) & (at_min < base_at_min))
        if not better.any():
            break
        order = np.lexsort((-second, at_min, -scales))
        j = int(next(o for o in order if better[o]))
        current, scale = batch[j], max(scale, float(scales[j]))
        moves += 1
    return current, scale, moves


def node_scales(model: ThroughputModel, batch: np.ndarray) -> np.ndarray:
    """Per count matrix, the scale at which each node reaches its CPU budget, shape (batch, nodes)."""
    n = batch.sum(axis=2)
    per = model.per_replica(n)
    a = (batch * per[:, :, None] * model.rate_cost[None]).sum(axis=1)
    b = (batch * model.met[None]).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 0, (model.cap[None] - b) / a, np.inf)
