"""Profile operators on this machine: e (ms per tuple) and MET (points per replica) by least squares, and α.

Nasiri et al. 2023 profiles each component alone at increasing input rates and fits the
straight line TCU = e · IR + MET. On Spark the resource a micro-batch uses is
not only CPU: every stage also costs a fixed scheduling time per batch during
which the cores wait (stage barriers), and that, not CPU, is what bounds a
pipeline at low rates. So the profiler measures *busy time*: it runs probe
pipelines on fixed-size micro-batches back to back (Spark's rate-micro-batch
source, no waiting for a trigger) and fits, per operator, the batch time

    t(n) = a + b · n        (n = tuples the operator receives per batch)

by least squares over several batch sizes, after subtracting the same pipeline
without the operator (the probe's baseline) at the same sizes. e is the CPU its
logic burns per tuple, read on the threads' CPU clocks (``time.thread_time``),
so another process competing for the cores does not inflate it (the batch
slope b would: 1000 · b · min(p, cores) is kept only where no CPU was recorded);
the fixed part a takes the whole machine for a of every trigger interval T,
i.e. 100 · cores · a / T points, MET = that / p per replica. A source is profiled
alone (its line is the pipeline's base cost).
α is the operator's output / input count. Operators whose input needs columns
from upstream (DEBS, OEE) are probed behind their ancestors, which then do no
emulated CPU work. The profile is valid for the trigger interval it was made
for (stored with it).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import linregress

from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.spark.query.build import pipeline_for
from streamplace.spark.query.library import logic_of
from streamplace.spark.query.metrics import ProgressListener
from streamplace.spark.query.operators import CPU_S, N_STATS, ROWS_IN, ROWS_OUT
from streamplace.spark.query.pipeline import PipelineConfig

NO_WORK = 1e9  # speed-up given to helper operators so they burn no emulated CPU


@dataclass
class Timing:
    """Mean batch time of a probe at one batch size, and the rows the profiled operator saw per batch."""

    source_rows: float
    seconds: float
    op_rows_in: float = 0.0
    op_rows_out: float = 0.0
    op_cpu_s: float = 0.0  # the operator's logic, on its threads' CPU clocks, over every batch of the probe
    op_rows_total: float = 0.0  # the rows its logic saw over every batch (for CPU per tuple)
    rows_in_share: dict[str, float] = field(default_factory=dict)  # per operator: rows in / rows the sources emit


@dataclass
class OperatorFit:
    operator: str
    cost_ms: float  # e on this machine
    overhead: float  # MET, points per replica
    selectivity: float
    fixed_s: float  # a: seconds per batch
    per_tuple_s: float  # b: seconds per tuple of the whole stage
    r2: float
    timings: list[Timing] = field(default_factory=list)


def time_batches(spark: Any, topology: Topology, plan: Plan, batch_rows: float, batches: int, speedup: dict[str, float],
                 op_id: str | None = None, warm: int = 2, timeout_s: float = 300.0, fuse: bool = False) -> Timing:
    """Run ``topology`` on back-to-back batches of ``batch_rows`` per source; mean time of batches after ``warm``.
    Unfused by default: a probe measures one stage per operator, which is what the constants per stage and per
    shuffled tuple describe."""
    listener = ProgressListener()
    spark.streams.addListener(listener)
    with tempfile.TemporaryDirectory(prefix="streamplace-profile-") as tmp:
        scaled = Topology(topology.name, tuple(replace(o, rate=batch_rows) if o.is_source else o
                                               for o in topology.operators), topology.streams)
        cfg = PipelineConfig(trigger_s=0.0, sink="noop", out_dir=Path(tmp), batch_s=1.0, speedup=speedup, fuse=fuse)
        pipeline = pipeline_for(spark, scaled, plan, cfg)
        query = pipeline.start()
        deadline = time.monotonic() + timeout_s
        try:
            while len(listener.batches) < warm + batches and time.monotonic() < deadline:
                if query.exception() is not None:
                    raise RuntimeError(f"probe pipeline failed: {query.exception()}")
                time.sleep(0.1)
        finally:
            pipeline.stop(wait_s=0.0)  # batches run back to back: no gap to wait for
            spark.streams.removeListener(listener)
        done = [b for b in listener.batches if b.input_rows > 0][warm:]
        if not done:
            raise RuntimeError(f"the probe of {topology.name} completed no measurable batch in {timeout_s:.0f} s")
        seconds = float(np.mean([b.duration_ms.get("triggerExecution", 0) for b in done])) / 1000
        t = Timing(batch_rows, seconds)
        stats = pipeline.stats.value
        emitted = sum(stats.get(s.id, [0.0] * N_STATS)[ROWS_OUT] for s in scaled.sources)
        t.rows_in_share = {k: v[ROWS_IN] / emitted for k, v in stats.items()} if emitted else {}
        if op_id is not None and emitted > 0:  # per batch: the sources emit batch_rows each
            mine = stats.get(op_id, [0.0] * N_STATS)
            if any(s.source in {x.id for x in scaled.sources} for s in scaled.streams if s.target == op_id) \
                    and len(scaled.sources) == 1 and len(scaled.operators) == 2:
                t.op_rows_in = batch_rows  # fed straight by the probe's source: exactly one batch's rows
            else:  # behind other operators: the share of the sources' output that reached it
                t.op_rows_in = mine[ROWS_IN] * batch_rows * len(scaled.sources) / emitted
            t.op_rows_out = t.op_rows_in * (mine[ROWS_OUT] / mine[ROWS_IN] if mine[ROWS_IN] else 1.0)
            t.op_cpu_s, t.op_rows_total = mine[CPU_S], mine[ROWS_IN]
        return t


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares line y = a + b·x (scipy's linregress); returns (a, b, R²) — R² is 1 where y does not vary."""
    if np.ptp(y) == 0:
        return float(y[0]), 0.0, 1.0
    fit = linregress(x, y)
    return float(fit.intercept), float(fit.slope), float(fit.rvalue) ** 2


def probes(topology: Topology, op: Operator) -> tuple[Topology, Topology | None, set[str]]:
    """(probe with the operator, baseline without it, helper operators that do no emulated work)."""
    import networkx as nx

    if op.is_source:
        return Topology(f"probe-{op.id}", (replace(op, kind="source"),), ()), None, set()
    incoming = [s for s in topology.streams if s.target == op.id]
    target = replace(op, kind="sink")
    ancestors = nx.ancestors(topology.graph, op.id)
    if all(not logic_of(topology.op(a)).adds for a in ancestors):  # its input is plain (ts, value, key)
        feeder = Operator("_feed", "source", rate=1.0, logic={"name": "rate"})
        grouping = incoming[0] if incoming else Stream("_feed", op.id)
        probe = Topology(f"probe-{op.id}", (feeder, target), (replace(grouping, source="_feed", target=op.id),))
        return probe, Topology("probe-base", (feeder,), ()), {"_feed"}
    ops = tuple(o for o in topology.operators if o.id in ancestors)
    streams = tuple(s for s in topology.streams if s.source in ancestors and s.target in ancestors)
    base = Topology(f"probe-base-{op.id}", ops, streams)
    probe = Topology(f"probe-{op.id}", (*ops, target), streams + tuple(incoming))
    return probe, base, set(ancestors)


def profile_operator(spark: Any, topology: Topology, op: Operator, cores: int, trigger_s: float,
                     sizes: list[float], batches: int = 4,
                     baselines: dict[tuple[str, float], Timing] | None = None) -> OperatorFit:
    probe, base, helpers = probes(topology, op)
    parallel = {o.id: {"local": cores if o.max_replicas is None else min(cores, o.max_replicas)}
                for o in probe.operators}
    plan = Plan("profile", probe.name, "local", parallel)
    speedup = dict.fromkeys(helpers, NO_WORK)
    timings, deltas = [], []
    for rows in sizes:
        t = time_batches(spark, probe, plan, rows, batches, speedup, op.id)
        if base is not None:
            key = (base.name + ",".join(sorted(o.id for o in base.operators)), rows)
            cache = baselines if baselines is not None else {}
            if key not in cache:
                base_plan = Plan("profile", base.name, "local", {k: v for k, v in parallel.items() if k != op.id})
                cache[key] = time_batches(spark, base, base_plan, rows, batches, speedup)
            deltas.append(t.seconds - cache[key].seconds)
        else:
            deltas.append(t.seconds)
        timings.append(t)
    x = np.array([t.op_rows_in for t in timings])
    a, b, r2 = _fit(x, np.array(deltas))
    p = parallel[op.id]["local"]
    a, b = max(a, 0.0), max(b, 0.0)
    # e from the CPU the logic burnt per tuple on its threads' clocks: a busy machine slows the batches (b) but
    # not the CPU a tuple costs
    rows = sum(t.op_rows_total for t in timings)
    cost_ms = 1000.0 * sum(t.op_cpu_s for t in timings) / rows if rows > 0 else 1000.0 * b * min(p, cores)
    met = min(99.0, 100.0 * cores * a / (trigger_s * p))
    alpha = (sum(t.op_rows_out for t in timings) / sum(t.op_rows_in for t in timings)
             if sum(t.op_rows_in for t in timings) else 1.0)
    return OperatorFit(op.id, cost_ms, met, alpha, a, b, r2, timings)


def default_sizes(op: Operator, cores: int, work_s: tuple[float, ...] = (0.5, 1.0, 2.0)) -> list[float]:
    """Batch sizes (source rows) giving the operator about ``work_s`` seconds of its spec'd work per batch."""
    cost = max(op.cost_ms, 0.002)  # pass-through operators still cost µs per tuple
    return [max(50.0, round(w * cores * 1000.0 / cost)) for w in work_s]


def profile_topology(spark: Any, topology: Topology, cores: int, trigger_s: float = 5.0, node_type: str = "local",
                     batches: int = 4, only: list[str] | None = None,
                     progress: Callable[[str], None] | None = None) -> tuple[Profile, list[OperatorFit]]:
    fits = []
    baselines: dict[tuple[str, float], Timing] = {}  # probe baselines shared between operators
    for op in topology.operators:
        if only and op.id not in only:
            continue
        if progress is not None:
            progress(op.id)
        fits.append(profile_operator(spark, topology, op, cores, trigger_s, default_sizes(op, cores), batches,
                                     baselines))
    entries = tuple(ProfileEntry(f.operator, node_type, round(f.cost_ms, 6), round(f.overhead, 4)) for f in fits)
    selectivity = {f.operator: round(f.selectivity, 6) for f in fits if not topology.op(f.operator).is_sink}
    return Profile(entries, selectivity), fits


def profile_document(profile: Profile, fits: list[OperatorFit], cores: int, trigger_s: float) -> dict[str, Any]:
    """The profile spec (docs/architecture.md's format) plus how it was measured."""
    return {
        "profiles": [{"operator": e.operator, "node_type": e.node_type, "cost_ms": e.cost_ms, "overhead": e.overhead}
                     for e in profile.entries],
        "selectivity": dict(profile.selectivity),
        "measured": {"cores": cores, "trigger_s": trigger_s, "method": "busy time of back-to-back micro-batches",
                     "fits": {f.operator: {"fixed_s": round(f.fixed_s, 5),
                                           "per_tuple_us": round(1e6 * f.per_tuple_s, 4), "r2": round(f.r2, 4),
                                           "points": [[round(t.op_rows_in, 1), round(t.seconds, 4)]
                                                      for t in f.timings]}
                              for f in fits}},
    }

