"""Profiles: measured per-(operator, node type) costs and per-operator selectivity.

A profile refines the topology's own ``cost_ms``/``overhead``/``selectivity``:
where an entry exists for (operator, type of node) its e (ms per tuple) and
MET (fixed CPU points per replica) replace ``cost_ms / speedup`` and
``overhead``. The profiler (Spark runtime) writes this format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from streamplace.errors import ModelError, Problem


@dataclass(frozen=True)
class ProfileEntry:
    operator: str
    node_type: str
    cost_ms: float
    overhead: float = 0.0


@dataclass(frozen=True)
class Profile:
    entries: tuple[ProfileEntry, ...] = ()
    selectivity: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "entries", tuple(self.entries))
        object.__setattr__(self, "selectivity", MappingProxyType(dict(self.selectivity)))
        problems = []
        seen: set[tuple[str, str]] = set()
        for i, e in enumerate(self.entries):
            key = (e.operator, e.node_type)
            if key in seen:
                problems.append(Problem(f"profiles[{i}]", f"duplicate entry for {key}",
                                        "keep one entry per (operator, node_type)"))
            seen.add(key)
            if e.cost_ms < 0:
                problems.append(Problem(f"profiles[{i}].cost_ms", "must be >= 0", "use a non-negative cost"))
            if not 0 <= e.overhead < 100:
                problems.append(Problem(f"profiles[{i}].overhead", "must be in [0, 100)",
                                        "MET is fixed CPU points of one thread"))
        for op, a in self.selectivity.items():
            if a < 0:
                problems.append(Problem(f"selectivity.{op}", f"selectivity must be >= 0, got {a}",
                                        "use output tuples per input tuple"))
        if problems:
            raise ModelError(problems)

    def lookup(self) -> dict[tuple[str, str], ProfileEntry]:
        return {(e.operator, e.node_type): e for e in self.entries}

    def unused_node_types(self, node_types: set[str]) -> list[str]:
        """Notes on the entries whose node type no node of the cluster has: they never apply (the operator then
        runs at its spec's ``cost_ms / speedup`` there), which a misspelt type would otherwise hide."""
        missing = sorted({e.node_type for e in self.entries} - node_types)
        return [f"the profile's entries for node type {t!r} never apply: no node of the cluster has that type "
                f"(its types: {', '.join(sorted(node_types)) or 'none'})" for t in missing]

    def check_against(self, operator_ids: set[str]) -> list[Problem]:
        out = []
        for i, e in enumerate(self.entries):
            if e.operator not in operator_ids:
                out.append(Problem(f"profiles[{i}].operator", f"unknown operator {e.operator!r}",
                                   f"use one of: {', '.join(sorted(operator_ids))}"))
        for op in self.selectivity:
            if op not in operator_ids:
                out.append(Problem(f"selectivity.{op}", f"unknown operator {op!r}",
                                   f"use one of: {', '.join(sorted(operator_ids))}"))
        return out
