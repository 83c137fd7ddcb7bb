"""How well the ``spark`` engine model predicts what local Spark does (issue: engine models).

13 topologies (chains of 2–8 operators, a diamond, fan-in, fan-out, key and all
grouping, selectivity below and above 1, mixed parallelism), each run on local
Spark at half and at 1.5× the model's sustainable source rate. Predicted: the
spark engine on this machine (``machine(cores)``, the plan's parallelism), with
the calibration file's constants when there is one (``streamplace calibrate``).
Measured after a warm-up:

* throughput — sink rows of the micro-batches completed in the window over the
  time from the first one's start to the last one's end (Spark's progress
  events; an overloaded pipeline runs ever longer batches back to back, which a
  windowed count would read in steps of whole batches);
* latency — mean event time → sink at half load (at 1.5× the backlog grows
  without bound: the model says infinite, and so does the measurement, rising).

Goal: median |measured / predicted − 1| ≤ 10 % for throughput and ≤ 25 % for
latency, none beyond 25 % / 50 %.

A run in which no micro-batch with rows ended after the warm-up (a short window on
a loaded machine) measured no throughput, and one in which no tuple reached a
sink in the window no latency: such figures, their errors and the summary over
them are said to be not measured (0 t/s would read as a −100 % error).

    .venv/bin/python benchmarks/engine_accuracy.py [--cores 2] [--only chain4] [--duration 30] [--json out.json]
        [--loads 0.5,1.5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from streamplace.model.plan import Plan
from streamplace.model.topology import Kind, Operator, Stream, Topology
from streamplace.perf.engines import EngineSettings, SparkSettings
from streamplace.perf.evaluate import evaluate
from streamplace.spark.measure.calibration import constants_or_defaults
from streamplace.spark.query.pipeline import PipelineConfig
from streamplace.spark.runtime.run import machine, on_one_node, run_pipeline, steady_trigger
from streamplace.spark.runtime.session import local_session

GOAL_TP_MEDIAN, GOAL_TP_MAX, GOAL_LAT_MEDIAN, GOAL_LAT_MAX = 0.10, 0.25, 0.25, 0.50


def op(op_id: str, cost: float = 0.0, kind: Kind = "operator", rate: float | None = None,
       alpha: float = 1.0) -> Operator:
    return Operator(op_id, kind, rate=rate, cost_ms=cost, selectivity=alpha,
                    logic={"name": "rate"} if kind == "source" else {"name": "busy"} if cost > 0 else {"name": "pass"})


def chain(name: str, costs: list[float], p: int, **kw: Any) -> tuple[Topology, dict[str, int]]:
    ops = [op("src", kind="source", rate=100.0)]
    ops += [op(f"o{j}", c, "sink" if j == len(costs) else "operator") for j, c in enumerate(costs, 1)]
    return Topology(name, tuple(ops), tuple(Stream(a.id, b.id) for a, b in pairwise(ops))), \
        {o.id: p for o in ops}


def instances() -> list[tuple[Topology, dict[str, int]]]:
    out = [chain("chain2", [1.0], 2), chain("chain3", [0.5, 0.5], 2), chain("chain4-2ms", [2.0, 2.0, 2.0], 2),
           chain("chain6", [0.3] * 5, 2), chain("chain8", [0.2] * 7, 1)]
    src = op("src", kind="source", rate=100.0)
    out.append((Topology("diamond", (src, op("a", 0.5), op("b", 0.5), op("c", 0.3, "sink")),
                         (Stream("src", "a"), Stream("src", "b"), Stream("a", "c"), Stream("b", "c"))),
                {"src": 1, "a": 2, "b": 2, "c": 2}))
    out.append((Topology("fan-in", (op("s1", kind="source", rate=50.0), op("s2", kind="source", rate=50.0),
                                    op("m", 0.8), op("out", 0.2, "sink")),
                         (Stream("s1", "m"), Stream("s2", "m"), Stream("m", "out"))),
                {"s1": 1, "s2": 1, "m": 2, "out": 1}))
    out.append((Topology("fan-out", (src, op("a", 0.5), op("x", 0.4, "sink"), op("y", 0.4, "sink")),
                         (Stream("src", "a"), Stream("a", "x"), Stream("a", "y"))),
                {"src": 1, "a": 2, "x": 2, "y": 2}))
    out.append((Topology("key", (src, op("a", 0.5), op("b", 0.5, "sink")),
                         (Stream("src", "a"), Stream("a", "b", grouping="key", key="key"))),
                {"src": 2, "a": 2, "b": 2}))
    out.append((Topology("all", (src, op("a", 0.5), op("b", 0.3, "sink")),
                         (Stream("src", "a"), Stream("a", "b", grouping="all"))),
                {"src": 1, "a": 2, "b": 2}))
    out.append((Topology("alpha-0.5", (src, op("a", 0.5, alpha=0.5), op("b", 1.0, "sink")),
                         (Stream("src", "a"), Stream("a", "b"))), {"src": 1, "a": 2, "b": 2}))
    out.append((Topology("alpha-2", (src, op("a", 0.4, alpha=2.0), op("b", 0.4, "sink")),
                         (Stream("src", "a"), Stream("a", "b"))), {"src": 1, "a": 2, "b": 2}))
    out.append((Topology("mixed-par", (src, op("a", 0.6), op("b", 0.3, "sink")),
                         (Stream("src", "a"), Stream("a", "b"))), {"src": 1, "a": 4, "b": 1}))
    return out


def batch_throughput(series: list[dict[str, Any]], after_s: float, sink_share: float) -> float | None:
    """Sink rows per second of the micro-batches that ended ``after_s`` or more after the first one started: their
    rows over the wall time they held (from a batch's start to the next one's, or to its own end for the last).
    Batches back to back (overload) give the processing rate; batches on the trigger the arrival rate. Spark
    reports a batch only once it has ended, so a batch cut off by the stop does not count. (Counting only batches
    that also started after ``after_s`` left none in an overloaded run whose batches had grown past the window.)"""
    rows = []
    for b in series:
        start = datetime.fromisoformat(b["timestamp"].replace("Z", "+00:00")).timestamp()
        rows.append((start, start + b["duration_ms"].get("triggerExecution", 0) / 1000.0, b["input_rows"]))
    if not rows:
        return None
    t0 = rows[0][0]
    held, count = 0.0, 0.0
    for k, (start, end, n) in enumerate(rows):
        if end - t0 < after_s or n == 0:
            continue
        held += (rows[k + 1][0] if k + 1 < len(rows) else end) - start
        count += n
    return count * sink_share / held if held > 0 else None


def measure(spark: Any, topo: Topology, par: dict[str, int], cores: int, engine: EngineSettings, load: float,
            warmup: float, duration: float, auto_trigger: bool = False) -> dict[str, Any]:
    plan = on_one_node(topo, Plan("bench", topo.name, "local", {k: {"local": v} for k, v in par.items()}))
    here = machine(cores)
    full = evaluate(topo, here, plan, engine=engine)
    scale = load * full.sustainable_scale
    rates = {s.id: float(max(1, round(float(s.rate or 0) * scale))) for s in topo.sources}
    run_as = Plan("bench", topo.name, "local", plan.replicas, source_rates=rates)
    if auto_trigger:  # as `streamplace run` picks it: whole seconds whose batches fit in 80 % of them
        engine = engine.with_params({"spark.trigger_s": steady_trigger(topo, here, run_as, None, engine)}, "auto")
    out = Path(tempfile.mkdtemp(prefix="sp-acc-"))
    try:
        cfg = PipelineConfig(trigger_s=engine.spark.trigger_s, sink="noop", out_dir=out, ramp_up_s=warmup / 2,
                             source_lead_s=engine.spark.lead_s)
        res = run_pipeline(spark, topo, here, run_as, duration, warmup, cfg, engine=engine)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    m, p = res.measured, res.predicted
    # sink rows per source row: the topology's selectivities, which the runtime applies per tuple (a window's
    # counts would not do: in overload the sources finish a batch long before the sinks)
    share = p["offered_throughput"] / sum(rates.values())
    # the batches after the warm-up (the series starts at the first batch)
    # Spark counts a micro-batch's input once per source filter in foreachBatch: with k sources, k times
    by_batches = batch_throughput(res.series, warmup, share / len(topo.sources))
    # without such batches the window's count, if a micro-batch ended in it at all: a window that held none read
    # 0 t/s, which is no measurement of the pipeline (None: not measured)
    window_tp = m["throughput"] if m.get("window_batches") else None
    tp = by_batches if by_batches is not None else window_tp
    source = "batches" if by_batches is not None else "window" if tp is not None else None
    return {"topology": topo.name, "load": load, "source_rate": sum(rates.values()),
            "trigger_s": engine.spark.trigger_s, "throughput_from": source,
            "predicted_tp": p["delivered_throughput"], "measured_tp": tp, "window_tp": m["throughput"],
            "predicted_lat_ms": p["latency_mean_ms"], "measured_lat_ms": m["latency_ms"],
            "batch_fixed_s": p["engine_detail"]["batch_fixed_s"], "period_s": p["engine_detail"]["period_s"],
            "stages": p["engine_detail"]["stages"], "fused": p["engine_detail"].get("fused", []),
            "source_lead_s": m.get("source_lead_s"), "batches": len(res.series),
            "operator_cores": m["operator_cores"], "cpu": m["cpu"]}


def err(pred: Any, meas: Any) -> float | None:
    if not isinstance(pred, int | float) or not isinstance(meas, int | float) or pred in (0, float("inf")):
        return None
    return meas / pred - 1


def figure(x: float | None, spec: str) -> str:
    """``x`` formatted with ``spec``, or "not measured" in the same width where there is none."""
    if x is None:
        return "not measured".rjust(int(spec.split(".")[0] or 0))
    return format(x, spec)


def percent(e: float | None, measured: float | None) -> str:
    """An error as " (+5.0 %)"; none (it read "+0.0 %") where the figure was not measured (said beside it), and
    " (error not measured)" where the prediction gives nothing to compare with (0 or infinite)."""
    if measured is None:
        return ""
    return f" ({100 * e:+5.1f} %)" if e is not None else " (error not measured)"


def summary(what: str, errors: list[float], runs: int, missing: str, goal_median: float, goal_max: float) -> str:
    """The line ``what``: median and max over ``errors`` of ``runs`` runs, or that it is not measured (no run had
    the figure) and why (``missing``, naming what to raise); the goals beside it, never met or missed without a
    figure."""
    if not errors:
        return (f"{what}: not measured — {missing} (goal median ≤ {100 * goal_median:.0f} %, max ≤ "
                f"{100 * goal_max:.0f} %: not measured)")
    unmeasured = f"; {runs - len(errors)} of {runs} runs not measured" if len(errors) < runs else ""
    return (f"{what}: median {100 * statistics.median(errors):.1f} % (goal ≤ {100 * goal_median:.0f} %), "
            f"max {100 * max(errors):.1f} % (goal ≤ {100 * goal_max:.0f} %){unmeasured}")


def row_line(r: dict[str, Any]) -> str:
    """One run's line: throughput predicted, measured and the error, and at half load the latencies."""
    half = r["load"] < 1
    lat_cells = f"{r['predicted_lat_ms']:8.0f} {figure(r['measured_lat_ms'], '8.0f')}" if half else " " * 17
    return (f"{r['topology']:11s} ×{r['load']:<4g} rate {r['source_rate']:7.0f} trigger {r['trigger_s']:2.0f} s  "
            f"throughput {r['predicted_tp']:7.1f} {figure(r['measured_tp'], '7.1f')}"
            f"{percent(r['tp_err'], r['measured_tp'])}  latency ms {lat_cells}"
            + (percent(r["lat_err"], r["measured_lat_ms"]) if half else "")
            + f"  logic cores {r['operator_cores']:.2f}, machine {r['cpu'] or 0:.2f}")


def summaries(rows: list[dict[str, Any]], duration: float) -> list[str]:
    """The throughput and half-load latency |error| lines over ``rows``; each is printed, as not measured where no
    run measured its figure (a line left out failed the smoke case)."""
    half = [r for r in rows if r["load"] < 1]
    tp = [abs(r["tp_err"]) for r in rows if r["tp_err"] is not None]
    lat = [abs(r["lat_err"]) for r in half if r["lat_err"] is not None]
    if not half:
        lat_missing = "no run below load 1 (--loads)"
    elif all(r["measured_lat_ms"] is None for r in half):
        lat_missing = (f"no tuple reached a sink in the {duration:g} s window of any of the {len(half)} half-load "
                       "runs; raise --duration")
    else:
        lat_missing = "no half-load run has a finite predicted latency to compare with"
    return [summary("throughput |error|", tp, len(rows),
                    f"no micro-batch with rows ended after the warm-up in any of the {len(rows)} runs "
                    f"({duration:g} s windows); raise --duration", GOAL_TP_MEDIAN, GOAL_TP_MAX),
            summary("latency |error| (half load)", lat, len(half), lat_missing, GOAL_LAT_MEDIAN, GOAL_LAT_MAX)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--only", action="append")
    ap.add_argument("--warmup", type=float, default=15.0)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--trigger", default="auto", help="seconds, or auto (as `streamplace run` picks it)")
    ap.add_argument("--calibration", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--loads", default="0.5,1.5",
                    help="offered loads as multiples of the sustainable rate (latency is compared below 1)")
    args = ap.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    consts = constants_or_defaults(args.calibration)
    auto = args.trigger == "auto"
    engine = EngineSettings("spark", SparkSettings(trigger_s=1.0 if auto else float(args.trigger), constants=consts))
    spark = local_session(args.cores)
    print(f"spark engine on local[{args.cores}], trigger {args.trigger} s; constants: {consts.origin}")
    rows = []
    started = time.perf_counter()
    for topo, par in instances():
        if args.only and topo.name not in args.only:
            continue
        for load in loads:
            r = measure(spark, topo, par, args.cores, engine, load, args.warmup, args.duration, auto)
            r["tp_err"], r["lat_err"] = err(r["predicted_tp"], r["measured_tp"]), err(r["predicted_lat_ms"],
                                                                                     r["measured_lat_ms"])
            rows.append(r)
            print(row_line(r), flush=True)
    print(f"\n{len(rows)} runs in {time.perf_counter() - started:.0f} s")
    for line in summaries(rows, args.duration):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
