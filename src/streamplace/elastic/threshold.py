"""The threshold baseline of Hochreiner et al. 2017.

Per operator type, every reasoning interval: a queue above 50 items adds one
instance, above 250 two; a queue below one item removes one (never the last).
A new instance goes to a host with room; when every host is full a VM is
leased (the instance starts there once the VM is up); a VM is released as
soon as its last instance is gone.
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

    def reason(self, view: View, backend: Backend) -> None:
        for op in view.operators.values():
            if op.queue > self.up:
                for _ in range(2 if op.queue > self.double_up else 1):
                    host = first_fit(view, op.name)
                    if host is None:
                        host = backend.lease_host()
                        view.add_host(host)
                    backend.add_instance(op.name, host)
                    view.place(host, op, +1)
            elif op.queue < self.down and op.instances > 1:
                backend.remove_instance(op.name)
        for host in view.hosts.values():
            if host.ready and not any(host.instances.values()):
                backend.release_host(host.name)


def first_fit(view: View, operator: str) -> str | None:
    op = view.operators[operator]
    for host in view.hosts.values():
        if host.free_cpu >= op.cpu and host.free_memory >= op.memory:
            return host.name
    return None
