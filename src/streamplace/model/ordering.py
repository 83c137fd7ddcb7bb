"""A topological order for cyclic graphs: Ecker et al.'s (2025) Algorithm 3.

The Eades–Lin–Smyth feedback-arc-set heuristic, modified as in the paper:
sources are peeled off as a *set* per round (pushed on the left stack),
then sinks as a set per round (pushed on the right stack); when neither is
left, Tarjan's strongly connected components give the first component in
topological order, and from it the vertex with the largest out- minus
in-degree among those next to an already removed *source* vertex is
removed (any vertex of the component if none is). The result is a list of
vertex sets in topological order; edges that point backwards in it are the
ones removed to break the cycles. O((V + E) · cycles).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import networkx as nx


def cyclic_topological_order(nodes: Iterable[Hashable], edges: Iterable[tuple[Hashable, Hashable]]
                             ) -> list[frozenset]:
    """Vertex sets in topological order after removing few edges to break every cycle."""
    g = nx.DiGraph()
    order_hint = {v: k for k, v in enumerate(nodes)}
    g.add_nodes_from(order_hint)
    g.add_edges_from(edges)
    original = g.copy()
    left: list[frozenset] = []
    right: list[frozenset] = []
    removed_sources: set = set()

    def sources() -> list:
        return sorted((v for v in g if g.in_degree(v) == 0), key=order_hint.__getitem__)

    def sinks() -> list:
        return sorted((v for v in g if g.out_degree(v) == 0 and g.in_degree(v) > 0), key=order_hint.__getitem__)

    while g:
        progressed = True
        while progressed:
            progressed = False
            layer = sources()
            while layer:  # peel every current source as one set, then the sources that uncovers
                left.append(frozenset(layer))
                removed_sources.update(layer)
                g.remove_nodes_from(layer)
                layer = sources()
                progressed = True
            layer = sinks()
            while layer:
                right.append(frozenset(layer))
                g.remove_nodes_from(layer)
                layer = sinks()
                progressed = True
        if not g:
            break
        component = _first_component(g, order_hint)
        near_source = [v for v in component if any(p in removed_sources for p in original.predecessors(v))]
        pool = near_source or sorted(component, key=order_hint.__getitem__)
        v = max(pool, key=lambda x: (g.out_degree(x) - g.in_degree(x), -order_hint[x]))
        left.append(frozenset([v]))
        removed_sources.add(v)
        g.remove_node(v)
    return left + right[::-1]


def _first_component(g: nx.DiGraph, order_hint: dict) -> list:
    """The strongly connected component that comes first in topological order (no edge enters it)."""
    condensed = nx.condensation(g)
    firsts = [c for c in condensed if condensed.in_degree(c) == 0 and len(condensed.nodes[c]["members"]) > 1]
    if not firsts:
        firsts = [c for c in condensed if condensed.in_degree(c) == 0]
    best = min(firsts, key=lambda c: min(order_hint[v] for v in condensed.nodes[c]["members"]))
    return list(condensed.nodes[best]["members"])


Edge = tuple[Hashable, Hashable]


def forward_edges(order: list[frozenset], edges: Iterable[Edge]) -> list[Edge]:
    """The edges that agree with the order (the others were removed to break cycles)."""
    position = {v: k for k, group in enumerate(order) for v in group}
    return [(a, b) for a, b in edges if position[a] < position[b]]
