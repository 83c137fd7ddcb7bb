"""A sweep: every (topology × cluster × scheduler × rate scale × seed) instance planned and predicted (pure).

The grid is the cartesian product of its axes; ``scale`` multiplies every
source's offered rate, ``seed`` goes to schedulers that draw random numbers (the
others ignore it, so give one seed for them). ``evaluate_instance`` plans one
instance and returns one flat row of the model's predictions — the same
numbers ``streamplace compare`` shows — or the reason it could not
(incompatible specs, a scheduler refusing the instance). Rows carry only
plain values so they fit a Parquet schema (``ROW_SCHEMA``).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from streamplace.errors import StreamplaceError
from streamplace.model.cluster import Cluster, check_compatible
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, engine_or_ideal
from streamplace.schedulers.base import REGISTRY, create

ROW_SCHEMA = (
    ("topology", "string"), ("cluster", "string"), ("scheduler", "string"), ("scale", "double"), ("seed", "int"),
    ("status", "string"), ("offered", "double"), ("throughput", "double"), ("delivered", "double"),
    ("latency_ms", "double"), ("cost_per_hour", "double"), ("nodes_used", "int"), ("replicas", "int"),
    ("max_utilization", "double"), ("mean_utilization", "double"), ("inter_node_traffic", "double"),
    ("planning_ms", "double"), ("wall_ms", "double"), ("error", "string"), ("engine", "string"),
)
META = "_sweep.json"  # beside a sweep's Parquet rows: axes, instance count, timing
PREDICTED = {"offered": "offered_throughput", "throughput": "throughput", "delivered": "delivered_throughput",
             "latency_ms": "latency_ms", "cost_per_hour": "cost_per_hour", "max_utilization": "max_utilization",
             "mean_utilization": "mean_utilization", "inter_node_traffic": "inter_node_traffic"}


@dataclass(frozen=True)
class Instance:
    topology: str
    cluster: str
    scheduler: str
    scale: float = 1.0
    seed: int = 0


def grid(topologies: Sequence[str], clusters: Sequence[str], schedulers: Sequence[str],
         scales: Sequence[float] = (1.0,), seeds: Sequence[int] = (0,)) -> list[Instance]:
    """Every combination, in a stable order (topology, cluster, scheduler, scale, seed)."""
    return [Instance(*combo) for combo in itertools.product(topologies, clusters, schedulers, scales, seeds)]


def scaled(topology: Topology, scale: float) -> Topology:
    """The topology with every source's offered rate × ``scale``."""
    if scale == 1.0:
        return topology
    ops = tuple(dataclasses.replace(op, rate=(op.rate or 0.0) * scale) if op.is_source else op
                for op in topology.operators)
    return Topology(topology.name, ops, topology.streams)


def evaluate_instance(inst: Instance, topology: Topology, cluster: Cluster,
                      params: dict[str, str] | None = None, engine: EngineSettings | None = None,
                      engine_params: dict[str, str] | None = None) -> dict[str, Any]:
    """One row: the scheduler's plan for the instance and ``engine``'s predictions for it (None: ideal), with the
    cluster spec's engine block applied under the command line's ``engine_params``."""
    row: dict[str, Any] = {name: None for name, _ in ROW_SCHEMA}
    row.update(topology=inst.topology, cluster=inst.cluster, scheduler=inst.scheduler, scale=float(inst.scale),
               seed=int(inst.seed), engine=engine_or_ideal(engine).name)
    started = time.perf_counter()
    try:
        problems = check_compatible(topology, cluster)
        if problems:
            raise StreamplaceError("; ".join(str(p) for p in problems))
        kw = dict(params or {})
        if "seed" in {f.name for f in dataclasses.fields(REGISTRY[inst.scheduler])}:
            kw.setdefault("seed", str(inst.seed))
        if engine is not None and cluster.engine_params:  # the spec's engine block, then the command line's
            engine = engine.with_params(cluster.engine_params, f"{cluster.name}: engine").with_params(
                engine_params or {})
        plan = create(inst.scheduler, kw).plan(scaled(topology, inst.scale), cluster, engine=engine)
        row["status"] = plan.status
        row["planning_ms"] = float(plan.planning_ms)
        if plan.replicas and plan.status != "infeasible":  # an infeasible plan's placement is not a result
            row["nodes_used"] = len(plan.nodes_used())
            row["replicas"] = int(plan.total_replicas())
        for col, key in PREDICTED.items():
            value = plan.predicted.get(key)
            row[col] = float(value) if isinstance(value, int | float) else None
        if plan.status == "infeasible":
            row["error"] = "; ".join(plan.explanation)
    except (StreamplaceError, ValueError) as exc:
        row["status"] = "refused"
        row["error"] = str(exc)
    row["wall_ms"] = 1000 * (time.perf_counter() - started)
    return row


def chunks(items: Sequence[Any], n: int) -> Iterator[list[Any]]:
    """``items`` in ``n`` nearly equal consecutive parts (none empty)."""
    n = max(1, min(n, len(items)))
    size, extra = divmod(len(items), n)
    start = 0
    for k in range(n):
        end = start + size + (1 if k < extra else 0)
        yield list(items[start:end])
        start = end
