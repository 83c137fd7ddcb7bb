"""Small, fast fixtures shared by the tests."""

from __future__ import annotations

import pytest

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Operator, Stream, Topology


def chain(rate: float = 100.0, cost: float = 1.0, replicas: int = 1, memory: float = 100.0) -> Topology:
    """src → mid → sink, each with ``cost`` ms per tuple."""
    ops = (
        Operator("src", "source", rate=rate, cost_ms=cost, replicas=replicas, memory_mb=memory),
        Operator("mid", "operator", cost_ms=cost, replicas=replicas, memory_mb=memory),
        Operator("sink", "sink", cost_ms=cost, replicas=replicas, memory_mb=memory),
    )
    return Topology("chain", ops, (Stream("src", "mid"), Stream("mid", "sink")))


def two_racks(n_per_rack: int = 2, cpu: float = 100.0, memory: float = 1000.0) -> Cluster:
    nodes = tuple(
        Node(f"n{r}{k}", cpu=cpu, memory_mb=memory, rack=f"r{r}") for r in range(2) for k in range(n_per_rack)
    )
    return Cluster("two-racks", nodes, Links(same_rack_ms=1.0, cross_rack_ms=10.0))


@pytest.fixture
def small_chain() -> Topology:
    return chain()


@pytest.fixture
def small_cluster() -> Cluster:
    return two_racks()
