"""max-throughput's neighbourhood by state of node (schedulers/max_throughput_moves.py): one node stands for each
class of alike nodes holding the same replicas, the search picks what the neighbourhood over every node picked,
and a round's memory and candidates do not grow with the nodes of a class."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from streamplace.bench import resolve_topology
from streamplace.bench.clusters import hetero
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers import max_throughput_moves as moves
from streamplace.schedulers.throughput_search import best_neighbours, leximin_key, neighbours, node_groups

TOPOLOGIES = ("nasiri-diamond", "t-r1", "processing", "nasiri-linear")


def population(model: ThroughputModel, chains: int, rng: np.random.Generator, spread: int) -> np.ndarray:
    """``chains`` count matrices of one to three replicas per operator on random allowed nodes among the first
    ``spread`` of each kind (hetero's nodes are kind after kind)."""
    o, m = model.e.shape
    per = m // 3
    near = np.zeros(m, dtype=bool)
    for c in range(3):
        near[c * per:c * per + spread] = True
    pop = np.zeros((chains, o, m), dtype=np.int64)
    for c in range(chains):
        for i in range(o):
            for _ in range(int(rng.integers(1, 4))):
                pop[c, i, rng.choice(np.flatnonzero(model.allowed[i] & near))] += 1
    return pop


def every_node_its_own_state(model: ThroughputModel, pop: np.ndarray,
                             classes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """node_states where no two nodes share a state: the neighbourhood over every node."""
    first = np.broadcast_to(np.arange(pop.shape[2]), pop.shape[::2]).copy()
    return first, np.full(first.shape, -1)


@pytest.mark.parametrize("seed", range(8))
def test_each_chain_takes_the_neighbour_the_listing_over_every_node_gives_it(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over several steps from random plans on 3 × 12 nodes (both replica caps): the best neighbour per chain,
    its scale and what sits at it are the ones the neighbourhood over every node picks (the first of the best in
    its listing), while fewer candidates are listed."""
    rng = np.random.default_rng(seed)
    topology = resolve_topology(TOPOLOGIES[seed % len(TOPOLOGIES)])
    model = ThroughputModel.build(topology, hetero(12, 2), replica_cap=("thread", "machine")[seed % 2])
    k = np.full(len(topology.operators), 10)
    groups = node_groups(model)
    pop = population(model, 5, rng, 6)
    fewer = False
    for _ in range(4):
        _, _, node_s, cell_s = leximin_key(model, pop)
        cell_s = np.array(cell_s)
        chain, batch, scale, at, n2, c2 = best_neighbours(model, pop, k, node_s, cell_s, groups)
        listed = len(neighbours(model, pop, k, node_s, cell_s, groups)[0])
        with monkeypatch.context() as patch:
            patch.setattr(moves, "node_states", every_node_its_own_state)
            dense = best_neighbours(model, pop, k, node_s, cell_s, groups)
            listed_dense = len(neighbours(model, pop, k, node_s, cell_s, groups)[0])
        assert np.array_equal(chain, dense[0]) and np.array_equal(batch, dense[1])
        assert np.array_equal(scale, dense[2]) and np.array_equal(at, dense[3])
        assert np.array_equal(n2, dense[4]) and np.array_equal(c2, dense[5])
        assert listed <= listed_dense
        fewer |= listed < listed_dense
        pop[chain] = batch
    assert fewer


def test_a_rounds_candidates_do_not_grow_with_the_nodes_of_a_class() -> None:
    """The same plans on 3 × 20 and on 3 × 200 nodes (the extra nodes empty): the same number of candidates —
    every empty node of a kind is one state — where the listing over every node grows with them."""
    topology = resolve_topology("t-r1")
    k = np.full(len(topology.operators), 10)
    sizes = []
    for per in (20, 200):
        model = ThroughputModel.build(topology, hetero(per, 4), replica_cap="thread")
        small = ThroughputModel.build(topology, hetero(20, 4), replica_cap="thread")
        pop20 = population(small, 6, np.random.default_rng(3), 8)
        pop = np.zeros((6, len(k), 3 * per), dtype=np.int64)
        for c in range(3):  # each kind's first 20 nodes hold what hetero(20)'s did
            pop[:, :, c * per:c * per + 20] = pop20[:, :, c * 20:(c + 1) * 20]
        _, _, node_s, _ = leximin_key(model, pop)
        hot = (pop > 0) & (node_s <= node_s.min(axis=1, keepdims=True) * (1 + 1e-9))[:, None, :]
        parts = moves.neighbour_parts(model, pop, k, hot, node_groups(model), node_s)
        sizes.append(sum(size for size, _ in parts))
    assert sizes[0] == sizes[1] > 0


def test_a_round_on_300_nodes_of_three_kinds_stays_within_a_memory_bound() -> None:
    """One round of the search's neighbourhood (12 chains, t-r1's 16 operators, one thread per replica) on 300
    nodes of three kinds, scored: under 128 MB at its peak (tracemalloc). Over every node it listed about
    64,000 candidates at this size in the search and failed to allocate 2.28 GiB for them (under a 4 GB limit);
    its swap mask alone was 12 × 16 × 300 × 16 × 300 booleans (276 MB)."""
    topology = resolve_topology("t-r1")
    model = ThroughputModel.build(topology, hetero(100, 4), replica_cap="thread")
    k = np.full(len(topology.operators), 10)
    pop = population(model, 12, np.random.default_rng(0), 100)
    _, _, node_s, cell_s = leximin_key(model, pop)
    cell_s = np.array(cell_s)
    groups = node_groups(model)
    tracemalloc.start()
    try:
        chain, batch, *_ = best_neighbours(model, pop, k, node_s, cell_s, groups)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(chain) == len(pop) and batch.shape == pop.shape
    assert peak < 128 * 2 ** 20
