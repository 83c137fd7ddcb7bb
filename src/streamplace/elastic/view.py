"""The one builder of the controllers' ``View``, for the simulator (sim/engine.py) and the live loop
(elastic/live_policies.py): both describe what they run in the same plain terms, and every rule of what a controller
sees is applied here once.

The rules (issue 38: the two had drifted apart and decided differently given the same state):

* **Which operators a controller scales**: every operator but the sources (upstream first). A source's rate
  is the offered load, not a queue a replica more would shorten; the simulator never had them, the live loop
  showed them and a threshold controller cut a source from 2 replicas to 1.
* **What a host has in use**: the CPU points and memory of everything placed on it — the sources' replicas
  too, live — from the operators' declared ``cpu`` and ``memory_mb``; its ``instances`` list only the
  operators the controller scales.
* **Replica slots**: where a host runs at most so many replicas of one operator (a Spark worker's slots), the
  view says so (``HostView.per_operator``) and the controllers' fit checks respect it, so an instance is never
  recorded on a host it was not placed on.
* **Scalings** (Hochreiner et al.'s o_s) count every instance added or removed, not plan changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from streamplace.elastic.controller import HostView, OperatorView, View
from streamplace.model.topology import Operator, Topology


@dataclass(frozen=True)
class OperatorState:
    """What monitoring measured of one scaled operator."""

    queue: float  # items waiting
    instances: int  # running or starting
    ready: int  # running
    expected_ms: float  # the SLO
    durations_ms: tuple[float, ...] = ()  # recent mean processing durations, oldest first
    scalings: int = 0  # instances added or removed so far


@dataclass(frozen=True)
class HostState:
    """One host (a leased VM, or a node the plan uses) and what runs on it."""

    name: str
    cpu: float
    memory: float
    leased_at: float
    ready: bool
    placed: Mapping[str, int]  # operator → replicas on this host, sources included
    images: frozenset[str] = field(default_factory=frozenset)
    per_operator: int | None = None  # at most this many replicas of one operator (None: no such cap)


def scaled_operators(topology: Topology) -> list[Operator]:
    """The operators a controller scales: all but the sources, upstream first."""
    return [topology.op(o) for o in topology.acyclic_order if not topology.op(o).is_source]


def build_view(topology: Topology, now: float, operators: Mapping[str, OperatorState], hosts: Iterable[HostState],
               btu_s: float, vm_cpu: float, vm_memory: float, vm_per_operator: int | None = None) -> View:
    """The controllers' View of ``topology`` at ``now`` (see the module docstring for its rules). ``operators``
    must hold a state for every scaled operator; ``vm_*`` describe the host a lease would add next."""
    scaled = scaled_operators(topology)
    missing = [op.id for op in scaled if op.id not in operators]
    if missing:
        raise ValueError(f"no monitoring state for operator(s) {', '.join(missing)}")
    names = {op.id for op in scaled}
    view_ops = {}
    for op in scaled:
        s = operators[op.id]
        view_ops[op.id] = OperatorView(op.id, float(s.queue), int(s.instances), int(s.ready), float(s.expected_ms),
                                       float(op.cpu), float(op.memory_mb), list(s.durations_ms), int(s.scalings))
    view_hosts = {}
    for h in hosts:
        used_cpu = sum(c * float(topology.op(o).cpu) for o, c in h.placed.items())
        used_memory = sum(c * float(topology.op(o).memory_mb) for o, c in h.placed.items())
        mine = {o: int(c) for o, c in h.placed.items() if o in names and c > 0}
        view_hosts[h.name] = HostView(h.name, float(h.cpu), float(h.memory), used_cpu, used_memory, float(h.leased_at),
                                      bool(h.ready), mine, set(h.images), h.per_operator)
    return View(now, view_ops, view_hosts, btu_s, vm_cpu, vm_memory, vm_per_operator)
