"""Several topologies on one cluster, each at its own rate: max-min fair shares of the nodes, NICs and uplinks.

:func:`~streamplace.perf.evaluate.evaluate` scales every source of a topology by
one factor. Topologies scheduled side by side (R-Storm's multi-topology runs,
Peng et al. 2015 §6.5) do not share one factor: each offers its own source
rates, and where a node, NIC or rack uplink that both use saturates, they
share it. This module gives each topology t its own scale s_t by progressive
filling: all scales rise together (as fractions of each topology's offered
rates); when a shared resource fills, the topologies that load it stop there;
the others keep rising. The result is the max-min fair allocation of the
scales — what every topology gets when none can grow without shrinking one
that has less. Each topology's own limits (a replica's thread, flow control)
cap its scale as they do alone.

Every load is affine in each topology's scale (node CPU A_tu·s_t + B_tu, NIC and
uplink traffic T_tu·s_t; storm's serialization CPU adds to A), so a round is a
minimum of ratios; at most one round per topology: O(T·(nodes + racks)).

What it cannot show: a topology *starving* to nothing because another
overloads a shared node. Fair sharing never gives a topology less than its
fair share; Storm without flow control can (queues grow, tuples time out and
are replayed, goodput collapses), which needs a model of overload over time —
the simulator's business, not a steady-state capacity model's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.capacity import node_loads
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import Evaluation, evaluate


@dataclass(frozen=True)
class SharedResult:
    """Per topology (in the order given): its scale of the offered rates, its sink throughput there, and what
    stopped it (a shared resource, or its own limit alone)."""

    scales: tuple[float, ...]
    throughputs: tuple[float, ...]
    bound_by: tuple[str, ...]
    alone: tuple[Evaluation, ...]


def evaluate_together(topologies: Sequence[Topology], plans: Sequence[Plan], cluster: Cluster,
                      profiles: Sequence[Profile | None] | None = None,
                      engine: EngineSettings | None = None) -> SharedResult:
    """Max-min fair scales of topologies that share ``cluster`` (ideal or storm engine: loads add up; the spark
    engine runs one query per topology whose batches do not add this way and is refused)."""
    if engine is not None and engine.model.micro_batches:
        raise ValueError("evaluate_together: the spark engine's batches do not add up across queries; "
                         "use the ideal or storm engine")
    if len(topologies) != len(plans):
        raise ValueError(f"evaluate_together: {len(topologies)} topologies but {len(plans)} plans")
    profiles = list(profiles) if profiles is not None else [None] * len(topologies)
    alone = [evaluate(t, cluster, p, prof, engine=engine) for t, p, prof in zip(topologies, plans, profiles,
                                                                                strict=True)]
    limit = cluster.utilization_limit
    rows, caps = [], []  # rows: per topology, its load per unit of scale on every shared resource
    fixed = np.zeros(len(cluster))
    for t, ev in zip(topologies, alone, strict=True):
        loads = node_loads(ev.cells, np.array([op.memory_mb for op in t.operators], dtype=float))
        cpu = loads.cpu_rate.copy()
        for node, points in ev.engine_detail.get("serialization_points", {}).items():
            cpu[cluster.index[node]] += points
        fixed += loads.cpu_fixed
        s = ev.streams
        rows.append(np.concatenate([cpu, s.node_out, s.node_in, s.rack_out, s.rack_in]))
        caps.append(ev.sustainable_scale)
    uplink = np.full(len(cluster.racks), cluster.rack_uplink_bytes)
    capacity = np.concatenate([limit * cluster.cpu - fixed, cluster.bandwidth_bytes, cluster.bandwidth_bytes,
                               uplink, uplink])
    names = ([f"cpu of {n}" for n in cluster.ids] + [f"NIC of {n} (out)" for n in cluster.ids]
             + [f"NIC of {n} (in)" for n in cluster.ids] + [f"uplink of {r} (out)" for r in cluster.racks]
             + [f"uplink of {r} (in)" for r in cluster.racks])
    a = np.array(rows)  # topologies × resources
    scales = np.zeros(len(topologies))
    bound = ["" for _ in topologies]
    active = np.ones(len(topologies), dtype=bool)
    while active.any():
        used = a[~active].T @ scales[~active] if (~active).any() else np.zeros(a.shape[1])
        rising = a[active].sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(rising > 0, (capacity - used) / rising, np.inf)
        room = np.maximum(room, 0.0)
        r = int(np.argmin(room)) if room.size else -1
        theta = float(room[r]) if r >= 0 else np.inf
        own = np.where(active, np.array(caps), np.inf)
        t_own = int(np.argmin(own))
        if own[t_own] <= theta:  # a topology's own limit comes first: it stops alone
            scales[t_own], bound[t_own], active[t_own] = own[t_own], "its own limit alone", False
            continue
        if not np.isfinite(theta):
            scales[active] = np.inf
            for k in np.flatnonzero(active):
                bound[k] = "nothing"
            break
        stop = active & (a[:, r] > 0)
        scales[stop] = theta
        for k in np.flatnonzero(stop):
            bound[k] = names[r]
        active &= ~stop
    throughputs = tuple(ev.offered_throughput * float(s) for ev, s in zip(alone, scales, strict=True))
    return SharedResult(tuple(float(x) for x in scales), throughputs, tuple(bound), tuple(alone))
