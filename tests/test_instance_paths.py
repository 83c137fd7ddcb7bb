"""Ecker et al.'s s_lat over instance paths (issue 38, item 2): the paper's operators are replicas, so the
latency accumulated to a replica is the largest over its predecessor replicas of theirs plus the link between
them — not each stream's worst node pair added on top of the upstream operator's worst value."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.evaluate import evaluate
from streamplace.perf.latency import forward_inputs, instance_links_ms, plan_links_ms, reach_by_locality
from streamplace.perf.unit_score import UnitScorer


def chain() -> Topology:
    ops = (Operator("src", "source", rate=10.0), Operator("x", cost_ms=1.0, replicas=2), Operator("out", "sink"))
    return Topology("c", ops, (Stream("src", "x"), Stream("x", "out")))


def two_racks() -> Cluster:
    nodes = (Node("a", cpu=400, memory_mb=4096, rack="r1"), Node("b", cpu=400, memory_mb=4096, rack="r2"))
    return Cluster("two", nodes, links=Links(same_rack_ms=0.2, cross_rack_ms=3.0))


def brute_force(topology: Topology, cluster: Cluster, counts: np.ndarray) -> float:
    """Every replica-to-replica path enumerated: the paper's definition, written out."""
    idx, lat = topology.index, cluster.latency
    where = {i: [u for u in range(len(cluster)) if counts[i, u] > 0] for i in range(len(topology.operators))}
    best = {(idx[s.id], u): 0.0 for s in topology.sources for u in where[idx[s.id]]}
    for op in topology.acyclic_order:
        j = idx[op]
        for stream in topology.streams:
            if stream.target != op or not topology.forward_graph.has_edge(stream.source, op):
                continue
            i = idx[stream.source]
            for u, v in itertools.product(where[i], where[j]):
                if (i, u) in best:
                    best[(j, v)] = max(best.get((j, v), -np.inf), best[(i, u)] + float(lat[u, v]))
    ends = [idx[s.id] for s in topology.sinks]
    return max((value for (i, _), value in best.items() if i in ends), default=0.0)


def test_a_replica_path_counts_each_link_it_crosses_once() -> None:
    topo, cluster = chain(), two_racks()
    plan = Plan("m", topo.name, cluster.name, {"src": {"a": 1}, "x": {"a": 1, "b": 1}, "out": {"b": 1}})
    assert evaluate(topo, cluster, plan).score.s_lat == pytest.approx(3.0)  # not 2 × 3 ms
    scorer = UnitScorer.build(topo, cluster)
    placement = np.array([[0, 0, 1, 1]])  # src on a, x on a and b, out on b (replicas in operator order)
    assert scorer.latency_term(scorer.counts(placement) > 0)[0] == pytest.approx(3.0)


def test_s_lat_equals_the_enumeration_of_every_replica_path() -> None:
    from streamplace.bench import resolve_cluster, resolve_topology

    rng = np.random.default_rng(1)
    for name in ("t-m1", "t-r2", "t-r8"):  # t-r8 has a cycle: its back edges are left out, as everywhere
        topo, cluster = resolve_topology(name), resolve_cluster("continuum-11")
        scorer = UnitScorer.build(topo, cluster)
        for _ in range(20):
            placement = rng.integers(0, len(cluster), size=(1, scorer.n_units))
            counts = scorer.counts(placement)[0]
            expected = brute_force(topo, cluster, counts)
            assert scorer.latency_term(counts[None] > 0)[0] == pytest.approx(expected)
            assert plan_links_ms(topo, cluster, counts) == pytest.approx(expected)


def test_large_plans_take_the_path_by_locality_and_agree_with_the_dense_block() -> None:
    rng = np.random.default_rng(2)
    nodes = tuple(Node(f"n{k:03d}", cpu=100, memory_mb=100, rack=f"r{k % 7}", zone=f"z{k % 3}") for k in range(150))
    for cross_zone in (None, 9.0):
        cluster = Cluster("big", nodes, links=Links(same_node_ms=0.01, same_rack_ms=0.3, cross_rack_ms=2.0,
                                                    cross_zone_ms=cross_zone))
        topo = Topology("t", (Operator("s", "source", rate=1.0), Operator("a"), Operator("b"), Operator("k", "sink")),
                        (Stream("s", "a"), Stream("a", "b"), Stream("s", "b"), Stream("b", "k")))
        counts = (rng.random((4, 150)) < 0.4).astype(int)  # about 60 nodes an operator, 150 in all: by locality
        idx = topo.index
        dense = instance_links_ms(counts[None] > 0, cluster.latency, forward_inputs(topo),
                                  np.array([idx["s"]]), np.array([idx["k"]]))[0]
        assert plan_links_ms(topo, cluster, counts) == pytest.approx(dense)
        u, v = np.flatnonzero(counts[1]), np.flatnonzero(counts[2])
        d = rng.uniform(0, 5, len(u))
        assert reach_by_locality(cluster, u, d, v) == pytest.approx((d[:, None] + cluster.latency_block(u, v)).max(0))
