"""max-throughput's LP by class of node (schedulers/throughput_lp.py): ops × classes columns, the per-node LP's
optimum, a feasible per-node solution dealt from it; and hetero's sparse bottleneck rule equal to the dense one."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.bench import resolve_topology
from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers import hetero, throughput_lp
from streamplace.schedulers.throughput_lp import lp_bound, lp_bound_per_node, model_classes
from streamplace.schedulers.throughput_search import TIE, best_responses, node_groups

TOPOLOGIES = ("nasiri-linear", "nasiri-diamond", "rollingcount", "uniquevisitor")


def random_cluster(rng: np.random.Generator) -> Cluster:
    """One to three machine kinds, one to five machines of each, interleaved (a class's nodes are not
    contiguous), in two racks."""
    kinds = [(float(rng.choice([100, 200, 400])), float(rng.choice([0.5, 1.0, 2.0])),
              float(rng.choice([512, 2048, 16384]))) for _ in range(int(rng.integers(1, 4)))]
    per = [(cpu, speed, mem) for cpu, speed, mem in kinds for _ in range(int(rng.integers(1, 6)))]
    order = rng.permutation(len(per))
    nodes = tuple(Node(id=f"n{j}", cpu=per[o][0], speedup=per[o][1], memory_mb=per[o][2], rack=f"rack{j % 2}")
                  for j, o in enumerate(order))
    return Cluster("random", nodes, Links(same_rack_ms=0.1, cross_rack_ms=1.0))


def feasible(model: ThroughputModel, k: np.ndarray, scale: float, flows: np.ndarray,
             points: np.ndarray | None) -> bool:
    """The dealt flows satisfy every row of the per-node LP at ``scale`` (relative tolerance 1e-6)."""
    tp = model.thread_points if points is None else points
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(model.allowed & (model.met < tp), model.rate_cost / (tp - model.met), 0.0)
    tol = 1e-6
    used = flows > 0
    ok = not (used & ~(model.allowed & (model.met < tp))).any()
    ok &= bool((flows.sum(axis=1) >= (model.lam + model.lam_all) * scale * (1 - tol)).all())
    ok &= bool((((model.rate_cost + model.met * t) * flows).sum(axis=0) <= model.cap * (1 + tol) + tol).all())
    ok &= bool(((t * flows).sum(axis=1) <= k * (1 + tol) + tol).all())
    ok &= bool((((model.memory[:, None] * t) * flows).sum(axis=0) <= model.node_memory * (1 + tol) + tol).all())
    return ok & bool(((t * flows).sum(axis=0) <= model.slots * (1 + tol) + tol).all())


@pytest.mark.parametrize("seed", range(12))
def test_the_class_lp_has_the_per_node_lps_optimum_and_deals_a_feasible_solution(seed: int) -> None:
    """Seeded random clusters of few machine kinds, both replica caps, with and without a per-node task cap, both
    LPs max-throughput solves (the plain one and its proof with replicas capped by their machine): the class LP's
    optimum is the per-node LP's, and its solution dealt to the nodes satisfies every per-node row there."""
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng)
    topology = resolve_topology(TOPOLOGIES[seed % len(TOPOLOGIES)])
    cap = ("machine", "thread")[seed % 2]
    model = ThroughputModel.build(topology, cluster, replica_cap=cap, tasks_per_node=(None, 2)[(seed // 2) % 2])
    k = rng.integers(1, 11, len(topology.operators))
    for points in (None, np.minimum(model.thread_points, model.cap)):
        per_node, _ = lp_bound_per_node(model, k, points)
        by_class, flows = lp_bound(model, k, points)
        assert by_class == pytest.approx(per_node, rel=1e-7)
        assert feasible(model, k, by_class, flows, points)


def test_the_class_lp_has_operators_times_classes_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1,000-node rack cluster of one machine kind is one class: 45 operators × 1 columns (and the scale), where
    the per-node LP has 45 × 1,000; two kinds make two classes."""
    sizes = []
    solve = throughput_lp.solve_lp

    def counting(cost: np.ndarray, *args: object, **kwargs: object) -> object:
        sizes.append(len(cost))
        return solve(cost, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(throughput_lp, "solve_lp", counting)
    topology = storm_large(5, 30, 40, 114)
    model = ThroughputModel.build(topology, racks(25, 40))
    k = np.full(45, 10)
    lp_bound(model, k)
    assert sizes == [45 * 1 + 1]
    small = ThroughputModel.build(topology, racks(2, 10))
    assert lp_bound(small, k)[0] == pytest.approx(lp_bound_per_node(small, k)[0], rel=1e-9)
    assert sizes[1:] == [45 + 1, 45 * 20 + 1]
    nodes = list(racks(2, 10).nodes)
    nodes[3] = Node(id=nodes[3].id, cpu=200.0, memory_mb=4096.0, rack=nodes[3].rack)
    two = ThroughputModel.build(topology, Cluster("two", tuple(nodes), racks(2, 10).links))
    assert int(model_classes(two).max()) + 1 == 2
    lp_bound(two, k)
    assert sizes[-1] == 45 * 2 + 1


@pytest.mark.parametrize("seed", range(6))
def test_node_groups_are_numpys_unique_over_every_column(seed: int) -> None:
    """Groups computed from the varying rows only are the groups (and ids) of np.unique over all columns."""
    rng = np.random.default_rng(100 + seed)
    model = ThroughputModel.build(resolve_topology(TOPOLOGIES[seed % 4]), random_cluster(rng))
    columns = np.column_stack([model.e.T, model.met.T, model.allowed.T, model.cap, model.node_memory])
    assert (node_groups(model) == np.unique(columns, axis=0, return_inverse=True)[1].ravel()).all()


def dense_ratio_bottleneck(model: ThroughputModel, st: hetero.State, scale: float, stable: hetero.State,
                           stable_scale: float) -> int | None:
    """hetero's rule as it was written over the whole (ops, nodes) table, the reference for the sparse one."""
    load = st.a * scale + st.b
    per = model.per_replica(np.maximum(st.n, 1)) * scale
    over_node = load > model.cap + hetero.EPS
    over_thread = (st.counts > 0) & (per[:, None] * model.rate_cost + model.met
                                     > model.thread_points[None, :] + hetero.EPS)
    if not over_node.any() and not over_thread.any():
        return None
    free = model.cap - (stable.a * stable_scale + stable.b)
    per_then = model.per_replica(np.maximum(stable.n, 1)) * stable_scale
    with np.errstate(divide="ignore", invalid="ignore"):
        available = per_then[:, None] + free[None, :] / (np.maximum(stable.counts, 1) * model.rate_cost)
        thread_cap = (model.thread_points[None, :] - model.met) / model.rate_cost
        ratio_node = np.where(over_node[None, :] & (stable.counts > 0) & (st.counts > 0), per[:, None] / available,
                              -np.inf)
        ratio_thread = np.where(over_thread, per[:, None] / thread_cap, -np.inf)
    ratio = np.maximum(ratio_node, ratio_thread)
    if not np.isfinite(ratio).any():
        hot = hetero._over(model, st, scale)
        return None if hot is None else hot[1]
    return int(np.unravel_index(int(np.argmax(ratio)), ratio.shape)[0])


@pytest.mark.parametrize("seed", range(8))
def test_the_sparse_ratio_rule_names_the_operator_the_dense_one_names(seed: int) -> None:
    """hetero's authors' bottleneck rule computed on the cells holding an instance names the same operator as over
    the whole table, on random states of random clusters at random scales (stable states a few instances back)."""
    rng = np.random.default_rng(200 + seed)
    topology = resolve_topology(TOPOLOGIES[seed % 4])
    model = ThroughputModel.build(topology, random_cluster(rng), replica_cap=("machine", "thread")[seed % 2])
    n_ops, n_nodes = model.e.shape
    for _ in range(20):
        counts = rng.integers(0, 3, (n_ops, n_nodes)) * model.allowed
        counts[np.arange(n_ops), rng.integers(0, n_nodes, n_ops)] += 1
        stable = hetero.State.of(model, counts)
        now = stable.copy()
        for _ in range(int(rng.integers(0, 4))):
            i, w = int(rng.integers(n_ops)), int(rng.integers(n_nodes))
            now.add(model, i, w, float(hetero.thread_rates(model)[i, w]))
        s0 = float(rng.uniform(0.01, 5.0))
        s1 = s0 * float(rng.uniform(1.0, 2.0))
        assert hetero._ratio_bottleneck(model, now, s1, stable, s0) == dense_ratio_bottleneck(model, now, s1,
                                                                                               stable, s0)
        assert (now.tasks == now.counts.sum(axis=0)).all()


def dense_best_responses(model: ThroughputModel, pop: np.ndarray, chain: np.ndarray, op: np.ndarray, k: np.ndarray,
                         ceiling: float, prefer_free: bool = False, only: np.ndarray | None = None) -> np.ndarray:
    """best_responses as it was written, scoring every node (the reference for the one scoring alike nodes once)."""
    n_c = len(chain)
    out = pop[chain].copy()
    rows = np.arange(n_c)
    out[rows, op] = 0
    per = model.per_replica(out.sum(axis=2))
    a = (out * per[:, :, None] * model.rate_cost[None]).sum(axis=1)
    b = (out * model.met[None]).sum(axis=1)
    thread = per[:, :, None] * model.rate_cost[None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cell = np.where((out > 0) & (thread > 0), (model.thread_points[None, :] - model.met)[None] / thread, np.inf)
        own = np.where(a > 0, (model.cap[None] - b) / a, np.where(b > model.cap[None] + 1e-9, -1.0, np.inf))
    hi = np.minimum(np.minimum(cell.reshape(n_c, -1).min(axis=1), own.min(axis=1)), ceiling)
    mem_left = model.node_memory[None] - (out * model.memory[None, :, None]).sum(axis=1)
    mem_i = model.memory[op][:, None]
    by_memory = np.where(mem_i > 0, np.floor((mem_left + 1e-9) / np.where(mem_i > 0, mem_i, 1.0)), np.inf)
    by_memory = np.minimum(by_memory, model.slots[None] - out.sum(axis=1))
    ki = k[op]
    n_max = int(ki.max())
    n = np.arange(1, n_max + 1, dtype=float)
    rho = (model.lam[op][:, None, None] / n[None, :, None] + model.lam_all[op][:, None, None]) * \
        model.rate_cost[op][:, None, :]
    met = model.met[op][:, None, :, None]
    c = n[None, None, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = a[:, None, :, None] + c * rho[..., None]
        budget = model.cap[None, None, :, None] - b[:, None, :, None] - c * met
        s_uc = np.where(denominator > 0, budget / denominator, np.where(budget >= -1e-9, np.inf, -1.0))
        tp = model.thread_points
        single = np.where(rho > 0, (tp - met[..., 0]) / rho, np.where(met[..., 0] <= tp, np.inf, -1.0))
    s_uc = np.minimum(s_uc, single[..., None])
    usable = model.allowed[op][:, None, :, None] & (c <= by_memory[:, None, :, None]) & (c <= n[None, :, None, None])
    if only is not None:
        usable = usable & only[:, None, :, None]
    s_uc = np.where(usable, s_uc, -1.0)

    def pick(s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        flat = -np.sort(-s.reshape(n_c, n_max, -1), axis=2)
        best_at = np.minimum(flat[:, np.arange(n_max), np.arange(n_max)], hi[:, None])
        best_at = np.where(n[None, :] <= ki[:, None], best_at, -1.0)
        best_n = best_at.argmax(axis=1)
        top = best_at[rows, best_n]
        return top, best_n, (s[rows, best_n] >= top[:, None, None] * (1 - TIE)).sum(axis=2)

    scale, best_n, room = pick(s_uc)
    if prefer_free:
        free = ((a <= 0) & (b <= 0))[:, None, :, None]
        f_scale, f_n, f_room = pick(np.where(free, s_uc, -1.0))
        use = f_scale >= scale * (1 - TIE)
        scale, best_n = np.where(use, f_scale, scale), np.where(use, f_n, best_n)
        room = np.where(use[:, None], f_room, room)
    placed = np.zeros_like(room)
    want = np.where(scale > 0, best_n + 1, 0)
    for step in range(n_max):
        active = want > step
        if not active.any():
            break
        u = np.argmax(room - placed, axis=1)
        placed[rows[active], u[active]] += 1
    out[rows, op] = np.where((scale > 0)[:, None], placed, pop[chain, op])
    return out


@pytest.mark.parametrize("seed", range(10))
def test_best_responses_scoring_alike_nodes_once_are_those_scoring_every_node(seed: int) -> None:
    """Random plans on random clusters of few machine kinds (many alike empty nodes), every operator, plain,
    preferring free nodes and restricted to each group: the same count matrices as scoring every node."""
    rng = np.random.default_rng(300 + seed)
    topology = resolve_topology(TOPOLOGIES[seed % 4])
    cluster = random_cluster(rng) if seed % 3 else racks(2, 20)  # 40 alike nodes: groups cut to their first k + 1
    model = ThroughputModel.build(topology, cluster, replica_cap=("machine", "thread")[seed % 2],
                                  tasks_per_node=(None, 3)[(seed // 2) % 2])
    n_ops, n_nodes = model.e.shape
    k = rng.integers(1, 8, n_ops)
    fill = 0.15 if seed % 3 else 0.03
    pop = np.stack([(rng.random((n_ops, n_nodes)) < fill) * rng.integers(1, 3, (n_ops, n_nodes))
                    for _ in range(3)]) * model.allowed
    chain, op = np.repeat(np.arange(3), n_ops), np.tile(np.arange(n_ops), 3)
    for ceiling in (1e9, float(rng.uniform(0.5, 50.0))):
        for prefer_free in (False, True):
            got = best_responses(model, pop, chain, op, k, ceiling, prefer_free)
            assert (got == dense_best_responses(model, pop, chain, op, k, ceiling, prefer_free)).all()
        groups = node_groups(model)
        only = groups[None, :] == (np.arange(len(chain)) % (groups.max() + 1))[:, None]
        got = best_responses(model, pop, chain, op, k, ceiling, only=only)
        assert (got == dense_best_responses(model, pop, chain, op, k, ceiling, only=only)).all()


@pytest.mark.parametrize("seed", range(6))
def test_max_scale_from_the_held_cells_is_the_whole_tables_to_the_bit(seed: int) -> None:
    """The ideal model's scale of random count matrices (and of empty and overloaded ones), computed from the cells
    holding a replica, equals the one computed over the whole (batch, ops, nodes) table exactly."""
    rng = np.random.default_rng(400 + seed)
    model = ThroughputModel.build(resolve_topology(TOPOLOGIES[seed % 4]), random_cluster(rng),
                                  replica_cap=("machine", "thread")[seed % 2])
    n_ops, n_nodes = model.e.shape
    batch = (rng.random((30, n_ops, n_nodes)) < 0.3) * rng.integers(1, 6, (30, n_ops, n_nodes))
    batch[0] = 0
    batch[1] = 40
    n = batch.sum(axis=2)
    per = model.per_replica(n)
    a = (batch * (per[:, :, None] * model.rate_cost[None])).sum(axis=1)
    budget = model.cap[None] - (batch * model.met[None]).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        node_s = np.where(a > 0, budget / a, np.where(budget < -1e-9, 0.0, np.inf))
        thread = per[:, :, None] * model.rate_cost[None]
        thread_s = np.where((batch > 0) & (thread > 0), (model.thread_points - model.met)[None] / thread, np.inf)
    want = np.maximum(np.minimum(node_s.min(axis=1), thread_s.reshape(len(batch), -1).min(axis=1)), 0.0)
    assert (model.max_scale_batch(batch) == want).all()
