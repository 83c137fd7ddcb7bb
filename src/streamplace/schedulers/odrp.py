"""``odrp`` / ``odp``: optimal joint replication and placement (Cardellini et al. 2017), solved exactly.

The paper enumerates, per operator, every multiset of nodes (x_{i,U}) and, per
stream, every pair of multisets (y) — 55.8 K variables for 6 nodes × 8
operators. This module solves the same problem with a compact, equivalent
formulation (HiGHS):

* y_in = 1 iff operator i has n replicas (n ≤ k_i, and only n with
  λ_i/n < μ_i, where the M/M/1 is stable);
* β_iunb are the bits of w_iun, the replicas of i on node u when n_i = n
  (Σ_u w_iun = n·y_in), so c_iu = Σ_n w_iun and the share of i's stream
  processed on u is f_iu = Σ_n w_iun/n — linear;
* a_iu = 1 iff c_iu ≥ 1; operator latency r_i ≥ Σ_n ρ_inu·y_in − max_n ρ_inu·(1 − a_iu)
  with ρ_inu = R_i(λ_i/n)/S_u (Eq. 1); stream delay D_ij ≥ d_uv·(a_iu + a_jv − 1)
  (Eq. 4); response time by longest-path potentials t_j ≥ t_i + D_ij + r_j,
  R ≥ t_sink (Eq. 8–11, without enumerating paths);
* the flow between replicas on u and v of a stream is λ_ij·f_iu·f_jv (Eq. 7);
  the products are exact as h ≥ f_jv + β_iunb − 1, h ≥ 0 (β binary, f in [0, 1],
  and the objective only ever pushes h down), so T, N, EE and transfer cost
  (Eq. 5, 18–20) are linear in h;
* z_u ≥ a_iu and z_uv ≥ a_iu + a_jv − 1 activate nodes and links for the
  availability (Eq. 15–16); Σ_i Res_i·c_iu ≤ Res_u (Eq. 23). Beyond the paper, which has no
  memory: Σ_i memory_i·c_iu ≤ memory_u (memory is a hard constraint everywhere
  in streamplace).

The time limit bounds the whole search, building included: the model is built
under the deadline and up to ``max_nonzeros``, HiGHS gets 80 % of the time
left (it overshoots its own limit by up to a presolve or cut round); when either
runs out, or HiGHS finds no deployment in time, the result is a greedy deployment (each
operator's fewest stable replicas on its fastest nodes with room) with status
``timeout`` and the reason — never "infeasible" for a time-out.

The objective is the SAW utility F (Eq. 21). ``odp`` is the placement-only
special case (k_i = 1). Tests check that the optimum equals a brute force
over every multiset deployment on small instances.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.odrp import DEBS2015_BOUNDS, Bounds, OdrpInstance, Weights, odrp_qos
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register
from streamplace.schedulers.capacity import bits
from streamplace.schedulers.exhaustive import placements_of
from streamplace.schedulers.milp import BuildInterrupted, Milp

BOUND_KEYS = ("r_min", "r_max", "a_min", "a_max", "c_min", "c_max", "z_min", "z_max")


def _nan_bounds() -> dict[str, float]:
    return {k: math.nan for k in BOUND_KEYS}


#: the part of the remaining time limit HiGHS is given (see _place)
HIGHS_SHARE = 0.8


@register
@dataclass(frozen=True)
class Odrp(BaseScheduler):
    """ODRP: replication and placement maximizing the SAW utility of R, A, C and Z."""

    name = "odrp"
    partial_mappings = ("weights",)
    summary = "ODRP (Cardellini et al.): optimal replication + placement for response time, availability, cost, traffic"
    chooses_parallelism = True
    #: compared with the others (throughput and latency), ODRP and ODP minimize response time: an objective of R
    #: alone, with the bounds that normalize it
    comparison_params: ClassVar[Mapping[str, Any]] = {"weights": {"r": 1.0},
                                                      "bounds": {"r_min": 0.0, "r_max": 5000.0}}

    weights: dict[str, float] = field(default_factory=lambda: {"r": 0.25, "a": 0.25, "c": 0.25, "z": 0.25})
    metric: Literal["T", "N", "EE"] = "T"  # the network metric Z
    bounds: dict[str, float] = field(default_factory=_nan_bounds)
    preset: Literal["", "debs2015"] = ""  # fill missing bounds with Cardellini et al.'s (2017) Table 2
    max_replicas: int = 3  # k_i where the operator sets no max_replicas
    capacity: Literal["slots", "cpu"] = "slots"  # Res_u: slots × executors_per_slot replicas, or CPU points
    executors_per_slot: int = 4
    z_unit: Literal["tuples", "bytes"] = "tuples"  # Table 2 normalizes Z in tuples/s
    measured_rates: dict[str, float] = field(default_factory=dict)  # operator input rates observed at runtime
    #: replica counts fixed per operator (counts.OP=n): ODRP then only places those replicas — e.g. another
    #: scheduler's or a paper's counts, placed at their best under the same utility
    counts: dict[str, float] = field(default_factory=dict)
    mip_rel_gap: float = 1e-6
    time_limit_s: float | None = 60.0
    # HiGHS's sub-MIP heuristics (RINS, RENS, root reduced cost) found nothing the branch and bound did not
    # find anyway on the DEBS and chain instances, and took half of each solve (benchmarks/repro_odrp.py)
    submip_heuristics: bool = False
    #: the largest model built (nonzeros of its matrix): ~19 M took 1.7–2.2 GB and a minute on 126 nodes; a larger
    #: one is not built, and a greedy deployment is returned as a time-out instead
    max_nonzeros: int = 5_000_000

    @classmethod
    def summary_rows(cls, predicted: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """ODRP's own QoS of the deployment (its ``odrp`` figures): the utility F and R, A, C and Z as the paper
        defines them, Z in tuples unless ``z_unit`` is bytes."""
        odrp = predicted.get("odrp") or {}
        if not odrp:
            return []
        unit = odrp.get("z_unit", "tuples")
        return [(label, odrp.get(key)) for key, label in (
            ("utility", "ODRP utility F"), ("response_ms", "ODRP response time (ms)"),
            ("availability", "ODRP availability"), ("cost", "ODRP cost"),
            ("inter_node_traffic", f"ODRP T ({unit}/s)"), ("network_usage", f"ODRP N ({unit}/s · ms)"),
            ("elastic_energy", f"ODRP EE ({unit}/s · ms²)"))]

    def __post_init__(self) -> None:
        super().__post_init__()
        self.weight_set()
        self.bound_set().check(self.weight_set())
        unknown = set(self.bounds) - set(BOUND_KEYS)
        if unknown:
            raise SchedulerParamError(f"unknown ODRP bound {sorted(unknown)[0]!r} (fix: use {', '.join(BOUND_KEYS)})")

    def weight_set(self) -> Weights:
        w = {"r": 0.0, "a": 0.0, "c": 0.0, "z": 0.0} | dict(self.weights)
        return Weights(w["r"], w["a"], w["c"], w["z"], self.metric)

    def bound_set(self) -> Bounds:
        given = {k: v for k, v in self.bounds.items() if v is not None and not math.isnan(v)}
        if self.preset == "debs2015":
            given = {k: getattr(DEBS2015_BOUNDS, k) for k in BOUND_KEYS} | given
        return Bounds(**given)

    def caps(self, topology: Topology) -> list[int]:
        return [int(self.counts.get(op.id, op.max_replicas or self.max_replicas)) for op in topology.operators]

    def floors(self, topology: Topology) -> list[int]:
        """The fewest replicas each operator may get: its fixed count (``counts``), else 1."""
        return [int(self.counts.get(op.id, 1)) for op in topology.operators]

    def _check_counts(self, topology: Topology) -> None:
        for op_id, n in self.counts.items():
            if op_id not in topology.index:
                raise SchedulerParamError(f"counts names unknown operator {op_id!r} "
                                          f"(fix: use one of {', '.join(topology.ids)})")
            limit = topology.operators[topology.index[op_id]].max_replicas or self.max_replicas
            if n != int(n) or not 1 <= n <= limit:
                raise SchedulerParamError(f"counts.{op_id} = {n:g} is not a replica count between 1 and its "
                                          f"k = {limit} (fix: give an integer in that range, or raise max_replicas)")

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def instance(self, topology: Topology, cluster: Cluster, profile: Profile | None) -> OdrpInstance:
        return OdrpInstance.build(topology, cluster, profile, self.capacity, self.executors_per_slot,
                                  operator_rates_override=self.measured_rates or None)

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        unknown = [op for op in self.measured_rates if op not in topology.index]
        if unknown:
            raise SchedulerParamError(f"measured_rates names unknown operator {unknown[0]!r} "
                                      f"(fix: use one of {', '.join(topology.ids)})")
        self._check_counts(topology)
        inst = self.instance(topology, cluster, profile)
        k, lo = self.caps(topology), self.floors(topology)
        mask = allowed_mask(topology, cluster)
        reasons = [f"{op_id} receives {inst.lam[i]:,.1f} tuples/s; its fixed count of {n:g} replicas serves "
                   f"{n * inst.mu[i]:,.1f} (fix: raise counts.{op_id} or lower the source rate)"
                   for op_id, n in self.counts.items() if inst.lam[i := topology.index[op_id]] / n >= inst.mu[i]]
        reasons = reasons or explain_infeasible(topology, cluster, inst, k, mask, lo)
        if reasons:
            return Placement(None, "infeasible", reasons)
        w, b = self.weight_set(), self.bound_set()
        computed = ""
        if b.missing(w):
            b, computed = self._computed_bounds(inst, k, mask, w, b, deadline, lo)
        try:
            milp, layout, constant = build_odrp(inst, k, mask, w, b, self.z_unit == "tuples", deadline,
                                                self.max_nonzeros, lo)
        except BuildInterrupted as exc:
            return self._fallback(self._greedy(inst, k, mask, w, b, lo), exc.reason)
        remaining = None if self.time_limit_s is None else max(0.01, self.time_limit_s - deadline.elapsed_ms() / 1e3)
        # HiGHS checks its time limit between steps and overshoots it by a step: presolve and a root cut round
        # took 2.8 s and 2.7 s on an 8-node instance of benchmarks/fuzz_schedulers.py (an interrupt from its MIP
        # and simplex callbacks did not stop either): it gets 80 % of what is left, the rest absorbs such a step
        result = milp.solve(None if remaining is None else HIGHS_SHARE * remaining, self.mip_rel_gap,
                            options=submip_options(self.submip_heuristics))
        if result.x is None:
            if result.status == "infeasible":
                return Placement(None, "infeasible", [
                    "no deployment satisfies node capacities "
                    f"({', '.join(f'{n.id}: {c:g}' for n, c in zip(cluster.nodes, inst.capacity, strict=True))}) "
                    "and memory with every operator's minimum stable replica count on its candidate nodes"])
            return self._fallback(self._greedy(inst, k, mask, w, b, lo),
                                  f"HiGHS found no deployment within the time limit ({result.solver_status})")
        counts = layout.counts(result.x)
        qos = odrp_qos(inst, counts, self.z_unit == "tuples")
        utility = qos.utility(w, b)
        if result.status == "timeout":  # an early incumbent can be worse than the greedy deployment: keep the better
            greedy = self._greedy(inst, k, mask, w, b, lo)
            if greedy[1] > utility:
                return self._fallback(greedy, f"HiGHS's best deployment within the time limit has F = {utility:.6f} "
                                              f"(relative gap {result.gap:.3g})")
        placement = Placement(counts)
        if result.status == "timeout":
            placement.status = "timeout"
            placement.explanation.append(f"time limit {self.time_limit_s} s: best deployment found, relative gap "
                                         f"{result.gap:.3g}")
        placement.gap = result.gap
        if (inst.delay > DELAY_CAP_MS).any():
            placement.warnings.append(
                f"links of more than {DELAY_CAP_MS:,.0f} ms entered the MILP as {DELAY_CAP_MS:,.0f} ms (solver "
                "tolerances); every deployment that can avoid them does, but among deployments that must cross one "
                "their true delays do not rank them. The QoS reported uses the true delays")
        placement.extra_predicted = {"odrp": {
            "utility": utility, "milp_objective": (result.objective or 0.0) + constant,
            "weights": {"r": w.r, "a": w.a, "c": w.c, "z": w.z}, "metric": w.metric, **qos.as_dict(),
            "bounds": {k: float(v) for k, v in dataclasses.asdict(b).items() if v is not None},
            # T, N, EE here count tuples (the paper's Table 2) unless z_unit=bytes; the plan's own
            # inter_node_traffic and network_usage are always in bytes
            "z_unit": "tuples" if self.z_unit == "tuples" else "bytes",
            "solver": result.solver_status, "solve_s": result.seconds, "variables": milp.n_vars,
            "constraints": milp.n_rows}}
        placement.warnings.append(f"odrp: HiGHS {result.solver_status} in {result.seconds:.3f} s "
                                  f"({milp.n_vars} variables, {milp.n_rows} constraints); F = {utility:.6f}")
        if computed:
            placement.warnings.append(computed)
        return placement

    def _computed_bounds(self, inst: OdrpInstance, k: list[int], mask: np.ndarray, w: Weights, given: Bounds,
                         deadline: Deadline, floors: list[int] | None = None) -> tuple[Bounds, str]:
        """Eq. 21's bounds the user did not give, from a payoff table: ODRP solved for each weighted metric alone
        (its best value), every metric evaluated at each of those deployments, and per metric the best and worst
        value seen as its bounds. With one weighted metric the bounds only scale F: any pair ranks the same
        deployments. Half the time left goes to these solves, shared among them."""
        z_tuples = self.z_unit == "tuples"
        metrics = [m for m, weight in (("r", w.r), ("a", w.a), ("c", w.c), ("z", w.z)) if weight > 0]
        rows = []
        left = None if self.time_limit_s is None else max(0.01, self.time_limit_s - deadline.elapsed_ms() / 1e3)
        for m in metrics:
            single = Weights(r=float(m == "r"), a=float(m == "a"), c=float(m == "c"), z=float(m == "z"),
                             metric=w.metric)
            scale = Bounds(**({"a_min": 0.5, "a_max": 1.0} if m == "a" else {f"{m}_min": 0.0, f"{m}_max": 1.0}))
            share = None if left is None else 0.5 * left / len(metrics)
            try:
                milp, layout, _ = build_odrp(inst, k, mask, single, scale, z_tuples, Deadline(share),
                                             self.max_nonzeros, floors)
            except BuildInterrupted:
                continue
            result = milp.solve(share, self.mip_rel_gap, options=submip_options(self.submip_heuristics))
            if result.x is not None:
                rows.append(odrp_qos(inst, layout.counts(result.x), z_tuples))
        if not rows:
            counts = greedy_deployment(inst, k, mask, floors)
            if counts is not None:
                rows.append(odrp_qos(inst, counts, z_tuples))
        values = {"r": [q.response_ms for q in rows], "a": [q.availability for q in rows],
                  "c": [q.cost for q in rows], "z": [q.z(w.metric) for q in rows]}
        bounds = dataclasses.asdict(given)
        for m in given.missing(w):
            seen = values[m] or [1.0]
            lo, hi = min(seen), max(seen)
            if m == "a":  # the best availability is the upper bound, at most 1
                hi = min(hi, 1.0)
                if not hi > lo:
                    lo = hi * (1 - 1e-3)
            elif not hi > lo:  # one deployment or all alike: any span ranks the same
                hi = lo + max(abs(lo), 1.0) * 1e-3
            if bounds[f"{m}_min"] is None:
                bounds[f"{m}_min"] = lo
            if bounds[f"{m}_max"] is None:
                bounds[f"{m}_max"] = max(hi, bounds[f"{m}_min"] * (1 + 1e-6) + 1e-9)
        result_bounds = Bounds(**bounds)
        text = ", ".join(f"{m}: {getattr(result_bounds, m + '_min'):.6g}…{getattr(result_bounds, m + '_max'):.6g}"
                         for m in given.missing(w))
        return result_bounds, (f"odrp: normalization bounds not given, computed from {len(rows)} single-objective "
                               f"solve(s) (payoff table): {text}")

    def _greedy(self, inst: OdrpInstance, k: list[int], mask: np.ndarray, w: Weights,
                b: Bounds, lo: list[int] | None = None) -> tuple[np.ndarray | None, float]:
        """The greedy deployment and its utility F (−inf when it finds no fit)."""
        counts = greedy_deployment(inst, k, mask, lo)
        return counts, -math.inf if counts is None else odrp_qos(inst, counts, self.z_unit == "tuples").utility(w, b)

    @staticmethod
    def _fallback(greedy: tuple[np.ndarray | None, float], why: str) -> Placement:
        """No solver answer within the limits (or a worse one): the greedy deployment, called ``timeout`` (a plan,
        not the optimum), or infeasible when even that finds no fit."""
        counts, utility = greedy
        fix = "raise time_limit_s, or restrict operators to fewer candidate nodes (pinned)"
        if counts is None:
            return Placement(None, "infeasible", [f"{why}; a greedy deployment found no fit either ({fix})"])
        return Placement(counts, "timeout", [f"{why}: a greedy deployment instead (each operator's fewest stable "
                                             f"replicas on its fastest nodes with room), F = {utility:.6f}, not "
                                             f"ODRP's optimum ({fix})"])


def stable_counts(inst: OdrpInstance, i: int, k_i: int, lo_i: int = 1) -> list[int]:
    """The replica counts lo_i ≤ n ≤ k_i of operator i whose replicas are stable M/M/1 queues (λ_i/n < μ_i)."""
    return [n for n in range(lo_i, k_i + 1) if inst.lam[i] / n < inst.mu[i]]


def greedy_deployment(inst: OdrpInstance, k: list[int], mask: np.ndarray,
                      lo: list[int] | None = None) -> np.ndarray | None:
    """Each operator's smallest stable replica count (at least ``lo``), each replica on the fastest allowed node
    with capacity (Res) and memory left; None when some replica fits nowhere. O(replicas · nodes)."""
    n_ops, n_nodes = mask.shape
    lo = lo or [1] * n_ops
    free_res, free_mem = inst.capacity.astype(float).copy(), inst.mem_cap.astype(float).copy()
    counts = np.zeros((n_ops, n_nodes), dtype=np.int64)
    for i in range(n_ops):
        stable = stable_counts(inst, i, k[i], lo[i])
        if not stable:
            return None
        for _ in range(stable[0]):
            fits = mask[i] & (free_res >= inst.res[i] - 1e-9) & (free_mem >= inst.memory[i] - 1e-9)
            if not fits.any():
                return None
            u = int(np.argmax(np.where(fits, inst.speedup, -np.inf)))
            counts[i, u] += 1
            free_res[u] -= inst.res[i]
            free_mem[u] -= inst.memory[i]
    return counts


@register
@dataclass(frozen=True)
class Odp(Odrp):
    """ODP: the placement-only special case of ODRP (one replica per operator)."""

    name = "odp"
    summary = "ODP: ODRP's placement-only special case (k_i = 1)"
    max_replicas: int = 1

    def caps(self, topology: Topology) -> list[int]:
        return [1 for _ in topology.operators]


def explain_infeasible(topology: Topology, cluster: Cluster, inst: OdrpInstance, k: list[int],
                       mask: np.ndarray, lo: list[int] | None = None) -> list[str]:
    """The binding constraint, when it can be named without solving."""
    reasons = []
    lo = lo or [1] * len(topology.operators)
    need = np.zeros(len(topology.operators))
    for i, op in enumerate(topology.operators):
        stable = stable_counts(inst, i, k[i], lo[i])
        if not stable:
            reasons.append(f"{op.id} receives {inst.lam[i]:,.1f} tuples/s but one replica serves {inst.mu[i]:,.1f}: "
                           f"it needs more than k = {k[i]} replicas ({inst.lam[i] / inst.mu[i]:.2f}) "
                           "(fix: raise its max_replicas or lower the source rate)")
        else:
            need[i] = stable[0] * inst.res[i]
    if reasons:
        return reasons
    only: dict[int, list[int]] = {}  # node → the operators pinned to it alone
    for i in range(len(topology.operators)):
        nodes = tuple(np.flatnonzero(mask[i]))
        if len(nodes) == 1:
            only.setdefault(int(nodes[0]), []).append(i)
    for u, ops in only.items():
        total = float(need[ops].sum())
        if total > inst.capacity[u] + 1e-9:
            names = ", ".join(topology.operators[i].id for i in ops)
            reasons.append(f"{names} are pinned to {cluster.nodes[u].id}, which hosts {inst.capacity[u]:g} replicas; "
                           f"they need {total:g} (fix: pin them to more nodes or raise that node's slots)")
    if need.sum() > inst.capacity.sum() + 1e-9:
        reasons.append(f"the operators need at least {need.sum():g} replicas to be stable; the cluster hosts "
                       f"{inst.capacity.sum():g}")
    return reasons


#: Link delays above this enter the MILP as this (ms). HiGHS's feasibility and integrality tolerances are absolute
#: (1e-7, 1e-6): beside a big-M of 10¹² ms a binary at 1e-6 is worth a second, and a 10¹² ms link made ODP call
#: a feasible instance infeasible. 10 s still outweighs any sum of the delays and latencies a stream-processing
#: plan is normalized against (R_max: 450 ms in the paper's Table 2), so every plan that can avoid such a link
#: does; only among plans that must cross one do their true sizes no longer rank them. The QoS reported is
#: computed with the true delays.
DELAY_CAP_MS = 1e4


@dataclass
class OdrpLayout:
    beta: dict[tuple[int, int, int], list[int]]  # (i, u, n) → bit columns of w_iun
    shape: tuple[int, int]  # (operators, nodes) of the instance: pinning may leave the last nodes without a column

    def counts(self, x: np.ndarray) -> np.ndarray:
        c = np.zeros(self.shape, dtype=np.int64)
        for (i, u, _), cols in self.beta.items():
            c[i, u] += sum(round(x[col]) << b for b, col in enumerate(cols))
        return c


def build_odrp(inst: OdrpInstance, k: list[int], mask: np.ndarray, w: Weights, b: Bounds,
               z_in_tuples: bool, deadline: Deadline | None = None,
               max_nonzeros: int | None = None, lo: list[int] | None = None) -> tuple[Milp, OdrpLayout, float]:
    """The compact MILP; returns it, where the bits sit, and F's constant term. Operator i gets between lo[i]
    (default 1) and k[i] replicas. Raises BuildInterrupted when ``deadline`` expires or the matrix passes
    ``max_nonzeros`` while building."""
    n_ops, n_nodes = mask.shape
    lo = lo or [1] * n_ops
    delay = np.minimum(inst.delay, DELAY_CAP_MS)  # HiGHS's tolerances cannot weigh 10¹² ms beside 1 ms
    milp = Milp(maximize=True, deadline=deadline, max_nonzeros=max_nonzeros)
    layout = OdrpLayout({}, (n_ops, n_nodes))
    # objective weights (maximize F): −w_r/ΔR·R + w_a/ΔlogA·logA − w_c/ΔC·C − w_z/ΔZ·Z + constant
    coef_r = coef_a = coef_c = coef_z = 0.0
    constant = 0.0
    if w.r:
        r_min, r_max = b.known("r")
        coef_r = -w.r / (r_max - r_min)
        constant += w.r * r_max / (r_max - r_min)
    if w.a:
        a_min, a_max = b.known("a")
        coef_a = w.a / (math.log(a_max) - math.log(a_min))
        constant -= w.a * math.log(a_min) / (math.log(a_max) - math.log(a_min))
    if w.c:
        c_min, c_max = b.known("c")
        coef_c = -w.c / (c_max - c_min)
        constant += w.c * c_max / (c_max - c_min)
    if w.z:
        z_min, z_max = b.known("z")
        coef_z = -w.z / (z_max - z_min)
        constant += w.z * z_max / (z_max - z_min)

    needs_bits = bool(w.z) or (bool(w.c) and bool((inst.link_cost > 0).any()))
    a: dict[tuple[int, int], int] = {}
    delay_var: dict[int, int] = {}
    share: dict[tuple[int, int], list[tuple[int, float]]] = {}  # f_iu as a linear expression
    node_res: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_mem: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    r_var: dict[int, int] = {}
    for i in range(n_ops):
        ns = stable_counts(inst, i, k[i], lo[i])
        ys = {n: milp.binary() for n in ns}
        milp.row([(y, 1.0) for y in ys.values()], lo=1.0, hi=1.0)
        nodes = [int(u) for u in np.flatnonzero(mask[i])]
        for n in ns:
            terms: list[tuple[int, float]] = [(ys[n], -float(n))]
            for u in nodes:
                # bits of w_iun when the traffic products need binaries; a plain integer otherwise (tighter)
                cols = ([milp.binary() for _ in range(bits(n))] if needs_bits
                        else [milp.var(0.0, float(n), integer=True)])
                layout.beta[(i, u, n)] = cols
                terms += [(c, float(1 << bb)) for bb, c in enumerate(cols)]
            milp.row(terms, lo=0.0, hi=0.0)
        if w.r:
            r_var[i] = milp.var(0.0)
            # whatever the nodes, a replica is at least as slow as on the fastest candidate: a tight cut
            fastest = {n: min(inst.latency_ms(i, n, u) for u in nodes) for n in ns}
            milp.row([(r_var[i], 1.0)] + [(ys[n], -fastest[n]) for n in ns], lo=0.0)
        for u in nodes:
            count = [(c, float(1 << bb)) for n in ns for bb, c in enumerate(layout.beta[(i, u, n)])]
            share[(i, u)] = [(c, float(1 << bb) / n) for n in ns for bb, c in enumerate(layout.beta[(i, u, n)])]
            au = milp.binary()
            a[(i, u)] = au
            milp.row([*count, (au, -1.0)], lo=0.0)  # c_iu ≥ a_iu
            milp.row([*count, (au, -float(k[i]))], hi=0.0)  # c_iu ≤ k_i a_iu
            milp.row([(au, 1.0)] + [(c, -v) for c, v in share[(i, u)]], lo=0.0)  # a_iu ≥ f_iu (tightens the LP)
            node_res[u] += [(c, v * inst.res[i]) for c, v in count]
            node_mem[u] += [(c, v * inst.memory[i]) for c, v in count]
            milp.cost_add(count, coef_c * inst.unit_cost[i])
            if w.r:
                rho = {n: inst.latency_ms(i, n, u) for n in ns}
                big = max(rho.values())
                milp.row([(r_var[i], 1.0)] + [(ys[n], -rho[n]) for n in ns] + [(au, -big)], lo=-big)
    for u in range(n_nodes):
        if node_res[u]:
            milp.row(node_res[u], hi=float(inst.capacity[u]))
        if node_mem[u] and sum(v for _, v in node_mem[u]) > inst.mem_cap[u]:  # memory: hard (not in the paper)
            milp.row(node_mem[u], hi=float(inst.mem_cap[u]))
    if w.a:
        for u in range(n_nodes):
            users = [a[(i, u)] for i in range(n_ops) if (i, u) in a]
            if users and inst.node_log_av[u] < 0:
                zu = milp.var(0.0, 1.0, cost=coef_a * inst.node_log_av[u])
                for au in users:
                    milp.row([(zu, 1.0), (au, -1.0)], lo=0.0)
    # streams
    link_vars: dict[tuple[int, int], int] = {}
    any_link_cost = bool((inst.link_cost > 0).any())
    for s, (i, j) in enumerate(zip(inst.src, inst.tgt, strict=True)):
        i, j = int(i), int(j)
        u_nodes = [u for u in range(n_nodes) if (i, u) in a]
        v_nodes = [v for v in range(n_nodes) if (j, v) in a]
        if w.r and inst.forward[s]:
            d = milp.var(0.0)
            for u in u_nodes:
                for v in v_nodes:
                    if delay[u, v] > 0:
                        milp.row([(d, 1.0), (a[(i, u)], -delay[u, v]), (a[(j, v)], -delay[u, v])],
                                 lo=-delay[u, v])
            # share-weighted cuts: the max delay is at least the delay averaged over where the other end's
            # stream share goes; unlike the pairwise rows this stays strong when the LP spreads replicas thinly
            for u in u_nodes:
                big = float(max(delay[u, v] for v in v_nodes))
                if big > 0:
                    milp.row([(d, 1.0), (a[(i, u)], -big)]
                             + [(c, -delay[u, v] * x) for v in v_nodes for c, x in share[(j, v)]], lo=-big)
            for v in v_nodes:
                big = float(max(delay[u, v] for u in u_nodes))
                if big > 0:
                    milp.row([(d, 1.0), (a[(j, v)], -big)]
                             + [(c, -delay[u, v] * x) for u in u_nodes for c, x in share[(i, u)]], lo=-big)
            delay_var[s] = d
        if w.a:
            for u in u_nodes:
                for v in v_nodes:
                    if u != v and inst.link_log_av[u, v] < 0:
                        if (u, v) not in link_vars:
                            link_vars[(u, v)] = milp.var(0.0, 1.0, cost=coef_a * inst.link_log_av[u, v])
                        milp.row([(link_vars[(u, v)], 1.0), (a[(i, u)], -1.0), (a[(j, v)], -1.0)], lo=-1.0)
        per_bytes = 1.0 if z_in_tuples else inst.stream_bytes[s]

        def bit_count(op: int, nodes: list[int]) -> int:
            return sum(len(layout.beta[(op, x, n)]) for x in nodes for n in range(1, k[op] + 1)
                       if (op, x, n) in layout.beta)

        # flow(u, v) = λ·f_iu·f_jv is bilinear and symmetric: expand into bits whichever end gives fewer products
        expand_upstream = bit_count(i, u_nodes) * len(v_nodes) <= bit_count(j, v_nodes) * len(u_nodes)
        for u in u_nodes:
            for v in v_nodes:
                if u == v:
                    continue
                weight = 0.0
                if w.z:
                    factor = {"T": 1.0, "N": delay[u, v], "EE": delay[u, v] ** 2}[w.metric]
                    weight += coef_z * per_bytes * factor
                if any_link_cost and w.c:
                    weight += coef_c * inst.stream_bytes[s] / 1e6 * inst.link_cost[u, v]
                if weight == 0.0:
                    continue
                bit_op, bit_node, other = (i, u, share[(j, v)]) if expand_upstream else (j, v, share[(i, u)])
                for n in [n for n in range(1, k[bit_op] + 1) if (bit_op, bit_node, n) in layout.beta]:
                    for bb, beta in enumerate(layout.beta[(bit_op, bit_node, n)]):
                        h = milp.var(0.0, 1.0, cost=weight * inst.stream_rate[s] * (1 << bb) / n)
                        milp.row([(h, 1.0), (beta, -1.0)] + [(c, -x) for c, x in other], lo=-1.0)
    if w.r:
        t = {i: milp.var(0.0) for i in range(n_ops)}
        for i in range(n_ops):
            milp.row([(t[i], 1.0), (r_var[i], -1.0)], lo=0.0)
        for s, (i, j) in enumerate(zip(inst.src, inst.tgt, strict=True)):
            if inst.forward[s]:
                milp.row([(t[int(j)], 1.0), (t[int(i)], -1.0), (delay_var[s], -1.0), (r_var[int(j)], -1.0)],
                         lo=0.0)
        resp = milp.var(0.0, cost=coef_r)
        for sink in (inst.sinks if len(inst.sinks) else range(n_ops)):
            milp.row([(resp, 1.0), (t[int(sink)], -1.0)], lo=0.0)
        # Valid cuts that tighten the relaxation: data reaching a replica of i on u has crossed at least the
        # shortest delay path from every pinned source's node to u, and must still cross one from u to every
        # pinned sink's node downstream of i.
        sp = shortest_delays(delay)
        for i in range(n_ops):
            for src_op in inst.sources:
                anchor = pinned_node(mask, int(src_op))
                if anchor is None or not inst.reach[int(src_op), i]:
                    continue
                for u in [u for u in range(n_nodes) if (i, u) in a and sp[anchor, u] > 0]:
                    milp.row([(t[i], 1.0), (a[(i, u)], -sp[anchor, u])], lo=0.0)
            for sink in inst.sinks:
                anchor = pinned_node(mask, int(sink))
                if anchor is None or not inst.reach[i, int(sink)] or i == int(sink):
                    continue
                for u in [u for u in range(n_nodes) if (i, u) in a and sp[u, anchor] > 0]:
                    milp.row([(resp, 1.0), (t[i], -1.0), (a[(i, u)], -sp[u, anchor])], lo=0.0)
    return milp, layout, constant


def s_odrp(topology: Topology, cluster: Cluster, scheduler: Odrp, measured_rates: Mapping[str, float] | None = None,
           profile: Profile | None = None) -> Plan:
    """Algorithm 1 of Cardellini et al. 2017 as a function the runtime calls.

    Without stream-rate data (the first deployment) it returns a cost-minimizing
    deployment (w_c = 1) so the application can start and be measured; called again
    with the measured operator input rates, it solves ODRP with the configured weights.
    """
    if not measured_rates:
        first = Odrp(weights={"c": 1.0}, max_replicas=scheduler.max_replicas, capacity=scheduler.capacity,
                     executors_per_slot=scheduler.executors_per_slot, bounds={"c_min": 0.0, "c_max": 1e6},
                     measured_rates={op.id: 0.0 for op in topology.operators}, time_limit_s=scheduler.time_limit_s)
        plan = first.plan(topology, cluster, profile)
        return plan.evolve(warnings=(*plan.warnings, "s-odrp phase 1: cost-minimizing deployment without "
                                     "stream-rate data; re-plan with measured rates"))
    return dataclasses.replace(scheduler, measured_rates=dict(measured_rates)).plan(topology, cluster, profile)


def submip_options(enabled: bool) -> dict[str, bool | int | float | str]:
    """HiGHS options switching its sub-MIP primal heuristics on or off."""
    return {key: enabled for key in ("mip_heuristic_run_rins", "mip_heuristic_run_rens",
                                     "mip_heuristic_run_root_reduced_cost")}


def pinned_node(mask: np.ndarray, i: int) -> int | None:
    nodes = np.flatnonzero(mask[i])
    return int(nodes[0]) if len(nodes) == 1 else None


def shortest_delays(delay: np.ndarray) -> np.ndarray:
    """All-pairs shortest accumulated delay (Floyd–Warshall, O(nodes³) with numpy)."""
    d = delay.copy()
    for k in range(len(d)):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return d


def brute_force(inst: OdrpInstance, k: list[int], mask: np.ndarray, w: Weights, b: Bounds,
                z_in_tuples: bool = True, limit: int = 2_000_000) -> tuple[float, np.ndarray] | None:
    """The paper's formulation evaluated literally: every multiset U_i ⊑ V^i with |U_i| ≤ k_i per operator,
    every combination scored by F (Eq. 21) under the capacities. For small instances (tests)."""
    import itertools

    options = [placements_of(mask[i], k[i], None) for i in range(mask.shape[0])]
    total = 1
    for o in options:
        total *= len(o)
    if total > limit:
        raise SchedulerParamError(f"brute force over {total:,} deployments exceeds the limit of {limit:,}")
    best: tuple[float, np.ndarray] | None = None
    for combo in itertools.product(*options):
        counts = np.stack(combo)
        n = counts.sum(axis=1)
        if ((counts * inst.res[:, None]).sum(axis=0) > inst.capacity + 1e-9).any():
            continue
        if (inst.lam / n >= inst.mu).any():
            continue  # an unstable replica (M/M/1 without a steady state) is not a deployment
        value = odrp_qos(inst, counts, z_in_tuples).utility(w, b)
        if best is None or value > best[0] + 1e-12:
            best = (value, counts)
    return best
