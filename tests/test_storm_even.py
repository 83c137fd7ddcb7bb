"""Storm 0.9.5's default scheduler (schedulers/storm_even.py), on cases worked by hand from the Clojure source."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers import create
from streamplace.schedulers.storm_even import (
    ACKER,
    deal,
    even_counts,
    even_plan,
    executor_components,
    listed_slots,
    node_orders,
    sort_slots,
)


def linear(spout: int = 1, low: int = 2, mid: int = 3, high: int = 4):
    return resolve_topology("nasiri-linear").with_replicas({"spout": spout, "low": low, "mid": mid, "high": high})


def test_executors_come_in_component_id_order_with_the_ackers_block_where_storm_sorts_it() -> None:
    assert executor_components({"spout": 1, "bolt": 2}, ackers=2) == [ACKER, ACKER, "bolt", "bolt", "spout"]
    # '_' (U+005F) sorts after upper case and before lower case, as Java's String.compareTo has it
    assert executor_components({"Spout": 1, "bolt": 1}, ackers=1) == ["Spout", ACKER, "bolt"]
    assert executor_components({"b": 0, "a": 1}) == ["a"]
    with pytest.raises(ValueError):
        executor_components({ACKER: 1})


def test_sort_slots_puts_the_nodes_with_most_free_slots_first_and_interleaves() -> None:
    listed = [(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]
    assert sort_slots(listed) == [(2, 0), (1, 0), (0, 0), (2, 1), (1, 1), (2, 2)]
    # equal groups keep the order the cluster listed them in (a stable sort)
    assert sort_slots([(1, 0), (1, 1), (0, 0), (0, 1)]) == [(1, 0), (0, 0), (1, 1), (0, 1)]
    assert sort_slots([]) == []


def test_deal_is_round_robin_over_the_first_w_slots() -> None:
    slots = [(0, 0), (1, 0), (2, 0)]
    assert [s for _, s in deal("abcde", slots, workers=2)] == [(0, 0), (1, 0), (0, 0), (1, 0), (0, 0)]
    assert [s for _, s in deal("abcd", slots, workers=9)] == [(0, 0), (1, 0), (2, 0), (0, 0)]  # W = free slots
    with pytest.raises(ValueError):
        deal("a", slots, workers=0)
    with pytest.raises(ValueError):
        deal("a", [], workers=1)


def test_the_paper_set_up_on_hetero_3_by_hand() -> None:
    """One worker per machine (W = 3), 3 ackers. Executors: __acker×3, high×4, low×2, mid×3, spout×1 at
    positions 0–12, slot k mod 3: high at 3–6 → nodes 0,1,2,0; low at 7–8 → 1,2; mid at 9–11 → 0,1,2;
    spout at 12 → 0. Nodes: pentium-1, core-i3-1, core-i5-1."""
    c = resolve_cluster("hetero-3")
    counts = even_counts(linear(), c)
    ops = [op.id for op in linear().operators]
    want = {"spout": [1, 0, 0], "low": [0, 1, 1], "mid": [1, 1, 1], "high": [2, 1, 1]}
    assert {o: counts[i].tolist() for i, o in enumerate(ops)} == want
    # the cluster listing the Core i5 first: every "node 0" above becomes the i5
    first_i5 = even_counts(linear(), c, node_order=(2, 0, 1))
    assert {o: first_i5[i].tolist() for i, o in enumerate(ops)} == {
        "spout": [0, 0, 1], "low": [1, 1, 0], "mid": [1, 1, 1], "high": [1, 1, 2]}
    # one acker instead of three shifts the deal by one slot: high at 1–4 → nodes 1,2,0,1
    one = even_counts(linear(), c, ackers=1)
    assert one[ops.index("high")].tolist() == [1, 2, 1]
    # Storm's out-of-the-box topology.workers = 1: everything in the first listed node's worker
    single = even_counts(linear(), c, workers=1, node_order=(1, 2, 0))
    assert single[:, 1].tolist() == [1, 2, 3, 4] and single[:, [0, 2]].sum() == 0


def test_a_node_with_more_free_slots_takes_the_first_worker() -> None:
    c = resolve_cluster("hetero-3")
    nodes = tuple(dataclasses.replace(n, slots=s) for n, s in zip(c.nodes, (1, 1, 2), strict=True))
    uneven = dataclasses.replace(c, nodes=nodes)
    assert listed_slots(uneven) == [(0, 0), (1, 0), (2, 0), (2, 1)]
    counts = even_counts(linear(1, 1, 1, 1), uneven, workers=2, ackers=0)  # high, low, mid, spout → 2,0,2,0
    assert counts.sum(axis=0).tolist() == [2, 0, 2]
    with pytest.raises(ValueError):
        listed_slots(uneven, node_order=(0, 0, 1))


@pytest.mark.parametrize("topo", ["nasiri-linear", "nasiri-diamond", "nasiri-star"])
def test_round_robin_is_the_even_scheduler_in_the_cluster_order(topo: str) -> None:
    """With one worker per node and as many ackers (which shift nothing), ``round-robin`` and this model place
    the same counts for the cluster's own node order — so the baseline's gap is not the deal."""
    c = resolve_cluster("hetero-3")
    het = create("hetero", {"max_replicas": "10"}).plan(resolve_topology(topo), c)
    t = resolve_topology(topo).with_replicas(het.counts())
    rr = create("round-robin").plan(t, c)
    def cells(replicas) -> set[tuple[str, str, int]]:
        return {(op, node, n) for op, per in replicas.items() for node, n in per.items() if n}

    assert cells(even_plan(t, c).replicas) == cells(rr.replicas) and cells(rr.replicas)


def test_the_plan_is_evaluated_like_any_other_and_the_node_order_matters() -> None:
    c = resolve_cluster("hetero-3")
    t = linear(1, 1, 1, 1)  # one executor each: who sits on the Pentium decides the throughput
    scores = {order: evaluate(t, c, even_plan(t, c, node_order=order)).throughput for order in node_orders(c)}
    assert len(scores) == 6 and max(scores.values()) > 1.5 * min(scores.values())
    plan = even_plan(t, c, node_order=(2, 1, 0))
    assert plan.scheduler == "storm-even" and plan.source_rates == {"spout": 100.0}
    assert plan.params["node_order"] == ["core-i5-1", "core-i3-1", "pentium-1"]


def test_node_orders_are_distinct_type_sequences_the_cluster_order_first() -> None:
    small = resolve_cluster("nasiri-small")  # 2 machines of each of 3 types: 6! / (2!)^3 = 90 sequences
    orders = node_orders(small)
    types = {tuple(small.nodes[u].type for u in o) for o in orders}
    assert len(orders) == len(types) == 90 and orders[0] == tuple(range(6))
    large = resolve_cluster("nasiri-large")
    sampled = node_orders(large, limit=20, seed=3)
    assert len(sampled) == 20 and sampled == node_orders(large, limit=20, seed=3) and sampled[0] == tuple(range(24))
    assert all(sorted(o) == list(range(24)) for o in sampled)
    assert np.unique([tuple(large.nodes[u].type for u in o) for o in sampled], axis=0).shape[0] == 20
