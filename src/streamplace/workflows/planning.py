"""Planning use cases: plan with one scheduler, predict a given plan, compare schedulers, and the catalogue of
schedulers and built-ins. `streamplace plan|evaluate|compare|schedulers|bench list` and the Python API call these.

Parameters are native values or ``key=value`` text (one grammar, streamplace.params): a scheduler's own, the
engine's ``ENGINE.key`` and, in a comparison, ``SCHEDULER.key``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.bench import list_builtins
from streamplace.errors import Problem, SpecError, StreamplaceError
from streamplace.files import replace_whole
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan, json_text
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.params import by_scope
from streamplace.perf.engines import EngineSettings, recorded_params
from streamplace.perf.evaluate import Evaluation
from streamplace.perf.evaluate import evaluate as _evaluate
from streamplace.report.compare import ComparisonRow, comparison_legend
from streamplace.schedulers.base import (
    DEFAULT_SCHEDULER,
    REGISTRY,
    create,
    describe_parameters,
    offered_rates,
    parameter_ranges,
    scheduler_names,
)
from streamplace.schedulers.base import (
    scheduler_summary as scheduler_summary,  # the command line shows a plan's scheduler figures through it
)
from streamplace.spec.loader import dump_topology, load_flux, read_document, topology_to_doc
from streamplace.workflows import arguments
from streamplace.workflows.instance import (
    DEFAULT_ENGINE,
    Engine,
    Instance,
    Say,
    Spec,
    engine_and_rest,
    load_instance,
    plan_for,
    profile_mismatch,
    profile_record,
    silent,
)


def plan(topology: Topology | Spec, cluster: Cluster | Spec, scheduler: str = DEFAULT_SCHEDULER, *,
         params: Mapping[str, Any] | None = None, profile: Profile | Spec | None = None,
         engine: Engine = DEFAULT_ENGINE, calibration: Path | None = None, time_limit_s: float | None = None,
         profile_path: Path | None = None, on_warning: Say = silent) -> Plan:
    """Plan with one scheduler (``streamplace schedulers`` lists them and their parameters); ``params`` are
    native values or text (``{"weights": {"memory": 2.0}}``, ``{"weights.memory": "2"}``); ``ENGINE.key``
    parameters set the engine. The plan's status is ``ok``, ``timeout`` (best found) or ``infeasible`` with its
    explanation; it is never an exception. A profile given as a path (or ``profile_path``, the file a Profile
    object was read from) is recorded in the plan (path and SHA-256)."""
    arguments.text(scheduler, "scheduler", "name one of `streamplace schedulers`, e.g. scheduler='r-storm'")
    _check_common(params, engine, calibration, profile_path, on_warning)
    arguments.number(time_limit_s, "time_limit_s", "give seconds, e.g. time_limit_s=10, or None", True)
    inst = load_instance(topology, cluster, profile, on_warning)
    eng, given = engine_and_rest(engine, params, calibration, cluster=inst.cluster)
    if time_limit_s is not None:
        given["time_limit_s"] = time_limit_s
    made = create(scheduler, given)
    check_operator_parameters(made, inst.topology)
    result = made.plan(inst.topology, inst.cluster, inst.profile, engine=eng)
    recorded = Path(profile_path) if profile_path is not None else \
        Path(profile) if isinstance(profile, str | Path) else None
    if recorded is not None:
        result = result.evolve(profile=profile_record(recorded))
    return result


def _check_common(params: Any, engine: Any, calibration: Any, profile_path: Any, on_warning: Any) -> None:
    """The arguments plan, predict and compare share, each of its type (workflows.arguments)."""
    arguments.parameters(params)
    arguments.engine(engine)
    arguments.path(calibration, "calibration", "give the path of the file `streamplace calibrate` wrote, or None")
    arguments.path(profile_path, "profile_path", "give the path the profile was read from, or None")
    arguments.callback(on_warning, "on_warning")


#: a scheduler's parameters that map operator ids to values (``true_rates.OP``): a name the topology lacks would
#: be ignored without a word
OPERATOR_KEYED = ("true_rates", "measured_rates", "counts")


def check_operator_parameters(scheduler: Any, topology: Topology, where: str = "params") -> None:
    """Refuse parameters of ``scheduler`` keyed by operator that name one ``topology`` does not have (DS2's
    ``true_rates``, ODRP's ``measured_rates`` and ``counts``), and a DS2 placer that is not one: SpecError on
    ``where.FIELD.OP``, before anything is planned."""
    problems = []
    for field in OPERATOR_KEYED:
        given = getattr(scheduler, field, None)
        if not isinstance(given, Mapping):
            continue
        problems += [Problem(f"{where}.{field}.{op}", f"{scheduler.name}: {op!r} is not an operator of topology "
                                                      f"{topology.name!r}",
                             f"name one of {', '.join(topology.ids)}")
                     for op in given if op not in topology.index]
    placer = getattr(scheduler, "placer", None)
    if isinstance(placer, str):
        from streamplace.schedulers.ds2 import _placers  # lazy: command-line start (DS2's placers)

        if placer not in _placers():  # else planned as "infeasible", exit 1, for a misspelt name
            problems.append(Problem(f"{where}.placer", f"{scheduler.name}: unknown placer {placer!r}",
                                    f"use one of {', '.join(_placers())}"))
    if problems:
        raise SpecError(problems)


@dataclass(frozen=True)
class Prediction:
    """A plan's predicted figures under an engine: the evaluation, the plan checked against the instance, and the
    notes a reader should see with them (memory over a node's, zero throughput's reasons, a profile other than
    the plan's)."""

    instance: Instance
    plan: Plan
    engine: EngineSettings
    evaluation: Evaluation
    notes: list[str]

    def predicted(self) -> dict[str, Any]:
        """The figures as the plan JSON's ``predicted`` holds them, with the engine's parameters."""
        return self.evaluation.predicted() | recorded_params(self.engine)


def predict(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, *,
            profile: Profile | Spec | None = None, engine: Engine = DEFAULT_ENGINE,
            calibration: Path | None = None, params: Mapping[str, Any] | None = None,
            profile_path: Path | None = None, on_warning: Say = silent) -> Prediction:
    """Every predicted metric of a given plan. ``plan`` and ``profile`` may be paths (``streamplace plan --json``
    output, ``streamplace profile`` output); an infeasible plan, or one naming an operator or node the instance
    does not have, is refused (SpecError with the field). ``params``: engine parameters only (``ENGINE.key``).
    ``on_warning`` hears where the profile (``profile_path``: the file a Profile object was read from) is not the
    one the plan was made with (its figures then differ) and where the plan names another topology or cluster
    than these (made for another instance whose operators and nodes have the same names)."""
    _check_common(params, engine, calibration, profile_path, on_warning)
    inst = load_instance(topology, cluster, profile, on_warning)
    where = str(plan) if isinstance(plan, str | Path) else "plan"
    pl = plan_for(plan, inst.topology, inst.cluster, where, on_warning)
    if pl.status == "infeasible":
        raise SpecError([Problem("status", "the plan is infeasible: " + "; ".join(pl.explanation[:3]),
                                 "plan again with another scheduler or a larger cluster")], where)
    eng, rest = engine_and_rest(engine, params, calibration, cluster=inst.cluster)
    if rest:
        raise SpecError([Problem("params", f"a prediction takes engine parameters only, got {next(iter(rest))!r}",
                                 "write ENGINE.key=value, e.g. spark.trigger_s=2 or storm.max_spout_pending=500")])
    given = Path(profile_path) if profile_path is not None else \
        Path(profile) if isinstance(profile, str | Path) else None
    if (profile is None or given is not None) and (why := profile_mismatch(pl, given)):
        on_warning(why)
    ev = _evaluate(inst.topology, inst.cluster, pl, inst.profile, engine=eng)
    return Prediction(inst, pl, eng, ev, ev.memory_notes() + ev.zero_reasons())


def evaluate(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, *,
             profile: Profile | Spec | None = None, engine: Engine = DEFAULT_ENGINE,
             on_warning: Say = silent) -> Evaluation:
    """Every predicted metric of a plan (``.predicted()`` gives them as a dict); see :func:`predict`, whose
    warnings ``on_warning`` hears."""
    return predict(topology, cluster, plan, profile=profile, engine=engine, on_warning=on_warning).evaluation


def compare(topology: Topology | Spec, cluster: Cluster | Spec, schedulers: Sequence[str] | None = None, *,
            params: Mapping[str, Any] | None = None, profile: Profile | Spec | None = None,
            engine: Engine = DEFAULT_ENGINE, time_limit_s: float | None = 30.0,
            on_done: Callable[[str], None] | None = None, counts_from: str | None = None,
            on_warning: Say = silent) -> list[ComparisonRow]:
    """One row per scheduler (all registered ones by default), in that order: ``row.plan`` (None where the
    scheduler refused the instance, with ``row.error`` saying why), ``row.value(key)`` for a figure and
    ``row.as_dict()``. Every figure but ``throughput`` (each plan's own maximum) is at the topology's offered
    rate, the same for every plan; ``report.compare.best_values(rows, keys)`` names each column's best.
    ``params`` maps a scheduler to its parameters (``{"r-storm": {"cpu": "hard"}}``) or holds flat
    ``SCHEDULER.key`` / ``ENGINE.key`` entries; ``on_done(name)`` is called as each one finishes.
    ``counts_from``: a scheduler that chooses replica counts whose counts the placement-only schedulers place
    (the paper's way of comparing Storm's default with hetero) instead of the topology's. ``on_warning`` hears of
    parameters for a scheduler not among those compared (they are not used)."""
    arguments.names(schedulers, "schedulers", "write e.g. schedulers=['ffd', 'hetero'], or None for all")
    _check_common(params, engine, None, None, on_warning)
    arguments.number(time_limit_s, "time_limit_s", "give seconds per scheduler, e.g. time_limit_s=10, or None",
                     True)
    arguments.callback(on_done, "on_done", optional=True)
    arguments.text(counts_from, "counts_from", "name a scheduler that chooses replica counts, e.g. "
                   "counts_from='hetero', or None", optional=True)
    inst = load_instance(topology, cluster, profile, on_warning)
    names = list(schedulers or scheduler_names())
    flat = {k: v for k, v in (params or {}).items() if not isinstance(v, Mapping)}
    nested = {k: dict(v) for k, v in (params or {}).items() if isinstance(v, Mapping)}
    eng, flat_rest = engine_and_rest(engine, flat, cluster=inst.cluster)
    per, loose = by_scope(flat_rest, REGISTRY)
    if loose:
        raise SpecError([Problem("params", f"{next(iter(loose))!r} does not start with a scheduler or engine name",
                                 "write SCHEDULER.key=value, e.g. r-storm.cpu=hard")])
    for name, values in nested.items():
        per.setdefault(name, {}).update(values)
    unknown = [n for n in [*names, *per, *([counts_from] if counts_from else [])] if n not in REGISTRY]
    if unknown:
        raise SpecError([Problem("schedulers", f"unknown scheduler {unknown[0]!r}",
                                 f"use one of {', '.join(REGISTRY)}")])
    for name in per:
        if name not in names and name != counts_from:
            keys = ", ".join(f"{name}.{key}" for key in per[name])
            on_warning(f"{keys}: {'a parameter' if len(per[name]) == 1 else 'parameters'} for {name}, which is not "
                       f"among the schedulers compared ({', '.join(names)}): not used (fix: add {name} to the "
                       "schedulers, or drop the parameter)")
    for name in {*names, *([counts_from] if counts_from else [])}:
        check_operator_parameters(create(name, per.get(name)), inst.topology, f"params.{name}")
    given = {name: dict(per.get(name, {})) for name in names}
    if time_limit_s is not None:
        for p in given.values():
            p.setdefault("time_limit_s", time_limit_s)
    if counts_from is not None and not REGISTRY[counts_from].chooses_parallelism:
        raise SpecError([Problem("counts_from", f"{counts_from!r} keeps the requested replica counts",
                                 "name a scheduler that chooses them: " + ", ".join(
                                     n for n, cls in REGISTRY.items() if cls.chooses_parallelism))])
    if counts_from is not None and time_limit_s is not None:
        given.setdefault(counts_from, dict(per.get(counts_from, {}))).setdefault("time_limit_s", time_limit_s)
    return scheduler_rows(inst.topology, inst.cluster, inst.profile, names, given, on_done=on_done, engine=eng,
                          counts_from=counts_from)


def scheduler_rows(
    topology: Topology,
    cluster: Cluster,
    profile: Profile | None = None,
    schedulers: Sequence[str] | None = None,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    on_done: Callable[[str], None] | None = None,
    engine: EngineSettings | None = None,
    counts_from: str | None = None,
) -> list[ComparisonRow]:
    """Plan the instance with each scheduler (all registered ones by default); predictions are ``engine``'s.

    A plan made for other source rates than the topology's (hetero and optimal plan for their own maximum) is
    evaluated again at the topology's, so that every row's figures but ``throughput`` share one operating point.
    ``counts_from`` names a scheduler that chooses replica counts (hetero, max-throughput, …): the schedulers that
    only place replicas then place its counts instead of the topology's, as Nasiri et al. (2023) compare
    Storm's default with their algorithm."""
    offered = offered_rates(topology)
    placed_topology = topology
    made: dict[str, Plan] = {}
    for name in {*(schedulers or scheduler_names()), *([counts_from] if counts_from else [])}:
        create(name, (params or {}).get(name))  # a bad parameter is refused before anything runs
    if counts_from is not None:
        source = create(counts_from, (params or {}).get(counts_from)).plan(topology, cluster, profile, engine=engine)
        made[counts_from] = source
        if source.usable:
            placed_topology = topology.with_replicas(source.counts())
    rows = []
    for name in schedulers or scheduler_names():
        try:
            given = placed_topology if not REGISTRY[name].chooses_parallelism else topology
            plan = made.get(name) or create(name, (params or {}).get(name)).plan(given, cluster, profile,
                                                                                  engine=engine)
            if given is not topology:
                plan = plan.evolve(explanation=(*plan.explanation, f"replica counts from {counts_from} "
                                                                   f"(counts_from)"))
            rows.append(ComparisonRow(name, plan, at_offered=_at_rates(given, cluster, plan, profile, engine,
                                                                       offered)))
        except StreamplaceError as exc:  # e.g. exhaustive refusing a large instance
            rows.append(ComparisonRow(name, None, str(exc)))
        if on_done:
            on_done(name)
    return rows


def _at_rates(topology: Topology, cluster: Cluster, plan: Plan, profile: Profile | None,
              engine: EngineSettings | None, rates: Mapping[str, float]) -> Mapping[str, Any] | None:
    """The plan's predictions at ``rates``: its own block when it was made for them, None without a usable plan."""
    if plan.status == "infeasible" or not plan.predicted:
        return None
    own = plan.source_rates or rates
    if all(abs(own.get(k, v) - v) <= 1e-9 * max(1.0, abs(v)) for k, v in rates.items()):
        return plan.predicted
    return _evaluate(topology, cluster, plan, profile, source_rates=rates, split=plan.split,
                     engine=engine).predicted()


@dataclass(frozen=True)
class SchedulerInfo:
    """A registered scheduler: what it does, whether it chooses replica counts, its parameters and their ranges."""

    name: str
    summary: str
    chooses_parallelism: bool
    parameters: dict[str, Any]
    parameter_ranges: dict[str, Any]


def schedulers() -> list[SchedulerInfo]:
    """Every registered scheduler, in the registry's order."""
    return [SchedulerInfo(name, REGISTRY[name].summary, REGISTRY[name].chooses_parallelism,
                          dict(describe_parameters(REGISTRY[name])), parameter_ranges(REGISTRY[name]))
            for name in scheduler_names()]


def builtins() -> list[tuple[str, str, str]]:
    """(kind, name, description) of every built-in topology, cluster and profile."""
    return list_builtins()


def chooses_parallelism(scheduler: str) -> bool:
    """Whether ``scheduler`` chooses the replica counts (and the source rates it plans for)."""
    return scheduler in REGISTRY and REGISTRY[scheduler].chooses_parallelism


@dataclass(frozen=True)
class Converted:
    """A Storm Flux topology as a streamplace topology: the model, its spec text, and what the conversion
    assumed."""

    topology: Topology
    text: str
    notes: list[str]


def import_flux(flux_file: Path, rate: float = 1000.0, custom_as_shuffle: bool = False,
                as_json: bool = False) -> Converted:
    """Convert a Storm Flux YAML topology into a streamplace topology spec (YAML, or JSON with ``as_json``), each
    spout offering ``rate`` tuples/s (Flux has none). CUSTOM groupings are refused unless ``custom_as_shuffle``
    (then planned as shuffle, which a note says)."""
    import math

    if isinstance(rate, bool) or not isinstance(rate, int | float) or not (rate > 0 and math.isfinite(rate)):
        raise SpecError([Problem("rate", f"must be a finite rate > 0, got {rate}", "give tuples/s, e.g. 1000")])
    doc = read_document(flux_file)
    topo = load_flux(doc, str(flux_file), default_rate=rate, custom_as_shuffle=custom_as_shuffle)
    notes = []
    if custom_as_shuffle and any(str(((s or {}).get("grouping") or {}).get("type", "")).upper() == "CUSTOM"
                                 for s in (doc.get("streams") or []) if isinstance(s, dict)
                                 and isinstance(s.get("grouping") or {}, dict)):
        notes.append("CUSTOM groupings planned as shuffle: the plan assumes an even split, which the user's Java "
                     "class may not do")
    text = json_text(topology_to_doc(topo)) + "\n" if as_json else dump_topology(topo)
    return Converted(topo, text, notes)


def write_compare_report(t: Topology, c: Cluster, p: Profile | None, eng: EngineSettings,
                         rows: list[ComparisonRow], html: Path, plot: Path | None) -> None:
    """``compare --html``: the comparison table, the bar chart and every plan's picture side by side."""
    import tempfile

    # lazy: matplotlib; the HTML report (jinja2): command-line start
    from streamplace.report.html import write_report
    from streamplace.report.placement import placement_pictures
    from streamplace.report.plots import plot_comparison

    title = f"{t.name} on {c.name} ({eng.name} engine)"
    with tempfile.TemporaryDirectory() as tmp:
        chart = plot if plot is not None else plot_comparison(rows, Path(tmp) / "compare.png", title)
        pictures = placement_pictures(t, c, p, eng, rows)
        replace_whole(html, lambda out: write_report(rows, chart, out, f"streamplace compare: {title}", [],
                                                     legend=comparison_legend(rows), pictures=pictures))
