"""Starts for max-throughput that give each operator every machine of one group, the same replica count on each.

Where a cluster has several identical machines of a type (Nasiri et al.'s Table 4 scenarios: 2, 4 or 8 of
each), the optima of the throughput model spread an operator evenly over the machines of one type: with the
even split every replica of an operator receives the same rate, so spreading one over machines of different
speeds idles the fast ones, and a machine of the type left out would carry less than its peers. The optimum of
nasiri-large × Diamond, for one, puts `high` and `mid` on the eight Core i5s, `join` and the spout on the Core
i3s and `low` on the Pentiums (with two or three replicas moved to free one machine for another operator's
extra replicas). A single-replica climb does not reach such a plan from the LP's or hetero's: moving an operator
to another type changes its replica count and every one of its replicas' rates at once.

Within that family a plan is one choice per operator — a group g and a count c (c · |g| ≤ k_i replicas) — and
every machine of a group carries the same load, so a plan's scale is computed per group, not per machine:

    scale = min over groups g of (cap_g − Σ_i c_i·MET_ig) / Σ_i (λ_i·r_ig / |g| + c_i·λall_i·r_ig)

(the operators i placed on g; and, under one thread per replica, each replica's (100 − MET) / (its rate · r)).
Where only the machine caps a replica, c = 1 scores best — a machine's share of the rate is λ_i / |g| whatever
c is, and each further replica adds MET and its copy of any broadcast input — but plans with c = 2 are kept
among the choices (``max_per_node``): as starts they lead the search elsewhere (with c = 1 only, 2 of
max_throughput_gap.py's 36 instances gained 0.66–0.79 % and nasiri-medium × RollingCount lost 4.0 %).
A beam search places the operators in decreasing order of work, keeping the ``beam`` partial plans of highest
scale (a partial plan's scale bounds every completion's from above: operators only add load); where the
plans number at most ``beam`` it is exhaustive (nasiri-large: three types of eight machines, k = 10, so one
replica per machine: 3⁵ = 243). The best ``top`` complete plans that fit memory and the per-node replica cap
are returned, in node space, for the population search to refine.

Complexity: O(ops · beam · options · groups) arithmetic, options = Σ_g ⌊k_i / |g|⌋ capped at ``max_per_node``
per group — vectorized per operator.
"""

from __future__ import annotations

import numpy as np

from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.capacity import S_CAP
from streamplace.schedulers.throughput_search import node_groups


def uniform_starts(model: ThroughputModel, k: np.ndarray, top: int = 4, beam: int = 256,
                   max_per_node: int = 2) -> list[np.ndarray]:
    """Up to ``top`` count matrices (ops × nodes), best first, each giving every operator ``c`` replicas on every
    machine of one group of identical machines (module docstring). Empty where no such plan fits (an operator
    pinned to some machines of a group only, memory, or the per-node replica cap)."""
    n_ops, n_nodes = model.e.shape
    groups = node_groups(model)
    n_groups = int(groups.max()) + 1
    first = np.array([int(np.flatnonzero(groups == g)[0]) for g in range(n_groups)])  # a representative node
    size = np.bincount(groups, minlength=n_groups).astype(float)
    cap, met = model.cap[first], model.met[:, first]  # (G,), (ops, G)
    r = model.rate_cost[:, first]
    tp = model.thread_points[first]
    memory, slots = model.node_memory[first], model.slots[first]
    # per operator, its options (group, count per machine)
    options = []
    for i in range(n_ops):
        opts = [(g, c) for g in range(n_groups) if model.allowed[i, groups == g].all()
                for c in range(1, max_per_node + 1) if c * size[g] <= k[i]]
        if not opts:
            return []
        options.append(np.array(opts, dtype=np.int64))
    work = model.lam_one * np.where(model.allowed, model.rate_cost, np.inf).min(axis=1)
    order = np.argsort(-np.where(np.isfinite(work), work, 0.0), kind="stable")
    # a partial plan per beam row: MET points, rate points per unit scale, memory and replicas per machine of each
    # group, its thread-limited scale, and its choices
    fixed = np.zeros((1, n_groups))
    rate = np.zeros((1, n_groups))
    mem = np.zeros((1, n_groups))
    reps = np.zeros((1, n_groups))
    thread_s = np.full(1, np.inf)
    chosen = np.zeros((1, n_ops), dtype=np.int64)
    for i in order:
        opts = options[i]
        g, c = opts[:, 0], opts[:, 1]
        onehot = (np.arange(n_groups)[None, :] == g[:, None]).astype(float)  # (O, G)
        per_replica = model.lam[i] / (c * size[g]) + model.lam_all[i]  # tuples/s at scale 1
        add_rate = onehot * (model.lam[i] / size[g] + c * model.lam_all[i])[:, None] * r[i][None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            opt_thread = np.where(per_replica * r[i, g] > 0, (tp[g] - met[i, g]) / (per_replica * r[i, g]), np.inf)
        f2 = (fixed[:, None, :] + onehot[None] * (c * met[i, g])[:, None][None]).reshape(-1, n_groups)
        a2 = (rate[:, None, :] + add_rate[None]).reshape(-1, n_groups)
        m2 = (mem[:, None, :] + onehot[None] * (c * model.memory[i])[:, None][None]).reshape(-1, n_groups)
        n2 = (reps[:, None, :] + onehot[None] * c[:, None][None]).reshape(-1, n_groups)
        t2 = np.minimum(thread_s[:, None], opt_thread[None, :]).ravel()
        budget = cap[None] - f2
        with np.errstate(divide="ignore", invalid="ignore"):
            group_s = np.where(a2 > 0, budget / a2, np.where(budget < -1e-9, -1.0, np.inf))
        scale = np.minimum(group_s.min(axis=1), t2)
        ok = (budget >= -1e-9).all(axis=1) & (m2 <= memory[None] + 1e-9).all(axis=1) & (n2 <= slots[None]).all(axis=1)
        scale = np.where(ok, np.minimum(scale, S_CAP), -1.0)
        keep = np.argsort(-scale, kind="stable")[:beam]
        keep = keep[scale[keep] >= 0]
        if len(keep) == 0:
            return []
        parent, choice = keep // len(opts), keep % len(opts)
        fixed, rate, mem, reps, thread_s = f2[keep], a2[keep], m2[keep], n2[keep], t2[keep]
        chosen = chosen[parent].copy()
        chosen[:, i] = choice
    out = []
    for row in chosen[:top]:
        counts = np.zeros((n_ops, n_nodes), dtype=np.int64)
        for i in range(n_ops):
            g, c = options[i][row[i]]
            counts[i, groups == g] = c
        if model.fits(counts):
            out.append(counts)
    return out
