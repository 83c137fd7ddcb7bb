"""Planning commands: plan, evaluate, compare, schedulers, import-flux and bench list; the plan and prediction
tables, placement pictures, and the record of a plan's profile."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.core import ParameterSource

from streamplace.cli._common import (
    CalibrationOpt,
    ClusterArg,
    EngineOpt,
    JsonOpt,
    ParamOpt,
    PictureOpt,
    ProfileOpt,
    TopoArg,
    app,
    bench_app,
    command_flags,
    emit_json,
    friendly,
    info,
    list_option,
    load_instance,
    out,
    parse_params,
    warn,
)
from streamplace.errors import ModelError, Problem
from streamplace.files import replace_whole, write_whole
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan, jsonable
from streamplace.model.topology import Topology
from streamplace.workflows import planning
from streamplace.workflows.instance import (
    DEFAULT_ENGINE,
    engine_and_rest,
    engine_of,
    engine_settings,
    engine_summary,
)

if TYPE_CHECKING:
    from rich.table import Table

    from streamplace.perf.evaluate import Evaluation


def _table(*args: Any, **kwargs: Any) -> Table:
    """A rich Table (rich is imported where a table is printed: ``plan --json`` prints none)."""
    from rich.table import Table  # the command-line start

    return Table(*args, **kwargs)


def print_plan(plan: Plan) -> None:
    colour = {"ok": "green", "timeout": "yellow", "infeasible": "red"}[plan.status]
    out.print(f"[bold]{plan.scheduler}[/] on {plan.topology} × {plan.cluster}: [{colour}]{plan.status}[/] "
              f"in {plan.planning_ms:.1f} ms")
    for line in plan.explanation:
        out.print(f"  [{colour}]•[/] {line}", highlight=False)
    for line in plan.warnings:
        out.print(f"  [yellow]note:[/] {line}", highlight=False)
    if plan.status == "infeasible" and not plan.replicas:
        return
    if plan.status != "infeasible":
        rates = ", ".join(f"{k} {v:,.6g} t/s" for k, v in plan.source_rates.items())
        out.print(f"  source rates: {rates}" + ("  (the highest the plan sustains)" if planning.chooses_parallelism(
            plan.scheduler) else ""), highlight=False)
    table = _table(title="replicas" if plan.status != "infeasible" else "replicas (breaking the constraints above)",
                  show_lines=False)
    table.add_column("operator")
    table.add_column("replicas", justify="right")
    table.add_column("nodes")
    for op, per in plan.replicas.items():
        nodes = ", ".join(f"{n}×{c}" if c > 1 else n for n, c in per.items())
        table.add_row(op, str(sum(per.values())), nodes if len(nodes) < 90 else nodes[:87] + "…")
    out.print(table)
    if plan.status != "infeasible":
        print_prediction(plan.predicted, plan.scheduler)


def print_prediction(pred: Any, scheduler: str) -> None:
    from streamplace.report.compare import fmt  # lazy: command-line start (a table's rendering)

    engine = engine_of(pred)
    table = _table(title=f"predicted ({engine} engine)", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in ("sustainable_scale", "bottleneck", "throughput", "offered_throughput", "delivered_throughput",
                "latency_ms", "latency_mean_ms", "nodes_used", "max_utilization", "mean_utilization",
                "availability", "cost", "cost_per_hour", "inter_node_traffic", "network_usage", "elastic_energy"):
        table.add_row(key, fmt(pred.get(key)))
    score = pred.get("latency_score") or {}
    if score:
        table.add_row("latency-aware score", fmt(score.get("score")))
        table.add_row("constraint violations", fmt(score.get("violations")))
    for label, value in engine_summary(pred):  # none for a plan file's engine not registered here
        table.add_row(label, fmt(value))
    # none for a plan file's scheduler not registered here
    for label, value in planning.scheduler_summary(scheduler, pred):
        table.add_row(label, fmt(value))
    out.print(table)


@app.command()
@friendly
def plan(
    topo: TopoArg,
    cluster: ClusterArg,
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler name (see `streamplace schedulers`)")]
    = planning.DEFAULT_SCHEDULER,
    param: ParamOpt = None,
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="write the plan JSON to this file")] = None,
    engine: EngineOpt = DEFAULT_ENGINE,
    calibration: CalibrationOpt = None,
    picture: PictureOpt = None,
) -> None:
    """Plan a topology on a cluster with one scheduler.

    Example: streamplace plan --scheduler r-storm --json linear rstorm-12 --picture plan.svg
    """
    check_picture(picture)
    t, c, p = load_instance(topo, cluster, profile)
    eng, params = engine_and_rest(engine, parse_params(param), calibration, cluster=c)
    result = planning.plan(t, c, scheduler, params=params, profile=p, profile_path=profile, engine=eng)
    text = result.to_json() if out_file is not None or as_json else ""
    if out_file is not None:
        write_whole(out_file, text + "\n")
    if as_json:
        sys.stdout.write(text + "\n")
    else:
        print_plan(result)
        if out_file is not None:
            info(f"plan written to {out_file}")
    if picture is not None:
        if result.status == "infeasible":
            warn(f"no picture written to {picture}: the plan is infeasible")
        else:
            draw_picture(t, c, result, planning.evaluate(t, c, result, profile=p, engine=eng), picture, quiet=as_json)
    if result.status == "infeasible":
        raise typer.Exit(1)


@app.command("evaluate")
@friendly
def evaluate_cmd(
    ctx: typer.Context,
    topo: TopoArg,
    cluster: ClusterArg,
    plan_file: Annotated[Path, typer.Argument(help="plan JSON (as written by `plan --out`)")],
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
    engine: EngineOpt = DEFAULT_ENGINE,
    calibration: CalibrationOpt = None,
    param: ParamOpt = None,
    picture: PictureOpt = None,
    over_time: Annotated[float | None, typer.Option("--over-time", help="also step the plan through this many "
                                                    "seconds of Storm (the time model: queues, acking, time-outs, "
                                                    "replays, max spout pending; implies --engine storm)")] = None,
    load: Annotated[float | None, typer.Option("--load", help="with --over-time: the sources at this multiple of "
                                               "the offered rate (default 1)")] = None,
    at_capacity: Annotated[float | None, typer.Option("--at-capacity", help="with --over-time: the sources at this "
                                                      "multiple of the rate the steady state sustains, e.g. 1.5")]
    = None,
    series: Annotated[Path | None, typer.Option("--series", help="with --over-time: write the per-second series "
                                                "(.csv or .parquet)")] = None,
) -> None:
    """Predict every metric of a given plan; with --over-time, what it does over time (at --load or --at-capacity).

    Example: streamplace evaluate linear-cpu rstorm-12 plan.json --picture plan.svg

    What-if: streamplace evaluate linear-net rstorm-12 plan.json --over-time 300 --at-capacity 1.5
    """
    check_picture(picture)
    if over_time is not None:
        engine_given = ctx.get_parameter_source("engine") is not ParameterSource.DEFAULT
        evaluate_over_time(topo, cluster, plan_file, profile, as_json, engine if engine_given else None, param,
                           over_time, load, at_capacity, series, picture)
        return
    given = [flag for flag, value in (("--load", load), ("--at-capacity", at_capacity), ("--series", series))
             if value is not None]
    if given:
        raise ModelError([Problem(given[0], "only with --over-time", f"add --over-time SECONDS, e.g. 300, or drop "
                                  f"{given[0]}")])
    t, c, p = load_instance(topo, cluster, profile)
    eng = engine_settings(engine, calibration, cluster=c)
    done = planning.predict(t, c, plan_file, profile=p, profile_path=profile, engine=eng, params=parse_params(param),
                            on_warning=warn)
    if as_json:
        emit_json(prediction_doc(plan_file, done))
    else:
        print_evaluated(plan_file, done)
    if picture is not None:
        draw_picture(t, c, done.plan, done.evaluation, picture, quiet=as_json)


def prediction_doc(plan_file: Path, done: planning.Prediction) -> dict[str, Any]:
    """What `evaluate --json` prints of a prediction: the instance, the plan file, the figures, the warnings."""
    inst = done.instance
    return {"topology": inst.topology.name, "cluster": inst.cluster.name, "plan": str(plan_file),
            "predicted": jsonable(done.predicted()), **({"warnings": done.notes} if done.notes else {})}


def print_evaluated(plan_file: Path, done: planning.Prediction) -> None:
    """A prediction as `evaluate` prints it: the plan on its instance, the notes, the figures."""
    inst = done.instance
    out.print(f"[bold]{plan_file}[/] ({done.plan.scheduler}) on {inst.topology.name} × {inst.cluster.name}")
    for line in done.notes:
        out.print(f"  [yellow]note:[/] {line}", highlight=False)
    print_prediction(done.predicted(), done.plan.scheduler)


def evaluate_over_time(topo: str, cluster: str, plan_file: Path, profile: Path | None, as_json: bool,
                       engine: str | None,
                       param: list[str] | None, seconds: float, load: float | None, at_capacity: float | None,
                       series: Path | None, picture: Path | None) -> None:
    """`evaluate --over-time`: the steady-state storm prediction, then the time model's run beside it."""
    # lazy: command-line start (the time model)
    from streamplace.workflows.over_time import OVER_TIME_ENGINE, storm_over_time

    if engine is not None and engine != OVER_TIME_ENGINE:  # None: --engine not given
        raise ModelError([Problem("engine", f"--over-time steps Storm's executors, not the {engine} engine's",
                                  f"drop --engine or give --engine {OVER_TIME_ENGINE}")])
    command_flags(duration_s="--over-time", load="--load", at_capacity="--at-capacity", series="--series")
    # the specs as given: the prediction loads them (its warnings printed) and checks the profile against the plan's
    done = storm_over_time(topo, cluster, plan_file, seconds, load=load, at_capacity=at_capacity, profile=profile,
                           params=parse_params(param), series=series, on_warning=warn)
    pr = done.prediction
    if as_json:
        emit_json(prediction_doc(plan_file, pr) | {"over_time": jsonable(done.as_dict())})
    else:
        print_evaluated(plan_file, pr)
        print_over_time(done.as_dict())
        if series is not None:
            info(f"series written to {series}")
    if picture is not None:
        inst = pr.instance
        draw_picture(inst.topology, inst.cluster, pr.plan, pr.evaluation, picture, quiet=as_json)


def print_over_time(d: dict[str, Any]) -> None:
    """The time model's run as a table: what the sinks got against what the steady state says."""
    st = d["settings"]
    pending = "none" if st["max_spout_pending"] is None else f"{st['max_spout_pending']}"
    of_capacity = f", {d['load'] / d['capacity']:.3g} × capacity" if d["capacity"] > 0 else ""
    table = _table(title=f"over time ({d['duration_s']:g} s of Storm, sources at {d['load']:.3g} × the offered "
                         f"rate{of_capacity}; means over the second half)", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    latency = "—" if d["latency_ms"] is None else f"{d['latency_ms']:,.1f}"
    for label, value in (("offered (sink tuples/s)", f"{d['offered']:,.1f}"),
                         ("steady state (sink tuples/s)", f"{d['steady_state']:,.1f}"),
                         ("throughput (sink tuples/s, timed-out included)", f"{d['throughput']:,.1f}"),
                         ("goodput (completed within the time-out)", f"{d['goodput']:,.1f}"),
                         ("complete latency (ms)", latency),
                         ("failed / replayed (root tuples/s)", f"{d['failed']:,.1f} / {d['replayed']:,.1f}"),
                         ("queued at the end (tuples)", f"{d['queued_end']:,.0f}"),
                         ("starving (goodput < 1 %)", "yes" if d["starving"] else "no"),
                         ("max spout pending / time-out", f"{pending} / {st['timeout_s']:g} s"),
                         ("step", f"{st['dt_s']:g} s")):
        table.add_row(label, value)
    out.print(table)


def check_picture(path: Path | None) -> None:
    """Refuse, before any work, a --picture path matplotlib cannot write (format, directory)."""
    if path is not None:
        # lazy: matplotlib
        from streamplace.report.plots import check_plot_path

        check_plot_path(path, "--picture")


def draw_picture(t: Topology, c: Cluster, plan: Plan, ev: Evaluation, path: Path, quiet: bool = False) -> None:
    """Write the placement picture (report/placement.py) of ``plan``, evaluated as ``ev``, whole or not at all."""
    # lazy: matplotlib
    from streamplace.report.placement import write_placement

    replace_whole(path, lambda tmp: write_placement(t, c, plan, ev, tmp))
    if not quiet:
        info(f"picture written to {path}")


@app.command("compare")
@friendly
def compare_cmd(
    topo: TopoArg,
    cluster: ClusterArg,
    scheduler: Annotated[list[str] | None, typer.Option("--scheduler", "-s", help="only these (comma list, "
                                                        "repeatable)")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="SCHEDULER.key=value (repeatable)")]
    = None,
    profile: ProfileOpt = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="write a PNG bar chart here")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="write an HTML report here: the table, the chart and "
                                              "every plan's placement picture side by side")] = None,
    time_limit: Annotated[float, typer.Option("--time-limit", help="seconds per scheduler")] = 30.0,
    as_json: JsonOpt = False,
    engine: EngineOpt = DEFAULT_ENGINE,
    calibration: CalibrationOpt = None,
    wide: Annotated[bool, typer.Option("--wide", help="also mean utilization, cost per hour and planning time "
                                       "(wider than 100 columns)")] = False,
    counts_from: Annotated[str | None, typer.Option("--counts-from", help="placement-only schedulers place this "
                                                    "scheduler's replica counts (e.g. hetero, as Nasiri et al. "
                                                    "compare)")] = None,
) -> None:
    """Run every registered scheduler on one instance and compare the predictions.

    Example: streamplace compare diamond-cpu rstorm-12 --plot compare.png
    """
    if plot is not None:
        # lazy: matplotlib
        from streamplace.report.plots import check_plot_path

        check_plot_path(plot)
    if html is not None and not html.parent.is_dir():
        raise ModelError([Problem("--html", f"directory {html.parent} does not exist", "create it first")],
                         str(html))
    # lazy: command-line start (rich, the comparison's table and report)
    from streamplace.cli.comparison import print_comparison, run_comparison

    t, c, p = load_instance(topo, cluster, profile)
    eng, params = engine_and_rest(engine, parse_params(param), calibration, cluster=c)
    chosen = list_option(scheduler, "--scheduler") if scheduler else None
    rows = run_comparison(t, c, p, chosen, params, quiet=as_json, time_limit=time_limit, engine=eng,
                          counts_from=counts_from)
    if plot is not None:
        # lazy: matplotlib
        from streamplace.report.plots import plot_comparison

        plot_comparison(rows, plot, f"{t.name} on {c.name}")
    if html is not None:
        planning.write_compare_report(t, c, p, eng, rows, html, plot)
    if as_json:
        emit_json(jsonable({"topology": t.name, "cluster": c.name, "engine": eng.name, "engine_params": eng.describe(),
                          "rows": [r.as_dict() for r in rows]}))
        return
    print_comparison(rows, f"{t.name} on {c.name} ({eng.name} engine)", wide=wide)
    if plot is not None:
        info(f"plot written to {plot}")
    if html is not None:
        info(f"report written to {html}")


@app.command("schedulers")
@friendly
def schedulers_cmd(as_json: JsonOpt = False) -> None:
    """List the registered schedulers and their parameters.

    Example: streamplace schedulers
    """
    found = planning.schedulers()
    if as_json:
        emit_json([dataclasses.asdict(s) for s in found])
        return
    table = _table(title="schedulers")
    table.add_column("name")
    table.add_column("what it does")
    table.add_column("parameters (default)")
    for s in found:
        table.add_row(s.name, s.summary, ", ".join(f"{k}={v}" for k, v in s.parameters.items()))
    out.print(table)


@bench_app.command("list")
@friendly
def bench_list(as_json: JsonOpt = False) -> None:
    """Show the built-in topologies and clusters usable wherever a spec path is.

    Example: streamplace bench list
    """
    rows = planning.builtins()
    if as_json:
        emit_json([{"kind": k, "name": n, "description": d} for k, n, d in rows])
        return
    table = _table(title="built-in benchmarks")
    table.add_column("kind")
    table.add_column("name")
    table.add_column("description")
    for row in rows:
        table.add_row(*row)
    out.print(table)


@app.command("import-flux")
@friendly
def import_flux(
    flux_file: Annotated[Path, typer.Argument(help="Storm Flux YAML topology")],
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="write the topology spec here")] = None,
    rate: Annotated[float, typer.Option(help="offered rate per spout (Flux has none), tuples/s")] = 1000.0,
    custom_as_shuffle: Annotated[bool, typer.Option("--custom-as-shuffle", help="plan CUSTOM groupings as "
                                                    "shuffle (else they are refused: the model cannot route by "
                                                    "a user's Java class)")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Convert a Storm Flux YAML topology into a streamplace topology spec.

    Example: streamplace import-flux examples/flux-wordcount.yaml --out wordcount.yaml
    """
    done = planning.import_flux(flux_file, rate, custom_as_shuffle, as_json)
    for note in done.notes:
        warn(note + " (--custom-as-shuffle)")
    text, topo = done.text, done.topology
    if out_file is None:
        sys.stdout.write(text)
    else:
        write_whole(out_file, text)
        info(f"topology {topo.name!r} ({len(topo.operators)} operators, {topo.total_replicas()} replicas) "
             f"written to {out_file}")
