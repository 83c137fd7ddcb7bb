"""Run a planned pipeline for a while and measure it next to what the model predicts.

Measured figures cover the window after the warm-up (executors and Python
workers start, the first micro-batches are slow): throughput is the sinks' input
rate (docs/architecture.md's definition), latency the mean time from a tuple's event time at
the source to its sink, CPU the machine's busy share of all cores (psutil)
and, per operator, the cores its logic kept busy. The series holds one row per
micro-batch from the progress listener.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from streamplace.model.cluster import Cluster, Node, scaled_cluster
from streamplace.model.layout import spark_spread
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, recorded_params
from streamplace.perf.evaluate import evaluate
from streamplace.spark.events import RunEnd, RunEvent, RunListener
from streamplace.spark.query.build import pipeline_for
from streamplace.spark.query.metrics import ProgressListener, Snapshot, cpu_share, cpu_times
from streamplace.spark.query.operators import (
    CPU_S,
    LAT_COUNT,
    LAT_MAX_S,
    LAT_SUM_S,
    N_STATS,
    ROWS_IN,
    ROWS_OUT,
    parse_placed_key,
)
from streamplace.spark.query.pipeline import Pipeline, PipelineConfig
from streamplace.spark.query.placed import PlacedPipeline
from streamplace.spark.runtime.watch import BatchWatch


@dataclass
class RunResult:
    duration_s: float
    measured: dict[str, Any]
    predicted: dict[str, Any]
    operators: dict[str, dict[str, float]]
    series: list[dict[str, Any]] = field(default_factory=list)
    #: pinned runs, over the whole run (warm-up included): operator → node → tuples its replicas there took in
    #: and the CPU ms per tuple they burnt (the node's emulated speed)
    placement: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"duration_s": self.duration_s, "predicted": self.predicted, "measured": self.measured,
               "operators": self.operators}
        if self.placement:
            out["placement"] = self.placement
        return out


def measure(before: Snapshot, after: Snapshot, topology: Topology, span_s: float | None = None
            ) -> tuple[dict[str, Any], dict[str, dict]]:
    """Rates and means between two snapshots of the operator statistics, over ``span_s`` seconds (default: the
    time between the snapshots)."""
    dt = max(span_s if span_s is not None else after.at - before.at, 1e-9)

    zero = [0.0] * N_STATS

    def delta(op: str, k: int) -> float:
        return after.stats.get(op, zero)[k] - before.stats.get(op, zero)[k]

    sinks = [s.id for s in topology.sinks]
    lat_n = sum(delta(s, LAT_COUNT) for s in sinks)
    operators = {op.id: {"input_per_s": delta(op.id, ROWS_IN) / dt, "output_per_s": delta(op.id, ROWS_OUT) / dt,
                         "busy_cores": delta(op.id, CPU_S) / dt,
                         "cost_ms_measured": 1000 * delta(op.id, CPU_S) / delta(op.id, ROWS_IN)
                         if delta(op.id, ROWS_IN) > 0 else 0.0}
                 for op in topology.operators}
    share = cpu_share(before.cpu, after.cpu)
    measured = {
        "throughput": sum(operators[s]["input_per_s"] for s in sinks),
        "source_rate": sum(operators[s.id]["output_per_s"] for s in topology.sources),
        "latency_ms": 1000 * sum(delta(s, LAT_SUM_S) for s in sinks) / lat_n if lat_n else None,
        "latency_max_ms": 1000 * max((after.stats.get(s, zero)[LAT_MAX_S] for s in sinks), default=0.0),
        "cpu": share,  # share of all the machine's cores busy (None off Linux)
        "operator_cores": sum(o["busy_cores"] for o in operators.values()),
        "window_s": dt,
        "sink_tuples_total": sum(after.stats.get(s, zero)[ROWS_IN] for s in sinks),  # since the start
    }
    return measured, operators


def run_pipeline(spark: Any, topology: Topology, cluster: Cluster, plan: Plan, duration_s: float,
                 warmup_s: float = 15.0, cfg: PipelineConfig | None = None,
                 progress: Callable[[float], None] | None = None, engine: EngineSettings | None = None,
                 after_first_batch: Callable[[], None] | None = None,
                 after_warmup: Callable[[], None] | None = None, predicted: Mapping[str, Any] | None = None,
                 listener: RunListener | None = None, settle_rows: int | None = None,
                 settle_max_s: float = 0.0, origin: float | None = None) -> RunResult:
    """Start the pipeline, wait ``warmup_s``, measure for ``duration_s`` (from the end of a batch to the end of one;
    ``RunResult.duration_s`` is the window measured), stop; predicted comes from ``engine``'s
    model of ``cluster`` (give the machine it really runs on: ``machine(cores)`` and ``on_one_node(plan)`` for a
    local run). ``after_first_batch`` is called once, when the first micro-batch with rows has ended (at the latest
    when the warm-up ends, or the run does): e.g. to set CPU quotas lifted for the start; ``after_warmup`` once
    when the warm-up ends (at the latest when the run does), before the measured window opens at the next batch's
    end. ``measured["window_batches"]`` holds the ids of the micro-batches that ended inside the window.
    ``predicted``: the run's prediction as the caller made it (:func:`prediction`; bounded sources: of the plan at
    the rates they admit, admission.admitted_plan), computed once and passed on; None: ``engine``'s prediction of
    ``plan`` on ``cluster``. ``offered_rate`` is added: the rates ``plan``'s sources offer. ``listener``
    hears the run (events.py): each micro-batch as it ends (looked for each time the wait looks at the clock, every
    0.5 s: watch.py), the measured window opening as an event, and the end, with the result or the error; its times
    are seconds after ``origin`` (a perf_counter reading; default: this call). ``settle_rows``: after
    ``warmup_s``, the warm-up goes on while the bounded sources' backlog (the last progress report's) holds more
    rows than this, for at most ``settle_max_s`` more — so the window measures the plan, not the catch-up on
    what arrived while executors and the first batches started; ``measured["warmup_s"]`` is the warm-up run."""
    zero = time.perf_counter() if origin is None else origin
    try:
        result = _run_pipeline(spark, topology, cluster, plan, duration_s, warmup_s, cfg, progress, engine,
                               after_first_batch, after_warmup, predicted, listener, settle_rows, settle_max_s,
                               zero)
    except BaseException as exc:
        if listener is not None:
            listener.on_end(RunEnd(time.perf_counter() - zero, error=exc))
        raise
    if listener is not None:
        listener.on_end(RunEnd(time.perf_counter() - zero, result=result))
    return result


def _run_pipeline(spark: Any, topology: Topology, cluster: Cluster, plan: Plan, duration_s: float, warmup_s: float,
                  cfg: PipelineConfig | None, progress: Callable[[float], None] | None,
                  engine: EngineSettings | None, after_first_batch: Callable[[], None] | None,
                  after_warmup: Callable[[], None] | None, predicted_before: Mapping[str, Any] | None,
                  events: RunListener | None,
                  settle_rows: int | None, settle_max_s: float, origin: float) -> RunResult:
    """run_pipeline's run, but for telling ``events`` of its end: start the query, measure its window
    (:func:`_measured_window`), stop it (between batches where the trigger leaves a gap) and put the result
    together (:func:`_result`)."""
    listener = ProgressListener()
    spark.streams.addListener(listener)
    pipeline = pipeline_for(spark, topology, plan, cfg)
    hooks = _Hooks(_Once(after_first_batch), _Once(after_warmup), progress, events, origin)
    try:
        pipeline.start()  # a placed run waits for its executors first (start_executors): not in the warm-up
    except BaseException:
        hooks.first_batch()
        raise
    query_started = time.time()
    # for the running batch to end, so the checkpoint is left between batches; batches back to back (trigger 0)
    # leave no gap to stop in, and the wait ran its whole 30 s (Pipeline.stop: pass 0 then)
    wait_s = 30.0 if cfg is None or cfg.trigger_s > 0 else 0.0
    try:
        window = _measured_window(pipeline, listener, topology, cfg, warmup_s, duration_s, settle_rows,
                                  settle_max_s, hooks)
    except KeyboardInterrupt:
        wait_s = 0.0  # the user wants out now; a batch cut short is replayed on restart
        raise
    finally:
        hooks.first_batch()
        hooks.warmed()
        pipeline.stop(wait_s=wait_s)
        spark.streams.removeListener(listener)
    return _result(pipeline, listener, window, topology, cluster, plan, cfg, engine, predicted_before, query_started)


class _Once:
    """A callback that runs at most once, however often it is called (None: nothing to run)."""

    def __init__(self, fn: Callable[[], None] | None) -> None:
        self._fn = fn

    def __call__(self) -> None:
        fn, self._fn = self._fn, None
        if fn is not None:
            fn()


@dataclass(frozen=True)
class _Hooks:
    """What a run calls as it goes: ``first_batch`` once the first micro-batch with rows ended (at the latest as
    the warm-up ends), ``warmed`` as the warm-up ends, ``progress`` with the seconds run, ``events`` with each
    micro-batch and the window opening (times after ``origin``, a perf_counter reading)."""

    first_batch: _Once
    warmed: _Once
    progress: Callable[[float], None] | None
    events: RunListener | None
    origin: float


@dataclass(frozen=True)
class _Window:
    """A run's measured window: the counters as the whole micro-batches before it and at its end left them (and
    those batches' ids), the progress reports as it opened and closed, the ones inside it, and how long the
    warm-up ran."""

    before: Snapshot
    after: Snapshot
    at_open: list[Any]
    at_close: list[Any]
    in_window: list[Any]
    warmed_at: float


def _measured_window(pipeline: Pipeline, listener: ProgressListener, topology: Topology, cfg: PipelineConfig | None,
                     warmup_s: float, duration_s: float, settle_rows: int | None, settle_max_s: float,
                     hooks: _Hooks) -> _Window:
    """Wait out the warm-up (and the start's backlog, for at most ``settle_max_s`` more, where ``settle_rows`` is
    given), then measure ``duration_s`` between two micro-batch ends: the window opens and closes as a batch ends
    (at most a trigger and a batch later than asked), so that it holds whole batches — a window cut mid-batch
    counts one batch more or less, 1/k of k batches. Raises where the query failed."""
    started = time.perf_counter()
    longest_wait_s = 2.0 * (cfg.trigger_s if cfg is not None else 1.0) + 10.0
    watch = BatchWatch(topology, hooks.events, hooks.origin) if hooks.events is not None else None

    def tick() -> None:
        if any(b.input_rows > 0 for b in listener.batches):
            hooks.first_batch()
        if watch is not None:
            watch.look(pipeline, 0, listener.batches)

    def look(seconds: float) -> None:
        if hooks.progress is not None:
            hooks.progress(seconds)
        if watch is not None:
            watch.look(pipeline, 0, listener.batches)

    _sleep(warmup_s, started, hooks.progress, tick)
    if settle_rows is not None:
        _settle(listener, settle_rows, warmup_s + settle_max_s, started, look)
    warmed_at = time.perf_counter() - started
    hooks.first_batch()
    hooks.warmed()
    if hooks.events is not None:
        hooks.events.on_event(RunEvent(time.perf_counter() - hooks.origin, "window",
                                       "warm-up over: the measured window opens as the next micro-batch ends"))
    _batch_end(listener, longest_wait_s)
    before, first_id = _whole_batches(pipeline)
    _sleep(before.at - started + duration_s, started, look)
    _batch_end(listener, longest_wait_s)
    after, last_id = _whole_batches(pipeline)
    # the window's batches by id (their counters are the snapshots'), not by the progress events seen so far,
    # which arrive after the counters and may lag them by a batch
    _progress_of(listener, last_id, longest_wait_s)
    at_close = [b for b in listener.batches if b.batch_id <= last_id]
    exc = pipeline.query.exception() if pipeline.query is not None else None
    if exc is not None:
        raise RuntimeError(f"the streaming query failed: {exc}")
    return _Window(before, after, at_open=[b for b in listener.batches if b.batch_id <= first_id], at_close=at_close,
                   in_window=[b for b in at_close if b.batch_id > first_id], warmed_at=warmed_at)


def _result(pipeline: Pipeline, listener: ProgressListener, window: _Window, topology: Topology, cluster: Cluster,
            plan: Plan, cfg: PipelineConfig | None, engine: EngineSettings | None,
            predicted_before: Mapping[str, Any] | None, query_started: float) -> RunResult:
    """A run's result from its window: the measured figures (with the run's start and the bounded sources'
    backlog), the prediction (the caller's, or ``engine``'s of ``plan`` on ``cluster``) and every batch's row."""
    before, after = window.before, window.after
    measured, operators = measure(before, after, topology,
                                  window_span(window.in_window, cfg.trigger_s if cfg is not None else 1.0))
    measured["source_lead_s"] = pipeline.source_lead_s()  # the phase the rate sources ran with (spark/query/phase.py)
    measured["warmup_s"] = window.warmed_at
    measured["window_batches"] = [b.batch_id for b in window.in_window]
    if isinstance(pipeline, PlacedPipeline):
        measured["executor_start_s"] = pipeline.executor_start_s
        measured["executors_ready"] = pipeline.executors_ready
    measured.update(first_batch(listener.batches, query_started))
    if pipeline.bounded:
        measured.update(backlog_figures(window.at_open, window.at_close, topology, plan))
    predicted = dict(predicted_before) if predicted_before is not None else \
        prediction(topology, cluster, plan, None, engine)
    predicted["offered_rate"] = sum(float(plan.source_rates.get(s.id) or s.rate or 0.0) for s in topology.sources)
    series = [vars(b) for b in listener.batches]
    return RunResult(after.at - before.at, measured, predicted, operators, series, placed_tuples(after))


def _whole_batches(pipeline: Pipeline) -> tuple[Snapshot, int]:
    """The operators' counters as the last whole micro-batch left them, timed at that batch's end, and that
    batch's id (read together: Spark's thread replaces them between batches): a window between two of these
    holds exactly the batches that ended in it (the live counters may already hold part of the next batch when
    batches run back to back)."""
    batch_id, at, stats = pipeline.batch_done
    return Snapshot(at, {k: list(v) for k, v in stats.items()}, cpu_times()), batch_id


def window_span(batches: list[Any], trigger_s: float) -> float | None:
    """The seconds ``batches`` (consecutive micro-batches) own: from the first one's start to the end of the last
    one's period — the next tick of its trigger after its start, or its end where it overran (Spark's
    ProcessingTimeExecutor then starts the next batch at once). Batch ends alone would make a window's length
    depend on how long its first and last batches took (a 6-batch window of 1 s triggers measured 5.25 s).
    None without batches."""
    if not batches:
        return None
    last = batches[-1]
    began, took = _started(last), last.duration_ms.get("triggerExecution", 0) / 1000.0
    tick = (math.floor(began / trigger_s + 1e-9) + 1) * trigger_s if trigger_s > 0 else began
    return max(tick, began + took) - _started(batches[0])


def backlog_figures(at_open: list[Any], at_close: list[Any], topology: Topology, plan: Plan) -> dict[str, float]:
    """The bounded sources' backlog as the window closed (rows arrived but not admitted when its last batch was
    planned, and the age of the oldest: each source's rows over its rate, the largest) and how fast it grew over
    the window (rows/s between the plannings of the batches that opened and closed it; < 0: it drained). Empty
    when no batch reported one."""
    rates = [float(plan.source_rates.get(s.id) or s.rate or 0.0) for s in topology.sources]

    def last(batches: list[Any]) -> Any:
        return next((b for b in reversed(batches) if b.backlog_rows is not None), None)

    end, start = last(at_close), last(at_open)
    if end is None:
        return {}
    rows = end.backlog_rows
    age = max(((x or 0) / r for x, r in zip(end.backlog, rates, strict=False) if r > 0), default=0.0)
    out = {"backlog_rows": rows, "backlog_age_s": age}
    if start is not None and (dt := _started(end) - _started(start)) > 0:
        out["backlog_growth_per_s"] = (rows - start.backlog_rows) / dt
    return out


def _started(batch: Any) -> float:
    """When a micro-batch started (its progress timestamp), seconds since the epoch."""
    from datetime import datetime

    return datetime.fromisoformat(batch.timestamp.replace("Z", "+00:00")).timestamp()


def first_batch(batches: list[Any], query_started: float) -> dict[str, float]:
    """When the first micro-batch with rows ended, in seconds after the query started (``first_batch_end_s``) and
    on the clock (``first_batch_end_at``, seconds since the epoch), and how long that batch itself took
    (``first_batch_s``): with the executors' start, where a run's start goes. Empty when no batch had rows."""
    for b in batches:
        if b.input_rows > 0:
            took = b.duration_ms.get("triggerExecution", 0) / 1000.0
            began = _started(b)
            return {"first_batch_end_s": max(0.0, began + took - query_started), "first_batch_s": took,
                    "first_batch_end_at": began + took}
    return {}


def prediction(topology: Topology, cluster: Cluster, plan: Plan, profile: Profile | None,
               engine: EngineSettings | None) -> dict[str, Any]:
    """The engine's prediction of a run, with the engine's parameters recorded and ``source_rate``: the tuples per
    second the sources emit (the plan's source rates; Spark's rate source keeps its rate even when the pipeline
    falls behind)."""
    pred = evaluate(topology, cluster, plan, profile, engine=engine).predicted()
    pred["source_rate"] = sum(float(plan.source_rates.get(s.id, s.rate or 0.0)) for s in topology.sources)
    return pred | recorded_params(engine)


def run_target(t: Topology, c: Cluster, pl: Plan, state: Any, master: str | None,
               cores: int | None, placement: str = "plan") -> tuple[Cluster, Plan, str]:
    """What the model predicts a run for: the cluster itself when the replicas run on a standalone cluster (placed
    as the plan says, or as Spark's scheduler spreads them: layout.spark_spread), else this machine (one node, the
    plan's parallelism). The third item names it."""

    if state is not None:
        if placement == "spark":
            pl = spark_spread(pl, state.layout())
        scale = getattr(state, "cpu_scale", None)
        if scale:  # every node's processes run under a CPU quota of its cpu × scale: predict for that cluster
            return scaled_cluster(c, scale), pl, (f"the standalone cluster {c.name} at {master}, each node's CPU "
                                                  f"scaled ×{scale:.3g} to its quota")
        return c, pl, f"the standalone cluster {c.name} at {master}"
    here = local_machine(cores, master)
    return here, on_one_node(t, pl), f"this machine (local[{here.cpu.sum() / 100:g}])"


def local_machine(cores: int | None, master: str | None) -> Cluster:
    """This machine as a local run sees it: ``local[N]``'s N from the master URL, else ``cores``, else every
    core."""
    import os

    n = cores
    if n is None and master and master.startswith("local[") and master[6:-1].isdigit():
        n = int(master[6:-1])
    return machine(n or os.cpu_count() or 2)


def run_warnings(c: Cluster, pl: Plan, predicted: dict[str, Any], here: str, local: Cluster | None) -> list[str]:
    """Before starting: where the plan will not hold here (``local``: this machine as one node, for local runs)."""
    lines = []
    if local is not None:
        cores = float(local.cpu.sum()) / 100.0
        needed = sum(c.node(n).cpu for n in pl.nodes_used()) / 100.0
        if needed > cores + 1e-9:
            lines.append(f"the plan was made for {needed:g} cores on {len(pl.nodes_used())} nodes of {c.name}; "
                         f"{here} has {cores:g}: the prediction below is for {here}")
    offered, delivered = predicted.get("offered_throughput") or 0.0, predicted.get("delivered_throughput") or 0.0
    if offered > 0 and delivered < offered * (1 - 1e-6):
        lines.append(f"the {predicted.get('engine')} model predicts {here} sustains {delivered:,.1f} of the "
                     f"{offered:,.1f} tuples/s the sinks are offered (bottleneck: {predicted.get('bottleneck')}): "
                     "expect the pipeline to fall behind")
    return lines


#: share of the trigger interval a batch may leave unused for the trigger to count as steady: measured batch
#: times vary by about ±10 % from one batch to the next, and a batch that overruns its interval puts the run
#: off its phase, where it may stay for tens of seconds (batches back to back, each reading the seconds that
#: ended meanwhile)
TRIGGER_HEADROOM = 0.2


def steady_trigger(topology: Topology, cluster: Cluster, plan: Plan, profile: Profile | None,
                   engine: EngineSettings, headroom: float = TRIGGER_HEADROOM, longest_s: int = 60) -> float:
    """The shortest trigger of whole seconds whose batches, by ``engine``'s model at the plan's source rates,
    take at most (1 − ``headroom``) of it; 1 s where none does up to ``longest_s`` (batches then run back to back
    whatever the trigger, and a short one loses least). Each trigger tried is one evaluation: O(longest_s) of
    them at most."""
    if not engine.model.micro_batches:
        return engine.spark.trigger_s
    for seconds in range(1, longest_s + 1):
        detail = evaluate(topology, cluster, plan, profile,
                          engine=engine.with_params({"spark.trigger_s": seconds}, "trigger")).engine_detail
        batch = detail.get("batch_s")
        if batch is None or batch <= (1.0 - headroom) * seconds:
            return float(seconds)
    return 1.0


def machine(cores: int) -> Cluster:
    """This machine as the model sees a local run: one node of ``100 × cores`` points."""
    return Cluster("local", (Node("local", cpu=100.0 * cores, memory_mb=1 << 20, type="local"),))


def on_one_node(topology: Topology, plan: Plan) -> Plan:
    """The plan as local Spark runs it: its parallelism and source rates, every replica on the one local node."""
    replicas = {op.id: {"local": max(1, plan.parallelism(op.id))} for op in topology.operators}
    return Plan(plan.scheduler, topology.name, "local", replicas, source_rates=dict(plan.source_rates))


def comparison(predicted: dict[str, Any], measured: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(quantity, predicted, measured) for the figures both sides have, in the same units."""
    busy = predicted.get("utilization") or {}
    backlog = []
    if "backlog_growth_per_s" in measured:  # bounded sources: what they offered beyond what they admitted
        offered, admitted = predicted.get("offered_rate"), predicted.get("source_rate")
        grows = max(0.0, offered - admitted) if isinstance(offered, float) and isinstance(admitted, float) else None
        backlog = [("backlog growth, offered − admitted (tuples/s)", grows, measured["backlog_growth_per_s"])]
    return [
        ("source rate admitted (tuples/s)", predicted.get("source_rate"), measured.get("source_rate")),
        ("throughput into sinks (tuples/s)", predicted.get("delivered_throughput"), measured.get("throughput")),
        # overloaded, a tuple's latency holds its wait in a backlog that grows with the run: no figure predicts it
        ("latency, mean event time → sink (ms)", None if backlog and backlog[0][1] else predicted.get(
            "latency_mean_ms"), measured.get("latency_ms")),
        ("CPU busy, share of the machine (model: tasks only)", busy.get("local") if len(busy) == 1 else None,
         measured.get("cpu")),
        *backlog,
    ]


def ratio(predicted: Any, measured: Any) -> float | None:
    """measured / predicted, None where either is missing or predicted is 0 or infinite."""
    if not isinstance(predicted, int | float) or not isinstance(measured, int | float):
        return None
    if predicted == 0 or predicted != predicted or predicted in (float("inf"), float("-inf")):
        return None
    return float(measured) / float(predicted)


def placed_tuples(snapshot: Snapshot) -> dict[str, dict[str, dict[str, float]]]:
    """Operator → node → {tuples, cost_ms}, from the per-node statistics of pinned runs."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for key, row in snapshot.stats.items():
        if (placed := parse_placed_key(key)) is not None:
            op, node = placed
            cost = 1000 * row[CPU_S] / row[ROWS_IN] if row[ROWS_IN] else 0.0
            out.setdefault(op, {})[node] = {"tuples": row[ROWS_IN], "cost_ms": cost}
    return out


def _progress_of(listener: ProgressListener, batch_id: int, longest_s: float) -> None:
    """Wait until the progress report of micro-batch ``batch_id`` has arrived, at most ``longest_s``."""
    deadline = time.perf_counter() + longest_s
    while not any(b.batch_id >= batch_id for b in listener.batches) and time.perf_counter() < deadline:
        time.sleep(0.02)


def _batch_end(listener: ProgressListener, longest_s: float) -> None:
    """Wait until the next micro-batch ends (its progress event arrives), at most ``longest_s``."""
    seen = len(listener.batches)
    deadline = time.perf_counter() + longest_s
    while len(listener.batches) == seen and time.perf_counter() < deadline:
        time.sleep(0.02)


def _settle(listener: ProgressListener, rows: int, until_s: float, started: float,
            look: Callable[[float], None]) -> None:
    """Wait, at most until ``until_s`` after ``started``, for a progress report whose bounded sources' backlog is
    at most ``rows``."""
    def backlog() -> float:
        if not listener.batches:
            return float("inf")
        rows = listener.batches[-1].backlog_rows
        return 0.0 if rows is None else rows

    while backlog() > rows and (elapsed := time.perf_counter() - started) < until_s:
        time.sleep(min(0.5, until_s - elapsed))
        look(time.perf_counter() - started)


def _sleep(until_s: float, started: float, progress: Callable[[float], None] | None,
           tick: Callable[[], None] | None = None) -> None:
    while (elapsed := time.perf_counter() - started) < until_s:
        time.sleep(min(0.5, until_s - elapsed))
        if progress is not None:
            progress(min(time.perf_counter() - started, until_s))
        if tick is not None:
            tick()
