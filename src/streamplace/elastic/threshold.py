"""The threshold baseline of Hochreiner et al. 2017.

Per operator type, every reasoning interval: a queue above 50 items adds one
instance, above 250 two; a queue below one item removes one (never the last).
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

from streamplace.elastic.controller import Backend, View


@dataclass
class ThresholdController:
    name: str = "threshold"
    up: float = 50.0
    double_up: float = 250.0
    down: float = 1.0
    victim: str = "loneliest"  # which instance a scale-down removes: "loneliest" (authors' code) or "newest"

    def __post_init__(self) -> None:
        if self.victim not in VICTIMS:
            raise ValueError(f"victim must be one of {', '.join(VICTIMS)}, got {self.victim!r}")

    def reason(self, view: View, backend: Backend) -> None:
        for op in view.operators.values():
            if op.queue > self.up:
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
