"""How the exact ODRP solver scales with operators × nodes.

Instances: chains of n operators (service rates 150–400 t/s, seeded) fed at 100 t/s, source and sink
pinned to node w1, k = 3, on m nodes with WAN delays drawn in [12, 32] ms (seeded), 8 replicas per
node, availability 99 % on half the nodes; all four objectives at 0.25 with fixed bounds. 60 s per
instance. Prints solve time, status, gap and model size, and the largest instance proven optimal.

Run: .venv/bin/python benchmarks/odrp_scaling.py [--time-limit 60] [--sizes 8x6,8x12,...]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.schedulers import create

BOUNDS = {"bounds.r_min": "0", "bounds.r_max": "2000", "bounds.a_min": "0.8", "bounds.a_max": "1",
          "bounds.c_min": "0", "bounds.c_max": "200", "bounds.z_min": "0", "bounds.z_max": "20000"}


def chain(n: int, seed: int = 3) -> Topology:
    rng = np.random.default_rng(seed)
    ops = []
    for k in range(n):
        kind: Kind = "source" if k == 0 else ("sink" if k == n - 1 else "operator")
        ops.append(Operator(f"op{k}", kind, rate=100.0 if k == 0 else None,
                            cost_ms=1000.0 / float(rng.uniform(150, 400)),
                            pinned=("w1",) if kind != "operator" else None))
    return Topology(f"chain-{n}", tuple(ops), tuple(Stream(f"op{k}", f"op{k + 1}") for k in range(n - 1)))


def wan(m: int, seed: int = 5) -> Cluster:
    rng = np.random.default_rng(seed)
    ids = [f"w{k + 1}" for k in range(m)]
    nodes = tuple(Node(i, cpu=800, memory_mb=16384, slots=2, rack=i, availability=0.99 if k % 2 else 1.0)
                  for k, i in enumerate(ids))
    delays = {a: {b: float(rng.uniform(12, 32)) for b in ids[k + 1:]} for k, a in enumerate(ids)}
    return Cluster(f"wan-{m}", nodes, Links(latency_ms=delays))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sizes", default="8x6,8x10,12x6,12x10,16x10,16x16,24x16")
    parser.add_argument("--submip", action="store_true", help="switch HiGHS's sub-MIP heuristics on (default off)")
    args = parser.parse_args()
    largest = None
    for size in args.sizes.split(","):
        n, m = (int(x) for x in size.split("x"))
        params = {"weights.r": "0.25", "weights.a": "0.25", "weights.c": "0.25", "weights.z": "0.25",
                  "time_limit_s": str(args.time_limit), "submip_heuristics": str(args.submip).lower()} | BOUNDS
        start = time.perf_counter()
        plan = create("odrp", params).plan(chain(n), wan(m))
        seconds = time.perf_counter() - start
        o = plan.predicted.get("odrp", {})
        if plan.status == "ok":
            largest = (n, m)
        gap = f"{plan.gap:.1e}" if plan.gap is not None else "n/a"
        print(f"{n:3d} operators × {m:3d} nodes: {seconds:7.2f} s  {plan.status:10s} gap {gap:8s} "
              f"{o.get('variables', 0):6d} variables {o.get('constraints', 0):6d} constraints  "
              f"F {o.get('utility', float('nan')):.4f}")
    print(f"largest proven optimal within {args.time_limit:.0f} s: "
          + (f"{largest[0]} operators × {largest[1]} nodes" if largest else "none"))


if __name__ == "__main__":
    main()
