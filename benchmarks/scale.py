"""Planning time of r-storm and ffd on Storm's large-cluster test shape.

1,000 nodes in 25 racks (racks-25x40) and one topology of 5 spouts × 30 tasks
and 40 bolts × 114 tasks (4,710 replicas). Target: under 2 s each, end to end
(scheduling plus the model's prediction). Storm's Resource Aware Scheduler
needed about 7 s per such topology after its optimization work.

Run: .venv/bin/python benchmarks/scale.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.schedulers import create

TARGET_S = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    t0 = time.perf_counter()
    cluster = racks(25, 40)
    topology = storm_large()
    build_s = time.perf_counter() - t0
    print(f"instance: {len(cluster)} nodes in {len(cluster.racks)} racks, "
          f"{len(topology.operators)} operators, {topology.total_replicas()} replicas (built in {build_s:.3f} s)")
    for name in ("r-storm", "ffd", "round-robin"):
        walls, scheds = [], []
        plan = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            plan = create(name).plan(topology, cluster)
            walls.append(time.perf_counter() - start)
            scheds.append(plan.planning_ms / 1000)
        assert plan is not None
        wall = statistics.median(walls)
        verdict = "meets" if wall < TARGET_S else "MISSES"
        print(f"{name:12s} status={plan.status:10s} scheduling {statistics.median(scheds):.3f} s, "
              f"end to end {wall:.3f} s (median of {args.repeat}; target < {TARGET_S:.0f} s: {verdict}); "
              f"nodes used {plan.predicted.get('nodes_used')}, "
              f"inter-node traffic {plan.predicted.get('inter_node_traffic', 0):,.0f} B/s")


if __name__ == "__main__":
    main()
