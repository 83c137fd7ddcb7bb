"""How well the model predicts a real pipeline once the profiler has measured its operators (Nasiri et al. 2023: 92 %).

    python benchmarks/profile_accuracy.py [--cores 2] [--trigger 5] [--topologies nasiri-linear ...]

For each topology: ``profile_topology`` fits e and MET per operator on local Spark
(busy time of back-to-back micro-batches, see spark/measure/profiler.py); the model then
predicts the sustainable throughput (tuples/s into the sinks) of a plan giving
every operator ``cores`` replicas on one node of ``100 × cores`` points. Measured:
the same pipeline on fixed-size batches at two sizes around the prediction, the
batch time fitted as t = a + b·R, and the largest source rate whose batch fits
the trigger interval, R* = (T − a) / b per second of T, times the share of source
tuples that reach the sinks. Goal: |predicted − measured| / measured ≤ 10 %.

Where a figure cannot be had it is said to be not measured, with why: the model predicts no sustainable rate
(at a short trigger the profiled fixed batch time makes MET = 100 · cores · a / (T · p) fill the node, e.g.
``--trigger 1`` on a loaded machine), or the batch time did not grow between the two sizes (b ≤ 0, noise with few
``--batches``).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from streamplace.bench import resolve_topology
from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.evaluate import evaluate
from streamplace.spark.measure.profiler import profile_topology, time_batches
from streamplace.spark.runtime.session import local_session

GOAL = 0.10  # |predicted − measured| / measured


@dataclass
class Measured:
    """The measured sustainable throughput into the sinks (None: not measured, ``why`` says why), the batch-time
    line t = a + b·R it came from and the points the line was fitted through (source rows, seconds)."""

    throughput: float | None
    why: str = ""
    a: float = math.nan
    b: float = math.nan
    points: list[tuple[float, float]] = field(default_factory=list)


def measuring_sizes(per_source: float) -> tuple[int, int]:
    """The two batch sizes (rows per source) measured: 0.6× and 1.0× the predicted rows per trigger interval, at
    least one row and one row apart — a line through two points of the same size is undefined (np.polyfit raises
    LinAlgError), which happened whenever the prediction gave less than ~2 rows per trigger."""
    low = max(1, round(0.6 * per_source))
    return low, max(low + 1, round(per_source))


def measure(spark: Any, topo: Topology, plan: Plan, per_source: float, batches: int, trigger_s: float) -> Measured:
    """Batch times at the two sizes around ``per_source``, the line t = a + b·R through them, and the throughput
    into the sinks at R* = (T − a) / b per-source rows per trigger interval T. Not measured when the batch time did
    not grow with the batch size (b ≤ 0: on a loaded machine the second size can run no slower than the first),
    as there is no R* then; R* ≤ 0 (the batch's fixed time alone fills the trigger) is measured as 0."""
    timings = [time_batches(spark, topo, plan, rows, batches, {}) for rows in measuring_sizes(per_source)]
    r = np.array([t.source_rows for t in timings], dtype=float)
    sec = np.array([t.seconds for t in timings], dtype=float)
    b, a = (float(v) for v in np.polyfit(r, sec, 1))
    points = list(zip(r.tolist(), sec.tolist(), strict=True))
    if not b > 0:
        return Measured(None, f"the batch time did not grow with the batch size ({b * 1e3:+.3f} ms/row between "
                              f"{r[0]:.0f} and {r[1]:.0f} rows), so no largest rate fits the trigger; raise "
                              "--batches", a, b, points)
    r_star = max(0.0, (trigger_s - a) / b)  # per-source rows per trigger interval at which a batch takes T
    sink_share = float(np.mean([sum(t.rows_in_share.get(s.id, 0.0) for s in topo.sinks) for t in timings]))
    return Measured(r_star * len(topo.sources) * sink_share / trigger_s, "", a, b, points)


def verdict(predicted: float, measured: Measured) -> str:
    """The summary's figures after ``measured``: the relative error and the goal, or what was not measured."""
    if measured.throughput is None:
        return f"not measured — {measured.why}"
    if measured.throughput <= 0:  # no rate fits the trigger: any positive prediction is off by more than the goal
        return (f"{measured.throughput:8.1f}  error undefined (measured 0)  "
                f"{'within' if predicted <= 0 else 'OUTSIDE'} {100 * GOAL:.0f} %")
    error = (predicted - measured.throughput) / measured.throughput
    return (f"{measured.throughput:8.1f}  error {100 * error:+6.1f} %  "
            f"{'within' if abs(error) <= GOAL else 'OUTSIDE'} {100 * GOAL:.0f} %")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--trigger", type=float, default=5.0)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--topologies", nargs="+", default=["nasiri-linear", "nasiri-diamond", "nasiri-star"])
    args = ap.parse_args()
    spark = local_session(args.cores)
    cluster = Cluster("local", (Node("local", cpu=100.0 * args.cores, memory_mb=65536, type="local"),))
    rows: list[tuple[str, float, Measured]] = []
    for name in args.topologies:
        topo = resolve_topology(name)
        t0 = time.perf_counter()
        profile, fits = profile_topology(spark, topo, args.cores, args.trigger, "local", args.batches)
        took = time.perf_counter() - t0
        plan = Plan("all-local", topo.name, "local", {o.id: {"local": args.cores} for o in topo.operators})
        ev = evaluate(topo, cluster, plan, profile)
        pred = ev.predicted()
        offered = sum(s.rate or 0.0 for s in topo.sources)
        scale = pred["sustainable_scale"]
        head = f"{name}: profiled {len(fits)} operators in {took:.0f} s; "
        if not 0 < scale < math.inf:
            # MET = 100 · cores · a / (T · p): at a short trigger the profiled fixed batch time a can make the
            # replicas' overheads fill the node, and the model then predicts no rate — nothing to measure around
            why = (f"the model predicts no sustainable rate at a {args.trigger:g} s trigger "
                   f"({'; '.join(ev.zero_reasons()) or f'sustainable scale {scale:g}'}); raise --trigger")
            rows.append((name, pred["throughput"], Measured(None, why)))
            print(f"{head}batch time not measured — {why}", flush=True)
            continue
        # per-source rows per batch at the predicted sustainable rate, then measured at 0.6× and 1.0× of it
        per_source = scale * (topo.sources[0].rate or 1.0) * args.trigger
        got = measure(spark, topo, plan, per_source, args.batches, args.trigger)
        rows.append((name, pred["throughput"], got))
        points = ", ".join(f"{x:.0f} rows → {y:.2f} s" for x, y in got.points)
        print(f"{head}batch time {got.a:.2f} s + {1e3 * got.b:.3f} ms/row (points {points}); offered {offered:g}/s; "
              f"predicted {pred['throughput']:.1f} tuples/s into sinks, measured {verdict(pred['throughput'], got)}",
              flush=True)
    print("\nsummary (sustainable throughput into sinks, tuples/s)")
    for name, p, m in rows:
        print(f"  {name:16s} predicted {p:8.1f}  measured {verdict(p, m)}")


if __name__ == "__main__":
    main()
