"""Calibrating the Spark engine model: measure its constants here, and the file ``--engine spark`` reads.

Format (JSON or YAML)::

    spark: {batch_s: 0.31, stage_s: 0.055, task_s: 0.012, hop_us: 1.9, source_us: 0.8, sink_us: 2.4}
    measured: {master: local[2], cores: 2, at: 2026-11-23T10:00:00, points: [...], r2: 0.98}

Where it lives by default: ``$STREAMPLACE_HOME/calibration.json`` (else
``~/.streamplace/calibration.json``). With no file the built-in defaults are
used, and every prediction says so (``engine_detail.constants``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np

from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.engines.spark import SparkConstants
from streamplace.spec.loader import read_document
from streamplace.spec.validate import validate_document

if TYPE_CHECKING:
    from pydantic import BaseModel

FIELDS = tuple(f.name for f in dataclasses.fields(SparkConstants) if f.name != "origin")
#: fields added after files were first written: a file without one gets the built-in default, and its origin
#: says so (run `streamplace calibrate` again to measure it)
OPTIONAL = ("exchange_s", "exchange_sq_s", "task_cpu_s", "stage_cpu_s")


def default_path() -> Path:
    return Path(os.environ.get("STREAMPLACE_HOME", Path.home() / ".streamplace")) / "calibration.json"


@functools.cache
def _schemas() -> type[BaseModel]:
    """The calibration file's schema (pydantic), built from SparkConstants' fields so the two cannot drift:
    ``spark:`` holds every constant as a finite number ≥ 0 (the OPTIONAL ones may be missing: files written
    before them), nothing else; ``measured:`` and other top-level keys are provenance, written for people."""
    from pydantic import ConfigDict, Field, create_model

    # lazy: command-line start (pydantic)
    from streamplace.spec.schema import Strict

    number = Annotated[float, Field(ge=0)]
    fields: dict[str, Any] = {name: ((number | None, None) if name in OPTIONAL else (number, ...))
                              for name in FIELDS}
    spark = create_model("SparkConstantsSpec", __base__=Strict, **fields)

    class CalibrationSpec(Strict):
        model_config = ConfigDict(extra="allow")  # measured: and other provenance

    return create_model("CalibrationFile", __base__=CalibrationSpec, spark=(spark, ...))


def load_calibration(path: str | Path) -> SparkConstants:
    """The constants of a calibration file, validated by its schema first: a SpecError naming the file and
    every wrong field (``spark.stage_s``) with its fix."""
    fix = "write it with `streamplace calibrate`, or fix the value"
    spec = validate_document(_schemas(), read_document(path), str(path), fix)
    given = spec.spark.model_dump()
    values = {name: float(v) for name, v in given.items() if v is not None}
    defaulted = [name for name in OPTIONAL if given.get(name) is None]
    origin = f"calibration file {path}"
    if defaulted:
        origin += f" ({', '.join(defaulted)}: built-in default, the file predates it)"
    return SparkConstants(**values, origin=origin)


def constants_or_defaults(path: str | Path | None) -> SparkConstants:
    """The file's constants when ``path`` is given (it must exist) or the default file exists; else the defaults."""
    if path is not None:
        return load_calibration(path)
    default = default_path()
    return load_calibration(default) if default.is_file() else SparkConstants()


def calibration_document(constants: SparkConstants, measured: dict[str, Any]) -> dict[str, Any]:
    return {"spark": {k: round(getattr(constants, k), 6) for k in FIELDS}, "measured": measured}


def write_calibration(path: Path, constants: SparkConstants, measured: dict[str, Any]) -> Path:
    """Write the file whole (a temporary file renamed into place: never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(calibration_document(constants, measured), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


# ----------------------------------------------------------------- measuring (needs Spark)
@dataclass(frozen=True)
class Probe:
    """A chain of ``ops`` pass-through operators: source with ``p_source`` tasks, the others ``p`` each."""

    ops: int
    p_source: int
    p: int
    rows: int


@dataclass
class Calibration:
    constants: SparkConstants
    points: list[tuple[Probe, float, float]]  # (probe, measured s, fitted s)
    r2: float
    seconds: float
    busy_s: float = 0.0  # the busy probe's batch time
    driver_points: list[tuple[int, float]] = dataclasses.field(default_factory=list)  # (exchanges, build s)


def probes(cores: int, large_rows: int = 300_000) -> list[Probe]:
    """Chains of 2 to 6 operators, at 1 task and at 1, 2 and 8 waves of tasks per stage, tiny and large batches:
    enough variety that every constant has its own column (stages against waves, sources and sinks at different
    task counts). The 8-wave chain is there because plans of many replicas run many waves on a few cores: fitted
    on 1–2 waves alone, the time per wave came out 35–45 % low (0.046–0.060 s against 0.08 s measured per wave of
    a 4-stage chain at 8–16 tasks per stage on 2 cores), and such plans ran 1.5–1.6× longer than predicted."""
    shapes = [(2, 1, 1), (4, 1, 1), (4, cores, 2 * cores), (2, 2 * cores, cores), (3, 1, cores),
              (6, cores, cores), (4, cores, 8 * cores)]
    return [Probe(k, ps, p, rows) for k, ps, p in shapes for rows in (2, large_rows)]


def probe_topology(probe: Probe) -> tuple[Topology, Plan]:
    ops = [Operator("src", "source", rate=float(probe.rows), logic={"name": "rate"})]
    ops += [Operator(f"op{j}", "sink" if j == probe.ops - 1 else "operator", logic={"name": "pass"})
            for j in range(1, probe.ops)]
    topo = Topology(f"calibrate-{probe.ops}", tuple(ops), tuple(Stream(a.id, b.id) for a, b in pairwise(ops)))
    plan = Plan("calibrate", topo.name, "local",
                {o.id: {"local": probe.p_source if o.is_source else probe.p} for o in ops})
    return topo, plan


def design_row(probe: Probe, cores: int) -> list[float]:
    """The engine model's batch time of a probe is linear in the constants (a chain of single-node stages):
    batch_s + Σ_stages (stage_s + waves · task_s) + rows / cores · (source_us + hops · hop_us + sink_us), Spark's
    per-tuple work spreading over the cores. The source's and the sink's per-tuple costs share a column (every
    probe has one of each with the same rows): the fit splits it evenly."""
    def waves(p: int) -> int:
        return -(-p // cores)

    stages = [probe.p_source] + [probe.p] * (probe.ops - 1)
    spread = probe.rows / cores / 1e6  # µs → s
    return [1.0, float(len(stages)), float(sum(waves(p) for p in stages)), (probe.ops - 1) * spread, 2 * spread]


def fit_constants(rows: list[list[float]], seconds: list[float]) -> tuple[SparkConstants, np.ndarray, float]:
    """Non-negative least squares (scipy's NNLS, Lawson–Hanson) of the batch times on the design rows: every
    constant is a cost, so none may come out negative. Returns (constants, fitted seconds, R²)."""
    from scipy.optimize import nnls  # here: scipy.optimize costs every `run` 0.27 s at import

    a = np.asarray(rows, dtype=float)
    y = np.asarray(seconds, dtype=float)
    coef, _ = nnls(a, y)
    fitted = a @ coef
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(((y - fitted) ** 2).sum()) / total if total > 0 else 1.0
    batch_s, stage_s, task_s, hop_us, ends_us = (float(c) for c in coef)
    return SparkConstants(batch_s, stage_s, task_s, hop_us, ends_us, ends_us, 0.0, origin="calibration"), fitted, r2


def busy_probe(cores: int, cost_ms: float = 0.5, work_s: float = 4.0) -> tuple[Topology, Plan, int]:
    """A source feeding one busy operator with a task per core, and rows for about ``work_s`` of logic per batch (long
    enough that the fixed costs matter little):
    how fast its tasks run when they fill the machine tells what Spark's own threads take (jvm_cores)."""
    rows = int(work_s * cores * 1000.0 / cost_ms)
    src = Operator("src", "source", rate=float(rows), logic={"name": "rate"})
    work = Operator("work", "sink", cost_ms=cost_ms, logic={"name": "busy"})
    topo = Topology("calibrate-busy", (src, work), (Stream("src", "work"),))
    return topo, Plan("calibrate", topo.name, "local", {"src": {"local": 1}, "work": {"local": cores}}), rows


def jvm_cores_from(measured_s: float, consts: SparkConstants, cores: int, rows: int, cost_ms: float = 0.5) -> float:
    """Solve the engine model's batch time of the busy probe for jvm_cores: the logic's part of the measured time
    is (rows / cores) · e / share with share = 1 − jvm_cores / cores."""
    fixed = consts.batch_s + 2 * consts.stage_s + 2 * consts.task_s
    spark_s = rows / cores * (consts.source_us + consts.hop_us + consts.sink_us) / 1e6
    logic_s = rows / cores * cost_ms / 1000.0
    left = measured_s - fixed - spark_s
    if left <= 0:
        return 0.0
    share = min(1.0, logic_s / left)
    return max(0.0, cores * (1.0 - share))


def calibrate(spark: Any, cores: int, batches: int = 3, large_rows: int = 300_000,
              progress: Callable[[str], None] | None = None) -> Calibration:
    """Time every probe on back-to-back micro-batches and fit the constants (about 2 minutes on 2 cores: 128 s here)."""
    # lazy: PySpark
    from streamplace.spark.measure.profiler import time_batches

    started = time.perf_counter()
    measured: list[tuple[Probe, float]] = []
    for probe in probes(cores, large_rows):
        if progress is not None:
            progress(f"{probe.ops} operators, {probe.p_source}/{probe.p} tasks, {probe.rows:,} rows")
        topo, plan = probe_topology(probe)
        measured.append((probe, time_batches(spark, topo, plan, probe.rows, batches, {}, warm=2).seconds))
    consts, fitted, r2 = fit_constants([design_row(p, cores) for p, _ in measured], [s for _, s in measured])
    if progress is not None:
        progress("a busy operator filling every core")
    topo, plan, rows = busy_probe(cores)
    busy_s = time_batches(spark, topo, plan, rows, batches, {}, warm=1).seconds
    if progress is not None:
        progress("the driver's build of placed plans of 2 to 16 routed inputs")
    (exchange_s, exchange_sq_s), driver_points = driver_probe(spark)
    consts = dataclasses.replace(consts, jvm_cores=jvm_cores_from(busy_s, consts, cores, rows), exchange_s=exchange_s,
                                 exchange_sq_s=exchange_sq_s)
    points = [(p, s, float(f)) for (p, s), f in zip(measured, fitted, strict=True)]
    return Calibration(consts, points, r2, time.perf_counter() - started, busy_s, driver_points)


def driver_probe_plan(nodes: int, ops: int = 4, workers: list[Any] | None = None
                      ) -> tuple[Topology, Plan, list[Any]]:
    """A chain of ``ops`` pass-through operators with one replica of each on every one of ``nodes`` emulated
    workers (or of ``workers``, a cluster's layout): ``ops`` routed inputs per micro-batch (each operator's stage
    reads its upstream's output, the first the batch's rows), whatever the nodes."""
    # lazy: command-line start
    from streamplace.model.layout import WorkerLayout, resource_name

    topo, _ = probe_topology(Probe(ops, 1, 1, 1))
    if workers is None:
        workers = [WorkerLayout(f"n{j}", resource_name(f"n{j}"), 1, 1.0, f"127.0.1.{j + 1}") for j in range(nodes)]
    plan = Plan("calibrate", topo.name, "probe", {o.id: {w.node: 1 for w in workers} for o in topo.operators})
    return topo, plan, workers


def driver_probe(spark: Any, sizes: tuple[int, ...] = (2, 4, 8, 12, 16), nodes: int = 4, repeats: int = 3,
                 workers: list[Any] | None = None) -> tuple[tuple[float, float], list[tuple[int, float]]]:
    """The driver's seconds per routed input of a placed micro-batch (``exchange_s``) and per input squared
    (``exchange_sq_s``): the pipeline's build of a batch's DataFrames (PlacedPipeline.build_placed: per chain a
    projection of each input, the exchange over their union, its physical planning and the plan's cut at the
    stage, LocatedRDD) and the planning of its outputs, timed on chains of ``sizes`` operators spread over
    ``nodes`` emulated workers (or a cluster's ``workers``) in this session — nothing runs on them. Non-negative
    least squares of a + b·X + c·X² (the intercept a is a batch's own fixed cost, batch_s) gives (b, c). Returns
    those and (inputs, seconds) per size."""
    import statistics
    import tempfile

    # lazy: PySpark
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.query.placed import PlacedPipeline

    points: list[tuple[int, float]] = []
    batch = spark.range(1).selectExpr("current_timestamp() AS ts", "id AS value", "id AS key")
    for ops in sizes:
        topo, plan, layout = driver_probe_plan(nodes, ops, workers)
        with tempfile.TemporaryDirectory(prefix="streamplace-probe-") as tmp:
            pipeline = PlacedPipeline(spark, topo, plan, PipelineConfig(sink="noop", out_dir=Path(tmp), workers=layout,
                                                                  fuse=False, trigger_s=0.0))
            times = []
            for r in range(repeats + 1):  # the first build warms the JVM's code paths: left out
                started = time.perf_counter()
                frames, cached = pipeline.build_placed(batch, r)
                for out in pipeline.outputs:
                    frames[out]._jdf.queryExecution().executedPlan()
                times.append(time.perf_counter() - started)
                for frame in cached:
                    frame.unpersist()
        points.append((ops, statistics.median(times[1:])))
    return fit_exchange(points), points


def fit_exchange(points: list[tuple[int, float]]) -> tuple[float, float]:
    """(b, c) of the non-negative least-squares fit a + b·X + c·X² to (inputs, seconds) points; (0, 0) with
    fewer than three distinct sizes. Pure: driver_probe's timing is where the machine comes in."""
    from scipy.optimize import nnls

    x = np.array([e for e, _ in points], dtype=float)
    y = np.array([t for _, t in points])
    if len(points) < 3 or np.ptp(x) == 0:
        return 0.0, 0.0
    coef, _ = nnls(np.column_stack([np.ones_like(x), x, x * x]), y)
    return float(coef[1]), float(coef[2])


def measured_block(cal: Calibration, master: str, cores: int) -> dict[str, Any]:
    """The ``measured`` block of the file: how, where, when, and every point beside its fit."""
    return {"master": master, "cores": cores, "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "method": "back-to-back micro-batches of pass-through chains, least squares on the engine model's "
                      "batch time; jvm_cores from a busy operator filling every core; exchange_s from the "
                      "driver's build of placed plans; task_cpu_s and stage_cpu_s are the built-in values (they "
                      "stretch fixed costs on nodes slower than a full core, which probes on this machine's full "
                      "cores cannot see)", "r2": round(cal.r2, 4),
            "busy_probe_s": round(cal.busy_s, 4), "seconds": round(cal.seconds, 1),
            "driver_probe": [{"exchanges": e, "seconds": round(t, 4)} for e, t in cal.driver_points],
            "points": [{"operators": p.ops, "source_tasks": p.p_source, "tasks": p.p, "rows": p.rows,
                        "measured_s": round(s, 4), "fitted_s": round(f, 4)} for p, s, f in cal.points]}
