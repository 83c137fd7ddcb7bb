"""The driver's build of a placed micro-batch, per routed input, on an emulated cluster (issue 54 item 7).

Every placed micro-batch, the driver builds each chain's routed exchange and stage before the batch's first stage
can start; the spark engine charges ``exchange_s`` per routed input for it (round robin's plan of the 44-replica
T-R7 on ``continuum-11`` has 28 of them: 0.64 s of its 1.81 s of fixed cost at 0.023 s). This brings ``--cluster``
up (``cluster up``, CPU quotas, as standalone_hetero.py does; ``--local``: a local[2] session, no cluster) and
times ``calibrate``'s driver probe on it (calibration.driver_probe: chains of 2–16 pass-through operators with a
replica of each on every node of the cluster, each chain's build and its outputs' planning timed in the driver —
nothing runs on the nodes), ``--runs`` times. Per run it prints the median build per chain length, the seconds per
routed input (the least-squares slope, as ``calibrate`` fits ``exchange_s``) and what that slope makes of T-R7's
round-robin build; then the median and spread over the runs beside the built-in ``exchange_s``.

    .venv/bin/python benchmarks/placed_build.py [--cluster hetero-3 | --local] [--runs 3] [--repeats 5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamplace import api
from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.perf import evaluate
from streamplace.schedulers import create
from streamplace.spark.measure.calibration import driver_probe, fit_exchange

#: issue 54 item 7: every scheduler's plan of T-R7 on continuum-11 at ≤ 1.0 s of fixed cost per batch
GOAL_F_S = 1.0
SIZES = (2, 4, 8, 12, 16)


@contextlib.contextmanager
def session(args: argparse.Namespace) -> Iterator[tuple[Any, list[Any] | None, str]]:
    """A Spark session and the workers to place on: ``--local``, local[2] and emulated workers; else the cluster
    ``--cluster`` brought up here (its layout), taken down after."""
    from streamplace.spark.runtime.session import local_session

    if args.local:
        spark = local_session(cores=2)
        try:
            yield spark, None, "local[2], 4 emulated workers"
        finally:
            spark.stop()
        return
    from streamplace.spark.cluster import standalone
    from streamplace.spark.cluster.connect import app_conf

    cluster = resolve_cluster(args.cluster)
    with tempfile.TemporaryDirectory(prefix="sp-build-") as tmp:
        state = standalone.up(cluster, Path(tmp) / "cluster", jvm_archives=not args.no_jvm_archives)
        try:
            spark = local_session(master=state.master_url, conf=app_conf(state))
            try:
                yield spark, state.layout(), f"{cluster.name} at {state.master_url}"
            finally:
                spark.stop()
        finally:
            standalone.down(Path(state.state_dir))


def t_r7_round_robin() -> tuple[int, float, float]:
    """Round robin's plan of T-R7 on continuum-11: its routed inputs X, its F with the built-in constants and its F
    with exchange_s 0 (the fixed cost that is not the driver's build)."""
    topo, cluster = resolve_topology("t-r7"), resolve_cluster("continuum-11")
    plan = create("round-robin").plan(topo, cluster)
    eng = api.engine_settings("spark")
    assert eng is not None
    detail = evaluate(topo, cluster, plan, engine=eng).engine_detail
    without = evaluate(topo, cluster, plan, engine=eng.with_params({"spark.exchange_s": 0.0}, "bench")).engine_detail
    x = round((float(detail["batch_fixed_s"]) - float(without["batch_fixed_s"])) / eng.spark.constants.exchange_s)
    return x, float(detail["batch_fixed_s"]), float(without["batch_fixed_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", default="hetero-3")
    parser.add_argument("--local", action="store_true", help="a local[2] session and emulated workers, no cluster")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5, help="timed builds per chain length and run")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="chain lengths (routed inputs)")
    parser.add_argument("--no-jvm-archives", action="store_true", help="cluster up without the JVM class archives")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    eng = api.engine_settings("spark")
    assert eng is not None
    built_in = eng.spark.constants.exchange_s
    x, f_now, f_rest = t_r7_round_robin()
    print(f"T-R7 on continuum-11, round robin: {x} routed inputs; model F {f_now:.2f} s with exchange_s "
          f"{built_in:g} s, {f_rest:.2f} s without the driver's build; goal F ≤ {GOAL_F_S:g} s: the build may take "
          f"{max(0.0, GOAL_F_S - f_rest):.2f} s, {max(0.0, GOAL_F_S - f_rest) / x * 1000:.1f} ms per routed input")
    slopes = []
    with session(args) as (spark, workers, where):
        print(f"session: {where}; load {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
        for run in range(1, args.runs + 1):
            started = time.perf_counter()
            _, points = driver_probe(spark, sizes, repeats=args.repeats, workers=workers)
            b, _ = fit_exchange(points)
            slopes.append(b)
            cells = ", ".join(f"{e}: {t * 1000:.0f} ms ({t / e * 1000:.1f}/input)" for e, t in points)
            print(f"run {run}: build per chain length (median of {args.repeats}) {cells}; per routed input "
                  f"{b * 1000:.1f} ms; T-R7 round robin's build {b * x:.2f} s, F {f_rest + b * x:.2f} s "
                  f"({time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f})", flush=True)
    med = statistics.median(slopes)
    print(f"per routed input over {len(slopes)} runs: median {med * 1000:.1f} ms (spread {min(slopes) * 1000:.1f}–"
          f"{max(slopes) * 1000:.1f}); built-in exchange_s {built_in * 1000:.1f} ms; T-R7 round robin's F "
          f"{f_rest + med * x:.2f} s at the median (goal ≤ {GOAL_F_S:g} s: "
          f"{'met' if f_rest + med * x <= GOAL_F_S else 'NOT met'})")


if __name__ == "__main__":
    main()
