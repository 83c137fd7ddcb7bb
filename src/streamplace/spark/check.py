"""Run a plan's pipeline briefly on this machine and put the model's prediction next to what Spark did.

A plan made for a cluster cannot run as planned on one machine, so the check
keeps the plan's parallelism (every operator its planned number of tasks) and
models this machine as one node of ``100 × cores`` points. The source rates are
scaled so the model expects the machine to be ``load`` busy (default 0.5:
room for Spark's own work), never above the spec's rates. Predicted and
measured then describe the same run: throughput into the sinks, latency, CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.evaluate import evaluate
from streamplace.spark.pipeline import PipelineConfig
from streamplace.spark.run import RunResult, run_pipeline


@dataclass
class LocalCheck:
    plan: Plan  # the plan as run here: same parallelism, one node, scaled source rates
    scale: float  # source rates as a share of the spec's
    result: RunResult


def machine(cores: int) -> Cluster:
    return Cluster("local", (Node("local", cpu=100.0 * cores, memory_mb=1 << 20, type="local"),))


def local_plan(topology: Topology, plan: Plan, cores: int, load: float = 0.5) -> tuple[Plan, float]:
    """The plan's parallelism on one local node, with source rates the model expects to keep it ``load`` busy."""
    replicas = {op.id: {"local": max(1, plan.parallelism(op.id))} for op in topology.operators}
    here = Plan(plan.scheduler, topology.name, "local", replicas)
    full = evaluate(topology, machine(cores), here, utilization_limit=1.0)
    scale = min(1.0, load * full.sustainable_scale) if full.sustainable_scale > 0 else 1.0
    rates = {s.id: float(s.rate or 0.0) * scale for s in topology.sources}
    return replace(here, source_rates=rates), scale


def check_plan(spark: Any, topology: Topology, plan: Plan, cores: int, duration_s: float, warmup_s: float,
               out_dir: Path, load: float = 0.5, progress: Callable[[float], None] | None = None) -> LocalCheck:
    run_as, scale = local_plan(topology, plan, cores, load)
    cfg = PipelineConfig(trigger_s=1.0, sink="parquet", out_dir=out_dir)
    result = run_pipeline(spark, topology, machine(cores), run_as, duration_s, warmup_s, cfg, progress)
    return LocalCheck(run_as, scale, result)


def comparison_rows(check: LocalCheck) -> list[tuple[str, str, str]]:
    """(metric, predicted, measured) rows for a report."""
    p, m = check.result.predicted, check.result.measured

    def f(x: Any, digits: int = 1) -> str:
        return "—" if x is None else f"{x:,.{digits}f}"

    return [
        ("source rate (tuples/s)", f(p.get("offered_throughput")), f(m.get("source_rate"))),
        ("throughput into sinks (tuples/s)", f(p.get("delivered_throughput")), f(m.get("throughput"))),
        ("latency, mean (ms)", f(p.get("latency_mean_ms"), 2), f(m.get("latency_ms"), 0)),
        ("CPU busy (share of the machine)", f(p.get("mean_utilization"), 2), f(m.get("cpu"), 2)),
        ("cores busy in operator logic", "", f(m.get("operator_cores"), 2)),
    ]
