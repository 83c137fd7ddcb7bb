"""An instance to plan: the topology, the cluster and the profile, from names, paths, mappings or objects, checked
against one another; the engine its predictions are for; the record a plan keeps of its profile.

One loader for every caller (the command line and the Python API loaded instances in two ways before): specs are
a built-in name (``streamplace bench list``), a YAML/JSON path, ``"-"`` (standard input) or a mapping. What a
caller may show (a profile's unused node types, a topology's cycles) goes to ``on_warning``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.bench import resolve_cluster, resolve_profile, resolve_topology
from streamplace.errors import Problem, SpecError
from streamplace.model.cluster import Cluster, check_compatible
from streamplace.model.plan import Plan, validate_plan_against
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology, reaching_a_sink
from streamplace.params import by_scope
from streamplace.perf.engines import (
    DEFAULT_ENGINE,
    ENGINES,
    EngineSettings,
    IdealEngine,
    SparkSettings,
    engine_names,
)
from streamplace.perf.engines import (
    RUNTIME_ENGINE as RUNTIME_ENGINE,  # the use cases that run on Spark predict for it
)
from streamplace.spec.documents import read_document
from streamplace.spec.loader import load_cluster as _load_cluster
from streamplace.spec.loader import load_plan as _load_plan
from streamplace.spec.loader import load_profile as _load_profile
from streamplace.spec.loader import load_topology as _load_topology
from streamplace.workflows import arguments

Spec = str | Path | Mapping[str, Any]
#: an engine by name ("spark", "storm", "ideal"), as settings, or None (the ideal model with its defaults)
Engine = str | EngineSettings | None
#: a line for the caller to show
Say = Callable[[str], None]


def silent(text: str) -> None:
    """The default of ``on_warning`` / ``on_info``: say nothing."""


@dataclass(frozen=True)
class Instance:
    """A topology, a cluster it is compatible with, and the profile of its costs (None: the topology's own)."""

    topology: Topology
    cluster: Cluster
    profile: Profile | None = None


def load_topology(spec: Spec) -> Topology:
    """A topology from a built-in name (``streamplace bench list``), a YAML/JSON path, ``"-"`` or a mapping."""
    arguments.spec(spec, "spec", what="topology")
    if isinstance(spec, Mapping | Path):
        return _load_topology(spec)
    return resolve_topology(spec)


def load_cluster(spec: Spec) -> Cluster:
    """A cluster from a built-in name, a YAML/JSON path, ``"-"`` or a mapping."""
    arguments.spec(spec, "spec", what="cluster")
    if isinstance(spec, Mapping | Path):
        return _load_cluster(spec)
    return resolve_cluster(spec)


def load_profile(spec: str | Path | Mapping[str, Any]) -> Profile:
    """Measured costs per (operator, node type), as ``streamplace profile`` writes them, or a built-in profile."""
    arguments.spec(spec, "spec", what="profile")
    if isinstance(spec, Mapping):
        return _load_profile(spec)
    return resolve_profile(spec)


def load_instance(topology: Topology | Spec, cluster: Cluster | Spec, profile: Profile | Spec | None = None,
                  on_warning: Say = silent) -> Instance:
    """The instance, checked: the cluster can hold the topology (pinning, node names), the profile names only the
    topology's operators. ``on_warning`` hears of the profile's node types the cluster lacks and of the
    topology's cycles, for what is loaded here (an object passed in was loaded, and warned about, before)."""
    arguments.spec(topology, "topology", Topology)
    arguments.spec(cluster, "cluster", Cluster)
    arguments.optional_spec(profile, "profile", Profile)
    arguments.callback(on_warning, "on_warning")
    t = topology if isinstance(topology, Topology) else load_topology(topology)
    c = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    problems = check_compatible(t, c)
    if problems:
        raise SpecError(problems, str(topology) if isinstance(topology, str | Path) else t.name)
    p = profile_of(profile)
    if p is not None:
        extra = p.check_against(set(t.index))
        if extra:
            raise SpecError(extra, str(profile) if isinstance(profile, str | Path) else "profile")
        if not isinstance(profile, Profile):  # loaded here: its caller has not heard of it yet
            for note in p.unused_node_types({n.type for n in c.nodes if n.type}):
                on_warning(note)
    if not isinstance(topology, Topology):
        for w in t.cycle_warnings() + sources_without_sink(t):
            on_warning(w)
    return Instance(t, c, p)


def sources_without_sink(t: Topology) -> list[str]:
    """Warnings for the sources from which no stream path leads to a sink, where another source's does: what
    they offer is planned for and processed but never output (the topology's other path says it is not a probe
    of one operator). O(operators + streams)."""
    reaches = reaching_a_sink(t)
    cut = [op for op in t.sources if op.id not in reaches]
    if not cut or len(cut) == len(t.sources):
        return []
    return [f"{t.name}: operators[{t.index[op.id]}]: source {op.id!r} has no stream path to a sink, so the "
            f"{op.rate or 0:,.6g} tuples/s it offers are planned for but never reach the output (fix: add a stream "
            "from it towards a sink, or remove it)" for op in cut]


def profile_of(profile: Profile | Spec | None) -> Profile | None:
    """A Profile, or one loaded from a built-in name, a path or a mapping; None stays None."""
    if profile is None or isinstance(profile, Profile):
        return profile
    arguments.spec(profile, "profile", Profile)
    return load_profile(profile)


def plan_for(plan: Plan | Spec, t: Topology, c: Cluster, where: str = "plan", on_warning: Say = silent) -> Plan:
    """A Plan (or one loaded from a path or mapping) checked against the instance: every operator and node it
    names exists, every operator has a replica, pinning holds. ``on_warning`` hears of a plan file's key that is
    a plan field misspelt (``source_rate``: kept as an annotation, not read) and of a plan made for a topology or
    cluster of another name."""
    if not isinstance(plan, Plan | str | Path | Mapping):
        raise arguments.wrong_type("plan", plan, "a Plan, a path or a mapping",
                                   "pass a plan from sp.plan(...) or the path of `streamplace plan --json` output")
    if not isinstance(plan, Plan):
        doc, name = (plan, where) if isinstance(plan, Mapping) else (read_document(plan), str(plan))
        try:
            loaded = _load_plan(doc)
        except SpecError as exc:
            raise SpecError(exc.problems, name) from None
        for warning in misspelt_plan_keys(doc):
            on_warning(f"{name}: {warning}")
        plan = loaded
    problems = validate_plan_against(plan, t, c)
    if problems:
        raise SpecError(problems, where)
    for field, made, given in (("topology", plan.topology, t.name), ("cluster", plan.cluster, c.name)):
        if made and made != given:
            on_warning(f"{where}: {field}: the plan was made for {field} {made!r}, not {given!r}; its operators and "
                       f"nodes have the same names, so it is evaluated on {given!r} (fix: give the {field} it was made "
                       "for, or plan again)")
    return plan


def misspelt_plan_keys(doc: Mapping[str, Any]) -> list[str]:
    """A plan document's keys that are not plan fields but close to one (``source_rate``, ``replica``): other keys
    are tools' annotations and kept, these are most likely typos whose values would be dropped."""
    import difflib

    # lazy: command-line start (pydantic)
    from streamplace.spec.schema import PlanSpec

    fields = list(PlanSpec.model_fields)
    out = []
    for key in doc:
        if isinstance(key, str) and key not in fields:
            near = difflib.get_close_matches(key, fields, n=1, cutoff=0.75)
            if near:
                out.append(f"{key}: not a plan field, so it is not read (fix: did you mean {near[0]!r}?)")
    return out


def profile_record(path: Path) -> dict[str, str]:
    """What a plan records of the profile it was made with: its path and the SHA-256 of its bytes (of its JSON
    text for a built-in profile)."""
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
        return (f"the plan was made with the profile {made.get('path')}; without a profile the topology's own "
                f"costs are used and the figures differ from the plan's (fix: give the profile "
                f"{made.get('path')})")
    if profile_record(profile)["sha256"] != made.get("sha256"):
        return (f"{profile} is not the profile the plan was made with ({made.get('path')}, whose contents "
                "differ): the figures differ from the plan's")
    return None


def engine_settings(engine: Engine = DEFAULT_ENGINE, calibration: str | Path | None = None,
                    params: Mapping[str, Any] | None = None, cluster: Cluster | None = None,
                    trigger_s: float | None = None, where: str = "engine") -> EngineSettings:
    """The engine predictions are for: ``"spark"`` with the constants of ``calibration`` (default:
    ~/.streamplace/calibration.json, else built-in ones), ``"storm"``, ``"ideal"`` (None: the ideal model with
    its defaults). Then the cluster spec's ``engine:`` block, ``trigger_s``, then ``params``
    (``{"spark.trigger_s": 2}``). An unknown name is an error on ``where``."""
    arguments.text(where, "where", "name the argument errors are about, e.g. where='engine'")
    arguments.engine(engine, where)
    arguments.path(calibration, "calibration", "give the path of the file `streamplace calibrate` wrote, or None")
    arguments.parameters(params)
    if cluster is not None and not isinstance(cluster, Cluster):
        raise arguments.wrong_type("cluster", cluster, "a Cluster (or None)", "pass sp.load_cluster(...), or None")
    arguments.number(trigger_s, "trigger_s", "give the micro-batch interval in seconds, e.g. 2, or None", True)
    if isinstance(engine, EngineSettings):
        return engine.with_params(dict(params)) if params else engine
    if engine is None:
        engine = "ideal"
    if not isinstance(engine, str) or engine not in engine_names():
        raise SpecError([Problem(where, f"unknown engine {engine!r}", f"use one of {', '.join(engine_names())}")])
    settings = EngineSettings(engine)
    if settings.model.reads_calibration:  # Spark's constants, as `streamplace calibrate` measured them
        # lazy: command-line start
        from streamplace.spark.measure import constants_or_defaults

        consts = constants_or_defaults(Path(calibration) if calibration else None)
        settings = EngineSettings(engine, spark=SparkSettings(constants=consts))
    if cluster is not None and cluster.engine_params:
        settings = settings.with_params(cluster.engine_params, f"{cluster.name}: engine")
    if trigger_s is not None:
        settings = settings.with_params({"spark.trigger_s": trigger_s}, "trigger_s")
    return settings.with_params(dict(params or {}))


def engine_and_rest(engine: Engine, params: Mapping[str, Any] | None, calibration: str | Path | None = None,
                    cluster: Cluster | None = None, trigger_s: float | None = None,
                    where: str = "params") -> tuple[EngineSettings, dict[str, Any]]:
    """(the engine with the ``ENGINE.key`` entries of ``params`` applied, the other entries): how every use case
    reads its parameters (streamplace.params' grammar)."""
    arguments.parameters(params, where)
    scoped, rest = by_scope(params or {}, engine_names())
    settings = engine_settings(engine, calibration, cluster=cluster, trigger_s=trigger_s)
    if scoped:
        flat = {f"{scope}.{key}": value for scope, values in scoped.items() for key, value in values.items()}
        settings = settings.with_params(flat, where)
    return settings, rest


def engine_catalog() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered engine, in registration order."""
    return [(name, model.description) for name, model in ENGINES.items()]


def engine_of(predicted: Mapping[str, Any]) -> str:
    """The engine a prediction is for: the ideal model where it does not say (the papers' base model, which every
    prediction was for before predictions recorded their engine)."""
    return str(predicted.get("engine", IdealEngine.name))


def engine_summary(predicted: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The engine's own figures of a prediction, labelled (its ``engine_detail``, as the engine shows them);
    none for an engine not registered here (a plan file's)."""
    model = ENGINES.get(engine_of(predicted))
    return list(model.summary_rows(predicted.get("engine_detail") or {})) if model is not None else []


def runs_micro_batches(engine: str | None) -> bool:
    """Whether the engine named runs micro-batches (its sources' phase on the trigger matters)."""
    model = ENGINES.get(engine) if engine is not None else None
    return bool(model is not None and model.micro_batches)
