"""ODRP: QoS metrics by hand, the compact MILP equals the paper's multiset formulation, S-ODRP, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamplace.bench import resolve_cluster
from streamplace.bench.topologies import debs2015_q1
from streamplace.errors import SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.odrp import Bounds, OdrpInstance, Weights, odrp_qos
from streamplace.schedulers import create
from streamplace.schedulers.odrp import Odrp, brute_force, s_odrp

BOUNDS = {"bounds.r_min": "1", "bounds.r_max": "200", "bounds.a_min": "0.9", "bounds.a_max": "1",
          "bounds.c_min": "1", "bounds.c_max": "12", "bounds.z_min": "0", "bounds.z_max": "400"}


def two_sites() -> Cluster:
    nodes = (Node("a", cpu=400, memory_mb=4096, slots=1, availability=1.0),
             Node("b", cpu=400, memory_mb=4096, slots=1, availability=0.99, speedup=2.0))
    return Cluster("sites", nodes, Links(same_rack_ms=10.0, cross_rack_ms=10.0, availability_pairs={"a": {"b": 0.98}}))


def pipeline(rate: float = 50.0) -> Topology:
    ops = (Operator("src", "source", rate=rate, cost_ms=2.0, pinned=("a",)),
           Operator("work", cost_ms=10.0),  # μ = 100 t/s
           Operator("sink", "sink", cost_ms=1.0))
    return Topology("p", ops, (Stream("src", "work"), Stream("work", "sink")))


def test_qos_metrics_by_hand() -> None:
    t, c = pipeline(50.0), two_sites()
    inst = OdrpInstance.build(t, c, executors_per_slot=4)
    counts = np.array([[1, 0], [1, 1], [0, 1]])  # work split over a and b
    q = odrp_qos(inst, counts)
    r_src = 1000 / (500 - 50)
    r_work = max(1000 / (100 - 25), 1000 / ((100 - 25) * 2.0))  # Eq. 1: worst replica, speed-up divides
    r_sink = 1000 / ((1000 - 50) * 2.0)
    assert q.response_ms == pytest.approx(r_src + 10 + r_work + 10 + r_sink)
    assert q.cost == 3 + 1  # four replicas, unit cost
    traffic, usage, energy = q.T, q.N, q.EE
    assert traffic == pytest.approx(50 * 0.5 + 50 * 0.5)  # half of each stream crosses a ↔ b
    assert usage == pytest.approx(traffic * 10) and energy == pytest.approx(traffic * 100)
    assert q.availability == pytest.approx(1.0 * 0.99 * 0.98)
    w, b = Weights(0.25, 0.25, 0.25, 0.25), Bounds(1, 200, 0.9, 1, 1, 12, 0, 400)
    expected = (0.25 * (200 - q.response_ms) / 199 + 0.25 * (math.log(q.availability) - math.log(0.9))
                / (0 - math.log(0.9)) + 0.25 * (12 - 4) / 11 + 0.25 * (400 - q.T) / 400)
    assert q.utility(w, b) == pytest.approx(expected)


@st.composite
def tiny(draw: st.DrawFn) -> tuple[Topology, Cluster, dict[str, str]]:
    n_nodes = draw(st.integers(2, 3))
    nodes = tuple(Node(f"n{u}", cpu=400, memory_mb=4096, slots=1, speedup=draw(st.sampled_from([1.0, 2.0])),
                       availability=draw(st.sampled_from([1.0, 0.99]))) for u in range(n_nodes))
    delays = {f"n{u}": {f"n{v}": float(draw(st.integers(5, 30))) for v in range(u + 1, n_nodes)}
              for u in range(n_nodes)}
    cluster = Cluster("tiny", nodes, Links(latency_ms=delays))
    rate = float(draw(st.integers(20, 150)))
    ops = [Operator("src", "source", rate=rate, cost_ms=1.0, pinned=("n0",))]
    n_ops = draw(st.integers(2, 3))
    for k in range(1, n_ops):
        ops.append(Operator(f"op{k}", "sink" if k == n_ops - 1 else "operator",
                            cost_ms=float(draw(st.sampled_from([4.0, 8.0, 12.0]))),
                            selectivity=float(draw(st.sampled_from([0.5, 1.0])))))
    topo = Topology("tiny", tuple(ops), tuple(Stream(ops[k].id, ops[k + 1].id) for k in range(n_ops - 1)))
    w = draw(st.sampled_from([(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (0.25, 0.25, 0.25, 0.25),
                              (0.4, 0.1, 0.2, 0.3)]))
    metric = draw(st.sampled_from(["T", "N", "EE"]))
    params = {"weights.r": str(w[0]), "weights.a": str(w[1]), "weights.c": str(w[2]), "weights.z": str(w[3]),
              "metric": metric, "max_replicas": "2", "executors_per_slot": "3"} | BOUNDS
    return topo, cluster, params


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny())
def test_compact_formulation_equals_multiset_brute_force(case: tuple[Topology, Cluster, dict[str, str]]) -> None:
    topo, cluster, params = case
    sched = create("odrp", params)
    assert isinstance(sched, Odrp)
    inst = sched.instance(topo, cluster, None)
    k = sched.caps(topo)
    expected = brute_force(inst, k, allowed_mask(topo, cluster), sched.weight_set(), sched.bound_set())
    plan = sched.plan(topo, cluster)
    if expected is None:
        assert plan.status == "infeasible" and plan.explanation
        return
    assert plan.status == "ok"
    odrp = plan.predicted["odrp"]
    assert odrp["utility"] == pytest.approx(expected[0], abs=1e-7)
    assert odrp["milp_objective"] == pytest.approx(odrp["utility"], abs=1e-6)  # the MILP scores as the paper does


def test_odp_is_placement_only() -> None:
    plan = create("odp", {"weights.r": "1", "bounds.r_min": "1", "bounds.r_max": "500"}).plan(pipeline(40), two_sites())
    assert plan.status == "ok" and set(plan.counts().values()) == {1}


def test_debs_instance_reproduces_the_replication_pattern() -> None:
    cluster = resolve_cluster("debs-6")
    low = create("odrp", {"weights.r": "1", "preset": "debs2015"}).plan(debs2015_q1(40), cluster)
    assert set(low.counts().values()) == {1} and low.predicted["nodes_used"] == 1  # all 8 on one node
    high = create("odrp", {"weights.c": "1", "preset": "debs2015"}).plan(debs2015_q1(100), cluster)
    assert high.counts()["partialRank"] == 2 and sum(high.counts().values()) == 9  # only the bottleneck
    assert high.replicas["source"] == {"w1": 1} and high.replicas["globalRank"] == {"w1": 1}


def test_s_odrp_two_phases() -> None:
    topo, cluster = debs2015_q1(100), resolve_cluster("debs-6")
    sched = create("odrp", {"weights.r": "1", "preset": "debs2015"})
    first = s_odrp(topo, cluster, sched)  # no stream rates yet: cost-minimizing
    assert first.status == "ok" and set(first.counts().values()) == {1}
    assert any("phase 1" in w for w in first.warnings)
    measured = {op.id: 50.0 for op in topo.operators} | {"partialRank": 3000.0}
    second = s_odrp(topo, cluster, sched, measured)
    direct = create("odrp", {"weights.r": "1", "preset": "debs2015"}
                    | {f"measured_rates.{op}": str(v) for op, v in measured.items()}).plan(topo, cluster)
    assert second.replicas == direct.replicas  # phase 2 is ODRP on the measured rates
    at_measured = OdrpInstance.build(topo, cluster, operator_rates_override=measured)
    counts = np.array([[second.replicas[op].get(n.id, 0) for n in cluster.nodes] for op in topo.ids])
    assert second.predicted["odrp"]["response_ms"] == pytest.approx(odrp_qos(at_measured, counts).response_ms)
    assert second.predicted["odrp"]["response_ms"] != pytest.approx(
        odrp_qos(OdrpInstance.build(topo, cluster), counts).response_ms)  # not the model's own rates


def test_infeasible_pinned_operators_name_the_constraint() -> None:
    ops = tuple(Operator(f"p{k}", "source" if k == 0 else ("sink" if k == 9 else "operator"),
                         rate=10.0 if k == 0 else None, cost_ms=1.0, pinned=("a",)) for k in range(10))
    topo = Topology("crowd", ops, tuple(Stream(f"p{k}", f"p{k + 1}") for k in range(9)))
    plan = create("odrp", {"weights.c": "1", "bounds.c_min": "0", "bounds.c_max": "20"}).plan(topo, two_sites())
    assert plan.status == "infeasible"
    assert "pinned to a, which hosts 4 replicas; they need 10" in plan.explanation[0]


def test_unstable_operator_is_explained() -> None:
    plan = create("odrp", {"weights.c": "1", "bounds.c_min": "0", "bounds.c_max": "20", "max_replicas": "2"}
                  ).plan(pipeline(400), two_sites())
    assert plan.status == "infeasible" and "work receives 400.0 tuples/s" in plan.explanation[0]


def test_bad_weights_and_bounds_are_clear_errors() -> None:
    with pytest.raises(SchedulerParamError, match="sum to 1"):
        create("odrp", {"weights.r": "0.5", "weights.c": "0.2"} | BOUNDS)
    with pytest.raises(SchedulerParamError, match=r"weights\.c must be in \[0, "):
        create("odrp", {"weights.r": "1.5", "weights.c": "-0.5"} | BOUNDS)
    with pytest.raises(SchedulerParamError, match="must exceed"):
        create("odrp", {"weights.c": "1", "bounds.c_min": "5", "bounds.c_max": "5"})


def test_submip_heuristics_change_speed_not_the_optimum() -> None:
    topo, cluster = debs2015_q1(80), resolve_cluster("debs-6")
    plans = [create("odrp", {"weights.r": "1", "preset": "debs2015", "submip_heuristics": flag}).plan(topo, cluster)
             for flag in ("true", "false")]
    assert all(p.status == "ok" for p in plans)
    on, off = (p.predicted["odrp"]["response_ms"] for p in plans)
    assert off == pytest.approx(on, rel=1e-6)


def test_milp_rejects_unknown_solver_option() -> None:
    from streamplace.schedulers.milp import Milp

    milp = Milp()
    milp.binary(cost=1.0)
    with pytest.raises(ValueError, match="no_such_option"):
        milp.solve(options={"no_such_option": True})


def test_missing_bounds_are_computed_from_single_objective_solves() -> None:
    """No bounds given: each weighted metric is optimized alone (a payoff table) and its best and worst values
    become its bounds; they are reported, and the given ones are kept."""
    topo, cl = pipeline(100), two_sites()
    alone = {m: create("odrp", {f"weights.{m}": "1", **{k: v for k, v in BOUNDS.items() if k[7] == m}}).plan(topo, cl)
             for m in ("r", "c")}
    plan = create("odrp", {"weights.r": "0.5", "weights.c": "0.5", "bounds.c_min": "0"}).plan(topo, cl)
    assert plan.usable
    bounds = plan.predicted["odrp"]["bounds"]
    best_r = alone["r"].predicted["odrp"]["response_ms"]
    assert bounds["r_min"] == pytest.approx(best_r)  # the response time optimum is its lower bound
    assert bounds["r_max"] == pytest.approx(max(best_r, alone["c"].predicted["odrp"]["response_ms"]))
    assert bounds["c_min"] == 0.0 and bounds["c_max"] >= alone["c"].predicted["odrp"]["cost"]  # c_min kept as given
    assert any("payoff table" in w for w in plan.warnings)


def test_milp_never_returns_nan_columns_as_a_solution(monkeypatch) -> None:
    """A HiGHS answer marked feasible whose columns hold NaN (seen once in CI) is solved again without presolve,
    never handed on as a deployment."""
    import highspy

    from streamplace.schedulers.milp import Milp

    milp = Milp(maximize=True)
    a, b = milp.binary(cost=1.0), milp.binary(cost=2.0)
    milp.row([(a, 1.0), (b, 1.0)], hi=1.0)
    real = highspy.Highs.getSolution
    calls = []

    def flaky(self: highspy.Highs) -> highspy.HighsSolution:
        sol = real(self)
        calls.append(1)
        if len(calls) == 1:
            sol.col_value = [float("nan")] * len(sol.col_value)
        return sol

    monkeypatch.setattr(highspy.Highs, "getSolution", flaky)
    monkeypatch.setattr("streamplace.schedulers.milp._new_solver", highspy.Highs)  # the patchable Python class
    result = milp.solve()
    assert len(calls) == 2 and result.x is not None and np.isfinite(result.x).all()
    assert result.x.tolist() == [0.0, 1.0] and result.status == "optimal"
