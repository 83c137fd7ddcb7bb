"""The Python API: load an instance, plan it, predict, compare schedulers, run a plan on local Spark.

Everything the command line does, with typed parameters instead of ``key=value`` text::

    import streamplace as sp

    topology, cluster = sp.load_topology("diamond-cpu"), sp.load_cluster("hetero-12")
    plan = sp.plan(topology, cluster, "hetero", engine="spark")
    print(plan.status, plan.source_rates, plan.predicted["throughput"])
    rows = sp.compare(topology, cluster, ["r-storm", "hetero", "optimal"], time_limit_s=10)
    best = max((r for r in rows if r.has_values), key=lambda r: r.value("throughput"))
    result = sp.run(topology, cluster, best.plan, duration_s=30)   # starts local Spark
    print(result.measured["throughput"], result.predicted["throughput"])

Specs are a built-in name, a YAML/JSON path, ``"-"`` (standard input) or a mapping; errors are
:class:`streamplace.errors.StreamplaceError` subclasses that name the file, the field and the fix.
Predictions use the ``ideal`` model (the papers' own) unless an engine is named: ``"spark"`` (with the
calibration file written by ``streamplace calibrate``, else built-in constants), ``"storm"``, or an
:class:`~streamplace.perf.engines.EngineSettings`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster, check_compatible
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, SparkSettings, engine_names, engine_or_ideal
from streamplace.perf.evaluate import Evaluation
from streamplace.perf.evaluate import evaluate as _evaluate
from streamplace.schedulers import create
from streamplace.spec.loader import load_cluster as _load_cluster
from streamplace.spec.loader import load_profile as _load_profile
from streamplace.spec.loader import load_topology as _load_topology

if TYPE_CHECKING:
    from streamplace.report.compare import ComparisonRow
    from streamplace.spark.runtime.run import RunResult

Spec = str | Path | Mapping[str, Any]
Engine = str | EngineSettings | None


def load_topology(spec: Spec) -> Topology:
    """A topology from a built-in name (``streamplace bench list``), a YAML/JSON path, ``"-"`` or a mapping."""
    if isinstance(spec, Mapping | Path):
        return _load_topology(spec)
    return resolve_topology(spec)


def load_cluster(spec: Spec) -> Cluster:
    """A cluster from a built-in name, a YAML/JSON path, ``"-"`` or a mapping."""
    if isinstance(spec, Mapping | Path):
        return _load_cluster(spec)
    return resolve_cluster(spec)


def load_profile(spec: str | Path | Mapping[str, Any]) -> Profile:
    """Measured costs per (operator, node type), as ``streamplace profile`` writes them."""
    return _load_profile(spec)


def engine_settings(engine: Engine = "spark", calibration: str | Path | None = None,
                    params: Mapping[str, Any] | None = None, cluster: Cluster | None = None,
                    trigger_s: float | None = None, option: str = "engine") -> EngineSettings | None:
    """The engine predictions are for: ``None`` → the papers' ideal model (no settings); ``"ideal"``,
    ``"spark"`` with the constants of ``calibration`` (default: ~/.streamplace/calibration.json, else built-in
    ones), ``"storm"``. Then the cluster spec's ``engine:`` block, ``trigger_s``, then ``params``
    (``{"spark.trigger_s": 2}``). An unknown name is an error on ``option``."""
    if isinstance(engine, EngineSettings):
        return engine.with_params(dict(params)) if params else engine
    if engine is None:
        return None
    if not isinstance(engine, str) or engine not in engine_names():
        raise SpecError([Problem(option, f"unknown engine {engine!r}", f"use one of {', '.join(engine_names())}")])
    settings = EngineSettings(engine)
    if settings.model.reads_calibration:  # Spark's constants, as `streamplace calibrate` measured them
        from streamplace.spark.measure.calibration import constants_or_defaults

        consts = constants_or_defaults(Path(calibration) if calibration else None)
        settings = EngineSettings(engine, spark=SparkSettings(constants=consts))
    if cluster is not None and cluster.engine_params:
        settings = settings.with_params(cluster.engine_params, f"{cluster.name}: engine")
    if trigger_s is not None:
        settings = settings.with_params({"spark.trigger_s": trigger_s}, "--trigger")
    return settings.with_params(dict(params or {}))


def _spec_kind(value: Any, argument: str, model: type) -> None:
    """SpecError naming ``argument`` unless ``value`` is a ``model``, a built-in name, a path or a mapping."""
    if not isinstance(value, model | str | Path | Mapping):
        raise SpecError([Problem(argument, f"expects a {model.__name__}, a built-in name, a YAML/JSON path or a "
                                           f"mapping, got {type(value).__name__}",
                                 f"pass e.g. sp.load_{argument}(...) or a name from `streamplace bench list`")])


def _instance(topology: Topology | Spec, cluster: Cluster | Spec) -> tuple[Topology, Cluster]:
    _spec_kind(topology, "topology", Topology)
    _spec_kind(cluster, "cluster", Cluster)
    t = topology if isinstance(topology, Topology) else load_topology(topology)
    c = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    problems = check_compatible(t, c)
    if problems:
        raise SpecError(problems, t.name)
    return t, c


def _profile(profile: Profile | str | Path | Mapping[str, Any] | None) -> Profile | None:
    """A Profile, or one loaded from a path or mapping; None stays None."""
    if profile is None or isinstance(profile, Profile):
        return profile
    if isinstance(profile, str | Path | Mapping):
        return load_profile(profile)
    raise SpecError([Problem("profile", f"expects a Profile, a path or a mapping, got {type(profile).__name__}",
                             "pass sp.load_profile(path) or the path itself")])


def _plan_for(plan: Plan | str | Path | Mapping[str, Any], t: Topology, c: Cluster) -> Plan:
    """A Plan (or one loaded from a path or mapping) checked against the instance: every operator and node it
    names exists, every operator has a replica, pinning holds."""
    from streamplace.model.plan import validate_plan_against
    from streamplace.spec.loader import load_plan

    if isinstance(plan, str | Path | Mapping):
        plan = load_plan(plan)
    if not isinstance(plan, Plan):
        raise SpecError([Problem("plan", f"expects a Plan, a path or a mapping, got {type(plan).__name__}",
                                 "pass a plan from sp.plan(...) or the path of `streamplace plan --json` output")])
    problems = validate_plan_against(plan, t, c)
    if problems:
        raise SpecError(problems, "plan")
    return plan


def _engine(engine: Engine, cluster: Cluster) -> EngineSettings | None:
    return engine_settings(engine, cluster=cluster)


def plan(topology: Topology | Spec, cluster: Cluster | Spec, scheduler: str = "r-storm", *,
         params: Mapping[str, Any] | None = None, profile: Profile | Spec | None = None, engine: Engine = "ideal",
         time_limit_s: float | None = None) -> Plan:
    """Plan with one scheduler (``streamplace schedulers`` lists them and their parameters); ``params`` are
    native values (``{"weights": {"memory": 2.0}}`` or ``{"weights.memory": 2.0}``). The plan's status is
    ``ok``, ``timeout`` (best found) or ``infeasible`` with its explanation; it is never an exception."""
    t, c = _instance(topology, cluster)
    given = dict(params or {})
    if time_limit_s is not None:
        given["time_limit_s"] = time_limit_s
    return create(scheduler, given).plan(t, c, _profile(profile), engine=_engine(engine, c))


def evaluate(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, *,
             profile: Profile | Spec | None = None, engine: Engine = "ideal") -> Evaluation:
    """Every predicted metric of a plan (``.predicted()`` gives them as a dict); ``plan`` and ``profile`` may be
    paths (``streamplace plan --json`` output, ``streamplace profile`` output). A plan naming an operator or
    node the instance does not have is refused (SpecError with the field)."""
    t, c = _instance(topology, cluster)
    return _evaluate(t, c, _plan_for(plan, t, c), _profile(profile), engine=_engine(engine, c))


def compare(topology: Topology | Spec, cluster: Cluster | Spec, schedulers: Sequence[str] | None = None, *,
            params: Mapping[str, Mapping[str, Any]] | None = None, profile: Profile | Spec | None = None,
            engine: Engine = "ideal", time_limit_s: float | None = 30.0,
            on_done: Callable[[str], None] | None = None, counts_from: str | None = None) -> list[ComparisonRow]:
    """One row per scheduler (all registered ones by default), in that order: ``row.plan`` (None where the
    scheduler refused the instance, with ``row.error`` saying why), ``row.value(key)`` for a figure and
    ``row.as_dict()``. Every figure but ``throughput`` (each plan's own maximum) is at the topology's offered
    rate, the same for every plan; ``report.compare.best_values(rows, keys)`` names each column's best.
    ``params`` maps a scheduler to its parameters; ``on_done(name)`` is called as each one finishes.
    ``counts_from``: a scheduler that chooses replica counts whose counts the placement-only schedulers place
    (the paper's way of comparing Storm's default with hetero) instead of the topology's."""
    from streamplace.report.compare import compare as _compare
    from streamplace.schedulers import REGISTRY, scheduler_names

    t, c = _instance(topology, cluster)
    names = list(schedulers or scheduler_names())
    unknown = [n for n in [*names, *(params or {}), *([counts_from] if counts_from else [])] if n not in REGISTRY]
    if unknown:
        raise SpecError([Problem("schedulers", f"unknown scheduler {unknown[0]!r}",
                                 f"use one of {', '.join(REGISTRY)}")])
    given = {name: dict((params or {}).get(name, {})) for name in names}
    if time_limit_s is not None:
        for p in given.values():
            p.setdefault("time_limit_s", time_limit_s)
    if counts_from is not None and not REGISTRY[counts_from].chooses_parallelism:
        raise SpecError([Problem("counts_from", f"{counts_from!r} keeps the requested replica counts",
                                 "name a scheduler that chooses them: " + ", ".join(
                                     n for n, cls in REGISTRY.items() if cls.chooses_parallelism))])
    if counts_from is not None and time_limit_s is not None:
        given.setdefault(counts_from, dict((params or {}).get(counts_from, {}))).setdefault("time_limit_s",
                                                                                            time_limit_s)
    return _compare(t, c, _profile(profile), names, given, on_done=on_done, engine=_engine(engine, c),
                    counts_from=counts_from)


def run(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, *, duration_s: float = 60.0,
        warmup_s: float = 15.0, trigger_s: float | None = None, cores: int | None = None,
        out_dir: str | Path | None = None,
        engine: Engine = "spark", max_rate: float | None = None) -> RunResult:
    """Run the plan's pipeline on local Spark (``cores`` of this machine) and measure it; ``result.measured``
    beside ``result.predicted`` (the engine's model of this machine), every ``trigger_s`` seconds (None: as `run
    --trigger auto` picks it, spark/runtime/admission.py). Each micro-batch admits at most
    ``max_rate`` tuples/s of the sources (default: what the engine's model says the plan sustains here; the rest
    waits in the sources' backlog, ``measured["backlog_rows"]``). The output and checkpoint go to
    ``out_dir`` (default ``run-out/TOPOLOGY-DIGEST``), which resumes only the same pipeline."""
    import os

    from streamplace.spark.runtime.admission import admission, admitted_plan, continuous
    from streamplace.spark.runtime.outdir import run_dir
    from streamplace.spark.runtime.pipeline import PipelineConfig
    from streamplace.spark.runtime.run import run_pipeline, run_target
    from streamplace.spark.runtime.session import local_session

    t, c = _instance(topology, cluster)
    for name, value, low in (("duration_s", duration_s, 0.0), ("warmup_s", warmup_s, -1e-12)):
        if not isinstance(value, int | float) or isinstance(value, bool) or not value > low or value > 86_400:
            raise SpecError([Problem(name, f"must be a number of seconds in {'(0' if low == 0 else '[0'}, 86400], "
                                           f"got {value!r}", f"give {name} a duration, e.g. 30")])
    for name, value in (("trigger_s", trigger_s), ("max_rate", max_rate), ("cores", cores)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
                                  or value != value or value == float("inf")):
            raise SpecError([Problem(name, f"must be a finite number > 0 (or None), got {value!r}",
                                     f"give {name} a positive value, or leave it out")])
    plan = _plan_for(plan, t, c)
    if not plan.ok:
        raise SpecError([Problem("plan", "the plan is infeasible: " + "; ".join(plan.explanation),
                                 "plan with another scheduler or a larger cluster")])
    eng = engine_or_ideal(_engine(engine, c))
    n = cores or os.cpu_count() or 2
    target_cluster, target_plan, _ = run_target(t, c, plan, None, None, n)  # this machine, as `run` predicts it
    adm = admission(t, target_cluster, target_plan, eng, trigger_s, max_rate)
    directory = run_dir(t, plan, "parquet", Path(out_dir) if out_dir is not None else None, option="out_dir")
    cfg = PipelineConfig(trigger_s=adm.trigger_s, out_dir=directory, admission=adm.rows_per_trigger)
    return run_pipeline(local_session(n), t, target_cluster, target_plan, duration_s, warmup_s, cfg,
                        engine=continuous(eng, adm.trigger_s), predict_for=admitted_plan(t, target_plan, adm))
