"""The BTU-aware controller of Hochreiner et al. 2017: scale up on demand, release only at BTU ends.

* Upscaling trigger (Algorithm 1): an operator type is a candidate when its current
  processing duration exceeds its SLO, or a least-squares line through its last N
  durations predicts that the next one will; it is scaled up only if its queue also
  holds more than ``scaling_threshold`` items (short peaks are left alone).
* Host selection (Algorithm 2): a host can take an instance if its free CPU and memory
  both fit (feasibility = min(free CPU / needed, free memory / needed) ≥ 1); its
  suitability is |remaining CPU share − remaining memory share| / feasibility, × CF
  (0.01) when the operator image is cached there; the lowest value wins.
* When no host fits: scale down the operator type with the best positive Operator
  Selection value (Algorithm 3: 1 + W1·instances + W2·queueLoad − W3·delay − W4·scalings)
  if that frees a host for the new instance, else lease a new host.
* Release at BTU end (Fig. 5): for a host whose paid BTU is about to end (the last 5 % of
  it, or the next reasoning interval if that is longer), release the instances of
  operator types with a positive Operator Selection value there, plan to migrate the
  others to other hosts (Algorithm 2 without this host, which may scale down another
  operator type there as Fig. 4 does, never lease); at most 20 % of a type's instances
  go in one plan, released and scaled down together, and an instance the plan migrates
  in is never scaled down by it. A feasible plan is executed and the host released;
  a step that fails undoes the steps before it; otherwise the host is leased for another
  BTU and not checked again before that BTU ends.
* Upscaling adds two instances when the queue exceeds 250 items, as the threshold
  baseline does (the paper: "the upscaling trigger is the same for both").
* The authors' released code (visp-streaming/runtime, ReasonerBTU and ReasonerUtility) adds
  guards the paper does not state; they are parameters, off by default: ``cooldown_s`` (no
  scale-down of a type scaled up less than 3 minutes ago) and ``vm_start_guard_s`` (no
  release within 3 minutes of a VM start), and ``lease_after_scaledown`` (when no host has room, Fig. 4's
  scale-down of another type runs and a VM is leased for the new instance anyway: their
  ``selectSuitableDockerHost`` falls through to ``startVM`` after its scale-down loop). Their code also scales
  down at most two instances
  of a type per placement; here a placement scales down at most one instance in all (Fig. 4:
  one that frees room on the host where it runs), so that bound never binds.

All constants default to the paper's (reference-data.md) and are parameters.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from streamplace.elastic.controller import Backend, HostView, OperatorView, View


def up_trigger(op: OperatorView, n: int, scaling_threshold: float) -> bool:
    """Algorithm 1."""
    upscaling = op.duration_ms > op.expected_ms
    history = op.durations_ms[-n:]
    if len(history) >= 2:
        i = np.arange(1, len(history) + 1, dtype=float)
        d = np.asarray(history, dtype=float)
        b = float(((i - i.mean()) * (d - d.mean())).sum() / ((i - i.mean()) ** 2).sum())
        a = d.mean() - b * i.mean()
        if a + b * (len(history) + 1) > op.expected_ms:
            upscaling = True
    return upscaling and op.queue > scaling_threshold


def host_suitability(host: HostView, op: OperatorView, cf: float) -> float:
    """Algorithm 2: −1 if the instance does not fit, else lower is better."""
    feasibility = min(host.free_cpu / op.cpu if op.cpu > 0 else math.inf,
                      host.free_memory / op.memory if op.memory > 0 else math.inf)
    if feasibility < 1 or not host.has_slot(op.name):  # a worker's replica slots, where the view has them
        return -1.0
    remaining_cpu = host.free_cpu - op.cpu
    remaining_memory = host.free_memory - op.memory
    difference = abs(remaining_cpu / host.cpu - remaining_memory / host.memory)
    suitability = difference / feasibility if math.isfinite(feasibility) else 0.0
    if op.name in host.images:
        suitability *= cf
    return suitability


def operator_selection(op: OperatorView, view: View, weights: tuple[float, float, float, float], ql: float,
                       penalty: float) -> float:
    """Algorithm 3: how suitable an operator type is to lose an instance (negative: must not)."""
    if op.instances < 2:
        return -1.0
    counts = [o.instances for o in view.operators.values()]
    spread = max(counts) - min(counts)
    instances = (op.instances - min(counts)) / spread if spread else 0.0
    delay = (op.duration_ms / op.expected_ms) * (1 + penalty) if op.expected_ms > 0 else 0.0
    total = sum(o.scalings for o in view.operators.values())
    scalings = op.scalings / total if total else 0.0
    queue_load = ql if op.queue < 1 else 0.0
    w1, w2, w3, w4 = weights
    return 1 + w1 * instances + w2 * queue_load - w3 * delay - w4 * scalings


@dataclass
class BtuController:
    name: str = "btu"
    scaling_threshold: float = 50.0
    history: int = 10
    cf: float = 0.01
    ql: float = 100.0
    weights: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
    penalty: float = 0.0001
    release_window: float = 0.05  # share of the BTU before its end at which a host is reconsidered
    max_release_share: float = 0.2  # at most this share of a type's instances released per host
    #: how "up to 20 % of all operator instances for the specific type" becomes a whole number: "floor" (ours so
    #: far: a type with fewer than 5 instances releases none and must migrate), "round" or "ceil" (at least one)
    release_rounding: Literal["floor", "round", "ceil"] = "floor"
    reason_s: float = 60.0
    #: "the upscaling trigger is the same for both" (BTU-based and the threshold baseline): above this queue
    #: an upscaling adds two instances, as the baseline does
    double_threshold: float = 250.0
    #: the migration simulation reuses Fig. 4's upscaling procedure, including 'try scaledown for other
    #: operator types' (the paper: "the only difference is that the host to be shut down is omitted");
    #: False: migrate only into free room
    migrate_with_scaledown: bool = True
    #: the authors' released code (visp-streaming/runtime, ReasonerBTU), not the paper's text: seconds after
    #: an operator type's last upscaling during which none of its instances is released or scaled down for
    #: a migration (0: no such guard, as in the paper; the authors' code waits 3 minutes)
    cooldown_s: float = 0.0
    #: the authors' released code, not the paper's text: a host whose BTU ends is leased for another BTU, not
    #: released, when any VM was leased less than this many seconds ago (0: no such guard; their code: 180)
    vm_start_guard_s: float = 0.0
    #: the authors' released code, not the paper's text: when no host has room, Fig. 4's scale-down of another
    #: operator type still runs, but a VM is leased for the new instance all the same (their
    #: ``selectSuitableDockerHost`` falls through to ``startVM`` after the scale-down loop, April–August 2017);
    #: False: the scale-down's room takes the instance and no VM is leased, as Fig. 4 draws it
    lease_after_scaledown: bool = False
    migrations: int = 0
    releases: int = 0
    prolongations: int = 0
    rollbacks: int = 0  # release plans whose execution failed part-way and was undone
    #: host → the BTU (1, 2, …) it was prolonged for: not checked again before that BTU ends
    prolonged: dict[str, int] = dataclasses.field(default_factory=dict)
    #: operator type → when it was last scaled up (for cooldown_s)
    last_up: dict[str, float] = dataclasses.field(default_factory=dict)

    def reason(self, view: View, backend: Backend) -> None:
        for op in list(view.operators.values()):
            if up_trigger(op, self.history, self.scaling_threshold):
                for _ in range(2 if op.queue > self.double_threshold else 1):
                    self.upscale(op, view, backend)
                self.last_up[op.name] = view.now
        for host in list(view.hosts.values()):
            if host.ready and self._btu_ends_soon(host, view):
                self.release_or_prolong(host, view, backend)

    # ------------------------------------------------------------- upscaling
    def best_host(self, op: OperatorView, view: View, exclude: str | None = None) -> str | None:
        scored = [(host_suitability(h, op, self.cf), name) for name, h in view.hosts.items() if name != exclude]
        fitting = [(s, name) for s, name in scored if s >= 0]
        return min(fitting)[1] if fitting else None

    def upscale(self, op: OperatorView, view: View, backend: Backend) -> None:
        host = self.best_host(op, view)
        if host is None:
            host = self._free_by_downscaling(op, view, backend)
            if self.lease_after_scaledown:
                host = None
        if host is None:
            host = backend.lease_host()
            view.add_host(host)
        if backend.add_instance(op.name, host):
            view.place(host, op, +1)

    def _free_by_downscaling(self, op: OperatorView, view: View, backend: Backend) -> str | None:
        for name, host_name in self._scaledown_candidates(op, view):
            if backend.remove_instance(name, host_name):
                view.place(host_name, view.operators[name], -1)
                return host_name
        return None

    def _scaledown_candidates(self, op: OperatorView, view: View, removed: dict[str, int] | None = None,
                              cap: dict[str, int] | None = None) -> Iterator[tuple[str, str]]:
        """Fig. 4's 'try scaledown for other operator types': (victim type, host) pairs, best first.

        Victim types are ranked by Algorithm 3 (only positive values qualify; ``removed`` counts
        instances a simulation already took away); a host qualifies when it holds one of the
        victim's instances and removing it leaves room for ``op``. Within a release plan, a type loses
        at most ``cap[type]`` instances in all (the paper's 20 %, over the released and the scaled-down
        ones together). So a plan never scales down an instance it migrates in: a type migrates only what
        it may not release — it has used its allowance, or Algorithm 3 (unchanged here) or the cooldown
        keeps it.
        """
        ranked = sorted(((operator_selection(_fewer(o, removed[o.name]) if removed else o, view, self.weights,
                                             self.ql, self.penalty), o.name)
                         for o in view.operators.values() if o.name != op.name and not self._cooling(o.name, view)),
                        reverse=True)
        for value, name in ranked:
            if value <= 0:
                return
            if cap is not None and removed is not None and removed[name] >= cap.get(name, 0):
                continue
            victim = view.operators[name]
            for host_name, h in view.hosts.items():
                if h.instances.get(name, 0) >= 1 and h.free_cpu + victim.cpu >= op.cpu and \
                        h.free_memory + victim.memory >= op.memory and h.has_slot(op.name):
                    yield name, host_name

    def _cooling(self, name: str, view: View) -> bool:
        """Whether ``name`` was scaled up less than ``cooldown_s`` ago (the authors' guard)."""
        return self.cooldown_s > 0 and view.now - self.last_up.get(name, -math.inf) < self.cooldown_s

    def _vm_started_recently(self, view: View) -> bool:
        """Whether a VM was leased less than ``vm_start_guard_s`` ago (the authors' guard)."""
        newest = max((h.leased_at for h in view.hosts.values()), default=-math.inf)
        return self.vm_start_guard_s > 0 and view.now - newest < self.vm_start_guard_s

    # ---------------------------------------------------------- BTU-end release
    def _btu_ends_soon(self, host: HostView, view: View) -> bool:
        """In the last part of its paid BTU (``release_window``, at least one reasoning interval), and not
        already prolonged at this BTU's end: a prolonged host is leased for the next BTU, not re-checked."""
        used = view.now - host.leased_at
        if used <= 0:
            return False
        btu = _btu_index(host, view)
        if self.prolonged.get(host.name) == btu:
            return False
        remaining = btu * view.btu_s - used
        return remaining <= max(self.release_window * view.btu_s, self.reason_s)

    def _prolong(self, host: HostView, view: View, backend: Backend) -> None:
        self.prolongations += 1
        self.prolonged[host.name] = _btu_index(host, view)
        backend.prolong(host.name)

    def release_or_prolong(self, host: HostView, view: View, backend: Backend) -> None:
        """Fig. 5: plan the release of every instance on ``host`` (released, or migrated to other hosts, where a
        migration may scale down another type as Fig. 4 does), check the plan as a whole, then run it; a plan
        that cannot be made, or whose execution fails part-way (undone step by step), prolongs the host."""
        if self._vm_started_recently(view):
            return self._prolong(host, view, backend)
        if not any(host.instances.values()):
            if backend.release_host(host.name):
                self.releases += 1
                del view.hosts[host.name]
            return
        # the 20 % limit covers the whole plan: released here and scaled down elsewhere for migrations
        cap = {name: release_cap(self.max_release_share * op.instances, self.release_rounding)
               for name, op in view.operators.items()}
        release: list[str] = []
        migrate: list[str] = []
        for name, count in host.instances.items():
            op = view.operators[name]
            allowed = cap[name] if operator_selection(op, view, self.weights, self.ql, self.penalty) > 0 \
                and not self._cooling(name, view) else 0
            n_release = min(count, allowed)
            release += [name] * n_release
            migrate += [name] * (count - n_release)
        # phase 1: simulate the migrations on copies of the other hosts, with the upscaling procedure of
        # Fig. 4 minus leasing (a full host may make room by scaling down another operator type)
        others = {n: HostView(h.name, h.cpu, h.memory, h.used_cpu, h.used_memory, h.leased_at, h.ready,
                              dict(h.instances), set(h.images), h.per_operator)
                  for n, h in view.hosts.items() if n != host.name}
        shadow = View(view.now, view.operators, others, view.btu_s, view.vm_cpu, view.vm_memory, view.vm_per_operator)
        removed = {name: 0 for name in view.operators}
        for name in release:
            removed[name] += 1
        victims: list[tuple[str, str]] = []
        targets: list[tuple[str, str]] = []
        for name in migrate:
            op = view.operators[name]
            target = self.best_host(op, shadow)
            if target is None:
                freed = self._simulated_scaledown(op, shadow, removed, cap) if self.migrate_with_scaledown else None
                if freed is None:
                    self._prolong(host, view, backend)
                    return
                victims.append(freed)
                target = freed[1]
            shadow.place(target, op, +1, count=False)
            targets.append((name, target))
        # phases 2 and 3: release, scale down, migrate (start on the target, then stop here); every step undone
        # if a later one fails
        steps = [("remove", name, host.name) for name in release] + [("remove", name, w) for name, w in victims]
        steps += [step for name, target in targets for step in (("add", name, target), ("remove", name, host.name))]
        done: list[tuple[str, str, str]] = []  # (kind, operator, host)
        for kind, name, where in steps:
            if not self._step(backend, view, done, kind, name, where):
                return self._undo(done, host, view, backend)
        self.migrations += len(targets)
        if backend.release_host(host.name):
            self.releases += 1
            del view.hosts[host.name]
        else:
            self._prolong(host, view, backend)

    @staticmethod
    def _step(backend: Backend, view: View, done: list[tuple[str, str, str]], kind: str, name: str,
              where: str) -> bool:
        """One step of a release plan through the backend, recorded in ``view`` and ``done`` when it succeeded."""
        ok = backend.add_instance(name, where) if kind == "add" else backend.remove_instance(name, where)
        if ok:
            view.place(where, view.operators[name], +1 if kind == "add" else -1)
            done.append((kind, name, where))
        return ok

    def _undo(self, done: list[tuple[str, str, str]], host: HostView, view: View, backend: Backend) -> None:
        """Undo the steps a failed release plan already took (latest first), then keep the host."""
        self.rollbacks += 1
        for kind, name, where in reversed(done):
            if kind == "add" and backend.remove_instance(name, where):
                view.place(where, view.operators[name], -1)
            elif kind == "remove" and backend.add_instance(name, where):
                view.place(where, view.operators[name], +1)
        self._prolong(host, view, backend)

    def _simulated_scaledown(self, op: OperatorView, shadow: View, removed: dict[str, int],
                             cap: dict[str, int]) -> tuple[str, str] | None:
        """The first scaledown candidate on the shadow hosts, taken there (victim type, host), or None."""
        for name, host_name in self._scaledown_candidates(op, shadow, removed, cap):
            shadow.place(host_name, shadow.operators[name], -1, count=False)
            removed[name] += 1
            return name, host_name
        return None


def release_cap(share: float, rounding: str) -> int:
    """The 20 % rule's whole number of instances: ``share`` (max_release_share × instances) rounded down, to
    the nearest (halves to even) or up; a hair of tolerance so 0.2 × 15 is 3, not 2."""
    if rounding == "ceil":
        return math.ceil(share - 1e-9)
    if rounding == "round":
        return round(share)
    return math.floor(share + 1e-9)


def _btu_index(host: HostView, view: View) -> int:
    """Which BTU of its lease the host is in now (1 for the first)."""
    return math.ceil((view.now - host.leased_at) / view.btu_s - 1e-9)


def _fewer(op: OperatorView, removed: int) -> OperatorView:
    """The operator as it would look with ``removed`` instances fewer (for simulated decisions)."""
    return dataclasses.replace(op, instances=op.instances - removed) if removed else op
