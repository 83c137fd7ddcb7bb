"""The simulation use case: an elastic controller (Hochreiner et al.'s BTU-aware one, or the threshold baseline)
over time against a varying load, in the simulator; `streamplace simulate` calls it, nothing here prints."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.workflows.instance import Spec, load_cluster, load_topology


@dataclass(frozen=True)
class Simulated:
    """A simulation's result (sim.engine.SimResult: ``summary`` and ``series``), its configuration, the load it
    ran against and the topology."""

    topology: Topology
    controller: str
    result: Any
    config: Any  # sim.engine.SimConfig
    load_name: str


def simulate(topology: Topology | Spec, vm: Cluster | Spec, controller: str = "btu", pattern: str = "stepwise",
             minutes: int = 120, seed: int = 0, params: Mapping[str, str] | None = None,
             series: Path | None = None, plot: Path | None = None,
             progress: Callable[[int], None] | None = None) -> Simulated:
    """Run ``controller`` (with ``params``: its constants and the simulator's settings, ``key=value`` text) for
    ``minutes`` against ``pattern`` (a built-in arrival pattern or a CSV trace) leasing the VM type of ``vm``'s
    first node. Writes the per-minute series (.csv, or .parquet) and a Fig. 8-style plot where asked (the plot's
    path is checked before the run). ``progress(minute)`` as the simulation goes."""
    from streamplace.elastic import make_pattern
    from streamplace.report.elastic import plot_figure
    from streamplace.report.plots import check_plot_path
    from streamplace.sim import simulate as run
    from streamplace.sim.factory import build
    from streamplace.sim.series import write_series

    if plot is not None:
        check_plot_path(plot)
    t = topology if isinstance(topology, Topology) else load_topology(topology)
    c = vm if isinstance(vm, Cluster) else load_cluster(vm)
    ctrl, cfg = build(controller, dict(params or {}), minutes, seed)
    load = make_pattern(pattern, minutes, seed)
    result = run(t, c, load, ctrl, cfg, progress=progress)
    if series is not None:
        write_series(result.series, series)
    if plot is not None:
        label = f"{controller} (BTU{cfg.btu_minutes:g}) on {load.name}"
        plot_figure([(label, result.series)], plot, f"{t.name}: {label}, seed {seed}")
    return Simulated(t, controller, result, cfg, load.name)
