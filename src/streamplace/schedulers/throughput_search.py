"""max-throughput's local search (schedulers/max_throughput.py): populations of integer count matrices scored
in vectorized batches — hot cells, moves of one replica or a type's worth, swaps, each bottleneck operator's
exact best response, kicks — and the same search over Spark's per-batch work for the spark engine.

Pure numpy on a ThroughputModel: no solver here (the LP bound and the exact check stay with the scheduler). The
neighbourhood itself — one node standing for each class of alike nodes holding the same replicas, scored in
bounded chunks — is max_throughput_moves.py's.
Complexity: see max_throughput.py's and max_throughput_moves.py's module docstrings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import Deadline
from streamplace.schedulers.capacity import (
    S_CAP,
)
from streamplace.schedulers.max_throughput_moves import (
    best_per_chain,
    group_parts,
    materialize,
    neighbour_parts,
    node_states,
    vacate_part,
)
from streamplace.schedulers.node_kinds import kind_classes
from streamplace.schedulers.spark_optimal import stage_costs
from streamplace.schedulers.throughput_lp import model_classes, node_classes

TIE = 1e-9  # relative: two scales this close are equal


def node_and_thread_scales(model: ThroughputModel, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per count matrix: the scale at which each node hits its CPU budget (batch, nodes) and the scale at which
    a replica of operator i on node u hits one thread (batch, ops, nodes; inf where there is none — everywhere
    where only the machine caps a replica, and then not computed: the hot path of the search, 3× cheaper)."""
    counts = batch.astype(np.float64)
    n = counts.sum(axis=2)
    per = np.divide(model.lam, n, out=np.zeros(n.shape), where=n > 0) + np.where(n > 0, model.lam_all, 0.0)
    # Σ_i c_iu · per_i · r_iu: the replicas' points per unit scale on each node, without a (batch, ops, nodes)
    # temporary per factor
    a = np.einsum("biu,bi,iu->bu", counts, per, model.rate_cost, optimize=["einsum_path", (0, 1), (0, 1)]) \
        + model.remote_points(batch)
    budget = model.cap[None] - np.einsum("biu,iu->bu", counts, model.met)
    node_s = np.full(a.shape, np.inf)
    np.divide(budget, a, out=node_s, where=a > 0)
    node_s[(a <= 0) & (budget < -1e-9)] = 0.0
    np.maximum(node_s, 0.0, out=node_s)
    if model.replica_cap == "machine":  # a read-only view, no (batch, ops, nodes) array written
        return node_s, np.broadcast_to(np.float64(np.inf), batch.shape)
    cell_s = np.full(batch.shape, np.inf)
    thread = per[:, :, None] * model.rate_cost[None]  # points per replica at scale 1
    np.divide((model.thread_points[None, :] - model.met)[None], thread, out=cell_s, where=(batch > 0) & (thread > 0))
    return node_s, np.maximum(cell_s, 0.0)


def leximin_key(model: ThroughputModel, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(scale, what sits at it, node scales, cell scales) per count matrix: higher scale first, then fewer nodes
    at their CPU budget plus fewer replicas at their one-thread limit — so moving replicas off a binding cell one
    by one is progress."""
    node_s, cell_s = node_and_thread_scales(model, batch)
    thread_cap = model.replica_cap == "thread"  # else every cell scale is inf: nothing to add
    scale = node_s.min(axis=1)
    if thread_cap:
        scale = np.minimum(scale, cell_s.min(axis=(1, 2)))
    scale = np.minimum(scale, S_CAP)
    limit = scale * (1 + TIE)
    at = (node_s <= limit[:, None]).sum(axis=1)
    if thread_cap:
        at = at + np.where(cell_s <= limit[:, None, None], batch, 0).sum(axis=(1, 2))
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
    limit there, one more replica on another node, one moved off, one fewer, one swapped with another operator's
    replica off the bottleneck; with ``groups``, type moves (``group_moves``); where only the machine caps a
    replica, vacate moves (``vacate_moves``). One node stands for each class of nodes alike in the plan
    (max_throughput_moves.py). Returns the candidates and the chain each comes from, all at once; the search
    scores them a chunk at a time (``best_neighbours``)."""
    return materialize(neighbour_parts(model, pop, k, hot_cells(pop, node_s, cell_s), groups, node_s), pop)


def best_neighbours(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, node_s: np.ndarray,
                    cell_s: np.ndarray, groups: np.ndarray | None,
                    classes: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Each chain's best neighbour (``neighbours``) by leximin, the first in listing order among equals, scored
    CHUNK_CELLS cells at a time: (chains that have one, their candidates, scale, at, node scales, cell scales)."""
    parts = neighbour_parts(model, pop, k, hot_cells(pop, node_s, cell_s), groups, node_s, classes)

    def score(batch: np.ndarray) -> tuple[np.ndarray, ...]:
        s2, a2, n2, c2 = leximin_key(model, batch)
        return -s2, a2, n2, c2

    chain, batch, *rest = best_per_chain(parts, pop, score)
    if not len(chain):
        return chain, batch, np.zeros(0), np.zeros(0, dtype=np.int64), node_s[:0], cell_s[:0]
    return chain, batch, -rest[0], rest[1], rest[2], rest[3]


def vacate_moves(model: ThroughputModel, pop: np.ndarray, k: np.ndarray, hot: np.ndarray,
                 node_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where only the machine caps a replica: candidates that empty a node off the bottleneck and give it to an
    operator on the bottleneck, 1..VACATE_FILL replicas, one node standing for each class of nodes alike in the
    plan (max_throughput_moves.vacate_part). The operators the node held lose a replica each (their
    other replicas take more of the split), the bottleneck operator gains some. The optimum of nasiri-large ×
    Diamond is two such moves from the best plan that gives each operator one type: `mid` takes a Core i3 the
    spout and `join` leave (10 replicas, not 8), then the spout takes a Pentium `low` leaves — each raises the
    scale, while no single-replica move does (3.8 % → 0 % below the optimum)."""
    lead = node_states(model, pop)[0] == np.arange(pop.shape[2])[None]
    return materialize([vacate_part(model, pop, k, hot, node_s, lead)], pop)


def node_groups(model: ThroughputModel) -> np.ndarray:
    """Per node, the id of its group of identical nodes (same costs, overheads, allowed operators, capacity and
    memory for every operator): machines of one type."""
    return node_classes([model.e, model.met, model.allowed], [model.cap, model.node_memory])


def group_moves(model: ThroughputModel, pop: np.ndarray, k: np.ndarray,
                groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidates that change an operator by one replica on every node of a group of identical machines that
    holds it — one fewer on each, or one more on each — for groups where it sits on two nodes or more (one node:
    a single move does it). A plan whose bottleneck is shared by identical machines needs such a move: taking
    one replica off one of them leaves the others at the bottleneck (and their load grows). Where only the
    machine caps a replica, also one replica on every node of a group that holds none yet (nasiri-small:
    Linear's planning 144 → 69 ms, RollingCount 0.89 % → 0 % below the optimum). O(P·ops·groups) candidates
    (max_throughput_moves.group_parts)."""
    return materialize(group_parts(model, pop, k, groups), pop)


def best_responses(model: ThroughputModel, pop: np.ndarray, chain: np.ndarray, op: np.ndarray, k: np.ndarray,
                   ceiling: float, prefer_free: bool = False, only: np.ndarray | None = None,
                   classes: np.ndarray | None = None) -> np.ndarray:
    """Operator ``op[c]`` of count matrix ``pop[chain[c]]`` re-planned from scratch with the others held: for
    every total n in 1..k_i, the highest scale at which n replicas fit beside the other operators, and the n
    with the highest scale (the fewest replicas among equals), its replicas spread over the nodes with the most
    room (water filling). A move of several replicas at once: the authors' rc-s3 data needs three more
    counters (two on one machine type, one on another) where every single step on the way sustains less.

    Exact, without a search over the scale: with n replicas, node u holds c of them up to the scale
    s_u(c) = (cap_u − b_u − c·met_iu) / (a_u + c·ρ_iu(n)) (its budget less the others' fixed points b_u,
    against the others' points per unit scale a_u and c replicas' ρ each), and one of them up to the
    one-thread scale (100 − met_iu)/ρ_iu(n). Node u holds m_u(s) = #{c : s_u(c) ≥ s} replicas at scale s,
    so the highest scale with Σ_u m_u(s) ≥ n is the n-th largest s_u(c) over all nodes and c ≤ n.

    Nodes the others leave empty are alike within a class of identical nodes (``classes``: model_classes; the
    same s_u(c) for every c), so they are scored once per class, their count weighing the n-th largest; of
    each such group only its first k + 1 nodes by index can take a replica in the water filling (at most k are
    placed, and ties go to the lowest index), so only those are carried. The same plans as scoring every node.
    Returns (C, ops, nodes); O(C·(ops·nodes + k²·(used + classes·k)·log)) in one vectorized batch, where
    scoring every node was O(C·k²·nodes·log)."""
    n_c = len(chain)
    out = pop[chain].copy()
    if n_c == 0:
        return out
    rows = np.arange(n_c)
    out[rows, op] = 0
    n_nodes = out.shape[2]
    per = model.per_replica(out.sum(axis=2))  # (C, ops): the others' rates per replica (row op has none now)
    # the others' points per unit scale a, fixed points b, memory and replicas per node, from the cells they hold,
    # summed in operator order as over the whole table
    cc, ii, uu = np.nonzero(out)
    held = out[cc, ii, uu]
    a, b, used, tasks = (np.zeros((n_c, n_nodes)) for _ in range(4))
    thread = per[cc, ii] * model.rate_cost[ii, uu]
    np.add.at(a, (cc, uu), held * per[cc, ii] * model.rate_cost[ii, uu])
    np.add.at(b, (cc, uu), held * model.met[ii, uu])
    np.add.at(used, (cc, uu), held * model.memory[ii])
    np.add.at(tasks, (cc, uu), held)
    cell_min = np.full(n_c, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.minimum.at(cell_min, cc, np.where(thread > 0, (model.thread_points[uu] - model.met[ii, uu]) / thread,
                                             np.inf))
        own = np.where(a > 0, (model.cap[None] - b) / a, np.where(b > model.cap[None] + 1e-9, -1.0, np.inf))
    hi = np.minimum(np.minimum(cell_min, own.min(axis=1)), ceiling)  # (C,)
    mem_left = model.node_memory[None] - used  # (C, nodes)
    mem_i = model.memory[op][:, None]
    by_memory = np.where(mem_i > 0, np.floor((mem_left + 1e-9) / np.where(mem_i > 0, mem_i, 1.0)), np.inf)
    by_memory = np.minimum(by_memory, model.slots[None] - tasks)  # and the node's replica cap k_j
    ki = k[op]
    n_max = int(ki.max())
    if classes is None:
        classes = model_classes(model)
    node, weight = _alike_nodes(tasks == 0, classes, only, n_max)  # (C, K): the nodes scored, their weights
    r = rows[:, None]
    n = np.arange(1, n_max + 1, dtype=float)
    rho = (model.lam[op][:, None, None] / n[None, :, None] + model.lam_all[op][:, None, None]) * \
        model.rate_cost[op[:, None], node][:, None, :]  # (C, n, K): points per replica per unit scale
    met = model.met[op[:, None], node][:, None, :, None]  # (C, 1, K, 1)
    c = n[None, None, None, :]  # (1, 1, 1, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = a[r, node][:, None, :, None] + c * rho[..., None]
        budget = model.cap[node][:, None, :, None] - b[r, node][:, None, :, None] - c * met
        s_uc = np.where(denominator > 0, budget / denominator, np.where(budget >= -1e-9, np.inf, -1.0))
        tp = model.thread_points[node][:, None, :]
        single = np.where(rho > 0, (tp - met[..., 0]) / rho, np.where(met[..., 0] <= tp, np.inf, -1.0))
    s_uc = np.minimum(s_uc, single[..., None])  # (C, n, K, c)
    usable = model.allowed[op[:, None], node][:, None, :, None] & (c <= by_memory[r, node][:, None, :, None]) & \
        (c <= n[None, :, None, None]) & (weight > 0)[:, None, :, None]
    if only is not None:  # (C, nodes): the nodes this candidate may use (one machine type: every replica as fast)
        usable = usable & only[r, node][:, None, :, None]
    s_uc = np.where(usable, s_uc, -1.0)
    weights = np.broadcast_to(weight[:, None, :, None], s_uc.shape).reshape(n_c, n_max, -1)

    def pick(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scale, n − 1, replicas each node holds at that scale) of the best total, per candidate."""
        flat = s.reshape(n_c, n_max, -1)
        order = np.argsort(-flat, axis=2, kind="stable")  # largest first
        ranked = np.take_along_axis(flat, order, axis=2)
        count = np.cumsum(np.take_along_axis(weights, order, axis=2), axis=2)  # nodes' worth of entries so far
        nth = (count > np.arange(n_max)[None, :, None]).argmax(axis=2)  # where the n-th largest is, per n
        best_at = np.minimum(np.take_along_axis(ranked, nth[..., None], axis=2)[..., 0], hi[:, None])
        best_at = np.where(n[None, :] <= ki[:, None], best_at, -1.0)
        best_n = best_at.argmax(axis=1)  # the first (fewest replicas) of the highest scales
        top = best_at[rows, best_n]
        return top, best_n, (s[rows, best_n] >= top[:, None, None] * (1 - TIE)).sum(axis=2)

    scale, best_n, room = pick(s_uc)
    if prefer_free:
        # on nodes no other operator uses, where that sustains as much: where the others bind the scale (``hi``)
        # the operator's own best is a tie, and the spread that keeps off their nodes relieves them (nasiri-large:
        # Linear's low bolt onto the idle Pentiums; 12.8 % below the optimum without it)
        free = ((a <= 0) & (b <= 0))[r, node][:, None, :, None]
        f_scale, f_n, f_room = pick(np.where(free, s_uc, -1.0))
        use = f_scale >= scale * (1 - TIE)
        scale, best_n = np.where(use, f_scale, scale), np.where(use, f_n, best_n)
        room = np.where(use[:, None], f_room, room)
    room = np.where(weight > 0, room, -(2 ** 40))  # padding takes nothing
    placed = np.zeros_like(room)
    want = np.where(scale > 0, best_n + 1, 0)
    for step in range(n_max):  # water filling: each replica to the node with the most room left (lowest index on ties)
        active = want > step
        if not active.any():
            break
        u = np.argmax(room - placed, axis=1)
        placed[rows[active], u[active]] += 1
    spread = np.zeros((n_c, n_nodes), dtype=out.dtype)
    spread[np.broadcast_to(r, node.shape)[placed > 0], node[placed > 0]] = placed[placed > 0]
    out[rows, op] = np.where((scale > 0)[:, None], spread, pop[chain, op])  # nothing fits: left where it was
    return out


def _alike_nodes(empty: np.ndarray, classes: np.ndarray, only: np.ndarray | None,
                 k: int) -> tuple[np.ndarray, np.ndarray]:
    """The nodes ``best_responses`` scores per candidate (C, K), ascending, and the nodes each stands for: every
    node the others use, and of the empty nodes of each class (and side of ``only``) its first k + 1, the first
    standing for the ones left out. Padding (weight 0) repeats node 0."""
    n_c, n_nodes = empty.shape
    key = np.broadcast_to(classes, empty.shape).astype(np.int64)
    if only is not None:
        key = key * 2 + only
    cand, nodes = np.nonzero(empty)
    group = (cand * (int(key.max()) + 1) + key[cand, nodes]) * n_nodes + nodes
    order = np.argsort(group, kind="stable")
    cand, nodes, gid = cand[order], nodes[order], group[order] // n_nodes
    start = np.r_[True, gid[1:] != gid[:-1]]
    first = np.flatnonzero(start)
    size = np.diff(np.r_[first, len(gid)])
    rank = np.arange(len(gid)) - np.repeat(first, size)
    keep = rank <= k
    w = np.where(start, np.repeat(size - np.minimum(size, k + 1) + 1, size), 1)[keep]
    oc, on = np.nonzero(~empty)
    cand = np.r_[cand[keep], oc]
    nodes = np.r_[nodes[keep], on]
    w = np.r_[w, np.ones(len(oc), dtype=np.int64)]
    order = np.lexsort((nodes, cand))
    cand, nodes, w = cand[order], nodes[order], w[order]
    per = np.bincount(cand, minlength=n_c)
    width = int(per.max()) if len(per) else 0
    slot = np.arange(len(cand)) - np.repeat(np.r_[0, np.cumsum(per)[:-1]], per)
    node = np.zeros((n_c, width), dtype=np.intp)
    weight = np.zeros((n_c, width), dtype=np.int64)
    node[cand, slot], weight[cand, slot] = nodes, w
    return node, weight


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
    classes = model_classes(model)
    batch = best_responses(model, pop, chain, op, k, ceiling, classes=classes)
    if model.replica_cap == "machine":
        groups = node_groups(model)
        n_groups = int(groups.max()) + 1
        per_group = np.repeat(np.arange(len(chain)), n_groups)
        only = groups[None, :] == np.tile(np.arange(n_groups), len(chain))[:, None]
        batch = np.concatenate([batch, best_responses(model, pop, chain, op, k, ceiling, prefer_free=True,
                                                      classes=classes),
                                best_responses(model, pop, chain[per_group], op[per_group], k, ceiling, only=only,
                                               classes=classes)])
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
    cell_s = np.array(cell_s)  # the chains' own, written as they move
    groups = node_groups(model)
    classes = kind_classes(model)
    j = int(np.lexsort((at, -scale))[0])
    best, best_scale, best_at = pop[j].copy(), float(scale[j]), int(at[j])
    steps = 0
    since = 0  # rounds since the best plan last improved
    for _ in range(rounds):
        if best_scale >= bound * (1 - TIE) or deadline.expired() or since >= patience:
            break
        since += 1
        chain, batch, s2, a2, n2, c2 = best_neighbours(model, pop, k, node_s, cell_s, groups, classes)
        stuck = np.ones(len(pop), dtype=bool)
        if len(chain):
            up = improves(s2, a2, scale[chain], at[chain])
            chain = chain[up]
            pop[chain], scale[chain], at[chain] = batch[up], s2[up], a2[up]
            node_s[chain], cell_s[chain] = n2[up], c2[up]
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
        for chain_id in np.flatnonzero(stuck).tolist():  # still a local optimum: perturb it and search on
            pop[chain_id] = kick(model, pop[chain_id], k, rng)
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
    cell_s = np.array(cell_s)
    classes = kind_classes(model)
    steps = 0
    for _ in range(rounds):
        if scale[0] >= bound * (1 - TIE):
            break
        chain, batch, s2, a2, n2, c2 = best_neighbours(model, pop, k, node_s, cell_s, groups, classes)
        moved = False
        if len(chain) and improves(s2[0], a2[0], scale[0], at[0]):
            pop[0], scale[0], at[0], node_s[0], cell_s[0] = batch[0], s2[0], a2[0], n2[0], c2[0]
            moved = True
        if not moved:
            moved = len(respond(model, pop, k, np.ones(1, dtype=bool), scale, at, node_s, cell_s, bound)) > 0
        if not moved:
            break
        steps += 1
    return pop[0], steps


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
    counts, their W and the steps taken. Cost per round: O(chains · r · s) candidates (r replicas, s states: one node
stands for each class of nodes alike in the model and in the engine's stage costs and slots, holding the same
replicas — max_throughput_moves.py), scored CHUNK_CELLS cells at a time."""
    pop = np.stack([starts[c % len(starts)] for c in range(max(chains, len(starts)))]).astype(np.int64)
    for c in range(len(starts), len(pop)):
        pop[c] = kick(model, pop[c], k, rng)

    def key(batch: np.ndarray) -> np.ndarray:
        return np.where(model.fits_batch(batch), work.work(batch), np.inf)

    w_now = key(pop)
    # alike for the spark engine's work too (its stage costs and slots per node): one node stands for a state
    classes = node_classes([work.cost], [kind_classes(model).astype(float), np.asarray(work.slots, dtype=float)])
    j = int(np.argmin(w_now))
    best, best_w = pop[j].copy(), float(w_now[j])
    steps, since = 0, 0
    for _ in range(rounds):
        if deadline.expired() or since >= patience:
            break
        since += 1
        stuck = np.ones(len(pop), dtype=bool)
        # every replica counts as on a bottleneck: the ideal model's neighbourhood over all of them
        parts = neighbour_parts(model, pop, k, pop > 0, None, np.zeros((len(pop), pop.shape[2])), classes)
        chain, batch, *scored = best_per_chain(parts, pop, lambda b: (key(b), np.zeros(len(b))))
        if len(chain):
            w = scored[0]
            up = w < w_now[chain] * (1 - TIE)
            pop[chain[up]], w_now[chain[up]] = batch[up], w[up]
            stuck[chain[up]] = False
            steps += int(up.sum())
        j = int(np.argmin(w_now))
        if w_now[j] < best_w * (1 - TIE):
            best, best_w, since = pop[j].copy(), float(w_now[j]), 0
        for chain_id in np.flatnonzero(stuck).tolist():
            pop[chain_id] = kick(model, pop[chain_id], k, rng)
        if stuck.any():
            w_now[stuck] = key(pop[stuck])
    return best, best_w, steps
