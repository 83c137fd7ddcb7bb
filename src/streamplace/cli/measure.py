"""Measuring on Spark: `streamplace calibrate` (the Spark engine model's constants) and `streamplace profile`
(each operator's cost, written as a profile)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from streamplace.cli._common import (
    CoresOpt,
    JsonOpt,
    StateOpt,
    TopoArg,
    app,
    emit_json,
    err,
    friendly,
    out,
    progress_bar,
    spark_session,
)
from streamplace.report.compare import fmt
from streamplace.workflows import measure
from streamplace.workflows.cluster import cluster_at
from streamplace.workflows.instance import load_topology


@app.command("calibrate")
@friendly
def calibrate_cmd(
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="calibration file to write (default: "
                                                  "~/.streamplace/calibration.json, which --engine spark reads)")]
    = None,
    cores: CoresOpt = None,
    master: Annotated[str | None, typer.Option("--master", help="Spark master URL (default: local); a cluster "
                                               "started by `streamplace cluster up`")] = None,
    state_dir: StateOpt = None,
    batches: Annotated[int, typer.Option("--batches", min=1, help="measured batches per probe")] = 3,
    as_json: JsonOpt = False,
) -> None:
    """Measure the Spark engine model's constants on this machine (or a standalone cluster) in about 2 minutes.

    Fixed time per micro-batch, per stage and per task, and the per-tuple cost of the rate source, of a shuffle
    hop and of a sink, fitted by least squares on back-to-back micro-batches of pass-through chains.
    Example: streamplace calibrate --cores 2
    """
    import os

    state = cluster_at(master, state_dir)
    n = cores or os.cpu_count() or 2
    spark = spark_session(master, state, cores)
    with progress_bar("calibrating: {task.description}", "", disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task("starting", total=None)
        done = measure.calibrate(spark, n, batches, out_file,
                                 progress=lambda what: bar.update(task, description=what))
    cal, path = done.calibration, done.path
    if as_json:
        emit_json(measure.calibration_document(done))
        return
    table = Table(title=f"Spark engine constants on {spark.sparkContext.master} (R² {cal.r2:.3f}, "
                        f"{cal.seconds:.0f} s)")
    table.add_column("constant")
    table.add_column("value", justify="right")
    for key, label in (("batch_s", "fixed time per micro-batch (s)"), ("stage_s", "per stage (s)"),
                       ("task_s", "per task (s)"), ("hop_us", "per tuple behind a shuffle (µs)"),
                       ("source_us", "per tuple at the rate source (µs)"), ("sink_us", "per tuple at a sink (µs)"),
                       ("jvm_cores", "cores Spark's own threads take from full nodes")):
        table.add_row(label, f"{getattr(cal.constants, key):.4g}")
    out.print(table)
    out.print(f"wrote {path} (used by --engine spark; --calibration FILE to choose another)")


@app.command("profile")
@friendly
def profile_cmd(
    topo: TopoArg,
    out_file: Annotated[Path, typer.Option("--out", "-o", help="profile file to write (YAML; .json for JSON)")]
    = Path("profile.yaml"),
    cores: CoresOpt = None,
    trigger: Annotated[float, typer.Option("--trigger", min=0.1, help="micro-batch interval the profile is for (s); "
                                           "MET counts each batch's fixed cost against it")] = 5.0,
    node_type: Annotated[str, typer.Option("--node-type", help="node type the entries are for")] = "local",
    operator: Annotated[list[str] | None, typer.Option("--operator", help="profile only these (repeatable)")] = None,
    batches: Annotated[int, typer.Option("--batches", min=1, help="measured batches per size")] = 4,
    as_json: JsonOpt = False,
) -> None:
    """Measure each operator alone on local Spark at increasing batch sizes; fit e and MET; write a profile.

    Example: streamplace profile nasiri-linear --cores 2 -o linear-profile.yaml
    """
    import os

    t = load_topology(topo)
    n = cores or os.cpu_count() or 2
    todo = measure.operators_to_profile(t, operator)
    spark = spark_session(None, None, n)
    with progress_bar("profiling {task.description}", "{task.completed:.0f}/{task.total:.0f} operators",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(t.name, total=len(todo))
        seen: list[str] = []

        def step(op_id: str) -> None:
            if seen:
                bar.advance(task)
            seen.append(op_id)
            bar.update(task, description=f"{t.name}: {op_id}")

        done = measure.profile(spark, t, n, out_file, trigger, node_type, operator, batches, progress=step)
        bar.update(task, completed=len(todo))
    doc, fits = done.document, done.fits
    if as_json:
        emit_json(doc)
        return
    table = Table(title=f"{t.name} on local[{n}] (trigger {trigger:g} s) → {out_file}")
    for col in ("operator", "spec e (ms)", "measured e (ms)", "MET (points)", "α", "R²"):
        table.add_column(col, justify="left" if col == "operator" else "right")
    for f in fits:
        table.add_row(f.operator, fmt(t.op(f.operator).cost_ms), fmt(f.cost_ms), fmt(f.overhead),
                      fmt(f.selectivity), fmt(f.r2))
    out.print(table)
