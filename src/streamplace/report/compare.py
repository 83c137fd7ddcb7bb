"""Run several schedulers on one instance and collect comparable rows."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamplace.errors import StreamplaceError
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.schedulers.base import create, scheduler_names

COLUMNS = [
    ("scheduler", "scheduler"),
    ("status", "status"),
    ("throughput", "throughput (t/s)"),
    ("delivered_throughput", "delivered (t/s)"),
    ("latency_ms", "latency (ms)"),
    ("nodes_used", "nodes"),
    ("replicas", "replicas"),
    ("max_utilization", "max util"),
    ("mean_utilization", "mean util"),
    ("inter_node_traffic", "inter-node (B/s)"),
    ("planning_ms", "planning (ms)"),
]


@dataclass(frozen=True)
class ComparisonRow:
    """One scheduler's result: a plan, or the reason it refused the instance (``error``)."""

    scheduler: str
    plan: Plan | None
    error: str | None = None

    @property
    def status(self) -> str:
        return self.plan.status if self.plan is not None else "refused"

    @property
    def has_values(self) -> bool:
        """Whether there is a plan to show numbers for (not refused, not infeasible)."""
        return self.plan is not None and self.plan.status != "infeasible"

    @property
    def notes(self) -> list[str]:
        if self.plan is None:
            return [self.error or ""]
        return list(self.plan.explanation)

    def value(self, key: str) -> Any:
        if key == "scheduler":
            return self.scheduler
        if key == "status":
            return self.status
        if self.plan is None:
            return None
        if key == "planning_ms":
            return self.plan.planning_ms
        if key == "replicas":
            return self.plan.total_replicas() if self.plan.replicas else None
        return self.plan.predicted.get(key)

    def as_dict(self) -> dict[str, Any]:
        out = {key: self.value(key) for key, _ in COLUMNS} | {"explanation": self.notes}
        if self.plan is not None:
            out["parallelism"] = self.plan.counts()
            out["gap"] = self.plan.gap
        return out


def compare(
    topology: Topology,
    cluster: Cluster,
    profile: Profile | None = None,
    schedulers: Sequence[str] | None = None,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    on_done: Callable[[str], None] | None = None,
    engine: EngineSettings | None = None,
) -> list[ComparisonRow]:
    """Plan the instance with each scheduler (all registered ones by default); predictions are ``engine``'s."""
    rows = []
    for name in schedulers or scheduler_names():
        try:
            plan = create(name, (params or {}).get(name)).plan(topology, cluster, profile, engine=engine)
            rows.append(ComparisonRow(name, plan))
        except StreamplaceError as exc:  # e.g. exhaustive refusing a large instance
            rows.append(ComparisonRow(name, None, str(exc)))
        if on_done:
            on_done(name)
    return rows


def cell(row: ComparisonRow, key: str) -> str:
    """The table text of one column of a row: '—' where the scheduler produced no plan."""
    if key in ("scheduler", "status") or row.has_values:
        return fmt(row.value(key))
    return "—"


def fmt(value: Any) -> str:
    if value is None:
        return "∞"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "∞"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)
