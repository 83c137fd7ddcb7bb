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
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from streamplace.bench import resolve_topology
from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.perf.evaluate import evaluate
from streamplace.spark.measure.profiler import profile_topology, time_batches
from streamplace.spark.runtime.session import local_session


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--trigger", type=float, default=5.0)
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--topologies", nargs="+", default=["nasiri-linear", "nasiri-diamond", "nasiri-star"])
    args = ap.parse_args()
    spark = local_session(args.cores)
    cluster = Cluster("local", (Node("local", cpu=100.0 * args.cores, memory_mb=65536, type="local"),))
    rows = []
    for name in args.topologies:
        topo = resolve_topology(name)
        t0 = time.perf_counter()
        profile, fits = profile_topology(spark, topo, args.cores, args.trigger, "local", args.batches)
        took = time.perf_counter() - t0
        plan = Plan("all-local", topo.name, "local", {o.id: {"local": args.cores} for o in topo.operators})
        pred = evaluate(topo, cluster, plan, profile).predicted()
        offered = sum(s.rate or 0.0 for s in topo.sources)
        scale = pred["sustainable_scale"]
        # per-source rows per batch at the predicted sustainable rate, then measured at 0.6× and 1.0× of it
        per_source = scale * (topo.sources[0].rate or 1.0) * args.trigger
        timings = [time_batches(spark, topo, plan, round(f * per_source), args.batches, {}) for f in (0.6, 1.0)]
        r = np.array([t.source_rows for t in timings])
        sec = np.array([t.seconds for t in timings])
        b, a = np.polyfit(r, sec, 1)
        r_star = (args.trigger - a) / b  # per-source rows per trigger interval at which a batch takes T
        sink_share = np.mean([sum(t.rows_in_share.get(s.id, 0.0) for s in topo.sinks) for t in timings])
        measured = r_star * len(topo.sources) * sink_share / args.trigger
        error = (pred["throughput"] - measured) / measured
        rows.append((name, pred["throughput"], measured, error))
        print(f"{name}: profiled {len(fits)} operators in {took:.0f} s; batch time {a:.2f} s + {1e3 * b:.3f} ms/row "
              f"(points {', '.join(f'{x:.0f} rows → {y:.2f} s' for x, y in zip(r, sec, strict=True))}); "
              f"offered {offered:g}/s; predicted {pred['throughput']:.1f} tuples/s into sinks, measured "
              f"{measured:.1f} → error {100 * error:+.1f} %", flush=True)
    print("\nsummary (sustainable throughput into sinks, tuples/s)")
    for name, p, m, e in rows:
        print(f"  {name:16s} predicted {p:8.1f}  measured {m:8.1f}  error {100 * e:+6.1f} %  "
              f"{'within' if abs(e) <= 0.10 else 'OUTSIDE'} 10 %")


if __name__ == "__main__":
    main()
