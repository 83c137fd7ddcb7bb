"""The scheduler interface, the registry, and what every scheduler shares.

A scheduler is a frozen dataclass: its fields are its parameters (the CLI's
``--param key=value``), ``plan`` has no hidden state and is deterministic.
Subclasses of :class:`BaseScheduler` implement ``_place`` and inherit input
checks, the fail-fast capacity test, timing, and the model's prediction.
"""

from __future__ import annotations

import dataclasses
import time
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import numpy as np

from streamplace.coerce import coerce_value
from streamplace.errors import RateDivergenceError, SchedulerParamError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster, check_compatible
from streamplace.model.constraints import violations
from streamplace.model.plan import Plan, Predicted, Split, Status
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, engine_or_ideal, recorded_params
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers.ranges import problem as parameter_problem
from streamplace.schedulers.ranges import range_of

EPS = 1e-9


@runtime_checkable
class Scheduler(Protocol):
    name: str

    def plan(self, topology: Topology, cluster: Cluster, profile: Profile | None = None, *,
             current: Plan | None = None, engine: EngineSettings | None = None) -> Plan: ...


@dataclass
class Placement:
    """What ``_place`` returns: replica counts per (operator, node) and how it went."""

    counts: np.ndarray | None  # (n_ops, n_nodes) or None when infeasible
    status: Status = "ok"
    explanation: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    source_rates: dict[str, float] | None = None
    gap: float | None = None
    split: Split = "even"
    extra_predicted: dict[str, Any] = dataclasses.field(default_factory=dict)


class Deadline:
    """A wall-clock budget; ``expired()`` is cheap enough for inner loops."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.start = time.perf_counter()
        self._end = None if seconds is None else self.start + seconds

    def expired(self) -> bool:
        return self._end is not None and time.perf_counter() > self._end

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.start) * 1000.0


@dataclass(frozen=True)
class BaseScheduler:
    """Template: validate, fail fast, ``_place``, then predict with the performance model."""

    name: ClassVar[str] = "base"
    summary: ClassVar[str] = ""
    #: Whether the declared CPU points are a hard constraint for the fail-fast check.
    cpu_hard: ClassVar[bool] = False
    #: Whether the scheduler chooses replica counts (hetero, optimal, DS2, …) or keeps the requested ones.
    chooses_parallelism: ClassVar[bool] = False
    #: Mapping parameters whose unspecified keys become 0 once any key is given (e.g. ODRP's weights).
    partial_mappings: ClassVar[tuple[str, ...]] = ()
    #: the parameters it runs with where every scheduler is compared on one instance (the demo's comparison):
    #: none but a time limit, unless it needs an objective to be comparable (ODRP's utility)
    comparison_params: ClassVar[typing.Mapping[str, Any]] = {}

    time_limit_s: float | None = 60.0
    #: "prefer": under the spark engine, move fusable consumers onto their producers' replicas where that is
    #: allowed, fits and is predicted no worse (fusion_align.py); "off" keeps the scheduler's own placement
    fusion: Literal["off", "prefer"] = "off"

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            hint = hints.get(f.name)
            if typing.get_origin(hint) is Literal and getattr(self, f.name) not in typing.get_args(hint):
                raise SchedulerParamError(
                    f"{self.name}.{f.name} must be one of {', '.join(map(str, typing.get_args(hint)))}, "
                    f"got {getattr(self, f.name)!r}")
        for f in dataclasses.fields(self):  # every numeric parameter within its declared range (ranges.py)
            why = parameter_problem(self.name, f.name, getattr(self, f.name))
            if why:
                raise SchedulerParamError(why)

    def plan(self, topology: Topology, cluster: Cluster, profile: Profile | None = None, *,
             current: Plan | None = None, engine: EngineSettings | None = None) -> Plan:
        """Plan, then predict with ``engine``'s model (None: the ideal base model the papers assume)."""
        deadline = Deadline(self.time_limit_s)
        problems = check_compatible(topology, cluster)
        if problems:
            return self._infeasible(topology, cluster, [p.render() for p in problems], deadline)
        counts = self.requested_counts(topology)
        reasons = capacity_shortfalls(topology, cluster, counts, cpu_hard=self.cpu_hard)
        if reasons:
            return self._infeasible(topology, cluster, reasons, deadline)
        try:
            result = self._place_for(engine, topology, cluster, profile, deadline, current)
            if result.counts is None or result.status == "infeasible":
                return self._infeasible(topology, cluster, result.explanation or ["no placement found"], deadline)
            if self.fusion == "prefer":
                self._align_for_fusion(topology, cluster, profile, result, engine)
            return self.finish(topology, cluster, profile, result, deadline, engine)
        except RateDivergenceError as exc:  # a feedback loop with gain >= 1 has no steady state to plan for
            return self._infeasible(topology, cluster, [str(exc)], deadline)

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: op.replicas for op in topology.operators}

    @classmethod
    def summary_rows(cls, predicted: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """The figures of its own a plan by this scheduler carries in its prediction (``extra_predicted``),
        labelled as a person reads them: what the command line shows after the engine's, as an engine's
        ``summary_rows`` (none by default)."""
        return []

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None) -> Placement:
        raise NotImplementedError

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        """Placement when the plan's prediction is ``engine``'s: the paper's own placement by default (the seed
        heuristics stay faithful to their papers); schedulers that optimize a model override this to optimize
        the engine's."""
        return self._place(topology, cluster, profile, deadline, current)

    def _align_for_fusion(self, topology: Topology, cluster: Cluster, profile: Profile | None, result: Placement,
                          engine: EngineSettings | None) -> None:
        """fusion=prefer: line the placement up for Spark's operator fusion (fusion_align.py), in place."""
        eng = engine_or_ideal(engine)
        if not eng.model.fuses_operators:
            result.warnings.append(f"fusion=prefer acts under the spark engine only (engine spark); the "
                                   f"{eng.name} model fuses no operators")
            return
        # lazy: command-line start
        from streamplace.schedulers.fusion_align import align_for_fusion

        rates = result.source_rates or offered_rates(topology)

        def score(counts: np.ndarray) -> tuple[float, float]:
            predicted = predict_counts(self.name, topology, cluster, counts, rates, profile, engine)
            latency = predicted.get("latency_mean_ms")
            return float(predicted.get("throughput") or 0.0), float("inf") if latency is None else float(latency)

        assert result.counts is not None
        aligned = align_for_fusion(topology, cluster, result.counts, score, cpu_hard=self.cpu_hard)
        result.counts = aligned.counts
        moved = ", ".join(f"{v} onto {u}'s replicas" for u, v in aligned.aligned) or "nothing moved"
        result.explanation.append(f"fusion=prefer: {moved}" + (f"; kept apart: {'; '.join(aligned.rejected)}"
                                                               if aligned.rejected else ""))

    # ----------------------------------------------------------- helpers
    def params(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def finish(self, topology: Topology, cluster: Cluster, profile: Profile | None, result: Placement,
               deadline: Deadline, engine: EngineSettings | None = None) -> Plan:
        """The plan of ``result``, predicted; ``infeasible`` (with the placement and what it breaks) when it
        breaks a hard constraint (model/constraints.py), whatever the scheduler's own search assumed."""
        if result.counts is None:
            raise ValueError(f"{self.name}: finish() needs a placement; plan() answers an infeasible one itself")
        replicas = counts_to_replicas(result.counts, topology, cluster)
        broken = violations(topology, cluster, result.counts, cpu_hard=self.cpu_hard,
                            requested=None if self.chooses_parallelism else self.requested_counts(topology))
        if broken:  # never "ok": the placement is kept to look at, with what it breaks, and not predicted
            return Plan(
                scheduler=self.name, topology=topology.name, cluster=cluster.name, replicas=replicas,
                source_rates=result.source_rates or offered_rates(topology),
                status="infeasible", planning_ms=deadline.elapsed_ms(), params=self.params(),
                explanation=(f"{self.name}'s best placement breaks hard constraints (shown, not to be run):",
                             *broken, *result.explanation),
                warnings=tuple(result.warnings))
        planning_ms = deadline.elapsed_ms()
        plan = Plan(
            scheduler=self.name, topology=topology.name, cluster=cluster.name, replicas=replicas,
            source_rates=result.source_rates or offered_rates(topology),
            status=result.status, planning_ms=planning_ms, explanation=tuple(result.explanation),
            split=result.split, params=self.params(), gap=result.gap,
            warnings=tuple(topology.cycle_warnings()) + tuple(result.warnings),
        )
        ev = evaluate(topology, cluster, plan, profile, engine=engine)
        predicted = ev.predicted() | result.extra_predicted | recorded_params(engine)
        return plan.evolve(predicted=Predicted(predicted), warnings=(*plan.warnings, *ev.zero_reasons()))

    def _infeasible(self, topology: Topology, cluster: Cluster, reasons: list[str], deadline: Deadline) -> Plan:
        return Plan(
            scheduler=self.name, topology=topology.name, cluster=cluster.name, replicas={},
            source_rates=offered_rates(topology), status="infeasible",
            planning_ms=deadline.elapsed_ms(), explanation=tuple(reasons), params=self.params(),
        )


def offered_rates(topology: Topology) -> dict[str, float]:
    """Each source's own rate (tuples/s): what a plan offers unless its scheduler chose the rates."""
    return {op.id: float(op.rate or 0.0) for op in topology.sources}


def predict_counts(scheduler: str, topology: Topology, cluster: Cluster, counts: np.ndarray,
                   rates: Mapping[str, float], profile: Profile | None,
                   engine: EngineSettings | None) -> dict[str, Any]:
    """The ``predicted`` block of a count matrix (operators × nodes) run at ``rates``, by ``engine``'s model."""
    plan = Plan(scheduler, topology.name, cluster.name, counts_to_replicas(counts, topology, cluster), dict(rates))
    return evaluate(topology, cluster, plan, profile, engine=engine).predicted()


def counts_to_replicas(counts: np.ndarray, topology: Topology, cluster: Cluster) -> dict[str, dict[str, int]]:
    """``{operator: {node: count}}`` of a count matrix, nodes in index order: one scan of the matrix for its
    nonzero cells, then O(cells) (not a scan per operator)."""
    op_at, node_at = np.nonzero(counts)
    values = counts[op_at, node_at].astype(np.int64).tolist()
    bounds = np.searchsorted(op_at, np.arange(len(topology.operators) + 1)).tolist()
    ids = cluster.ids
    names = [ids[u] for u in node_at.tolist()]
    return {op.id: dict(zip(names[bounds[i]:bounds[i + 1]], values[bounds[i]:bounds[i + 1]], strict=True))
            for i, op in enumerate(topology.operators)}


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 10 else f"{x:g}"


def capacity_shortfalls(topology: Topology, cluster: Cluster, counts: Mapping[str, int],
                        cpu_hard: bool = False, used_memory: np.ndarray | None = None,
                        used_cpu: np.ndarray | None = None) -> list[str]:
    """Reasons no placement can exist, found without searching (fail fast).

    Checks total memory, each operator's replica against the largest allowed
    node, and each pinned operator against its nodes; CPU too when it is hard.
    """
    free_mem = cluster.memory - (used_memory if used_memory is not None else 0.0)
    free_cpu = cluster.cpu - (used_cpu if used_cpu is not None else 0.0)
    mask = allowed_mask(topology, cluster)
    reasons: list[str] = []
    resources = [("memory", "MB", np.array([op.memory_mb for op in topology.operators]), free_mem)]
    if cpu_hard:
        resources.append(("CPU", "points", np.array([op.cpu for op in topology.operators]), free_cpu))
    n = np.array([counts.get(op.id, op.replicas) for op in topology.operators], dtype=float)
    for label, unit, demand, free in resources:
        total = float((n * demand).sum())
        if total > free.sum() + EPS:
            reasons.append(f"the topology needs {_fmt(total)} {unit} of {label} for {int(n.sum())} replicas; "
                           f"the cluster has {_fmt(float(free.sum()))} {unit} free in total")
        for i, op in enumerate(topology.operators):
            allowed = np.flatnonzero(mask[i])
            u = allowed[int(np.argmax(free[allowed]))]
            where = "allowed node" if op.pinned is not None else "node"
            if demand[i] > free[u] + EPS:
                reasons.append(f"{op.id} needs {_fmt(demand[i])} {unit} of {label} per replica; the largest "
                               f"{where} ({cluster.nodes[u].id}) has {_fmt(float(free[u]))} {unit} free")
            elif op.pinned is not None and n[i] * demand[i] > free[allowed].sum() + EPS:
                reasons.append(f"{op.id} needs {_fmt(n[i] * demand[i])} {unit} of {label} for {int(n[i])} replicas "
                               f"on its pinned nodes {list(op.pinned)}, which have {_fmt(float(free[allowed].sum()))} "
                               f"{unit} free")
    return reasons


# ------------------------------------------------------------------ registry
#: the built-in schedulers by name, with the module (of this package) that registers each, in the order the
#: registry lists them
BUILTIN_MODULES = {"ds2": "ds2", "exhaustive": "exhaustive", "ffd": "ffd", "hetero": "hetero",
                   "hill-climbing": "latency_aware", "ant-system": "latency_aware", "hybrid": "latency_aware",
                   "max-throughput": "max_throughput", "odrp": "odrp", "odp": "odrp", "optimal": "optimal",
                   "round-robin": "round_robin", "r-storm": "rstorm", "storm-even": "storm_even",
                   "storm-ras": "storm_ras"}


class Registry(dict[str, type[BaseScheduler]]):
    """Scheduler name → class, the built-in schedulers' modules imported when first needed: looking one name up
    imports its module alone (a plan by round robin does not import ODRP's networkx or the MILP's highspy — 0.1 s
    of the command line's start), ``in`` needs no import, and going over the whole registry (iterating, its
    length, ``items``) imports them all once, listed in :data:`BUILTIN_MODULES`' order, then any registered by
    other code in their order. Each operation O(1) but the first whole-registry one (imports every module)."""

    def __init__(self, builtins: typing.Mapping[str, str]) -> None:
        super().__init__()
        self._modules = dict(builtins)
        self._complete = False

    def _load(self, name: str) -> None:
        if not super().__contains__(name) and name in self._modules:
            import importlib

            importlib.import_module(f"{__package__}.{self._modules[name]}")

    def _load_all(self) -> None:
        if self._complete:
            return
        self._complete = True
        for name in self._modules:
            self._load(name)
        known = [(n, dict.__getitem__(self, n)) for n in self._modules if dict.__contains__(self, n)]
        others = [(n, cls) for n, cls in dict.items(self) if n not in self._modules]
        dict.clear(self)
        dict.update(self, known + others)

    def __getitem__(self, name: str) -> type[BaseScheduler]:
        self._load(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name) or name in self._modules

    def get(self, name: str, default: Any = None) -> Any:
        self._load(name)
        return super().get(name, default)

    def __iter__(self) -> typing.Iterator[str]:
        self._load_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._load_all()
        return super().__len__()

    def keys(self) -> typing.KeysView[str]:  # type: ignore[override]
        self._load_all()
        return super().keys()

    def values(self) -> typing.ValuesView[type[BaseScheduler]]:  # type: ignore[override]
        self._load_all()
        return super().values()

    def items(self) -> typing.ItemsView[str, type[BaseScheduler]]:  # type: ignore[override]
        self._load_all()
        return super().items()

    def __repr__(self) -> str:
        self._load_all()
        return super().__repr__()

    def copy(self) -> dict[str, type[BaseScheduler]]:
        self._load_all()
        return dict(super().items())


REGISTRY: dict[str, type[BaseScheduler]] = Registry(BUILTIN_MODULES)
#: the scheduler every use case plans with unless told otherwise (Peng et al.'s R-Storm), in the API as on the
#: command line
DEFAULT_SCHEDULER = "r-storm"

S = typing.TypeVar("S", bound=type[BaseScheduler])


def register(cls: S) -> S:
    REGISTRY[cls.name] = cls
    return cls


#: Display order: Storm's default (streamplace's round robin, then Storm 0.9.5's and 2.4.0's own schedulers as
#: modelled), the resource-aware placers, then those that choose parallelism.
PREFERRED_ORDER = ("round-robin", "storm-even", "storm-ras", "r-storm", "ffd", "hill-climbing", "ant-system",
                   "hybrid", "hetero", "ds2", "optimal", "exhaustive", "odp", "odrp")


def scheduler_names() -> list[str]:
    """Every registered scheduler, in display order (the built-in ones imported, so registered, on the way)."""
    known = [n for n in PREFERRED_ORDER if n in REGISTRY]
    return known + [n for n in REGISTRY if n not in known]


def scheduler_summary(name: str, predicted: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Scheduler ``name``'s own figures of a prediction, labelled (its ``summary_rows``); none for a scheduler not
    registered here (a plan file's)."""
    cls = REGISTRY.get(name)
    return cls.summary_rows(predicted) if cls is not None else []


def create(name: str, params: Mapping[str, Any] | None = None) -> BaseScheduler:
    """Instantiate a registered scheduler, coercing string parameters to the field types."""
    if name not in REGISTRY:
        raise SchedulerParamError(f"unknown scheduler {name!r} (fix: use one of {', '.join(REGISTRY)})")
    cls = REGISTRY[name]
    return cls(**coerce_params(cls, params or {}))


def coerce_params(cls: type[BaseScheduler], params: Mapping[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for key, value in params.items():
        head, _, rest = key.partition(".")
        if head not in fields:
            raise SchedulerParamError(
                f"scheduler {cls.name!r} has no parameter {head!r} "
                f"(fix: use one of {', '.join(fields) or 'none'})")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            out[head] = _coerce(value, hints[head], f"{cls.name}.{key}")
    for head, sub in nested.items():
        factory = fields[head].default_factory
        default = factory() if callable(factory) else fields[head].default
        if not isinstance(default, Mapping):
            raise SchedulerParamError(f"parameter {cls.name}.{head} is not a mapping (fix: write {head}=VALUE)")
        open_keys = not default  # an empty default mapping takes any key (e.g. measured rates per operator)
        merged = {key: 0.0 for key in default} if head in cls.partial_mappings else dict(default)
        for k, v in sub.items():
            if open_keys:
                merged[k] = _coerce(v, float, f"{cls.name}.{head}.{k}")
                continue
            if k not in merged:
                raise SchedulerParamError(f"parameter {cls.name}.{head} has no key {k!r} "
                                          f"(fix: use one of {', '.join(merged)})")
            merged[k] = _coerce(v, type(merged[k]), f"{cls.name}.{head}.{k}")
        out[head] = merged
    return out


def _coerce(value: Any, hint: Any, where: str) -> Any:
    return coerce_value(value, hint, where, SchedulerParamError)


def parameter_ranges(cls: type[BaseScheduler]) -> dict[str, str]:
    """The declared range of each numeric parameter (ranges.py), as text: ``max_replicas: [1, 10,000]``."""
    found = {f.name: range_of(cls.name, f.name) for f in dataclasses.fields(cls)}
    return {name: r.text() for name, r in found.items() if r is not None}


def describe_parameters(cls: type[BaseScheduler]) -> list[tuple[str, str]]:
    out = []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        out.append((f.name, repr(default)))
    return out


