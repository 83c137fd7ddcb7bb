"""A comparison's rows and how they read: each scheduler's plan (or why it refused) with its figures at the
common offered rate, the table's columns, the best value per column and the text of a cell. The rows are made by
the use case that runs the schedulers (workflows/planning.py: scheduler_rows)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from streamplace.model.plan import Plan

#: (key, label): the table's columns. ``throughput`` is each plan's own maximum (the sink input rate at the largest
#: sustainable scale of its source rates); every other figure is at the common offered rate (the topology's source
#: rates), whatever rates a scheduler planned for.
COLUMNS = [
    ("scheduler", "scheduler"),
    ("status", "status"),
    ("throughput", "max t/s"),
    ("delivered_throughput", "delivered t/s"),
    ("latency_ms", "latency ms"),
    ("nodes_used", "nodes"),
    ("replicas", "replicas"),
    ("max_utilization", "max util"),
    ("inter_node_traffic", "inter-node B/s"),
]
#: shown on request (``--wide``) and always in JSON
WIDE_COLUMNS = [
    ("mean_utilization", "mean util"),
    ("cost_per_hour", "cost $/h"),
    ("planning_ms", "planning ms"),
]
#: the columns whose best value is marked, and whether more is better
BEST = {"throughput": True, "delivered_throughput": True, "latency_ms": False, "nodes_used": False,
        "inter_node_traffic": False, "cost_per_hour": False}
#: keys read from the evaluation at the plan's own rates; the rest come from the common offered rate
OWN_RATE_KEYS = ("throughput", "sustainable_scale", "bottleneck")


@dataclass(frozen=True)
class ComparisonRow:
    """One scheduler's result: a plan, or the reason it refused the instance (``error``). ``at_offered`` is the
    plan's ``predicted`` block at the topology's offered source rates (the plan's own when it planned for them)."""

    scheduler: str
    plan: Plan | None
    error: str | None = None
    at_offered: Mapping[str, Any] | None = None

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
        if key in OWN_RATE_KEYS or self.at_offered is None:
            return self.plan.predicted.get(key)
        return self.at_offered.get(key)

    def as_dict(self) -> dict[str, Any]:
        out = {key: self.value(key) for key, _ in COLUMNS + WIDE_COLUMNS} | {"explanation": self.notes}
        if self.plan is not None:
            out["parallelism"] = self.plan.counts()
            out["gap"] = self.plan.gap
            out["source_rates"] = dict(self.plan.source_rates)
        return out


def best_values(rows: Sequence[ComparisonRow], keys: Sequence[str]) -> dict[str, set[str]]:
    """Per column of ``BEST`` among ``keys``: the schedulers whose usable plan has the best finite value
    (ties share it). A column where every usable plan has the same value marks none: nothing to choose."""
    marked: dict[str, set[str]] = {}
    for key in keys:
        if key not in BEST:
            continue
        values = {r.scheduler: float(v) for r in rows if r.has_values
                  and isinstance(v := r.value(key), int | float) and math.isfinite(v)}
        if len(set(values.values())) < 2:
            continue
        top = (max if BEST[key] else min)(values.values())
        marked[key] = {n for n, v in values.items() if abs(v - top) <= 1e-9 * max(1.0, abs(top))}
    return marked


def cell(row: ComparisonRow, key: str, best: Mapping[str, set[str]] | None = None) -> str:
    """The table text of one column of a row: '—' where the scheduler produced no plan; a trailing '*' marks
    the column's best value (``best`` from best_values)."""
    if key in ("scheduler", "status") or row.has_values:
        text = fmt(row.value(key))
        return text + "*" if best and row.scheduler in best.get(key, ()) else text
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


def mfmt(value: Any) -> str:
    """A measured figure: n/a when it could not be measured (``fmt`` reads None as ∞, a model's unbounded)."""
    return "n/a" if value is None else fmt(value)


def comparison_legend(rows: list[ComparisonRow]) -> str:
    """What the comparison's figures mean: its operating points and the best-value mark."""
    offered = next((r.at_offered.get("offered_throughput") for r in rows if r.at_offered), None)
    at = f"the offered {fmt(offered)} t/s into sinks" if offered is not None else "the offered source rates"
    return (f"max t/s: each plan's own limit; the other figures at {at}; * marks the best value of a column; "
            "latency ∞: the plan cannot keep up with the offered rate")
