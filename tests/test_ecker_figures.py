"""benchmarks/repro_ecker_figs.py: Ecker et al.'s Figs. 6–8 the paper's way — the default scheduler's
reservations, the load phases and Table 2's reference, worked by hand (Storm 2.4.0's Resource Aware Scheduler, which
the script takes from schedulers/storm_ras.py: tests/test_storm_ras.py)."""

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
