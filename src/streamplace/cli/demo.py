"""`streamplace demo`: the product's job on a built-in instance — compare every scheduler, enact the best plan on
the cluster emulated here (the run workflow, workflows/run.py) or on local Spark, write an HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from streamplace.cli._common import (
    CalibrationOpt,
    EngineOpt,
    JsonOpt,
    PagePortOpt,
    app,
    emit_json,
    err,
    friendly,
    info,
    load_instance,
    out,
    progress_bar,
    spark_session,
    warn,
)
from streamplace.cli.comparison import print_comparison
from streamplace.cli.run import page_opener, print_run, run_progress
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan, jsonable
from streamplace.model.topology import Topology
from streamplace.workflows import planning
from streamplace.workflows.instance import DEFAULT_ENGINE, RUNTIME_ENGINE, engine_settings

if TYPE_CHECKING:
    from streamplace.perf.engines import EngineSettings


@app.command()
@friendly
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="directory for the report")] = Path("demo-report"),
    topo: Annotated[str, typer.Option(help="topology (built-in name or spec)")] = "linear-cpu",
    cluster: Annotated[str, typer.Option(help="cluster (built-in name or spec)")] = "hetero-3",
    time_limit: Annotated[float, typer.Option("--time-limit", help="seconds per scheduler")] = 10.0,
    spark_seconds: Annotated[float, typer.Option("--spark-seconds", min=0, help="seconds the chosen plan's "
                                                 "pipeline is measured on Spark (0: skip)")] = 30.0,
    on: Annotated[str, typer.Option("--on", help="cluster: start the cluster on this machine (`cluster up`, a "
                                    "CPU quota per node where cgroups allow) and run the plan with every replica "
                                    "on its node, then stop it; local: the plan's replica counts on local Spark")]
    = "cluster",
    cores: Annotated[int | None, typer.Option("--cores", help="local[N] for --on local (default: all)")] = None,
    engine: EngineOpt = DEFAULT_ENGINE,
    calibration: CalibrationOpt = None,
    page_port: PagePortOpt = 0,
    as_json: JsonOpt = False,
) -> None:
    """The product's job on a built-in instance: compare every scheduler, then enact the best plan on the cluster.

    Plans a heterogeneous cluster with every scheduler and draws each plan; starts that cluster on this machine
    (one Spark worker per node, CPU quotas where cgroups allow), runs the plan with the highest predicted
    throughput with every replica on its planned node (its live page's URL printed), prints measured beside
    predicted, stops the cluster, and writes an HTML report. Example: streamplace demo --out demo-report
    """
    # lazy: command-line start (jinja2)
    from streamplace.workflows import demo as demo_lib

    demo_lib.check_target(on)
    t, c, p = load_instance(topo, cluster, None)
    eng = engine_settings(engine, calibration, cluster=c)
    with progress_bar("{task.description}", "{task.completed}/{task.total}", disable=as_json) as progress:
        task = progress.add_task("planning", total=len(planning.schedulers()))
        rep = demo_lib.compare_and_report(t, c, p, eng, time_limit, out_dir, on_done=lambda n: progress.update(
            task, advance=1, description=f"planned {n}"))
    rows, best, png = rep.rows, rep.best, rep.chart
    if not as_json:
        print_comparison(rows, rep.title)
        if best is not None:
            info(f"picture written to {out_dir / 'best-plan.svg'}")
    report = out_dir / "report.html"  # the comparison is kept whatever happens to the Spark part
    spark_json: dict[str, Any] | None = None
    if spark_seconds > 0 and best is not None and best.plan is not None:
        if on == "local":
            import os

            run = _demo_spark_run(t, best.plan, cores or os.cpu_count() or 2, spark_seconds, out_dir / "spark-run",
                                  engine_settings(RUNTIME_ENGINE, calibration), as_json)
            rep.sections.append(run.section)
            spark_json = {"on": "local", "rows": [dict(zip(("quantity", "predicted", "measured", "ratio"), r,
                                                           strict=True)) for r in run.rows],
                          "agrees": run.agrees, "verdict": run.verdict}
        else:
            section, spark_json = _demo_on_cluster(t, c, best.plan, spark_seconds, out_dir, calibration, page_port,
                                                   as_json)
            rep.sections.append(section)
        report = rep.write()
    if as_json:
        emit_json(jsonable({"report": str(report), "plot": str(png), "topology": t.name, "cluster": c.name,
                          "engine": eng.name, "run": best.scheduler if spark_json is not None and best else None,
                          "spark_run": spark_json, "rows": [r.as_dict() for r in rows]}))
        return
    info(f"report written to {report}")


def _demo_on_cluster(t: Topology, c: Cluster, plan: Plan, seconds: float, out_dir: Path, calibration: Path | None,
                     page_port: int, as_json: bool) -> tuple[Any, dict[str, Any]]:
    """The demo's run of ``plan`` on ``c`` emulated here (workflows.demo.run_on_cluster) with its spinner,
    progress bar and live page; prints the run's table and the verdict."""
    # lazy: command-line start (jinja2)
    from streamplace.workflows import demo as demo_lib

    def starting(label: str) -> Any:
        bar = progress_bar("{task.description}", "", disable=as_json or not err.is_terminal)
        bar.add_task(label, total=None)
        return bar

    with run_progress(f"{t.name} ({plan.scheduler} plan)", disable=as_json) as progress:
        ran = demo_lib.run_on_cluster(
            t, c, plan, seconds, out_dir, calibration, progress=progress, starting=starting,
            session=lambda state, log_to: spark_session(state.master_url, state, None, log_to),
            open_page=page_opener(True, page_port), on_warning=warn,
            on_info=lambda text: None if as_json else info(text, stderr=True))
    if not as_json:
        print_run(ran.done.result, t, ran.run_plan, ran.master_url, seconds, ran.done.here)
        info(ran.verdict)
    return ran.section, ran.document


def _demo_spark_run(t: Topology, plan: Plan, cores: int, seconds: float, out_dir: Path, engine: EngineSettings,
                    as_json: bool) -> Any:
    """The demo's Spark run (demo.run_best) with a progress bar and Spark's log in ``out_dir``; prints its table."""
    # lazy: command-line start (jinja2)
    from streamplace.workflows import demo as demo_lib

    with progress_bar("{task.description}", "{task.completed:.0f}/{task.total:.0f} s",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task("starting Spark", total=demo_lib.WARMUP_S + seconds)
        spark = spark_session(None, None, cores, out_dir / "spark.log")
        bar.update(task, description=f"running the {plan.scheduler} plan on local[{cores}]")

        def advance(done: float) -> None:  # the run may be longer than asked: whole batches, 3 triggers at least
            bar.update(task, completed=done, total=max(done, bar.tasks[0].total or 0))

        run = demo_lib.run_best(spark, t, plan, cores, seconds, out_dir, engine, progress=advance)
    if as_json:
        return run
    table = Table(title=f"{plan.scheduler} plan on local Spark ({cores} cores), "
                        f"{run.check.result.duration_s:.0f} s measured")
    for col in ("quantity", "predicted (spark engine)", "measured", "measured / predicted"):
        table.add_column(col, justify="left" if col == "quantity" else "right")
    for r in run.rows:
        table.add_row(*r)
    out.print(table)
    info(run.verdict)
    return run
