"""Storm 2.4.0's Resource Aware Scheduler (schedulers/storm_ras.py, the ``storm-ras`` scheduler): the executor
order and the first fit worked by hand, the scheduler equal to the model benchmarks/repro_ecker_figs.py uses, and
what it says when it cannot place a topology."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import SchedulerParamError
from streamplace.model.cluster import Cluster, Node
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.schedulers import create, scheduler_names
from streamplace.schedulers.storm_ras import ras_assign, ras_executor_order, storm_ras
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
ECKER = ("t-m1", "t-m2", "t-m3", "t-r1", "t-r2", "t-r3", "t-r4", "t-r5", "t-r6", "t-r7")


def _chain() -> Topology:
    """source → a (2 replicas) → sink, 1 ms per tuple each, 10 t/s, Storm's default declared demands."""
    ops = (Operator("source", "source", rate=10.0, cost_ms=1.0, cpu=10.0, memory_mb=128.0),
           Operator("a", cost_ms=1.0, cpu=10.0, memory_mb=128.0, replicas=2),
           Operator("sink", "sink", cost_ms=1.0, cpu=10.0, memory_mb=128.0))
    return Topology("chain", ops, (Stream("source", "a"), Stream("a", "sink")))


def _cells(replicas) -> dict[str, dict[str, int]]:
    return {op: {n: k for n, k in per.items() if k} for op, per in replicas.items()}


def test_ras_orders_executors_by_connections_then_each_with_its_neighbours() -> None:
    # connections: a = 1·2 + 1·2 = 4, sink = source = 2·1 = 2 → a first, then sink, source (ties by id); a's
    # neighbours both make 2 connections with it, so by id: sink, source. Round 1: a, sink, source; round 2: a.
    assert ras_executor_order(_chain()) == ["a", "sink", "source", "a"]


def test_storm_ras_packs_the_node_with_the_most_available_first_then_the_next() -> None:
    # big: 30 points, small: 20 (both 1024 MB). Executor a: nothing placed yet; the least available share is
    # min(30/50, 1024/2048) = 0.5 on big against min(20/50, 0.5) = 0.4 → big. sink and source follow a to big
    # (most of the topology's executors there) until its 30 points are taken; the second a fits only on small.
    cluster = Cluster("two", (Node("big", cpu=30.0, memory_mb=1024.0), Node("small", cpu=20.0, memory_mb=1024.0)))
    assert storm_ras(_chain(), cluster) == {"a": {"big": 1, "small": 1}, "sink": {"big": 1}, "source": {"big": 1}}
    # a worker's heap caps a slot: one slot of 256 MB on big holds two executors of 128 MB, the rest go to small
    one_slot = Cluster("two", (Node("big", cpu=100.0, memory_mb=1024.0, slots=1),
                               Node("small", cpu=20.0, memory_mb=1024.0, slots=1)))
    got = storm_ras(_chain(), one_slot, heap_mb=256.0)
    assert got == {"a": {"big": 1, "small": 1}, "sink": {"big": 1}, "source": {"small": 1}}
    # an executor that fits nowhere: RAS leaves the topology unscheduled
    assert storm_ras(_chain(), Cluster("tiny", (Node("t", cpu=25.0, memory_mb=1024.0),))) is None


def test_storm_ras_puts_the_papers_small_topologies_on_the_largest_supervisor() -> None:
    """§6.2.1: RAS places T-M1…T-M3 "in all configurations on the largest computational resource" (w1)."""
    cluster = resolve_cluster("continuum-11")
    for name in ("t-m1", "t-m2", "t-m3"):
        placed = storm_ras(resolve_topology(name), cluster)
        assert {n for per in placed.values() for n in per} == {"w1"}, name
    # T-R3's 22 executors: 15 fill w1's 150 points, the other 7 the next most available (w2, first of three ties)
    r3 = storm_ras(resolve_topology("t-r3"), cluster)
    assert {n: sum(per.get(n, 0) for per in r3.values()) for n in ("w1", "w2")} == {"w1": 15, "w2": 7}


def test_the_benchmark_uses_this_model_and_the_scheduler_plans_what_it_returns_on_eckers_instances() -> None:
    figs = load_script(ROOT / "benchmarks" / "repro_ecker_figs.py", siblings=True)
    assert figs.storm_ras is storm_ras  # imported, not a copy
    cluster = resolve_cluster("continuum-11")
    for name in ECKER:
        topology = resolve_topology(name)
        plan = create("storm-ras").plan(topology, cluster)
        assert plan.status == "ok" and plan.scheduler == "storm-ras", (name, plan.explanation)
        assert _cells(plan.replicas) == _cells(storm_ras(topology, cluster)), name
        assert plan.counts() == {op.id: op.replicas for op in topology.operators}  # the topology's counts kept
        assert plan.predicted["throughput"] > 0
        assert create("storm-ras").plan(topology, cluster).replicas == plan.replicas  # deterministic


def test_an_executor_that_fits_nowhere_makes_an_infeasible_plan_saying_requested_against_left() -> None:
    tiny = Cluster("tiny", (Node("t", cpu=25.0, memory_mb=1024.0),))
    plan = create("storm-ras").plan(_chain(), tiny)
    assert plan.status == "infeasible" and not plan.replicas
    # cpu is hard when the requests are the declared ones: the fail-fast check says so before any placement
    assert any("40 points of CPU" in line and "25 points" in line for line in plan.explanation), plan.explanation
    # with a request of 6 points each, 24 of 25 fit in total — the heap stops it instead: one 256 MB worker
    one = Cluster("one", (Node("t", cpu=25.0, memory_mb=1024.0, slots=1),))
    plan = create("storm-ras", {"cpu_percent": "6", "worker_heap_mb": "256"}).plan(_chain(), one)
    assert plan.status == "infeasible"
    (why,) = plan.explanation
    assert why.startswith("executor 3 of 4 (source) requests 6 CPU points and 128 MB") and (
        "no worker with 128 MB of heap left" in why and "most heap left in a worker 0 MB (t)" in why), why
    result = ras_assign(_chain(), one, 256.0, cpu=6.0)
    assert result.unplaced == why and result.placed == (("a", 0), ("sink", 0)) and result.replicas(one) is None


def test_the_requests_can_be_storms_configured_defaults_instead_of_the_declared_ones() -> None:
    # declared 10 points each: all four on big (40 of 100); requested 60 points each, big takes one, then
    # small (min share) … every request counted, the declared CPU no longer hard
    cluster = Cluster("two", (Node("big", cpu=100.0, memory_mb=4096.0), Node("small", cpu=80.0, memory_mb=4096.0)))
    declared = create("storm-ras").plan(_chain(), cluster)
    assert {n for per in declared.replicas.values() for n, k in per.items() if k} == {"big"}
    asked = create("storm-ras", {"cpu_percent": "60"})
    assert not asked.cpu_hard and create("storm-ras").cpu_hard
    plan = asked.plan(_chain(), cluster)
    assert plan.status == "infeasible" and "requests 60 CPU points" in plan.explanation[0]  # 3 × 60 > 180
    plan = create("storm-ras", {"cpu_percent": "40"}).plan(_chain(), cluster)  # two per node
    per_node = {n: sum(per.get(n, 0) for per in plan.replicas.values()) for n in ("big", "small")}
    assert plan.status == "ok" and per_node == {"big": 2, "small": 2}
    # on-heap request: 600 MB each in 768 MB workers — one executor per worker, four slots per node
    plan = create("storm-ras", {"onheap_mb": "600"}).plan(_chain(), cluster)
    assert plan.status == "ok" and sum(plan.counts().values()) == 4


def test_a_pinned_operator_is_first_fit_on_its_nodes_only_as_the_contract_asks() -> None:
    cluster = Cluster("two", (Node("big", cpu=100.0, memory_mb=4096.0), Node("small", cpu=80.0, memory_mb=4096.0)))
    t = _chain()
    ops = tuple(dataclasses.replace(op, pinned=("small",)) if op.id == "sink" else op for op in t.operators)
    pinned = dataclasses.replace(t, operators=ops)
    plan = create("storm-ras").plan(pinned, cluster)
    assert plan.status == "ok" and plan.replicas["sink"] == {"small": 1}
    assert plan.replicas["a"] == {"big": 2} and plan.replicas["source"] == {"big": 1}  # the rest as before
    # pinned to a node too small: said against what is left there
    tiny = Cluster("two", (Node("big", cpu=100.0, memory_mb=4096.0), Node("small", cpu=5.0, memory_mb=4096.0)))
    plan = create("storm-ras", {"cpu_percent": "10"}).plan(pinned, tiny)
    assert plan.status == "infeasible" and "no supervisor it is pinned to has both free" in plan.explanation[0]
    assert "most CPU left 5 points (small)" in plan.explanation[0]


def test_it_is_listed_with_its_parameters_in_range() -> None:
    assert scheduler_names()[:3] == ["round-robin", "storm-even", "storm-ras"]
    for bad in ({"worker_heap_mb": "0"}, {"onheap_mb": "-1"}, {"cpu_percent": "nan"}):
        with pytest.raises(SchedulerParamError):
            create("storm-ras", bad)
