"""``max-throughput``: our own throughput maximizer for the Nasiri et al. (2023) model, beside the paper's ``hetero``.

The problem is ``optimal``'s (schedulers/optimal.py): integer replica counts
c_iu per operator and node, 1 ≤ n_i ≤ k_i, maximizing the scale s of the
source rates under node CPU (TCU = e·IR + MET per replica, rates split evenly
over an operator's replicas), one thread per replica, memory and pinning. The
MILP proves optima but takes seconds to hours; this answers in milliseconds
and says how far from the optimum it can be:

1. **Upper bound (LP).** Let y_iu be the tuples/s of operator i processed on
   node u. Even split or not, node u's replicas of i need at least
   y_iu·r_iu / (100 − MET_iu) threads (r = e/10 points per tuple/s), each
   paying MET_iu, so node u's load is at least Σ_i y_iu·r_iu·100/(100 − MET_iu).
   Maximizing s subject to Σ_u y_iu ≥ λ_i·s, those loads within capacity, and
   the threads within k_i and within each node's memory is a relaxation: its
   optimum bounds every plan's scale from above. Solved by
   HiGHS's simplex (O(ops·nodes) variables). Where only the machine caps a
   replica there is no thread count: the starts use the LP without one, and
   the plan is judged by the LP whose replicas use at most their machine
   (cap_u in place of 100 — valid, and it carries the fixed overheads).
2. **Starts.** The LP's split rounded to integer counts (as many replicas as
   the threads need, shared out by largest remainder), and the plans of the
   paper's algorithm (``hetero``) as its text and as its authors' simulator
   run it.
3. **Population local search.** ``chains`` count matrices (the starts and
   perturbed copies of them) climb together: every round each takes its best
   improving neighbour — a replica of an operator on a bottleneck node (or at
   its one-thread limit) added elsewhere, moved off, dropped, or swapped with
   another operator's replica, and an operator grown or shrunk by one replica
   on every machine of a type that holds it (identical machines sharing a
   bottleneck need that: one replica off one of them leaves the others at it)
   — scored in one vectorized batch by the exact
   model, leximin: the scale, then how many nodes and replicas sit at it, so
   ties between bottlenecks are progress. A chain at a local optimum first
   re-plans each bottleneck operator from scratch with the others held (its
   best response: the replica total and spread that sustain the highest
   scale, computed exactly — several replicas move at once, which the
   authors' rc-s3 data needs); where that does not improve it, it is kicked
   (a seeded random perturbation: a block swap of two operators' machine
   types, or one to three replicas moved, added or removed) and climbs on.
   It stops at the LP bound (proven optimal), after ``patience`` rounds
   without a better plan, or after ``rounds``; the best plan seen is kept.
   Deterministic for a seed.
4. **Exact neighbourhood.** Where the search's plan is more than ``target_gap``
   (1 %) below the LP bound, ``optimal``'s feasibility MILP (pure integer at a
   fixed scale), restricted to replica totals within ``exact_radius`` (3) of
   the plan's, asks whether such a plan sustains 1.01 × its scale —
   ``exact_solves`` (1) questions of at most ``exact_nodes`` (10)
   branch-and-bound nodes each. Feasible: the solver's plan is taken (the
   optimum of the authors' rc-s2 packs fixed overheads in a way no climb
   reaches). Infeasible with a radius that covers every total 1..k_i: the
   plan is proven within 1 % of the optimum (the LP bound is loose where
   fixed overheads are large: 7–25 % above the optimum on the authors'
   data). The budgets are work, not time: the plan is the same on any
   machine and under any load; ``time_limit_s`` stops the search and the
   solver only as a safety net, and the plan says when it did.

The plan reports its ``gap``: at most this far below the optimum, from the LP
bound or from the exact check's proof, whichever is tighter. Under ``--engine spark`` it optimizes that engine's model
instead: the least per-tuple batch work W (stage waves along the longest path,
as ``optimal`` models it there), by the same kind of population search from
the ideal model's plan and hetero's; no bound is reported there.

Complexity: the LP is one HiGHS solve; a round scores, per chain, O(h·m)
additions and moves, O(h·o·m) swaps (h replicas on a bottleneck, o
operators, m nodes) and O(o·g) type moves (g machine types), each an o·m
matrix, in one vectorized batch; a best response costs O(k²·m·log(k·m)) per
bottleneck operator (k its replica cap). The exact neighbourhood's MILP has
O(o·r·m) integer columns (r = 2·exact_radius + 1) and at most exact_nodes
nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, replica_cap_of
from streamplace.perf.rates import selectivities
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, predict_counts, register
from streamplace.schedulers.capacity import (
    S_CAP,
    counts_from_feasibility,
    feasibility_milp,
    sustained_rates,
)
from streamplace.schedulers.hetero import Rules, first_assignment, maximize_throughput
from streamplace.schedulers.milp import solve_lp
from streamplace.schedulers.spark_optimal import stage_costs

TIE = 1e-9  # relative: two scales this close are equal
#: HiGHS settings of the exact check, a feasibility question on a small model: no presolve and no restarts (on
#: the authors' data and hetero-3 restarts re-ran the root three times, 650 ms for a proof that takes 80 ms
#: without) and no primal heuristics (on nasiri-small's diamond they spent 2,139 of 2,748 LP iterations of the
#: root); the same answers on the benchmark's 36 instances, 1.5–3× sooner
EXACT_OPTIONS: dict[str, bool | int | float | str] = {
    "presolve": "off", "mip_allow_restart": False, "mip_heuristic_effort": 0.0,
    "mip_heuristic_run_feasibility_jump": False, "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
    "mip_heuristic_run_root_reduced_cost": False}


@register
@dataclass(frozen=True)
class MaxThroughput(BaseScheduler):
    """LP bound, rounded-LP and hetero starts, population local search on replica counts, then an exact check."""

    name = "max-throughput"
    summary = "throughput maximizer (ours): LP upper bound, rounded LP and hetero starts, local search; reports gap"
    chooses_parallelism = True

    max_replicas: int = 10  # k_i where the operator sets no max_replicas (as optimal: Nasiri et al. 2023's k)
    chains: int = 12  # count matrices searched at once (the starts and perturbed copies)
    rounds: int = 60  # search rounds at most: a step (or, at a local optimum, a kick) for every chain
    patience: int = 10  # stop after this many rounds without a better plan
    seed: int = 0
    target_gap: float = 0.01  # the exact check asks for a plan this much better than the search's (1 %)
    exact_solves: int = 1  # the exact check's feasibility MILPs at most (0 turns the check off)
    exact_nodes: int = 10  # branch-and-bound nodes per exact-check solve at most: a budget in work, not time
    exact_radius: int = 3  # the check asks about plans whose replica totals are within this of the plan's (k: all)
    tasks_per_node: int | None = None  # Nasiri et al.'s k_j: at most this many replicas on one node (None: no cap)

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def caps(self, topology: Topology) -> np.ndarray:
        return np.array([op.max_replicas or max(self.max_replicas, 1) for op in topology.operators], dtype=np.int64)

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        """Under ``--engine spark``, optimize that engine's model (the least per-tuple batch work); under ``storm``,
        the throughput model with its serialization CPU."""
        if engine is not None and engine.name == "spark":
            return _spark_place(self, topology, cluster, profile, engine, deadline)
        if engine is not None and engine.name == "storm":
            return _storm_place(self, topology, cluster, profile, engine, deadline)
        return self._maximize(topology, cluster, profile, deadline, engine, replica_cap_of(engine))

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        return self._maximize(topology, cluster, profile, deadline, None, replica_cap_of(None))

    def _maximize(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
                  engine: EngineSettings | None, cap: str) -> Placement:
        """Maximize the scale of the ideal model or, under ``storm``, of the ideal model plus serialization CPU.
        Every bound and proof of the ideal model holds under storm too: serialization only adds load, so a plan
        sustains no more under storm than under the ideal model, and the LP bound and an infeasible exact check
        bound storm's optimum as well."""
        model = ThroughputModel.build(topology, cluster, profile, engine=engine, replica_cap=cap,
                                      tasks_per_node=self.tasks_per_node)
        k = self.caps(topology)
        bound, flows = lp_bound(model, k)
        starts = []
        # the bound the plan is judged by: where only the machine caps a replica, the LP whose replicas may use at
        # most their machine (it carries fixed overheads; the flows of the one without seed the starts, as before)
        proof = lp_bound(model, k, np.minimum(model.thread_points, model.cap))[0] \
            if model.replica_cap == "machine" else bound
        rounded = round_flows(model, flows, bound, k)
        if rounded is not None:
            starts.append(("lp", rounded))
        if model.replica_cap == "machine":  # no thread count to round: one and two replicas per node the LP uses
            typed = typed_start(model, k, bound)
            if typed is not None:
                starts.append(("typed", typed))
            for per_node in (1.0, 2.0):
                spread = round_flows(model, flows, bound, k, per_node)
                if spread is not None:
                    starts.append((f"lp-{per_node:g}-per-node", spread))
        first = first_assignment(model, selectivities(topology, profile), 0.01)
        if not isinstance(first, str):  # the paper's algorithm, as its text and as its authors' simulator run it
            for label, rules in (("hetero", Rules()), ("hetero-authors", Rules("ratio", 199, "lowest-id"))):
                counts, _, _, _ = maximize_throughput(model, first[0], first[1], k, 2048, 200_000, Deadline(None),
                                                      rules)
                starts.append((label, counts))
        if not starts:
            return Placement(None, "infeasible", [
                "no start fits: even one replica per operator breaks a node's memory or CPU (fixed overheads)"])
        rng = np.random.default_rng(self.seed)
        best, best_scale, steps = population_search(model, [c for _, c in starts], k, self.chains, self.rounds,
                                                    self.patience, rng, min(bound, proof), deadline)
        bound = min(bound, proof)
        timed_out = deadline.expired()
        close = not np.isfinite(bound) or best_scale >= bound * (1 - self.target_gap)
        check = ExactCheck(best, best_scale, None, 0, 0, 0.0,
                           f"not needed: within {self.target_gap:.0%} of the LP bound" if close else
                           "off (exact_solves=0)" if self.exact_solves <= 0 else "skipped: the time limit was reached")
        if not close and self.exact_solves > 0 and not timed_out:
            check = exact_check(model, k, best, best_scale, self.target_gap, self.exact_solves, self.exact_nodes,
                                self.exact_radius, deadline)
        best, best_scale = check.counts, check.scale
        placement = Placement(best)
        placement.source_rates = sustained_rates(topology, best_scale)
        gaps = [1.0 - best_scale / bound] if np.isfinite(bound) and bound > 0 else []
        if check.proven_below is not None and check.proven_below > 0:
            gaps.append(1.0 - best_scale / check.proven_below)
        placement.gap = max(0.0, min(gaps)) if gaps else None
        gap_text = f"{placement.gap:.2%}" if placement.gap is not None else "unknown"
        proof = (f"; no plan sustains {check.proven_below:.6g} (feasibility MILP infeasible)"
                 if check.proven_below is not None else "")
        placement.warnings.append(
            f"max-throughput: scale {best_scale:.6g} × the offered rates, LP upper bound {bound:.6g}{proof} "
            f"(at most {gap_text} below the optimum); {steps} search steps, {check.solves} exact checks "
            f"({check.nodes} branch-and-bound nodes, {check.seconds * 1e3:.0f} ms): {check.stopped}")
        if model.remote is not None and engine is not None and engine.storm.max_spout_pending is not None:
            placement.warnings.append(
                f"max-throughput (storm engine): maximized with serialization CPU; flow control "
                f"(max_spout_pending {engine.storm.max_spout_pending}) bounds the rate through the latency and is "
                "applied by the prediction only")
        if timed_out:
            placement.warnings.append(
                f"max-throughput: the time limit ({self.time_limit_s} s) stopped the search before its work budget "
                "(rounds, patience) was spent: this plan depends on the machine's speed; raise time_limit_s")
        return placement


def _storm_place(scheduler: MaxThroughput, topology: Topology, cluster: Cluster, profile: Profile | None,
                 engine: EngineSettings, deadline: Deadline) -> Placement:
    """Under the storm engine: maximize the model with serialization CPU, and also the ideal one, and keep the
    plan the storm engine's own prediction rates higher (it adds what neither search sees: NIC bandwidth where
    nodes declare one, and flow control where max spout pending is set). Twice the ideal search's work."""
    cap = replica_cap_of(engine)  # storm: an executor is one thread
    with_storm = scheduler._maximize(topology, cluster, profile, deadline, engine, cap)
    ideal = scheduler._maximize(topology, cluster, profile, deadline, None, cap)

    def predicted(p: Placement) -> float:
        if p.counts is None:
            return -1.0
        return float(predict_counts(scheduler.name, topology, cluster, p.counts, p.source_rates or {}, profile,
                                    engine).get("throughput") or 0.0)

    a, b = predicted(with_storm), predicted(ideal)
    best = with_storm if a >= b else ideal
    best.warnings.append(
        f"max-throughput (storm engine): the plan maximizing serialization-aware CPU is predicted {a:.6g} tuples/s, "
        f"the ideal model's {b:.6g}; kept the {'first' if best is with_storm else 'second'}")
    return best


def _spark_place(scheduler: MaxThroughput, topology: Topology, cluster: Cluster, profile: Profile | None,
                 engine, deadline: Deadline) -> Placement:
    """Under the spark engine: the counts and placement with the least per-tuple batch work W (SparkWork), from
    the ideal model's best plan and hetero's, by the same kind of population search."""
    ideal = scheduler._maximize(topology, cluster, profile, deadline, None, "thread")  # a Spark task: one core
    model = ThroughputModel.build(topology, cluster, profile, replica_cap="thread",
                                  tasks_per_node=scheduler.tasks_per_node)
    k = scheduler.caps(topology)
    work = SparkWork.build(topology, cluster, profile, engine)
    starts = [ideal.counts] if ideal.counts is not None else []
    first = first_assignment(model, selectivities(topology, profile), 0.01)
    if not isinstance(first, str):
        starts.append(maximize_throughput(model, first[0], first[1], k, 2048, 200_000, Deadline(None))[0])
    if not starts:
        return ideal
    rng = np.random.default_rng(scheduler.seed)
    best, w, steps = spark_search(work, model, starts, k, scheduler.chains, scheduler.rounds, scheduler.patience,
                                  rng, deadline)
    placement = Placement(best)
    placement.source_rates = sustained_rates(topology, 1.0 / w if w > 0 else S_CAP)
    placement.warnings.append(f"max-throughput (spark engine): least per-tuple batch work {w:.6g} s found by "
                              f"{steps} search steps from the ideal model's plan and hetero's; no bound under "
                              "this engine")
    return placement


def lp_bound(model: ThroughputModel, k: np.ndarray,
             replica_points: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """The LP relaxation's optimal scale (an upper bound on every plan's) and its flows y (ops × nodes, tuples/s).
    ``replica_points`` (nodes,): the most points one replica uses, by default the model's (100 for one thread,
    inf where only the machine caps it: then no replica count, and no fixed overhead, enters). Any finite cap
    that holds is valid — a replica never exceeds its machine, so under the machine cap c_iu ≥ y_iu·r_iu /
    (cap_u − MET_iu) replicas pay MET_iu each: on the authors' data the bound drops from 13–41 % above the best
    plan found to 7–25 %."""
    n_ops, n_nodes = model.e.shape
    lam = model.lam + model.lam_all
    tp = model.thread_points if replica_points is None else replica_points
    usable = model.allowed & (model.met < tp[None, :])
    ii, uu = np.nonzero(usable)
    n_y = len(ii)
    if n_y == 0:
        return 0.0, np.zeros((n_ops, n_nodes))
    threads = model.rate_cost[ii, uu] / (tp[uu] - model.met[ii, uu])  # threads per tuple/s: replicas needed
    weight = model.rate_cost[ii, uu] + model.met[ii, uu] * threads  # node points per tuple/s, MET included
    # rows: λ_i·s − Σ_u y_iu ≤ 0 (ops); Σ_i w_iu·y_iu ≤ cap_u (nodes); Σ_u t_iu·y_iu ≤ k_i (ops: at most k_i
    # replicas); Σ_i mem_i·t_iu·y_iu ≤ memory_u (nodes); Σ_i t_iu·y_iu ≤ k_j (nodes: at most k_j replicas)
    y = np.arange(n_y)
    base = 2 * n_ops + 2 * n_nodes
    rows = np.concatenate([ii, n_ops + uu, n_ops + n_nodes + ii, 2 * n_ops + n_nodes + uu, base + uu, np.arange(n_ops)])
    cols = np.concatenate([y, y, y, y, y, np.full(n_ops, n_y)])
    vals = np.concatenate([-np.ones(n_y), weight, threads, model.memory[ii] * threads, threads, lam])
    n_rows = base + n_nodes
    b_ub = np.concatenate([np.zeros(n_ops), model.cap, k.astype(float), model.node_memory,
                           np.where(np.isfinite(model.slots), model.slots, 1e30)])
    cost = np.zeros(n_y + 1)
    cost[-1] = 1.0
    upper = np.r_[np.full(n_y, np.inf), S_CAP]
    res = solve_lp(cost, rows, cols, vals, np.full(n_rows, -np.inf), b_ub, np.zeros(n_y + 1), upper, maximize=True)
    if res.status != "optimal" or res.x is None:
        return float("inf"), np.zeros((n_ops, n_nodes))
    flows = np.zeros((n_ops, n_nodes))
    flows[ii, uu] = res.x[:n_y]
    return float(res.x[-1]), flows


def round_flows(model: ThroughputModel, flows: np.ndarray, scale: float, k: np.ndarray,
                per_node: float = 0.0) -> np.ndarray | None:
    """Integer counts from the LP's flows: the threads the flows need — or, with ``per_node`` > 0 (where only the
    machine caps a replica, so no thread count is needed), that many replicas per node the LP sends flow to —
    shared out by largest remainder, so each node's share of the even split follows its share of the flow."""
    if not np.isfinite(scale) or scale <= 0:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        tp = model.thread_points[None, :]
        threads = np.where(model.met < tp, flows * model.rate_cost / (tp - model.met), 0.0)
    counts = np.zeros(flows.shape, dtype=np.int64)
    for i in range(flows.shape[0]):
        share = flows[i] / flows[i].sum() if flows[i].sum() > 0 else model.allowed[i] / max(model.allowed[i].sum(), 1)
        need = per_node * float((share > 1e-6).sum()) if per_node > 0 else threads[i].sum()
        n = int(min(max(1, np.ceil(need - 1e-9)), k[i]))
        ideal = share * n
        base = np.floor(ideal).astype(np.int64)
        rest = n - int(base.sum())
        order = np.argsort(-(ideal - base), kind="stable")
        base[order[:rest]] += 1
        counts[i] = base
    return counts if model.fits(counts) else None


def typed_start(model: ThroughputModel, k: np.ndarray, bound: float) -> np.ndarray | None:
    """A start that gives each operator the machines of one type: operators in decreasing order of work, each
    placed by its best response restricted to one node group (identical machines), the group whose response
    sustains the most beside the operators placed before it. With the even split every replica of an operator
    gets the same rate, so spreading one over machines of different speeds idles the fast ones; the optimum of
    nasiri-large gives Linear's three bolts the Pentiums, the Core i3s and the Core i5s. O(ops · groups) best
    responses."""
    n_ops, n_nodes = model.e.shape
    groups = node_groups(model)
    n_groups = int(groups.max()) + 1
    work = model.lam_one * np.where(model.allowed, model.rate_cost, np.inf).min(axis=1)
    counts = np.zeros((n_ops, n_nodes), dtype=np.int64)
    ceiling = bound * (1 + 1e-6) if np.isfinite(bound) else S_CAP
    for i in np.argsort(-np.where(np.isfinite(work), work, 0.0), kind="stable"):
        only = groups[None, :] == np.arange(n_groups)[:, None]  # (G, nodes)
        pop = np.repeat(counts[None], n_groups, axis=0)
        tried = best_responses(model, pop, np.arange(n_groups), np.full(n_groups, int(i)), k, ceiling, only=only)
        placed = tried[:, i].sum(axis=1) > 0
        if not placed.any():
            tried = best_responses(model, counts[None], np.array([0]), np.array([int(i)]), k, ceiling)
            placed = tried[:, i].sum(axis=1) > 0
            if not placed.any():
                return None
        scale = np.where(placed, model.max_scale_batch(tried), -1.0)
        counts = tried[int(np.argmax(scale))]
    return counts if model.fits(counts) else None


def node_and_thread_scales(model: ThroughputModel, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per count matrix: the scale at which each node hits its CPU budget (batch, nodes) and the scale at which
    a replica of operator i on node u hits one thread (batch, ops, nodes; inf where there is none)."""
    n = batch.sum(axis=2)
    per = np.divide(model.lam, n, out=np.zeros(n.shape), where=n > 0) + np.where(n > 0, model.lam_all, 0.0)
    thread = per[:, :, None] * model.rate_cost[None]  # points per replica at scale 1
    a = (batch * thread).sum(axis=1) + model.remote_points(batch)
    budget = model.cap[None] - np.einsum("biu,iu->bu", batch, model.met)
    node_s = np.full(a.shape, np.inf)
    np.divide(budget, a, out=node_s, where=a > 0)
    node_s[(a <= 0) & (budget < -1e-9)] = 0.0
    cell_s = np.full(batch.shape, np.inf)
    np.divide((model.thread_points[None, :] - model.met)[None], thread, out=cell_s, where=(batch > 0) & (thread > 0))
    return np.maximum(node_s, 0.0), np.maximum(cell_s, 0.0)


def leximin_key(model: ThroughputModel, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(scale, what sits at it, node scales, cell scales) per count matrix: higher scale first, then fewer nodes
    at their CPU budget plus fewer replicas at their one-thread limit — so moving replicas off a binding cell one
    by one is progress."""
    node_s, cell_s = node_and_thread_scales(model, batch)
    scale = np.minimum(np.minimum(node_s.min(axis=1), cell_s.min(axis=(1, 2))), S_CAP)
    limit = scale * (1 + TIE)
    at = (node_s <= limit[:, None]).sum(axis=1) + np.where(cell_s <= limit[:, None, None], batch, 0).sum(axis=(1, 2))
    return scale, at, node_s, cell_s


def hot_cells(pop: np.ndarray, node_s: np.ndarray, cell_s: np.ndarray) -> np.ndarray:
    """(P, ops, nodes): the replicas of each count matrix that sit at its bottleneck — on a node at its CPU
    budget, or at their own one-thread limit — given its node and cell scales (``node_and_thread_scales``)."""
    limit = np.minimum(node_s.min(axis=1), cell_s.min(axis=(1, 2))) * (1 + TIE)
    return (pop > 0) & ((node_s <= limit[:, None])[:, None, :] | (cell_s <= limit[:, None, None]))


def neighbours(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, node_s: np.ndarray,
               cell_s: np.ndarray, groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Candidates one step from each count matrix of the population ``pop`` (chains, ops, nodes), given their node
    and cell scales, that may relieve a bottleneck: for every operator on a bottleneck node or at its one-thread
    limit there, one more replica on another node, one moved off, one fewer. Returns the candidates and the chain
    each comes from; built with array indexing, no Python loop over chains or candidates."""
    n = pop.sum(axis=2)  # (P, ops)
    hot = hot_cells(pop, node_s, cell_s)
    mem = (pop * model.memory[None, :, None]).sum(axis=1)  # (P, nodes)
    room = model.allowed[None] & (mem[:, None, :] + model.memory[None, :, None] <= model.node_memory + 1e-9) & \
        (model.met < model.thread_points[None, :])[None] & \
        (pop.sum(axis=1) < model.slots[None])[:, None, :]  # (P, ops, nodes): may take one more replica of i
    ap, ai, av = np.nonzero(hot.any(axis=2)[:, :, None] & (n < k[None])[:, :, None] & room)
    off_diagonal = ~np.eye(pop.shape[2], dtype=bool)
    mp, mi, mu, mv = np.nonzero(hot[:, :, :, None] & room[:, :, None, :] & off_diagonal[None, None])
    dp, di, du = np.nonzero(hot & (n > 1)[:, :, None])
    # swaps: a hot (i, u) trades places with a replica (j, v) of another operator on another node
    n_ops = pop.shape[1]
    other = ~np.eye(n_ops, dtype=bool)[:, None, :, None] & off_diagonal[None, :, None, :]  # (i, u, j, v)
    fits = model.allowed[:, None, None, :] & model.allowed.T[None, :, :, None]  # i may go to v, j to u
    sp, si, su, sj, sv = np.nonzero(hot[:, :, :, None, None] & (pop > 0)[:, None, None, :, :] & (other & fits)[None])
    swap_mem = (mem[sp, sv] - model.memory[sj] + model.memory[si] <= model.node_memory[sv] + 1e-9) & \
        (mem[sp, su] - model.memory[si] + model.memory[sj] <= model.node_memory[su] + 1e-9)
    sp, si, su, sj, sv = sp[swap_mem], si[swap_mem], su[swap_mem], sj[swap_mem], sv[swap_mem]
    owner = np.concatenate([ap, mp, dp, sp])
    batch = pop[owner]
    r = np.arange(len(owner))
    batch[r[:len(ap)], ai, av] += 1
    moves = r[len(ap):len(ap) + len(mp)]
    batch[moves, mi, mu] -= 1
    batch[moves, mi, mv] += 1
    drops = r[len(ap) + len(mp):len(ap) + len(mp) + len(dp)]
    batch[drops, di, du] -= 1
    swaps = r[len(ap) + len(mp) + len(dp):]
    batch[swaps, si, su] -= 1
    batch[swaps, si, sv] += 1
    batch[swaps, sj, sv] -= 1
    batch[swaps, sj, su] += 1
    if groups is not None:
        more, whose = group_moves(model, pop, k, groups)
        batch, owner = np.concatenate([batch, more]), np.concatenate([owner, whose])
    return batch, owner


def node_groups(model: ThroughputModel) -> np.ndarray:
    """Per node, the id of its group of identical nodes (same costs, overheads, allowed operators, capacity and
    memory for every operator): machines of one type."""
    columns = np.column_stack([model.e.T, model.met.T, model.allowed.T, model.cap, model.node_memory])
    return np.unique(columns, axis=0, return_inverse=True)[1].ravel()


def group_moves(model: ThroughputModel, pop: np.ndarray, k: np.ndarray,
                groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidates that change an operator by one replica on every node of a group of identical machines that
    holds it — one fewer on each, or one more on each — for groups where it sits on two nodes or more (one node:
    a single move does it). A plan whose bottleneck is shared by identical machines needs such a move: taking
    one replica off one of them leaves the others at the bottleneck (and their load grows). Where only the
    machine caps a replica, also one replica on every node of a group that holds none yet (nasiri-small:
    Linear's planning 144 → 69 ms, RollingCount 0.89 % → 0 % below the optimum). O(P·ops·groups)."""
    onehot = groups[:, None] == np.arange(int(groups.max()) + 1)[None, :]  # (nodes, G)
    held = pop > 0
    h = held.astype(np.int64) @ onehot  # (P, ops, G): nodes of the group holding the operator
    n = pop.sum(axis=2)
    mem = (pop * model.memory[None, :, None]).sum(axis=1)  # (P, nodes)
    full = held & ((mem[:, None, :] + model.memory[None, :, None] > model.node_memory + 1e-9)
                   | (pop.sum(axis=1) >= model.slots[None])[:, None, :])
    blocked = full.astype(np.int64) @ onehot > 0  # (P, ops, G): one more would break a holder's memory
    dp, di, dg = np.nonzero((h >= 2) & (n[:, :, None] - h >= 1))
    ap, ai, ag = np.nonzero((h >= 2) & (n[:, :, None] + h <= k[None, :, None]) & ~blocked)
    owner = np.concatenate([dp, ap])
    ops = np.concatenate([di, ai])
    sign = np.concatenate([-np.ones(len(dp), dtype=np.int64), np.ones(len(ap), dtype=np.int64)])
    batch = pop[owner]
    r = np.arange(len(owner))
    change = held[owner, ops] & (groups[None, :] == np.concatenate([dg, ag])[:, None])  # (C, nodes)
    batch[r, ops] += sign[:, None] * change
    if model.replica_cap != "machine":
        return batch, owner
    # only the machine caps a replica: also spread an operator onto every node of a group that does not hold it
    # yet (one replica each) — an even split wants identical machines, and one at a time each step makes the
    # operator's share on the new type too small to pay for its overhead
    size = onehot.sum(axis=0)  # (G,)
    over = ((mem[:, None, :] + model.memory[None, :, None] > model.node_memory + 1e-9)
            | (pop.sum(axis=1) >= model.slots[None])[:, None, :])  # (P, ops, nodes): one more would not fit
    room = ~over & model.allowed[None]
    free = (room & ~held).astype(np.int64) @ onehot  # (P, ops, G): nodes of the group that could take one
    sp, si, sg = np.nonzero((h == 0) & (free == size[None, None, :]) & (size[None, None, :] >= 2)
                            & (n[:, :, None] + size[None, None, :] <= k[None, :, None]))
    spread = pop[sp]
    spread[np.arange(len(sp)), si] += groups[None, :] == sg[:, None]
    return np.concatenate([batch, spread]), np.concatenate([owner, sp])


def best_responses(model: ThroughputModel, pop: np.ndarray, chain: np.ndarray, op: np.ndarray, k: np.ndarray,
                   ceiling: float, prefer_free: bool = False, only: np.ndarray | None = None) -> np.ndarray:
    """Operator ``op[c]`` of count matrix ``pop[chain[c]]`` re-planned from scratch with the others held: for
    every total n in 1..k_i, the highest scale at which n replicas fit beside the other operators, and the n
    with the highest scale (the fewest replicas among equals), its replicas spread over the nodes with the most
    room (water filling). A move of several replicas at once: the authors' rc-s3 data needs three more
    counters (two on one machine type, one on another) where every single step on the way sustains less.

    Exact, without a search over the scale: with n replicas, node u holds c of them up to the scale
    s_u(c) = (cap_u − b_u − c·met_iu) / (a_u + c·ρ_iu(n)) (its budget less the others' fixed points b_u,
    against the others' points per unit scale a_u and c replicas' ρ each), and one of them up to the
    one-thread scale (100 − met_iu)/ρ_iu(n). Node u holds m_u(s) = #{c : s_u(c) ≥ s} replicas at scale s,
    so the highest scale with Σ_u m_u(s) ≥ n is the n-th largest s_u(c) over all nodes and c ≤ n. Returns
    (C, ops, nodes); O(C·k²·nodes·log) in one vectorized batch."""
    n_c = len(chain)
    out = pop[chain].copy()
    if n_c == 0:
        return out
    rows = np.arange(n_c)
    out[rows, op] = 0
    per = model.per_replica(out.sum(axis=2))  # (C, ops): the others' rates per replica (row op has none now)
    a = (out * per[:, :, None] * model.rate_cost[None]).sum(axis=1)  # (C, nodes): others' points per unit scale
    b = (out * model.met[None]).sum(axis=1)  # (C, nodes): the others' fixed points
    thread = per[:, :, None] * model.rate_cost[None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cell = np.where((out > 0) & (thread > 0), (model.thread_points[None, :] - model.met)[None] / thread, np.inf)
        own = np.where(a > 0, (model.cap[None] - b) / a, np.where(b > model.cap[None] + 1e-9, -1.0, np.inf))
    hi = np.minimum(np.minimum(cell.reshape(n_c, -1).min(axis=1), own.min(axis=1)), ceiling)  # (C,)
    mem_left = model.node_memory[None] - (out * model.memory[None, :, None]).sum(axis=1)  # (C, nodes)
    mem_i = model.memory[op][:, None]
    by_memory = np.where(mem_i > 0, np.floor((mem_left + 1e-9) / np.where(mem_i > 0, mem_i, 1.0)), np.inf)
    by_memory = np.minimum(by_memory, model.slots[None] - out.sum(axis=1))  # and the node's replica cap k_j
    ki = k[op]
    n_max = int(ki.max())
    n = np.arange(1, n_max + 1, dtype=float)
    rho = (model.lam[op][:, None, None] / n[None, :, None] + model.lam_all[op][:, None, None]) * \
        model.rate_cost[op][:, None, :]  # (C, n, nodes): points per replica per unit scale
    met = model.met[op][:, None, :, None]  # (C, 1, nodes, 1)
    c = n[None, None, None, :]  # (1, 1, 1, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = a[:, None, :, None] + c * rho[..., None]
        budget = model.cap[None, None, :, None] - b[:, None, :, None] - c * met
        s_uc = np.where(denominator > 0, budget / denominator, np.where(budget >= -1e-9, np.inf, -1.0))
        tp = model.thread_points
        single = np.where(rho > 0, (tp - met[..., 0]) / rho, np.where(met[..., 0] <= tp, np.inf, -1.0))
    s_uc = np.minimum(s_uc, single[..., None])  # (C, n, nodes, c)
    usable = model.allowed[op][:, None, :, None] & (c <= by_memory[:, None, :, None]) & \
        (c <= n[None, :, None, None])
    if only is not None:  # (C, nodes): the nodes this candidate may use (one machine type: every replica as fast)
        usable = usable & only[:, None, :, None]
    s_uc = np.where(usable, s_uc, -1.0)

    def pick(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scale, n − 1, replicas each node holds at that scale) of the best total, per candidate."""
        flat = -np.sort(-s.reshape(n_c, n_max, -1), axis=2)  # (C, n, nodes·c), largest first
        best_at = np.minimum(flat[:, np.arange(n_max), np.arange(n_max)], hi[:, None])  # the n-th largest, per n
        best_at = np.where(n[None, :] <= ki[:, None], best_at, -1.0)
        best_n = best_at.argmax(axis=1)  # the first (fewest replicas) of the highest scales
        top = best_at[rows, best_n]
        return top, best_n, (s[rows, best_n] >= top[:, None, None] * (1 - TIE)).sum(axis=2)

    scale, best_n, room = pick(s_uc)
    if prefer_free:
        # on nodes no other operator uses, where that sustains as much: where the others bind the scale (``hi``)
        # the operator's own best is a tie, and the spread that keeps off their nodes relieves them (nasiri-large:
        # Linear's low bolt onto the idle Pentiums; 12.8 % below the optimum without it)
        free = ((a <= 0) & (b <= 0))[:, None, :, None]
        f_scale, f_n, f_room = pick(np.where(free, s_uc, -1.0))
        use = f_scale >= scale * (1 - TIE)
        scale, best_n = np.where(use, f_scale, scale), np.where(use, f_n, best_n)
        room = np.where(use[:, None], f_room, room)
    placed = np.zeros_like(room)
    want = np.where(scale > 0, best_n + 1, 0)
    for step in range(n_max):  # water filling: each replica to the node with the most room left (lowest index on ties)
        active = want > step
        if not active.any():
            break
        u = np.argmax(room - placed, axis=1)
        placed[rows[active], u[active]] += 1
    out[rows, op] = np.where((scale > 0)[:, None], placed, pop[chain, op])  # nothing fits: left where it was
    return out


def respond(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, stuck: np.ndarray, scale: np.ndarray,
            at: np.ndarray, node_s: np.ndarray, cell_s: np.ndarray, bound: float) -> np.ndarray:
    """For the chains at a local optimum, the best of their bottleneck operators' best responses
    (``best_responses``) where it improves the chain (leximin); updates the chains in place and returns the
    ones that moved."""
    hot = hot_cells(pop, node_s, cell_s)
    chain, op = np.nonzero(hot.any(axis=2) & stuck[:, None])
    if not len(chain):
        return chain
    ceiling = bound * (1 + 1e-6) if np.isfinite(bound) else S_CAP
    # the operator's best spread anywhere; the same on nodes no other operator uses; and on the machines of one
    # type at a time — with the even split every replica gets the same rate, so an operator spread over machines
    # of different speeds idles the fast ones: nasiri-large's optimum gives each operator a type of its own
    # (where only the machine caps a replica; under the one-thread cap they found nothing the plain one missed
    # on the benchmark's 36 instances and cost up to 80 ms)
    batch = best_responses(model, pop, chain, op, k, ceiling)
    if model.replica_cap == "machine":
        groups = node_groups(model)
        n_groups = int(groups.max()) + 1
        per_group = np.repeat(np.arange(len(chain)), n_groups)
        only = groups[None, :] == np.tile(np.arange(n_groups), len(chain))[:, None]
        batch = np.concatenate([batch, best_responses(model, pop, chain, op, k, ceiling, prefer_free=True),
                                best_responses(model, pop, chain[per_group], op[per_group], k, ceiling, only=only)])
        chain = np.concatenate([chain, chain, chain[per_group]])
    s2, a2, n2, c2 = leximin_key(model, batch)
    order = np.lexsort((a2, -s2, chain))
    first = order[np.r_[True, chain[order][1:] != chain[order][:-1]]]
    owner = chain[first]
    up = improves(s2[first], a2[first], scale[owner], at[owner]) & model.fits_batch(batch[first])
    move, owner = first[up], owner[up]
    pop[owner], scale[owner], at[owner], node_s[owner], cell_s[owner] = batch[move], s2[move], a2[move], n2[move], \
        c2[move]
    return owner


def improves(scale: np.ndarray, at: np.ndarray, best_scale: np.ndarray | float,
             best_at: np.ndarray | float) -> np.ndarray:
    """Leximin comparison: a higher scale, or the same scale with fewer nodes and replicas at it."""
    return (scale > best_scale * (1 + TIE)) | ((scale >= best_scale * (1 - TIE)) & (at < best_at))


def kick(model: ThroughputModel, counts: np.ndarray, k: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Perturb a local optimum: a block swap (every replica of one operator on one node trades places with every
    replica of another operator on another node; one time in four), else one to three random changes — a
    replica moved to another node, one added, or one removed — each kept within k_i, memory and the allowed
    nodes."""
    new = counts.copy()
    if rng.random() < 0.25:  # a block swap: the replicas of i and j trade the nodes they run on
        cells = np.argwhere(new > 0)
        (i, u), (j, v) = cells[rng.choice(len(cells), 2, replace=len(cells) < 2)]
        if i != j and u != v:
            # every node of u's speed for i that holds i trades with the node in the same place among those of v's
            # speed for j that hold j (on machines of a few types: one type's role for i swaps with another's for j)
            from_i = np.flatnonzero((new[i] > 0) & np.isclose(model.e[i], model.e[i, u]))
            from_j = np.flatnonzero((new[j] > 0) & np.isclose(model.e[j], model.e[j, v]))
            for a, b in zip(from_i, from_j, strict=False):
                if a != b and model.allowed[i, b] and model.allowed[j, a]:
                    ci, cj = new[i, a], new[j, b]
                    new[i, a], new[j, b] = 0, 0
                    new[i, b] += ci
                    new[j, a] += cj
            if model.fits(new) and not np.array_equal(new, counts):
                return new
            new = counts.copy()
    for _ in range(int(rng.integers(1, 4))):
        cells = np.argwhere(new > 0)
        i, u = cells[int(rng.integers(len(cells)))]
        mem = (new * model.memory[:, None]).sum(axis=0)
        room = model.allowed[i] & (mem + model.memory[i] <= model.node_memory + 1e-9) & \
            (model.met[i] < model.thread_points) & (new.sum(axis=0) < model.slots)
        room[u] = False
        what = int(rng.integers(3))
        if what == 2 and new[i].sum() > 1:
            new[i, u] -= 1
        elif room.any():
            v = int(rng.choice(np.flatnonzero(room)))
            if what == 1 and new[i].sum() < k[i]:
                new[i, v] += 1
            else:
                new[i, u] -= 1
                new[i, v] += 1
    return new


def population_search(model: ThroughputModel, starts: list[np.ndarray], k: np.ndarray, chains: int, rounds: int,
                      patience: int, rng: np.random.Generator, bound: float,
                      deadline: Deadline) -> tuple[np.ndarray, float, int]:
    """Iterated local search on ``chains`` count matrices at once (the starts, then perturbed copies of them):
    every round each chain takes its best improving neighbour, and a chain at a local optimum is kicked (a random
    perturbation) to search on. One batched evaluation per round serves every chain, so numpy's per-call cost is
    shared. Returns the best plan seen, its scale and the steps taken; stops early at the upper ``bound``, or
    after ``patience`` rounds without a better plan."""
    pop = np.stack([starts[c % len(starts)] for c in range(max(chains, len(starts)))]).astype(np.int64)
    for c in range(len(starts), len(pop)):
        pop[c] = kick(model, pop[c], k, rng)
    scale, at, node_s, cell_s = leximin_key(model, pop)
    groups = node_groups(model)
    j = int(np.lexsort((at, -scale))[0])
    best, best_scale, best_at = pop[j].copy(), float(scale[j]), int(at[j])
    steps = 0
    since = 0  # rounds since the best plan last improved
    for _ in range(rounds):
        if best_scale >= bound * (1 - TIE) or deadline.expired() or since >= patience:
            break
        since += 1
        batch, owner = neighbours(model, pop, k, node_s, cell_s, groups)
        stuck = np.ones(len(pop), dtype=bool)
        if len(batch):
            s2, a2, n2, c2 = leximin_key(model, batch)
            order = np.lexsort((a2, -s2, owner))  # by chain, best candidate first
            first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
            chain = owner[first]
            up = improves(s2[first], a2[first], scale[chain], at[chain])
            move, chain = first[up], chain[up]
            pop[chain], scale[chain], at[chain] = batch[move], s2[move], a2[move]
            node_s[chain], cell_s[chain] = n2[move], c2[move]
            stuck[chain] = False
            steps += len(chain)
        if stuck.any():  # a local optimum: re-plan each bottleneck operator from scratch before kicking
            moved = respond(model, pop, k, stuck, scale, at, node_s, cell_s, bound)
            stuck[moved] = False
            steps += len(moved)
        j = int(np.lexsort((at, -scale))[0])
        if improves(scale[j], at[j], best_scale, best_at):
            best, best_scale, best_at = pop[j].copy(), float(scale[j]), int(at[j])
            since = 0
        for c in np.flatnonzero(stuck):  # still a local optimum: perturb it and search on
            pop[c] = kick(model, pop[c], k, rng)
        if stuck.any():
            kicked = np.flatnonzero(stuck)
            scale[kicked], at[kicked], node_s[kicked], cell_s[kicked] = leximin_key(model, pop[kicked])
    if model.replica_cap == "machine":
        best, polish_steps = polish(model, best, k, groups, bound, rounds)
        steps += polish_steps
    return best, float(model.max_scale(best)), steps


def polish(model: ThroughputModel, counts: np.ndarray, k: np.ndarray, groups: np.ndarray, bound: float,
           rounds: int) -> tuple[np.ndarray, int]:
    """Climb from the best plan the population saw until neither a neighbour nor a bottleneck operator's best
    response improves it (leximin), at most ``rounds`` steps: the chain that found the best plan may have been
    kicked away from it before its last climb."""
    pop = counts[None].copy()
    scale, at, node_s, cell_s = leximin_key(model, pop)
    steps = 0
    for _ in range(rounds):
        if scale[0] >= bound * (1 - TIE):
            break
        batch, _ = neighbours(model, pop, k, node_s, cell_s, groups)
        moved = False
        if len(batch):
            s2, a2, n2, c2 = leximin_key(model, batch)
            j = int(np.lexsort((a2, -s2))[0])
            if improves(s2[j], a2[j], scale[0], at[0]):
                pop[0], scale[0], at[0], node_s[0], cell_s[0] = batch[j], s2[j], a2[j], n2[j], c2[j]
                moved = True
        if not moved:
            moved = len(respond(model, pop, k, np.ones(1, dtype=bool), scale, at, node_s, cell_s, bound)) > 0
        if not moved:
            break
        steps += 1
    return pop[0], steps


@dataclass(frozen=True)
class ExactCheck:
    """What the exact check after the search found: the best counts and scale, the scale no plan reaches
    (None where no solve proved one), the solves, branch-and-bound nodes and solver seconds it took, and why it
    stopped."""

    counts: np.ndarray
    scale: float
    proven_below: float | None
    solves: int
    nodes: int
    seconds: float
    stopped: str


def exact_check(model: ThroughputModel, k: np.ndarray, counts: np.ndarray, scale: float, target: float,
                max_solves: int, max_nodes: int, radius: int, deadline: Deadline) -> ExactCheck:
    """Is there a plan ``1 + target`` times better than the search's whose replica totals are each within
    ``radius`` of its own? Asked of ``optimal``'s exact feasibility MILP (pure integer at a fixed scale, HiGHS)
    restricted to those totals, each solve bounded by ``max_nodes`` branch-and-bound nodes, at most
    ``max_solves`` solves. Feasible: its plan is taken (the search's climbs miss optima that repack fixed
    overheads, e.g. the authors' rc-s2 data: 9 splitters and 5 counters where the search holds 12 and 3) and
    the question is asked again around the new plan. Infeasible: no such plan exists — and where the radius
    covers every total 1..k_i, no plan at all sustains (1 + target)·scale: the plan is proven within
    ``target`` of the optimum. Node budget spent: the best plan so far stands.

    Why a neighbourhood: HiGHS's root alone takes 50–650 ms on the full model of the authors' data at
    k = 16 and on hetero-3 (cuts, heuristics), 1–35 ms on the ±3 one, which found every better plan the full
    one found on the benchmark's instances. The budget is work, not time, so the answer is the same on a
    fast, a slow or a loaded machine; the scheduler's ``time_limit_s`` (``deadline``) bounds each solve only
    as a safety stop, and ``stopped`` says when it acted. Only a plan at a higher scale replaces the
    search's."""
    best, best_scale, proven, solves, nodes, seconds = counts, scale, None, 0, 0, 0.0
    stopped = f"{max_solves} solves spent"
    while solves < max_solves:
        if deadline.expired():
            stopped = "time limit reached (safety stop: the plan may depend on the machine's speed)"
            break
        left = None if deadline.seconds is None else max(0.01, deadline.seconds - deadline.elapsed_ms() / 1e3)
        level = best_scale * (1.0 + target)
        n = best.sum(axis=1)
        totals = np.column_stack([n - radius, n + radius])
        whole = bool(((n - radius <= 1) & (n + radius >= k)).all())
        options = EXACT_OPTIONS | {"mip_max_nodes": int(max_nodes)}
        slots = model.node_slots
        per_node = None if slots is None else int(slots.min())
        result = feasibility_milp(model, k, level, per_node, totals).solve(left, options=options)
        solves += 1
        nodes += result.nodes
        seconds += result.seconds
        if result.status == "infeasible":
            if whole:
                proven, stopped = level, "proved"
            else:
                stopped = f"no plan {target:.0%} better with every replica total within ±{radius}"
            break
        if result.x is None:
            stopped = ("time limit reached (safety stop: the plan may depend on the machine's speed)"
                       if result.solver_status == "Time limit reached" else
                       f"node budget of {max_nodes} spent without an answer" if result.status == "timeout" else
                       f"solver: {result.solver_status}")
            break
        found = counts_from_feasibility(result.x, model, k, totals)
        found_scale = float(model.max_scale(found))
        if found_scale <= best_scale * (1.0 + TIE) or not model.fits(found):
            stopped = "no better plan in the solver's answer (numerical slack)"
            break
        best, best_scale = found, found_scale
    return ExactCheck(best, best_scale, proven, solves, nodes, seconds, stopped)


# ------------------------------------------------------------------ under the spark engine
@dataclass(frozen=True)
class SparkWork:
    """The spark engine's per-tuple batch work W of a count matrix, as ``optimal`` models it under that engine
    (schedulers/spark_optimal.py): operator i's stage time is the slowest of its per-node stages, ⌈c_iu/k_u⌉ waves
    of d_iu(n_i) seconds each, and W is the longest source-to-sink path of stage times. The most throughput is
    the least W; the plan's prediction is the engine's own afterwards."""

    lam_split: np.ndarray  # (ops,)
    lam_all: np.ndarray  # (ops,)
    cost: np.ndarray  # (ops, nodes): (e_iu + h_i) / (1000 · v_u · share_u), seconds per tuple
    slots: np.ndarray  # (nodes,)
    order: tuple[int, ...]  # operators in topological order (forward graph)
    preds: tuple[tuple[int, ...], ...]  # per operator, its predecessors on the forward graph
    outputs: np.ndarray  # (ops,) bool

    @classmethod
    def build(cls, topology: Topology, cluster: Cluster, profile: Profile | None, engine) -> SparkWork:
        rates, work_ms, divisor, slots = stage_costs(topology, cluster, profile, engine)
        cost = work_ms / divisor[None, :]
        idx = topology.index
        outputs = np.array([not topology.successors(op.id) for op in topology.operators])
        forward = topology.forward_graph
        order = tuple(idx[o] for o in topology.acyclic_order)
        preds = tuple(tuple(idx[p] for p in forward.predecessors(op.id)) for op in topology.operators)
        return cls(rates.input_split.astype(float), rates.input_all.astype(float), cost, slots, order, preds, outputs)

    def work(self, batch: np.ndarray) -> np.ndarray:
        """W per count matrix of ``batch`` (batch, ops, nodes); inf where an operator has no replica."""
        n = batch.sum(axis=2)
        per = np.divide(self.lam_split, n, out=np.full(n.shape, np.inf), where=n > 0) + self.lam_all
        waves = -(-batch // self.slots[None, None, :])  # ⌈c/k⌉
        stage = (waves * per[:, :, None] * self.cost[None]).max(axis=2)  # (batch, ops)
        potential = np.zeros_like(stage)
        for i in self.order:
            before = potential[:, list(self.preds[i])].max(axis=1) if self.preds[i] else 0.0
            potential[:, i] = before + stage[:, i]
        return np.where(self.outputs[None, :], potential, 0.0).max(axis=1)


def spark_search(work: SparkWork, model: ThroughputModel, starts: list[np.ndarray], k: np.ndarray, chains: int,
                 rounds: int, patience: int, rng: np.random.Generator,
                 deadline: Deadline) -> tuple[np.ndarray, float, int]:
    """Population iterated local search minimizing W: every round each chain takes its best improving neighbour —
    one replica added, moved or dropped anywhere — and a chain at a local optimum is kicked. Returns the best
    counts, their W and the steps taken. Cost per round: O(chains · ops · nodes²) candidates."""
    pop = np.stack([starts[c % len(starts)] for c in range(max(chains, len(starts)))]).astype(np.int64)
    for c in range(len(starts), len(pop)):
        pop[c] = kick(model, pop[c], k, rng)

    def key(batch: np.ndarray) -> np.ndarray:
        return np.where(model.fits_batch(batch), work.work(batch), np.inf)

    w_now = key(pop)
    j = int(np.argmin(w_now))
    best, best_w = pop[j].copy(), float(w_now[j])
    steps, since = 0, 0
    for _ in range(rounds):
        if deadline.expired() or since >= patience:
            break
        since += 1
        stuck = np.ones(len(pop), dtype=bool)
        # every replica counts as on a bottleneck: the ideal model's neighbourhood over all of them
        batch, own = neighbours(model, pop, k, np.zeros((len(pop), pop.shape[2])), np.zeros(pop.shape))
        if len(batch):
            w = key(batch)
            order = np.lexsort((w, own))
            first = order[np.r_[True, own[order][1:] != own[order][:-1]]]
            chain = own[first]
            up = w[first] < w_now[chain] * (1 - TIE)
            pop[chain[up]], w_now[chain[up]] = batch[first[up]], w[first[up]]
            stuck[chain[up]] = False
            steps += int(up.sum())
        j = int(np.argmin(w_now))
        if w_now[j] < best_w * (1 - TIE):
            best, best_w, since = pop[j].copy(), float(w_now[j]), 0
        for c in np.flatnonzero(stuck):
            pop[c] = kick(model, pop[c], k, rng)
        if stuck.any():
            w_now[stuck] = key(pop[stuck])
    return best, best_w, steps
