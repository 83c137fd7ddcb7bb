"""Running a plan on Spark: `streamplace run` (the run workflow, workflows/run.py, with the CLI's printing),
its table of measured beside predicted, and what `run`, `live` and the demo share on the command line: the
instance's warnings, the callbacks (session, live page, warnings) and the progress bar."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress
from rich.table import Table

from streamplace.cli._common import (
    CalibrationOpt,
    ClusterArg,
    CoresOpt,
    EngineOpt,
    EngineParamOpt,
    JsonOpt,
    PageOpt,
    PagePortOpt,
    RunTriggerOpt,
    StateOpt,
    TopoArg,
    app,
    emit_json,
    err,
    friendly,
    info,
    out,
    parse_params,
    parse_trigger,
    progress_bar,
    spark_session,
    warn,
)
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan, jsonable
from streamplace.model.topology import Topology
from streamplace.report.compare import fmt, mfmt
from streamplace.workflows.cluster import cluster_at
from streamplace.workflows.instance import DEFAULT_ENGINE, runs_micro_batches
from streamplace.workflows.planning import DEFAULT_SCHEDULER
from streamplace.workflows.run import (
    check_run_options,
    enact_run,
    measured_beside_predicted,
    page_capacity,
    plan_to_run,
    run_engine,
    runnable_instance,
    write_run_series,
)
from streamplace.workflows.run_settings import (
    SETTLE_MAX_S,
    SETTLED_ROWS,
    PageOpener,
    RunHooks,
    RunSettings,
    SessionOpener,
)


@app.command("run")
@friendly
def run_cmd(
    topo: TopoArg,
    cluster: ClusterArg,
    plan_file: Annotated[Path | None, typer.Option("--plan", help="plan JSON (default: plan now with --scheduler)")]
    = None,
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler when no --plan is given")] \
    = DEFAULT_SCHEDULER,
    duration: Annotated[float, typer.Option("--duration", min=1, help="seconds measured after the warm-up")] = 60.0,
    warmup: Annotated[float, typer.Option("--warmup", min=0, help="seconds before measuring")] = 15.0,
    trigger: RunTriggerOpt = "auto",
    out_dir: Annotated[Path | None, typer.Option("--out", help="sink output and checkpoint directory; it resumes "
                                                 "only the same pipeline (default: run-out/TOPOLOGY-DIGEST, one per "
                                                 "topology, plan and sink)")] = None,
    sink: Annotated[str, typer.Option("--sink", help="parquet, noop or memory")] = "parquet",
    cores: CoresOpt = None,
    master: Annotated[str | None, typer.Option("--master", help="Spark master URL (default: local); a cluster "
                                               "started by `streamplace cluster up` gets every replica pinned to "
                                               "its planned node")] = None,
    state_dir: StateOpt = None,
    placement: Annotated[str, typer.Option("--placement", help="on a cluster `cluster up` started: plan (every "
                                           "replica on its planned node) or spark (the plan's replica counts, "
                                           "Spark's own scheduler choosing the nodes: the baseline)")] = "plan",
    series: Annotated[Path | None, typer.Option("--series", help="write the per-batch series "
                                                "(.csv, or .parquet)")] = None,
    as_json: JsonOpt = False,
    engine: EngineOpt = DEFAULT_ENGINE,
    calibration: CalibrationOpt = None,
    param: EngineParamOpt = None,
    max_rate: Annotated[float | None, typer.Option("--max-rate", help="tuples/s the sources admit at most, all "
                                                   "together (default: the model's sustainable rate); the rest "
                                                   "waits in the sources' backlog")] = None,
    page: PageOpt = True,
    page_port: PagePortOpt = 0,
) -> None:
    """Run the topology's pipeline on Spark with a plan; print predicted next to measured.

    Each micro-batch admits at most what the plan sustains (or --max-rate): offered more, the pipeline runs
    bounded batches and the sources' backlog grows, measured and reported (as Kafka's maxOffsetsPerTrigger).

    Example: streamplace run linear-cpu rstorm-12 --plan plan.json --duration 60
    """
    t, c = spark_instance(topo, cluster)
    pl = plan_to_run(plan_file, scheduler, t, c, on_warning=warn)
    state = cluster_at(master, state_dir)
    settings = RunSettings(duration_s=duration, warmup_s=warmup, trigger_s=parse_trigger(trigger), max_rate=max_rate,
                           cores=cores, placement=placement, sink=sink, out_dir=out_dir,  # type: ignore[arg-type]
                           settle_rows=SETTLED_ROWS, settle_max_s=SETTLE_MAX_S, names=RUN_FLAGS)
    check_run_options(settings, state)
    run_eng = run_engine(engine, calibration, parse_params(param), c)
    with run_progress(f"{t.name} ({pl.scheduler} plan)", disable=as_json) as progress:
        done = enact_run(t, c, pl, str(plan_file or "plan"), settings, run_eng, state=state, master=master,
                         hooks=run_hooks(master, state, cores, page, page_port, progress))
    result, adm, predicted, lifted = done.result, done.admission, done.predicted, done.lifted
    if series is not None and result.series:
        write_run_series(result, series)
    admitted = {"trigger_s": adm.trigger_s, "rows_per_trigger": adm.rows_per_trigger, "max_rate": adm.max_rate,
                "offered_rate": predicted["offered_rate"], "from": adm.source, "overloaded": adm.overloaded}
    if as_json:
        emit_json(jsonable(result.to_dict() | {"admission": admitted})
                  | ({"cpu_quotas": "lifted for the start, set after the first micro-batch"}
                     if lifted else {}))
    else:
        print_run(result, t, pl, master, duration, done.here, warmup)
        if lifted:
            out.print("  CPU quotas: lifted while the executors and the first micro-batch started, set after it "
                      "(before the measured window)", highlight=False)
    if not result.measured.get("sink_tuples_total"):
        err.print(f"[bold red]error:[/] no tuple reached a sink in {warmup + duration:g} s: the pipeline did not "
                  "start or did not keep up; see the warnings above, try a longer --warmup, fewer replicas or lower "
                  "source rates", highlight=False)
        raise typer.Exit(1)
    if not result.measured.get("throughput"):
        m = result.measured
        err.print(f"[bold red]error:[/] no tuple reached a sink in the {m.get('window_s', duration):.1f} s measured "
                  f"({len(m.get('window_batches') or [])} micro-batches ended in it; tuples reached them only during "
                  f"the {warmup:g} s warm-up): the figures above are not the pipeline's; measure longer (--duration), "
                  "after a longer --warmup, or admit less (--max-rate)", highlight=False)
        raise typer.Exit(1)


#: how the command line spells the run's settings (RunSettings.names)
RUN_FLAGS = {"duration_s": "--duration", "warmup_s": "--warmup", "trigger_s": "--trigger", "max_rate": "--max-rate",
             "cores": "--cores", "placement": "--placement", "sink": "--sink", "out_dir": "--out"}


def run_hooks(master: str | None, state: Any, cores: int | None, page: bool, page_port: int,
              progress: Callable[[float, float], None] | None = None) -> RunHooks:
    """enact_run's callbacks as the command line has them: warnings (not with -q), notes on stderr, Spark's log
    file said as its session starts, the live page served with its URL said (``page``: wanted), ``progress``."""
    return RunHooks(session=session_opener(master, state, cores), open_page=page_opener(page, page_port),
                    on_warning=warn, on_info=note, progress=progress)


def session_opener(master: str | None, state: Any, cores: int | None) -> SessionOpener:
    """The Spark session of a run at ``master`` (or local Spark with ``cores``), its log file said as it starts."""
    return lambda log_to: spark_session(master, state, cores, log_to)


def page_opener(page: bool, page_port: int) -> PageOpener:
    """The live page served on ``page_port`` with its URL said, where ``page`` (--page) wants one."""
    return functools.partial(open_page, port=page_port, enabled=page)


def note(text: str) -> None:
    """A note on stderr (not with -q)."""
    info(text, stderr=True)


@contextmanager
def run_progress(label: str, disable: bool) -> Iterator[Callable[[float, float], None]]:
    """enact_run's ``progress`` as a bar on stderr (not with --json, -q or off a terminal): shown from the
    pipeline's start (not during Spark's own) until the block ends."""
    shown: list[tuple[Progress, Any]] = []

    def report(done: float, total: float) -> None:
        if not shown:
            bar = progress_bar("running {task.description}", "{task.completed:.0f}/{task.total:.0f} s",
                               disable=disable or not err.is_terminal)
            bar.start()
            shown.append((bar, bar.add_task(label, total=total)))
        bar, task = shown[0]
        bar.update(task, completed=done, total=total)

    try:
        yield report
    finally:
        for bar, _ in shown:
            bar.stop()


def open_page(title: str, duration_s: float, target: Cluster, path: Path, port: int, enabled: bool) -> Any:
    """The run's live page (page/live_run.py), served on localhost with its URL said; None when not wanted or
    when it cannot be served (said once: the run goes on without it)."""
    if not enabled:
        return None
    # lazy: command-line start (jinja2)
    from streamplace.page.live_run import RunPage

    try:
        page = RunPage(title, duration_s, page_capacity(target), path, port)
    except OSError as exc:
        warn(f"the live page could not be served on 127.0.0.1:{port} ({exc.strerror or exc}); the run goes on "
             "without it (--page-port 0 picks a free port, --no-page turns it off)")
        return None
    info(f"live page: {page.url} (written to {path} when the run ends)", stderr=True)
    return page


def print_run(result: Any, t: Topology, pl: Plan, master: str | None, duration: float, here: str,
              warmup: float | None = None) -> None:
    p = result.predicted
    table = Table(title=f"{t.name} on Spark ({master or 'local'}), {pl.scheduler} plan, {duration:g} s measured")
    for col in ("quantity", f"predicted ({p.get('engine')} engine)", "measured", "measured / predicted"):
        table.add_column(col, justify="left" if col == "quantity" else "right")
    for name, pv, mv, r in measured_beside_predicted(p, result.measured):
        shown = mfmt(pv) if name.startswith("CPU busy") else fmt(pv)  # not modelled for a cluster of nodes
        table.add_row(name, shown, mfmt(mv), "" if r is None else f"{r:.2f}")
    table.add_row("sustainable throughput (tuples/s)", fmt(p.get("throughput")), "", "")
    out.print(table)
    out.print(f"  predicted for {here}; bottleneck: {p.get('bottleneck')}", highlight=False)
    params = p.get("engine_params") or {}
    if runs_micro_batches(p.get("engine")):  # the source's phase on the trigger

        def ms(x: Any) -> str:
            return "left to chance" if x is None else f"{1000 * x:.0f} ms"

        if params.get("quantum_s"):
            out.print(f"  trigger {params.get('trigger_s', 0):g} s; a source second ends before its tick by "
                      f"{ms(params.get('lead_s'))} (model), {ms(result.measured.get('source_lead_s'))} (run)",
                      highlight=False)
        else:
            out.print(f"  trigger {params.get('trigger_s', 0):g} s; the sources' tuples arrive one by one and a "
                      "micro-batch admits at most the rate above × the trigger (latency counts from arrival)",
                      highlight=False)
    m = result.measured
    if "backlog_rows" in m:
        growth = m.get("backlog_growth_per_s")
        out.print(f"  sources offered {fmt(p.get('offered_rate'))} tuples/s; backlog as the window closed "
                  f"{m['backlog_rows']:,.0f} rows, the oldest waiting {m['backlog_age_s']:.1f} s"
                  + ("" if growth is None else f", {'growing' if growth > 0 else 'draining'} by "
                     f"{abs(growth):,.1f} rows/s over the window"), highlight=False)
    if warmup is not None and (warmed := m.get("warmup_s")) is not None and warmed > warmup + 1.0:
        out.print(f"  warm-up prolonged to {warmed:.0f} s (at most {SETTLE_MAX_S:g} s more) until the rows queued "
                  "during the start had been processed: the window measures the plan, not its catch-up",
                  highlight=False)
    if "executor_start_s" in m:
        ready = "started" if m.get("executors_ready") else "not all started (the batches start the rest)"
        out.print(f"  executors {ready} in {m['executor_start_s']:.0f} s before the query "
                  "(not in the warm-up)", highlight=False)
    if "first_batch_end_s" in m:
        parts = [f"before Spark {m['before_spark_s']:.1f} s (imports, plan, prediction)"] if "before_spark_s" in m \
            else []
        parts += [f"Spark driver {m['session_start_s']:.1f} s"] if "session_start_s" in m else []
        parts += [f"executors {m['executor_start_s']:.1f} s"] if "executor_start_s" in m else []
        parts += [f"query to the end of its first micro-batch with rows {m['first_batch_end_s']:.1f} s (the batch "
                  f"itself {m['first_batch_s']:.1f} s)"]
        out.print(f"  start: {', '.join(parts)}: it ended {m['launch_to_first_batch_s']:.1f} s after `run` was "
                  "launched", highlight=False)
    ops = Table(title="per operator (measured)")
    for col in ("operator", "in/s", "out/s", "cores busy", "ms per tuple"):
        ops.add_column(col, justify="right" if col != "operator" else "left")
    for name, o in result.operators.items():
        ops.add_row(name, fmt(o["input_per_s"]), fmt(o["output_per_s"]), fmt(o["busy_cores"]),
                    fmt(o["cost_ms_measured"]))
    out.print(ops)


def spark_instance(topo: str, cluster: str) -> tuple[Topology, Cluster]:
    """The instance a Spark command runs (workflows.run.runnable_instance), its warnings printed."""
    return runnable_instance(topo, cluster, on_warning=warn, where=topo)
