"""`streamplace live`: the pipeline under an elastic policy, re-planned and re-enacted as it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from streamplace.cli._common import (
    ClusterArg,
    CoresOpt,
    JsonOpt,
    PageOpt,
    PagePortOpt,
    StateOpt,
    TopoArg,
    TriggerOpt,
    app,
    emit_json,
    err,
    friendly,
    out,
    parse_params,
    progress_bar,
    warn,
)
from streamplace.cli.run import note, page_opener, session_opener, spark_instance
from streamplace.errors import ModelError, Problem
from streamplace.model.plan import jsonable
from streamplace.report.compare import fmt, mfmt
from streamplace.workflows.cluster import cluster_at
from streamplace.workflows.instance import RUNTIME_ENGINE, engine_settings
from streamplace.workflows.live import enact_live, parse_fault, prepare_live
from streamplace.workflows.live_settings import LiveHooks, LiveSettings
from streamplace.workflows.planning import DEFAULT_SCHEDULER

#: how live's errors name its settings: by their flags
LIVE_FLAGS = {"duration_s": "--duration", "interval_s": "--interval", "trigger_s": "--trigger", "cores": "--cores",
              "sink": "--sink", "out_dir": "--out"}


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
    scheduler: Annotated[str, typer.Option("--scheduler", "-s", help="scheduler of the first plan")] \
    = DEFAULT_SCHEDULER,
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
    fault: Annotated[list[str] | None, typer.Option("--fault", help="KIND[:NODE]@SECONDS[+SECONDS]: inject a fault "
                                                    "(repeatable): executor:NODE@T (its executors killed), "
                                                    "worker:NODE@T (as --kill), slow:NODE@T+D (a tenth of its CPU "
                                                    "for D s), freeze:NODE@T+D (its processes stopped for D s), "
                                                    "stall@T+D (the sources admit nothing for D s)")] = None,
    as_json: JsonOpt = False,
    page: PageOpt = True,
    page_port: PagePortOpt = 0,
) -> None:
    """Run the pipeline under an elastic policy: every interval measure, decide, re-plan and re-enact from the
    checkpoint; on a standalone cluster, re-place the replicas of lost workers.

    Example: streamplace live nasiri-linear hetero-3 --policy threshold --interval 10 --duration 180
    """
    t, c = spark_instance(topo, cluster)
    state = cluster_at(master, state_dir)
    kills = []
    for item in kill or []:
        node, sep, at = item.rpartition("@")
        try:
            kills.append((node if sep else item, float(at) if sep else float("nan")))
        except ValueError:
            raise ModelError([Problem("--kill", f"{at!r} is not a number of seconds",
                                      "write NODE@SECONDS, e.g. --kill n1@60")]) from None
        if not sep:
            raise ModelError([Problem("--kill", f"{item!r} is not NODE@SECONDS", "write e.g. --kill n1@60")])
    specs = [parse_fault(f, "--fault") for f in fault or []]
    settings = LiveSettings(duration_s=duration, interval_s=interval, trigger_s=trigger, cores=cores,
                            sink=sink,  # type: ignore[arg-type]  # LiveSettings refuses another, naming --sink
                            out_dir=out_dir, bounded_sources=any(f.kind == "stall" for f in specs),
                            title=f"{t.name} under {policy} on {master or 'local'}", names=LIVE_FLAGS)
    pol, faults = prepare_live(t, c, policy, plan_file, scheduler, parse_params(param), state, settings,
                               kills=kills, faults=specs, on_warning=warn)
    with progress_bar("live {task.description}", "{task.completed:.0f}/{task.total:.0f} s",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{t.name} ({policy})", total=duration)

        def step(at: float, what: str) -> None:
            bar.update(task, completed=at)
            if not as_json:
                bar.console.print(f"{at:6.1f} s  {what}", highlight=False)

        result = enact_live(t, c, pol, settings, engine_settings(RUNTIME_ENGINE, None, trigger_s=trigger, cluster=c),
                            state=state, master=master, faults=faults,
                            hooks=LiveHooks(session=session_opener(master, state, cores),
                                            open_page=page_opener(page, page_port), on_warning=warn, on_info=note,
                                            on_step=step))
    if as_json:
        emit_json(jsonable(result.to_dict()))
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
