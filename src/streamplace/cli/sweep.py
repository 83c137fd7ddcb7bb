"""`streamplace sweep` (every topology × cluster × scheduler × scale × seed planned and predicted as Spark
tasks, written to Parquet) and `streamplace report` (its HTML summary)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamplace.cli._common import (
    CalibrationOpt,
    EngineOpt,
    EngineParamOpt,
    JsonOpt,
    StateOpt,
    app,
    command_flags,
    emit_json,
    err,
    friendly,
    list_option,
    out,
    parse_params,
    progress_bar,
    spark_session,
)
from streamplace.errors import ModelError, Problem
from streamplace.workflows import cluster as clusters_wf
from streamplace.workflows import measure
from streamplace.workflows.instance import RUNTIME_ENGINE


def _numbers(text: str, option: str, integer: bool) -> list[float]:
    """A comma list, or START:STOP:COUNT (numpy's linspace: evenly spaced, both ends included); finite numbers."""
    import numpy as np

    try:
        if ":" in text:
            a, b, n = text.split(":")
            count = int(n)
            if count < 1:
                raise ValueError
            values = [float(v) for v in np.linspace(float(a), float(b), count)]
        else:
            values = [float(x) for x in list_option(text, option)]
        if not np.isfinite(values).all():
            raise ValueError
    except ValueError:
        raise ModelError([Problem(option, f"cannot read {text!r}", "write a comma list (0.5,1,2) or "
                                  "START:STOP:COUNT (0.5:4:8)")]) from None
    return [float(int(v)) if integer else v for v in values]


@app.command("sweep")
@friendly
def sweep_cmd(
    topologies: Annotated[list[str], typer.Option("--topologies", "-t", help="topology specs or built-ins (comma "
                                                  "list, repeatable)")],
    clusters: Annotated[list[str], typer.Option("--clusters", "-c", help="cluster specs, built-ins, racks-RxN "
                                                "(comma list, repeatable)")],
    schedulers: Annotated[list[str] | None, typer.Option("--schedulers", "-s", help="schedulers (comma list, "
                                                         "repeatable; default round-robin,r-storm,ffd,ds2,hetero)")]
    = None,
    scales: Annotated[str, typer.Option("--scales", help="source-rate multipliers: comma list or START:STOP:COUNT")]
    = "1",
    seeds: Annotated[str, typer.Option("--seeds", help="seeds for randomized schedulers: comma list or "
                                       "START:STOP:COUNT")] = "0",
    out_dir: Annotated[Path, typer.Option("--out", help="Parquet directory to write (overwritten)")]
    = Path("sweep.parquet"),
    master: Annotated[str | None, typer.Option("--master", help="Spark master (default local[all cores])")] = None,
    state_dir: StateOpt = None,
    partitions: Annotated[int | None, typer.Option("--tasks", min=1, help="Spark tasks (default: 4 per core, "
                                                   "at most 400)")] = None,
    as_json: JsonOpt = False,
    engine: EngineOpt = RUNTIME_ENGINE,
    calibration: CalibrationOpt = None,
    param: EngineParamOpt = None,
) -> None:
    """Plan and predict every topology × cluster × scheduler × scale × seed as Spark tasks; write Parquet.

    Example: streamplace sweep -t linear-cpu,diamond-cpu -c hetero-3,hetero-12 --scales 0.5:4:8 --out sweep.parquet
    """
    command_flags(schedulers="--schedulers", topologies="--topologies", clusters="--clusters")
    topo_names, cluster_names = list_option(topologies, "--topologies"), list_option(clusters, "--clusters")
    sched_names = list_option(schedulers or ["round-robin,r-storm,ffd,ds2,hetero"], "--schedulers")
    setup = measure.prepare_sweep(topo_names, cluster_names, sched_names, _numbers(scales, "--scales", False),
                                  [int(v) for v in _numbers(seeds, "--seeds", True)], engine, calibration,
                                  parse_params(param))
    state = clusters_wf.cluster_at(master, state_dir)
    spark = spark_session(master, state, None)
    with progress_bar("sweep {task.description}", "{task.completed}/{task.total} tasks",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{len(setup.instances):,} instances", total=None)
        run = measure.sweep(spark, setup, out_dir, partitions,
                            progress=lambda done, total: bar.update(task, completed=done, total=total))
    if as_json:
        emit_json({"path": run.path, "instances": run.instances, "tasks": run.tasks, "seconds": run.seconds,
                   "per_second": run.per_second, "statuses": run.statuses})
        return
    out.print(f"{run.instances:,} instances in {run.seconds:.1f} s ({run.per_second:,.0f}/s, {run.tasks} Spark "
              f"tasks on {spark.sparkContext.master}); statuses: "
              + ", ".join(f"{k} {v:,}" for k, v in sorted(run.statuses.items())))
    out.print(f"wrote {run.path}  (summary: streamplace report {run.path})")


@app.command("report")
@friendly
def report_cmd(
    sweep: Annotated[Path, typer.Argument(help="a sweep's Parquet directory")],
    html_out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write")] = Path("sweep-report.html"),
    as_json: JsonOpt = False,
) -> None:
    """Build an HTML summary (tables and a plot) of a sweep.

    Example: streamplace report sweep.parquet -o sweep.html
    """
    # lazy: command-line start (jinja2, pandas)
    from streamplace.report.sweep import write_sweep_report

    path = write_sweep_report(sweep, html_out)
    if as_json:
        emit_json({"html": str(path), "plot": str(path.with_suffix(".png"))})
        return
    out.print(f"wrote {path} and {path.with_suffix('.png')}")
