"""Measuring on Spark: `streamplace calibrate` (the Spark engine model's constants) and `streamplace profile`
(each operator's cost, written as a profile)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from streamplace.bench import resolve_topology
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
from streamplace.errors import ModelError, Problem
from streamplace.files import write_whole
from streamplace.report.compare import fmt


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

    from streamplace.spark.cluster.state import state_at
    from streamplace.spark.measure.calibration import calibrate, default_path, measured_block, write_calibration

    state = state_at(master, state_dir)
    n = cores or os.cpu_count() or 2
    spark = spark_session(master, state, cores)
    with progress_bar("calibrating: {task.description}", "", disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task("starting", total=None)
        cal = calibrate(spark, n, batches, progress=lambda what: bar.update(task, description=what))
    path = write_calibration(out_file or default_path(), cal.constants,
                             measured_block(cal, spark.sparkContext.master, n))
    if as_json:
        emit_json(json.loads(path.read_text(encoding="utf-8")) | {"path": str(path)})
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

    import yaml

    from streamplace.spark.measure.profiler import profile_document, profile_topology

    t = resolve_topology(topo)
    unknown = sorted(set(operator or ()) - {o.id for o in t.operators})
    if unknown:
        raise ModelError([Problem("--operator", f"no operator {', '.join(unknown)} in {t.name}",
                                  f"use one of {', '.join(o.id for o in t.operators)}")])
    n = cores or os.cpu_count() or 2
    spark = spark_session(None, None, n)
    todo = [o.id for o in t.operators if not operator or o.id in operator]
    with progress_bar("profiling {task.description}", "{task.completed:.0f}/{task.total:.0f} operators",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(t.name, total=len(todo))
        seen: list[str] = []

        def step(op_id: str) -> None:
            if seen:
                bar.advance(task)
            seen.append(op_id)
            bar.update(task, description=f"{t.name}: {op_id}")

        profile, fits = profile_topology(spark, t, n, trigger, node_type, batches, operator, progress=step)
        bar.update(task, completed=len(todo))
    doc = profile_document(profile, fits, n, trigger)
    text = json.dumps(doc, indent=2) if out_file.suffix == ".json" else yaml.safe_dump(doc, sort_keys=False)
    write_whole(out_file, text)
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
