"""The one interface between elastic controllers and what they control: the simulator and the live pipeline.

A controller is called every reasoning interval with a read-only ``View`` of the
operator types and hosts, and acts through a ``Backend``: add or remove one
instance of an operator type (on a chosen host), lease or release a host. The
backend applies start-up and lease delays and billing; the controller only
decides. Both build their View with ``elastic.view.build_view``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass
class OperatorView:
    """What monitoring says about one operator type."""

    name: str
    queue: float  # items waiting
    instances: int  # running or starting
    ready: int  # running
    expected_ms: float  # the SLO: expected processing duration per item
    cpu: float  # CPU shares one instance needs
    memory: float  # MB one instance needs
    durations_ms: list[float] = field(default_factory=list)  # recent mean processing durations, oldest first
    scalings: int = 0  # scaling operations so far (Hochreiner et al.'s (2017) o_s)

    @property
    def duration_ms(self) -> float:
        return self.durations_ms[-1] if self.durations_ms else 0.0


@dataclass
class HostView:
    name: str
    cpu: float  # capacity (shares)
    memory: float  # MB
    used_cpu: float
    used_memory: float
    leased_at: float
    ready: bool
    instances: dict[str, int]  # operator type → instances on this host
    images: set[str]  # operator images cached on this host
    per_operator: int | None = None  # at most this many instances of one type here (a worker's slots; None: any)

    def has_slot(self, operator: str) -> bool:
        """Whether one more instance of ``operator`` fits this host's per-operator cap (CPU and memory aside)."""
        return self.per_operator is None or self.instances.get(operator, 0) < self.per_operator

    def fits(self, op: OperatorView) -> bool:
        """Whether one more instance of ``op`` fits: CPU, memory and a slot."""
        return self.free_cpu >= op.cpu and self.free_memory >= op.memory and self.has_slot(op.name)

    @property
    def free_cpu(self) -> float:
        return self.cpu - self.used_cpu

    @property
    def free_memory(self) -> float:
        return self.memory - self.used_memory


@dataclass
class View:
    now: float
    operators: dict[str, OperatorView]
    hosts: dict[str, HostView]
    btu_s: float
    vm_cpu: float  # capacity of a newly leased host
    vm_memory: float
    vm_per_operator: int | None = None  # its per-operator instance cap (None: none)

    def add_host(self, name: str) -> HostView:
        """Record a host just leased in this step (not ready yet) so later decisions can use it."""
        host = HostView(name, self.vm_cpu, self.vm_memory, 0.0, 0.0, self.now, False, {}, set(), self.vm_per_operator)
        self.hosts[name] = host
        return host

    def place(self, host: str, op: OperatorView, delta: int, count: bool = True) -> None:
        """Record ``delta`` instances of ``op`` started (+) or stopped (−) on ``host`` within one reasoning step,
        so later decisions in the same step see them (``count``: also the type's total)."""
        h = self.hosts.get(host)
        if h is None:
            return
        h.used_cpu += delta * op.cpu
        h.used_memory += delta * op.memory
        h.instances[op.name] = h.instances.get(op.name, 0) + delta
        h.images.add(op.name)
        if count:
            op.instances += delta


class Backend(Protocol):
    def add_instance(self, operator: str, host: str) -> bool: ...

    def remove_instance(self, operator: str, host: str | None = None) -> bool: ...

    def lease_host(self) -> str: ...

    def release_host(self, host: str) -> bool: ...

    def prolong(self, host: str) -> None: ...


class Controller(Protocol):
    name: str

    def reason(self, view: View, backend: Backend) -> None:
        """Look at the view and act through the backend (called every reasoning interval)."""
