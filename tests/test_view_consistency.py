"""The simulator and the live loop build the controllers' view with one builder (elastic/view.py), so the
same trace of queues leads to the same decisions in both (issue 38, item 4); the live loop releases and
prolongs hosts at a BTU's end as the simulator's controller does."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from streamplace.elastic.live_policies import ControllerPolicy, Observation, make_policy, operator_backlog, placed
from streamplace.elastic.patterns import Pattern
from streamplace.elastic.threshold import ThresholdController
from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.sim.engine import SimConfig, Simulator

VM = Node("vm", cpu=400.0, memory_mb=7168.0, cost_per_hour=6.0)
#: the live loop's nodes: as many as the simulator could lease, each like its VM; slots do not bind here
LIVE = Cluster("live", tuple(Node(f"n{k:02d}", cpu=400.0, memory_mb=7168.0, cost_per_hour=6.0) for k in range(12)))
SLOTS = {n.id: 100 for n in LIVE.nodes}
#: per reasoning interval, the items waiting at each scaled operator (a burst at a, then at b, then idle)
TRACE = [{"a": 300.0, "b": 0.0}, {"a": 300.0, "b": 60.0}, {"a": 0.0, "b": 400.0}, {"a": 0.5, "b": 0.2},
         {"a": 0.0, "b": 0.0}, {"a": 120.0, "b": 0.0}, {"a": 0.0, "b": 0.0}, {"a": 0.0, "b": 0.0}]


def topology() -> Topology:
    # the source takes (next to) nothing: the simulator runs no source instances, the live loop does
    ops = (Operator("src", "source", rate=100.0, cpu=0.0, memory_mb=1e-6),
           Operator("a", cost_ms=50.0, cpu=150.0, memory_mb=1500.0),
           Operator("b", cost_ms=20.0, cpu=100.0, memory_mb=1000.0),
           Operator("out", "sink", cost_ms=1.0, cpu=20.0, memory_mb=100.0))
    return Topology("t", ops, (Stream("src", "a"), Stream("a", "b"), Stream("b", "out")))


def observation(topo: Topology, at: float, queues: dict[str, float]) -> Observation:
    """An interval whose measured backlog (operator_backlog: offered rate × lag, shared by busy time) is the
    trace's queues."""
    rate = float(topo.op("src").rate)
    total = sum(queues.values())
    ops = {op.id: {"input_per_s": rate, "output_per_s": rate, "cost_ms_measured": float(op.cost_ms),
                   "busy_cores": queues.get(op.id, 0.0)} for op in topo.operators}
    return Observation(at, 60.0, {"src": rate}, rate, 1000.0, total / rate, ops)


def simulated(topo: Topology, controller) -> list[dict[str, int]]:
    cfg = SimConfig(minutes=10, lease_delay_s=(0.0, 0.0), start_cached_s=(0.0, 0.0), start_uncached_s=(0.0, 0.0))
    sim = Simulator(topo, Cluster("vm", (VM,)), Pattern("flat", np.ones(10)), controller, cfg)
    sim.deploy_initial()
    out = []
    for step, queues in enumerate(TRACE, start=1):
        sim.now = 60.0 * step
        for op, q in queues.items():
            sim.queues[op] = deque([[sim.now, q]] if q > 0 else [])
        controller.reason(sim.view(), sim)
        out.append({op.id: sum(i.operator == op.id for i in sim.instances) for op in sim.ops}
                   | {"hosts": len({i.host for i in sim.instances})})
    return out


def live(topo: Topology, controller) -> list[dict[str, int]]:
    # the source runs two replicas live (the simulator has none): they are not the controller's to scale
    first = Plan("manual", topo.name, LIVE.name, {op.id: {"n00": 2 if op.is_source else 1} for op in topo.operators},
                 source_rates={"src": 100.0})
    policy = ControllerPolicy(topo, controller, SLOTS, first)
    plan = policy.initial(LIVE)
    out = []
    for step, queues in enumerate(TRACE, start=1):
        plan = policy.decide(observation(topo, 60.0 * step, queues), plan, LIVE) or plan
        assert plan.parallelism("src") == 2
        out.append({op: plan.parallelism(op) for op in ("a", "b", "out")} | {"hosts": len(plan.nodes_used())})
    return out


def test_the_same_trace_gives_the_same_decisions_in_the_simulator_and_live() -> None:
    topo = topology()
    # the trace sets queues only (the simulator records no durations for it), so the baseline scales on the queue
    # alone here; its default, Algorithm 1, also asks for a duration over the SLO
    sim, run = simulated(topo, ThresholdController(trigger="queue")), live(topo, ThresholdController(trigger="queue"))
    assert sim == run
    assert max(s["a"] for s in sim) >= 3 and max(s["b"] for s in sim) >= 2 and max(s["hosts"] for s in sim) >= 2
    assert sim[-1]["a"] < max(s["a"] for s in sim)  # and it scaled back down: the trace exercises both ways


def test_the_two_views_of_one_state_are_equal() -> None:
    topo = topology()
    cfg = SimConfig(minutes=10)
    sim = Simulator(topo, Cluster("vm", (VM,)), Pattern("flat", np.ones(10)), ThresholdController(), cfg)
    sim.deploy_initial()
    sim.now = 60.0
    sim.queues["a"] = deque([[60.0, 300.0]])
    a = sim.view()
    first = Plan("manual", topo.name, LIVE.name, {op.id: {"n00": 1} for op in topo.operators})
    policy = ControllerPolicy(topo, ThresholdController(), SLOTS, first)
    policy.initial(LIVE)
    obs = observation(topo, 60.0, {"a": 300.0, "b": 0.0})
    b = policy._view(obs, operator_backlog(topo, obs, first), placed(first.replicas), LIVE)
    assert set(a.operators) == set(b.operators) == {"a", "b", "out"}  # no source in either
    for name in a.operators:
        x, y = a.operators[name], b.operators[name]
        assert (x.queue, x.instances, x.cpu, x.memory, x.scalings) == pytest.approx(
            (y.queue, y.instances, y.cpu, y.memory, y.scalings))
    (ha,), (hb,) = a.hosts.values(), b.hosts.values()
    assert ha.instances == hb.instances
    assert (ha.used_cpu, ha.used_memory) == pytest.approx((hb.used_cpu, hb.used_memory))


def chain() -> Topology:
    ops = (Operator("src", "source", rate=100.0, cpu=0.0, memory_mb=1e-6),
           Operator("a", cost_ms=5.0, cpu=100.0, memory_mb=1000.0),
           Operator("out", "sink", cost_ms=1.0, cpu=10.0, memory_mb=100.0))
    return Topology("c", ops, (Stream("src", "a"), Stream("a", "out")))


def btu_policy(topo: Topology, slots: dict[str, int]) -> tuple[ControllerPolicy, Plan]:
    """A BTU policy (10-minute BTU, 10 s interval) whose plan took n01 into use at 300 s: n01's first BTU ends
    at 900 s (n00's at 600 s and 1,200 s)."""
    first = Plan("manual", topo.name, LIVE.name, {op.id: {"n00": 1} for op in topo.operators},
                 source_rates={"src": 100.0})
    policy = make_policy("btu", topo, LIVE, {"btu_s": "600"}, slots, first, interval_s=10.0)
    assert isinstance(policy, ControllerPolicy) and policy.controller.reason_s == 10.0
    policy.initial(LIVE)
    second = Plan("manual", topo.name, LIVE.name, {"src": {"n00": 1}, "a": {"n00": 1, "n01": 1}, "out": {"n00": 1}},
                  source_rates={"src": 100.0})
    assert policy.decide(observation(topo, 300.0, {"a": 0.0, "out": 0.0}), second, LIVE) is None
    assert policy.leased == {"n00": 0.0, "n01": 300.0}
    return policy, second


def test_live_btu_end_migrates_and_releases_a_host_with_room_elsewhere() -> None:
    topo = chain()
    policy, plan = btu_policy(topo, SLOTS)
    # the release window: 5 % of the BTU (30 s), at least one interval (10 s, not the simulator's 60 s)
    assert policy.decide(observation(topo, 860.0, {"a": 0.0, "out": 0.0}), plan, LIVE) is None  # 40 s left
    new = policy.decide(observation(topo, 880.0, {"a": 0.0, "out": 0.0}), plan, LIVE)  # 20 s left
    assert new is not None and new.replicas["a"] == {"n00": 2} and new.parallelism("a") == 2  # moved, not dropped
    assert "n01" not in policy.leased and policy.controller.releases == 1
    assert policy.scalings["a"] == 2  # one started on n00, one stopped on n01: two scalings, as the simulator counts


def test_live_btu_end_prolongs_a_host_whose_instances_have_nowhere_to_go() -> None:
    topo = chain()
    policy, plan = btu_policy(topo, {n.id: 1 for n in LIVE.nodes})  # one replica of an operator per node
    assert policy.decide(observation(topo, 880.0, {"a": 0.0, "out": 0.0}), plan, LIVE) is None
    assert policy.controller.prolongations == 1 and policy.controller.releases == 0 and "n01" in policy.leased
    assert policy.decide(observation(topo, 900.0, {"a": 0.0, "out": 0.0}), plan, LIVE) is None  # prolonged: not
    assert policy.controller.prolongations == 1  # asked again before its next BTU ends
