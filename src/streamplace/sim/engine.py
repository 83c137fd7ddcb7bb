"""Discrete-time simulation of elastic stream processing (Hochreiner et al.'s (2017) setting).

Every operator type has a FIFO queue of fluid item batches; each *ready* instance
serves items one at a time. The expected duration E of Table 2 is the SLO and, in
the paper's words, "the processing duration in a constant over-provisioning
scenario": the mean time one item takes at an operator when it never waits,
including the messaging between operators. We model that *unloaded duration* as
U = (1 − r)·E + S: the instance is busy for S, a gamma-distributed service time
of mean r·E (r = ``service_ratio``, coefficient of variation ``service_cv``; 1 is
the exponential service of classical queueing models), and the rest is
messaging that does not occupy the instance. So E[U] = E. An item's processing
duration is its wait in the queue plus U; it complies with the SLA at level L
when that is at most L × E (real time 1×, near real time 2×, relaxed 5×). Even an
item that never waits misses real time when its service is slower than average:
with the defaults an unqueued item meets real time with probability 0.63, near
real time 0.992 and relaxed 1.0 (the paper's levels differ by 30–45 points from
real time to relaxed; the paper gives means only, so the spread is our
assumption — see docs/reproduction.md). Compliance is exact for the fluid
batches: a batch that waited w contributes its size × P(U ≤ L·E − w).

``service_ratio`` defaults to 0.26, derived from the paper's own figures, not from
the results: at 8 machines the operators receive Σ λ_i = 387 items/s (the penalty totals of
Tables 3–6 imply about 1.5 M items processed in 120 minutes, which these rates
reproduce), which keep Σ λ_i·E_i = 271 instances busy for their whole expected durations,
and Fig. 8 shows at most about 70 operator instances; 70 instances fully busy serve that
load when each item occupies one for 70 / 271 = 0.26 of its expected duration — an upper bound
(instances below full utilization mean a smaller ratio; docs/reproduction.md shows 0.15–0.3).
It was 0.3 (a rounded "0.18 s per item over a mean SLO of about 0.6 s"). With the ratio at 1 the
same load needs about 270 instances.

Load (``arrivals``, ``service``): by default the items the sources emit in a step and the items an
operator's ready instances finish are Poisson counts of their means (a seeded stream of its own), so a
queue fluctuates as a real one does; "fluid" takes the means themselves — then a queue is exactly empty
whenever capacity covers demand, and the baseline's "queue below 1 → remove one instance" fires every
interval. Billing (``billing``): "committed" bills every BTU a prolongation committed to, also one that
would start after the run's end (the paper bills every prolongation); "started" only those that started.

Monitoring reports an operator's mean processing duration (mean wait + E), as
the paper's operators record it, so an operator that is not behind reads its SLO.

Time to adapt (Hochreiner et al. 2017): for every operator type, a delay episode opens at the
first monitoring sample above the SLO and closes at the first one back within
it; the metric is the mean episode length. Sources emit their per-machine
rate × the machines of the arrival pattern. Outputs (× selectivity) join every
downstream queue (fan-out duplicates).

Hosts are VMs: leasing one takes 30–60 s, starting an instance 5–10 s when its
image is cached on the host and 30–45 s otherwise (drawn from a seeded
generator); instances need their CPU points and memory on a host. Every
started BTU of a lease is paid. Monitoring records mean processing durations
every 15 s; the controller reasons every 60 s. Everything is deterministic for
a seed. Cost: O(steps × operators).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.special import gammainc

from streamplace.elastic.billing import Lease, lease_cost, paid_btus
from streamplace.elastic.controller import Controller, View
from streamplace.elastic.patterns import Pattern
from streamplace.elastic.view import HostState, OperatorState, build_view, scaled_operators
from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.rates import operator_rates, selectivities

LEVELS = {"realtime": 1.0, "near_realtime": 2.0, "relaxed": 5.0}
_FACTORS = np.array(list(LEVELS.values()))


def unloaded_within(limit_ms: np.ndarray | float, expected_ms: float, service_ratio: float,
                    service_cv: float) -> np.ndarray:
    """P(U ≤ limit) for the unloaded duration U = (1 − r)·E + S, S ~ gamma(mean r·E, CV ``service_cv``).

    The share of items that meet ``limit_ms`` when they did not wait (see the module docstring); O(1) per limit.
    """
    shape = 1.0 / service_cv**2
    scale = service_ratio * expected_ms / shape
    slack = np.maximum(np.asarray(limit_ms, dtype=float) - (1.0 - service_ratio) * expected_ms, 0.0)
    return gammainc(shape, slack / scale) if scale > 0 else (slack >= 0).astype(float)


@dataclass(frozen=True)
class SimConfig:
    minutes: int = 120
    dt: float = 1.0
    monitor_s: float = 15.0
    reason_s: float = 60.0
    btu_minutes: float = 10.0
    price_per_btu: float | None = None  # default: the VM's cost_per_hour × BTU length (1 per 10 min for VISP)
    lease_delay_s: tuple[float, float] = (30.0, 60.0)
    start_cached_s: tuple[float, float] = (5.0, 10.0)
    start_uncached_s: tuple[float, float] = (30.0, 45.0)
    penalty_per_item: float = 0.0001
    history: int = 10  # monitoring samples kept per operator (Hochreiner et al.'s (2017) N)
    initial_hosts: int = 1
    #: 0: the run starts with one instance per operator type (the paper's "each operator is deployed once");
    #: u in (0, 1]: with enough instances per type that the first minute's load keeps them at most u busy
    initial_utilization: float = 0.0
    service_ratio: float = 0.26  # mean service time / expected duration (see the module docstring)
    service_cv: float = 1.0  # coefficient of variation of an item's service time (1: exponential)
    #: "poisson": the items the sources emit in a step are a Poisson count of its mean (seeded); "fluid": the
    #: mean itself — then a queue is exactly empty whenever capacity covers demand
    arrivals: Literal["poisson", "fluid"] = "poisson"
    #: "poisson": the items an operator's ready instances finish in a step are a Poisson count of their capacity
    #: (exponential service; seeded); "fluid": the capacity itself
    service: Literal["poisson", "fluid"] = "poisson"
    #: "committed": a lease is billed for every BTU the controller committed to, a BTU it was prolonged into
    #: included even where the run ends before it starts (the paper bills every prolongation); "started": only
    #: BTUs that started before the run's end
    billing: Literal["committed", "started"] = "committed"
    #: what monitoring reports as an operator's queue: "waiting", the items waiting on its incoming queue (the
    #: paper's text); "messages", RabbitMQ's message count as the authors' code reads it — every item delivered and
    #: not yet acknowledged too, i.e. the waiting items plus those in service (an instance holds up to five
    #: prefetched ones, but ready plus unacknowledged counts each item once either way)
    queue_reading: Literal["waiting", "messages"] = "waiting"
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.service_ratio <= 1:
            raise ValueError(f"service_ratio must lie in (0, 1], got {self.service_ratio}")
        if not self.service_cv > 0:
            raise ValueError(f"service_cv must be positive, got {self.service_cv}")
        if self.minutes <= 0 or self.dt <= 0:
            raise ValueError("minutes and dt must be positive")
        positive = ("btu_minutes", "monitor_s", "reason_s", "history")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.price_per_btu is not None and self.price_per_btu < 0:
            raise ValueError(f"price_per_btu must be ≥ 0, got {self.price_per_btu}")
        if not 0 <= self.initial_utilization <= 1:
            raise ValueError(f"initial_utilization must lie in [0, 1], got {self.initial_utilization}")
        if self.penalty_per_item < 0 or self.initial_hosts < 1:
            raise ValueError("penalty_per_item must be ≥ 0 and initial_hosts ≥ 1")
        for name in ("lease_delay_s", "start_cached_s", "start_uncached_s"):
            low, high = getattr(self, name)
            if not 0 <= low <= high:
                raise ValueError(f"{name} must be two delays 0 ≤ low ≤ high, got {low}, {high}")


@dataclass
class Host:
    name: str
    lease: Lease
    ready_at: float
    cpu: float
    memory: float
    images: set[str] = field(default_factory=set)
    release_pending: bool = False


@dataclass
class Instance:
    operator: str
    host: str
    ready_at: float


@dataclass
class SimResult:
    summary: dict
    series: dict[str, np.ndarray]  # per minute
    conservation: dict[str, tuple[float, float, float, float]]  # op: (arrived, processed, queued, dropped)


class Simulator:
    """The backend the controller acts through, and the clock."""

    def __init__(self, topology: Topology, vm: Cluster, pattern: Pattern, controller: Controller, cfg: SimConfig):
        self.topology, self.pattern, self.controller, self.cfg = topology, pattern, controller, cfg
        self.rng = np.random.default_rng(cfg.seed)
        node = vm.nodes[0]
        self.vm_cpu, self.vm_memory = node.cpu, node.memory_mb
        too_big = [op for op in topology.operators if not op.is_source
                   and (op.cpu > node.cpu + 1e-9 or op.memory_mb > node.memory_mb + 1e-9)]
        if too_big:  # no lease could ever host one: its items would pile up unserved while the run reports on
            raise ModelError([Problem(f"operators.{op.id}", f"one instance needs {op.cpu:g} CPU points and "
                                      f"{op.memory_mb:g} MB; the VM type {node.id!r} offers {node.cpu:g} and "
                                      f"{node.memory_mb:g} MB", "lease a larger VM type, or give the operator "
                                      "smaller cpu / memory_mb") for op in too_big], topology.name)
        # upstream first, so that what an operator emits in a step is served downstream in the same step
        self.ops = scaled_operators(topology)
        self.sources = list(topology.sources)
        alpha = selectivities(topology)
        self.alpha = {op.id: float(alpha[topology.index[op.id]]) for op in topology.operators}
        self.downstream = {op.id: topology.successors(op.id) for op in topology.operators}
        self.queues: dict[str, deque] = {op.id: deque() for op in self.ops}
        self.in_service = {op.id: 0.0 for op in self.ops}  # items being served at the end of the last step
        self.counters = {op.id: [0.0, 0.0, 0.0] for op in self.ops}  # arrived, processed, dropped
        self.hosts: dict[str, Host] = {}
        self.leases: list[Lease] = []
        self.instances: list[Instance] = []
        self.now = 0.0
        self.window = {op.id: [0.0, 0.0] for op in self.ops}  # (wait·items in ms, items) since the last sample
        self.history: dict[str, list[float]] = {op.id: [] for op in self.ops}
        self.scalings = {op.id: 0 for op in self.ops}
        self.counts = {"up": 0, "down": 0, "leases": 0, "releases": 0, "prolongations": 0}
        self.compliant = np.zeros(len(LEVELS))  # items per level, in LEVELS' order
        self._met_cache: dict[tuple[float, float], np.ndarray] = {}
        self.processed_total = 0.0
        self.delayed_since: dict[str, float | None] = dict.fromkeys(self.window)
        self.adapt_times: list[float] = []
        self._names = 0
        #: arrivals and service draw from their own seeded stream, so the start-up and lease delays are the same
        #: draws whether the load is fluid or stochastic
        self.load_rng = np.random.default_rng([cfg.seed, 1])
        self.committed: dict[str, int] = {}  # host → BTUs its lease is committed to (prolongations)

    # ------------------------------------------------------------------ backend
    def lease_host(self) -> str:
        self._names += 1
        name = f"vm-{self._names}"
        lease = Lease(self.now)
        delay = float(self.rng.uniform(*self.cfg.lease_delay_s)) if self.now > 0 else 0.0
        self.hosts[name] = Host(name, lease, self.now + delay, self.vm_cpu, self.vm_memory)
        self.leases.append(lease)
        self.counts["leases"] += 1
        return name

    def release_host(self, host: str) -> bool:
        h = self.hosts.get(host)
        if h is None or any(i.host == host for i in self.instances):
            return False
        idx = self.leases.index(h.lease)
        self.leases[idx] = Lease(h.lease.start, self.now)
        del self.hosts[host]
        self.counts["releases"] += 1
        return True

    def prolong(self, host: str) -> None:
        """Keep a host for another BTU: counted, and committed — under ``billing="committed"`` the BTU after its
        current one is paid even where the run ends first."""
        self.counts["prolongations"] += 1
        h = self.hosts.get(host)
        if h is not None:
            btu_s = self.cfg.btu_minutes * 60
            self.committed[host] = max(self.committed.get(host, 0),
                                       paid_btus(max(self.now - h.lease.start, 1e-9), btu_s) + 1)

    def add_instance(self, operator: str, host: str) -> bool:
        h = self.hosts.get(host)
        op = self.topology.op(operator)
        if h is None or self._used(host)[0] + op.cpu > h.cpu + 1e-9 or self._used(host)[1] + op.memory_mb > h.memory:
            return False
        delay = self.cfg.start_cached_s if operator in h.images else self.cfg.start_uncached_s
        ready = max(self.now, h.ready_at) + float(self.rng.uniform(*delay))
        h.images.add(operator)
        self.instances.append(Instance(operator, host, ready))
        self.scalings[operator] += 1
        self.counts["up"] += 1
        return True

    def remove_instance(self, operator: str, host: str | None = None) -> bool:
        candidates = [k for k, i in enumerate(self.instances) if i.operator == operator and (host is None or
                                                                                              i.host == host)]
        if not candidates or sum(i.operator == operator for i in self.instances) <= 1:
            return False
        del self.instances[candidates[-1]]  # the most recently started
        self.scalings[operator] += 1
        self.counts["down"] += 1
        return True

    def _used(self, host: str) -> tuple[float, float]:
        cpu = mem = 0.0
        for i in self.instances:
            if i.host == host:
                op = self.topology.op(i.operator)
                cpu += op.cpu
                mem += op.memory_mb
        return cpu, mem

    # ------------------------------------------------------------------ clock
    def view(self) -> View:
        """What the controller sees now, through the one builder the live loop uses too (elastic/view.py)."""
        operators = {}
        for op in self.ops:
            mine = [i for i in self.instances if i.operator == op.id]
            queue = float(sum(b[1] for b in self.queues[op.id]))
            if self.cfg.queue_reading == "messages":
                queue += self.in_service[op.id]
            operators[op.id] = OperatorState(queue, len(mine),
                                             sum(i.ready_at <= self.now for i in mine), op.cost_ms,
                                             tuple(self.history[op.id]), self.scalings[op.id])
        hosts = []
        for h in self.hosts.values():
            on: dict[str, int] = {}
            for i in self.instances:
                if i.host == h.name:
                    on[i.operator] = on.get(i.operator, 0) + 1
            hosts.append(HostState(h.name, h.cpu, h.memory, h.lease.start, h.ready_at <= self.now, on,
                                   frozenset(h.images)))
        return build_view(self.topology, self.now, operators, hosts, self.cfg.btu_minutes * 60, self.vm_cpu,
                          self.vm_memory)

    def deploy_initial(self) -> None:
        for _ in range(self.cfg.initial_hosts):
            self.lease_host()
        counts = self._initial_counts()
        for op in self.ops:
            for _ in range(counts[op.id]):
                for name in list(self.hosts):
                    if self.add_instance(op.id, name):
                        break
                else:
                    self.add_instance(op.id, self.lease_host())
        for i in self.instances:
            i.ready_at = 0.0  # the initial deployment is up when the run starts
        self.counts["up"] = 0
        self.scalings = dict.fromkeys(self.scalings, 0)

    def _initial_counts(self) -> dict[str, int]:
        """Instances per operator at the start: one each, or as many as ``initial_utilization`` asks for the first
        minute's load (the arrival rates of perf.rates at the first minute's machines)."""
        u = self.cfg.initial_utilization
        if u <= 0:
            return {op.id: 1 for op in self.ops}
        machines = self.pattern.at(0.0)
        rates = operator_rates(self.topology, None, {s.id: float(s.rate or 0.0) * machines for s in self.sources})
        out = {}
        for op in self.ops:
            busy = float(rates.input[self.topology.index[op.id]]) * op.cost_ms * self.cfg.service_ratio / 1000.0
            out[op.id] = max(1, math.ceil(busy / u - 1e-9))  # instances kept busy, at most u each
        return out

    def step(self) -> None:
        dt = self.cfg.dt
        machines = self.pattern.at(self.now)
        for src in self.sources:
            amount = float(src.rate or 0.0) * machines * dt
            if self.cfg.arrivals == "poisson":
                amount = float(self.load_rng.poisson(amount))
            for d in self.downstream[src.id]:
                self._enqueue(d, amount)
        ready: dict[str, int] = {}
        for i in self.instances:
            if i.ready_at <= self.now:
                ready[i.operator] = ready.get(i.operator, 0) + 1
        for op in self.ops:
            service_ms = op.cost_ms * self.cfg.service_ratio
            capacity = ready.get(op.id, 0) * dt * 1000.0 / service_ms if service_ms > 0 else np.inf
            if self.cfg.service == "poisson" and np.isfinite(capacity) and self.queues[op.id]:
                capacity = float(self.load_rng.poisson(capacity))
            served = self._serve(op.id, capacity, op.cost_ms)
            # Little's law over the step: the items in service are the busy instances
            self.in_service[op.id] = min(float(ready.get(op.id, 0)), served * service_ms / (dt * 1000.0))
            if served > 0:
                out = served * self.alpha[op.id]
                for d in self.downstream[op.id]:
                    self._enqueue(d, out)
        self.now += dt

    def _enqueue(self, op: str, amount: float) -> None:
        if amount > 0:
            self.queues[op].append([self.now, amount])
            self.counters[op][0] += amount

    def _levels_met(self, expected_ms: float, wait_ms: float) -> np.ndarray:
        """P(an item that waited ``wait_ms`` meets each SLA level); waits are multiples of dt, so memoized."""
        key = (expected_ms, wait_ms)
        met = self._met_cache.get(key)
        if met is None:
            met = unloaded_within(_FACTORS * expected_ms - wait_ms, expected_ms, self.cfg.service_ratio,
                                  self.cfg.service_cv)
            self._met_cache[key] = met
        return met

    def judge_unserved(self) -> tuple[float, np.ndarray]:
        """Items still queued when the run ends, and how many of them would meet each level were they served
        now (their wait so far is a lower bound on their delay, so one that has already waited past a level's
        limit misses it): the run's compliance counts them, so a controller cannot look compliant by leaving
        work unserved at the end."""
        unserved, met = 0.0, np.zeros(len(LEVELS))
        for op in self.ops:
            for t_enq, amount in self.queues[op.id]:
                unserved += amount
                met += amount * self._levels_met(op.cost_ms, (self.now - t_enq) * 1000.0)
        return unserved, met

    def _serve(self, op: str, capacity: float, expected_ms: float) -> float:
        q = self.queues[op]
        served = 0.0
        window = self.window[op]
        while q and capacity > 1e-12:
            t_enq, amount = q[0]
            take = min(amount, capacity)
            wait_ms = (self.now - t_enq) * 1000.0
            self.compliant += take * self._levels_met(expected_ms, wait_ms)
            window[0] += wait_ms * take
            window[1] += take
            served += take
            capacity -= take
            if take >= amount - 1e-12:
                q.popleft()
            else:
                q[0][1] = amount - take
        self.counters[op][1] += served
        self.processed_total += served
        return served

    def monitor(self) -> None:
        for op in self.ops:
            waited_ms, items = self.window[op.id]
            # the mean processing duration: mean wait + the mean unloaded duration (the SLO)
            if items > 0:
                sample = op.cost_ms + waited_ms / items
            elif self.queues[op.id]:
                sample = op.cost_ms + (self.now - self.queues[op.id][0][0]) * 1000.0
            else:
                sample = op.cost_ms
            since = self.delayed_since[op.id]
            if sample > op.cost_ms and since is None:
                self.delayed_since[op.id] = self.now
            elif sample <= op.cost_ms and since is not None:
                self.adapt_times.append(self.now - since)
                self.delayed_since[op.id] = None
            hist = self.history[op.id]
            hist.append(sample)
            del hist[:-self.cfg.history]
            self.window[op.id] = [0.0, 0.0]


def price_per_btu(cfg: SimConfig, vm: Cluster) -> float:
    """The configured price, else the VM's hourly price pro rata (linear in the BTU, as in Hochreiner et al. 2017)."""
    if cfg.price_per_btu is not None:
        return cfg.price_per_btu
    hourly = vm.nodes[0].cost_per_hour
    return hourly * cfg.btu_minutes / 60 if hourly > 0 else 1.0


def simulate(topology: Topology, vm: Cluster, pattern: Pattern, controller: Controller,
             cfg: SimConfig | None = None, progress=None) -> SimResult:
    """Run the whole scenario; ``progress(minute)`` is called once per simulated minute."""
    cfg = cfg or SimConfig()
    sim = Simulator(topology, vm, pattern, controller, cfg)
    sim.deploy_initial()
    steps = round(cfg.minutes * 60 / cfg.dt)
    monitor_every = max(1, round(cfg.monitor_s / cfg.dt))
    reason_every = max(1, round(cfg.reason_s / cfg.dt))
    per_minute = max(1, round(60 / cfg.dt))
    series: dict[str, list[float]] = {"minute": [], "machines": [], "vms": [], "instances": [], "queued": []}
    for op in sim.ops:
        series[f"instances_{op.id}"] = []
    for k in range(1, steps + 1):
        sim.step()
        if k % monitor_every == 0:
            sim.monitor()
        if k % reason_every == 0:
            controller.reason(sim.view(), sim)
        if k % per_minute == 0:
            series["minute"].append(sim.now / 60)
            series["machines"].append(pattern.at(sim.now - cfg.dt))
            series["vms"].append(len(sim.hosts))
            series["instances"].append(len(sim.instances))
            series["queued"].append(sum(b[1] for q in sim.queues.values() for b in q))
            for op in sim.ops:
                series[f"instances_{op.id}"].append(sum(i.operator == op.id for i in sim.instances))
            if progress is not None:
                progress(int(sim.now // 60))
    btus, resource_cost = lease_cost(sim.leases, sim.now, cfg.btu_minutes * 60, price_per_btu(cfg, vm))
    if cfg.billing == "committed":  # BTUs a prolongation committed to that had not started when the run ended
        extra = sum(max(0, sim.committed.get(name, 0) - paid_btus(h.lease.duration(sim.now), cfg.btu_minutes * 60))
                    for name, h in sim.hosts.items())
        btus += extra
        resource_cost += extra * price_per_btu(cfg, vm)
    processed = sim.processed_total
    unserved, unserved_met = sim.judge_unserved()
    judged = processed + unserved
    met = dict(zip(LEVELS, (sim.compliant + unserved_met).tolist(), strict=True))
    compliance = {level: (met[level] / judged if judged > 0 else 1.0) for level in LEVELS}
    penalty = {level: (judged - met[level]) * cfg.penalty_per_item for level in LEVELS}
    summary = {
        "controller": controller.name, "pattern": pattern.name, "minutes": cfg.minutes, "seed": cfg.seed,
        "btu_minutes": cfg.btu_minutes, "resource_cost": resource_cost, "paid_btus": btus,
        "compliance": compliance, "penalty_cost": penalty,
        "total_cost": {level: resource_cost + penalty[level] for level in LEVELS},
        "scaling": {"up": sim.counts["up"], "down": sim.counts["down"],
                    "migrations": int(getattr(controller, "migrations", 0))},
        "vms_leased": sim.counts["leases"], "vms_released": sim.counts["releases"],
        "lease_prolongations": sim.counts["prolongations"], "items_processed": processed,
        "items_unserved": unserved,
        "time_to_adapt_s": float(np.mean(sim.adapt_times)) if sim.adapt_times else 0.0,
        "delay_episodes": len(sim.adapt_times),
        "unresolved_delays": sum(v is not None for v in sim.delayed_since.values()),
        "peak_instances": int(max(series["instances"], default=0)),
        "peak_vms": int(max(series["vms"], default=0)),
        "service_ratio": cfg.service_ratio, "service_cv": cfg.service_cv,
    }
    conservation = {op.id: (c[0], c[1], float(sum(b[1] for b in sim.queues[op.id])), c[2])
                    for op, c in ((op, sim.counters[op.id]) for op in sim.ops)}
    return SimResult(summary, {k: np.asarray(v) for k, v in series.items()}, conservation)
