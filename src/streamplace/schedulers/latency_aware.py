"""Ecker et al.'s (2025) latency-aware placement heuristics: hill climbing, ant system, and their hybrid.

All three place every replica ("operator instance") on a node to minimize
Eq. 1 (perf/unit_score.py) under CPU (utilization limit 95 %) and memory
constraints, and keep the requested replica counts.

* ``hill-climbing``: from the running plan (``current``) or a greedy start
  that satisfies memory, repeatedly apply one of three modifications — move
  one replica, swap two replicas that are not co-located, move everything
  on a node to another node — and accept it only if it reduces the number of
  violations, or keeps it while strictly improving the score (first
  improvement, neighbours in random order). Stops at a local optimum or when its work budget
  (``max_evaluations`` candidate placements scored) is spent.
* ``ant-system``: m ants build placements replica by replica, in a random
  order per ant, choosing node j with probability ∝ τ_ij^α · η_ij^β (Eq. 2); η (Eq. 3)
  doubles when a predecessor or successor of the replica's operator is on j
  and when j is already used, and halves when the replica would overload j's
  CPU or memory. Pheromone decays τ ← max(ρ·τ + Σ_k ΔT^k, p_m) (Eq. 4), each ant
  depositing Q/S_k on its edges with S_k = score + 10,000 · violations (Eq. 5).
  A running plan is reinforced p_c times at the start. The paper publishes no
  values for α, β, ρ, Q, the initial and minimum pheromone, the ant count or the
  iteration limits: ours are the defaults below.
* ``hybrid``: the ant system, then hill climbing from its best placement (each
  with half the time budget, as the paper splits its runtime limit).

Budgets are work: the ant system's ``iterations`` and hill climbing's
``max_evaluations``, so a plan depends on its inputs and seed only. The paper's
runtime limit (``budget_s``, 1 s per placement) stays as a safety stop; where it
acts before the work budget is spent, the plan says so — that plan depends on
the machine's speed and load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.cluster import Cluster, Links
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.netcoord.estimate import estimate, median_relative_error
from streamplace.netcoord.synthetic import measure
from streamplace.perf.unit_score import UnitScorer
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register

BATCH = 48  # neighbours scored at once: first improvement usually comes early


@dataclass(frozen=True)
class LatencyAware(BaseScheduler):
    """Shared parameters and plumbing of the three heuristics."""

    budget_s: float = 1.0  # the paper's runtime limit per placement: a safety stop the plan reports when it acts
    #: hill climbing's work budget: candidate placements scored (a neighbour costs O(units + streams))
    max_evaluations: int = 50_000  # ~15× what the paper's largest instance (T-R7) needs to reach a local optimum
    seed: int = 0
    utilization_limit: float = 0.95
    weights: dict[str, float] = field(default_factory=lambda: {"lat": 1e-6, "sup": 1.0, "co": 1.0, "event": 1.0})
    #: "first" (ours): a node over its memory outweighs every CPU violation together, so the search never trades
    #: a memory overrun for a CPU one; "counted": the paper's plain count of violated constraints. Either way a
    #: final placement over some node's memory is reported infeasible (memory is a hard constraint)
    memory: Literal["first", "counted"] = "first"
    #: "true": s_lat from the cluster's latencies; "estimated": the paper's §4.1 in the loop — network
    #: coordinates (spring relaxation or Vivaldi, netcoord/) estimate every pair from a partial measurement and
    #: s_lat uses the estimates. The measurement is the cluster's ``links.measured_latency_ms`` when it has one;
    #: otherwise it is simulated from the true latencies (``measured_share`` of the pairs, log-normal jitter
    #: ``jitter``). The plan is still predicted with the cluster's latencies, and its note gives both scores and
    #: the estimate's error
    latencies: Literal["true", "estimated"] = "true"
    estimator: Literal["spring", "vivaldi"] = "spring"
    measured_share: float = 0.7
    jitter: float = 0.1

    def scorer(self, topology: Topology, cluster: Cluster, profile: Profile | None) -> UnitScorer:
        w = self.weights
        return UnitScorer.build(topology, cluster, profile, self.utilization_limit,
                                (w.get("lat", 1e-6), w.get("sup", 1.0), w.get("co", 1.0), w.get("event", 1.0)),
                                memory_weight=len(cluster) + 1.0 if self.memory == "first" else 1.0)

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        seen, note = (cluster, "") if self.latencies == "true" else estimated_cluster(
            cluster, self.estimator, self.measured_share, self.jitter, self.seed)
        scorer = self.scorer(topology, seen, profile)
        rng = np.random.default_rng(self.seed)
        start = from_plan(scorer, topology, cluster, current) if current is not None else None
        budget = Deadline(self.budget_s)
        work = Work(self.max_evaluations)
        placement = self.search(scorer, rng, start, budget, work)
        score, violations = scorer.score_batch(placement[None])
        counts = scorer.counts(placement[None])[0]
        result = Placement(counts)
        result.warnings.append(f"{self.name}: score {score[0]:.6f}, {int(violations[0])} constraint violations"
                               f" (CPU over {self.utilization_limit:.0%} or memory) after "
                               f"{work.evaluations:,} candidates scored, {budget.elapsed_ms():.1f} ms")
        if work.clock_stopped:
            result.warnings.append(
                f"{self.name}: the time budget (budget_s {self.budget_s} s, a safety stop) ended the search "
                "before its work budget: this plan depends on the machine's speed and load; raise budget_s")
        if note:
            true_score, _ = self.scorer(topology, cluster, profile).score_batch(placement[None])
            result.warnings.append(f"{note}; the plan scores {score[0]:.6f} under the estimates and "
                                   f"{true_score[0]:.6f} under the true latencies")
        return result

    def search(self, scorer: UnitScorer, rng: np.random.Generator, start: np.ndarray | None,
               budget: Deadline, work: Work) -> np.ndarray:
        raise NotImplementedError

    def plan_many(self, topologies: list[Topology], cluster: Cluster, profile: Profile | None = None) -> list[Plan]:
        """Place several topologies in turn with Ecker et al.'s (2025) rule that a supervisor hosts one topology only:
        each topology may use only the nodes the earlier ones left untouched."""
        taken: set[str] = set()
        plans = []
        for topo in topologies:
            free = tuple(n for n in cluster.ids if n not in taken)
            ops = tuple(replace(op, pinned=tuple(n for n in (op.pinned or free) if n in free) or None)
                        for op in topo.operators)
            if not free or any(op.pinned is None for op in ops):
                plans.append(self._infeasible(topo, cluster, [
                    f"no supervisor left for {topo.name!r}: the earlier topologies use "
                    f"{', '.join(sorted(taken)) or 'none'} and a supervisor hosts one topology only"],
                    Deadline(None)))
                continue
            plan = self.plan(Topology(topo.name, ops, topo.streams), cluster, profile)
            taken.update(plan.nodes_used())
            plans.append(plan)
        return plans


def estimated_cluster(cluster: Cluster, estimator: Literal["spring", "vivaldi"], measured_share: float, jitter: float,
                      seed: int) -> tuple[Cluster, str]:
    """The cluster with every pair's latency replaced by a network-coordinate estimate from a noisy, partial
    measurement of the true latencies (Ecker et al. 2025 §4.1), and a note on the estimate's error."""
    if not 0 < measured_share <= 1:
        raise SchedulerParamError(f"measured_share must lie in (0, 1], got {measured_share}")
    true = np.asarray(cluster.latency, dtype=float)
    n = len(true)
    if cluster.links.measured_latency_ms:
        measured = cluster.measured_latency()
        unmeasured = [cluster.ids[u] for u in range(n) if n > 1 and not np.isfinite(np.delete(measured[u], u)).any()]
        if unmeasured:
            raise SchedulerParamError(
                f"links.measured_latency_ms has no pair with {', '.join(unmeasured)}: coordinates cannot place "
                "those nodes (fix: measure at least one pair with each node, or use latencies=true)")
        pairs = int(np.isfinite(measured[np.triu_indices(n, k=1)]).sum())
        source = f"the cluster's {pairs} of {n * (n - 1) // 2} measured pairs (links.measured_latency_ms)"
    else:
        measured = measure(true, jitter=jitter, missing=1.0 - measured_share, seed=seed)
        source = f"{measured_share:.0%} of the pairs measured with {jitter:.0%} jitter (simulated)"
    est = estimate(measured, estimator, seed=seed).latency()
    ids = cluster.ids
    table = {a: {b: float(est[i, j]) for j, b in enumerate(ids) if j != i} for i, a in enumerate(ids)}
    links = dataclasses.replace(cluster.links, latency_ms=table)
    seen = dataclasses.replace(cluster, links=links) if isinstance(links, Links) else cluster
    error = median_relative_error(est, true) if len(ids) > 1 else 0.0
    return seen, (f"latencies estimated by {estimator} coordinates from {source}: median relative error "
                  f"{error:.1%} against the cluster's latencies")


def from_plan(scorer: UnitScorer, topology: Topology, cluster: Cluster, plan: Plan) -> np.ndarray | None:
    """A running plan as a unit placement (None when its replica counts differ from the topology's)."""
    out = np.empty(scorer.n_units, dtype=np.intp)
    pos = 0
    for op in topology.operators:
        nodes = [cluster.index[n] for n, c in plan.replicas.get(op.id, {}).items() for _ in range(c)]
        if len(nodes) != op.replicas:
            return None
        out[pos:pos + len(nodes)] = nodes
        pos += len(nodes)
    return out


def greedy_start(scorer: UnitScorer) -> np.ndarray:
    """Memory-first greedy (the paper's start "that mainly aims to satisfy memory"): replicas in decreasing
    memory, pinned ones first, each on the allowed node with the most free memory it fits in (worst fit); when
    that leaves a node over its memory, first fit decreasing, which packs tighter. O(U · nodes)."""
    order = np.lexsort((-scorer.memory[scorer.unit_op], scorer.allowed[scorer.unit_op].sum(axis=1)))
    best, best_over = None, np.inf
    for rule in ("worst", "first"):
        free = scorer.mem_cap.copy()
        out = np.empty(scorer.n_units, dtype=np.intp)
        for a in order:
            i = scorer.unit_op[a]
            fits = scorer.allowed[i] & (free >= scorer.memory[i] - 1e-9)
            if not fits.any():
                pool = np.where(scorer.allowed[i], free, -np.inf)  # nowhere fits: the least overloaded
                out[a] = int(np.argmax(pool))
            else:
                out[a] = int(np.argmax(np.where(fits, free, -np.inf))) if rule == "worst" else int(np.argmax(fits))
            free[out[a]] -= scorer.memory[i]
        over = int((free < -1e-9).sum())
        if over < best_over:
            best, best_over = out, over
        if over == 0:
            break
    assert best is not None
    return best


class Work:
    """Candidate placements scored so far against a limit, and whether the wall clock (the safety stop) rather
    than the work ended a search."""

    def __init__(self, max_evaluations: int) -> None:
        self.max_evaluations = max_evaluations
        self.evaluations = 0
        self.clock_stopped = False

    def spent(self) -> bool:
        return self.evaluations >= self.max_evaluations

    def clock(self, budget: Deadline) -> bool:
        """True (and noted) when the safety stop has expired."""
        if budget.expired():
            self.clock_stopped = True
            return True
        return False


def hill_climb(scorer: UnitScorer, start: np.ndarray, rng: np.random.Generator, budget: Deadline,
               work: Work) -> np.ndarray:
    """First-improvement hill climbing over move / swap / move-all (Ecker et al. 2025 §4.3.1), until a local
    optimum or ``work``'s limit of scored candidates; ``budget`` (wall clock) only as a safety stop."""
    x = start.copy()
    s, v = (float(a[0]) for a in scorer.score_batch(x[None]))
    while not work.spent() and not work.clock(budget):
        improved = False
        for batch in neighbourhood(scorer, x, rng):
            work.evaluations += len(batch)
            cheap, viols, present = scorer.score_parts(batch)
            # the latency term is ≥ 0: only candidates whose other terms already beat s can improve, so the
            # (costlier) worst-path latency is computed for those alone
            maybe = np.flatnonzero((viols < v) | ((viols == v) & (cheap < s - 1e-12)))
            scores = np.full(len(batch), np.inf)
            if maybe.size:
                scores[maybe] = cheap[maybe] + scorer.weights[0] * scorer.latency_term(present[maybe])
            # better = fewer violations, or as many with a strictly lower score (never a worse placement)
            ok = np.flatnonzero((viols < v) | ((viols == v) & (scores < s - 1e-12)))
            if ok.size:
                j = int(ok[np.lexsort((scores[ok], viols[ok]))[0]])
                x, s, v = batch[j].copy(), float(scores[j]), float(viols[j])
                improved = True
                break
            if work.spent() or work.clock(budget):
                break
        if not improved:
            break
    return x


def neighbourhood(scorer: UnitScorer, x: np.ndarray, rng: np.random.Generator):
    """Batches of neighbours of x in random order: move one, swap two non-co-located, move a node's all."""
    units, nodes = scorer.n_units, scorer.n_nodes
    ops = scorer.unit_op
    # moves (a → j), vectorized
    move_a, move_j = np.nonzero(scorer.allowed[ops] & (np.arange(nodes)[None, :] != x[:, None]))
    # swaps of replicas of different operators on different nodes that may run on each other's node
    sa, sb = np.triu_indices(units, 1)
    keep = (x[sa] != x[sb]) & (ops[sa] != ops[sb]) & scorer.allowed[ops[sa], x[sb]] & scorer.allowed[ops[sb], x[sa]]
    sa, sb = sa[keep], sb[keep]
    # move every replica on node p to node q
    pairs = []
    for p in np.unique(x):
        ok_q = scorer.allowed[np.unique(ops[x == p])].all(axis=0)
        ok_q[p] = False
        pairs += [(int(p), int(q)) for q in np.flatnonzero(ok_q)]
    kind = np.concatenate([np.zeros(len(move_a), int), np.ones(len(sa), int), np.full(len(pairs), 2)])
    first = np.concatenate([move_a, sa, np.array([p for p, _ in pairs], dtype=int)])
    second = np.concatenate([move_j, sb, np.array([q for _, q in pairs], dtype=int)])
    order = rng.permutation(len(kind))
    for start in range(0, len(order), BATCH):
        sel = order[start:start + BATCH]
        k, a, b = kind[sel], first[sel], second[sel]
        batch = np.repeat(x[None], len(sel), axis=0)
        rows = np.arange(len(sel))
        m = k == 0
        batch[rows[m], a[m]] = b[m]
        s_ = k == 1
        batch[rows[s_], a[s_]] = x[b[s_]]
        batch[rows[s_], b[s_]] = x[a[s_]]
        for r in rows[k == 2]:
            batch[r, x == a[r]] = b[r]
        yield batch


@register
@dataclass(frozen=True)
class HillClimbing(LatencyAware):
    """Ecker et al.'s (2025) hill climbing."""

    name = "hill-climbing"
    summary = "latency-aware hill climbing (Ecker et al.): move / swap / move-all, never accepts a worse score"

    def search(self, scorer: UnitScorer, rng: np.random.Generator, start: np.ndarray | None,
               budget: Deadline, work: Work) -> np.ndarray:
        return hill_climb(scorer, start if start is not None else greedy_start(scorer), rng, budget, work)


@dataclass(frozen=True)
class AntParams:
    alpha: float = 1.0
    beta: float = 2.0
    rho: float = 0.9  # pheromone persistence per iteration
    q: float = 1.0
    initial: float = 1.0
    minimum: float = 0.01
    ants: int = 8
    iterations: int = 400  # at most (and the time budget)
    min_iterations: int = 40  # before the patience rule may stop it (the paper: a high iteration count)
    patience: int = 8  # iterations without a better ant before stopping
    reinforce: int = 5  # p_c: deposits of the running plan at the start


def ant_system(scorer: UnitScorer, rng: np.random.Generator, start: np.ndarray | None, budget: Deadline,
               p: AntParams, work: Work) -> np.ndarray:
    """The colony for at most ``p.iterations`` iterations (its work budget; ``budget``, the wall clock, only as
    a safety stop), ``work`` counting the ants' placements."""
    units, nodes = scorer.n_units, scorer.n_nodes
    n_ops = len(scorer.n)
    adjacent = np.zeros((n_ops, n_ops), dtype=bool)
    adjacent[scorer.src, scorer.tgt] = True
    adjacent[scorer.tgt, scorer.src] = True
    tau = np.full((units, nodes), p.initial)
    best: np.ndarray | None = None
    best_s = np.inf
    if start is not None:
        best, best_s = start.copy(), float(scorer.combined(start[None])[0])
        for _ in range(p.reinforce):
            tau[np.arange(units), start] += p.q / max(best_s, 1e-9)
    stale = 0
    for iteration in range(1, p.iterations + 1):
        if work.clock(budget):
            break
        colony = build_colony(scorer, tau, adjacent, rng, p)
        work.evaluations += len(colony)
        s = scorer.combined(colony)
        tau = pheromone_update(tau, colony, s, p)
        k_best = int(np.argmin(s))
        if s[k_best] < best_s - 1e-12:
            best, best_s, stale = colony[k_best].copy(), float(s[k_best]), 0
        else:
            stale += 1
            if stale >= p.patience and iteration >= p.min_iterations:
                break
    return best if best is not None else greedy_start(scorer)


def pheromone_update(tau: np.ndarray, colony: np.ndarray, scores: np.ndarray, p: AntParams) -> np.ndarray:
    """Eq. 4 with Eq. 5's deposits: τ ← max(ρ·τ + Σ_k ΔT^k, p_m), ant k laying Q/S_k on each edge it used
    (replica u → node colony[k, u]); S_k is the combined score (score + 10,000 · violations)."""
    units = tau.shape[0]
    deposit = np.zeros_like(tau)
    for k in range(len(colony)):
        deposit[np.arange(units), colony[k]] += p.q / max(float(scores[k]), 1e-9)
    return np.maximum(p.rho * tau + deposit, p.minimum)


def move_weights(tau_alpha: np.ndarray, near: np.ndarray, used: np.ndarray, cpu_over: np.ndarray,
                 mem_over: np.ndarray, beta: float) -> np.ndarray:
    """Eq. 2's numerator τ^α · η^β per candidate node, with Eq. 3's η = 2^(near + used − cpu_over − mem_over):
    η doubles where a neighbouring operator's replica already is and where the node is already used, and
    halves where the replica would overload the node's CPU or memory. Normalized, it is the move probability."""
    exponent = near.astype(float) + used - cpu_over - mem_over
    return tau_alpha * np.exp2(beta * exponent)


def build_colony(scorer: UnitScorer, tau: np.ndarray, adjacent: np.ndarray, rng: np.random.Generator,
                 p: AntParams) -> np.ndarray:
    """All ants build their placements in lock-step (each in its own random replica order), vectorized.

    O(units · ants · (ops + nodes)): each step gathers, per ant, whether a neighbour of the replica's
    operator already sits on each node from a running count instead of scanning every operator."""
    units, nodes = scorer.n_units, scorer.n_nodes
    m = p.ants
    orders = np.argsort(rng.random((m, units)), axis=1)  # a random permutation per ant
    draws = rng.random((units, m))
    # everything a step needs, gathered once in placement order: (units, m, ...) so a step is a cheap view
    op_seq = scorer.unit_op[orders].T  # (units, m)
    cpu_seq = scorer.cpu[op_seq]  # (units, m, nodes)
    mem_seq = scorer.memory[op_seq]  # (units, m)
    tau_alpha = tau if p.alpha == 1.0 else tau ** p.alpha
    base_seq = np.where(scorer.allowed[op_seq], tau_alpha[orders.T], 0.0)  # (units, m, nodes)
    adjacent_seq = adjacent.astype(float)[op_seq]  # (units, m, ops)
    near_count = np.zeros((m, len(scorer.n), nodes))  # replicas of o's neighbours each ant put on each node
    used = np.zeros((m, nodes))
    cpu_room = np.broadcast_to(scorer.cpu_cap, (m, nodes)).copy()
    mem_room = np.broadcast_to(scorer.mem_cap, (m, nodes)).copy()
    colony = np.empty((m, units), dtype=np.intp)
    ants = np.arange(m)
    for step in range(units):
        i = op_seq[step]
        weight = move_weights(base_seq[step], near_count[ants, i] > 0, used, cpu_seq[step] > cpu_room,
                              mem_seq[step][:, None] > mem_room, p.beta)  # Eq. 2 with η of Eq. 3
        cum = np.cumsum(weight, axis=1)
        j = np.minimum((cum < draws[step][:, None] * cum[:, -1:]).sum(axis=1), nodes - 1)
        colony[ants, orders[:, step]] = j
        near_count[ants, :, j] += adjacent_seq[step]
        used[ants, j] = 1.0
        cpu_room[ants, j] -= cpu_seq[step, ants, j]
        mem_room[ants, j] -= mem_seq[step]
    return colony


@register
@dataclass(frozen=True)
class AntSystem(LatencyAware):
    """Ecker et al.'s (2025) ant system."""

    name = "ant-system"
    summary = "latency-aware ant system (Ecker et al.): pheromone + co-location heuristic, seedable"

    ants: int = 8
    iterations: int = 400  # at most: its work budget (budget_s, the wall clock, is only a safety stop)
    min_iterations: int = 40  # iterations before ``patience`` may stop the colony
    patience: int = 8  # iterations without a better ant that end it (after min_iterations)
    alpha: float = 1.0
    beta: float = 2.0
    rho: float = 0.9
    q: float = 1.0  # Q of Eq. 5
    initial_pheromone: float = 1.0  # p_i
    minimum_pheromone: float = 0.01  # p_m of Eq. 4
    reinforce: int = 5  # p_c: deposits of the running plan at the start

    def ant_params(self) -> AntParams:
        return AntParams(alpha=self.alpha, beta=self.beta, rho=self.rho, q=self.q, initial=self.initial_pheromone,
                         minimum=self.minimum_pheromone, ants=self.ants, iterations=self.iterations,
                         min_iterations=self.min_iterations, patience=self.patience, reinforce=self.reinforce)

    def search(self, scorer: UnitScorer, rng: np.random.Generator, start: np.ndarray | None,
               budget: Deadline, work: Work) -> np.ndarray:
        return ant_system(scorer, rng, start, budget, self.ant_params(), work)


@register
@dataclass(frozen=True)
class Hybrid(AntSystem):
    """Ant system, then hill climbing, each with half the budget (Ecker et al. 2025 §4.3.3)."""

    name = "hybrid"
    summary = "latency-aware hybrid (Ecker et al.): ant system then hill climbing, budgets halved"

    def search(self, scorer: UnitScorer, rng: np.random.Generator, start: np.ndarray | None,
               budget: Deadline, work: Work) -> np.ndarray:
        colony = Work(work.max_evaluations)  # the colony is bounded by its iterations; the climb by the limit
        first = ant_system(scorer, rng, start, Deadline(self.budget_s / 2), self.ant_params(), colony)
        best = hill_climb(scorer, first, rng, Deadline(self.budget_s / 2), work)
        work.evaluations += colony.evaluations
        work.clock_stopped |= colony.clock_stopped
        return best
