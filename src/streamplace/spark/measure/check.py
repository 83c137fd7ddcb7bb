"""Run a plan's pipeline briefly on this machine and put the engine model's prediction next to what Spark did.

A plan made for a cluster cannot run as planned on one machine, so the check
keeps the plan's parallelism (every operator its planned number of tasks) and
models this machine as one node of ``100 × cores`` points, under the ``spark``
engine (perf/engines/spark.py: stages, fixed costs per batch, stage and task,
the trigger; the constants from ``streamplace calibrate`` or the defaults). The
trigger is twice the model's fixed time per batch (at least 1 s) and the source
rates are scaled so the model expects the batches to be ``load`` busy (default
0.5) — never above the spec's rates. Predicted and measured then describe the
same run: throughput into the sinks, latency, CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from streamplace.errors import ModelError, Problem
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import evaluate
from streamplace.spark.query.pipeline import PipelineConfig
from streamplace.spark.runtime.run import (
    RunResult,
    comparison,
    machine,
    on_one_node,
    ratio,
    run_pipeline,
    steady_trigger,
)


@dataclass
class LocalCheck:
    plan: Plan  # the plan as run here: same parallelism, one node, scaled source rates
    scale: float  # source rates as a share of the spec's
    trigger_s: float
    engine: EngineSettings
    result: RunResult


def at_load(topology: Topology, here: Plan, cores: int, engine: EngineSettings,
            load: float = 0.5) -> tuple[Plan, float]:
    """``here`` with source rates at ``load`` × the engine's sustainable scale, and their share of the spec's."""
    full = evaluate(topology, machine(cores), here, engine=engine)
    if full.sustainable_scale <= 0:
        raise ModelError([Problem("plan", f"the model sees no sustainable rate for this plan on {cores} cores "
                                  f"(bottleneck {full.bottleneck})", "use fewer replicas or a longer trigger")],
                         topology.name)
    scale = min(1.0, load * full.sustainable_scale)
    # Spark's rate source emits whole tuples per second: round each rate down (at least 1) and keep that scale
    rates = {s.id: float(max(1, int(float(s.rate or 0.0) * scale))) for s in topology.sources}
    scale = max(rates[s.id] / float(s.rate) for s in topology.sources if s.rate) if topology.sources else scale
    return replace(here, source_rates=rates), scale


def check_plan(spark: Any, topology: Topology, plan: Plan, cores: int, duration_s: float, warmup_s: float,
               out_dir: Path, load: float = 0.5, trigger_s: float | None = None,
               progress: Callable[[float], None] | None = None, engine: EngineSettings | None = None) -> LocalCheck:
    """Pick the trigger and the rates from the engine model, then run and compare.

    The run lasts at least three trigger intervals after a warm-up of at least one, so rates are not read off
    a single batch."""
    here = on_one_node(topology, replace(plan, source_rates={s.id: float(s.rate or 0.0) for s in topology.sources}))
    eng = engine or EngineSettings("spark")
    if trigger_s is None:  # the load is a share of the back-to-back capacity, which no trigger changes
        run_as, scale = at_load(topology, here, cores, eng, load)
        trigger_s = steady_trigger(topology, machine(cores), run_as, None, eng)
    eng = eng.with_params({"spark.trigger_s": trigger_s}, "trigger")
    run_as, scale = at_load(topology, here, cores, eng, load)
    duration_s, warmup_s = max(duration_s, 3 * trigger_s), max(warmup_s, trigger_s)
    # the sources ramp up over the first half of the warm-up: at full rate from the first batch, Spark's first
    # (slow: Python workers start, code is compiled) batches build a backlog whose catch-up would be measured
    cfg = PipelineConfig(trigger_s=trigger_s, sink="parquet", out_dir=out_dir, source_lead_s=eng.spark.lead_s,
                         ramp_up_s=warmup_s / 2)
    result = run_pipeline(spark, topology, machine(cores), run_as, duration_s, warmup_s, cfg, progress, engine=eng)
    return LocalCheck(run_as, scale, trigger_s, eng, result)


def comparison_rows(check: LocalCheck) -> list[tuple[str, str, str, str]]:
    """(quantity, predicted, measured, measured / predicted) rows for a report."""

    def f(x: Any, digits: int = 1) -> str:
        return "—" if not isinstance(x, int | float) else f"{x:,.{digits}f}"

    return [(name, f(p, 2), f(m, 2), f(ratio(p, m), 2))
            for name, p, m in comparison(check.result.predicted, check.result.measured)]
