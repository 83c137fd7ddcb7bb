"""Reproduce Cardellini et al. 2017 on the built-in DEBS 2015 Query 1 instance: Table 3 and Figure 6, with solve times.

Table 3: replicas per operator chosen by S-ODP_R (placement only) and S-ODRP_R (replication and
placement), minimizing response time, for source rates 20…120 tuples/s on debs-6 (6 workers ×
8 replicas, seeded WAN delays of 12–32 ms, source and globalRank pinned to w1, k = 3, metronome not
replicated). Figure 6: at 100 t/s on debs-6-avail (w4–w6 99 % available), optimizing A, C, R, T alone
and all four at 0.25 with the normalization bounds of Table 2. Every solve is timed (target: proven
optimal in under 1 s; CPLEX needed 10.84 s on average with the paper's 55.8 K-variable model).

Run: .venv/bin/python benchmarks/odrp_debs.py
"""

from __future__ import annotations

import statistics
import time

from streamplace.bench import resolve_cluster
from streamplace.bench.topologies import debs2015_q1
from streamplace.schedulers import create

OPS = ["source", "parser", "filterByCoordinates", "computeRouteID", "metronome", "countByWindow", "partialRank",
       "globalRank"]
RATES = [20, 40, 60, 80, 100, 120]


def solve(name: str, params: dict[str, str], rate: int, cluster_name: str):
    start = time.perf_counter()
    plan = create(name, params | {"preset": "debs2015"}).plan(debs2015_q1(rate), resolve_cluster(cluster_name))
    return plan, time.perf_counter() - start


def main() -> None:
    times: list[float] = []
    print("Table 3 — replicas per operator, minimizing response time (w_r = 1), debs-6")
    header = f"{'operator':20s} " + " ".join(f"{r:>5d}" for r in RATES)
    print(header)
    plans = {}
    for rate in RATES:
        plans[rate] = solve("odrp", {"weights.r": "1"}, rate, "debs-6")
        times.append(plans[rate][1])
    for op in OPS:
        print(f"{op:20s} " + " ".join(f"{plans[r][0].counts()[op]:5d}" for r in RATES))
    print(f"{'total replicas':20s} " + " ".join(f"{sum(plans[r][0].counts().values()):5d}" for r in RATES))
    print(f"{'nodes used':20s} " + " ".join(f"{plans[r][0].predicted['nodes_used']:5d}" for r in RATES))
    print(f"{'R (ms)':20s} " + " ".join(f"{plans[r][0].predicted['odrp']['response_ms']:5.0f}" for r in RATES))
    print(f"{'solve (s)':20s} " + " ".join(f"{plans[r][1]:5.2f}" for r in RATES))
    odp_row = []
    for rate in RATES:
        odp, t_odp = solve("odp", {"weights.r": "1"}, rate, "debs-6")
        times.append(t_odp)
        odp_row.append(f"{odp.predicted['odrp']['response_ms']:5.0f}" if odp.status == "ok" else "unstb")
    print(f"{'ODP (k = 1) R (ms)':20s} " + " ".join(odp_row)
          + "   (unstb: one partialRank replica cannot keep up; the paper saw R grow without bound)")
    print("\nFigure 6 — objectives at 100 t/s on debs-6-avail")
    print(f"{'objective':10s} {'R (ms)':>8s} {'A':>8s} {'C':>5s} {'T (t/s)':>9s} {'replicas':>8s} {'nodes':>5s} "
          f"{'F':>7s} {'vars':>5s} {'solve s':>7s} status")
    objectives = {"A": {"weights.a": "1"}, "C": {"weights.c": "1"}, "R": {"weights.r": "1"}, "T": {"weights.z": "1"},
                  "all 0.25": {"weights.r": "0.25", "weights.a": "0.25", "weights.c": "0.25", "weights.z": "0.25"}}
    for label, weights in objectives.items():
        plan, seconds = solve("odrp", weights, 100, "debs-6-avail")
        times.append(seconds)
        o = plan.predicted["odrp"]
        print(f"{label:10s} {o['response_ms']:8.1f} {o['availability']:8.4f} {o['cost']:5.0f} "
              f"{o['inter_node_traffic']:9.1f} {sum(plan.counts().values()):8d} {plan.predicted['nodes_used']:5d} "
              f"{o['utility']:7.4f} {o['variables']:5d} {seconds:7.2f} {plan.status}")
    print(f"\nsolve times over {len(times)} solves: median {statistics.median(times):.2f} s, "
          f"mean {statistics.mean(times):.2f} s, max {max(times):.2f} s "
          f"(target < 1 s each; CPLEX on the multiset model: 10.84 s on average)")


if __name__ == "__main__":
    main()
