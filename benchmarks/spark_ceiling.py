"""The pipeline's ceiling on this machine: pass-through chains, cost per operator hop, busy overhead.

    python benchmarks/spark_ceiling.py [--cores 2] [--duration 20] [--warmup 12] [--lengths 2 3 4]
        [--batch-rows 2000000] [--busy-ms 0.2] [--batch-work-s 1 4 12]

1. Pass-through chains of 2, 3 and 4 operators (``--lengths``; source → … → sink; the source
   counts: it is a stage running its logic) with ``cores`` tasks each, fed
   fixed-size micro-batches back to back (Spark's rate-micro-batch source): rows /
   batch time is the ceiling. Fused (the default: the whole chain one stage) and
   unfused (each operator its own stage, one shuffle per hop). Goal: the fused
   3-operator chain ≥ 700,000 tuples/s on 2 cores. The cost of a hop is the extra
   core-µs per tuple between unfused chain lengths.
2. Busy chains (3 operators × ``cost_ms``) offered above what the cores can burn:
   overhead = (cores × 1000 / Σ cost_ms) / measured − 1, i.e. how far the pipeline
   falls short of the calibrated CPU work alone. Goal: < 10 %.
"""

from __future__ import annotations

import argparse
import tempfile
from itertools import pairwise
from pathlib import Path

from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.spark.query.pipeline import PipelineConfig
from streamplace.spark.runtime.run import run_pipeline
from streamplace.spark.runtime.session import local_session


def chain(operators: int, rate: float, cost_ms: float) -> Topology:
    """source → op1 → … → sink: ``operators`` in all; the ones after the source cost ``cost_ms`` each."""
    logic = {"name": "busy"} if cost_ms > 0 else {"name": "pass"}
    ops = [Operator("src", "source", rate=rate, logic={"name": "rate"})]
    ops += [Operator(f"op{k}", "sink" if k == operators - 1 else "operator", cost_ms=cost_ms, logic=logic)
            for k in range(1, operators)]
    names = [o.id for o in ops]
    return Topology(f"chain-{operators}", tuple(ops), tuple(Stream(a, b) for a, b in pairwise(names)))


def measure(spark, topo: Topology, cores: int, duration: float, warmup: float, trigger: float,
            batch_rows: int | None = None, fuse: bool = True) -> dict:
    """Rates while the pipeline is busy: Σ rows / Σ batch durations over the micro-batches after the warm-up.

    Under overload batches run back to back, so this is the rate it sustains; snapshots of the
    operator counters would be quantized by batches longer than the measuring window.
    """
    plan = Plan("manual", topo.name, "local", {o.id: {"local": cores} for o in topo.operators})
    cluster = Cluster("local", (Node("local", cpu=100.0 * cores, memory_mb=8192),))
    with tempfile.TemporaryDirectory() as tmp:
        cfg = PipelineConfig(trigger_s=trigger, sink="noop", out_dir=Path(tmp), batch_s=1.0 if batch_rows else None,
                             fuse=fuse)
        result = run_pipeline(spark, topo, cluster, plan, duration, warmup, cfg)
    batches = result.series[2:]  # the first batches include start-up
    rows = sum(b["input_rows"] for b in batches)
    busy_s = sum(b["duration_ms"].get("triggerExecution", 0) for b in batches) / 1000
    return {**result.measured, "throughput": rows / busy_s if busy_s else 0.0, "batches": len(batches),
            "rows_per_batch": rows / max(1, len(batches))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=12.0)
    ap.add_argument("--lengths", type=int, nargs="+", default=[2, 3, 4],
                    help="operators of the pass-through chains, the source included")
    ap.add_argument("--batch-rows", type=int, default=2_000_000, help="rows per micro-batch (pass-through chains)")
    ap.add_argument("--busy-ms", type=float, default=0.2, help="cost per tuple of each busy operator")
    ap.add_argument("--batch-work-s", type=float, nargs="+", default=[1.0, 4.0, 12.0],
                    help="calibrated CPU work per busy micro-batch, in seconds of the whole machine")
    args = ap.parse_args()
    spark = local_session(args.cores)
    print(f"local[{args.cores}], {args.duration:.0f} s measured after {args.warmup:.0f} s warm-up")
    ceiling: dict[tuple[int, bool], float] = {}
    for fuse in (True, False):
        for n in args.lengths:
            m = measure(spark, chain(n, args.batch_rows, 0.0), args.cores, args.duration, args.warmup, 0.0,
                        args.batch_rows, fuse)
            ceiling[n, fuse] = m["throughput"]
            print(f"pass-through, {n} operators, {'fused' if fuse else 'unfused'}: {m['throughput']:>10,.0f} tuples/s "
                  f"sustained ({m['throughput'] / args.cores:,.0f} per core) over {m['batches']} batches of "
                  f"{m['rows_per_batch']:,.0f} rows, machine CPU {100 * (m['cpu'] or 0):.0f} %")
    for n in (n for n in args.lengths if (n - 1, False) in ceiling):
        unmeasured = [k for k in (n - 1, n) if not ceiling[k, False]]
        if unmeasured:  # no batch finished after the start-up ones: the window was shorter than a batch
            print(f"cost of the hop to operator {n} (unfused): not measured — the {unmeasured[0]}-operator chain "
                  f"finished no batch after its first two within {args.duration:g} s; raise --duration")
            continue
        per_hop = args.cores * 1e6 * (1 / ceiling[n, False] - 1 / ceiling[n - 1, False])
        print(f"cost of the hop to operator {n} (unfused): {per_hop:.2f} core-µs per tuple")
    if (3, True) in ceiling:
        # 0: no batch finished after the start-up ones, so nothing was measured (not a rate that missed the goal)
        goal = ("not measured — it finished no batch after its first two; raise --duration" if not ceiling[3, True]
                else "met" if ceiling[3, True] >= 700_000 else "NOT met")
        print(f"goal ≥ 700,000 tuples/s for the fused 3-operator chain on {args.cores} cores: {goal}")
    ideal = args.cores * 1000.0 / (3 * args.busy_ms)
    for work_s in args.batch_work_s:  # fixed costs per micro-batch weigh less in longer batches
        rows = max(100, round(work_s * ideal))
        m = measure(spark, chain(4, rows, args.busy_ms), args.cores, max(args.duration, 3 * work_s), args.warmup,
                    0.0, rows)
        if m["throughput"]:
            overhead = ideal / m["throughput"] - 1
            said = f"measured {m['throughput']:,.0f} → overhead {100 * overhead:.1f} % (goal < 10 %)"
        else:  # no batch after the start-up ones: an overhead of "inf %" would read as a measurement
            said = "measured: not measured — no batch finished after its first two; raise --duration (goal < 10 %)"
        print(f"busy chain 3 × {args.busy_ms} ms, batches of {work_s:g} s of calibrated work: ceiling "
              f"{ideal:,.0f} tuples/s, {said}; operator logic kept {m['operator_cores']:.2f} of {args.cores} cores "
              "busy")

if __name__ == "__main__":
    main()
