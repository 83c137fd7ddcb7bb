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
    return MappingProxyType(
        {op: MappingProxyType({n: int(c) for n, c in per.items() if int(c) != 0}) for op, per in replicas.items()}
    )


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
    predicted: Mapping[str, Any] = field(default_factory=dict)
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
        object.__setattr__(self, "predicted", MappingProxyType(dict(self.predicted)))
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
        return replace(self, **changes)

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
            predicted=d.get("predicted") or {},
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
