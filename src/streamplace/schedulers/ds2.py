"""``ds2``: DS2-style rate-based parallelism (Kalavri et al., OSDI 2018), the algorithm behind Flink's autoscaler.

DS2 sizes each operator from *true* processing rates — tuples/s one replica
processes while busy — rather than from observed backlog. In one pass over
the DAG in topological order, operator i must ingest the target output rate
of its upstream operators, λ_i = Σ_j α_j λ_j (sources: their target rate),
and gets π_i = ⌈λ_i / (true_rate_i · target_utilization)⌉ replicas (capped by
k_i). DS2 itself sizes to full utilization; the default target of 0.7 is
Flink's autoscaler's (``job.autoscaler.utilization.target``) and keeps
queues finite — set 1.0 for DS2's own rule. True rates come from ``true_rates`` (measured, e.g. by the Spark
runtime) or from the model: a thread's capacity (100 − MET)·10/e on the
nodes it may use — the slowest (``rate_basis=min``, the default, so the
target holds wherever the placer puts a replica), the mean or the fastest.

Placement is delegated to another scheduler (``placer``, default ``ffd``),
with each replica's declared CPU set to what it will really use at the
target rate, so resource-aware placers pack by the true demand.
Complexity: O(V + E) for the sizing plus the placer's cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from streamplace.errors import SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.cells import cost_tables, replica_capacity
from streamplace.perf.engines import EngineSettings
from streamplace.perf.rates import operator_rates
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, create, register

# per rate_basis: a replica's true rate from its rates on the nodes it may use, and the per-tuple cost (e, MET)
# that goes with it (the min rate ↔ the max cost)
_RATE_OF: dict[str, Callable[[np.ndarray], Any]] = {"mean": np.mean, "min": np.min, "max": np.max}
_COST_OF: dict[str, Callable[[np.ndarray], Any]] = {"mean": np.mean, "min": np.max, "max": np.min}


@register
@dataclass(frozen=True)
class DS2(BaseScheduler):
    """Rate-based parallelism, then a placer."""

    name = "ds2"
    summary = "DS2 (Kalavri et al. 2018): least parallelism from true processing rates, then a placer"
    chooses_parallelism = True

    target_scale: float = 1.0  # multiple of the topology's offered source rates to sustain
    target_utilization: float = 0.7  # size replicas to run at most this busy (Flink autoscaler's default 0.7)
    rate_basis: Literal["min", "mean", "max"] = "min"  # min: the slowest allowed node, safe wherever it lands
    true_rates: dict[str, float] = field(default_factory=dict)  # measured tuples/s per busy replica
    placer: str = "ffd"
    max_replicas: int | None = None

    def parallelism(self, topology: Topology, cluster: Cluster, profile: Profile | None) -> dict[str, int]:
        """π_i for every operator (one pass over the DAG)."""
        rates = operator_rates(topology, profile, {op.id: float(op.rate or 0.0) * self.target_scale
                                                   for op in topology.sources})
        e, met = cost_tables(topology, cluster, profile)
        cap = replica_capacity(e, met)
        mask = allowed_mask(topology, cluster)
        out = {}
        for i, op in enumerate(topology.operators):
            true_rate = self.true_rates.get(op.id)
            if true_rate is None:
                values = cap[i, mask[i]]
                true_rate = float(_RATE_OF[self.rate_basis](values))
            need = rates.input[i] / (true_rate * self.target_utilization) if true_rate > 0 else 1.0
            pi = max(1, math.ceil(need - 1e-9))
            limit = op.max_replicas or self.max_replicas
            out[op.id] = min(pi, limit) if limit else pi
        return out

    def plan(self, topology: Topology, cluster: Cluster, profile: Profile | None = None, *,
             current: Plan | None = None, engine: EngineSettings | None = None) -> Plan:
        """Plan (BaseScheduler.plan) once the parameters that name things hold for ``topology``: a placer DS2 can
        hand its counts to, and ``true_rates`` for operators it has — a SchedulerParamError naming the parameter
        and the fix otherwise (a misspelt operator's rate was ignored, a misspelt placer an "infeasible" plan)."""
        if self.placer == self.name or self.placer not in _placers():
            raise SchedulerParamError(f"ds2.placer: unknown placer {self.placer!r} "
                                      f"(fix: use one of {', '.join(_placers())})")
        unknown = [op for op in self.true_rates if op not in topology.index]
        if unknown:
            raise SchedulerParamError(f"ds2.true_rates.{unknown[0]}: {unknown[0]!r} is not an operator of topology "
                                      f"{topology.name!r} (fix: name one of {', '.join(topology.ids)})")
        return super().plan(topology, cluster, profile, current=current, engine=engine)

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        counts = self.parallelism(topology, cluster, profile)
        rates = operator_rates(topology, profile, {op.id: float(op.rate or 0.0) * self.target_scale
                                                   for op in topology.sources})
        e, met = cost_tables(topology, cluster, profile)
        mask = allowed_mask(topology, cluster)
        sized = []
        for i, op in enumerate(topology.operators):
            per = rates.input[i] / counts[op.id]
            pick = _COST_OF[self.rate_basis]
            points = per * pick(e[i, mask[i]]) / 10.0 + pick(met[i, mask[i]])
            sized.append(replace(op, replicas=counts[op.id], cpu=float(min(100.0, max(points, 0.0)))))
        resized = Topology(topology.name, tuple(sized), topology.streams)
        plan = create(self.placer, {"time_limit_s": self.time_limit_s}).plan(resized, cluster, profile)
        if plan.status == "infeasible":
            return Placement(None, "infeasible", [f"DS2 asks for {counts}; {self.placer} cannot place it: "
                                                  + "; ".join(plan.explanation)])
        matrix = np.zeros((len(topology.operators), len(cluster)), dtype=np.int64)
        for op_id, per_node in plan.replicas.items():
            for node, c in per_node.items():
                matrix[topology.index[op_id], cluster.index[node]] = c
        result = Placement(matrix, status=plan.status, explanation=list(plan.explanation))
        result.source_rates = {op.id: float(op.rate or 0.0) * self.target_scale for op in topology.sources}
        result.warnings.append(f"ds2 parallelism {counts}, placed by {self.placer}")
        return result


    def finish(self, topology: Topology, cluster: Cluster, profile: Profile | None, result: Placement,
               deadline: Deadline, engine: EngineSettings | None = None) -> Plan:
        """The plan, with a warning when the model says it falls short of DS2's target rate (a max_replicas cap
        or the placer's packing kept a count below what DS2 asked for)."""
        plan = super().finish(topology, cluster, profile, result, deadline, engine)
        scale = plan.predicted.sustainable_scale
        if plan.status != "infeasible" and scale is not None and scale < 1 - 1e-9:
            limits = {op.id: op.max_replicas or self.max_replicas for op in topology.operators}
            capped = [op_id for op_id, limit in limits.items() if limit and plan.parallelism(op_id) >= limit]
            why = f"replicas capped by max_replicas for {', '.join(capped)}" if capped else "where the placer put them"
            plan = plan.evolve(warnings=(*plan.warnings, f"ds2 sizes for {self.target_scale:g}× the offered rates, "
                                         f"but this plan sustains {scale:.3g}× ({why})"))
        return plan


def _placers() -> list[str]:
    return ["ffd", "r-storm", "round-robin"]
