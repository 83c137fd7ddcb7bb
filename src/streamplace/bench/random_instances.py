"""Random valid planning instances: a topology and a cluster from one seed, for fuzzing the schedulers.

Every instance passes the spec validation (a connected DAG, sources with rates,
positive capacities), yet it is not tame: memory is often tight (a node may hold
only a few replicas), some operators are pinned, streams use every grouping,
replica counts and node sizes differ by an order of magnitude. The same seed gives
the same instance (numpy's PCG64), so a failure found by ``benchmarks/fuzz_schedulers.py``
is reproduced by its seed alone.
"""

from __future__ import annotations

import numpy as np

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Operator, Stream, Topology, infer_kinds

GROUPINGS = ("shuffle", "key", "all")


def random_cluster(rng: np.random.Generator, max_nodes: int = 8) -> Cluster:
    n = int(rng.integers(1, max_nodes + 1))
    nodes = tuple(
        Node(f"n{k}", cpu=float(rng.choice([100, 200, 400, 800])), memory_mb=float(rng.uniform(256, 4096)),
             rack=f"r{int(rng.integers(0, 3))}", speedup=float(rng.uniform(0.5, 3.0)),
             type=str(rng.choice(["a", "b"])), slots=int(rng.integers(1, 5)),
             availability=float(rng.uniform(0.9, 1.0)), cost_per_hour=float(rng.uniform(0.0, 1.0)))
        for k in range(n))
    return Cluster("random", nodes, Links())


def random_topology(rng: np.random.Generator, node_ids: list[str], max_operators: int = 7) -> Topology:
    n = int(rng.integers(2, max_operators + 1))
    ids = [f"op{k}" for k in range(n)]
    edges = {(int(rng.integers(0, j)), j) for j in range(1, n)}  # each later operator gets an upstream: connected
    for _ in range(int(rng.integers(0, n + 1))):
        a, b = sorted(int(x) for x in rng.choice(n, size=2, replace=False))
        edges.add((a, b))
    kinds = infer_kinds(ids, [Stream(ids[a], ids[b]) for a, b in edges])
    ops = []
    for op_id in ids:
        kind = kinds[op_id]
        pinned = None
        if kind != "sink" and rng.random() < 0.15:
            pinned = tuple(str(x) for x in rng.choice(node_ids, size=min(len(node_ids), int(rng.integers(1, 3))),
                                                      replace=False))
        replicas = int(rng.integers(1, 5))
        ops.append(Operator(
            id=op_id, kind=kind, rate=float(rng.uniform(1, 500)) if kind == "source" else None,
            cost_ms=float(rng.uniform(0, 5)), overhead=float(rng.uniform(0, 10)),
            selectivity=float(rng.uniform(0.1, 2.0)), cpu=float(rng.uniform(1, 80)),
            memory_mb=float(rng.uniform(16, 1024)), replicas=replicas,
            max_replicas=int(rng.integers(replicas, 13)), pinned=pinned))
    streams = []
    for a, b in sorted(edges):
        grouping = str(rng.choice(GROUPINGS))
        streams.append(Stream(ids[a], ids[b], grouping, "k" if grouping == "key" else None))  # type: ignore[arg-type]
    return Topology("random", tuple(ops), tuple(streams))


def random_instance(seed: int, max_nodes: int = 8, max_operators: int = 7) -> tuple[Topology, Cluster]:
    """The instance of ``seed``: a cluster of 1..max_nodes nodes and a topology of 2..max_operators operators."""
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng, max_nodes)
    return random_topology(rng, list(cluster.ids), max_operators), cluster
