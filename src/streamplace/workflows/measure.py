"""Measuring on Spark: the engine model's constants (calibrate), each operator's costs (profile) and a sweep of
plans and predictions run as Spark tasks. `streamplace calibrate|profile|sweep` call these with a session from
workflows.session; nothing here prints.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.errors import Problem, SpecError
from streamplace.files import write_whole
from streamplace.model.topology import Topology
from streamplace.schedulers.base import REGISTRY, scheduler_names
from streamplace.spark import measure as spark_measure
from streamplace.workflows.instance import RUNTIME_ENGINE, Engine, Spec, engine_and_rest, load_cluster, load_topology


@dataclass(frozen=True)
class Calibrated:
    """The constants measured (spark.measure.calibration.Calibration), the file they went to and where."""

    calibration: Any
    path: Path
    master: str


def calibrate(spark: Any, cores: int, batches: int = 3, out_file: Path | None = None,
              progress: Callable[[str], None] | None = None) -> Calibrated:
    """Measure the Spark engine model's constants on ``spark``'s master (about 2 minutes on 2 cores) and write
    them, whole, to ``out_file`` (default ~/.streamplace/calibration.json, which the spark engine reads)."""
    cal = spark_measure.calibrate(spark, cores, batches, progress=progress)
    master = spark.sparkContext.master
    path = spark_measure.write_calibration(out_file or spark_measure.default_path(), cal.constants,
                                           spark_measure.measured_block(cal, master, cores))
    return Calibrated(cal, path, master)


def calibration_document(done: Calibrated) -> dict[str, Any]:
    """The calibration file as written, with its path."""
    return dict(json.loads(done.path.read_text(encoding="utf-8"))) | {"path": str(done.path)}


@dataclass(frozen=True)
class Profiled:
    """Each operator's fitted costs (spark.measure.profiler.OperatorFit), the profile document and its file."""

    topology: Topology
    fits: list[Any]
    document: dict[str, Any]
    path: Path


def operators_to_profile(t: Topology, operators: Sequence[str] | None) -> list[str]:
    """The operators a profile measures, in the topology's order (all without ``operators``); an operator the
    topology lacks is a SpecError naming it."""
    unknown = sorted(set(operators or ()) - {o.id for o in t.operators})
    if unknown:
        raise SpecError([Problem("operators", f"no operator {', '.join(unknown)} in {t.name}",
                                 f"use one of {', '.join(o.id for o in t.operators)}")])
    return [o.id for o in t.operators if not operators or o.id in operators]


def profile(spark: Any, topology: Topology | Spec, cores: int, out_file: Path, trigger_s: float = 5.0,
            node_type: str = "local", operators: Sequence[str] | None = None, batches: int = 4,
            progress: Callable[[str], None] | None = None) -> Profiled:
    """Measure each operator alone on ``spark`` at increasing batch sizes, fit e and MET (Nasiri et al.'s
    method), and write the profile whole to ``out_file`` (YAML; JSON for a .json name). ``progress(op)`` as each
    operator starts."""
    import yaml

    t = topology if isinstance(topology, Topology) else load_topology(topology)
    operators_to_profile(t, operators)
    found, fits = spark_measure.profile_topology(spark, t, cores, trigger_s, node_type, batches,
                                   list(operators) if operators else None, progress=progress)
    doc = spark_measure.profile_document(found, fits, cores, trigger_s)
    text = json.dumps(doc, indent=2) if out_file.suffix == ".json" else yaml.safe_dump(doc, sort_keys=False)
    write_whole(out_file, text)
    return Profiled(t, fits, doc, out_file)


@dataclass(frozen=True)
class SweepSetup:
    """A sweep checked and loaded, before any Spark: its instances (bench.sweep.grid), the specs they name, the
    engine and its parameters."""

    instances: list[Any]
    topologies: dict[str, Topology]
    clusters: dict[str, Any]
    engine: Any
    engine_params: dict[str, str]


def prepare_sweep(topologies: Sequence[str], clusters: Sequence[str], schedulers: Sequence[str],
                  scales: Sequence[float], seeds: Sequence[int], engine: Engine = RUNTIME_ENGINE,
                  calibration: Path | None = None, params: Mapping[str, str] | None = None) -> SweepSetup:
    """Every topology × cluster × scheduler × scale × seed of a sweep, the specs loaded and the engine set: each
    name and parameter checked here, before a Spark session is asked for. ``params``: engine parameters only
    (``ENGINE.key``)."""
    # lazy: command-line start
    from streamplace.bench.sweep import grid

    unknown = [s for s in schedulers if s not in REGISTRY]
    if unknown:
        raise SpecError([Problem("schedulers", f"unknown scheduler {unknown[0]!r}",
                                 f"use some of {', '.join(scheduler_names())}")])
    eng, rest = engine_and_rest(engine, params, calibration)
    if rest:
        raise SpecError([Problem("params", f"a sweep takes engine parameters only, got {next(iter(rest))!r}",
                                 "write ENGINE.key=value, e.g. spark.trigger_s=2")])
    engine_p = {k: v for k, v in (params or {}).items() if k not in rest}
    topos = {name: load_topology(name) for name in topologies}
    clus = {name: load_cluster(name) for name in clusters}
    instances = grid(list(topologies), list(clusters), list(schedulers), list(scales), list(seeds))
    return SweepSetup(instances, topos, clus, eng, engine_p)


def sweep(spark: Any, setup: SweepSetup, out_dir: Path, partitions: int | None = None,
          progress: Callable[[int, int], None] | None = None) -> Any:
    """Plan and predict every instance of ``setup`` as Spark tasks and write the rows to ``out_dir`` (Parquet,
    overwritten); returns spark.measure.sweep.SweepRun."""
    return spark_measure.run_sweep(spark, setup.instances, setup.topologies, setup.clusters, out_dir, partitions,
                                   progress=progress, engine=setup.engine, engine_params=setup.engine_params)
