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


@dataclass(frozen=True)
class SimulationSetup:
    """A simulation checked and built, before it runs: the topology, the VM type, the controller, the
    simulator's configuration and the load."""

    topology: Topology
    vm: Cluster
    controller: str
    built: Any  # the controller object
    config: Any  # sim.engine.SimConfig
    load: Any  # elastic.patterns.Pattern
    seed: int


def prepare(topology: Topology | Spec, vm: Cluster | Spec, controller: str = "btu", pattern: str = "stepwise",
            minutes: int = 120, seed: int = 0, params: Mapping[str, str] | None = None,
            plot: Path | None = None) -> SimulationSetup:
    """Everything a simulation needs, each input checked: ``controller`` with ``params`` (its constants and the
    simulator's settings, ``key=value`` text, ranges checked), ``pattern`` (a built-in arrival pattern or a CSV
    trace) over ``minutes``, the plot's path where one is asked for."""
    # lazy: matplotlib; the controllers and the simulator (scipy): command-line start
    from streamplace.elastic import make_pattern
    from streamplace.report.plots import check_plot_path
    from streamplace.sim.factory import build

    if plot is not None:
        check_plot_path(plot)
    t = topology if isinstance(topology, Topology) else load_topology(topology)
    c = vm if isinstance(vm, Cluster) else load_cluster(vm)
    ctrl, cfg = build(controller, dict(params or {}), minutes, seed)
    return SimulationSetup(t, c, controller, ctrl, cfg, make_pattern(pattern, minutes, seed), seed)


def run(setup: SimulationSetup, series: Path | None = None, plot: Path | None = None,
        progress: Callable[[int], None] | None = None) -> Simulated:
    """Run a prepared simulation; write the per-minute series (.csv, or .parquet) and a Fig. 8-style plot where
    asked. ``progress(minute)`` as it goes."""
    # lazy: matplotlib; the simulator (scipy) and its series (pandas): command-line start
    from streamplace.report.elastic import plot_figure
    from streamplace.sim import simulate as simulate_run
    from streamplace.sim.series import write_series

    cfg, load = setup.config, setup.load
    result = simulate_run(setup.topology, setup.vm, load, setup.built, cfg, progress=progress)
    if series is not None:
        write_series(result.series, series)
    if plot is not None:
        label = f"{setup.controller} (BTU{cfg.btu_minutes:g}) on {load.name}"
        plot_figure([(label, result.series)], plot, f"{setup.topology.name}: {label}, seed {setup.seed}")
    return Simulated(setup.topology, setup.controller, result, cfg, load.name)


def simulate(topology: Topology | Spec, vm: Cluster | Spec, controller: str = "btu", pattern: str = "stepwise",
             minutes: int = 120, seed: int = 0, params: Mapping[str, str] | None = None,
             series: Path | None = None, plot: Path | None = None,
             progress: Callable[[int], None] | None = None) -> Simulated:
    """Run ``controller`` for ``minutes`` against ``pattern`` leasing the VM type of ``vm``'s first node
    (:func:`prepare`, then :func:`run`)."""
    return run(prepare(topology, vm, controller, pattern, minutes, seed, params, plot), series, plot, progress)
