"""Time to evaluate a plan of 10,000 replicas on 1,000 nodes with the performance model.

The topology is a chain of 100 operators with 100 replicas each, dealt
round-robin over 1,000 nodes so every operator spans 100 nodes (the worst
case for per-stream node-pair metrics). Target: under 50 ms.

Run: .venv/bin/python benchmarks/evaluate_speed.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamplace.bench.clusters import racks
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf import evaluate
from streamplace.schedulers import create

TARGET_MS = 50.0


def chain_topology(n_ops: int = 100, replicas: int = 100) -> Topology:
    ops = [Operator("op0", "source", rate=50_000.0, cost_ms=0.01, replicas=replicas, memory_mb=64)]
    for k in range(1, n_ops):
        ops.append(Operator(f"op{k}", "sink" if k == n_ops - 1 else "operator", cost_ms=0.01,
                            selectivity=0.99, replicas=replicas, memory_mb=64))
    streams = [Stream(f"op{k}", f"op{k + 1}") for k in range(n_ops - 1)]
    return Topology("chain-100x100", tuple(ops), tuple(streams))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    cluster = racks(25, 40)
    topology = chain_topology()
    plan = create("round-robin", {"workers": "1000"}).plan(topology, cluster)
    cells = sum(len(per) for per in plan.replicas.values())
    print(f"plan: {plan.total_replicas()} replicas in {cells} (operator, node) cells on {len(cluster)} nodes")
    evaluate(topology, cluster, plan)  # warm caches (latency matrix of the cluster)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        ev = evaluate(topology, cluster, plan)
        times.append((time.perf_counter() - start) * 1000)
    med = statistics.median(times)
    verdict = "meets" if med < TARGET_MS else "MISSES"
    print(f"evaluate: median {med:.1f} ms, min {min(times):.1f} ms, max {max(times):.1f} ms over {args.repeat} runs "
          f"(target < {TARGET_MS:.0f} ms: {verdict})")
    print(f"predicted: throughput {ev.throughput:,.0f} t/s, latency {ev.latency_ms:.2f} ms, "
          f"inter-node traffic {ev.inter_node_traffic:,.0f} B/s, availability {ev.availability:.4f}")


if __name__ == "__main__":
    main()
