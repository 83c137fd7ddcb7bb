"""Elastic policies for a running pipeline: from one interval's measurements to the next plan (pure).

Pure: no Spark here (it uses the elastic controllers and the schedulers, both below it). The runtime
(spark/runtime/live.py) measures every reasoning interval and hands an ``Observation`` to a ``Policy``, which
answers with a new plan or None (keep).
Five policies:

* ``HoldPolicy`` keeps the plan it was given; only lost nodes change it.

* ``ControllerPolicy`` runs Hochreiner et al.'s (2017) controllers (``threshold``, ``btu``)
  unchanged through the ``View``/``Backend`` interface they already use in the
  simulator. The cluster's nodes are the hosts: a node is "leased" while the
  plan uses it, "leasing" one takes the next unused node (cheapest per hour,
  then fastest), adding an instance adds a replica there (within the worker's
  replica slots).
* ``LatencyAwarePolicy`` is Ecker et al.'s (2025) online placement: re-place with hill
  climbing (or the hybrid) from the running plan when the measured rates or the nodes
  changed, and switch when Eq. 1 improves.
* ``SOdrpPolicy`` is Cardellini et al.'s (2017) S-ODRP loop: deploy a cost-minimizing plan
  without stream-rate data, then solve ODRP with the measured operator input
  rates, and again whenever they drift by more than ``drift``.
* Every policy re-places the same replica counts on the surviving nodes when
  nodes are lost (``recover``).

What the controllers see. A micro-batch engine has no per-operator input
queue to read: a batch's operators run one stage after another on all the
rows that arrived since the last batch. What is measured is the lag: the mean
time from a tuple's event time to the sink, less one trigger. The sources'
rows exist by the clock, so the backlog is their rate × that lag, and it is
shared among the operators by their busy time in the interval. An operator's
capacity is DS2's — replicas × tuples per busy second of its logic (CPU time
per tuple measured on the nodes it ran on). The SLA follows the simulator's
definition (sim/engine.py): an operator's *unloaded duration* is its processing
duration when nothing waits — the service time per tuple measured in the latest
interval in which the pipeline did not lag (its declared cost per tuple until
such an interval is seen); its SLO is ``slo`` × that (1: real time, as the
simulated controllers use it); its processing duration is the unloaded duration
plus the wait behind its share of the backlog. So, as in the simulator, an
operator that is not behind reads exactly its SLO.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from streamplace.coerce import coerce_value
from streamplace.elastic.controller import Controller, View
from streamplace.elastic.factory import CONTROLLERS, controller_parameters
from streamplace.elastic.view import HostState, OperatorState, build_view, scaled_operators
from streamplace.errors import ModelError, Problem, SpecError
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers import create
from streamplace.schedulers.base import DEFAULT_SCHEDULER
from streamplace.schedulers.odrp import Odrp, s_odrp


@dataclass(frozen=True)
class Observation:
    """One reasoning interval of a running plan."""

    at_s: float  # seconds since the live run started
    window_s: float
    source_rates: dict[str, float]  # what the sources offer (tuples/s)
    throughput: float  # sinks' input rate
    latency_ms: float | None  # mean event time → sink
    lag_s: float  # how far behind the sources the pipeline is: mean event time → sink, less one trigger (≥ 0)
    operators: dict[str, dict[str, float]]  # run.measure's per-operator rates and busy time


class Policy(Protocol):
    name: str
    #: why the last decide() returned a new plan, in words ("" where the policy does not say)
    reason: str

    def initial(self, cluster: Cluster) -> Plan:
        """The first plan (the pipeline starts with it)."""

    def decide(self, obs: Observation, plan: Plan, cluster: Cluster) -> Plan | None:
        """The next plan, or None to keep ``plan``."""


def shrink(cluster: Cluster, lost: set[str]) -> Cluster:
    """The cluster without the ``lost`` nodes (links and per-pair tables of the rest unchanged)."""
    nodes = tuple(n for n in cluster.nodes if n.id not in lost)
    if not nodes:
        raise ModelError([Problem("nodes", f"every node of {cluster.name} is lost ({', '.join(sorted(lost))})",
                                  "restart the cluster")])
    return Cluster(cluster.name, nodes, cluster.links, cluster.utilization_limit)


def place_counts(topology: Topology, cluster: Cluster, counts: dict[str, int],
                 slots: dict[str, int] | None = None, placer: str = DEFAULT_SCHEDULER) -> Plan:
    """A plan with exactly ``counts`` replicas per operator on ``cluster``: ``placer`` (R-Storm) places them; when
    that breaks a worker's replica slots (the most replicas of one operator a worker runs), round robin does.
    Raises ModelError with what was required and available when no node set can hold them."""
    topo = topology.with_replicas(counts)
    tried = []
    for name in dict.fromkeys((placer, "round-robin")):
        plan = create(name).plan(topo, cluster)
        if plan.usable and fits_slots(plan, slots):
            return plan
        tried.append(f"{name}: " + ("; ".join(plan.explanation) if not plan.usable else "breaks the replica slots"))
    need = max(counts.values(), default=0)
    room = sum((slots or {}).values()) if slots else "unbounded"
    raise ModelError([Problem("replicas", f"cannot place {sum(counts.values())} replicas (up to {need} of one "
                              f"operator) on {len(cluster.nodes)} nodes with {room} replica slots: "
                              + " | ".join(tried), "add nodes, or give the workers more [[replica_slots]]")])


def fits_slots(plan: Plan, slots: dict[str, int] | None) -> bool:
    if slots is None:
        return True
    return all(c <= slots.get(node, 0) for per in plan.replicas.values() for node, c in per.items() if c > 0)


def operator_backlog(topology: Topology, obs: Observation, plan: Plan) -> dict[str, tuple[float, float, float]]:
    """Operator → (items waiting, capacity t/s, service ms per tuple) from one interval's measurements.

    The rate sources' rows exist by the clock, so the pipeline's backlog is what they offered during its lag:
    offered rate × ``lag_s``. It is shared among the operators by their busy time in the interval (a batch's
    operators run one after another, so the one that took longest holds its rows longest). Capacity is
    DS2's: replicas × tuples per busy second of the operator's logic."""
    backlog = sum(obs.source_rates.values()) * obs.lag_s
    busy = {op.id: float(obs.operators.get(op.id, {}).get("busy_cores", 0.0)) for op in topology.operators}
    total = sum(busy.values())
    out = {}
    for op in topology.operators:
        m = obs.operators.get(op.id, {})
        service_ms = m.get("cost_ms_measured") or float(op.cost_ms)
        capacity = plan.parallelism(op.id) * 1000.0 / service_ms if service_ms > 0 else math.inf
        share = busy[op.id] / total if total > 0 else 0.0
        out[op.id] = (backlog * share, capacity, service_ms)
    return out


@dataclass
class LiveBackend:
    """The controllers' Backend over a fixed set of nodes: replicas per (operator, node) as the plan will have.
    It places an instance only where the controller asked, within the node's replica slots (the view shows the
    slots, so the controllers choose within them), and counts every instance added or removed (``scalings``),
    as the simulator does."""

    cluster: Cluster
    slots: dict[str, int]
    replicas: dict[str, dict[str, int]]
    leased: dict[str, float]  # node → when it was taken into use
    now: float = 0.0
    scalings: dict[str, int] = field(default_factory=dict)

    def add_instance(self, operator: str, host: str) -> bool:
        per = self.replicas.setdefault(operator, {})
        if host not in self.leased or per.get(host, 0) >= self.slots.get(host, 0):
            return False
        per[host] = per.get(host, 0) + 1
        self.scalings[operator] = self.scalings.get(operator, 0) + 1
        return True

    def remove_instance(self, operator: str, host: str | None = None) -> bool:
        per = self.replicas.get(operator, {})
        if sum(per.values()) <= 1:
            return False
        if host is None:  # where it has the most (ties: the node taken into use last)
            host = max((n for n, c in per.items() if c > 0), key=lambda n: (per[n], self.leased.get(n, 0.0)))
        if per.get(host, 0) <= 0:
            return False
        per[host] -= 1
        self.scalings[operator] = self.scalings.get(operator, 0) + 1
        return True

    def lease_host(self) -> str:
        free = [n for n in self.cluster.nodes if n.id not in self.leased]
        if not free:
            return ""  # nothing left: add_instance there is refused
        node = min(free, key=lambda n: (n.cost_per_hour, -n.speedup, n.id))
        self.leased[node.id] = self.now
        return node.id

    def release_host(self, host: str) -> bool:
        if any(per.get(host, 0) for per in self.replicas.values()) or host not in self.leased:
            return False
        del self.leased[host]
        return True

    def prolong(self, host: str) -> None:
        pass


@dataclass
class ControllerPolicy:
    """Hochreiner et al.'s (2017) threshold or BTU controller deciding a running pipeline's replica counts and nodes."""

    topology: Topology
    controller: Controller
    slots: dict[str, int]
    initial_plan: Plan
    slo: float = 1.0  # SLO = slo × the operator's unloaded duration (1: real time, Hochreiner et al. 2017)
    btu_s: float = 600.0
    history: int = 10
    name: str = "controller"
    durations: dict[str, list[float]] = field(default_factory=dict)
    #: operator → its unloaded duration (ms per tuple), measured in the latest interval without lag
    unloaded: dict[str, float] = field(default_factory=dict)
    scalings: dict[str, int] = field(default_factory=dict)
    leased: dict[str, float] = field(default_factory=dict)
    reason: str = ""

    def __post_init__(self) -> None:
        self.name = self.controller.name

    def initial(self, cluster: Cluster) -> Plan:
        self.leased = {n: 0.0 for n in self.initial_plan.nodes_used()}
        return self.initial_plan

    def decide(self, obs: Observation, plan: Plan, cluster: Cluster) -> Plan | None:
        state = operator_backlog(self.topology, obs, plan)
        replicas = placed(plan.replicas)
        alive = {n.id for n in cluster.nodes}
        self.leased = {n: t for n, t in self.leased.items() if n in alive}
        for per in replicas.values():
            for n in per:
                self.leased.setdefault(n, obs.at_s)
        backend = LiveBackend(cluster, self.slots, replicas, dict(self.leased), obs.at_s)
        view = self._view(obs, state, replicas, cluster)
        self.controller.reason(view, backend)
        self.leased = backend.leased
        for op, changed in backend.scalings.items():  # every instance added or removed, as the simulator counts
            self.scalings[op] = self.scalings.get(op, 0) + changed
        if replicas == placed(plan.replicas):
            return None
        before, after = plan.counts(), {op: sum(per.values()) for op, per in replicas.items()}
        why = []
        for op in after:
            if after[op] != before.get(op, 0) and op in view.operators:
                o = view.operators[op]
                why.append(f"{op}: {o.queue:,.0f} queued, last duration {o.durations_ms[-1]:,.0f} ms against an SLO "
                           f"of {o.expected_ms:,.0f} ms" if o.durations_ms else f"{op}: {o.queue:,.0f} queued")
        self.reason = "; ".join(why) or "the controller moved replicas between nodes"
        return Plan(self.name, self.topology.name, cluster.name, replicas,
                    source_rates=dict(plan.source_rates), params={"interval_at_s": obs.at_s})

    def _view(self, obs: Observation, state: dict[str, tuple[float, float, float]],
              replicas: dict[str, dict[str, int]], cluster: Cluster) -> View:
        """The controllers' view through the simulator's builder (elastic/view.py): the sources are not scaled,
        a node's replica slots are its per-operator cap."""
        operators = {}
        for op in scaled_operators(self.topology):
            q, capacity, service_ms = state[op.id]
            if obs.lag_s <= 0 and obs.operators.get(op.id, {}).get("cost_ms_measured"):
                self.unloaded[op.id] = service_ms
            unloaded_ms = self.unloaded.get(op.id) or float(op.cost_ms) or service_ms
            wait_ms = 1000.0 * q / capacity if capacity > 0 and math.isfinite(capacity) else 0.0
            hist = self.durations.setdefault(op.id, [])
            hist.append(unloaded_ms + wait_ms)
            del hist[:-self.history]
            n = sum(replicas.get(op.id, {}).values())
            operators[op.id] = OperatorState(q, n, n, self.slo * unloaded_ms, tuple(hist), self.scalings.get(op.id, 0))
        hosts = []
        for node in cluster.nodes:
            if node.id not in self.leased:
                continue
            on = {op: per[node.id] for op, per in replicas.items() if per.get(node.id)}
            hosts.append(HostState(node.id, float(node.cpu), float(node.memory_mb), self.leased[node.id], True, on,
                                   frozenset(on), self.slots.get(node.id, 0)))
        free = [n for n in cluster.nodes if n.id not in self.leased]
        nxt = min(free, key=lambda n: (n.cost_per_hour, -n.speedup, n.id)) if free else None
        return build_view(self.topology, obs.at_s, operators, hosts, self.btu_s, float(nxt.cpu) if nxt else 0.0,
                          float(nxt.memory_mb) if nxt else 0.0, self.slots.get(nxt.id, 0) if nxt else None)


@dataclass
class SOdrpPolicy:
    """Cardellini et al.'s (2017) S-ODRP: a cost-minimizing first deployment, then ODRP with measured input rates."""

    topology: Topology
    scheduler: Odrp
    slots: dict[str, int] | None = None
    drift: float = 0.25  # re-plan when an operator's measured rate moved by more than this share
    name: str = "s-odrp"
    used_rates: dict[str, float] | None = None
    reason: str = ""

    def initial(self, cluster: Cluster) -> Plan:
        return self._enactable(s_odrp(self.topology, cluster, self.scheduler), cluster)

    def decide(self, obs: Observation, plan: Plan, cluster: Cluster) -> Plan | None:
        rates = measured_input_rates(self.topology, obs)
        if self.used_rates is not None and not drifted(self.used_rates, rates, self.drift):
            return None
        why = drift_reason(self.used_rates, rates, self.drift)
        self.used_rates = rates
        new = self._enactable(s_odrp(self.topology, cluster, self.scheduler, rates), cluster)
        if placed(new.replicas) == placed(plan.replicas):
            return None
        self.reason = f"{why}: ODRP re-solved at the measured rates"
        return new

    def _enactable(self, plan: Plan, cluster: Cluster) -> Plan:
        if not plan.usable:
            raise ModelError([Problem("s-odrp", "; ".join(plan.explanation) or plan.status,
                                      "relax the ODRP bounds or add nodes")])
        if fits_slots(plan, self.slots):
            return plan
        return place_counts(self.topology, cluster, plan.counts(), self.slots).evolve(
            scheduler=self.name, warnings=(*plan.warnings, "ODRP's placement broke the workers' replica slots; "
                                           "its replica counts were re-placed"))


def measured_input_rates(topology: Topology, obs: Observation) -> dict[str, float]:
    """Operator input rates the sources' offered rates would give, from the measured ones: when the pipeline lags,
    every measured rate is scaled by offered / emitted at the sources (measured selectivities, true load)."""
    emitted = sum(obs.operators.get(s.id, {}).get("output_per_s", 0.0) for s in topology.sources)
    offered = sum(obs.source_rates.values())
    scale = offered / emitted if emitted > 0 else 1.0
    out = {op.id: obs.operators.get(op.id, {}).get("input_per_s", 0.0) * scale for op in topology.operators}
    for s in topology.sources:
        out[s.id] = obs.source_rates.get(s.id, out[s.id])
    return out


def drifted(old: dict[str, float], new: dict[str, float], share: float) -> bool:
    return any(abs(new.get(k, 0.0) - v) > share * max(v, 1e-9) for k, v in old.items())


def drift_reason(old: dict[str, float] | None, new: dict[str, float], share: float, most: int = 3) -> str:
    """In words, the operators whose measured input rate moved by more than ``share`` (the largest moves first)."""
    if old is None:
        return "the first measured rates"
    moved = sorted(((abs(new.get(k, 0.0) - v) / max(v, 1e-9), k, v) for k, v in old.items()
                    if abs(new.get(k, 0.0) - v) > share * max(v, 1e-9)), reverse=True)
    if not moved:
        return "the measured rates"
    shown = ", ".join(f"{k} {v:,.1f}→{new.get(k, 0.0):,.1f} t/s" for _, k, v in moved[:most])
    return f"input rates moved more than {share:.0%} ({shown}{', …' if len(moved) > most else ''})"


def placed(replicas: Any) -> dict[str, dict[str, int]]:
    """A plan's replicas as plain, mutable dicts without zero counts (what comparing and editing plans needs)."""
    return {op: {n: int(c) for n, c in per.items() if c > 0} for op, per in replicas.items()}


@dataclass
class HoldPolicy:
    """Keep the first plan (only lost nodes make the runtime re-place it): a plan enacted with failure recovery."""

    initial_plan: Plan
    name: str = "hold"
    reason: str = ""

    def initial(self, cluster: Cluster) -> Plan:
        return self.initial_plan

    def decide(self, obs: Observation, plan: Plan, cluster: Cluster) -> Plan | None:
        return None


@dataclass
class LatencyAwarePolicy:
    """Ecker et al.'s (2025) online placement (§5): every reasoning interval, when the operators' measured input
    rates drifted by more than ``drift`` or the cluster's nodes changed, re-place the running plan's replicas
    with hill climbing (or the hybrid) *starting from the running plan*, and switch only when the new placement
    scores better on Eq. 1 at the measured rates (a switch restarts the query). Replica counts stay."""

    topology: Topology
    scheduler: Any  # hill-climbing or hybrid (schedulers/latency_aware.py)
    initial_plan: Plan
    drift: float = 0.1
    name: str = "latency-aware"
    used_rates: dict[str, float] | None = None
    used_nodes: tuple[str, ...] | None = None
    replans: int = 0  # re-plans made (whether or not they were switched to)
    reason: str = ""

    def initial(self, cluster: Cluster) -> Plan:
        self.used_nodes = tuple(n.id for n in cluster.nodes)
        return self.initial_plan

    def decide(self, obs: Observation, plan: Plan, cluster: Cluster) -> Plan | None:
        rates = measured_input_rates(self.topology, obs)
        nodes = tuple(n.id for n in cluster.nodes)
        if self.used_rates is not None and not drifted(self.used_rates, rates, self.drift) \
                and nodes == self.used_nodes:
            return None
        why = drift_reason(self.used_rates, rates, self.drift) if nodes == self.used_nodes else \
            f"the cluster's nodes changed ({len(self.used_nodes or ())} → {len(nodes)})"
        self.used_rates, self.used_nodes = rates, nodes
        now = Topology(self.topology.name, tuple(
            dataclasses.replace(op, rate=obs.source_rates.get(op.id, op.rate)) if op.is_source else op
            for op in self.topology.operators), self.topology.streams)
        self.replans += 1
        current = plan if set(plan.nodes_used()) <= set(nodes) else None  # lost nodes: the search starts afresh
        new = self.scheduler.plan(now.with_replicas(plan.counts()), cluster, current=current)
        if not new.usable or placed(new.replicas) == placed(plan.replicas):
            return None
        if current is not None:  # the running plan still fits the cluster: switch only for a better Eq. 1
            before = evaluate(now, cluster, plan).score
            after = evaluate(now, cluster, new).score
            if (after.violations, after.score) >= (before.violations, before.score - 1e-12):
                return None
            why += f"; Eq. 1 score {before.score:.4g} → {after.score:.4g}"
        self.reason = why
        return new.evolve(scheduler=self.name, params={**new.params, "interval_at_s": obs.at_s})


POLICIES = ("hold", "threshold", "btu", "s-odrp", "latency-aware")
POLICY_KEYS = {"slo", "btu_s", "history"}


def make_policy(name: str, topology: Topology, cluster: Cluster, params: dict[str, str], slots: dict[str, int],
                initial_plan: Plan | None, interval_s: float | None = None) -> Policy:
    """A live policy by name. ``threshold`` / ``btu`` take the controller's constants plus ``slo``, ``btu_s`` and
    ``history`` and start from ``initial_plan``; ``s-odrp`` takes ODRP's parameters plus ``drift`` and makes its
    own first plan. ``interval_s``: the live loop's reasoning interval (the BTU controller's ``reason_s``, which
    bounds its release window from below, as the simulator sets it from its own)."""
    if name in ("hold", "latency-aware", *CONTROLLERS) and initial_plan is None:
        raise ValueError(f"the {name} policy starts from a plan")
    if name == "hold":
        assert initial_plan is not None
        if params:
            raise SpecError([Problem(f"params.{next(iter(params))}", "the hold policy takes no parameters",
                                     "drop the [[params]], or pick another [[policy]]")])
        return HoldPolicy(initial_plan)
    if name == "latency-aware":
        assert initial_plan is not None
        search = params.get("scheduler", "hill-climbing")
        if search not in ("hill-climbing", "hybrid"):
            raise SpecError([Problem("params.scheduler", f"{search!r} is not a latency-aware search",
                                     "use hill-climbing or hybrid")])
        placer = create(search, {k: v for k, v in params.items() if k not in ("scheduler", "drift")})
        drift = _coerce(LatencyAwarePolicy, "drift", params["drift"]) if "drift" in params else 0.1
        return LatencyAwarePolicy(topology, placer, initial_plan, drift)
    if name == "s-odrp":
        odrp = create("odrp", {k: v for k, v in params.items() if k != "drift"})
        assert isinstance(odrp, Odrp)
        drift = _coerce(SOdrpPolicy, "drift", params["drift"]) if "drift" in params else 0.25
        return SOdrpPolicy(topology, odrp, slots, drift)
    if name not in CONTROLLERS:
        raise SpecError([Problem("policy", f"unknown policy {name!r}", f"use one of {', '.join(POLICIES)}")])
    known = set(controller_parameters(name))
    bad = [k for k in params if k not in known | POLICY_KEYS]
    if bad:
        raise SpecError([Problem(f"params.{bad[0]}", f"not a parameter of the live {name!r} policy",
                                 f"use one of {', '.join(sorted(known | POLICY_KEYS))}")])
    cls = CONTROLLERS[name]
    ctrl = cls(**{k: _coerce(cls, k, v) for k, v in params.items() if k in known})
    own = {k: _coerce(ControllerPolicy, k, v) for k, v in params.items() if k in POLICY_KEYS}
    assert initial_plan is not None
    if interval_s is not None and hasattr(ctrl, "reason_s"):
        ctrl.reason_s = float(interval_s)
    return ControllerPolicy(topology, ctrl, slots, initial_plan, **own)


def _coerce(cls: type, key: str, value: str) -> Any:
    """A parameter's text as the type of ``cls``'s field ``key`` (the simulator's rules)."""
    import typing

    def fail(message: str) -> SpecError:
        return SpecError([Problem(f"params.{key}", message, f"write it as {key}=VALUE")])

    return coerce_value(value, typing.get_type_hints(cls)[key], key, fail)
