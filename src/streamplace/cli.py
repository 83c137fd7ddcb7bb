"""The ``streamplace`` command line (typer + rich).

Every command accepts a spec path or a built-in name (``streamplace bench
list``) for TOPO and CLUSTER, prints JSON with ``--json``, and exits non-zero
with a one-line explanation (file, field, fix) on bad input.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from streamplace import api
from streamplace.bench import list_builtins, resolve_cluster, resolve_profile, resolve_topology
from streamplace.errors import ModelError, Problem, StreamplaceError
from streamplace.model.cluster import Cluster, check_compatible
from streamplace.model.plan import Plan, json_text, validate_plan_against
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, split_engine_params
from streamplace.perf.evaluate import Evaluation, evaluate
from streamplace.report.compare import COLUMNS, WIDE_COLUMNS, ComparisonRow, best_values, cell, fmt
from streamplace.schedulers.base import REGISTRY, create, describe_parameters, parameter_ranges, scheduler_names
from streamplace.spec.loader import dump_topology, load_plan, read_document, topology_to_doc

app = typer.Typer(
    name="streamplace",
    help="Replica counts and placement for stream-processing topologies on heterogeneous clusters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from streamplace import __version__

        print(f"streamplace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show Spark's log on the terminal too (INFO "
                                          "and above); it always goes to the log file whose path is printed")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="print only results and errors: no warnings, "
                                        "progress bars or lines about files written")] = False,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True,
                                          callback=_print_version)] = False,
) -> None:
    """Replica counts and placement for stream-processing topologies on heterogeneous clusters."""
    global _quiet
    if verbose and quiet:
        raise typer.BadParameter("-q and -v contradict each other: give one of them", param_hint="--quiet")
    _quiet = quiet
    if verbose:
        os.environ["STREAMPLACE_SPARK_LOG"] = "console"


bench_app = typer.Typer(help="Built-in benchmark topologies and clusters.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
cluster_app = typer.Typer(help="A Spark standalone cluster emulating a cluster spec on this machine.",
                          no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")
StateOpt = Annotated[Path | None, typer.Option("--state-dir", help="where the cluster's pid files, secret and logs "
                                               "live (default: ~/.streamplace/clusters/NAME)")]

#: tables and wrapped text fit this many columns (a narrower terminal: its width); `compare --wide` is wider
WIDTH = 100


def _console(stderr: bool = False) -> Console:
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, width=min(probe.width, WIDTH) if probe.is_terminal else WIDTH)


out = _console()
err = _console(stderr=True)
#: set by -q: only results and errors are printed (no warnings, notes on files written, progress bars)
_quiet = False


def warn(text: str) -> None:
    """A warning on stderr, unless -q."""
    if not _quiet:
        err.print(f"[yellow]warning:[/] {text}", highlight=False)


def info(text: str, stderr: bool = False) -> None:
    """A line about what was done (a file written, a log's path), unless -q."""
    if not _quiet:
        (err if stderr else out).print(text, highlight=False)

F = TypeVar("F", bound=Callable[..., Any])

TopoArg = Annotated[str, typer.Argument(help="topology spec (YAML/JSON, Storm Flux YAML) or built-in name")]
ClusterArg = Annotated[str, typer.Argument(help="cluster spec (YAML/JSON) or built-in name")]
ProfileOpt = Annotated[Path | None, typer.Option("--profile",
                                                 help="profile spec with measured costs, or a built-in profile")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]
CoresOpt = Annotated[int | None, typer.Option("--cores", min=1, help="local[N] (default: all cores)")]
PageOpt = Annotated[bool, typer.Option("--page/--no-page", help="serve a live page of the run on localhost "
                                       "(throughput, latency, backlog and CPU per node beside the prediction, "
                                       "the plan's picture, each re-plan; its URL is printed) and write it to the "
                                       "output directory when the run ends")]
PagePortOpt = Annotated[int, typer.Option("--page-port", min=0, max=65535, help="the live page's port on "
                                          "127.0.0.1 (0: any free port)")]
TriggerOpt = Annotated[float, typer.Option("--trigger", min=0.1, help="micro-batch interval (s)")]
RunTriggerOpt = Annotated[str, typer.Option("--trigger", help="micro-batch interval (s), or auto: the shortest whole "
                                            "seconds whose batches the engine model fits in 80 % of it")]


def parse_trigger(value: str) -> float | None:
    """Seconds of a --trigger value, or None for auto."""
    if value.strip().lower() == "auto":
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0.1 or seconds == float("inf"):
        raise ModelError([Problem("--trigger", f"expected seconds ≥ 0.1 or auto, got {value!r}",
                                  "write e.g. --trigger 2 or --trigger auto")])
    return seconds
ParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help="scheduler parameter key=value "
                                                    "(repeatable; dotted keys for nested values; spark.KEY / "
                                                    "storm.KEY set the engine model's parameters)")]
EngineOpt = Annotated[str, typer.Option("--engine", help="whose predictions: spark (micro-batches, the engine "
                                        "streamplace runs), storm (pipelined threads, serialization across nodes, "
                                        "flow control) or ideal (the papers' model)")]
PictureOpt = Annotated[Path | None, typer.Option("--picture", help="draw the plan on its cluster: nodes by rack "
                                                  "with utilization, replicas, traffic, the bottleneck (.svg or "
                                                  ".png)")]
CalibrationOpt = Annotated[Path | None, typer.Option("--calibration", help="Spark engine constants from "
                                                     "`streamplace calibrate` (default: ~/.streamplace/"
                                                     "calibration.json when it exists, else built-in defaults)")]


def progress_bar(description: str, counter: str, disable: bool) -> Progress:
    """The progress bar of long commands, on stderr: description, bar, counter, elapsed time."""
    return Progress(TextColumn(description), BarColumn(), TextColumn(counter), TimeElapsedColumn(), console=err,
                    transient=True, disable=disable or _quiet)


def friendly(fn: F) -> F:
    """Report streamplace errors as one clear message and exit code 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StreamplaceError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print(f"interrupted{_log_hint()}", highlight=False)
            raise typer.Exit(130) from None
        except ImportError as exc:  # an optional part this install lacks (pyproject's extras)
            missing = _missing_extra(exc)
            if missing is None:
                raise
            err.print(f"[bold red]error:[/] this needs {missing}, which is not installed: planning, comparing and "
                      "simulating need no Spark, running does (fix: pip install 'streamplace\\[spark]' — PySpark, "
                      "pyarrow and a Java 17+ runtime; `make setup` installs everything)", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(2) from None
        except OSError as exc:  # a path given on the command line that cannot be read or written
            if _from_spark(exc):
                raise
            if exc.filename is None:  # the disk, not the path: full, over quota, read-only
                err.print(f"[bold red]error:[/] {exc.strerror or exc} (fix: free some disk space, or write "
                          "elsewhere; nothing was half-written)", highlight=False, soft_wrap=True)
                raise typer.Exit(1) from None
            err.print(f"[bold red]error:[/] {exc.filename}: {exc.strerror or exc} (fix: give a path to a file "
                      "that can be read, or written in an existing directory)", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except Exception as exc:
            if not _from_spark(exc):
                raise
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            err.print(f"[bold red]error:[/] Spark failed: {first}{_log_hint()}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def replace_whole(path: Path, write: Callable[[Path], object]) -> None:
    """Let ``write`` make the file at a temporary path beside ``path`` (same suffix, so a writer that picks its
    format by suffix picks the right one), give it the mode a plain ``open`` would (666 less the umask;
    ``mkstemp`` makes 600), then rename it over ``path``: the file is there whole or not at all (a full disk
    used to leave a truncated plan behind, and an OSError traceback)."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (``replace_whole``)."""
    import os

    def write(tmp: Path) -> None:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as fh:
            fh.write(text)

    replace_whole(path, write)


def _from_spark(exc: BaseException) -> bool:
    """An error raised by PySpark or the JVM behind it (or a streaming query's failure streamplace re-raised)."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__module__.split(".")[0] in ("pyspark", "py4j") or "streaming query failed" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: the modules of the ``spark`` extra (pyproject.toml): a command that needs one says how to install it
SPARK_EXTRA = ("pyspark", "py4j", "pyarrow")


def _missing_extra(exc: ImportError) -> str | None:
    """The module of the ``spark`` extra whose absence ``exc`` reports (pandas says "Unable to find a usable
    engine; tried using: 'pyarrow'…" for parquet), or None for any other import error."""
    root = (exc.name or "").split(".")[0]
    if root in SPARK_EXTRA:
        return root
    return "pyarrow" if "pyarrow" in str(exc) else None


def _log_hint() -> str:
    try:
        from streamplace.spark.session import log_file
    except ImportError:  # no PySpark here: no Spark log either
        return ""

    path = log_file()
    return f"; Spark's log: {path}" if path is not None else ""


def parse_params(items: list[str] | None) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ModelError([Problem("--param", f"expected key=value, got {item!r}", "write e.g. --param cpu=hard")])
        params[key.strip()] = value.strip()
    return params


def engine_settings(name: str, calibration: Path | None, params: dict[str, str] | None = None,
                    trigger_s: float | None = None, cluster: Cluster | None = None) -> EngineSettings:
    """The engine a command predicts for: its name, Spark's constants (calibration file or defaults), the cluster
    spec's ``engine:`` block, then the ``spark.*`` / ``storm.*`` parameters of the command line."""
    settings = api.engine_settings(name, calibration, params, cluster, trigger_s, option="--engine")
    assert settings is not None  # a name was given
    return settings


def load_instance(topo: str, cluster: str, profile: Path | None) -> tuple[Topology, Cluster, Profile | None]:
    t = resolve_topology(topo)
    c = resolve_cluster(cluster)
    problems = check_compatible(t, c)
    if problems:
        raise ModelError(problems, topo)
    p = resolve_profile(profile) if profile is not None else None
    if p is not None:
        extra = p.check_against(set(t.index))
        if extra:
            raise ModelError(extra, str(profile))
        for note in p.unused_node_types({n.type for n in c.nodes if n.type}):
            warn(note)
    for w in t.cycle_warnings():
        warn(w)
    return t, c, p


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


def emit_json(data: Any) -> None:
    sys.stdout.write(json_text(data) + "\n")


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
    engine = pred.get("engine", "ideal")
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
    detail = pred.get("engine_detail") or {}
    if engine == "spark" and detail:
        for key, label in (("trigger_s", "Spark trigger (s)"), ("batch_fixed_s", "Spark fixed time per batch (s)"),
                           ("batch_s", "Spark batch time at these rates (s)"), ("period_s", "Spark batch period (s)"),
                           ("trigger_throughput", "throughput within the trigger (t/s)"), ("stages", "Spark stages"),
                           ("constants", "Spark constants")):
            table.add_row(label, fmt(detail.get(key)))
    if engine == "storm" and detail.get("max_spout_pending") is not None:
        table.add_row("max spout pending", fmt(detail["max_spout_pending"]))
        table.add_row("complete latency (ms)", fmt(detail.get("complete_latency_ms")))
    odrp = pred.get("odrp")
    if odrp:
        unit = odrp.get("z_unit", "tuples")
        for key, label in (("utility", "ODRP utility F"), ("response_ms", "ODRP response time (ms)"),
                           ("availability", "ODRP availability"), ("cost", "ODRP cost"),
                           ("inter_node_traffic", f"ODRP T ({unit}/s)"), ("network_usage", f"ODRP N ({unit}/s · ms)"),
                           ("elastic_energy", f"ODRP EE ({unit}/s · ms²)")):
            table.add_row(label, fmt(odrp.get(key)))
    out.print(table)


# ------------------------------------------------------------------ commands
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
    pred = ev.predicted() | ({"engine_params": eng.describe()} if eng.name != "ideal" else {})
    notes = ev.memory_notes() + ev.zero_reasons()
    if as_json:
        emit_json({"topology": t.name, "cluster": c.name, "plan": str(plan_file), "predicted": _clean(pred),
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


def mfmt(value: Any) -> str:
    """A measured figure: n/a when it could not be measured."""
    return "n/a" if value is None else fmt(value)


def _clean(value: Any) -> Any:
    from streamplace.model.plan import _jsonable

    return _jsonable(value)


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
    chosen = _axis(scheduler, "--scheduler") if scheduler else None
    rows = run_comparison(t, c, p, chosen, [x for x in param or [] if x.partition("=")[0] not in engine_p],
                          quiet=as_json, time_limit=time_limit, engine=eng, counts_from=counts_from)
    if plot is not None:
        from streamplace.report.plots import plot_comparison

        plot_comparison(rows, plot, f"{t.name} on {c.name}")
    if html is not None:
        compare_report(t, c, p, eng, rows, html, plot)
    if as_json:
        emit_json(_clean({"topology": t.name, "cluster": c.name, "engine": eng.name, "engine_params": eng.describe(),
                          "rows": [r.as_dict() for r in rows]}))
        return
    print_comparison(rows, f"{t.name} on {c.name} ({eng.name} engine)", wide=wide)
    if plot is not None:
        info(f"plot written to {plot}")
    if html is not None:
        info(f"report written to {html}")


def placement_pictures(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings,
                       rows: list[ComparisonRow]) -> list[Any]:
    """Every usable plan's placement picture, captioned with its scheduler, for an HTML report."""
    from streamplace.report.html import Picture
    from streamplace.report.placement import svg_text

    out = []
    for r in rows:
        if r.plan is not None and r.has_values:
            ev = evaluate(t, c, r.plan, p, engine=eng)
            out.append(Picture(r.scheduler, svg_text(t, c, r.plan, ev)))
    return out


def compare_report(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings, rows: list[ComparisonRow],
                   html: Path, plot: Path | None) -> None:
    """``compare --html``: the comparison table, the bar chart and every plan's picture side by side."""
    import tempfile

    from streamplace.report.html import write_report
    from streamplace.report.plots import plot_comparison

    title = f"{t.name} on {c.name} ({eng.name} engine)"
    with tempfile.TemporaryDirectory() as tmp:
        chart = plot if plot is not None else plot_comparison(rows, Path(tmp) / "compare.png", title)
        pictures = placement_pictures(t, c, p, eng, rows)
        replace_whole(html, lambda out: write_report(rows, chart, out, f"streamplace compare: {title}", [],
                                                     legend=comparison_legend(rows), pictures=pictures))


def run_comparison(t: Topology, c: Cluster, p: Profile | None, only: list[str] | None, param: list[str] | None,
                   quiet: bool = False, time_limit: float | None = None,
                   engine: EngineSettings | None = None, counts_from: str | None = None) -> list[ComparisonRow]:
    names = only or scheduler_names()
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ModelError([Problem("--scheduler", f"unknown scheduler {unknown[0]!r}",
                                  f"use one of {', '.join(REGISTRY)}")])
    per: dict[str, dict[str, str]] = {}
    for key, value in parse_params(param).items():
        name, dot, rest = key.partition(".")
        if not dot or name not in REGISTRY:
            raise ModelError([Problem("--param", f"{key!r} does not start with a scheduler name",
                                      "write SCHEDULER.key=value, e.g. r-storm.cpu=hard")])
        per.setdefault(name, {})[rest] = value
    with progress_bar("{task.description}", "{task.completed}/{task.total}", disable=quiet) as progress:
        task = progress.add_task("planning", total=len(names))
        return api.compare(t, c, names, params=per, profile=p, engine=engine, time_limit_s=time_limit,
                           on_done=lambda n: progress.update(task, advance=1, description=f"planned {n}"),
                           counts_from=counts_from)


def print_comparison(rows: list[ComparisonRow], title: str, wide: bool = False) -> None:
    """The comparison table (100 columns wide; ``wide`` adds mean utilization, cost and planning time), the
    operating point of its figures, then each scheduler's notes."""
    columns = COLUMNS + (WIDE_COLUMNS if wide else [])
    best = best_values(rows, [k for k, _ in columns])
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for key, label in columns:
        table.add_column(label, justify="left" if key in ("scheduler", "status") else "right",
                         no_wrap=key in ("scheduler", "status"))
    for r in rows:
        table.add_row(*(cell(r, k, best) for k, _ in columns))
    (Console(width=160) if wide else out).print(table)
    out.print(comparison_legend(rows), highlight=False)
    for r in rows:
        for line in r.notes:
            out.print(f"  {r.scheduler}: {line}", highlight=False)


def comparison_legend(rows: list[ComparisonRow]) -> str:
    """What the comparison's figures mean: its operating points and the best-value mark."""
    offered = next((r.at_offered.get("offered_throughput") for r in rows if r.at_offered), None)
    at = f"the offered {fmt(offered)} t/s into sinks" if offered is not None else "the offered source rates"
    return (f"max t/s: each plan's own limit; the other figures at {at}; * marks the best value of a column; "
            "latency ∞: the plan cannot keep up with the offered rate")


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


@app.command("run")
@friendly
def run_cmd(
    topo: TopoArg,
    cluster: ClusterArg,
    plan_file: Annotated[Path | None, typer.Option("--plan", help="plan JSON (default: plan now with --scheduler)")]
    = None,
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler when no --plan is given")] = "r-storm",
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
    engine: EngineOpt = "spark",
    calibration: CalibrationOpt = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="engine parameter spark.KEY=VALUE or "
                                                    "storm.KEY=VALUE (repeatable)")] = None,
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
    from streamplace.spark.standalone import state_at

    t, c = spark_instance(topo, cluster)
    pl = plan_to_run(plan_file, scheduler, t, c)
    if sink not in ("parquet", "noop", "memory"):
        raise ModelError([Problem("--sink", f"unknown sink {sink!r}", "use parquet, noop or memory")])
    state = state_at(master, state_dir)
    if placement not in ("plan", "spark"):
        raise ModelError([Problem("--placement", f"unknown placement {placement!r}", "use plan or spark")])
    if placement == "spark" and state is None:
        raise ModelError([Problem("--placement", "spark placement compares schedulers on a cluster of several "
                                  "nodes", "give --master the URL of a cluster `streamplace cluster up` started")])
    engine_p, rest = split_engine_params(parse_params(param))
    if rest:
        raise ModelError([Problem("--param", f"run takes engine parameters only, got {next(iter(rest))!r}",
                                  "write spark.KEY=VALUE or storm.KEY=VALUE")])
    done = enact_run(t, c, pl, str(plan_file or "plan"), state, master, cores, placement, parse_trigger(trigger),
                     engine_settings_for_run(engine, calibration, engine_p, c), max_rate, run_dir_for(t, pl, sink,
                     out_dir), sink, warmup, duration, as_json, page, page_port)
    result, adm, predicted, lifted = done.result, done.admission, done.predicted, done.lifted
    if series is not None and result.series:
        from streamplace.sim.series import write_series  # pandas: 0.35 s of every run's start otherwise

        write_series({"batch_id": [b["batch_id"] for b in result.series],
                      "timestamp": [b["timestamp"] for b in result.series],
                      "input_rows": [b["input_rows"] for b in result.series],
                      "input_rows_per_s": [b["input_rows_per_s"] for b in result.series],
                      "processed_rows_per_s": [b["processed_rows_per_s"] for b in result.series],
                      "duration_ms": [b["duration_ms"].get("triggerExecution", 0) for b in result.series]}, series)
    admitted = {"trigger_s": adm.trigger_s, "rows_per_trigger": adm.rows_per_trigger, "max_rate": adm.max_rate,
                "offered_rate": predicted["offered_rate"], "from": adm.source, "overloaded": adm.overloaded}
    if as_json:
        emit_json(_clean(result.to_dict() | {"admission": admitted})
                  | ({"cpu_quotas": "lifted for the start, set after the first micro-batch"}
                     if lifted else {}))
    else:
        print_run(result, t, pl, master, duration, done.here)
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




@dataclass(frozen=True)
class RunDone:
    """What `run` (and the demo's run) measured and predicted, and where its live page was written."""

    result: Any  # spark.run.RunResult
    admission: Any  # spark.admission.Admission
    predicted: dict[str, Any]
    here: str  # where the prediction is for, in words
    lifted: bool  # CPU quotas were lifted for the start
    page: Path | None


def engine_settings_for_run(engine: str, calibration: Path | None, params: dict[str, str],
                            c: Cluster) -> Callable[[float | None], EngineSettings]:
    """The engine settings of a run, once its trigger is known (auto: chosen from the model)."""
    return lambda trigger_s: engine_settings(engine, calibration, params, trigger_s=trigger_s, cluster=c)


def run_dir_for(t: Topology, pl: Plan, sink: str, out_dir: Path | None) -> Path:
    from streamplace.spark.outdir import run_dir

    return run_dir(t, pl, sink, out_dir)


def enact_run(t: Topology, c: Cluster, pl: Plan, plan_label: str, state: Any, master: str | None,
              cores: int | None, placement: str, trigger_s: float | None,
              engine: Callable[[float | None], EngineSettings], max_rate: float | None, out_dir: Path, sink: str,
              warmup: float, duration: float, as_json: bool, page: bool, page_port: int,
              settle_rows: int | None = None, settle_max_s: float = 0.0) -> RunDone:
    """Run ``pl``'s pipeline on Spark (local, or pinned on the standalone cluster of ``state``) for ``duration``
    after ``warmup``: the sources bounded to what the model says it sustains (or ``max_rate``), warnings said
    before it starts, the live page served while it runs; the warm-up prolonged while the sources' backlog holds
    more than ``settle_rows`` rows, for at most ``settle_max_s`` (spark/run.run_pipeline)."""
    from streamplace.spark.admission import admission, admitted_plan, continuous
    from streamplace.spark.run import prediction, run_target, run_warnings

    workers = None
    if state is not None:
        from streamplace.spark.layout import check_enactable
        from streamplace.spark.standalone import require_registered

        workers = state.layout()
        check_enactable(t, pl, workers, plan_label)
        require_registered(state, {n for per in pl.replicas.values() for n in per})
    eng = engine(trigger_s)
    target_cluster, target_plan, here = run_target(t, c, pl, state, master, cores, placement)
    adm = admission(t, target_cluster, target_plan, eng, trigger_s, max_rate, where="--max-rate")
    trigger_s = adm.trigger_s
    eng = continuous(eng, trigger_s)
    predicted = prediction(t, target_cluster, admitted_plan(t, target_plan, adm), None, eng)
    predicted["offered_rate"] = sum(adm.offered.values())
    for line in run_warnings(c, pl, predicted, here, None if state is not None else target_cluster):
        warn(line)
    if adm.overloaded:
        warn(f"the sources offer {predicted['offered_rate']:,.1f} tuples/s; "
             + (f"--max-rate admits {adm.max_rate:,.1f}" if adm.source == "max_rate" else
                f"the {eng.name} model predicts {here} sustains {adm.max_rate:,.1f} at a {trigger_s:g} s trigger")
             + f": each micro-batch admits at most {sum(r or 0 for r in adm.rows_per_trigger.values()):,} rows and "
             f"the backlog grows by {predicted['offered_rate'] - adm.max_rate:,.1f} tuples/s (measured below)")
    live_page = open_page(f"{t.name} on Spark ({master or 'local'}), {pl.scheduler} plan", warmup + duration,
                          target_cluster, out_dir / "run-page.html", page_port, page)
    if live_page is not None:
        live_page.plan(predicted, plan_svg(t, c, pl, eng), None)
        live_page.event(0.0, "start", f"{pl.scheduler} plan: " + ", ".join(f"{op} ×{n}" for op, n in
                                                                           pl.counts().items())
                        + f"; {warmup:g} s of warm-up, then {duration:g} s measured")
    try:
        result, lifted = _run_measured(t, c, pl, target_cluster, target_plan, adm, eng, state, master, cores,
                                       out_dir, sink, workers, placement, trigger_s, warmup, duration, as_json,
                                       live_page, settle_rows, settle_max_s)
    except BaseException:
        if live_page is not None:
            live_page.finish("failed")
            live_page.close()
        raise
    if live_page is not None:
        from streamplace.spark.run import comparison

        written = live_page.finish("finished", [(name, mfmt(pv), mfmt(mv))
                                                for name, pv, mv in comparison(result.predicted, result.measured)])
        live_page.close()
        if written is not None:
            info(f"live page written to {written}", stderr=True)
    return RunDone(result, adm, predicted, here, lifted, None if live_page is None else written)


def open_page(title: str, duration_s: float, target: Cluster, path: Path, port: int, enabled: bool) -> Any:
    """The run's live page (page/live_run.py), served on localhost with its URL said; None when not wanted or
    when it cannot be served (said once: the run goes on without it)."""
    if not enabled:
        return None
    from streamplace.page.live_run import RunPage
    from streamplace.spark.watch import capacity_cores

    try:
        page = RunPage(title, duration_s, capacity_cores(target), path, port)
    except OSError as exc:
        warn(f"the live page could not be served on 127.0.0.1:{port} ({exc.strerror or exc}); the run goes on "
             "without it (--page-port 0 picks a free port, --no-page turns it off)")
        return None
    info(f"live page: {page.url} (written to {path} when the run ends)", stderr=True)
    return page


def plan_svg(t: Topology, c: Cluster, plan: Plan, eng: EngineSettings) -> str:
    """The plan's placement picture on the cluster it was made for (report/placement.py), as SVG text."""
    from streamplace.report.placement import svg_text

    return svg_text(t, c, plan, evaluate(t, c, plan, None, engine=eng))

def _run_measured(t: Topology, c: Cluster, pl: Plan, target_cluster: Cluster, target_plan: Plan, adm: Any,
                  eng: EngineSettings, state: Any, master: str | None, cores: int | None, out_dir: Path, sink: str,
                  workers: Any, placement: str, trigger_s: float, warmup: float, duration: float, as_json: bool,
                  live_page: Any, settle_rows: int | None = None, settle_max_s: float = 0.0) -> tuple[Any, bool]:
    """`run`'s Spark part: the session, the pipeline measured for ``duration`` after ``warmup`` (the live page
    fed as micro-batches end); whether CPU quotas were lifted for the start."""
    from streamplace.spark.admission import admitted_plan
    from streamplace.spark.pipeline import PipelineConfig
    from streamplace.spark.run import run_pipeline
    from streamplace.spark.watch import run_feed

    boost = None
    if state is not None:  # executors and the first batch start at full speed; the quotas are set after it
        from streamplace.spark.standalone import lift_cpu_quotas

        boost = lift_cpu_quotas(state)
    session_started, session_began_at = time.monotonic(), time.time()
    try:
        spark = spark_session(master, state, cores, out_dir / "spark.log")
    except BaseException:
        if boost is not None:
            boost()
        raise
    session_start_s = time.monotonic() - session_started
    # an emulated cluster's workers talk over loopback: its stages wait the spec's link latencies instead
    from streamplace.spark.standalone import emulated_links

    cfg = PipelineConfig(trigger_s=trigger_s, sink=sink, out_dir=out_dir, workers=workers,  # type: ignore[arg-type]
                         source_lead_s=eng.spark.lead_s, link_latency_ms=emulated_links(state, c),
                         placement=placement, admission=adm.rows_per_trigger)  # type: ignore[arg-type]
    started = time.perf_counter()
    with progress_bar("running {task.description}", "{task.completed:.0f}/{task.total:.0f} s",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{t.name} ({pl.scheduler} plan)", total=warmup + duration)
        result = run_pipeline(spark, t, target_cluster, target_plan, duration, warmup, cfg,
                              progress=lambda s: bar.update(task, completed=s), engine=eng, after_first_batch=boost,
                              predict_for=admitted_plan(t, target_plan, adm),
                              watch=None if live_page is None else run_feed(live_page, t, started),
                              after_warmup=None if live_page is None else lambda: live_page.event(
                                  time.perf_counter() - started, "window", "warm-up over: the measured window "
                                  "opens as the next micro-batch ends"),
                              settle_rows=settle_rows, settle_max_s=settle_max_s)
    result.measured["session_start_s"] = session_start_s
    result.measured.update(launch_figures(result.measured, session_began_at))
    return result, boost is not None

def print_run(result: Any, t: Topology, pl: Plan, master: str | None, duration: float, here: str) -> None:
    from streamplace.spark.run import comparison, ratio

    p = result.predicted
    table = Table(title=f"{t.name} on Spark ({master or 'local'}), {pl.scheduler} plan, {duration:g} s measured")
    for col in ("quantity", f"predicted ({p.get('engine')} engine)", "measured", "measured / predicted"):
        table.add_column(col, justify="left" if col == "quantity" else "right")
    for name, pv, mv in comparison(p, result.measured):
        r = ratio(pv, mv)
        shown = mfmt(pv) if name.startswith("CPU busy") else fmt(pv)  # not modelled for a cluster of nodes
        table.add_row(name, shown, mfmt(mv), "" if r is None else f"{r:.2f}")
    table.add_row("sustainable throughput (tuples/s)", fmt(p.get("throughput")), "", "")
    out.print(table)
    out.print(f"  predicted for {here}; bottleneck: {p.get('bottleneck')}", highlight=False)
    params = p.get("engine_params") or {}
    if p.get("engine") == "spark":

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


@app.command("live")
@friendly
def live_cmd(
    topo: TopoArg,
    cluster: ClusterArg,
    policy: Annotated[str, typer.Option("--policy", "-P", help="hold (keep the plan, recover from lost "
                                        "workers), threshold, btu (Hochreiner et al. 2017's controllers), s-odrp "
                                        "(Cardellini et al. 2017's two-phase loop) or latency-aware (Ecker et al. "
                                        "2025's online re-placement)")] = "threshold",
    plan_file: Annotated[Path | None, typer.Option("--plan", help="first plan for hold/threshold/btu (default: plan "
                                                   "with --scheduler)")] = None,
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler of the first plan")] = "r-storm",
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="policy parameter key=value: the "
                                                    "controller's constants, slo, btu_s, history; for s-odrp "
                                                    "ODRP's parameters and drift; for latency-aware scheduler="
                                                    "hill-climbing|hybrid, its parameters and drift")] = None,
    interval: Annotated[float, typer.Option("--interval", min=1, help="reasoning interval (s)")] = 10.0,
    duration: Annotated[float, typer.Option("--duration", min=1, help="seconds to run")] = 120.0,
    trigger: TriggerOpt = 1.0,
    out_dir: Annotated[Path, typer.Option("--out", help="sink output and checkpoint directory")] = Path("live-out"),
    sink: Annotated[str, typer.Option("--sink", help="parquet or noop")] = "parquet",
    cores: CoresOpt = None,
    master: Annotated[str | None, typer.Option("--master", help="Spark master URL; a cluster started by "
                                               "`streamplace cluster up` pins replicas and is watched for lost "
                                               "workers")] = None,
    state_dir: StateOpt = None,
    kill: Annotated[list[str] | None, typer.Option("--kill", help="NODE@SECONDS: kill that node's worker then "
                                                   "(standalone; repeatable) to test recovery")] = None,
    as_json: JsonOpt = False,
    page: PageOpt = True,
    page_port: PagePortOpt = 0,
) -> None:
    """Run the pipeline under an elastic policy: every interval measure, decide, re-plan and re-enact from the
    checkpoint; on a standalone cluster, re-place the replicas of lost workers.

    Example: streamplace live nasiri-linear hetero-3 --policy threshold --interval 10 --duration 180
    """
    from streamplace.spark.layout import worker_layout
    from streamplace.spark.live import LiveRun
    from streamplace.spark.pipeline import PipelineConfig
    from streamplace.spark.policies import fits_slots, make_policy, place_counts
    from streamplace.spark.run import local_machine
    from streamplace.spark.standalone import state_at
    from streamplace.spark.watch import LiveFeed, describe_plan

    t, c = spark_instance(topo, cluster)
    if sink not in ("parquet", "noop"):
        raise ModelError([Problem("--sink", f"unknown sink {sink!r}", "use parquet or noop")])
    state = state_at(master, state_dir)
    workers = state.layout() if state is not None else None
    slots = {w.node: w.replica_slots for w in (workers or worker_layout(c))}
    faults = []
    for item in kill or []:
        node, sep, at = item.rpartition("@")
        if state is None:
            raise ModelError([Problem("--kill", "only a standalone cluster's workers can be killed",
                                      "start one with `streamplace cluster up` and pass --master")])
        if not sep or node not in slots:
            raise ModelError([Problem("--kill", f"{item!r} names no node of {c.name}",
                                      f"write NODE@SECONDS with NODE one of {', '.join(slots)}")])
        try:
            when = float(at)
        except ValueError:
            raise ModelError([Problem("--kill", f"{at!r} is not a number of seconds",
                                      "write e.g. --kill n1@60")]) from None
        from streamplace.spark.standalone import kill_worker

        faults.append((when, f"kill {node}", functools.partial(kill_worker, state, node)))
    first = None
    if policy != "s-odrp":
        first = plan_to_run(plan_file, scheduler, t, c)
        if not fits_slots(first, slots):
            first = place_counts(t, c, first.counts(), slots)
    pol = make_policy(policy, t, c, parse_params(param), slots, first, interval_s=interval)
    spark = spark_session(master, state, cores, out_dir / "spark.log")
    from streamplace.spark.standalone import emulated_links

    cfg = PipelineConfig(trigger_s=trigger, sink=sink, out_dir=out_dir, workers=workers,  # type: ignore[arg-type]
                         link_latency_ms=emulated_links(state, c))  # as `run`
    alive = None
    if state is not None:
        from streamplace.spark.standalone import alive_nodes

        alive = functools.partial(alive_nodes, state)
    runner = LiveRun(spark, t, c, pol, cfg, interval, alive)
    target = c if state is not None else local_machine(cores, master)
    live_page = open_page(f"{t.name} under {policy} on {master or 'local'}", duration, target,
                          out_dir / "live-page.html", page_port, page)
    feed = None
    if live_page is not None:
        eng = engine_settings("spark", None, trigger_s=trigger, cluster=c)
        feed = LiveFeed(live_page, t, time.perf_counter(), lambda: runner.plan,
                        functools.partial(describe_plan, t, c, None if state is not None else target, eng))
    with progress_bar("live {task.description}", "{task.completed:.0f}/{task.total:.0f} s",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{t.name} ({policy})", total=duration)

        def step(at: float, what: str) -> None:
            bar.update(task, completed=at)
            if feed is not None:
                feed.decision(at, what)
            if not as_json:
                bar.console.print(f"{at:6.1f} s  {what}", highlight=False)

        try:
            result = runner.run(duration, faults, progress=step,
                                watch=feed)
        except BaseException:
            if live_page is not None:
                live_page.finish("failed")
                live_page.close()
            raise
    if live_page is not None:
        feed.sync(result)  # type: ignore[union-attr]
        written = live_page.finish("finished")
        live_page.close()
        if written is not None:
            info(f"live page written to {written}", stderr=True)
    if as_json:
        emit_json(_clean(result.to_dict()))
        return
    events = Table(title=f"{t.name} under {policy} on {master or 'local'}: plans enacted")
    for col in ("at (s)", "what", "change", "pause (s)", "detected (s)"):
        events.add_column(col, justify="left" if col in ("what", "change") else "right")
    for e in result.events:
        events.add_row(f"{e.at_s:.1f}", e.kind, e.detail, "" if e.pause_s is None else f"{e.pause_s:.1f}",
                       "" if e.detected_s is None else f"{e.detected_s:.2f}")
    out.print(events)
    obs = Table(title="every reasoning interval (measured)")
    for col in ("at (s)", "throughput (t/s)", "latency (ms)", "parallelism"):
        obs.add_column(col, justify="right" if col != "parallelism" else "left")
    for o in result.observations:
        obs.add_row(f"{o['at_s']:.1f}", fmt(o["throughput"]), mfmt(o["latency_ms"]),
                    ", ".join(f"{k} {v}" for k, v in o["parallelism"].items()))
    out.print(obs)


def _axis(values: str | list[str] | None, option: str) -> list[str]:
    """The items of a list option: repeatable, and each value may be a comma list (``-s a,b -s c``)."""
    texts = [values] if isinstance(values, str) else values or []
    items = [x.strip() for text in texts for x in text.split(",") if x.strip()]
    if not items:
        raise ModelError([Problem(option, "empty list", f"write e.g. {option} a,b")])
    return items


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
            values = [float(x) for x in _axis(text, option)]
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
    engine: EngineOpt = "spark",
    calibration: CalibrationOpt = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="engine parameter spark.KEY=VALUE or "
                                                    "storm.KEY=VALUE (repeatable)")] = None,
) -> None:
    """Plan and predict every topology × cluster × scheduler × scale × seed as Spark tasks; write Parquet.

    Example: streamplace sweep -t linear-cpu,diamond-cpu -c hetero-3,hetero-12 --scales 0.5:4:8 --out sweep.parquet
    """
    from streamplace.bench.sweep import grid
    from streamplace.spark.sweep import run_sweep

    topo_names, cluster_names = _axis(topologies, "--topologies"), _axis(clusters, "--clusters")
    sched_names = _axis(schedulers or ["round-robin,r-storm,ffd,ds2,hetero"], "--schedulers")
    unknown = [s for s in sched_names if s not in REGISTRY]
    if unknown:
        raise ModelError([Problem("--schedulers", f"unknown scheduler {unknown[0]!r}",
                                  f"use some of {', '.join(scheduler_names())}")])
    engine_p, rest = split_engine_params(parse_params(param))
    if rest:
        raise ModelError([Problem("--param", f"sweep takes engine parameters only, got {next(iter(rest))!r}",
                                  "write spark.KEY=VALUE or storm.KEY=VALUE")])
    eng = engine_settings(engine, calibration, engine_p)
    topos = {name: resolve_topology(name) for name in topo_names}
    clus = {name: resolve_cluster(name) for name in cluster_names}
    instances = grid(topo_names, cluster_names, sched_names, _numbers(scales, "--scales", False),
                     [int(v) for v in _numbers(seeds, "--seeds", True)])
    from streamplace.spark.standalone import state_at

    state = state_at(master, state_dir)
    spark = spark_session(master, state, None)
    with progress_bar("sweep {task.description}", "{task.completed}/{task.total} tasks",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{len(instances):,} instances", total=None)
        run = run_sweep(spark, instances, topos, clus, out_dir, partitions,
                        progress=lambda done, total: bar.update(task, completed=done, total=total), engine=eng,
                        engine_params=engine_p)
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
    from streamplace.report.sweep import write_sweep_report

    path = write_sweep_report(sweep, html_out)
    if as_json:
        emit_json({"html": str(path), "plot": str(path.with_suffix(".png"))})
        return
    out.print(f"wrote {path} and {path.with_suffix('.png')}")


def spark_instance(topo: str, cluster: str) -> tuple[Topology, Cluster]:
    """The instance a Spark command runs; bad logic names or parameters fail here, naming the file, before Spark
    starts."""
    from streamplace.spark.logic import logic_of

    t, c, _ = load_instance(topo, cluster, None)
    for op in t.operators:
        logic_of(op, where=topo)
    return t, c


def plan_to_run(plan_file: Path | None, scheduler: str, t: Topology, c: Cluster) -> Plan:
    """The plan file checked against the instance, else a plan made now with ``scheduler``; never infeasible."""
    if plan_file is not None:
        pl = load_plan(plan_file)
        problems = validate_plan_against(pl, t, c)
        if problems:
            raise ModelError(problems, str(plan_file))
    else:
        pl = create(scheduler).plan(t, c)
    if not pl.ok:
        raise ModelError([Problem("plan", "the plan is infeasible: " + "; ".join(pl.explanation),
                                  "plan with another scheduler or a larger cluster")])
    return pl


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


def spark_session(master: str | None, state: Any, cores: int | None, log_to: Path | None = None) -> Any:
    """The process's SparkSession (spark.session.session_for); Spark's log goes to ``log_to`` (default:
    ~/.streamplace/logs/…), whose path is printed — on the terminal, only what streamplace itself says (-v: Spark's
    INFO too)."""
    from streamplace.spark.session import log_file, session_for

    level = "info" if os.environ.get("STREAMPLACE_SPARK_LOG") == "console" else None
    spark = session_for(master, state, cores, log_to, level)
    info(f"[dim]Spark's log: {log_file()}[/]", stderr=True)
    return spark


@cluster_app.command("up")
@friendly
def cluster_up(
    cluster: ClusterArg,
    state_dir: StateOpt = None,
    host: Annotated[str, typer.Option("--host", help="address to bind (loopback unless you mean otherwise: "
                                      "the master runs code from whoever reaches it and has the secret)")]
    = "127.0.0.1",
    replica_slots: Annotated[int | None, typer.Option("--replica-slots", min=1, help="most replicas of one "
                                                      "operator per worker (default: the node's cores)")] = None,
    cpu_quota: Annotated[bool, typer.Option("--cpu-quota/--no-cpu-quota", help="run each node's processes in a "
                                            "cgroup with a CPU quota of its share of --cpu-budget (where cgroups "
                                            "are writable; otherwise the nodes share the machine)")] = True,
    cpu_budget: Annotated[float | None, typer.Option("--cpu-budget", min=0.01, help="real cores the nodes share "
                                                     "under quotas (default: this machine's less 0.5)")] = None,
    remote: Annotated[str | None, typer.Option("--remote", help="nodes whose workers run on other hosts (comma-"
                                               "separated, or `all`): not started here; start each there from "
                                               "`cluster worker-config`")] = None,
    jvm_archives: Annotated[bool, typer.Option("--jvm-archives/--no-jvm-archives", help="write the class archives "
                                               "that let each run's driver and executors start in less CPU (a short "
                                               "pinned job on the cluster, about a minute; kept across `up`s of the "
                                               "same state directory while they still fit the JDK and Spark)")]
    = True,
    as_json: JsonOpt = False,
) -> None:
    """Start a Spark standalone master and one worker per node of CLUSTER; print the master URL.

    Example: streamplace cluster up hetero-3
    """
    from streamplace.spark.standalone import up

    c = resolve_cluster(cluster)
    far = [n.id for n in c.nodes] if remote == "all" else [n for n in (remote or "").split(",") if n]
    with progress_bar("starting {task.description}", "", disable=as_json or not err.is_terminal) as bar:
        bar.add_task(f"{len(c.nodes) - len(far)} workers for {c.name}", total=None)
        state = up(c, state_dir, host, replica_slots, cpu_quota=cpu_quota, cpu_budget=cpu_budget, remote=far,
                   jvm_archives=jvm_archives)
    if as_json:
        emit_json({"master_url": state.master_url, "state_dir": state.state_dir,
                   "workers": [w.node for w in state.workers], "remote": far, "cpu_scale": state.cpu_scale,
                   "cpu_quota_cores": {w.node: w.cpu_quota_cores for w in state.workers},
                   "cpu_quota_note": state.cpu_quota_note or None, "jvm_archives": state.jvm_archive_note or None})
        return
    info(f"cluster {c.name}: {len(state.workers) - len(far)} workers here, state in {state.state_dir}", stderr=True)
    if far:
        info(f"{len(far)} worker(s) to start on their hosts: {', '.join(far)} — for each, `streamplace cluster "
             f"worker-config {c.name} NODE --state-dir {state.state_dir}` prints the recipe; `cluster status` "
             "shows when they have registered", stderr=True)
    if state.cpu_scale:
        quotas = ", ".join(f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers)
        info(f"CPU quotas (cgroup v{state.cgroup_version}): {state.cpu_budget_cores:g} real cores shared, scale "
             f"{state.cpu_scale:.4g} real cores per spec core (run --master predicts with it); cores per node: "
             f"{quotas}", stderr=True)
    elif state.cpu_quota_note:
        warn(state.cpu_quota_note)
    if state.jvm_archive_note:
        from streamplace.spark.jvm_archive import driver_options, executor_options

        if driver_options(state) and executor_options(state):
            info(state.jvm_archive_note, stderr=True)
        else:  # the cluster works; its runs start slower
            warn(f"{state.jvm_archive_note}: runs on this cluster start their JVMs without them")
    print(state.master_url)


def _state_dir(cluster: str | None, state_dir: Path | None) -> Path:
    from streamplace.spark.standalone import state_root

    if state_dir is not None:
        return state_dir
    if cluster is None:  # the one cluster `cluster up` left state for, when there is exactly one
        known = sorted(p.parent.name for p in state_root().glob("*/state.json")) if state_root().is_dir() else []
        if len(known) == 1:
            return state_root() / known[0]
        raise ModelError([Problem("CLUSTER", "which cluster? " + (f"there are {len(known)}: {', '.join(known)}"
                                                                  if known else "none was started"),
                                  "name it, or pass --state-dir")])
    if (state_root() / cluster / "state.json").is_file():  # the spec's name, as `cluster up` printed it
        return state_root() / cluster
    return state_root() / resolve_cluster(cluster).name


@cluster_app.command("worker-config")
@friendly
def cluster_worker_config(
    cluster: ClusterArg,
    node: Annotated[str, typer.Argument(help="the node of CLUSTER this host serves as")],
    master: Annotated[str | None, typer.Option("--master", help="the master's URL (spark://HOST:PORT), as "
                                               "`cluster up` prints it (default: the cluster started here)")] = None,
    replica_slots: Annotated[int | None, typer.Option("--replica-slots", min=1, help="as given to `cluster up`")]
    = None,
    directory: Annotated[str, typer.Option("--dir", help="where the worker's files go on that host")]
    = "/opt/streamplace-worker",
    include_secret: Annotated[bool, typer.Option("--include-secret", help="put the master's secret (from the "
                                                 "state directory) in the properties instead of naming its file; "
                                                 "keep the output private")] = False,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print what a real host needs to serve as NODE of CLUSTER: discovery scripts, properties, start command.

    Example: streamplace cluster worker-config hetero-3 core-i5-1 --master spark://10.0.0.5:7077
    """
    from streamplace.spark.standalone import ClusterState, render_worker_config, worker_config

    where = _state_dir(cluster, state_dir)
    # the cluster `cluster up` started here (its URL, secret and workers as started), when there is one
    state = ClusterState.load(where) if (where / "state.json").is_file() else None
    if state is None and (master is None or include_secret):
        raise ModelError([Problem("--master" if master is None else "--include-secret",
                                  f"no cluster was started here for {cluster} ({where})",
                                  "start it with `streamplace cluster up`, or give --master and copy the secret")])
    spec = state if state is not None and replica_slots is None else resolve_cluster(cluster)
    doc = worker_config(spec, node, master or state.master_url, replica_slots,  # type: ignore[union-attr]
                        str(where / "secret"), directory, state.secret if include_secret and state else None)
    if as_json:
        emit_json(doc)
        return
    print(render_worker_config(doc), end="")


@cluster_app.command("down")
@friendly
def cluster_down(
    cluster: Annotated[str | None, typer.Argument(help="the cluster's name (as `cluster up` printed it), spec or "
                                                   "built-in name")] = None,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Stop exactly the master and workers that `cluster up` started (from their pid files).

    Example: streamplace cluster down hetero-3
    """
    from streamplace.spark.standalone import down

    stopped = down(_state_dir(cluster, state_dir))
    if as_json:
        emit_json({"stopped": stopped})
        return
    out.print("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))


@cluster_app.command("status")
@friendly
def cluster_status(
    cluster: Annotated[str | None, typer.Argument(help="the cluster's name (as `cluster up` printed it), spec or "
                                                   "built-in name")] = None,
    state_dir: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the master, each worker's process and registration, and the running applications.

    Example: streamplace cluster status hetero-3
    """
    from streamplace.spark.standalone import status

    st = status(_state_dir(cluster, state_dir))
    if as_json:
        emit_json(st)
        return
    out.print(f"{st['name']}: {st['master_url']} (master {'alive' if st['master_alive'] else 'DOWN'}); "
              f"applications: {', '.join(st['applications']) or 'none'}")
    if st.get("cpu_scale"):
        out.print(f"CPU quotas (cgroup v{st['cgroup_version']}): {st['cpu_budget_cores']:g} real cores shared, "
                  f"scale {st['cpu_scale']:.4g} real cores per spec core", highlight=False)
    elif st.get("cpu_quota_note"):
        out.print(st["cpu_quota_note"], highlight=False)
    if st.get("jvm_archives"):
        out.print(st["jvm_archives"], highlight=False)
    table = Table()
    for col in ("node", "pid", "process", "registered", "cores", "used", "replica slots", "speed-up", "CPU quota",
                "Python zygote"):
        table.add_column(col)
    for w in st["workers"]:
        quota = w.get("cpu_quota_cores")
        process = "remote" if w.get("remote") else "alive" if w["process_alive"] else "dead"
        zygote = {None: "none", True: "alive", False: "dead (daemons import for themselves)"}[w.get("zygote_alive")]
        table.add_row(w["node"], "" if w["pid"] is None else str(w["pid"]), process,
                      "yes" if w["registered"] else "no", str(w["cores"]), str(w["cores_used"] or 0),
                      str(w["replica_slots"]), f"{w['speedup']:g}", "none" if quota is None else f"{quota:.2f} cores",
                      zygote)
    out.print(table)


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

    from streamplace.spark.calibration import calibrate, default_path, measured_block, write_calibration
    from streamplace.spark.standalone import state_at

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

    from streamplace.spark.profiler import profile_document, profile_topology

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


@app.command("simulate")
@friendly
def simulate_cmd(
    topo: TopoArg,
    cluster: Annotated[str, typer.Argument(help="VM type to lease (cluster spec or built-in name; its first "
                                           "node is the type)")] = "visp-vm",
    controller: Annotated[str, typer.Option("--controller", help="btu or threshold")] = "btu",
    pattern: Annotated[str, typer.Option("--pattern", help="arrival pattern (stepwise, two-level, random-walk-1, "
                                         "random-walk-2, constant, linear, pyramid) or a CSV trace")] = "stepwise",
    minutes: Annotated[int, typer.Option("--minutes", min=1, help="simulated minutes")] = 120,
    seed: Annotated[int, typer.Option("--seed", help="seed (random walks, start-up and lease delays)")] = 0,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="controller or simulator parameter "
                                                    "key=value, e.g. btu_minutes=60 (repeatable)")] = None,
    series: Annotated[Path | None, typer.Option("--series", help="write the per-minute time series "
                                                "(.csv, or .parquet with pyarrow)")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="write a Fig. 8-style PNG of machines, VMs "
                                              "and operator instances over time")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run an elastic controller over time against a varying load in the simulator.

    Example: streamplace simulate manufacturing --controller btu --pattern stepwise -p btu_minutes=60 --plot fig.png
    """
    from streamplace.elastic import make_pattern
    from streamplace.elastic.factory import build
    from streamplace.report.elastic import plot_figure
    from streamplace.report.plots import check_plot_path

    if plot is not None:
        check_plot_path(plot)
    from streamplace.sim import simulate
    from streamplace.sim.series import write_series

    t = resolve_topology(topo)
    vm = resolve_cluster(cluster)
    ctrl, cfg = build(controller, parse_params(param), minutes, seed)
    load = make_pattern(pattern, minutes, seed)
    with progress_bar("simulating {task.description}", "{task.completed}/{task.total} min",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{controller} on {load.name}", total=minutes)
        result = simulate(t, vm, load, ctrl, cfg, progress=lambda m: bar.update(task, completed=m))
    s = result.summary
    if series is not None:
        write_series(result.series, series)
    if plot is not None:
        label = f"{controller} (BTU{cfg.btu_minutes:g}) on {load.name}"
        plot_figure([(label, result.series)], plot, f"{t.name}: {label}, seed {seed}")
    if as_json:
        emit_json(_clean(s))
        return
    table = Table(title=f"{t.name}: {controller} (BTU {cfg.btu_minutes:g} min) on {load.name}, {minutes} min, "
                        f"seed {seed}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    levels = (("realtime", "real time"), ("near_realtime", "near real time"), ("relaxed", "relaxed"))
    for key, label in levels:
        table.add_row(f"compliance, {label}", f"{100 * s['compliance'][key]:.1f} %")
    table.add_row("resource cost", f"{s['resource_cost']:.2f} ({s['paid_btus']} BTUs)")
    for key, label in levels:
        table.add_row(f"total cost, {label}", f"{s['total_cost'][key]:.2f}")
    table.add_row("time to adapt", f"{s['time_to_adapt_s']:.0f} s over {s['delay_episodes']} delays")
    table.add_row("scaling up / down / migrations",
                  f"{s['scaling']['up']} / {s['scaling']['down']} / {s['scaling']['migrations']}")
    table.add_row("VMs leased / released / prolonged",
                  f"{s['vms_leased']} / {s['vms_released']} / {s['lease_prolongations']}")
    table.add_row("peak VMs / instances", f"{s['peak_vms']} / {s['peak_instances']}")
    table.add_row("items processed", f"{s['items_processed']:,.0f}")
    out.print(table)
    for path in (series, plot):
        if path is not None:
            out.print(f"wrote {path}")


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
    engine: EngineOpt = "spark",
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
    from streamplace import demo as demo_lib
    from streamplace.report.html import write_report
    from streamplace.report.plots import plot_comparison

    if on not in ("cluster", "local"):
        raise ModelError([Problem("--on", f"unknown target {on!r}", "use cluster or local")])
    t, c, p = load_instance(topo, cluster, None)
    eng = engine_settings(engine, calibration, cluster=c)
    with progress_bar("{task.description}", "{task.completed}/{task.total}", disable=as_json) as progress:
        task = progress.add_task("planning", total=len(REGISTRY))
        rows = demo_lib.compare_all(t, c, p, eng, time_limit,
                                    on_done=lambda n: progress.update(task, advance=1, description=f"planned {n}"))
    title = f"{t.name} on {c.name} ({eng.name} engine)"
    if not as_json:
        print_comparison(rows, title)
    png = plot_comparison(rows, out_dir / "compare.png", title)
    pictures = placement_pictures(t, c, p, eng, rows)
    best = demo_lib.best_row(rows)
    if best is not None and best.plan is not None:
        write_whole(out_dir / "best-plan.json", best.plan.to_json() + "\n")
        draw_picture(t, c, best.plan, evaluate(t, c, best.plan, p, engine=eng), out_dir / "best-plan.svg",
                     quiet=as_json)
    sections, spark_json = [], None
    if spark_seconds > 0 and best is not None and best.plan is not None:
        if on == "local":
            import os

            run = _demo_spark_run(t, best.plan, cores or os.cpu_count() or 2, spark_seconds, out_dir / "spark-run",
                                  engine_settings("spark", calibration), as_json)
            sections.append(run.section)
            spark_json = {"on": "local", "rows": [dict(zip(("quantity", "predicted", "measured", "ratio"), r,
                                                           strict=True)) for r in run.rows],
                          "agrees": run.agrees, "verdict": run.verdict}
        else:
            section, spark_json = _demo_on_cluster(t, c, best.plan, spark_seconds, out_dir, calibration, page_port,
                                                   as_json)
            sections.append(section)
    report = write_report(rows, png, out_dir / "report.html", f"streamplace demo: {title}",
                          demo_lib.instance_notes(t, c), sections, legend=comparison_legend(rows), pictures=pictures)
    if as_json:
        emit_json(_clean({"report": str(report), "plot": str(png), "topology": t.name, "cluster": c.name,
                          "engine": eng.name, "run": best.scheduler if spark_json is not None and best else None,
                          "spark_run": spark_json, "rows": [r.as_dict() for r in rows]}))
        return
    info(f"report written to {report}")


def _demo_on_cluster(t: Topology, c: Cluster, plan: Plan, seconds: float, out_dir: Path, calibration: Path | None,
                     page_port: int, as_json: bool) -> tuple[Any, dict[str, Any]]:
    """The demo's run of ``plan`` on ``c`` emulated here: `cluster up` (state under ``out_dir``), the run pinned
    as planned with its live page, `cluster down` whatever happens. Prints the run's table."""
    import shutil

    from streamplace import demo as demo_lib
    from streamplace.spark.standalone import down, up

    state_dir = out_dir / "cluster"
    run_out = out_dir / "spark-run"
    shutil.rmtree(run_out, ignore_errors=True)  # this run, not a resumed one
    with progress_bar("{task.description}", "", disable=as_json or not err.is_terminal) as bar:
        bar.add_task(f"starting {c.name} on this machine: a Spark master and {len(c.nodes)} workers", total=None)
        try:
            state = up(c, state_dir, jvm_archives=False)
        except BaseException:
            if (state_dir / "state.json").exists():
                down(state_dir)
            raise
    try:
        if state.cpu_scale:
            quotas = (f"each under a CPU quota of its share of {state.cpu_budget_cores:g} real cores (×"
                      f"{state.cpu_scale:.3g} of its spec's cores: " + ", ".join(
                          f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers) + ")")
            info(f"cluster {c.name} up at {state.master_url}: {quotas}", stderr=True)
        else:
            quotas = "the nodes sharing this machine's cores without quotas"
            warn(f"{state.cpu_quota_note or 'no CPU quotas'}: the nodes share this machine's cores without quotas, "
                 f"so the prediction, made for {c.name}'s own cores, will read higher than the run")
        eng = engine_settings("spark", calibration, cluster=c)
        run_plan, factor = demo_lib.emulated_run_plan(t, c, plan, state.cpu_scale, eng)
        info(f"running the {plan.scheduler} plan with every replica on its node, sources at {100 * factor:.3g} % of "
             f"the spec's rates ({demo_lib.EMULATED_LOAD:.0%} of what the model predicts the plan sustains here)",
             stderr=True)
        done = enact_run(t, c, run_plan, f"{plan.scheduler} plan", state, state.master_url, None, "plan", None,
                         engine_settings_for_run("spark", calibration, {}, c), None, run_out, "noop",
                         demo_lib.WARMUP_S, seconds, as_json, True, page_port,
                         settle_rows=demo_lib.SETTLED_ROWS, settle_max_s=demo_lib.SETTLE_MAX_S)
    finally:
        stopped = down(state_dir)
        if not as_json:
            info(f"cluster {c.name} stopped ({len(stopped)} processes and groups)", stderr=True)
    if not as_json:
        print_run(done.result, t, run_plan, state.master_url, seconds, done.here)
    section, text, agrees = demo_lib.cluster_section(t, c, plan, done, factor, quotas, done.page)
    if not as_json:
        info(text)
    from streamplace.spark.run import comparison

    return section, {"on": "cluster", "agrees": agrees, "verdict": text, "page": str(done.page),
                     "source_rate_share": factor, "cpu_scale": state.cpu_scale,
                     "rows": [{"quantity": n, "predicted": pv, "measured": mv}
                              for n, pv, mv in comparison(done.result.predicted, done.result.measured)]}


def _demo_spark_run(t: Topology, plan: Plan, cores: int, seconds: float, out_dir: Path, engine: EngineSettings,
                    as_json: bool) -> Any:
    """The demo's Spark run (demo.run_best) with a progress bar and Spark's log in ``out_dir``; prints its table."""
    from streamplace import demo as demo_lib

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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
