"""Plans: replicas per operator per node, with what the model predicts (docs/architecture.md, "Plan JSON")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from streamplace.errors import ModelError, Problem

Status = Literal["ok", "infeasible", "timeout"]
Split = Literal["even", "capacity"]


def _freeze(replicas: Mapping[str, Mapping[str, int]]) -> Mapping[str, Mapping[str, int]]:
    """Read-only copies of the counts, as ints, zeros dropped. O(cells); an operator whose counts are all nonzero
    ints already (what the schedulers give) is copied in one C-level call (500,000 cells: ~0.1 s less)."""
    return MappingProxyType({op: MappingProxyType(dict(per) if all(type(c) is int and c for c in per.values())
                                                  else {n: int(c) for n, c in per.items() if int(c) != 0})
                             for op, per in replicas.items()})


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class Predicted(Mapping[str, Any]):
    """What an engine model predicts for a plan (perf.evaluate.Evaluation.predicted()), typed: the figures every
    engine gives are attributes (``plan.predicted.throughput``, ``.latency_ms``, ``.bottleneck``; None where the
    model gives none, e.g. the latency of a plan that cannot keep up), and the whole block reads as the read-only
    mapping the plan JSON's ``predicted`` holds (``plan.predicted["engine_detail"]``); it becomes JSON only in
    ``Plan.to_dict``."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._values: Mapping[str, Any] = MappingProxyType(dict(values or {}))

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Predicted({dict(self._values)!r})"

    @property
    def engine(self) -> str:
        """The engine model the figures are for (``ideal`` where a plan file names none)."""
        return str(self._values.get("engine", "ideal"))

    @property
    def throughput(self) -> float | None:
        """Tuples/s into the sinks at the highest rate the plan sustains."""
        return _number(self._values.get("throughput"))

    @property
    def sustainable_scale(self) -> float | None:
        """The highest multiple of the plan's source rates it sustains."""
        return _number(self._values.get("sustainable_scale"))

    @property
    def latency_ms(self) -> float | None:
        """End-to-end latency of the slowest path at the offered rates (None: it cannot keep up)."""
        return _number(self._values.get("latency_ms"))

    @property
    def latency_mean_ms(self) -> float | None:
        """Rate-weighted mean end-to-end latency at the offered rates."""
        return _number(self._values.get("latency_mean_ms"))

    @property
    def bottleneck(self) -> str | None:
        """What limits the plan, in words."""
        value = self._values.get("bottleneck")
        return None if value is None else str(value)

    @property
    def nodes_used(self) -> int | None:
        value = self._values.get("nodes_used")
        return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def max_utilization(self) -> float | None:
        return _number(self._values.get("max_utilization"))

    @property
    def cost_per_hour(self) -> float | None:
        return _number(self._values.get("cost_per_hour"))


@dataclass(frozen=True)
class Plan:
    """Where each operator's replicas run, and why.

    ``replicas[op][node]`` is the number of replicas of ``op`` on ``node``.
    ``status`` is ``ok``, ``infeasible`` (``explanation`` says what was
    required and what was available; ``replicas`` is empty) or ``timeout``
    (the best plan found in the time limit, ``gap`` where known).
    """

    scheduler: str
    topology: str
    cluster: str
    replicas: Mapping[str, Mapping[str, int]]
    source_rates: Mapping[str, float] = field(default_factory=dict)
    status: Status = "ok"
    planning_ms: float = 0.0
    predicted: Predicted = field(default_factory=Predicted)
    explanation: tuple[str, ...] = ()
    split: Split = "even"
    params: Mapping[str, Any] = field(default_factory=dict)
    gap: float | None = None
    warnings: tuple[str, ...] = ()
    #: the profile file the plan was made with ({"path", "sha256"}), so `evaluate` can tell when it is given
    #: another one or none (its predictions would then disagree with the plan's)
    profile: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "replicas", _freeze(self.replicas))
        object.__setattr__(self, "source_rates", MappingProxyType(dict(self.source_rates)))
        if not isinstance(self.predicted, Predicted):  # a mapping, as from_dict and the schedulers give it
            object.__setattr__(self, "predicted", Predicted(self.predicted))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "explanation", tuple(self.explanation))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        problems = []
        if self.status not in ("ok", "infeasible", "timeout"):
            problems.append(Problem("status", f"unknown status {self.status!r}", "use ok, infeasible or timeout"))
        if self.split not in ("even", "capacity"):
            problems.append(Problem("split", f"unknown split {self.split!r}", "use even or capacity"))
        for op, per in self.replicas.items():
            for node, count in per.items():
                if count < 0:
                    problems.append(Problem(f"replicas.{op}.{node}", f"negative count {count}",
                                            "use a positive replica count"))
        if self.status == "infeasible" and not self.explanation:
            problems.append(Problem("explanation", "an infeasible plan must say why",
                                    "add what was required and what was available"))
        if problems:
            raise ModelError(problems)

    # ----------------------------------------------------------------- views
    @property
    def usable(self) -> bool:
        """A placement that holds the constraints: status ``ok`` (proven or a heuristic's answer) or ``timeout``
        (the best found in the time limit); an ``infeasible`` plan is not. (Named ``ok`` before issue 40, which
        read as ``status == "ok"``.)"""
        return self.status != "infeasible"

    def parallelism(self, op: str) -> int:
        return sum(self.replicas.get(op, {}).values())

    def counts(self) -> dict[str, int]:
        return {op: sum(per.values()) for op, per in self.replicas.items()}

    def nodes_used(self) -> list[str]:
        return sorted({n for per in self.replicas.values() for n in per})

    def total_replicas(self) -> int:
        return sum(self.counts().values())

    def evolve(self, **changes: Any) -> Plan:
        """This plan with ``changes``. Its replicas, frozen and checked when it was made, are kept as they are
        unless changed (freezing 500,000 cells again took a quarter of a second, issue 56)."""
        if "replicas" in changes:
            return replace(self, **changes)
        new = replace(self, replicas={}, **changes)
        object.__setattr__(new, "replicas", self.replicas)
        return new

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scheduler": self.scheduler,
            "status": self.status,
            "planning_ms": round(self.planning_ms, 3),
            "topology": self.topology,
            "cluster": self.cluster,
            "replicas": {op: dict(per) for op, per in self.replicas.items()},
            "parallelism": self.counts(),
            "source_rates": dict(self.source_rates),
            "predicted": jsonable(dict(self.predicted)),
            "explanation": list(self.explanation),
            "split": self.split,
        }
        if self.gap is not None:
            out["gap"] = self.gap
        if self.params:
            out["params"] = jsonable(dict(self.params))
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.profile is not None:
            out["profile"] = dict(self.profile)
        return out

    def to_json(self) -> str:
        return json_text(self.to_dict())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Plan:
        return cls(
            scheduler=str(d.get("scheduler", "manual")),
            topology=str(d.get("topology", "")),
            cluster=str(d.get("cluster", "")),
            replicas=d.get("replicas") or {},
            source_rates=d.get("source_rates") or {},
            status=d.get("status", "ok"),
            planning_ms=float(d.get("planning_ms", 0.0)),
            predicted=Predicted(d.get("predicted") or {}),
            explanation=tuple(d.get("explanation") or ()),
            split=d.get("split", "even"),
            params=d.get("params") or {},
            gap=d.get("gap"),
            warnings=tuple(d.get("warnings") or ()),
            profile=d.get("profile"),
        )


#: values with more scalars than this are written one top-level key per line (json's C encoder), not fully
#: indented (its pure-Python encoder: 0.4 s for a plan of 50,000 replicas on 10,000 nodes)
PRETTY_LIMIT = 5000


def json_text(data: Any) -> str:
    """JSON for people and programs: indented by two spaces; a large mapping one top-level key per line with
    each value on one line, which json's fast encoder writes."""
    if not isinstance(data, Mapping) or _size(data, PRETTY_LIMIT) < PRETTY_LIMIT:
        return json.dumps(data, indent=2, allow_nan=False)
    lines = [f"  {json.dumps(str(k))}: {json.dumps(v, allow_nan=False)}" for k, v in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _size(value: Any, limit: int) -> int:
    """How many scalars ``value`` holds, counted up to ``limit``."""
    if isinstance(value, Mapping):
        value = value.values()
    elif not isinstance(value, list | tuple):
        return 1
    total = 0
    for v in value:
        total += _size(v, limit - total)
        if total >= limit:
            break
    return total


def jsonable(value: Any) -> Any:
    """``value`` with non-finite floats replaced by None (and mapping keys as text), so its JSON stays standard."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def validate_plan_against(plan: Plan, topology: Any, cluster: Any) -> list[Problem]:
    """Problems of a plan for a given topology and cluster: unknown ids, missing operators, pinning."""
    problems: list[Problem] = []
    if plan.status == "infeasible":
        return problems
    op_ids = set(topology.index)
    node_ids = set(cluster.index)
    for op, per in plan.replicas.items():
        if op not in op_ids:
            problems.append(Problem(f"replicas.{op}", f"unknown operator {op!r} for topology {topology.name!r}",
                                    f"use one of: {', '.join(sorted(op_ids))}"))
            continue
        allowed = topology.op(op).pinned
        for node in per:
            if node not in node_ids:
                problems.append(Problem(f"replicas.{op}.{node}", f"unknown node {node!r} of cluster {cluster.name!r}",
                                        "use a node id of the cluster spec"))
            elif allowed is not None and node not in allowed:
                problems.append(Problem(f"replicas.{op}.{node}", f"{op!r} is pinned to {list(allowed)}",
                                        "move the replicas to an allowed node"))
    for op in topology.ids:
        if plan.parallelism(op) < 1:
            problems.append(Problem(f"replicas.{op}", f"operator {op!r} has no replica",
                                    "place at least one replica of every operator"))
    sources = {o.id for o in topology.sources}
    for op in plan.source_rates:  # a rate for anything but a source would be ignored without a word
        if op not in sources:
            problems.append(Problem(f"source_rates.{op}", f"{op!r} is not a source of topology {topology.name!r}",
                                    f"give rates for its sources only: {', '.join(sorted(sources))}"))
    return problems
