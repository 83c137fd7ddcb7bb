"""How ``optimal`` scales: time to a proven optimum (gap ≤ 0.1 %) as operators × nodes grow.

Instances: chains of n operators (per-tuple costs cycling 1, 2, 4 ms, MET 2
points) on clusters of m nodes of Nasiri et al.'s (2023) three machine types, k = 10
replicas per operator, 60 s per instance. Also times every paper-000
micro-benchmark instance on hetero-3 (target: under 5 s each). Prints
time, status and gap per instance and the largest instance proven optimal
within the limit.

Run: .venv/bin/python benchmarks/optimal_scaling.py [--time-limit 60] [--sizes 3x3,4x6,...]
     [--micro nasiri-linear,...]
"""

from __future__ import annotations

import argparse
import time

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.clusters import hetero
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.schedulers import create

MICRO = ["nasiri-linear", "nasiri-diamond", "nasiri-star", "rollingcount", "uniquevisitor"]


def chain(n: int) -> Topology:
    costs = [0.5] + [(1.0, 2.0, 4.0)[k % 3] for k in range(n - 1)]
    ops = [Operator(f"op{k}", "source" if k == 0 else ("sink" if k == n - 1 else "operator"),
                    rate=100.0 if k == 0 else None, cost_ms=costs[k], overhead=2.0, memory_mb=256)
           for k in range(n)]
    return Topology(f"chain-{n}", tuple(ops), tuple(Stream(f"op{k}", f"op{k + 1}") for k in range(n - 1)))


def run(topo: Topology, cluster_name: str, cluster, limit: float) -> tuple[float, str, float | None, float]:
    start = time.perf_counter()
    plan = create("optimal", {"time_limit_s": str(limit)}).plan(topo, cluster)
    return time.perf_counter() - start, plan.status, plan.gap, plan.predicted.get("throughput", 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sizes", default="3x3,4x3,6x3,4x6,6x6,8x6,4x12,6x12,8x12,4x24,6x24")
    parser.add_argument("--micro", default=",".join(MICRO), help="the micro-benchmarks timed on hetero-3")
    args = parser.parse_args()
    print("Nasiri et al. 2023 micro-benchmarks on hetero-3 (target < 5 s):")
    cluster = resolve_cluster("hetero-3")
    for name in args.micro.split(","):
        seconds, status, gap, thr = run(resolve_topology(name), "hetero-3", cluster, args.time_limit)
        print(f"  {name:15s} {seconds:6.2f} s  {status:8s} gap {gap if gap is not None else float('nan'):.1e}  "
              f"throughput {thr:,.1f} t/s  {'meets' if seconds < 5 else 'MISSES'}")
    print(f"\nscaling (chains on m nodes of three types, k = 10, limit {args.time_limit:.0f} s):")
    largest = None
    for size in args.sizes.split(","):
        n, m = (int(x) for x in size.split("x"))
        cluster = hetero(m // 3, max(1, m // 6), f"hetero-{m}")
        seconds, status, gap, thr = run(chain(n), f"hetero-{m}", cluster, args.time_limit)
        proven = status == "ok"
        if proven:
            largest = (n, m)
        print(f"  {n:2d} operators × {m:2d} nodes: {seconds:6.2f} s  {status:8s} "
              f"gap {gap if gap is not None else float('nan'):.1e}  throughput {thr:,.1f} t/s")
    print(f"\nlargest instance proven optimal (gap ≤ 0.1 %) within {args.time_limit:.0f} s: "
          + (f"{largest[0]} operators × {largest[1]} nodes" if largest else "none"))


if __name__ == "__main__":
    main()
