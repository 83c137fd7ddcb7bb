"""Storm 0.9.5's default scheduler (schedulers/storm_even.py), on cases worked by hand from the Clojure source."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import SchedulerParamError
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


# ------------------------------------------------------------------ the storm-even scheduler
def _matrix(plan, t, c) -> np.ndarray:
    out = np.zeros((len(t.operators), len(c)), dtype=np.int64)
    for i, op in enumerate(t.operators):
        for node, n in plan.replicas.get(op.id, {}).items():
            out[i, c.index[node]] = n
    return out


@pytest.mark.parametrize(("topo", "cluster"), [(t, c) for t in ("nasiri-linear", "nasiri-diamond", "nasiri-star")
                                               for c in ("hetero-3", "nasiri-small", "nasiri-large")])
def test_the_scheduler_places_what_the_model_does_on_nasiris_instances(topo: str, cluster: str) -> None:
    """With hetero's counts (the paper's default runs), in the cluster's order, another named order and a seeded
    one: the scheduler's plan is even_counts' matrix, the counts kept, predicted like any plan."""
    c = resolve_cluster(cluster)
    t = resolve_topology(topo).with_replicas(
        create("hetero", {"max_replicas": "10"}).plan(resolve_topology(topo), c).counts())
    plan = create("storm-even").plan(t, c)
    assert plan.status == "ok" and plan.scheduler == "storm-even", plan.explanation
    assert (_matrix(plan, t, c) == even_counts(t, c)).all()
    assert plan.counts() == {op.id: op.replicas for op in t.operators} and plan.predicted["throughput"] > 0
    reverse = tuple(reversed(c.ids))
    named = create("storm-even", {"node_order": ",".join(reverse)}).plan(t, c)
    assert (_matrix(named, t, c) == even_counts(t, c, node_order=tuple(range(len(c) - 1, -1, -1)))).all()
    seeded = create("storm-even", {"seed": "7"}).plan(t, c)
    order = [int(u) for u in np.random.default_rng(7).permutation(len(c))]
    assert (_matrix(seeded, t, c) == even_counts(t, c, node_order=order)).all()
    assert create("storm-even", {"seed": "7"}).plan(t, c).replicas == seeded.replicas  # deterministic


def test_the_scheduler_differs_from_round_robin_where_ackers_slots_or_the_order_do() -> None:
    c = resolve_cluster("hetero-3")
    t = linear()
    rr = create("round-robin").plan(t, c)
    assert _matrix(create("storm-even").plan(t, c), t, c).tolist() == _matrix(rr, t, c).tolist()  # W ackers: same
    # one acker shifts the deal by one slot: high goes 1, 2, 1 (as worked above), round robin's 2, 1, 1
    one = create("storm-even", {"ackers": "1"}).plan(t, c)
    assert _matrix(one, t, c)[[op.id for op in t.operators].index("high")].tolist() == [1, 2, 1]
    assert _matrix(one, t, c).tolist() != _matrix(rr, t, c).tolist()
    # the Core i5 listed first: every "node 0" of round robin's deal becomes the i5
    first = create("storm-even", {"node_order": "core-i5-1"}).plan(t, c)
    want = even_counts(t, c, node_order=(2, 0, 1)).tolist()
    assert _matrix(first, t, c).tolist() == want != _matrix(rr, t, c).tolist()
    # a node with more free slots takes the first worker (sort-slots); round robin keeps the cluster's order
    nodes = tuple(dataclasses.replace(n, slots=s) for n, s in zip(c.nodes, (1, 1, 2), strict=True))
    uneven = dataclasses.replace(c, nodes=nodes)
    t1 = linear(1, 1, 1, 1)
    assert _matrix(create("storm-even", {"workers": "2", "ackers": "0"}).plan(t1, uneven), t1, uneven).sum(
        axis=0).tolist() == [2, 0, 2]
    assert _matrix(create("round-robin", {"workers": "2"}).plan(t1, uneven), t1, uneven).sum(
        axis=0).tolist() == [2, 2, 0]


def test_what_storm_even_cannot_place_is_an_infeasible_plan_that_says_why() -> None:
    c = resolve_cluster("hetero-3")
    bad = create("storm-even", {"node_order": "core-i5-1,nowhere"}).plan(linear(), c)
    assert bad.status == "infeasible" and "nowhere, not a node of hetero-3" in bad.explanation[0]
    twice = create("storm-even", {"node_order": "core-i5-1,core-i5-1"}).plan(linear(), c)
    assert twice.status == "infeasible" and "twice" in twice.explanation[0]
    with pytest.raises(SchedulerParamError, match="node_order or seed"):
        create("storm-even", {"node_order": "core-i5-1", "seed": "1"})
    # one worker holds everything: more memory than the node has — resource-blind, so reported, not run
    heavy = linear(1, 2, 3, 4)
    heavy = dataclasses.replace(heavy, operators=tuple(dataclasses.replace(op, memory_mb=1000.0)
                                                       for op in heavy.operators))
    full = create("storm-even", {"workers": "1"}).plan(heavy, c)
    assert full.status == "infeasible" and any("MB of replicas but has" in line for line in full.explanation)


def test_a_pinned_operator_is_dealt_over_the_workers_on_its_nodes_the_rest_where_storm_puts_them() -> None:
    c = resolve_cluster("hetero-3")
    t = linear()
    ops = tuple(dataclasses.replace(op, pinned=("pentium-1", "core-i5-1")) if op.id == "high" else op
                for op in t.operators)
    pinned = dataclasses.replace(t, operators=ops)
    plan = create("storm-even").plan(pinned, c)
    free = even_counts(t, c)
    got = _matrix(plan, pinned, c)
    high = [op.id for op in t.operators].index("high")
    assert plan.status == "ok" and got[high].tolist() == [2, 0, 2]  # 4 over the Pentium's and the i5's workers
    assert np.delete(got, high, axis=0).tolist() == np.delete(free, high, axis=0).tolist()
    assert any("pinned high" in line for line in plan.explanation)
    assert not create("storm-even").plan(t, c).explanation
