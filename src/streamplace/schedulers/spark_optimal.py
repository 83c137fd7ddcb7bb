"""``optimal`` under ``--engine spark``: replica counts and placement maximizing the Spark model's capacity.

The ``spark`` engine (perf/engines/spark.py) sustains any scale s with s·W < 1,
W being the per-tuple work of one micro-batch per unit of scale and second of
data, so the most throughput is the plan with the least W. For a plan W is the
longest source-to-sink path of *stage times*: operator i's stages (one per node
it is placed on) run side by side on their nodes, so its time is the slowest of
them, and a stage of w replicas on a node of k slots runs ⌈w/k⌉ waves of tasks,
each handling i's input / n_i tuples.

MILP (HiGHS), per operator i, node u and replica count n ≤ k_i:

* y_in ∈ {0, 1}, Σ_n y_in = 1 (one count per operator);
* w_iun ∈ ℤ≥0, Σ_u w_iun = n·y_in, w_iun = 0 where i may not run on u;
* z_iun ∈ ℤ≥0 waves, k_u·z_iun ≥ w_iun (at most n·y_in);
* t_i ≥ Σ_n z_iun · d_iun for every u, d_iun = (λ_split_i / n + λ_all_i) · (e_iu + h_i) / (1000 · v_u · share_u)
  seconds per unit (share_u: what Spark's own threads leave of a full node, as in the engine);
* path potentials T_j ≥ T_i + t_j along the streams, T_source ≥ t_source; W ≥ T_sink;
* memory Σ_i mem_i Σ_n w_iun ≤ memory_u, and tasks per node when given;
* minimize W.

Two simplifications, both conservative and undone by the engine's evaluation
of the plan afterwards: every stage pays the full-node share, and operators on
parallel branches do not share a node's slots. Cost: (operators × nodes × k)
integer columns; the DEBS and Nasiri et al. 2023 instances solve in well under a second.
"""

from __future__ import annotations

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.cells import cost_tables
from streamplace.perf.engines import EngineSettings
from streamplace.perf.rates import OperatorRates, operator_rates
from streamplace.schedulers.milp import Milp, MilpResult


def stage_costs(topology: Topology, cluster: Cluster, profile: Profile | None, engine: EngineSettings
                ) -> tuple[OperatorRates, np.ndarray, np.ndarray, np.ndarray]:
    """(operator rates, ms of work per tuple of operator i on node u, per-node divisor, slots per node): the stage
    model above — task time per tuple is (e_iu + h_i) / (1000 · v_u · share_u), h_i the per-tuple hop, source and
    sink costs; numerator and divisor apart so callers divide after scaling, as the MILP always has."""
    consts = engine.spark.constants
    rates = operator_rates(topology, profile)
    e, _ = cost_tables(topology, cluster, profile)
    cores = np.maximum(cluster.cpu / 100.0, 1e-9)
    slots = np.maximum(1, np.ceil(cores - 1e-9)).astype(int)
    speed = cores / slots
    share = np.clip((slots * speed - consts.jvm_cores) / (slots * speed), 0.05, 1.0)
    sources = np.array([op.is_source for op in topology.operators])
    outputs = np.array([not topology.successors(op.id) for op in topology.operators])
    hop_us = np.where(sources, consts.source_us, consts.hop_us) + np.where(outputs,
                                                                           consts.sink_us * rates.selectivity, 0.0)
    return rates, e + hop_us[:, None] / 1000.0, 1000.0 * speed * share, slots


def spark_capacity_milp(topology: Topology, cluster: Cluster, profile: Profile | None, engine: EngineSettings,
                        k: np.ndarray, tasks_per_node: int | None = None
                        ) -> tuple[Milp, dict[tuple[int, int, int], int]]:
    """The MILP above and, per (operator, node, count), the column of w_iun."""
    rates, work_ms, divisor, slots = stage_costs(topology, cluster, profile, engine)
    mask = allowed_mask(topology, cluster)
    idx = topology.index
    outputs = {idx[o.id] for o in topology.operators if not topology.successors(o.id)}
    n_ops, n_nodes = work_ms.shape
    milp = Milp(maximize=False)
    w_col: dict[tuple[int, int, int], int] = {}
    stage_t = [milp.var(0.0) for _ in range(n_ops)]
    node_mem: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    node_tasks: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
    for i, op in enumerate(topology.operators):
        ys = []
        waves: list[list[tuple[int, float]]] = [[] for _ in range(n_nodes)]
        for n in range(1, int(k[i]) + 1):
            y = milp.binary()
            ys.append((y, 1.0))
            per_replica = float(rates.input_split[i]) / n + float(rates.input_all[i])
            placed = [(y, -float(n))]
            for u in map(int, np.flatnonzero(mask[i])):
                w = milp.var(0.0, float(n), integer=True)
                z = milp.var(0.0, float(n), integer=True)
                w_col[(i, u, n)] = w
                placed.append((w, 1.0))
                milp.row([(w, 1.0), (y, -float(n))], hi=0.0)  # w ≤ n·y
                milp.row([(z, float(slots[u])), (w, -1.0)], lo=0.0)  # k_u·z ≥ w
                milp.row([(z, 1.0), (y, -float(n))], hi=0.0)
                d = per_replica * float(work_ms[i, u]) / float(divisor[u])
                waves[u].append((z, d))
                node_mem[u].append((w, op.memory_mb))
                node_tasks[u].append((w, 1.0))
            milp.row(placed, lo=0.0, hi=0.0)  # Σ_u w_iun = n·y_in
        milp.row(ys, lo=1.0, hi=1.0)
        for u in range(n_nodes):
            if waves[u]:
                milp.row([(stage_t[i], 1.0)] + [(z, -d) for z, d in waves[u]], lo=0.0)
    for u in range(n_nodes):
        if node_mem[u]:
            milp.row(node_mem[u], hi=float(cluster.memory[u]))
        if tasks_per_node is not None and node_tasks[u]:
            milp.row(node_tasks[u], hi=float(tasks_per_node))
    potential = [milp.var(0.0) for _ in range(n_ops)]
    total = milp.var(0.0, cost=1.0)
    forward = topology.forward_graph
    for i, op in enumerate(topology.operators):
        preds = list(forward.predecessors(op.id))
        if not preds:
            milp.row([(potential[i], 1.0), (stage_t[i], -1.0)], lo=0.0)
        for p in preds:
            milp.row([(potential[i], 1.0), (potential[idx[p]], -1.0), (stage_t[i], -1.0)], lo=0.0)
        if i in outputs:
            milp.row([(total, 1.0), (potential[i], -1.0)], lo=0.0)
    return milp, w_col


def counts_from(result: MilpResult, w_col: dict[tuple[int, int, int], int], shape: tuple[int, int]) -> np.ndarray:
    counts = np.zeros(shape, dtype=int)
    assert result.x is not None
    for (i, u, _), col in w_col.items():
        counts[i, u] += round(float(result.x[col]))
    return counts
