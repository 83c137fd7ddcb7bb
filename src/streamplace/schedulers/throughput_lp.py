"""max-throughput's LP upper bound (schedulers/max_throughput.py, step 1), over classes of identical nodes.

The LP: y_iu ≥ 0, the tuples/s of operator i processed on node u, and the scale s, maximizing s subject to

* Σ_u y_iu ≥ λ_i·s                       (every operator's input is processed)
* Σ_i w_iu·y_iu ≤ cap_u                  (node CPU, w = r + MET·t: points per tuple/s, fixed overheads included)
* Σ_u t_iu·y_iu ≤ k_i                    (at most k_i replicas; t = r / (points per replica − MET): threads per
                                          tuple/s)
* Σ_i mem_i·t_iu·y_iu ≤ memory_u and Σ_i t_iu·y_iu ≤ k_j  (node memory, at most k_j replicas on a node)

Its optimum bounds every plan's scale from above (max_throughput.py says why).

**By class of node.** Nodes with the same column of every table the LP reads — r, MET and allowed for every
operator, capacity, memory, replica cap, points per replica (``node_classes``; on a rack cluster of one machine
kind: every node) — are interchangeable in it. So the LP is solved once over classes: Y_iC the flow of i on the
nodes of class C, each node row's right-hand side times the class's size n_C (``lp_bound``). It has the same
optimum: a per-node solution summed over each class is feasible for the class LP (its rows are sums of the
node rows), and a class solution split evenly over the class's nodes (y_iu = Y_iC / n_C) is feasible for the
per-node LP (each node row is the class row divided by n_C), at the same s. The class solution is then dealt to
the class's nodes (``deal``) as a per-node optimum for the starts that round it (max_throughput.round_flows):
operators in index order fill the class's nodes in index order, each node up to the binding one of its three
rows — as a vertex of the per-node LP does, an operator on as few nodes as its flow needs, not a sliver of every
node (rounding a sliver per node would put a replica, and its fixed overhead, of every operator on every node).
Where the rows bind for different operators so that filling needs more nodes than the class has, the even split
is dealt instead (always feasible). Either deal is an optimal solution of the per-node LP. It is not the vertex
HiGHS would return for the per-node LP, so the rounded starts differ from the per-node LP's, and the search may
end at another plan: on the 36 instances of benchmarks/max_throughput_gap.py under both replica caps (72 plans)
the class LP changed 12 plans, all under the machine cap: one 0.035 % higher in throughput (nasiri-medium ×
Diamond), eleven equal — one with only nodes of a class swapped, ten with other spreads or replica totals. So
max-throughput keeps the per-node LP (``lp_bound_per_node``, the same LP as before, the same plans) up to its
``lp_node_columns`` operator × node columns and solves by class above, where the per-node LP is what costs:
with it max-throughput took 2.4 s end to end at 1,000 nodes (45 × 1,000 columns) and 97 s at 10,000 (45 ×
10,000), the same plans' throughput as by class (docs/measurements.md, issue 56).

Complexity: classes in O(ops·nodes) (a constant table row costs one comparison per node; rows that vary are
sorted: O(nodes·log nodes·varying)); the LP has ops × classes columns and 2·ops + 3·classes rows (was ops ×
nodes and 2·ops + 3·nodes); the deal O(ops·classes + nodes + pieces), pieces ≤ (ops·classes + nodes used) — and
the dense (ops, nodes) flows it returns.
"""

from __future__ import annotations

import numpy as np

from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.capacity import S_CAP
from streamplace.schedulers.milp import solve_lp

#: relative slack of the deal: a class's filled nodes may exceed its size by this much of a node (the solver's
#: tolerance) before the even split is dealt instead
DEAL_SLACK = 1e-6


def node_classes(per_op: list[np.ndarray], per_node: list[np.ndarray]) -> np.ndarray:
    """Per node, the id of its class: nodes with equal columns of every (ops, nodes) table in ``per_op`` and
    equal entries of every (nodes,) array in ``per_node``. The ids are ``np.unique``'s over the stacked columns
    (classes in the lexicographic order of their columns), computed from the rows that vary only: a row equal
    across all nodes orders and separates nothing."""
    n_nodes = len(per_node[0]) if per_node else per_op[0].shape[1]
    varying = [table[~(table == table[:, :1]).all(axis=1)].T for table in per_op] \
        + [a[:, None] for a in per_node if not (a == a[0]).all()]
    varying = [v for v in varying if v.shape[1]]
    if not varying or n_nodes == 0:
        return np.zeros(n_nodes, dtype=np.intp)
    columns = np.column_stack([np.asarray(v, dtype=float) for v in varying])
    return np.unique(columns, axis=0, return_inverse=True)[1].ravel()


def _points(model: ThroughputModel, replica_points: np.ndarray | None) -> np.ndarray:
    return model.thread_points if replica_points is None else replica_points


def model_classes(model: ThroughputModel, replica_points: np.ndarray | None = None) -> np.ndarray:
    """``node_classes`` of everything the LP reads of a node (points per replica: ``replica_points`` where
    given)."""
    return node_classes([model.rate_cost, model.met, model.allowed],
                        [model.cap, model.node_memory, _points(model, replica_points), model.slots])


def solve_columns(model: ThroughputModel, k: np.ndarray, cols: np.ndarray, size: np.ndarray,
                  replica_points: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The LP over the given columns: ``cols`` (C,) nodes standing for their class, ``size`` (C,) how many nodes
    each stands for (every node row's right-hand side times it). Returns the scale (inf where HiGHS finds no
    optimum), the flows Y (ops, C) and per column the ops' threads per tuple/s t (ops, C; 0 where unusable)."""
    n_ops, n_cols = model.e.shape[0], len(cols)
    lam = model.lam + model.lam_all
    rate, met, tp = model.rate_cost[:, cols], model.met[:, cols], replica_points[cols]
    usable = model.allowed[:, cols] & (met < tp[None, :])
    ii, uu = np.nonzero(usable)
    n_y = len(ii)
    t = np.zeros((n_ops, n_cols))
    if n_y == 0:
        return 0.0, np.zeros((n_ops, n_cols)), t
    threads = rate[ii, uu] / (tp[uu] - met[ii, uu])  # threads per tuple/s: replicas needed
    t[ii, uu] = threads
    weight = rate[ii, uu] + met[ii, uu] * threads  # node points per tuple/s, MET included
    # rows: λ_i·s − Σ_u y_iu ≤ 0 (ops); Σ_i w_iu·y_iu ≤ cap_u (nodes); Σ_u t_iu·y_iu ≤ k_i (ops: at most k_i
    # replicas); Σ_i mem_i·t_iu·y_iu ≤ memory_u (nodes); Σ_i t_iu·y_iu ≤ k_j (nodes: at most k_j replicas)
    y = np.arange(n_y)
    base = 2 * n_ops + 2 * n_cols
    rows = np.concatenate([ii, n_ops + uu, n_ops + n_cols + ii, 2 * n_ops + n_cols + uu, base + uu,
                           np.arange(n_ops)])
    columns = np.concatenate([y, y, y, y, y, np.full(n_ops, n_y)])
    vals = np.concatenate([-np.ones(n_y), weight, threads, model.memory[ii] * threads, threads, lam])
    n_rows = base + n_cols
    slots = model.slots[cols]
    b_ub = np.concatenate([np.zeros(n_ops), model.cap[cols] * size, k.astype(float), model.node_memory[cols] * size,
                           np.where(np.isfinite(slots), slots * size, 1e30)])
    cost = np.zeros(n_y + 1)
    cost[-1] = 1.0
    upper = np.r_[np.full(n_y, np.inf), S_CAP]
    res = solve_lp(cost, rows, columns, vals, np.full(n_rows, -np.inf), b_ub, np.zeros(n_y + 1), upper,
                   maximize=True)
    if res.status != "optimal" or res.x is None:
        return float("inf"), np.zeros((n_ops, n_cols)), t
    flows = np.zeros((n_ops, n_cols))
    flows[ii, uu] = res.x[:n_y]
    return float(res.x[-1]), flows, t


def lp_bound_per_node(model: ThroughputModel, k: np.ndarray,
                      replica_points: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """The LP with a column per operator and node (ops × nodes): the optimum and HiGHS's flows (ops, nodes)."""
    n_nodes = model.e.shape[1]
    scale, flows, _ = solve_columns(model, k, np.arange(n_nodes), np.ones(n_nodes), _points(model, replica_points))
    return scale, flows


def lp_bound(model: ThroughputModel, k: np.ndarray,
             replica_points: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """The LP's optimal scale (an upper bound on every plan's) and an optimal per-node solution (ops, nodes,
    tuples/s), solved over classes of identical nodes (ops × classes columns) and dealt to their nodes (module
    docstring). ``replica_points`` (nodes,): the most points one replica uses, by default the model's (100 for
    one thread, inf where only the machine caps it: then no replica count, and no fixed overhead, enters). Any
    finite cap that holds is valid — a replica never exceeds its machine, so under the machine cap c_iu ≥ y_iu·r_iu
    / (cap_u − MET_iu) replicas pay MET_iu each: on the authors' data the bound drops from 13–41 % above the best
    plan found to 7–25 %."""
    tp = _points(model, replica_points)
    classes = model_classes(model, tp)
    n_classes = int(classes.max()) + 1 if len(classes) else 0
    rep = np.zeros(n_classes, dtype=np.intp)
    rep[classes[::-1]] = np.arange(len(classes))[::-1]  # the first node of each class
    size = np.bincount(classes, minlength=n_classes).astype(float)
    scale, flows, threads = solve_columns(model, k, rep, size, tp)
    return scale, deal(model, flows, threads, classes, rep, size)


def deal(model: ThroughputModel, flows: np.ndarray, threads: np.ndarray, classes: np.ndarray, rep: np.ndarray,
         size: np.ndarray) -> np.ndarray:
    """The class flows Y (ops, classes) dealt to the nodes (ops, nodes): in each class, operators in index order
    fill its nodes in index order, each node to the first of its rows to bind (CPU, memory, replicas) — the
    fraction of a node one tuple/s of i takes is the largest of its three shares; where that needs more nodes than
    the class has (rows binding for different operators), the even split Y / n_C on every node of the class.
    Both are feasible for the per-node LP at the class solution's scale (module docstring)."""
    n_ops, n_nodes = flows.shape[0], len(classes)
    out = np.zeros((n_ops, n_nodes))
    ii, cc = np.nonzero(flows > 0)
    if not len(ii):
        return out
    order = np.lexsort((ii, cc))  # by class, then operator
    ii, cc = ii[order], cc[order]
    u = rep[cc]
    rate, met = model.rate_cost[ii, u], model.met[ii, u]
    weight = rate + met * threads[ii, cc]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.fmax(np.fmax(np.where(weight > 0, weight / model.cap[u], 0.0),
                                np.where(threads[ii, cc] > 0, model.memory[ii] * threads[ii, cc]
                                         / model.node_memory[u], 0.0)),
                        np.where(threads[ii, cc] > 0, threads[ii, cc] / model.slots[u], 0.0))
    share = np.nan_to_num(share, nan=0.0, posinf=0.0)
    units = share * flows[ii, cc]  # nodes' worth of class cc that i's flow fills
    ends = np.cumsum(units)
    first = np.r_[True, cc[1:] != cc[:-1]]
    offset = np.maximum.accumulate(np.where(first, ends - units, 0.0))  # the class's cumulative sum so far
    ends = ends - offset
    starts = ends - units
    total = np.zeros(len(size))
    np.maximum.at(total, cc, ends)
    fits = total <= size * (1 + DEAL_SLACK) + DEAL_SLACK
    members = np.argsort(classes, kind="stable")  # the nodes of each class in index order, class after class
    begin = np.r_[0, np.cumsum(size.astype(np.int64))[:-1]]
    filled = fits[cc] & (units > 0)
    if filled.any():
        _fill(out, ii[filled], cc[filled], starts[filled], ends[filled], share[filled], size, members, begin)
    spread = ~fits[cc] | (units <= 0)  # the even split (also a flow that costs no node: share 0)
    for i, c in zip(ii[spread].tolist(), cc[spread].tolist(), strict=True):
        nodes = members[begin[c]:begin[c] + int(size[c])]
        out[i, nodes] += flows[i, c] / size[c]
    return out


def _fill(out: np.ndarray, ii: np.ndarray, cc: np.ndarray, starts: np.ndarray, ends: np.ndarray,
          share: np.ndarray, size: np.ndarray, members: np.ndarray, begin: np.ndarray) -> None:
    """Write each operator's interval [start, end) of its class's node line (in nodes) to the nodes it covers:
    node j of the class takes the overlap of [j, j + 1) with it, divided by the share per tuple/s. Ends within
    the solver's tolerance of a whole node are snapped to it (no sliver on the next node); the last node of a
    class takes what its tolerance leaves over."""
    whole = np.round(starts)
    starts = np.where(np.abs(starts - whole) <= DEAL_SLACK, whole, starts)
    whole = np.round(ends)
    ends = np.where(np.abs(ends - whole) <= DEAL_SLACK, whole, ends)
    last = size[cc].astype(np.int64) - 1
    lo = np.minimum(np.floor(starts).astype(np.int64), last)
    hi = np.maximum(np.minimum(np.ceil(ends).astype(np.int64) - 1, last), lo)
    count = hi - lo + 1
    piece = np.repeat(np.arange(len(ii)), count)
    j = lo[piece] + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    left = np.maximum(starts[piece], j)
    right = np.where(j == last[piece], ends[piece], np.minimum(ends[piece], j + 1))
    amount = np.maximum(right - left, 0.0) / share[piece]
    np.add.at(out, (ii[piece], members[begin[cc[piece]] + j]), amount)
