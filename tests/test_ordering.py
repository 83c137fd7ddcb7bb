"""Ecker et al.'s (2025) Algorithm 3: topological order of cyclic graphs."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from streamplace.model.ordering import cyclic_topological_order, forward_edges


def flat(order: list[frozenset]) -> list:
    return [v for group in order for v in sorted(group)]


def test_dag_order_is_topological_and_grouped() -> None:
    edges = [("s", "a"), ("s", "b"), ("a", "c"), ("b", "c"), ("c", "k")]
    order = cyclic_topological_order(["s", "a", "b", "c", "k"], edges)
    assert order == [frozenset({"s"}), frozenset({"a", "b"}), frozenset({"c"}), frozenset({"k"})]
    assert forward_edges(order, edges) == edges


def test_simple_cycle_removes_the_back_edge() -> None:
    edges = [("s", "a"), ("a", "b"), ("b", "a"), ("b", "k")]
    order = cyclic_topological_order(["s", "a", "b", "k"], edges)
    assert flat(order) == ["s", "a", "b", "k"]
    assert set(edges) - set(forward_edges(order, edges)) == {("b", "a")}


def test_cycle_entered_next_to_a_removed_source() -> None:
    # s feeds c1 of the cycle c1 → c2 → c3 → c1; c1 neighbours the removed source, so it is cut first
    edges = [("s", "c1"), ("c1", "c2"), ("c2", "c3"), ("c3", "c1"), ("c3", "k")]
    order = cyclic_topological_order(["s", "c1", "c2", "c3", "k"], edges)
    assert flat(order) == ["s", "c1", "c2", "c3", "k"]
    assert set(edges) - set(forward_edges(order, edges)) == {("c3", "c1")}


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_any_digraph_gets_a_partition_with_an_acyclic_forward_part(case: tuple[int, list]) -> None:
    n, raw = case
    edges = sorted({(a, b) for a, b in raw if a != b})
    order = cyclic_topological_order(range(n), edges)
    members = [v for group in order for v in group]
    assert sorted(members) == list(range(n))  # every vertex exactly once
    kept = forward_edges(order, edges)
    g = nx.DiGraph(kept)
    assert nx.is_directed_acyclic_graph(g)
    if nx.is_directed_acyclic_graph(nx.DiGraph(edges)):
        assert kept == edges  # nothing is removed from a DAG
