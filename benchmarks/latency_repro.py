"""Ecker et al. 2025 in the model: hill climbing, ant system, hybrid, R-Storm and round robin on its instances.

On continuum-11 (95 % utilization limit), for T-M1…T-M3 and the generated T-R1…T-R9: throughput factor
over round robin (sustainable throughput of the performance model), latency-aware score and violations,
link latency on the worst path (s_lat, ms), end-to-end latency of the model (ms), nodes used, and
planning time of the first run. A second table gives Table 4's shape: the mean planning time over
``--repeats`` seeds per heuristic next to the paper's Java times (ms).

Run: .venv/bin/python benchmarks/latency_repro.py [--budget 1.0] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.schedulers import create

SCHEDULERS = ["round-robin", "r-storm", "hill-climbing", "ant-system", "hybrid"]
# Ecker et al. 2025, Table 4: mean ms per placement — hill climbing, ant system, hybrid, Resource Aware Scheduler
PAPER_MS = {"t-m1": (9, 75, 78, 16), "t-m2": (45, 99, 130, 21), "t-m3": (4, 35, 38, 16),
            "t-r1": (558, 450, 841, 25), "t-r2": (65, 131, 197, 20), "t-r3": (231, 285, 534, 23),
            "t-r4": (179, 447, 717, 24), "t-r5": (138, 306, 428, 22), "t-r6": (198, 274, 472, 21),
            "t-r7": (1029, 661, 1020, 26), "t-r8": (185, 377, 355, 19), "t-r9": (263, 408, 480, 21)}
TIMED = ["hill-climbing", "ant-system", "hybrid", "r-storm"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5, help="seeds per heuristic for the planning-time table")
    args = parser.parse_args()
    cluster = resolve_cluster("continuum-11")
    names = ["t-m1", "t-m2", "t-m3"] + [f"t-r{k}" for k in range(1, 10)]
    print(f"{'topology':8s} {'ops':>3s} {'repl':>4s} | " + " | ".join(f"{s:^31s}" for s in SCHEDULERS))
    print(f"{'':17s} | " + " | ".join(f"{'thr×':>5s} {'score':>6s} {'v':>2s} {'lat':>5s} {'n':>2s} {'ms':>6s}"
                                     for _ in SCHEDULERS))
    for name in names:
        topo = resolve_topology(name)
        cells = []
        base = None
        for s in SCHEDULERS:
            params = {"budget_s": str(args.budget)} if s in ("hill-climbing", "ant-system", "hybrid") else {}
            start = time.perf_counter()
            plan = create(s, params).plan(topo, cluster)
            ms = (time.perf_counter() - start) * 1000
            p = plan.predicted
            if base is None:
                base = p["throughput"] or 1.0
            ls = p["latency_score"]
            cells.append(f"{p['throughput'] / base:5.2f} {ls['score']:6.3f} {int(ls['violations']):2d} "
                         f"{p['latency_ms']:5.1f} {p['nodes_used']:2d} {ms:6.1f}")
        print(f"{name:8s} {len(topo.operators):3d} {topo.total_replicas():4d} | " + " | ".join(cells))
    print(f"\nTable 4 — mean planning ms over {args.repeats} seeds, ours (Ecker et al.'s (2025) Java)")
    print(f"{'topology':8s} {'ops':>3s} | " + " | ".join(f"{s:>19s}" for s in TIMED))
    for name in names:
        topo = resolve_topology(name)
        cells = []
        for s, paper in zip(TIMED, PAPER_MS[name], strict=True):
            times = []
            for seed in range(args.repeats):
                params = {"budget_s": str(args.budget), "seed": str(seed)} if s != "r-storm" else {}
                start = time.perf_counter()
                create(s, params).plan(topo, cluster)
                times.append((time.perf_counter() - start) * 1000)
            cells.append(f"{statistics.mean(times):7.1f} ±{statistics.pstdev(times):5.1f} ({paper:4d})")
        print(f"{name:8s} {len(topo.operators):3d} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
