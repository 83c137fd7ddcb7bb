"""The throughput model as mixed-integer programs and bounds: what ``optimal`` solves, and what hetero,
max-throughput, exhaustive and ODRP borrow from it (the scale's cap, sustained rates, the capacity and
feasibility MILPs, counts read back from their bits, upper bounds).

Each builder returns a :class:`~streamplace.schedulers.milp.Milp` for HiGHS; the schedulers solve and judge.
Kept apart from the schedulers so that they depend on it, not on each other (hetero used to import optimal,
which imports hetero).
"""

from __future__ import annotations

import itertools

import numpy as np

from streamplace.model.topology import Topology
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.milp import Milp

S_CAP = 1e9  # an upper bound on the scale where nothing else bounds it


def bits(k: int) -> int:
    """Binary digits that encode a count of at most ``k``."""
    return max(1, int(k).bit_length())


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
        for u in map(int, np.flatnonzero(model.allowed[i])):
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
        for u in map(int, np.flatnonzero(model.allowed[i])):
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
