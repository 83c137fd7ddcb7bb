"""Model objects: validation, immutability, graph helpers."""

from __future__ import annotations

import dataclasses
import json

import pytest

from streamplace.errors import ModelError
from streamplace.model.cluster import Cluster, Node, check_compatible
from streamplace.model.plan import Plan, validate_plan_against
from streamplace.model.topology import Operator, Stream, Topology

from .conftest import chain, two_racks


def test_topology_is_immutable(small_chain: Topology) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        small_chain.name = "other"  # type: ignore[misc]


def test_sources_sinks_and_order(small_chain: Topology) -> None:
    assert [o.id for o in small_chain.sources] == ["src"]
    assert [o.id for o in small_chain.sinks] == ["sink"]
    assert small_chain.acyclic_order == ("src", "mid", "sink")
    assert small_chain.is_acyclic


def test_cycle_is_allowed_and_reported() -> None:
    ops = (Operator("s", "source", rate=10), Operator("a"), Operator("b"), Operator("k", "sink"))
    t = Topology("loop", ops, (Stream("s", "a"), Stream("a", "b"), Stream("b", "a"), Stream("b", "k")))
    assert t.cycles == (("a", "b"),)
    assert "a → b" in t.cycle_warnings()[0]
    order = t.acyclic_order
    assert order.index("s") < order.index("a") < order.index("b") < order.index("k")


def test_all_problems_reported_at_once() -> None:
    ops = (Operator("s", "source", rate=-1), Operator("s"), Operator("x", selectivity=-0.5))
    with pytest.raises(ModelError) as info:
        Topology("bad", ops, (Stream("s", "nowhere"),))
    text = str(info.value)
    assert "operators[0].rate" in text
    assert "operators[1].id" in text and "duplicate" in text
    assert "operators[2].selectivity" in text
    assert "streams[0].to" in text and "nowhere" in text


def test_cluster_validation_names_fields() -> None:
    with pytest.raises(ModelError) as info:
        Cluster("c", (Node("a", cpu=0, memory_mb=10), Node("a", cpu=10, memory_mb=-1)))
    text = str(info.value)
    assert "nodes[0].cpu" in text and "nodes[1].id" in text and "nodes[1].memory_mb" in text


def test_latency_matrix_defaults_and_overrides() -> None:
    c = two_racks()
    assert c.latency[0, 0] == 0.0
    assert c.latency[0, 1] == 1.0  # same rack
    assert c.latency[0, 2] == 10.0  # cross rack
    from streamplace.model.cluster import Links

    c2 = Cluster("c2", c.nodes, Links(same_rack_ms=1, cross_rack_ms=10, latency_ms={"n00": {"n10": 3.0}}))
    assert c2.latency[0, 2] == 3.0 and c2.latency[2, 0] == 3.0
    assert c.network_distance[0, 1] == 0.5 and c.network_distance[0, 2] == 1.0


def test_pinned_to_unknown_node_is_found() -> None:
    ops = (Operator("s", "source", rate=1, pinned=("ghost",)), Operator("k", "sink"))
    t = Topology("p", ops, (Stream("s", "k"),))
    problems = check_compatible(t, two_racks())
    assert problems and problems[0].path == "operators[0].pinned[0]" and "ghost" in problems[0].message


def test_plan_round_trip_and_validation(small_chain: Topology) -> None:
    c = two_racks()
    plan = Plan("manual", "chain", "two-racks", {"src": {"n00": 1}, "mid": {"n01": 2}, "sink": {"n10": 1}})
    again = Plan.from_dict(plan.to_dict())
    assert again.replicas == plan.replicas and again.counts() == {"src": 1, "mid": 2, "sink": 1}
    assert validate_plan_against(plan, small_chain, c) == []
    bad = Plan("manual", "chain", "two-racks", {"src": {"zz": 1}, "mid": {"n01": 1}})
    paths = {p.path for p in validate_plan_against(bad, small_chain, c)}
    assert paths == {"replicas.src.zz", "replicas.sink"}


def test_infeasible_plan_needs_explanation() -> None:
    with pytest.raises(ModelError):
        Plan("x", "t", "c", {}, status="infeasible")


def test_with_replicas() -> None:
    t = chain().with_replicas({"mid": 3})
    assert t.op("mid").replicas == 3 and t.total_replicas() == 5


def test_a_duplicated_stream_and_a_loop_that_reaches_no_sink_are_refused() -> None:
    """From the bad-input corpus: the same stream listed twice silently doubled its target's rate, and a loop
    whose output never reaches a sink was planned with exit 0 (its throughput is 0)."""
    from streamplace.errors import ModelError
    from streamplace.model.topology import Operator, Stream, Topology

    src, sink = Operator("s", "source", rate=10.0, cost_ms=1.0), Operator("k", "sink", cost_ms=1.0)
    with pytest.raises(ModelError, match=r"streams\[1\]: the same stream as streams\[0\]"):
        Topology("t", (src, sink), (Stream("s", "k"), Stream("s", "k")))
    Topology("t", (src, sink), (Stream("s", "k"), Stream("s", "k", "all")))  # another grouping: a second flow
    loop = (Operator("x", cost_ms=1.0), Operator("y", cost_ms=1.0, selectivity=0.5))
    with pytest.raises(ModelError, match=r"operators\[2\]: no stream path leads from 'x' to a sink"):
        Topology("t", (src, sink, *loop), (Stream("s", "k"), Stream("s", "x"), Stream("x", "y"), Stream("y", "x")))
    Topology("t", (src, sink, *loop), (Stream("s", "x"), Stream("x", "y"), Stream("y", "x"), Stream("y", "k")))


def test_a_plans_prediction_is_typed_and_reads_as_its_json_block() -> None:
    """Plan.predicted (issue 40): the figures every engine gives are typed attributes, the block is the read-only
    mapping the plan JSON holds, and a plan file read back gives the same."""
    import streamplace as sp
    from streamplace.model.plan import Predicted

    plan = sp.plan("linear-cpu", "hetero-3", "hetero", engine="storm")
    pred = plan.predicted
    assert isinstance(pred, Predicted) and pred.engine == "storm"
    assert pred.throughput == pred["throughput"] and isinstance(pred.throughput, float) and pred.throughput > 0
    assert pred.sustainable_scale == pred["sustainable_scale"] and pred.nodes_used == pred["nodes_used"]
    assert pred.bottleneck == pred["bottleneck"] and isinstance(pred.bottleneck, str)
    with pytest.raises(TypeError):
        pred["throughput"] = 1.0  # type: ignore[index]
    again = Plan.from_dict(json.loads(plan.to_json()))
    assert dict(again.predicted) == json.loads(plan.to_json())["predicted"] and again.predicted.engine == "storm"
    empty = Predicted({"latency_ms": None, "nodes_used": True})
    assert empty.latency_ms is None and empty.throughput is None and empty.nodes_used is None
    assert empty.engine == "ideal"  # a plan file that names no engine
