"""fusion=prefer: placements lined up for Spark's operator fusion where allowed, feasible and no worse."""

from __future__ import annotations

from streamplace.model.cluster import Cluster, Node
from streamplace.model.fusion import fusable_pairs, fused_chains
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.engines import EngineSettings
from streamplace.schedulers import create

SPARK = EngineSettings("spark")


def chain(pin: tuple[str, ...] | None = None, memory: float = 512.0) -> Topology:
    """src → a → b (shuffle), two replicas each, light work: fusable whenever the replicas line up."""
    ops = (Operator("src", "source", rate=50.0, replicas=2, cost_ms=0.1, memory_mb=memory),
           Operator("a", "operator", replicas=2, cost_ms=0.2, memory_mb=memory, pinned=pin),
           Operator("b", "sink", replicas=2, cost_ms=0.2, memory_mb=memory))
    return Topology("c3", ops, (Stream("src", "a"), Stream("a", "b")))


def cluster(memory: float = 4096.0) -> Cluster:
    return Cluster("four", tuple(Node(f"n{k}", cpu=200.0, memory_mb=memory) for k in range(1, 7)))


def test_round_robin_spreads_a_chain_and_prefer_lines_it_up_into_one_stage() -> None:
    topo, cl = chain(), cluster()
    plain = create("round-robin").plan(topo, cl, engine=SPARK)
    aligned = create("round-robin", {"fusion": "prefer"}).plan(topo, cl, engine=SPARK)
    assert len(fused_chains(topo, plain.replicas)) == 3  # round robin: every operator on other nodes
    assert fused_chains(topo, aligned.replicas) == [("src", "a", "b")]
    assert aligned.predicted["engine_detail"]["fused"] == [["src", "a", "b"]]
    assert aligned.replicas["a"] == aligned.replicas["b"] == aligned.replicas["src"]
    assert aligned.predicted["throughput"] >= plain.predicted["throughput"] * (1 - 1e-9)
    assert aligned.predicted["latency_mean_ms"] < plain.predicted["latency_mean_ms"]
    assert any("b onto a's replicas" in line for line in aligned.explanation)
    assert aligned.params["fusion"] == "prefer" and plain.params["fusion"] == "off"


def test_a_pinned_consumer_stays_where_it_may_run() -> None:
    topo, cl = chain(pin=("n5", "n6")), cluster()
    plan = create("round-robin", {"fusion": "prefer"}).plan(topo, cl, engine=SPARK)
    assert set(plan.replicas["a"]) <= {"n5", "n6"}
    assert any("pinned" in line for line in plan.explanation)


def test_memory_that_fits_one_replica_per_node_keeps_them_apart() -> None:
    topo, cl = chain(memory=600.0), cluster(memory=1000.0)
    plan = create("ffd", {"fusion": "prefer"}).plan(topo, cl, engine=SPARK)
    assert plan.status == "ok"
    per_node: dict[str, int] = {}
    for where in plan.replicas.values():
        for node, n in where.items():
            per_node[node] = per_node.get(node, 0) + n
    assert max(per_node.values()) == 1  # nothing placed beyond a node's memory
    assert any("memory" in line for line in plan.explanation)


def test_prefer_under_a_model_without_fusion_changes_nothing_and_says_so() -> None:
    topo, cl = chain(), cluster()
    plain = create("round-robin").plan(topo, cl)
    ideal = create("round-robin", {"fusion": "prefer"}).plan(topo, cl)
    assert ideal.replicas == plain.replicas
    assert any("spark engine only" in w for w in ideal.warnings)


def test_fusable_pairs_follow_the_grouping_and_the_shape() -> None:
    ops = (Operator("s", "source", rate=1.0), Operator("k", "operator"), Operator("x", "operator"),
           Operator("y", "sink"), Operator("z", "sink"))
    topo = Topology("t", ops, (Stream("s", "k", grouping="key", key="key"), Stream("k", "x"), Stream("x", "y"),
                               Stream("x", "z")))
    assert fusable_pairs(topo) == [("k", "x")]  # s→k is key-grouped, x fans out
    assert fusable_pairs(topo, standalone=("k",)) == []
