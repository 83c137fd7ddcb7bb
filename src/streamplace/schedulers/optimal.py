"""``optimal``: the exact maximum sustainable throughput of the model, by mixed-integer programming.

Decision: integer replica counts c_iu ≥ 0 per operator and node (binary
encoded, ⌈log2(k_i+1)⌉ bits), 1 ≤ n_i = Σ_u c_iu ≤ k_i, and the scale s of the
source rates, maximized. Memory, optional tasks per node and pinning are
hard; node CPU stays under L·cpu_u; no replica exceeds one thread.

The products of integers and continuous rates are linearized exactly:

* even split (Storm's shuffle): σ_i = s / n_i is the per-replica scale of i;
  p_iub = β_iub·σ_i and r_ib = γ_ib·σ_i (β: bits of c_iu, γ: bits of n_i) by
  McCormick constraints, which are exact for binaries; s = Σ_b 2^b r_ib;
  node CPU Σ_i Σ_b 2^b (λ_i e_iu/10) p_iub + Σ MET_iu c_iu ≤ L·cpu_u;
  thread σ_i ≤ (100 − MET_iu)·10/(λ_i e_iu) wherever c_iu ≥ 1.
* capacity-weighted split: every replica of i runs at the same fraction ρ_i of
  its thread, so s·λ_i = Σ_u cap_iu Σ_b 2^b β_iub ρ_i with cap_iu the
  replica's one-thread rate; node CPU Σ (100 − MET) c_iu ρ_i + MET c_iu.

HiGHS solves it with a time limit; the plan carries the solver status, the
dual bound and the gap (``status: timeout`` with the incumbent on time-out).
The incumbent is re-evaluated by the performance model, so the reported
throughput is the model's, not the solver's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, replica_cap_of
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register
from streamplace.schedulers.milp import Milp

S_CAP = 1e9  # an upper bound on the scale where nothing else bounds it
NUMERIC_GAP = 1e-5  # a bisection stopped by a solver error closer than this to its bound still counts as optimal


def bits(k: int) -> int:
    return max(1, int(k).bit_length())


@register
@dataclass(frozen=True)
class Optimal(BaseScheduler):
    """Exact maximum sustainable throughput (MILP, HiGHS)."""

    name = "optimal"
    summary = "exact max sustainable throughput of the model over replica counts and placement (MILP, HiGHS)"
    chooses_parallelism = True

    max_replicas: int = 10  # k_i where the operator sets no max_replicas (Nasiri et al. 2023: k = 10)
    split: Literal["even", "capacity"] = "even"
    tasks_per_node: int | None = None  # optional cap on replicas per node (the paper's k_j)
    mip_rel_gap: float = 1e-3  # relative gap at which the optimum counts as proven
    warm_start: bool = True  # even split: start the bisection from the hetero heuristic's plan
    #: work budget: HiGHS branch-and-bound nodes over all of the plan's solves (None: no limit but the time
    #: limit). With it the plan depends on the inputs only, not on the machine's speed or load; time_limit_s
    #: stays as a safety stop
    max_nodes: int | None = None

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def caps(self, topology: Topology) -> np.ndarray:
        return np.array([op.max_replicas or max(self.max_replicas, 1) for op in topology.operators], dtype=int)

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None, cap: str | None = None) -> Placement:
        cap = cap or replica_cap_of(None)
        if self.split == "capacity" and cap == "machine":  # its MILP weighs replicas by their one-thread capacity
            placement = self._place(topology, cluster, profile, deadline, current, "thread")
            placement.warnings.append("split=capacity weighs replicas by their one-thread capacity: planned with "
                                      "replica_cap=thread")
            return placement
        model = ThroughputModel.build(topology, cluster, profile, replica_cap=cap, tasks_per_node=self.tasks_per_node)
        k = self.caps(topology)
        if self.split == "even":
            return self._bisect(topology, cluster, profile, model, k, deadline)
        if model.lam_all.any():  # the capacity MILP's rate link has no term for a stream every replica receives
            placement = self._bisect(topology, cluster, profile, model, k, deadline)
            placement.warnings.append("split=capacity does not model all-grouped streams (each replica receives "
                                      "them whole): planned with the even split instead")
            return placement
        milp, beta = capacity_milp(model, k, self.tasks_per_node)
        result = milp.solve(self._remaining(deadline), self.mip_rel_gap, options=self._budget(self.max_nodes))
        if result.x is None:
            return self._no_solution(result.status, result.solver_status)
        counts = counts_from_bits(result.x, beta, model.e.shape)
        scale = capacity_scale(model, counts)
        placement = Placement(counts, split=self.split)
        placement.source_rates = sustained_rates(topology, scale)
        if result.status == "timeout":
            placement.status = "timeout"
            placement.gap = result.gap
            placement.explanation.append(
                f"{self._stop_reason(result.solver_status)}: best plan found, relative gap {result.gap:.3g} "
                f"(dual bound on the scale {result.bound:.6g})")
        else:
            placement.gap = result.gap if result.gap is not None else 0.0
        placement.warnings.append(f"solver: HiGHS {result.solver_status} in {result.seconds:.3f} s, "
                                  f"{milp.n_vars} variables, {milp.n_rows} constraints")
        return placement

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        """Under the ``spark`` engine, the counts and placement with the most Spark capacity (spark_optimal.py).
        Under ``storm``, the ideal model's optimum, said in a warning: storm's serialization CPU on a node is a
        product of its producer and consumer shares (quadratic in the counts, and the shares divide by the
        totals), and its flow control a fixed point of the latency — neither is a linear term this MILP can
        carry exactly; max-throughput searches storm's model instead."""
        if engine is None or engine.name != "spark":
            placement = self._place(topology, cluster, profile, deadline, current, replica_cap_of(engine))
            if engine is not None and engine.name == "storm" and placement.counts is not None:
                placement.warnings.append(
                    "optimal (storm engine): the optimum of the ideal model (CPU and threads), predicted by storm's; "
                    "storm's serialization CPU and flow control are not in the MILP — max-throughput optimizes "
                    "them (heuristically)")
            return placement
        from streamplace.schedulers.spark_optimal import counts_from, spark_capacity_milp

        milp, w_col = spark_capacity_milp(topology, cluster, profile, engine, self.caps(topology), self.tasks_per_node)
        result = milp.solve(self._remaining(deadline), self.mip_rel_gap, options=self._budget(self.max_nodes))
        if result.x is None:
            return self._no_solution(result.status, result.solver_status)
        counts = counts_from(result, w_col, (len(topology.operators), len(cluster)))
        work = float(result.objective or 0.0)
        placement = Placement(counts)
        placement.source_rates = sustained_rates(topology, 1.0 / work if work > 0 else np.inf)
        placement.gap = result.gap if result.gap is not None else 0.0
        if result.status == "timeout":
            placement.status = "timeout"
            placement.explanation.append(f"{self._stop_reason(result.solver_status)}: best plan found, relative "
                                         f"gap {placement.gap:.3g} on the Spark batch work")
        placement.warnings.append(
            f"solver: HiGHS {result.solver_status} in {result.seconds:.3f} s on the Spark engine's capacity "
            f"({milp.n_vars} variables, {milp.n_rows} constraints); work per unit of rate {work:.6g} s")
        return placement

    def _remaining(self, deadline: Deadline) -> float | None:
        return None if self.time_limit_s is None else max(0.01, self.time_limit_s - deadline.elapsed_ms() / 1e3)

    @staticmethod
    def _budget(nodes_left: int | None) -> dict[str, bool | int | float | str] | None:
        """HiGHS options for a solve given the nodes left of ``max_nodes`` (None: no node limit)."""
        return None if nodes_left is None else {"mip_max_nodes": max(1, int(nodes_left))}

    def _stop_reason(self, solver_status: str) -> str:
        """What stopped a solve short: the time limit (a safety stop, machine-dependent) or the node budget."""
        if solver_status == "Time limit reached" or self.max_nodes is None:
            return f"time limit {self.time_limit_s} s (safety stop: the plan may depend on the machine's speed)"
        return f"node budget (max_nodes {self.max_nodes}) spent"

    def _no_solution(self, status: str, solver_status: str) -> Placement:
        if status == "infeasible":
            return Placement(None, "infeasible", [
                f"no placement of 1..k replicas per operator fits (solver: {solver_status}); every operator needs "
                "at least one replica whose memory, fixed overhead (MET) and pinning fit its node"
                + (f", with at most {self.tasks_per_node} replicas per node" if self.tasks_per_node else "")])
        return Placement(None, "infeasible", [
            f"the solver found no placement within {self.time_limit_s} s (status {solver_status}); "
            "raise time_limit_s or lower max_replicas"])

    def _bisect(self, topology: Topology, cluster: Cluster, profile: Profile | None, model: ThroughputModel,
                k: np.ndarray, deadline: Deadline) -> Placement:
        """Even split: bisection on the scale; each step is a pure-integer feasibility MILP (exact, linear)."""
        best: np.ndarray | None = None
        lo = 0.0
        if self.warm_start:
            from streamplace.schedulers.hetero import Hetero

            found = Hetero(time_limit_s=None).heuristic(topology, cluster, profile, model, k)
            if found is not None and model.fits(found[0]) and (found[0].sum(axis=1) <= k).all():  # k_j: in fits
                best, lo = found[0], model.max_scale(found[0])
        if best is None:
            feasible = feasibility_milp(model, k, 0.0, self.tasks_per_node).solve(
                self._remaining(deadline), options=self._budget(self.max_nodes))
            if feasible.x is None:
                return self._no_solution(feasible.status, feasible.solver_status)
            best = counts_from_feasibility(feasible.x, model, k)
            lo = model.max_scale(best)
        hi = min(scale_upper_bound(model, k), fluid_upper_bound(model, k))
        steps, solver_seconds, timed_out, solver_errors = 0, 0.0, False, 0
        nodes_left, stop_status = self.max_nodes, ""
        while np.isfinite(hi) and hi > lo * (1.0 + self.mip_rel_gap) and hi > 1e-12:
            mid = max(lo * (1.0 + self.mip_rel_gap), (lo + hi) / 2.0 if lo > 0 else hi / 2.0)
            if mid >= hi:
                break
            if nodes_left is not None and nodes_left <= 0:
                timed_out, stop_status = True, "node budget"
                break
            result = feasibility_milp(model, k, mid, self.tasks_per_node).solve(self._remaining(deadline),
                                                                               options=self._budget(nodes_left))
            steps += 1
            solver_seconds += result.seconds
            if nodes_left is not None:
                nodes_left -= max(result.nodes, 1)
            if result.x is not None:
                counts = counts_from_feasibility(result.x, model, k)
                scale = model.max_scale(counts)
                if scale >= lo:
                    best, lo = counts, max(scale, mid)
                else:  # numerical slack: accept the tested level as proven achievable is not safe; narrow
                    hi = mid
            elif result.status == "infeasible":
                hi = mid
            elif result.status == "error":  # numerical trouble this close to the optimum: stop refining
                solver_errors += 1
                break
            else:
                timed_out, stop_status = True, result.solver_status
                break
            if deadline.expired():
                timed_out, stop_status = hi > lo * (1.0 + self.mip_rel_gap), "Time limit reached"
                break
        lo = model.max_scale(best)
        placement = Placement(best)
        placement.source_rates = sustained_rates(topology, lo)
        placement.gap = 0.0 if not np.isfinite(hi) or lo <= 0 else max(0.0, (hi - lo) / lo)
        if timed_out or placement.gap > max(self.mip_rel_gap, NUMERIC_GAP):
            placement.status = "timeout"
            reason = self._stop_reason(stop_status) if timed_out else "solver numerical error"
            placement.explanation.append(
                f"{reason}: best plan found, scale {lo:.6g}, proven upper bound {hi:.6g} "
                f"(relative gap {placement.gap:.3g})")
        placement.warnings.append(
            f"solver: {steps} HiGHS feasibility solves by bisection in {solver_seconds:.3f} s; "
            f"optimal scale {lo:.6g}, upper bound {hi:.6g}"
            + (f"; {solver_errors} solve stopped on a numerical error" if solver_errors else ""))
        return placement


def sustained_rates(topology: Topology, scale: float) -> dict[str, float]:
    factor = scale if np.isfinite(scale) else 1.0
    return {op.id: float(op.rate or 0.0) * factor for op in topology.sources}


def capacity_milp(model: ThroughputModel, k: np.ndarray, tasks_per_node: int | None
                  ) -> tuple[Milp, dict[tuple[int, int], list[int]]]:
    """Capacity-weighted split as one MILP maximizing s (bits β of c_iu, McCormick-exact products β·ρ).

    Every replica of i runs at the same fraction ρ_i of its thread, so s·λ_i = Σ_u cap_iu·c_iu·ρ_i and
    node CPU Σ_i (100 − MET_iu)·c_iu·ρ_i + MET_iu·c_iu ≤ L·cpu_u; c_iu·ρ_i = Σ_b 2^b β_iub·ρ_i is exact.
    Returns the MILP and, per (operator, node), the columns of the bits of c_iu.
    """
    n_ops, n_nodes = model.e.shape
    milp = Milp(maximize=True)
    rate_cost = model.lam[:, None] * model.rate_cost
    thread_ok = 100.0 - model.met
    s = milp.var(0.0, min(scale_upper_bound(model, k), S_CAP), cost=1.0)
    beta: dict[tuple[int, int], list[int]] = {}
    node_cpu: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_mem: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_tasks: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    for i in range(n_ops):
        nb = bits(int(k[i]))
        count_terms: list[tuple[int, float]] = []
        busy = rate_cost[i] > 0
        rho = milp.var(0.0, 1.0) if busy.any() else None
        link: list[tuple[int, float]] = [(s, float(model.lam[i]))]
        for u in np.flatnonzero(model.allowed[i]):
            u = int(u)
            cols = [milp.binary() for _ in range(nb)]
            beta[(i, u)] = cols
            for b, c in enumerate(cols):
                weight = float(1 << b)
                count_terms.append((c, weight))
                node_mem[u].append((c, weight * model.memory[i]))
                node_tasks[u].append((c, weight))
                node_cpu[u].append((c, weight * model.met[i, u]))
                if rho is not None and busy[u]:
                    p = _product(milp, c, rho, 1.0)
                    cap_iu = thread_ok[i, u] * model.lam[i] / rate_cost[i, u]  # tuples/s of one busy replica
                    link.append((p, -weight * cap_iu))
                    node_cpu[u].append((p, weight * thread_ok[i, u]))
        milp.row(count_terms, lo=1.0, hi=float(k[i]))
        if rho is not None:
            milp.row(link, lo=0.0, hi=0.0)
    _node_rows(milp, model, node_cpu, node_mem, node_tasks, tasks_per_node)
    return milp, beta


def counts_from_bits(x: np.ndarray, beta: dict[tuple[int, int], list[int]], shape: tuple[int, int]) -> np.ndarray:
    counts = np.zeros(shape, dtype=np.int64)
    for (i, u), cols in beta.items():
        counts[i, u] = sum(round(x[col]) << b for b, col in enumerate(cols))
    return counts


def _product(milp: Milp, binary: int, cont: int, upper: float) -> int:
    """A column equal to binary × cont for 0 ≤ cont ≤ upper (exact McCormick envelope)."""
    p = milp.var(0.0, upper)
    milp.row([(p, 1.0), (binary, -upper)], hi=0.0)
    milp.row([(p, 1.0), (cont, -1.0)], hi=0.0)
    milp.row([(p, 1.0), (cont, -1.0), (binary, -upper)], lo=-upper)
    return p


def scale_upper_bound(model: ThroughputModel, k: np.ndarray) -> float:
    """A valid upper bound on the sustainable scale: per operator, all CPU it may use, or all its threads."""
    bound = S_CAP
    rate_cost = model.lam_one[:, None] * model.rate_cost  # at least one replica receives all of it
    for i in range(len(k)):
        busy = model.allowed[i] & (rate_cost[i] > 0)
        if not busy.any() or not (rate_cost[i] > 0).all(where=model.allowed[i]):
            continue
        cpu = float((model.cap[busy] / rate_cost[i, busy]).sum())
        per_thread = (model.lam[i] / k[i] + model.lam_all[i]) * model.rate_cost[i, busy]  # k_i replicas at most
        threads = float(((model.thread_points[busy] - model.met[i, busy]) / per_thread).max())
        bound = min(bound, cpu, threads)
    return bound


def feasibility_milp(model: ThroughputModel, k: np.ndarray, scale: float, tasks_per_node: int | None,
                     totals: np.ndarray | None = None) -> Milp:
    """Is there a placement (even split) sustaining ``scale``? Pure-integer and linear at a fixed scale.

    y_ik = 1 when operator i has k replicas; w_iuk is how many of those k sit on node u
    (Σ_u w_iuk = k·y_ik, a disaggregated and therefore tight form). A replica of i with n_i = k takes
    λ_i·scale/k tuples/s, so node CPU is linear in w, and a one-thread violation simply forbids w_iuk.
    Identical nodes are ordered by a weighted replica count to break their symmetry. ``totals`` (ops × 2,
    inclusive) restricts each operator's replica total to a range — a smaller model that asks only about plans
    near a given one (max-throughput's exact neighbourhood); None: 1..k_i.
    """
    n_ops, n_nodes = model.e.shape
    ranges = _total_ranges(k, totals)
    milp = Milp(maximize=False)
    node_cpu: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_mem: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_tasks: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    for i in range(n_ops):
        choices = ranges[i]
        ys = [milp.binary() for _ in choices]
        milp.row([(y, 1.0) for y in ys], lo=1.0, hi=1.0)
        allowed = [int(u) for u in np.flatnonzero(model.allowed[i])]
        for y, kk in zip(ys, choices, strict=True):
            share: list[tuple[int, float]] = [(y, -float(kk))]
            per = (model.lam[i] / kk + model.lam_all[i]) * scale * model.rate_cost[i]
            for u in allowed:
                fits_thread = per[u] + model.met[i, u] <= model.thread_points[u] + 1e-9
                # no more of these replicas than the node's CPU holds on its own: the machine-only cap's analogue
                # of the thread cap, valid under both, and what keeps the relaxation tight without a thread cap
                one = per[u] + model.met[i, u]
                fit = kk if one <= 0 else min(kk, int(np.floor(model.cap[u] / one + 1e-9)))
                w = milp.var(0.0, float(fit) if fits_thread else 0.0, integer=True)
                share.append((w, 1.0))
                node_cpu[u].append((w, float(per[u] + model.met[i, u])))
                node_mem[u].append((w, float(model.memory[i])))
                node_tasks[u].append((w, float(i + 1)))
            milp.row(share, lo=0.0, hi=0.0)
    _node_rows(milp, model, node_cpu, node_mem, [[(c, 1.0) for c, _ in terms] for terms in node_tasks], tasks_per_node)
    for group in identical_nodes(model):
        for u, v in itertools.pairwise(group):
            milp.row(node_tasks[u] + [(c, -w) for c, w in node_tasks[v]], lo=0.0)
    return milp


def identical_nodes(model: ThroughputModel) -> list[list[int]]:
    """Groups of nodes that no constraint tells apart (same capacity, costs and pinning)."""
    groups: dict[tuple, list[int]] = {}
    for u in range(model.e.shape[1]):
        key = (float(model.cap[u]), float(model.node_memory[u]), model.e[:, u].tobytes(), model.met[:, u].tobytes(),
               model.allowed[:, u].tobytes())
        groups.setdefault(key, []).append(u)
    return [g for g in groups.values() if len(g) > 1]


def _total_ranges(k: np.ndarray, totals: np.ndarray | None) -> list[range]:
    """Per operator, the replica totals feasibility_milp offers: 1..k_i, or ``totals``' range within it."""
    if totals is None:
        return [range(1, int(ki) + 1) for ki in k]
    return [range(max(1, int(lo)), min(int(ki), int(hi)) + 1) for ki, (lo, hi) in zip(k, totals, strict=True)]


def counts_from_feasibility(x: np.ndarray, model: ThroughputModel, k: np.ndarray,
                            totals: np.ndarray | None = None) -> np.ndarray:
    """Read c_iu = Σ_k w_iuk back from a feasibility solution (columns in the order feasibility_milp adds them,
    for the same ``totals``)."""
    n_ops, n_nodes = model.e.shape
    counts = np.zeros((n_ops, n_nodes), dtype=np.int64)
    col = 0
    for i, choices in enumerate(_total_ranges(k, totals)):
        col += len(choices)  # y_ik
        allowed = [int(u) for u in np.flatnonzero(model.allowed[i])]
        for _ in choices:
            for u in allowed:
                counts[i, u] += round(x[col])
                col += 1
    return counts


def capacity_scale(model: ThroughputModel, counts: np.ndarray) -> float:
    """Largest scale of a count matrix under capacity-weighted split (closed form, like the even one)."""
    cap = np.where(model.rate_cost > 0, (100.0 - model.met) / np.where(model.rate_cost > 0, model.rate_cost, 1.0),
                   np.inf)  # tuples/s one replica sustains
    total = (counts * np.where(np.isfinite(cap), cap, 0.0)).sum(axis=1)
    free = ((counts > 0) & ~np.isfinite(cap)).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_per_scale = np.where(free | (total <= 0), 0.0, model.lam / np.where(total > 0, total, 1.0))
    a = (counts * (100.0 - model.met) * rho_per_scale[:, None]).sum(axis=0)
    b = (counts * model.met).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        node_s = np.where(a > 0, (model.cap - b) / a, np.where(model.cap - b < -1e-9, 0.0, np.inf))
        thread_s = np.where(rho_per_scale > 0, 1.0 / rho_per_scale, np.inf)
    return float(max(0.0, min(node_s.min(), thread_s.min())))


def fluid_upper_bound(model: ThroughputModel, k: np.ndarray) -> float:
    """An LP bound on the scale: rates split freely (no integrality), each operator's work on a node within
    the node's CPU (after one replica's MET somewhere) and within k_i threads in total."""
    n_ops, n_nodes = model.e.shape
    lp = Milp(maximize=True)
    s = lp.var(0.0, S_CAP, cost=1.0)
    rate_cost = model.rate_cost
    node_rows: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    for i in range(n_ops):
        if model.lam_one[i] <= 0:
            continue
        link: list[tuple[int, float]] = [(s, -float(model.lam_one[i]))]  # a relaxation: all-grouped input once
        threads: list[tuple[int, float]] = []
        for u in np.flatnonzero(model.allowed[i]):
            u = int(u)
            x = lp.var(0.0)  # tuples/s of operator i processed on node u
            link.append((x, 1.0))
            if rate_cost[i, u] > 0:
                node_rows[u].append((x, float(rate_cost[i, u])))
                if np.isfinite(model.thread_points[u]):  # replicas as threads: at most k_i of them
                    threads.append((x, float(rate_cost[i, u] / (model.thread_points[u] - model.met[i, u]))))
        lp.row(link, lo=0.0, hi=0.0)
        if threads:
            lp.row(threads, hi=float(k[i]))
    min_met = float(sum(model.met[i, model.allowed[i]].min() for i in range(n_ops)))
    for u in range(n_nodes):
        if node_rows[u]:
            lp.row(node_rows[u], hi=float(model.cap[u]))
    total: list[tuple[int, float]] = [item for row in node_rows for item in row]
    if total:
        lp.row(total, hi=float(model.cap.sum()) - min_met)
    result = lp.solve(10.0)
    return float(result.objective) * (1 + 1e-9) if result.status == "optimal" and result.objective else S_CAP


Terms = list[list[tuple[int, float]]]  # per node: (column, coefficient)


def _node_rows(milp: Milp, model: ThroughputModel, node_cpu: Terms, node_mem: Terms, node_tasks: Terms,
               tasks_per_node: int | None) -> None:
    """Every node's capacity rows: CPU points, memory and (when limited) tasks, each term (column, coefficient)."""
    for u in range(len(node_cpu)):
        if node_cpu[u]:
            milp.row(node_cpu[u], hi=float(model.cap[u]))
        if node_mem[u]:
            milp.row(node_mem[u], hi=float(model.node_memory[u]))
        if tasks_per_node is not None and node_tasks[u]:
            milp.row(node_tasks[u], hi=float(tasks_per_node))
