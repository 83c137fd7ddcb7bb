"""Ecker et al.'s (2025) evaluation instances: the 11-worker continuum and the §6.1.2 generator."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.continuum import random_topology
from streamplace.perf import operator_rates


def test_continuum_cluster_matches_the_paper() -> None:
    c = resolve_cluster("continuum-11")
    cpu = {n.id: n.cpu for n in c.nodes}
    mem = {n.id: n.memory_mb for n in c.nodes}
    assert (cpu["w1"], mem["w1"]) == (150, 2048)
    assert all((cpu[w], mem[w]) == (100, 1024) for w in ("w2", "w6", "w7"))
    assert all((cpu[w], mem[w]) == (30, 768) for w in ("w3", "w4", "w5", "w8", "w9", "w10", "w11"))
    assert c.utilization_limit == 0.95
    lat = c.latency
    assert np.allclose(lat, lat.T) and (lat[~np.eye(11, dtype=bool)] >= 1).all() and lat.max() <= 6


@pytest.mark.parametrize("seed", range(1, 30))
def test_generator_shape(seed: int) -> None:
    t = random_topology(seed)
    assert len(t.sources) == 1 and len(t.sinks) == 1
    assert 3 <= len(t.operators) <= 24
    assert t.is_acyclic
    alphas = [op.selectivity for op in t.operators if op.kind == "operator"]
    assert all(a > 0 for a in alphas)
    assert random_topology(seed) == t  # seeded


def test_generator_makes_both_kinds_of_selectivity_and_diamonds() -> None:
    alphas = [op.selectivity for s in range(1, 30) for op in random_topology(s).operators if op.kind == "operator"]
    assert min(alphas) < 1 < max(alphas)
    fan_out = [len(random_topology(s).successors("source")) for s in range(1, 30)]
    assert max(fan_out) >= 2  # some diamonds start at the source


@pytest.mark.parametrize("name", ["t-r8", "t-r9"])
def test_cyclic_instances_have_a_converging_loop(name: str) -> None:
    t = resolve_topology(name)
    assert t.cycles
    assert np.isfinite(operator_rates(t).input).all()  # loop gain below 1


def test_manual_topologies() -> None:
    assert [len(resolve_topology(n).operators) for n in ("t-m1", "t-m2", "t-m3")] == [6, 3, 3]
    assert resolve_topology("t-m2").op("work").replicas == 10


def test_generated_topologies_have_table_1s_sizes() -> None:
    """Ecker et al. 2025 Table 1: operations / operators (instances), source and sink included."""
    from streamplace.bench import resolve_topology

    paper = {"t-r1": (16, 30), "t-r2": (7, 12), "t-r3": (12, 22), "t-r4": (15, 28), "t-r5": (11, 20),
             "t-r6": (11, 20), "t-r7": (22, 42), "t-r8": (8, 14), "t-r9": (10, 18)}
    for name, (operations, operators) in paper.items():
        t = resolve_topology(name)
        assert (len(t.operators), t.total_replicas()) == (operations, operators), name
    assert not resolve_topology("t-r8").is_acyclic and resolve_topology("t-r7").is_acyclic
