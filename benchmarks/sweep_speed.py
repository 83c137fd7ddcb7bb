"""10,000 model evaluations as Spark tasks on local Spark: how long a sweep takes.

10 topologies × 5 clusters × 5 schedulers × 40 rate scales (0.5 … 4; ``--scales`` sets how many). Prints
the sweep's wall time (Spark job only, and with the session start), instances
per second, the statuses, the slowest scheduler's median planning time and how
long `report` takes on the result.

Run: .venv/bin/python benchmarks/sweep_speed.py [--cores 2] [--scales 40]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.sweep import grid
from streamplace.report.sweep import write_sweep_report
from streamplace.spark.measure.sweep import run_sweep
from streamplace.spark.runtime.session import local_session

TOPOLOGIES = ["nasiri-linear", "nasiri-diamond", "nasiri-star", "linear-cpu", "diamond-cpu", "star-cpu",
              "rollingcount", "uniquevisitor", "linear-net", "diamond-net"]
CLUSTERS = ["hetero-3", "hetero-12", "rstorm-12", "nasiri-small", "racks-2x3"]
SCHEDULERS = ["round-robin", "r-storm", "ffd", "ds2", "hetero"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--scales", type=int, default=40, help="rate scales from 0.5 to 4 (at least 2)")
    args = parser.parse_args()
    if args.scales < 2:
        parser.error("--scales: at least 2 (the first is 0.5, the last 4)")
    started = time.perf_counter()
    spark = local_session(args.cores)
    scales = [0.5 + 3.5 * k / (args.scales - 1) for k in range(args.scales)]
    instances = grid(TOPOLOGIES, CLUSTERS, SCHEDULERS, scales)
    topos = {t: resolve_topology(t) for t in TOPOLOGIES}
    clusters = {c: resolve_cluster(c) for c in CLUSTERS}
    with tempfile.TemporaryDirectory(prefix="sp-sweep-") as tmp:
        out = Path(tmp) / "sweep.parquet"
        run = run_sweep(spark, instances, topos, clusters, out)
        total = time.perf_counter() - started
        rows = pd.read_parquet(out)
        t0 = time.perf_counter()
        write_sweep_report(out, Path(tmp) / "sweep.html")
        report_s = time.perf_counter() - t0
    planning = rows.groupby("scheduler")["planning_ms"].median().sort_values()
    print(f"{run.instances:,} instances on local[{args.cores}] in {run.tasks} tasks: {run.seconds:.1f} s "
          f"({run.per_second:,.0f}/s); {total:.1f} s with the session start")
    print("statuses: " + ", ".join(f"{k} {v:,}" for k, v in sorted(run.statuses.items())))
    print("median planning ms: " + ", ".join(f"{k} {v:.2f}" for k, v in planning.items()))
    print(f"report on {len(rows):,} rows: {report_s:.1f} s")


if __name__ == "__main__":
    main()
