"""The run workflow: enact a plan's pipeline on Spark (local, or pinned on a standalone cluster), bounded to what
the model says it sustains, and measure it beside the prediction; the live page fed while it runs.

Nothing here prints or knows the command line: warnings and notes go to ``on_warning`` / ``on_info``, progress
to ``progress(done_s, total_s)``, the Spark session and the live page come from the caller's ``session`` and
``open_page``. `streamplace run` (cli/run.py) and the demo's cluster run (workflows/demo.py) call :func:`enact_run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.admission import Admission, admission, admitted_plan, continuous
from streamplace.perf.engines import RUNTIME_ENGINE, EngineSettings
from streamplace.report.compare import mfmt
from streamplace.schedulers.base import DEFAULT_SCHEDULER, create
from streamplace.spark import cluster as spark_cluster
from streamplace.spark import enact as spark_enact
from streamplace.spark.events import RunEnd, RunListener
from streamplace.workflows import arguments
from streamplace.workflows.instance import (
    Engine,
    Say,
    Spec,
    engine_and_rest,
    engine_settings,
    load_instance,
    plan_for,
    silent,
)
from streamplace.workflows.outdir import run_dir
from streamplace.workflows.run_settings import RunHooks, RunSettings

if TYPE_CHECKING:
    from streamplace.model.layout import WorkerLayout
    from streamplace.spark.cluster import ClusterState
    from streamplace.spark.enact import RunResult

#: the default callbacks: none
NO_HOOKS = RunHooks()


@dataclass(frozen=True)
class RunDone:
    """What `run` (and the demo's run) measured and predicted, and where its live page was written."""

    result: RunResult
    admission: Admission
    predicted: dict[str, Any]
    here: str  # where the prediction is for, in words
    lifted: bool  # CPU quotas were lifted for the start
    page: Path | None


def run_dir_for(t: Topology, pl: Plan, sink: str, out_dir: Path | None, option: str = "out_dir") -> Path:
    """The directory the run of this pipeline writes to and resumes from (outdir.run_dir):
    ``out_dir``, else ``run-out/TOPOLOGY-DIGEST``; a directory holding another pipeline's run is an error on
    ``option``."""
    return run_dir(t, pl, sink, out_dir, option=option)


def enact_run(t: Topology, c: Cluster, pl: Plan, plan_label: str, settings: RunSettings,
              engine: Callable[[float | None], EngineSettings], *, state: ClusterState | None = None,
              master: str | None = None, hooks: RunHooks = NO_HOOKS) -> RunDone:
    """Run ``pl``'s pipeline on Spark (local, or pinned on the standalone cluster of ``state`` at ``master``) for
    ``settings.duration_s`` after ``settings.warmup_s``: the sources bounded to what the model says it sustains
    (or ``settings.max_rate``), warnings said (``hooks.on_warning``) before it starts, the live page
    (``hooks.open_page``; None: none) served while it runs; the warm-up prolonged while the sources' backlog holds
    more than ``settings.settle_rows`` rows, for at most ``settings.settle_max_s`` (spark/runtime/run.run_pipeline) —
    unless the run is overloaded: its backlog only grows.

    ``engine`` gives the engine settings for a trigger (None: auto, chosen from the model); ``hooks.session`` opens
    the SparkSession, its log in the given file (default: spark/cluster/connect.session_for of ``master``,
    ``state`` and ``settings.cores``). Errors and warnings name the settings as ``settings.names`` spells them
    (the command line: its flags). The run's directory (``settings.out_dir``, else run-out/TOPOLOGY-DIGEST:
    run_dir_for) is claimed only once every check has passed. The live page is a view: an error of its own is said
    once and the run goes on without it; its server is stopped on every way out."""
    on_warning = hooks.on_warning
    workers = None
    if state is not None:
        # lazy: command-line start
        from streamplace.model.layout import check_enactable

        workers = state.layout()
        check_enactable(t, pl, workers, plan_label)
        spark_cluster.require_registered(state, {n for per in pl.replicas.values() for n in per})
    target_cluster, target_plan, here = spark_enact.run_target(t, c, pl, state, master, settings.cores,
                                                               settings.placement)
    eng, adm, predicted = _admitted(t, target_cluster, target_plan, engine, settings)
    for line in spark_enact.run_warnings(c, pl, predicted, here, None if state is not None else target_cluster):
        on_warning(line)
    if adm.overloaded:
        on_warning(_overload_warning(adm, predicted["offered_rate"], eng, here, settings.name("max_rate")))
    out_dir = run_dir_for(t, pl, settings.sink, settings.out_dir, option=settings.name("out_dir"))
    live_page = None if hooks.open_page is None else hooks.open_page(
        f"{t.name} on Spark ({master or 'local'}), {pl.scheduler} plan", settings.warmup_s + settings.duration_s,
        target_cluster, out_dir / "run-page.html")
    feed = None
    try:
        if live_page is not None:
            live_page = _page_drawn(live_page, t, c, pl, eng, predicted, settings, on_warning,
                                    offered=lambda: spark_enact.prediction(t, target_cluster, target_plan, None,
                                                                           eng).get("offered_throughput"))
        if live_page is not None:  # the page subscribes to the run's events: its points, log and last state
            # lazy: command-line start (jinja2)
            from streamplace.workflows.feeds import Guarded, PageFeed

            feed = PageFeed(live_page, summary=page_summary, on_warning=on_warning, on_info=hooks.on_info)
        result, lifted = measured_run(t, c, target_cluster, target_plan, adm, predicted, eng, settings, out_dir,
                                      workers, None if feed is None else Guarded(feed, on_warning), state=state,
                                      master=master, hooks=hooks)
    except BaseException as exc:
        if feed is not None and not feed.ended:  # failed before the pipeline ran (the session): ended here
            feed.on_end(RunEnd(0.0, error=exc))
        raise
    finally:
        if live_page is not None:
            live_page.close()
    return RunDone(result, adm, predicted, here, lifted, feed.written if feed is not None else None)


def _admitted(t: Topology, target_cluster: Cluster, target_plan: Plan,
              engine: Callable[[float | None], EngineSettings],
              settings: RunSettings) -> tuple[EngineSettings, Admission, dict[str, Any]]:
    """What a run enacts: the engine at the trigger the admission chose, the admission (the rows a micro-batch
    admits, from the model or ``settings.max_rate``) and the prediction of the plan at the rates admitted —
    computed once, here, and passed on; ``offered_rate`` is what the sources offer."""
    eng = engine(settings.trigger_s)
    adm = admission(t, target_cluster, target_plan, eng, settings.trigger_s, settings.max_rate,
                    where=settings.name("max_rate"))
    eng = continuous(eng, adm.trigger_s)
    predicted = spark_enact.prediction(t, target_cluster, admitted_plan(t, target_plan, adm), None, eng)
    predicted["offered_rate"] = sum(adm.offered.values())
    return eng, adm, predicted


def _overload_warning(adm: Admission, offered: float, eng: EngineSettings, here: str, max_rate_name: str) -> str:
    """What `run` says of sources that offer more than the run admits: the bound, where it comes from, and the
    backlog's growth."""
    return (f"the sources offer {offered:,.1f} tuples/s; "
            + (f"{max_rate_name} admits {adm.max_rate:,.1f}" if adm.source == "max_rate" else
               f"the {eng.name} model predicts {here} sustains {adm.max_rate:,.1f} at a {adm.trigger_s:g} s trigger")
            + f": each micro-batch admits at most {sum(r or 0 for r in adm.rows_per_trigger.values()):,} "
            f"rows and the backlog grows by {offered - adm.max_rate:,.1f} tuples/s (measured below)")


def _page_drawn(live_page: Any, t: Topology, c: Cluster, pl: Plan, eng: EngineSettings, predicted: dict[str, Any],
                settings: RunSettings, on_warning: Say, *, offered: Callable[[], Any]) -> Any:
    """The live page with the plan drawn and the start said (the page's "offered" is what the sources offer, from
    ``offered()``, not what they admit: its gap is the overload); None where drawing it failed, that figure's
    prediction included — said once, the page closed: a view must not stop the run."""
    try:
        from streamplace.report.placement import plan_svg  # lazy: matplotlib, only where a page is drawn

        live_page.plan(dict(predicted, offered_throughput=offered()), plan_svg(t, c, pl, eng), None)
        live_page.event(0.0, "start", f"{pl.scheduler} plan: " + ", ".join(
            f"{op} ×{n}" for op, n in pl.counts().items()) + f"; {settings.warmup_s:g} s of warm-up, then "
            f"{settings.duration_s:g} s measured")
    except Exception as exc:
        on_warning(f"the live page could not be drawn ({type(exc).__name__}: {exc}); the run goes on without it")
        live_page.close()
        return None
    return live_page


def page_summary(result: RunResult) -> list[tuple[str, str, str]]:
    """The live page's last table of a run: (quantity, predicted, measured) as text (spark/runtime/run.comparison)."""
    return [(name, mfmt(pv), mfmt(mv)) for name, pv, mv in spark_enact.comparison(result.predicted, result.measured)]


def measured_run(t: Topology, c: Cluster, target_cluster: Cluster, target_plan: Plan, adm: Admission,
                 predicted: Mapping[str, Any], eng: EngineSettings, settings: RunSettings, out_dir: Path,
                 workers: list[WorkerLayout] | None, listener: RunListener | None, *,
                 state: ClusterState | None = None, master: str | None = None,
                 hooks: RunHooks = NO_HOOKS) -> tuple[RunResult, bool]:
    """The run's Spark part: the session (``hooks.session``, as in enact_run), the pipeline measured for
    ``settings.duration_s`` after ``settings.warmup_s`` at ``adm``'s trigger, beside ``predicted`` (enact_run's,
    made once) (``hooks.progress`` told from its
    start; ``listener``, or None, hears its micro-batches, the measured window opening and its end, timed from when
    the session is up); whether CPU quotas were lifted for the start."""
    session, progress, trigger_s = hooks.session, hooks.progress, adm.trigger_s
    warmup, duration = settings.warmup_s, settings.duration_s
    boost = None
    if state is not None:  # executors and the first batch start at full speed; the quotas are set after it
        boost = spark_cluster.lift_cpu_quotas(state)
    session_started, session_began_at = time.monotonic(), time.time()
    try:
        if session is None:
            spark = spark_cluster.session_for(master, state, settings.cores, out_dir / "spark.log")
        else:
            spark = session(out_dir / "spark.log")
    except BaseException:
        if boost is not None:
            boost()
        raise
    session_start_s = time.monotonic() - session_started
    # an emulated cluster's workers talk over loopback: its stages wait the spec's link latencies instead
    links = spark_cluster.emulated_links(state, c)
    cfg = spark_enact.PipelineConfig(trigger_s=trigger_s, sink=settings.sink, out_dir=out_dir, workers=workers,
                                     source_lead_s=eng.spark.lead_s, link_latency_ms=links,
                                     placement=settings.placement, admission=adm.rows_per_trigger)
    started = time.perf_counter()
    total = warmup + duration
    if progress is not None:
        progress(0.0, total)
    result = spark_enact.run_pipeline(spark, t, target_cluster, target_plan, duration, warmup, cfg,
                                      progress=None if progress is None else lambda s: progress(s, total), engine=eng,
                                      after_first_batch=boost, predicted=predicted,
                                      listener=listener, settle_rows=None if adm.overloaded else settings.settle_rows,
                                      settle_max_s=settings.settle_max_s,
                                      origin=started)
    result.measured["session_start_s"] = session_start_s
    result.measured.update(launch_figures(result.measured, session_began_at))
    return result, boost is not None


def launch_figures(measured: dict[str, Any], session_began_at: float, launched_at: float | None = None
                   ) -> dict[str, float]:
    """Where a run's start went, measured from this process's launch (``launched_at``, seconds since the epoch;
    default: the process's creation time): ``before_spark_s`` up to the start of the Spark session (imports, the
    plan, the prediction) and ``launch_to_first_batch_s`` to the end of the first micro-batch with rows."""
    if launched_at is None:
        import psutil

        launched_at = psutil.Process().create_time()
    out = {"before_spark_s": max(0.0, session_began_at - launched_at)}
    if "first_batch_end_at" in measured:
        out["launch_to_first_batch_s"] = max(0.0, measured["first_batch_end_at"] - launched_at)
    return out


def run(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, *, duration_s: float = 60.0,
        warmup_s: float = 15.0, trigger_s: float | None = None, cores: int | None = None,
        out_dir: str | Path | None = None,
        engine: Engine = RUNTIME_ENGINE, max_rate: float | None = None) -> Any:
    """Run the plan's pipeline on local Spark (``cores`` of this machine) and measure it; ``result.measured``
    beside ``result.predicted`` (the engine's model of this machine), every ``trigger_s`` seconds (None: as `run
    --trigger auto` picks it, perf/admission.py). Each micro-batch admits at most
    ``max_rate`` tuples/s of the sources (default: what the engine's model says the plan sustains here; the rest
    waits in the sources' backlog, ``measured["backlog_rows"]``). The output and checkpoint go to
    ``out_dir`` (default ``run-out/TOPOLOGY-DIGEST``), which resumes only the same pipeline. Returns the
    spark.runtime.run.RunResult."""
    import os

    arguments.engine(engine)
    arguments.path(out_dir, "out_dir", "give a directory, e.g. out_dir='run-out/mine', or None")
    if plan is not None and not isinstance(plan, Plan | str | Path | Mapping):
        raise arguments.wrong_type("plan", plan, "a Plan, a path, a mapping or None",
                                   "pass a plan from sp.plan(...), the path of `streamplace plan --json` output, "
                                   "or None (planned now with r-storm)")
    t, c = runnable_instance(topology, cluster)  # bad logic fails here, before Spark starts
    RunSettings(duration_s=duration_s, warmup_s=warmup_s, trigger_s=trigger_s, max_rate=max_rate,
                cores=cores)  # out-of-range values fail here, naming the argument
    plan = plan_to_run(plan, DEFAULT_SCHEDULER, t, c)
    eng = engine_settings(engine, cluster=c)
    n = cores or os.cpu_count() or 2
    # this machine, as `run` predicts it
    target_cluster, target_plan, _ = spark_enact.run_target(t, c, plan, None, None, n)
    adm = admission(t, target_cluster, target_plan, eng, trigger_s, max_rate)
    directory = run_dir_for(t, plan, "parquet", Path(out_dir) if out_dir is not None else None)
    cfg = spark_enact.PipelineConfig(trigger_s=adm.trigger_s, out_dir=directory, admission=adm.rows_per_trigger)
    eng = continuous(eng, adm.trigger_s)
    predicted = spark_enact.prediction(t, target_cluster, admitted_plan(t, target_plan, adm), None, eng)
    return spark_enact.run_pipeline(spark_enact.local_session(n), t, target_cluster, target_plan, duration_s,
                                    warmup_s, cfg, engine=eng, predicted=predicted)


def runnable_instance(topology: Topology | Spec, cluster: Cluster | Spec, on_warning: Say = silent,
                      where: str | None = None) -> tuple[Topology, Cluster]:
    """The instance a Spark use case runs: bad logic names or parameters fail here, naming the file (``where``),
    before Spark starts."""
    inst = load_instance(topology, cluster, None, on_warning)
    for op in inst.topology.operators:
        spark_enact.logic_of(op, where=where if where is not None else str(topology))
    return inst.topology, inst.cluster


def plan_to_run(plan: Plan | Spec | None, scheduler: str, t: Topology, c: Cluster,
                on_warning: Say = silent) -> Plan:
    """The given plan (or plan file) checked against the instance, else a plan made now with ``scheduler``;
    never an infeasible one. ``on_warning``: what :func:`plan_for` says of a plan file."""
    pl = plan_for(plan, t, c, str(plan) if isinstance(plan, str | Path) else "plan", on_warning) if plan is not None \
        else create(scheduler).plan(t, c)
    if not pl.usable:
        raise SpecError([Problem("plan", "the plan is infeasible: " + "; ".join(pl.explanation),
                                 "plan with another scheduler or a larger cluster")])
    return pl


def check_run_options(settings: RunSettings, state: ClusterState | None) -> None:
    """Refuse Spark's own placement off a cluster (it compares schedulers on a cluster of several nodes); what does
    not depend on the cluster (an unknown sink or placement) RunSettings refused when it was built."""
    if settings.placement == "spark" and state is None:
        raise SpecError([Problem(settings.name("placement"), "spark placement compares schedulers on a cluster of "
                                 "several nodes", "give [[master]] the URL of a cluster `streamplace cluster up` "
                                 "started")])


def run_engine(engine: Engine, calibration: Path | None, params: dict[str, str] | None,
               c: Cluster) -> Callable[[float | None], EngineSettings]:
    """The engine settings of a run once its trigger is known (None: auto, chosen from the model); ``params``:
    engine parameters only (``ENGINE.key``), checked now."""
    _, rest = engine_and_rest(engine, params, calibration, cluster=c)
    if rest:
        raise SpecError([Problem("params", f"a run takes engine parameters only, got {next(iter(rest))!r}",
                                 "write ENGINE.key=value, e.g. spark.trigger_s=2")])
    return lambda trigger_s: engine_and_rest(engine, params, calibration, cluster=c, trigger_s=trigger_s)[0]


def measured_beside_predicted(predicted: dict[str, Any], measured: dict[str, Any]) \
        -> list[tuple[str, Any, Any, float | None]]:
    """(quantity, predicted, measured, measured / predicted) for every quantity a run measures."""
    return [(name, pv, mv, spark_enact.ratio(pv, mv)) for name, pv, mv in spark_enact.comparison(predicted, measured)]


def page_capacity(target: Cluster) -> dict[str, float]:
    """Each node's cores as the live page counts CPU against them (quota-scaled on an emulated cluster)."""
    from streamplace.page.live_run import capacity_cores  # lazy: command-line start (jinja2, the page's server)

    return capacity_cores(target)


def write_run_series(result: RunResult, path: Path) -> None:
    """A run's per-batch series (batch, time, rows in, rates, duration) as .csv, or .parquet."""
    from streamplace.sim.series import write_series  # lazy: pandas, 0.35 s of every run's start otherwise

    batches = result.series
    write_series({"batch_id": [b["batch_id"] for b in batches], "timestamp": [b["timestamp"] for b in batches],
                  "input_rows": [b["input_rows"] for b in batches],
                  "input_rows_per_s": [b["input_rows_per_s"] for b in batches],
                  "processed_rows_per_s": [b["processed_rows_per_s"] for b in batches],
                  "duration_ms": [b["duration_ms"].get("triggerExecution", 0) for b in batches]}, path)
