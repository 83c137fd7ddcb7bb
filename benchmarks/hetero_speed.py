"""Planning time of ``hetero`` on 100 operators × 200 nodes (target: under 1 s).

The topology is a random layered DAG of 100 operators (seeded), the cluster
200 nodes of Nasiri et al.'s (2023) three machine types. Prints the time, the
replicas chosen and the sustained rate.

Run: .venv/bin/python benchmarks/hetero_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from itertools import pairwise

import numpy as np

from streamplace.bench.clusters import HETERO_TYPES
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.schedulers import create

TARGET_S = 1.0


def layered_topology(n_ops: int = 100, width: int = 10, seed: int = 7) -> Topology:
    rng = np.random.default_rng(seed)
    layers = [list(range(k, min(k + width, n_ops))) for k in range(0, n_ops, width)]
    edges: set[tuple[int, int]] = set()
    for a, b in pairwise(layers):
        for j in b:  # every operator gets one or two upstream operators from the previous layer
            for i in rng.choice(a, size=min(len(a), int(rng.integers(1, 3))), replace=False):
                edges.add((int(i), j))
        for i in a:  # and every operator of a layer feeds the next one
            if not any(e[0] == i for e in edges):
                edges.add((i, int(rng.choice(b))))
    has_in = {b for _, b in edges}
    has_out = {a for a, _ in edges}
    ops = []
    for k in range(n_ops):
        kind: Kind = "source" if k not in has_in else ("sink" if k not in has_out else "operator")
        ops.append(Operator(f"op{k}", kind, rate=100.0 if kind == "source" else None,
                            cost_ms=float(rng.choice([0.05, 0.1, 0.2])), overhead=1.0,
                            selectivity=float(rng.uniform(0.3, 0.9)), memory_mb=128))
    return Topology("layered-100", tuple(ops), tuple(Stream(f"op{a}", f"op{b}") for a, b in sorted(edges)))


def cluster_200() -> Cluster:
    nodes = []
    types = list(HETERO_TYPES.items())
    for k in range(200):
        t, (cpu, mem, speed, cost) = types[k % 3]
        nodes.append(Node(f"{t}-{k}", cpu=cpu, memory_mb=mem * 4, type=t, rack=f"rack{k // 20}", speedup=speed,
                          cost_per_hour=cost))
    return Cluster("hetero-200", tuple(nodes), Links(same_rack_ms=0.1, cross_rack_ms=1.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    topo, cluster = layered_topology(), cluster_200()
    times, plan = [], None
    for _ in range(args.repeat):
        start = time.perf_counter()
        plan = create("hetero").plan(topo, cluster)
        times.append(time.perf_counter() - start)
    assert plan is not None
    med = statistics.median(times)
    print(f"hetero on {len(topo.operators)} operators × {len(cluster)} nodes: median {med:.3f} s "
          f"(min {min(times):.3f}, max {max(times):.3f}; target < {TARGET_S:.0f} s: "
          f"{'meets' if med < TARGET_S else 'MISSES'})")
    print(f"status {plan.status}; {plan.total_replicas()} replicas on {plan.predicted['nodes_used']} nodes; "
          f"sustained {sum(plan.source_rates.values()):,.0f} t/s at the sources, throughput "
          f"{plan.predicted['throughput']:,.0f} t/s, "
          f"weighted utilization {plan.predicted['weighted_utilization']:.2f}; "
          f"{plan.warnings[-1]}")


if __name__ == "__main__":
    main()
