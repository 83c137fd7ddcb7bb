"""Paper 002 in the model: hill climbing, ant system, hybrid, R-Storm and round robin on its instances.

On continuum-11 (95 % utilization limit), for T-M1…T-M3 and the generated T-R1…T-R9: throughput factor
over round robin (sustainable throughput of the performance model), latency-aware score and violations,
link latency on the worst path (s_lat, ms), end-to-end latency of the model (ms), nodes used, and
planning time, with the paper's Java planning times where it reports them (T-M1, T-R1, T-R7).

Run: .venv/bin/python benchmarks/latency_repro.py [--budget 1.0]
"""

from __future__ import annotations

import argparse
import time

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.schedulers import create

SCHEDULERS = ["round-robin", "r-storm", "hill-climbing", "ant-system", "hybrid"]
PAPER_MS = {"t-m1": (9, 75, 78, 16), "t-r1": (558, 450, 841, 25), "t-r7": (1029, 661, 1020, 26)}  # HC, ACO, hyb, RAS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=1.0)
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
    print("\npaper 002 (Java) planning ms — HC / ACO / hybrid / RAS: "
          + "; ".join(f"{k}: {' / '.join(map(str, v))}" for k, v in PAPER_MS.items()))


if __name__ == "__main__":
    main()
