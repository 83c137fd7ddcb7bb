"""Ecker et al. 2025 Eq. 1 computed by hand on a small case (replica-to-replica edges, as the paper counts them)."""

from __future__ import annotations

import pytest

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.evaluate import evaluate


def test_eq1_on_three_nodes() -> None:
    """src (2 replicas on n0, n1) → a (1 on n0) → out (3: n1, n1, n2).

    Edges: src→a has 2·1 = 2, one remote (src@n1 → a@n0); a→out has 1·3 = 3, all remote. s_co = (1 + 3) / 5 =
    0.8 (a mean over streams would say (1/2 + 1) / 2 = 0.75). Events: src→a carries 10 t/s, half of it remote;
    a→out 10 t/s, all remote: s_event = (5 + 10) / 20 = 0.75. s_sup = 3 of 3 nodes. s_lat: the longest link
    latency accumulated from a source replica to a sink replica: n1 → n0 → n1, 2 × 0.5 ms (one rack).
    """
    ops = (Operator("src", "source", rate=10.0, cost_ms=0.1, memory_mb=10, replicas=2),
           Operator("a", cost_ms=0.1, memory_mb=10),
           Operator("out", "sink", cost_ms=0.1, memory_mb=10, replicas=3))
    topo = Topology("t", ops, (Stream("src", "a"), Stream("a", "out")))
    cluster = Cluster("c", tuple(Node(f"n{k}", cpu=400, memory_mb=1000, rack="r") for k in range(3)),
                      Links(same_rack_ms=0.5, cross_rack_ms=5.0))
    plan = Plan("manual", "t", "c", {"src": {"n0": 1, "n1": 1}, "a": {"n0": 1}, "out": {"n1": 2, "n2": 1}},
                source_rates={"src": 10.0})
    score = evaluate(topo, cluster, plan).score
    assert score.s_co == pytest.approx(0.8)
    assert score.s_event == pytest.approx(0.75)
    assert score.s_sup == pytest.approx(1.0)
    assert score.s_lat == pytest.approx(1.0)
    assert score.score == pytest.approx(1e-6 * 1.0 + 1.0 + 0.8 + 0.75)


def test_eq2_to_eq5_by_hand() -> None:
    """Ecker et al. 2025's ant system: Eq. 3's η doubles for a neighbour on the node and for a used node, halves
    for an overload; Eq. 2 normalizes τ^α·η^β; Eq. 4–5 decay the pheromone and lay Q/S_k on each used edge."""
    import numpy as np

    from streamplace.schedulers.latency_aware import AntParams, move_weights, pheromone_update

    # two candidate nodes; τ = 1 and 2; node 0 holds a neighbour and is used (η = 2² = 4), node 1 is used but
    # the replica would overload its CPU (η = 2^(1 − 1) = 1); β = 2: η^β = 16 and 1
    w = move_weights(np.array([1.0, 2.0]), np.array([True, False]), np.array([1.0, 1.0]),
                     np.array([False, True]), np.array([False, False]), beta=2.0)
    assert w == pytest.approx([16.0, 2.0])
    assert (w / w.sum()) == pytest.approx([16 / 18, 2 / 18])
    # Eq. 4–5: two replicas, two nodes, ρ = 0.5, Q = 1, p_m = 0.3; ant A (S = 2) put both on node 0, ant B (S = 4)
    # put replica 0 on node 1 and replica 1 on node 0
    tau = np.array([[1.0, 1.0], [1.0, 0.2]])
    new = pheromone_update(tau, np.array([[0, 0], [1, 0]]), np.array([2.0, 4.0]),
                           AntParams(rho=0.5, q=1.0, minimum=0.3))
    assert new.ravel() == pytest.approx([0.5 + 0.5, 0.5 + 0.25, 0.5 + 0.5 + 0.25, max(0.1, 0.3)])
