"""How fast the simulator runs a 120-minute manufacturing scenario (goal: under 5 s).

    python benchmarks/sim_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.elastic import make_pattern
from streamplace.sim import simulate
from streamplace.sim.factory import build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    topology, vm = resolve_topology("manufacturing"), resolve_cluster("visp-vm")
    for controller, btu in (("btu", 10), ("btu", 60), ("threshold", 10)):
        for pattern in ("stepwise", "random-walk-1"):
            times = []
            for seed in range(args.repeat):
                ctrl, cfg = build(controller, {"btu_minutes": str(btu)}, 120, seed)
                t0 = time.perf_counter()
                result = simulate(topology, vm, make_pattern(pattern, 120, 0), ctrl, cfg)
                times.append(time.perf_counter() - t0)
            median = statistics.median(times)
            print(f"{controller:9s} BTU{btu:<3d} {pattern:14s} 120 min (7,200 steps): median {median:.3f} s,"
                  f" max {max(times):.3f} s; peak {result.summary['peak_instances']} instances")


if __name__ == "__main__":
    main()
