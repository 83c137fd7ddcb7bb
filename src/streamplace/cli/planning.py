"""Planning commands: plan, evaluate, compare, schedulers, import-flux and bench list; the plan and prediction
tables, placement pictures, and the record of a plan's profile."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from streamplace.bench import list_builtins, resolve_profile
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
    emit_json,
    engine_settings,
    friendly,
    info,
    list_option,
    load_instance,
    out,
    parse_params,
    warn,
)
from streamplace.cli.comparison import compare_report, print_comparison, run_comparison
from streamplace.errors import ModelError, Problem
from streamplace.files import replace_whole, write_whole
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan, json_text, jsonable, validate_plan_against
from streamplace.model.topology import Topology
from streamplace.perf.engines import ENGINES, IdealEngine, recorded_params, split_engine_params
from streamplace.perf.evaluate import Evaluation, evaluate
from streamplace.report.compare import fmt
from streamplace.schedulers.base import REGISTRY, create, describe_parameters, parameter_ranges, scheduler_names
from streamplace.spec.loader import dump_topology, load_plan, read_document, topology_to_doc


def profile_record(path: Path) -> dict[str, str]:
    """What a plan records of the profile it was made with: its path and the SHA-256 of its bytes (of its JSON
    text for a built-in profile)."""
    import hashlib

    if not path.exists():  # a built-in profile by name
        built = resolve_profile(path)
        text = repr((built.entries, sorted(built.selectivity.items())))
        return {"path": str(path), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    return {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def profile_mismatch(pl: Plan, profile: Path | None) -> str | None:
    """Why evaluating ``pl`` with ``profile`` would not reproduce the plan's own prediction, or None."""
    made = pl.profile
    if made is None:
        return None if profile is None else (f"the plan was made without a profile; evaluating with {profile} "
                                             "predicts other costs than the plan's own figures")
    if profile is None:
        return (f"the plan was made with the profile {made.get('path')}; without --profile the topology's own "
                f"costs are used and the figures differ from the plan's (fix: --profile {made.get('path')})")
    if profile_record(profile)["sha256"] != made.get("sha256"):
        return (f"{profile} is not the profile the plan was made with ({made.get('path')}, whose contents "
                "differ): the figures differ from the plan's")
    return None


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
        out.print(f"  source rates: {rates}" + ("  (the highest the plan sustains)" if REGISTRY[plan.scheduler]
                                                .chooses_parallelism else ""), highlight=False)
    table = Table(title="replicas" if plan.status != "infeasible" else "replicas (breaking the constraints above)",
                  show_lines=False)
    table.add_column("operator")
    table.add_column("replicas", justify="right")
    table.add_column("nodes")
    for op, per in plan.replicas.items():
        nodes = ", ".join(f"{n}×{c}" if c > 1 else n for n, c in per.items())
        table.add_row(op, str(sum(per.values())), nodes if len(nodes) < 90 else nodes[:87] + "…")
    out.print(table)
    if plan.status != "infeasible":
        print_prediction(plan.predicted)


def print_prediction(pred: Any) -> None:
    engine = pred.get("engine", IdealEngine.name)
    table = Table(title=f"predicted ({engine} engine)", show_header=False)
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
    model = ENGINES.get(engine)  # None: a plan file's engine that is not registered here
    for label, value in model.summary_rows(pred.get("engine_detail") or {}) if model is not None else []:
        table.add_row(label, fmt(value))
    odrp = pred.get("odrp")
    if odrp:
        unit = odrp.get("z_unit", "tuples")
        for key, label in (("utility", "ODRP utility F"), ("response_ms", "ODRP response time (ms)"),
                           ("availability", "ODRP availability"), ("cost", "ODRP cost"),
                           ("inter_node_traffic", f"ODRP T ({unit}/s)"), ("network_usage", f"ODRP N ({unit}/s · ms)"),
                           ("elastic_energy", f"ODRP EE ({unit}/s · ms²)")):
            table.add_row(label, fmt(odrp.get(key)))
    out.print(table)


@app.command()
@friendly
def plan(
    topo: TopoArg,
    cluster: ClusterArg,
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler name (see `streamplace schedulers`)")]
    = "r-storm",
    param: ParamOpt = None,
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="write the plan JSON to this file")] = None,
    engine: EngineOpt = "spark",
    calibration: CalibrationOpt = None,
    picture: PictureOpt = None,
) -> None:
    """Plan a topology on a cluster with one scheduler.

    Example: streamplace plan --scheduler r-storm --json linear rstorm-12 --picture plan.svg
    """
    check_picture(picture)
    t, c, p = load_instance(topo, cluster, profile)
    engine_p, sched_p = split_engine_params(parse_params(param))
    eng = engine_settings(engine, calibration, engine_p, cluster=c)
    result = create(scheduler, sched_p).plan(t, c, p, engine=eng)
    if profile is not None:
        result = result.evolve(profile=profile_record(profile))
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
            draw_picture(t, c, result, evaluate(t, c, result, p, engine=eng), picture, quiet=as_json)
    if result.status == "infeasible":
        raise typer.Exit(1)


@app.command("evaluate")
@friendly
def evaluate_cmd(
    topo: TopoArg,
    cluster: ClusterArg,
    plan_file: Annotated[Path, typer.Argument(help="plan JSON (as written by `plan --out`)")],
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
    engine: EngineOpt = "spark",
    calibration: CalibrationOpt = None,
    param: ParamOpt = None,
    picture: PictureOpt = None,
) -> None:
    """Predict every metric of a given plan.

    Example: streamplace evaluate linear-cpu rstorm-12 plan.json --picture plan.svg
    """
    check_picture(picture)
    t, c, p = load_instance(topo, cluster, profile)
    pl = load_plan(plan_file)
    if pl.status == "infeasible":
        raise ModelError([Problem("status", "the plan is infeasible: " + "; ".join(pl.explanation[:3]),
                                  "plan again with another scheduler or a larger cluster")], str(plan_file))
    problems = validate_plan_against(pl, t, c)
    if problems:
        raise ModelError(problems, str(plan_file))
    engine_p, rest = split_engine_params(parse_params(param))
    if rest:
        raise ModelError([Problem("--param", f"evaluate takes engine parameters only, got {next(iter(rest))!r}",
                                  "write spark.KEY=VALUE or storm.KEY=VALUE")])
    eng = engine_settings(engine, calibration, engine_p, cluster=c)
    mismatch = profile_mismatch(pl, profile)
    if mismatch:
        warn(mismatch)
    ev: Evaluation = evaluate(t, c, pl, p, engine=eng)
    pred = ev.predicted() | recorded_params(eng)
    notes = ev.memory_notes() + ev.zero_reasons()
    if as_json:
        emit_json({"topology": t.name, "cluster": c.name, "plan": str(plan_file), "predicted": jsonable(pred),
                   **({"warnings": notes} if notes else {})})
    else:
        out.print(f"[bold]{plan_file}[/] ({pl.scheduler}) on {t.name} × {c.name}")
        for line in notes:
            out.print(f"  [yellow]note:[/] {line}", highlight=False)
        print_prediction(pred)
    if picture is not None:
        draw_picture(t, c, pl, ev, picture, quiet=as_json)


def check_picture(path: Path | None) -> None:
    """Refuse, before any work, a --picture path matplotlib cannot write (format, directory)."""
    if path is not None:
        from streamplace.report.plots import check_plot_path

        check_plot_path(path, "--picture")


def draw_picture(t: Topology, c: Cluster, plan: Plan, ev: Evaluation, path: Path, quiet: bool = False) -> None:
    """Write the placement picture (report/placement.py) of ``plan``, evaluated as ``ev``, whole or not at all."""
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
    engine: EngineOpt = "spark",
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
        from streamplace.report.plots import check_plot_path

        check_plot_path(plot)
    if html is not None and not html.parent.is_dir():
        raise ModelError([Problem("--html", f"directory {html.parent} does not exist", "create it first")],
                         str(html))
    t, c, p = load_instance(topo, cluster, profile)
    engine_p, _ = split_engine_params(parse_params(param))
    eng = engine_settings(engine, calibration, engine_p, cluster=c)
    chosen = list_option(scheduler, "--scheduler") if scheduler else None
    rows = run_comparison(t, c, p, chosen, [x for x in param or [] if x.partition("=")[0] not in engine_p],
                          quiet=as_json, time_limit=time_limit, engine=eng, counts_from=counts_from)
    if plot is not None:
        from streamplace.report.plots import plot_comparison

        plot_comparison(rows, plot, f"{t.name} on {c.name}")
    if html is not None:
        compare_report(t, c, p, eng, rows, html, plot)
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
def schedulers_cmd(as_json: JsonOpt = False) -> None:
    """List the registered schedulers and their parameters.

    Example: streamplace schedulers
    """
    if as_json:
        emit_json([{"name": name, "summary": REGISTRY[name].summary,
                    "chooses_parallelism": REGISTRY[name].chooses_parallelism,
                    "parameters": dict(describe_parameters(REGISTRY[name])),
                    "parameter_ranges": parameter_ranges(REGISTRY[name])}
                   for name in scheduler_names()])
        return
    table = Table(title="schedulers")
    table.add_column("name")
    table.add_column("what it does")
    table.add_column("parameters (default)")
    for name in scheduler_names():
        cls = REGISTRY[name]
        params = ", ".join(f"{k}={v}" for k, v in describe_parameters(cls))
        table.add_row(name, cls.summary, params)
    out.print(table)


@bench_app.command("list")
def bench_list(as_json: JsonOpt = False) -> None:
    """Show the built-in topologies and clusters usable wherever a spec path is.

    Example: streamplace bench list
    """
    rows = list_builtins()
    if as_json:
        emit_json([{"kind": k, "name": n, "description": d} for k, n, d in rows])
        return
    table = Table(title="built-in benchmarks")
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
    from streamplace.spec.loader import load_flux

    if not (rate > 0 and rate < float("inf")):
        raise ModelError([Problem("--rate", f"must be a finite rate > 0, got {rate}", "give tuples/s, e.g. 1000")])
    doc = read_document(flux_file)
    topo = load_flux(doc, str(flux_file), default_rate=rate, custom_as_shuffle=custom_as_shuffle)
    if custom_as_shuffle and any(str(((s or {}).get("grouping") or {}).get("type", "")).upper() == "CUSTOM"
                                 for s in (doc.get("streams") or []) if isinstance(s, dict)
                                 and isinstance(s.get("grouping") or {}, dict)):
        warn("CUSTOM groupings planned as shuffle (--custom-as-shuffle): the plan assumes an even split, which "
             "the user's Java class may not do")
    text = json_text(topology_to_doc(topo)) + "\n" if as_json else dump_topology(topo)
    if out_file is None:
        sys.stdout.write(text)
    else:
        write_whole(out_file, text)
        info(f"topology {topo.name!r} ({len(topo.operators)} operators, {topo.total_replicas()} replicas) "
             f"written to {out_file}")
