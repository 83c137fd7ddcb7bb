"""max-throughput against the proven optimum: gap and planning time on every paper instance and the authors' data.

Instances: Nasiri et al.'s (2023) Linear / Diamond / Star and Storm-Benchmark's
RollingCount / UniqueVisitor on hetero-3 and the Table 4 scenarios
(nasiri-small, -medium, -large), and the authors' own data blocks
(rollingcount-authors / uniquevisitor-authors on the nasiri-authors-* clusters
with their profiles). For each: ``optimal``'s value (MILP, HiGHS, proven within
its gap or its time limit's incumbent), ``max-throughput``'s value, gap and
planning time, the gap it proves itself (``proven``: to its LP upper bound, or to
the scale its exact check proved no plan reaches), and ``hetero`` (the paper's algorithm) for
reference. Goal (issue: throughput maximization): within 1 % of optimal on every
instance, in under 100 ms each. Times are wall-clock on this machine: run it
idle. Every scheduler gets k = 10 replicas per operator (optimal's default).

    .venv/bin/python benchmarks/max_throughput_gap.py [--time-limit 30] [--seed 0] [--only hetero-3,...]
        [--param patience=10 ...]
"""

from __future__ import annotations

import argparse
import time

from streamplace.bench import resolve_cluster, resolve_profile, resolve_topology
from streamplace.bench.nasiri_authors import SCENARIOS
from streamplace.schedulers import create

PAPER_TOPOLOGIES = ("nasiri-linear", "nasiri-diamond", "nasiri-star", "rollingcount", "uniquevisitor")
PAPER_CLUSTERS = ("hetero-3", "nasiri-small", "nasiri-medium", "nasiri-large")
GOAL_GAP, GOAL_MS = 0.01, 100.0


def instances() -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = [(c, t, None) for c in PAPER_CLUSTERS for t in PAPER_TOPOLOGIES]
    for scenario, (bench, _, _) in SCENARIOS.items():
        topology = "rollingcount-authors" if bench == "rc" else "uniquevisitor-authors"
        out.append((f"nasiri-authors-{scenario}", topology, f"nasiri-authors-{bench}"))
    return out


def timed(name: str, params: dict[str, str], topo, cluster, profile):
    start = time.perf_counter()
    plan = create(name, params).plan(topo, cluster, profile)
    return plan, (time.perf_counter() - start) * 1000.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=30.0, help="optimal's limit per instance (s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", help="comma-separated cluster names")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a max-throughput parameter (repeatable), e.g. --param patience=10")
    args = ap.parse_args()
    chosen = [i for i in instances() if not args.only or i[0] in args.only.split(",")]
    header = (f"{'cluster':24s} {'topology':22s} {'optimal':>10s} {'status':>8s} {'max-thr':>10s} {'gap':>7s} "
              f"{'ms':>6s} {'proven':>7s} {'hetero':>10s} {'gap':>7s}")
    print(header)
    print("-" * len(header))
    gaps, times, misses = [], [], []
    for cname, tname, pname in chosen:
        topo, cluster = resolve_topology(tname), resolve_cluster(cname)
        profile = resolve_profile(pname) if pname else None
        opt, _ = timed("optimal", {"time_limit_s": str(args.time_limit)}, topo, cluster, profile)
        params = {"seed": str(args.seed), **dict(p.split("=", 1) for p in args.param)}
        ours, ms = timed("max-throughput", params, topo, cluster, profile)
        het, _ = timed("hetero", {"max_replicas": "10"}, topo, cluster, profile)
        best = max(opt.predicted["throughput"], ours.predicted["throughput"])  # a timed-out MILP may be beaten
        gap = 1 - ours.predicted["throughput"] / best
        gaps.append(gap)
        times.append(ms)
        if gap > GOAL_GAP or ms > GOAL_MS:
            misses.append(f"{cname}/{tname} ({gap:.2%}, {ms:.0f} ms)")
        status = opt.status + ("" if opt.status == "ok" else f" {opt.gap:.0e}" if opt.gap else "")
        print(f"{cname:24s} {tname:22s} {opt.predicted['throughput']:10.1f} {status:>8s} "
              f"{ours.predicted['throughput']:10.1f} {gap:7.2%} {ms:6.0f} {ours.gap or 0.0:7.2%} "
              f"{het.predicted['throughput']:10.1f} {1 - het.predicted['throughput'] / best:7.2%}")
    print(f"\nmax-throughput on {len(gaps)} instances: worst gap to the optimum {max(gaps):.2%} "
          f"(goal ≤ {GOAL_GAP:.0%}), "
          f"median {sorted(gaps)[len(gaps) // 2]:.2%}; planning time max {max(times):.0f} ms, median "
          f"{sorted(times)[len(times) // 2]:.0f} ms (goal < {GOAL_MS:.0f} ms)")
    print("misses: " + ("; ".join(misses) if misses else "none"))


if __name__ == "__main__":
    main()
