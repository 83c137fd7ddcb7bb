"""Property tests over random valid topologies and clusters (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import validate_plan_against
from streamplace.model.topology import Operator, Stream, Topology, infer_kinds
from streamplace.perf import evaluate
from streamplace.perf.engines import EngineSettings, IdealSettings
from streamplace.schedulers import create, scheduler_names


@st.composite
def topologies(draw: st.DrawFn, node_ids: list[str]) -> Topology:
    n = draw(st.integers(2, 7))
    ids = [f"op{k}" for k in range(n)]
    edges: set[tuple[int, int]] = set()
    for j in range(1, n):  # every operator after the first gets an upstream: connected DAG
        edges.add((draw(st.integers(0, j - 1)), j))
    for _ in range(draw(st.integers(0, n))):
        a, b = sorted(draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
        edges.add((a, b))
    cyclic = draw(st.booleans()) and n >= 3
    if cyclic:  # a back edge between two non-source operators; selectivities < 1 keep rates finite
        edges.add((n - 1, 1))
        ids.append(f"op{n}")  # and a way out of the loop: a loop whose output reaches no sink is refused
        edges.add((n - 1, n))
    kinds = infer_kinds(ids, [Stream(ids[a], ids[b]) for a, b in edges])
    ops = []
    for op_id in ids:
        kind = kinds[op_id]
        pinned = None
        if kind != "sink" and draw(st.integers(0, 5)) == 0:
            pinned = tuple(draw(st.lists(st.sampled_from(node_ids), min_size=1, max_size=2, unique=True)))
        ops.append(Operator(
            id=op_id, kind=kind,
            rate=draw(st.floats(1, 500)) if kind == "source" else None,
            cost_ms=draw(st.floats(0, 5)), overhead=draw(st.floats(0, 10)),
            selectivity=draw(st.floats(0.1, 0.9)) if cyclic else draw(st.floats(0.1, 2.0)),
            cpu=draw(st.floats(1, 80)), memory_mb=draw(st.floats(16, 1024)),
            replicas=draw(st.integers(1, 4)), pinned=pinned,
        ))
    groupings = ["shuffle", "key", "all"]
    streams = []
    for a, b in sorted(edges):
        g = draw(st.sampled_from(groupings))
        streams.append(Stream(ids[a], ids[b], g, "k" if g == "key" else None))
    return Topology("random", tuple(ops), tuple(streams))


@st.composite
def instances(draw: st.DrawFn) -> tuple[Topology, Cluster]:
    n_nodes = draw(st.integers(1, 6))
    nodes = tuple(
        Node(f"n{k}", cpu=draw(st.floats(50, 800)), memory_mb=draw(st.floats(256, 4096)),
             rack=f"r{draw(st.integers(0, 2))}", speedup=draw(st.floats(0.5, 3.0)),
             type=draw(st.sampled_from(["a", "b"])), slots=draw(st.integers(1, 4)),
             availability=draw(st.floats(0.9, 1.0)))
        for k in range(n_nodes)
    )
    cluster = Cluster("rand", nodes, Links())
    return draw(topologies([n.id for n in nodes])), cluster


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["round-robin", "r-storm", "ffd"]))
def test_every_scheduler_places_everything_or_explains(instance: tuple[Topology, Cluster], name: str) -> None:
    topology, cluster = instance
    assert name in scheduler_names()
    plan = create(name).plan(topology, cluster)
    if plan.status == "infeasible":  # nothing placed, or the best placement with what it breaks
        assert plan.explanation and all(isinstance(line, str) and line for line in plan.explanation)
        assert not plan.predicted
        return
    assert validate_plan_against(plan, topology, cluster) == []  # known ids, every operator, pinning
    for op in topology.operators:
        assert plan.parallelism(op.id) == op.replicas
    memory = {n.id: 0.0 for n in cluster.nodes}
    for op_id, per in plan.replicas.items():
        for node, count in per.items():
            memory[node] += count * topology.op(op_id).memory_mb
    assert all(memory[n.id] <= n.memory_mb + 1e-6 for n in cluster.nodes)


@settings(max_examples=100, deadline=None)
@given(instances())
def test_model_invariants(instance: tuple[Topology, Cluster]) -> None:
    topology, cluster = instance
    plan = create("ffd").plan(topology, cluster)
    if plan.status == "infeasible":
        return
    ev = evaluate(topology, cluster, plan)
    assert ev.sustainable_scale >= 0
    assert 0 < ev.availability <= 1
    assert ev.delivered_throughput <= ev.offered_throughput + 1e-9
    assert ev.latency_mean_ms <= ev.latency_ms + 1e-9
    assert ev.inter_node_traffic >= 0
    # at the sustainable scale no node exceeds its limit
    if 0 < ev.sustainable_scale < float("inf"):
        load_at_1 = ev.cpu_utilization * cluster.cpu
        per_rate = np.bincount(ev.cells.node, weights=ev.cells.cpu_per_rate, minlength=len(cluster))
        at_limit = per_rate * ev.sustainable_scale + (load_at_1 - per_rate)
        assert (at_limit <= cluster.cpu * cluster.utilization_limit + 1e-6).all()
    # with one thread per replica, no replica exceeds its thread at that model's sustainable scale
    one = evaluate(topology, cluster, plan, engine=EngineSettings("ideal", ideal=IdealSettings("thread")))
    assert one.sustainable_scale <= ev.sustainable_scale + 1e-9  # a further cap never raises the scale
    if 0 < one.sustainable_scale < float("inf"):
        thread = one.cells.rate * one.sustainable_scale * one.cells.e / 10 + one.cells.met
        assert (thread <= 100 + 1e-6).all()
