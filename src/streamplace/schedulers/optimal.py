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

from dataclasses import dataclass
from typing import Literal

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, engine_or_ideal, replica_cap_of
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register
from streamplace.schedulers.capacity import (
    capacity_milp,
    capacity_scale,
    counts_from_bits,
    counts_from_feasibility,
    feasibility_milp,
    fluid_upper_bound,
    scale_upper_bound,
    sustained_rates,
)
from streamplace.schedulers.hetero import Hetero
from streamplace.schedulers.spark_optimal import counts_from, spark_capacity_milp

NUMERIC_GAP = 1e-5  # a bisection stopped by a solver error closer than this to its bound still counts as optimal


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
        model = engine_or_ideal(engine).model
        if not model.per_tuple_batch_work:
            placement = self._place(topology, cluster, profile, deadline, current, replica_cap_of(engine))
            if model.remote_tuple_cpu and placement.counts is not None:
                placement.warnings.append(
                    "optimal (storm engine): the optimum of the ideal model (CPU and threads), predicted by storm's; "
                    "storm's serialization CPU and flow control are not in the MILP — max-throughput optimizes "
                    "them (heuristically)")
            return placement

        milp, w_col = spark_capacity_milp(topology, cluster, profile, engine_or_ideal(engine), self.caps(topology),
                                          self.tasks_per_node)
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
