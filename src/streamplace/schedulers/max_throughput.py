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
   HiGHS's simplex: per node (ops × nodes variables) up to ``lp_node_columns``
   of them, above that over classes of identical nodes (ops × classes
   variables, the same optimum, its solution dealt to the nodes:
   throughput_lp.py). Where only the machine caps a
   replica there is no thread count: the starts use the LP without one, and
   the plan is judged by the LP whose replicas use at most their machine
   (cap_u in place of 100 — valid, and it carries the fixed overheads).
2. **Starts.** The LP's split rounded to integer counts (as many replicas as
   the threads need, shared out by largest remainder), and the plans of the
   paper's algorithm (``hetero``) as its text and as its authors' simulator
   run it. Where only the machine caps a replica, also the best
   ``uniform_plans`` plans that give each operator every machine of one
   group of identical machines (uniform_starts.py:
   one or two replicas per machine; a beam search).
3. **Population local search.** ``chains`` count matrices (the starts and
   perturbed copies of them) climb together: every round each takes its best
   improving neighbour — a replica of an operator on a bottleneck node (or at
   its one-thread limit) added elsewhere, moved off, dropped, or swapped with
   another operator's replica off the bottleneck, and an operator grown or shrunk by one replica
   on every machine of a type that holds it (identical machines sharing a
   bottleneck need that: one replica off one of them leaves the others at it),
   and, where only the machine caps a replica, a node off the bottleneck
   emptied for 1–3 replicas of an operator at the bottleneck (the optimum of
   nasiri-large × Diamond is two such moves from a uniform start)
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

Above ``lp_node_columns`` operator × node columns, all of this runs on the nodes a plan can use: the first
Σk + 1 nodes of each class of alike nodes (node_kinds.py: every plan of at most Σk replicas is one on them, up
to swapping alike nodes, at the same scale), and the plan found is written back to the cluster's nodes — at
100,000 nodes of one kind and 200 operators at k = 10, count matrices of 200 × 2,001 cells, not 200 × 100,000.
Below it the whole cluster, as before.

Complexity: the LP is one HiGHS solve of ops × nodes columns (small clusters) or ops × classes (above
``lp_node_columns``; a 10,000-node cluster of one machine kind: 45 × 1), classes found in O(ops·nodes);
above ``lp_node_columns`` every count matrix below has ops × m' cells, m' = Σ_C min(n_C, Σk + 1) ≤ classes ·
(Σk + 1), in place of ops × nodes (choosing those nodes O(ops·nodes), writing the plan back O(ops·nodes));
hetero's starts O(ops·nodes) to set up and O(nodes + ops + cells) per iteration (hetero.py); a best response
scores the nodes the others use and k + 1 empty nodes per class, not every node; a round lists, per chain, O(o·s)
additions, O(h·s) moves and O(h·q) swaps (h replicas on a bottleneck, q off it, o operators, s states: one
node stands for each class of alike nodes holding the same replicas, so s ≤ classes + used nodes, not m nodes —
max_throughput_moves.py) and O(o·g) type moves (g machine types), each an o·m matrix, made and scored
CHUNK_CELLS cells at a time (the round's memory bounded whatever the candidates); a best response costs
O(o·m + k²·m'·log(k·m')) per bottleneck operator (k its replica cap, m' the nodes it scores: those used and
k + 1 per class). The exact neighbourhood's MILP has
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
from streamplace.perf.engines import EngineSettings, engine_or_ideal, replica_cap_of
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
from streamplace.schedulers.node_kinds import expand, kind_model
from streamplace.schedulers.throughput_lp import lp_bound, lp_bound_per_node, model_classes
from streamplace.schedulers.throughput_search import (
    TIE,
    SparkWork,
    best_responses,
    leximin_key,
    node_groups,
    population_search,
    spark_search,
)
from streamplace.schedulers.uniform_starts import uniform_starts

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
    uniform_plans: int = 4  # starts giving each operator every machine of one group (the best this many; 0: none)
    tasks_per_node: int | None = None  # Nasiri et al.'s k_j: at most this many replicas on one node (None: no cap)
    #: the LP bound per node up to this many operator × node columns, by class of identical nodes above
    #: (throughput_lp.py: the same optimum; a different optimal solution, so other rounded starts)
    lp_node_columns: int = 2000

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def caps(self, topology: Topology) -> np.ndarray:
        return np.array([op.max_replicas or max(self.max_replicas, 1) for op in topology.operators], dtype=np.int64)

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        """Under ``--engine spark``, optimize that engine's model (the least per-tuple batch work); under ``storm``,
        the throughput model with its serialization CPU."""
        eng = engine_or_ideal(engine)
        if eng.model.per_tuple_batch_work:
            return _spark_place(self, topology, cluster, profile, eng, deadline)
        if eng.model.remote_tuple_cpu:
            return _storm_place(self, topology, cluster, profile, eng, deadline)
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
        k = self.caps(topology)
        n_nodes = len(cluster)
        by_class = len(topology.operators) * n_nodes > self.lp_node_columns
        # above lp_node_columns: the model on the nodes a plan can use, the first Σk + 1 of each class of alike
        # nodes (node_kinds.py); below, the whole cluster's as before
        model, keep = kind_model(topology, cluster, profile, k, engine, cap, self.tasks_per_node) if by_class else \
            (ThroughputModel.build(topology, cluster, profile, engine=engine, replica_cap=cap,
                                   tasks_per_node=self.tasks_per_node), None)
        lp = lp_bound if by_class else lp_bound_per_node
        bound, flows = lp(model, k)
        # the bound the plan is judged by: where only the machine caps a replica, the LP whose replicas may use at
        # most their machine (it carries fixed overheads; the flows of the one without seed the starts, as before)
        proof = lp(model, k, np.minimum(model.thread_points, model.cap))[0] \
            if model.replica_cap == "machine" else bound
        starts = self._starts(model, k, flows, bound, min(bound, proof), selectivities(topology, profile), by_class)
        if not starts:
            return Placement(None, "infeasible", [
                "no start fits: even one replica per operator breaks a node's memory or CPU (fixed overheads)"])
        if by_class and at_bound(model, starts, min(bound, proof)):
            best, best_scale, steps = best_start(model, starts)  # proven optimal: the search would stop at once
        else:
            best, best_scale, steps = population_search(model, starts, k, self.chains, self.rounds, self.patience,
                                                        np.random.default_rng(self.seed), min(bound, proof), deadline)
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
        placement = Placement(best if keep is None else expand(best, keep, n_nodes))
        placement.source_rates = sustained_rates(topology, best_scale)
        gaps = [1.0 - best_scale / bound] if np.isfinite(bound) and bound > 0 else []
        if check.proven_below is not None and check.proven_below > 0:
            gaps.append(1.0 - best_scale / check.proven_below)
        placement.gap = max(0.0, min(gaps)) if gaps else None
        gap_text = f"{placement.gap:.2%}" if placement.gap is not None else "unknown"
        proof_text = (f"; no plan sustains {check.proven_below:.6g} (feasibility MILP infeasible)"
                      if check.proven_below is not None else "")
        placement.warnings.append(
            f"max-throughput: scale {best_scale:.6g} × the offered rates, LP upper bound {bound:.6g}{proof_text} "
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

    def _starts(self, model: ThroughputModel, k: np.ndarray, flows: np.ndarray, bound: float, target: float,
                alpha: np.ndarray, lazy: bool) -> list[np.ndarray]:
        """The search's starts, in this order: the LP's flows rounded; where only the machine caps a replica, the
        typed start, one and two replicas per node the LP uses and the uniform starts; the paper's algorithm as
        its text and as its authors' simulator run it. ``lazy`` (by class of node, above ``lp_node_columns``):
        the typed and hetero starts — the costly ones, O(ops) best responses and O(replicas) iterations — only
        where none of the others reaches ``target``, the LP bound (a start there is proven optimal, and the
        search would stop at once; at 100,000 nodes they are 3.2 of the starts' 3.3 CPU s)."""
        machine = model.replica_cap == "machine"
        rounded = round_flows(model, flows, bound, k)
        # no thread count to round: one and two replicas per node the LP uses
        spread = [round_flows(model, flows, bound, k, per_node) for per_node in (1.0, 2.0)] if machine else []
        # each operator on every machine of one group of identical machines (uniform_starts.py)
        uniform = uniform_starts(model, k, self.uniform_plans) if machine else []
        cheap = [c for c in [rounded, *spread, *uniform] if c is not None]
        costly = not lazy or not at_bound(model, cheap, target)
        typed = typed_start(model, k, bound) if machine and costly else None
        starts = [c for c in [rounded, typed, *spread] if c is not None] + uniform
        first = first_assignment(model, alpha, 0.01) if costly else "not needed"
        if not isinstance(first, str):  # the paper's algorithm, as its text and as its authors' simulator run it
            for rules in (Rules(), Rules("ratio", 199, "lowest-id")):
                starts.append(maximize_throughput(model, first[0], first[1], k, 2048, 200_000, Deadline(None),
                                                  rules)[0])
        return starts



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


def at_bound(model: ThroughputModel, starts: list[np.ndarray], target: float) -> bool:
    """Whether a start sustains the LP bound ``target`` (within the search's tie): then it is proven optimal."""
    return bool(starts) and np.isfinite(target) and \
        float(model.max_scale_batch(np.stack(starts)).max()) >= target * (1 - TIE)


def best_start(model: ThroughputModel, starts: list[np.ndarray]) -> tuple[np.ndarray, float, int]:
    """The best start as the search ranks plans (leximin: the scale, then the fewest nodes and replicas at it),
    its scale and 0 steps: what ``population_search`` returns where a start is at the bound, without its copies."""
    scale, at, _, _ = leximin_key(model, np.stack(starts))
    best = starts[int(np.lexsort((at, -scale))[0])]
    return best, float(model.max_scale(best)), 0


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
    classes = model_classes(model)
    only = groups[None, :] == np.arange(n_groups)[:, None]  # (G, nodes)
    for i in np.argsort(-np.where(np.isfinite(work), work, 0.0), kind="stable"):
        pop = np.repeat(counts[None], n_groups, axis=0)
        tried = best_responses(model, pop, np.arange(n_groups), np.full(n_groups, int(i)), k, ceiling, only=only,
                               classes=classes)
        placed = tried[:, i].sum(axis=1) > 0
        if not placed.any():
            tried = best_responses(model, counts[None], np.array([0]), np.array([int(i)]), k, ceiling,
                                   classes=classes)
            placed = tried[:, i].sum(axis=1) > 0
            if not placed.any():
                return None
        scale = np.where(placed, model.max_scale_batch(tried), -1.0)
        counts = tried[int(np.argmax(scale))]
    return counts if model.fits(counts) else None

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
