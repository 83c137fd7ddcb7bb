"""`streamplace simulate`: an elastic controller over time against a varying load, in the simulator."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from streamplace.cli._common import (
    JsonOpt,
    TopoArg,
    app,
    emit_json,
    err,
    friendly,
    out,
    parse_params,
    progress_bar,
)
from streamplace.model.plan import jsonable
from streamplace.workflows import simulate as simulation


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
    setup = simulation.prepare(topo, cluster, controller, pattern, minutes, seed, parse_params(param), plot)
    with progress_bar("simulating {task.description}", "{task.completed}/{task.total} min",
                      disable=as_json or not err.is_terminal) as bar:
        task = bar.add_task(f"{controller} on {setup.load.name}", total=minutes)
        done = simulation.run(setup, series, plot, progress=lambda m: bar.update(task, completed=m))
    s, cfg, t = done.result.summary, done.config, done.topology
    if as_json:
        emit_json(jsonable(s))
        return
    table = Table(title=f"{t.name}: {controller} (BTU {cfg.btu_minutes:g} min) on {done.load_name}, {minutes} min, "
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
