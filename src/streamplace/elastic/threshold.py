"""The threshold baseline of Hochreiner et al. 2017.

Per operator type, every reasoning interval: the upscaling trigger of the
BTU controller (Algorithm 1: the processing duration, or its trend over the last
N samples, above the SLO, and a queue above 50 items) adds one instance, two
when the queue is above 250; a queue below one item removes one (never the last).
The paper: "As soon as the variable oqueue exceeds an upper threshold according
to Algorithm 1, the SPE triggers an upscaling operation" and "the upscaling
trigger is the same for both". ``trigger="queue"`` is our earlier reading (the
queue alone, no duration check).
A new instance goes to a host with room; when every host is full a VM is
leased (the instance starts there once the VM is up); a VM is released as
soon as its last instance is gone.

Which instance a scale-down removes the paper does not say. ``victim``:
``loneliest`` (default) is the authors' released code (visp-streaming/runtime,
ReasonerBasic): the instance on the host with the most free resources, so that
hosts empty and are released; ``newest`` removes the most recently started one
wherever it runs (our reading before; it keeps VMs partly used for longer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from streamplace.elastic.btu import up_trigger
from streamplace.elastic.controller import Backend, OperatorView, View


@dataclass
class ThresholdController:
    name: str = "threshold"
    up: float = 50.0
    double_up: float = 250.0
    down: float = 1.0
    victim: str = "loneliest"  # which instance a scale-down removes: "loneliest" (authors' code) or "newest"
    #: "algorithm1": upscale on Algorithm 1 (duration or its trend above the SLO, and queue > ``up``), as the paper
    #: says; "queue": on the queue alone (our earlier reading)
    trigger: Literal["algorithm1", "queue"] = "algorithm1"
    history: int = 10  # Algorithm 1's N: the monitoring samples its trend line runs through (as the BTU controller's)

    def __post_init__(self) -> None:
        if self.victim not in VICTIMS:
            raise ValueError(f"victim must be one of {', '.join(VICTIMS)}, got {self.victim!r}")
        if self.trigger not in TRIGGERS:
            raise ValueError(f"trigger must be one of {', '.join(TRIGGERS)}, got {self.trigger!r}")

    def scale_up(self, op: OperatorView) -> bool:
        """Whether ``op`` is scaled up this interval (``trigger``)."""
        if self.trigger == "queue":
            return op.queue > self.up
        return up_trigger(op, self.history, self.up)

    def reason(self, view: View, backend: Backend) -> None:
        for op in view.operators.values():
            if self.scale_up(op):
                for _ in range(2 if op.queue > self.double_up else 1):
                    host = first_fit(view, op.name)
                    if host is None:
                        host = backend.lease_host()
                        view.add_host(host)
                    if backend.add_instance(op.name, host):
                        view.place(host, op, +1)
            elif op.queue < self.down and op.instances > 1:
                where = loneliest(view, op.name) if self.victim == "loneliest" else None
                if backend.remove_instance(op.name, where) and where is not None:
                    view.place(where, op, -1)
        for idle in view.hosts.values():
            if idle.ready and not any(idle.instances.values()):
                backend.release_host(idle.name)


VICTIMS = ("loneliest", "newest")
TRIGGERS = ("algorithm1", "queue")


def loneliest(view: View, operator: str) -> str | None:
    """The host of one of ``operator``'s instances with the most free resources, as the authors' code picks it:
    scanning the hosts in order, a host replaces the best so far when it has more free CPU *and* more free
    memory."""
    best = None
    for host in view.hosts.values():
        if host.instances.get(operator, 0) < 1:
            continue
        if best is None or (host.free_cpu > best.free_cpu and host.free_memory > best.free_memory):
            best = host
    return best.name if best else None


def first_fit(view: View, operator: str) -> str | None:
    op = view.operators[operator]
    for host in view.hosts.values():
        if host.fits(op):
            return host.name
    return None
