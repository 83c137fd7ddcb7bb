"""What ``-p fusion=prefer`` does to the placers' plans under the spark engine (model only, seconds).

    python benchmarks/fusion_prefer.py

For built-in topologies × clusters × the placers that keep the requested replica
counts (round robin, R-Storm, FFD), plan with ``fusion=off`` (the paper's
placement) and ``fusion=prefer`` (fusion_align.py) and print, as the spark engine
predicts them: Spark stages per micro-batch, sustainable throughput, mean
latency at the offered rate, and the planning time. By construction ``prefer``
never lowers throughput nor raises latency in the model; the table shows how
often it finds a fusable line-up and what that is worth.
"""

from __future__ import annotations

import statistics

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.perf.engines import EngineSettings
from streamplace.schedulers import create

TOPOLOGIES = ("linear-cpu", "linear-net", "pageload-cpu", "processing-cpu", "nasiri-linear", "t-m1", "diamond-cpu")
CLUSTERS = ("rstorm-12", "hetero-12", "racks-2x8")
SCHEDULERS = ("round-robin", "r-storm", "ffd")


def fmt(x: float | None) -> str:
    return "—" if x is None else "∞" if x == float("inf") else f"{x:,.0f}"


def main() -> None:
    engine = EngineSettings("spark")
    print(f"{'topology':<15} {'cluster':<10} {'scheduler':<12} {'stages':>9} {'throughput (t/s)':>21} "
          f"{'latency (ms)':>17} {'planning (ms)':>15}")
    gains: list[float] = []
    changed = total = 0
    for t in TOPOLOGIES:
        topo = resolve_topology(t)
        for c in CLUSTERS:
            cluster = resolve_cluster(c)
            for s in SCHEDULERS:
                off = create(s).plan(topo, cluster, engine=engine)
                on = create(s, {"fusion": "prefer"}).plan(topo, cluster, engine=engine)
                if off.status == "infeasible" or on.status == "infeasible":
                    print(f"{t:<15} {c:<10} {s:<12} infeasible")
                    continue
                p0, p1 = off.predicted, on.predicted
                st0, st1 = p0["engine_detail"]["stages"], p1["engine_detail"]["stages"]
                total += 1
                changed += st1 < st0
                l0, l1 = p0.get("latency_mean_ms"), p1.get("latency_mean_ms")
                if st1 < st0 and l0 and l1 and l0 != float("inf"):
                    gains.append(1 - l1 / l0)
                print(f"{t:<15} {c:<10} {s:<12} {st0:>4} → {st1:<3} {fmt(p0['throughput']):>9} → "
                      f"{fmt(p1['throughput']):<9} {fmt(l0):>7} → {fmt(l1):<7} {off.planning_ms:>6.1f} → "
                      f"{on.planning_ms:<6.1f}")
    print(f"plans with fewer stages under prefer: {changed} of {total}")
    if gains:
        print(f"mean latency where stages fell: median {100 * statistics.median(gains):.1f} % lower "
              f"(range {100 * min(gains):.1f}–{100 * max(gains):.1f} %)")


if __name__ == "__main__":
    main()
