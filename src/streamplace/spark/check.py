"""Run a plan's pipeline briefly on this machine and put the model's prediction next to what Spark did.

A plan made for a cluster cannot run as planned on one machine, so the check
keeps the plan's parallelism (every operator its planned number of tasks) and
models this machine as one node of ``100 × cores`` points. Spark adds a fixed
cost per micro-batch (scheduling one stage per operator, its tasks, the sink
commit) that the spec's per-tuple costs do not know: the check measures it
first — the pipeline on tiny back-to-back batches with no emulated work — and
charges it to the operators as MET for the trigger interval (as the profiler
does). The source rates are then scaled so the model expects the machine to be
``load`` busy (default 0.5), never above the spec's rates. Predicted and
measured then describe the same run: throughput into the sinks, latency, CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Topology
from streamplace.perf.evaluate import evaluate
from streamplace.spark.pipeline import PipelineConfig
from streamplace.spark.run import RunResult, run_pipeline


@dataclass
class LocalCheck:
    plan: Plan  # the plan as run here: same parallelism, one node, scaled source rates
    scale: float  # source rates as a share of the spec's
    batch_overhead_s: float  # Spark's fixed time per micro-batch for this pipeline, measured
    trigger_s: float
    result: RunResult


def machine(cores: int) -> Cluster:
    return Cluster("local", (Node("local", cpu=100.0 * cores, memory_mb=1 << 20, type="local"),))


def batch_overhead(spark: Any, topology: Topology, plan: Plan, batches: int = 3) -> float:
    """Seconds one micro-batch of this pipeline takes with (almost) no data and no emulated CPU work."""
    from streamplace.spark.profiler import NO_WORK, time_batches

    speedup = dict.fromkeys((o.id for o in topology.operators), NO_WORK)
    return time_batches(spark, topology, plan, 2, batches, speedup, warm=2).seconds


def overhead_profile(topology: Topology, plan: Plan, cores: int, overhead_s: float, trigger_s: float) -> Profile:
    """The spec's costs plus the measured per-batch time as MET: it takes the whole machine for that share of T."""
    share = 100.0 * cores * overhead_s / trigger_s / len(topology.operators)  # points per operator
    entries = tuple(ProfileEntry(op.id, "local", op.cost_ms,
                                 min(99.0, op.overhead + share / max(1, plan.parallelism(op.id))))
                    for op in topology.operators)
    return Profile(entries)


def on_one_node(topology: Topology, plan: Plan) -> Plan:
    """The plan's parallelism, every replica on the one local node."""
    replicas = {op.id: {"local": max(1, plan.parallelism(op.id))} for op in topology.operators}
    return Plan(plan.scheduler, topology.name, "local", replicas)


def at_load(topology: Topology, here: Plan, cores: int, load: float = 0.5,
            profile: Profile | None = None) -> tuple[Plan, float]:
    """``here`` with source rates the model expects to keep the machine ``load`` busy, and their share of the spec's."""
    full = evaluate(topology, machine(cores), here, profile, utilization_limit=1.0)
    if full.sustainable_scale <= 0:
        raise ValueError(f"{topology.name}: the model sees no sustainable rate for this plan on {cores} cores "
                         f"(bottleneck {full.bottleneck}); use a longer trigger or fewer replicas")
    scale = min(1.0, load * full.sustainable_scale)
    # Spark's rate source emits whole tuples per second: round each rate down (at least 1) and keep that scale
    rates = {s.id: float(max(1, int(float(s.rate or 0.0) * scale))) for s in topology.sources}
    scale = max(rates[s.id] / float(s.rate) for s in topology.sources if s.rate) if topology.sources else scale
    return replace(here, source_rates=rates), scale


def check_plan(spark: Any, topology: Topology, plan: Plan, cores: int, duration_s: float, warmup_s: float,
               out_dir: Path, load: float = 0.5, trigger_s: float | None = None,
               progress: Callable[[float], None] | None = None) -> LocalCheck:
    """Measure the per-batch cost, pick the trigger (default: 4 × that cost, at least 1 s), then run and compare.

    The run lasts at least three trigger intervals after a warm-up of at least one, so rates are not read off
    a single batch."""
    here = on_one_node(topology, plan)
    overhead = batch_overhead(spark, topology, here)
    trigger_s = trigger_s or max(1.0, round(4 * overhead, 1))
    profile = overhead_profile(topology, here, cores, overhead, trigger_s)
    run_as, scale = at_load(topology, here, cores, load, profile)
    cfg = PipelineConfig(trigger_s=trigger_s, sink="parquet", out_dir=out_dir)
    duration_s, warmup_s = max(duration_s, 3 * trigger_s), max(warmup_s, trigger_s)
    result = run_pipeline(spark, topology, machine(cores), run_as, duration_s, warmup_s, cfg, progress, profile)
    return LocalCheck(run_as, scale, overhead, trigger_s, result)


def comparison_rows(check: LocalCheck) -> list[tuple[str, str, str]]:
    """(metric, predicted, measured) rows for a report."""
    p, m = check.result.predicted, check.result.measured

    def f(x: Any, digits: int = 1) -> str:
        return "—" if x is None else f"{x:,.{digits}f}"

    return [
        ("source rate (tuples/s)", f(sum(check.plan.source_rates.values())), f(m.get("source_rate"))),
        ("throughput into sinks (tuples/s)", f(p.get("delivered_throughput")), f(m.get("throughput"))),
        ("latency, mean (ms)", f(p.get("latency_mean_ms"), 2), f(m.get("latency_ms"), 0)),
        ("CPU busy (share of the machine)", f(p.get("mean_utilization"), 2), f(m.get("cpu"), 2)),
        ("cores busy in operator logic", "", f(m.get("operator_cores"), 2)),
    ]
