"""Elastic policies for a running pipeline, on synthetic measurements (no Spark)."""

from __future__ import annotations

import pytest

from streamplace.bench import resolve_cluster
from streamplace.elastic.btu import BtuController
from streamplace.elastic.live_policies import (
    ControllerPolicy,
    HoldPolicy,
    LatencyAwarePolicy,
    Observation,
    SOdrpPolicy,
    drift_reason,
    make_policy,
    measured_input_rates,
    operator_backlog,
    place_counts,
    shrink,
)
from streamplace.elastic.threshold import ThresholdController
from streamplace.errors import ModelError, SpecError
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.schedulers import create

CLUSTER = resolve_cluster("hetero-3")
SLOTS = {n.id: 4 for n in CLUSTER.nodes}


def chain(rate: float = 400.0, cost_ms: float = 4.0) -> Topology:
    ops = (Operator("src", "source", rate=rate, cost_ms=0.0), Operator("a", cost_ms=cost_ms, cpu=10),
           Operator("out", "sink", cost_ms=0.0))
    return Topology("chain", ops, (Stream("src", "a"), Stream("a", "out")))


def observe(topo: Topology, at: float, a_rate: float, cost_ms: float, lag_s: float = 0.0, window: float = 10.0,
            emitted: float | None = None) -> Observation:
    rate = float(topo.op("src").rate)
    ops = {"src": {"input_per_s": 0.0, "output_per_s": emitted if emitted is not None else rate,
                   "cost_ms_measured": 0.0, "busy_cores": 0.0},
           "a": {"input_per_s": a_rate, "output_per_s": a_rate, "cost_ms_measured": cost_ms,
                 "busy_cores": a_rate * cost_ms / 1000},
           "out": {"input_per_s": a_rate, "output_per_s": a_rate, "cost_ms_measured": 0.0, "busy_cores": 0.0}}
    return Observation(at, window, {"src": rate}, a_rate, 1000 * (lag_s + 1), lag_s, ops)


def one_each(topo: Topology, node: str = "pentium-1") -> Plan:
    return Plan("manual", topo.name, CLUSTER.name, {op.id: {node: 1} for op in topo.operators},
                source_rates={"src": float(topo.op("src").rate)})


def test_backlog_is_the_sources_rate_over_the_lag_on_the_busy_operators() -> None:
    topo = chain()
    state = operator_backlog(topo, observe(topo, 10, 250, 4.0, lag_s=5.0), one_each(topo))
    queue, capacity, service = state["a"]
    assert queue == pytest.approx(400 * 5.0)  # 5 s behind a 400 t/s source, all of it at the one busy operator
    assert capacity == pytest.approx(250.0) and service == 4.0
    assert state["out"][0] == 0.0
    assert operator_backlog(topo, observe(topo, 20, 400, 4.0, lag_s=0.0), one_each(topo))["a"][0] == 0.0


def test_threshold_adds_replicas_where_the_queue_grows_and_sheds_them_when_idle() -> None:
    topo = chain()
    pol = ControllerPolicy(topo, ThresholdController(), SLOTS, one_each(topo))
    plan = pol.initial(CLUSTER)
    up = pol.decide(observe(topo, 10, 250, 4.0, lag_s=5.0), plan, CLUSTER)
    assert up is not None and up.parallelism("a") == 3  # backlog 2000 > 250: two more
    assert pol.reason.startswith("a: 2,000 queued")  # the live page and `live` say why it re-planned
    assert up.parallelism("src") == 1 and up.parallelism("out") == 1
    assert all(c <= SLOTS[n] for per in up.replicas.values() for n, c in per.items())
    down = pol.decide(observe(topo, 20, 400, 4.0, lag_s=0.0), up, CLUSTER)  # caught up: below one item
    assert down is not None and down.parallelism("a") == 2


def test_threshold_takes_a_new_node_when_the_used_one_is_full() -> None:
    topo = chain()
    first = one_each(topo)
    full = Plan("m", topo.name, CLUSTER.name, {**first.replicas, "a": {"pentium-1": 4}})
    pol = ControllerPolicy(topo, ThresholdController(), SLOTS, full)
    pol.initial(CLUSTER)
    obs = observe(topo, 10, 250, 4.0 * 4 * 400 / 250, lag_s=3.0)  # 4 replicas still too slow
    new = pol.decide(obs, full, CLUSTER)
    assert new is not None and new.parallelism("a") > 4
    assert set(new.replicas["a"]) - {"pentium-1"}  # the pentium's 4 slots are full: a second node is taken


def test_btu_controller_scales_up_on_a_growing_duration() -> None:
    topo = chain()
    pol = ControllerPolicy(topo, BtuController(), SLOTS, one_each(topo))
    plan = pol.initial(CLUSTER)
    new = pol.decide(observe(topo, 10, 250, 4.0, lag_s=2.0), plan, CLUSTER)
    assert new is not None and new.parallelism("a") > 1
    assert pol.durations["a"][-1] == pytest.approx(4.0 + 1000 * 800 / 250)  # service + wait behind the backlog
    assert "last duration 3,204 ms against an SLO of 4 ms" in pol.reason


def test_s_odrp_deploys_without_rates_then_replans_with_measured_ones() -> None:
    topo = chain(rate=400)
    odrp = create("odrp", {"preset": "debs2015"})
    pol = SOdrpPolicy(topo, odrp, SLOTS)
    first = pol.initial(CLUSTER)
    assert any("phase 1" in w for w in first.warnings)
    second = pol.decide(observe(topo, 10, 250, 4.0, emitted=250), first, CLUSTER)
    assert pol.used_rates is not None and pol.used_rates["a"] == pytest.approx(400.0)  # scaled to the offered load
    assert second is None or second.usable
    assert pol.decide(observe(topo, 20, 390, 4.0), second or first, CLUSTER) is None  # within the drift: kept
    assert drift_reason({"a": 100.0, "b": 50.0}, {"a": 140.0, "b": 51.0}, 0.25) == \
        "input rates moved more than 25% (a 100.0→140.0 t/s)"


def test_measured_rates_scale_by_the_sources_lag() -> None:
    topo = chain(rate=400)
    rates = measured_input_rates(topo, observe(topo, 10, 200, 4.0, emitted=200))
    assert rates["a"] == pytest.approx(400.0) and rates["src"] == 400.0


def test_place_counts_respects_slots_and_explains_when_it_cannot() -> None:
    topo = chain()
    plan = place_counts(topo, CLUSTER, {"src": 1, "a": 6, "out": 1}, SLOTS)
    assert plan.parallelism("a") == 6 and max(plan.replicas["a"].values()) <= 4
    small = shrink(CLUSTER, {"core-i3-1", "core-i5-1"})
    with pytest.raises(ModelError, match="replica slots"):
        place_counts(topo, small, {"src": 1, "a": 6, "out": 1}, {"pentium-1": 4})


def test_make_policy_rejects_unknown_names_and_parameters() -> None:
    topo = chain()
    with pytest.raises(SpecError, match="unknown policy"):
        make_policy("ds3", topo, CLUSTER, {}, SLOTS, one_each(topo))
    with pytest.raises(SpecError, match=r"up, .*slo"):
        make_policy("threshold", topo, CLUSTER, {"nope": "1"}, SLOTS, one_each(topo))
    pol = make_policy("threshold", topo, CLUSTER, {"up": "10", "slo": "3"}, SLOTS, one_each(topo))
    assert isinstance(pol, ControllerPolicy) and pol.controller.up == 10.0 and pol.slo == 3.0


def test_hold_keeps_its_plan_and_takes_no_parameters() -> None:
    topo = chain()
    pol = make_policy("hold", topo, CLUSTER, {}, SLOTS, one_each(topo))
    assert isinstance(pol, HoldPolicy) and pol.decide(observe(topo, 10, 1, 4.0, lag_s=60), one_each(topo),
                                                      CLUSTER) is None
    with pytest.raises(SpecError, match="no parameters"):
        make_policy("hold", topo, CLUSTER, {"up": "1"}, SLOTS, one_each(topo))


def test_live_command_refuses_bad_input_before_spark_starts() -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "--kill", "pentium-1@10"])
    assert res.exit_code == 2 and "only a standalone cluster's workers can be killed" in res.output
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "-P", "elastic"])
    assert res.exit_code == 2 and "unknown policy 'elastic'" in res.output
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "-P", "s-odrp", "-p", "weights.r=2"])
    assert res.exit_code == 2 and "sum to 1" in res.output  # ODRP's parameters are checked before Spark starts
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "--master", "spark://127.0.0.1:1"])
    assert res.exit_code == 2 and "no cluster started here answers" in res.output


def test_controllers_judge_against_the_unloaded_duration_measured_without_lag() -> None:
    """The simulator's SLA definition live: the SLO is the service time measured in an interval without lag
    (declared cost before one), and an operator that is not behind reads exactly its SLO."""
    topo = chain(cost_ms=4.0)
    pol = ControllerPolicy(topo, BtuController(), SLOTS, one_each(topo))
    plan = pol.initial(CLUSTER)
    pol.decide(observe(topo, 10, 250, 6.0, lag_s=2.0), plan, CLUSTER)  # lagging: declared 4 ms stays the SLO
    assert "a" not in pol.unloaded and pol.durations["a"][-1] == pytest.approx(4.0 + 1000 * 800 / (1000 / 6.0))
    pol.decide(observe(topo, 20, 400, 6.0, lag_s=0.0), plan, CLUSTER)  # caught up: 6 ms measured unloaded
    assert pol.unloaded["a"] == 6.0 and pol.durations["a"][-1] == 6.0
    view = pol._view(observe(topo, 30, 400, 6.0), operator_backlog(topo, observe(topo, 30, 400, 6.0), plan),
                     {op: dict(per) for op, per in plan.replicas.items()}, CLUSTER)
    assert view.operators["a"].expected_ms == 6.0 == view.operators["a"].duration_ms  # on its SLO, not above


def spread(topo: Topology) -> Plan:
    nodes = [n.id for n in CLUSTER.nodes]
    return Plan("manual", topo.name, CLUSTER.name, {op.id: {nodes[k % len(nodes)]: 1}
                                                     for k, op in enumerate(topo.operators)},
                source_rates={"src": float(topo.op("src").rate)})


def test_latency_aware_replaces_from_the_running_plan_only_when_something_changed() -> None:
    """Ecker et al.'s online loop: the first interval's rates trigger a re-placement that starts from the running
    plan (three operators on three nodes → fewer nodes, better Eq. 1); the same rates again do nothing; a lost
    node triggers another re-placement."""
    topo = chain(rate=20, cost_ms=1.0)
    seen: list[Plan | None] = []

    class Spy:
        def __init__(self) -> None:
            self.inner = create("hill-climbing", {"seed": "0"})

        def plan(self, topology, cluster, profile=None, *, current=None, engine=None):
            seen.append(current)
            return self.inner.plan(topology, cluster, profile, current=current, engine=engine)

    pol = make_policy("latency-aware", topo, CLUSTER, {}, SLOTS, spread(topo))
    assert isinstance(pol, LatencyAwarePolicy)
    pol.scheduler = Spy()
    plan = pol.initial(CLUSTER)
    new = pol.decide(observe(topo, 10, 20, 1.0), plan, CLUSTER)
    assert seen == [plan]  # warm start: hill climbing began from the running plan
    assert new is not None and new.scheduler == "latency-aware" and len(new.nodes_used()) < 3
    assert new.counts() == plan.counts()  # placement only
    assert pol.decide(observe(topo, 20, 20, 1.0), new, CLUSTER) is None and len(seen) == 1  # nothing changed
    smaller = shrink(CLUSTER, {next(iter(new.nodes_used()))})
    pol.decide(observe(topo, 30, 20, 1.0), new, smaller)
    assert len(seen) == 2 and pol.replans == 2  # the cluster changed: placed again
    with pytest.raises(SpecError, match="hill-climbing or hybrid"):
        make_policy("latency-aware", topo, CLUSTER, {"scheduler": "r-storm"}, SLOTS, spread(topo))
