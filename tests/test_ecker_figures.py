"""benchmarks/repro_ecker_figs.py: Ecker et al.'s Figs. 6–8 the paper's way — Storm 2.4.0's Resource Aware
Scheduler, the default scheduler's reservations, the load phases and Table 2's reference, worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.model.cluster import Cluster, Node
from streamplace.model.topology import Operator, Stream, Topology
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _figs():
    # the script imports its sibling markdown_out
    return load_script(ROOT / "benchmarks" / "repro_ecker_figs.py", siblings=True)


F = _figs()


def _chain() -> Topology:
    """source → a (2 replicas) → sink, 1 ms per tuple each, 10 t/s, Storm's default declared demands."""
    ops = (Operator("source", "source", rate=10.0, cost_ms=1.0, cpu=10.0, memory_mb=128.0),
           Operator("a", cost_ms=1.0, cpu=10.0, memory_mb=128.0, replicas=2),
           Operator("sink", "sink", cost_ms=1.0, cpu=10.0, memory_mb=128.0))
    return Topology("chain", ops, (Stream("source", "a"), Stream("a", "sink")))


def test_ras_orders_executors_by_connections_then_each_with_its_neighbours() -> None:
    # connections: a = 1·2 + 1·2 = 4, sink = source = 2·1 = 2 → a first, then sink, source (ties by id); a's
    # neighbours both make 2 connections with it, so by id: sink, source. Round 1: a, sink, source; round 2: a.
    assert F.ras_executor_order(_chain()) == ["a", "sink", "source", "a"]


def test_storm_ras_packs_the_node_with_the_most_available_first_then_the_next() -> None:
    # big: 30 points, small: 20 (both 1024 MB). Executor a: nothing placed yet; the least available share is
    # min(30/50, 1024/2048) = 0.5 on big against min(20/50, 0.5) = 0.4 → big. sink and source follow a to big
    # (most of the topology's executors there) until its 30 points are taken; the second a fits only on small.
    cluster = Cluster("two", (Node("big", cpu=30.0, memory_mb=1024.0), Node("small", cpu=20.0, memory_mb=1024.0)))
    assert F.storm_ras(_chain(), cluster) == {"a": {"big": 1, "small": 1}, "sink": {"big": 1}, "source": {"big": 1}}
    # a worker's heap caps a slot: one slot of 256 MB on big holds two executors of 128 MB, the rest go to small
    one_slot = Cluster("two", (Node("big", cpu=100.0, memory_mb=1024.0, slots=1),
                               Node("small", cpu=20.0, memory_mb=1024.0, slots=1)))
    got = F.storm_ras(_chain(), one_slot, heap_mb=256.0)
    assert got == {"a": {"big": 1, "small": 1}, "sink": {"big": 1}, "source": {"small": 1}}
    # an executor that fits nowhere: RAS leaves the topology unscheduled
    assert F.storm_ras(_chain(), Cluster("tiny", (Node("t", cpu=25.0, memory_mb=1024.0),))) is None


def test_storm_ras_puts_the_papers_small_topologies_on_the_largest_supervisor() -> None:
    """§6.2.1: RAS places T-M1…T-M3 "in all configurations on the largest computational resource" (w1)."""
    cluster = resolve_cluster("continuum-11")
    for name in ("t-m1", "t-m2", "t-m3"):
        placed = F.storm_ras(resolve_topology(name), cluster)
        assert {n for per in placed.values() for n in per} == {"w1"}, name
    # T-R3's 22 executors: 15 fill w1's 150 points, the other 7 the next most available (w2, first of three ties)
    r3 = F.storm_ras(resolve_topology("t-r3"), cluster)
    assert {n: sum(per.get(n, 0) for per in r3.values()) for n in ("w1", "w2")} == {"w1": 15, "w2": 7}


def test_the_default_reserves_every_supervisor_holding_a_worker_even_an_ackers_only() -> None:
    # W = 3 on three nodes: executors in id order "__acker" ×3 < "sink" < "source", dealt over the three slots:
    # the ackers one each, sink to slot 0 (n0), source to slot 1 (n1); n2 holds only an acker, yet is reserved
    nodes = (Node("n0", cpu=100.0, memory_mb=1024.0), Node("n1", cpu=30.0, memory_mb=1024.0),
             Node("n2", cpu=50.0, memory_mb=1024.0))
    cluster = Cluster("three", nodes)
    pair = Topology("pair", (Operator("source", "source", rate=1.0, cost_ms=1.0),
                             Operator("sink", "sink", cost_ms=1.0)), (Stream("source", "sink"),))
    placed = {w: (v, r) for w, v, r in F.default_placements(pair, cluster, [(0, 1, 2)], workers=[3])}
    vcpu, replicas = placed[3]
    assert replicas == {"sink": {"n0": 1}, "source": {"n1": 1}} and vcpu == 180.0
    # another supervisor order moves the workers, not the count: W = 1 on (2, 0, 1) is n2 alone
    ((w, vcpu, replicas),) = F.default_placements(pair, cluster, [(2, 0, 1)], workers=[1])
    assert (w, vcpu, replicas) == (1, 50.0, {"sink": {"n2": 1}, "source": {"n2": 1}})


def test_table2_divides_by_the_default_at_the_same_reservation_under_both_readings() -> None:
    P = F.Point
    points = [P("default", -1, 660.0, 10.0, 5.0, 11), P("default", -1, 660.0, 30.0, 5.0, 11),
              P("default", -1, 150.0, 40.0, 5.0, 1),
              P("hybrid", 0, 150.0, 80.0, 3.0), P("hybrid", 1, 405.0, 60.0, 3.0)]
    # the default on all 11 supervisors: its mean 20 t/s at 660 is the closest value for every reservation
    assert F.factors(points, "hybrid", "eleven") == pytest.approx([80 / 20, 60 / 20])
    # over 1…11 workers: 40 at 150 exactly; at 405, halfway between 150 (40) and 660 (mean 20): 30
    assert F.factors(points, "hybrid", "sweep") == pytest.approx([80 / 40, 60 / 30])
    assert F.default_at(points, 1000.0, "sweep") == pytest.approx(20.0)  # beyond the range: the nearest


def test_table3_compares_only_placements_reserving_exactly_the_ras_vcpu() -> None:
    P = F.Point
    points = [P("storm-ras", -1, 250.0, 100.0, 5.0), P("hybrid", 0, 250.0, 120.0, 3.0),
              P("hybrid", 1, 350.0, 200.0, 3.0), P("hybrid", 2, 250.0, 90.0, 3.0),
              P("default", -1, 250.0, 50.0, 9.0, 2)]
    assert F.over_ras(points, "hybrid") == pytest.approx([1.2, 0.9])  # the 350-point placement has no equivalent
    assert F.over_ras(points, "default") == pytest.approx([0.5])
    assert F.over_ras(points, "ant-system") == []  # an empty cell, as in the paper


def test_verdicts_and_trend() -> None:
    assert F.verdict(2.0, 2.1) == "reproduced (within 10 %)"
    assert F.verdict(1.5, 2.1) == "direction only"
    assert F.verdict(0.8, 2.1) == "not reproduced"
    assert F.verdict(None, 2.1).startswith("not reproduced")
    P = F.Point
    # 100 t/s at 100 points, 80 at 300: −10 t/s per reserved core
    assert F.slope([P("x", 0, 100.0, 100.0, 1.0), P("x", 0, 300.0, 80.0, 1.0)]) == pytest.approx(-10.0)
    assert F.slope([P("x", 0, 100.0, 100.0, 1.0)]) is None


def test_the_phases_load_the_largest_node_by_the_share_asked_then_twice_then_again() -> None:
    # source and sink at 1 ms per tuple on one 100-point node (no limit): 10 t/s use 2 points, so the node
    # sustains 50 × the rate; half of it, twice that, half again
    cluster = Cluster("one", (Node("n", cpu=100.0, memory_mb=1024.0),))
    pair = Topology("pair", (Operator("source", "source", rate=10.0, cost_ms=1.0),
                             Operator("sink", "sink", cost_ms=1.0)), (Stream("source", "sink"),))
    assert F.phase_rates(pair, cluster, None, 0.5) == pytest.approx((25.0, 50.0, 25.0))


def test_a_figure_run_has_the_static_schedulers_once_and_nine_adaptive_placements() -> None:
    cluster = resolve_cluster("continuum-11")
    points = F.figure_points(resolve_topology("t-m3"), cluster, None, orders=2)
    by = {s: [p for p in points if p.scheduler == s] for s in F.SCHEDULERS}
    assert len(by["storm-ras"]) == 1 and len(by["r-storm"]) == 1
    assert all(sorted(p.phase for p in by[s]) == [0, 0, 0, 1, 1, 1, 2, 2, 2] for s in F.ADAPTIVE)
    eleven = F.defaults(points, "eleven")
    assert eleven and all(p.workers == 11 and p.vcpu == 660.0 for p in eleven)
    assert {p.workers for p in by["default"]} == set(range(1, 12))
    assert all(p.throughput > 0 and p.latency_ms > 0 for p in points)
    # the raised phase (120 % of the largest node) needs more: hill climbing scales out there, then back in
    hc = by["hill-climbing"]
    assert max(p.vcpu for p in hc if p.phase == 1) > max(p.vcpu for p in hc if p.phase == 0)
    assert max(p.vcpu for p in hc if p.phase == 2) < max(p.vcpu for p in hc if p.phase == 1)
