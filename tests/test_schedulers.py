"""Schedulers: the paper's rules on crafted instances, infeasibility, parameters."""

from __future__ import annotations

import pytest

from streamplace.bench.clusters import rstorm
from streamplace.bench.topologies import linear, pageload, processing
from streamplace.errors import SchedulerParamError
from streamplace.model.cluster import Cluster, Node
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.schedulers import create, scheduler_names
from streamplace.schedulers.round_robin import interleaved_slots
from streamplace.schedulers.rstorm import RStorm, bfs_components, task_order

from .conftest import chain, two_racks


def test_registry_has_the_three() -> None:
    assert {"round-robin", "r-storm", "ffd"} <= set(scheduler_names())


def test_bfs_and_interleaved_task_order() -> None:
    t = linear("cpu")
    assert bfs_components(t) == ["spout", "bolt1", "bolt2", "bolt3"]
    order = [t.operators[i].id for i in task_order(t)]
    assert order[:8] == ["spout", "bolt1", "bolt2", "bolt3"] * 2
    assert order.count("bolt1") == 6 and len(order) == 22


def test_bfs_reaches_components_upstream_of_a_join() -> None:
    ops = (Operator("s1", "source", rate=1), Operator("s2", "source", rate=1), Operator("j"), Operator("k", "sink"))
    t = Topology("j", ops, (Stream("s1", "j"), Stream("s2", "j"), Stream("j", "k")))
    assert bfs_components(t) == ["s1", "j", "k", "s2"]  # downstream neighbours first, then upstream


def test_round_robin_interleaves_slots_like_storm() -> None:
    c = Cluster("c", tuple(Node(f"n{k}", cpu=100, memory_mb=10_000, slots=2) for k in range(3)))
    assert interleaved_slots(c) == [0, 1, 2, 0, 1, 2]
    plan = create("round-robin").plan(chain(replicas=3), c)
    assert all(sorted(per.values()) == [1, 1, 1] for per in plan.replicas.values())


def test_round_robin_reports_memory_overflow_as_infeasible() -> None:
    c = Cluster("c", (Node("a", cpu=100, memory_mb=300), Node("b", cpu=100, memory_mb=10_000)))
    plan = create("round-robin", {"workers": "1"}).plan(chain(replicas=1, memory=200), c)
    assert plan.status == "infeasible"
    assert "600 MB on a" in plan.explanation[0] and "300 MB" in plan.explanation[0]


def test_rstorm_first_task_on_reference_node_in_richest_rack() -> None:
    nodes = (Node("a1", cpu=100, memory_mb=1000, rack="A"), Node("b1", cpu=100, memory_mb=2000, rack="B"),
             Node("b2", cpu=100, memory_mb=1500, rack="B"))
    plan = create("r-storm").plan(chain(), Cluster("c", nodes))
    assert plan.replicas["src"] == {"b1": 1}


def test_rstorm_packs_and_respects_memory() -> None:
    c = rstorm(2, 6)
    plan = create("r-storm").plan(linear("cpu"), c)
    assert plan.status == "ok" and plan.predicted["nodes_used"] == 6
    for node, mb in ((n.id, 0.0) for n in c.nodes):
        used = sum(per.get(node, 0) * 150 for per in plan.replicas.values())
        assert used <= c.node(node).memory_mb + mb


def test_rstorm_soft_cpu_overcommits_only_when_needed_and_warns() -> None:
    c = Cluster("c", (Node("a", cpu=50, memory_mb=1000), Node("b", cpu=50, memory_mb=1000)))
    t = chain(replicas=1).with_replicas({"mid": 4})  # 6 tasks × 10 points fit in 2 × 50
    plan = create("r-storm").plan(t, c)
    assert plan.warnings == ()
    heavy = Topology("h", tuple(o.__class__(**{**o.__dict__, "cpu": 40.0}) for o in t.operators), t.streams)
    soft = create("r-storm").plan(heavy, c)
    assert soft.status == "ok" and any("over-committed" in w for w in soft.warnings)
    hard = create("r-storm", {"cpu": "hard"}).plan(heavy, c)
    assert hard.status == "infeasible" and "CPU" in hard.explanation[0]


def test_rstorm_prefers_same_rack() -> None:
    c = two_racks(n_per_rack=3, cpu=25, memory=1000)  # room for 2 tasks of 10 points per node
    plan = create("r-storm").plan(chain(replicas=2), c)  # 6 tasks → 3 nodes, all fit in one rack
    racks = {c.node(n).rack for per in plan.replicas.values() for n in per}
    assert racks == {"r0"} and plan.predicted["nodes_used"] == 3
    rr = create("round-robin").plan(chain(replicas=2), c)
    assert plan.predicted["inter_node_traffic"] < rr.predicted["inter_node_traffic"]


def test_rstorm_multi_topology_shares_the_cluster() -> None:
    c = rstorm(2, 12)
    plans = RStorm().plan_many([pageload("cpu"), processing("cpu")], c)
    assert [p.status for p in plans] == ["ok", "ok"]
    used = {}
    topos = {"pageload-cpu": pageload("cpu"), "processing-cpu": processing("cpu")}
    for p in plans:
        t = topos[p.topology]
        for op, per in p.replicas.items():
            for n, k in per.items():
                used[n] = used.get(n, 0.0) + k * t.op(op).memory_mb
    assert all(used[n] <= c.node(n).memory_mb for n in used)


def test_ffd_packs_first_fit() -> None:
    c = Cluster("c", tuple(Node(f"n{k}", cpu=30, memory_mb=1000) for k in range(4)))
    plan = create("ffd").plan(chain(replicas=2), c)  # 6 × 10 points into 30-point nodes
    assert plan.replicas and plan.predicted["nodes_used"] == 2
    assert sum(plan.replicas["src"].values()) == 2


def test_ffd_infeasible_explains() -> None:
    c = Cluster("c", (Node("n", cpu=15, memory_mb=1000),))
    plan = create("ffd").plan(chain(), c)
    assert plan.status == "infeasible"
    assert any("CPU" in line for line in plan.explanation)


def test_fail_fast_total_memory() -> None:
    c = Cluster("c", (Node("n", cpu=1000, memory_mb=250),))
    for name in ("round-robin", "r-storm", "ffd"):
        plan = create(name).plan(chain(memory=100), c)
        assert plan.status == "infeasible"
        assert "needs 300 MB of memory for 3 replicas; the cluster has 250 MB" in plan.explanation[0]


def test_replica_larger_than_any_node() -> None:
    c = Cluster("c", (Node("n1", cpu=100, memory_mb=1536), Node("n2", cpu=100, memory_mb=1024)))
    t = chain(memory=100)
    big = Topology("b", tuple(o if o.id != "mid" else o.__class__(**{**o.__dict__, "memory_mb": 2048.0})
                              for o in t.operators), t.streams)
    plan = create("r-storm").plan(big, c)
    assert plan.status == "infeasible"
    assert "mid needs 2,048 MB of memory per replica; the largest node (n1) has 1,536 MB free" in plan.explanation


def test_pinning_is_respected() -> None:
    c = two_racks()
    t = chain(replicas=2)
    pinned = Topology("p", tuple(o if o.id != "src" else o.__class__(**{**o.__dict__, "pinned": ("n11",)})
                                 for o in t.operators), t.streams)
    for name in scheduler_names():
        scheduler = create(name, {"weights.c": "1", "bounds.c_min": "0", "bounds.c_max": "10"}
                           if name in ("odrp", "odp") else None)
        plan = scheduler.plan(pinned, c)
        assert set(plan.replicas["src"]) == {"n11"}, name
        if not scheduler.chooses_parallelism:
            assert plan.replicas["src"] == {"n11": 2}, name


def test_unknown_pin_is_infeasible_not_an_exception() -> None:
    t = chain()
    pinned = Topology("p", tuple(o if o.id != "src" else o.__class__(**{**o.__dict__, "pinned": ("ghost",)})
                                 for o in t.operators), t.streams)
    plan = create("r-storm").plan(pinned, two_racks())
    assert plan.status == "infeasible" and "ghost" in plan.explanation[0]


def test_timeout_returns_complete_plan() -> None:
    c = rstorm(2, 6)
    plan = create("r-storm", {"time_limit_s": "0.000001"}).plan(linear("cpu"), c)
    assert plan.status == "timeout" and plan.total_replicas() == 22
    assert "time limit" in plan.explanation[0]


def test_parameter_errors() -> None:
    with pytest.raises(SchedulerParamError, match="no parameter 'bogus'"):
        create("ffd", {"bogus": "1"})
    with pytest.raises(SchedulerParamError, match="must be one of"):
        create("r-storm", {"cpu": "medium"})
    with pytest.raises(SchedulerParamError, match="expects a number"):
        create("r-storm", {"weights.memory": "heavy"})
    assert create("r-storm", {"weights.network": "2"}).weights["network"] == 2.0
    with pytest.raises(SchedulerParamError, match="unknown scheduler"):
        create("nope")


def test_determinism() -> None:
    c = rstorm(2, 6)
    a = create("r-storm").plan(linear("net"), c)
    b = create("r-storm").plan(linear("net"), c)
    assert a.replicas == b.replicas


def test_divergent_feedback_loop_is_infeasible_not_an_exception() -> None:
    ops = (Operator("s", "source", rate=10), Operator("a"), Operator("b", selectivity=1.5), Operator("k", "sink"))
    t = Topology("loop", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "a"), Stream("b", "k")))
    for name in ("round-robin", "r-storm", "ffd", "hetero"):
        plan = create(name).plan(t, two_racks())
        assert plan.status == "infeasible" and "loop gain" in plan.explanation[0], name
