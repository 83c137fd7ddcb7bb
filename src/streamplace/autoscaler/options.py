"""The autoscaler's options: one typed object, its defaults, its ranges, and the check that refuses bad values.

Every option has a default a user can start from and a range outside which it only breaks the decision (a
target utilization of 3, a billing unit of −1 s); ``check`` refuses those before any query is touched, naming
the option (``autoscale.<name>``) and the fix. Worker types carry what heterogeneity needs: a speed (how many
reference cores one of the executor's cores is worth) and a price per billing unit.

The defaults follow Flink's autoscaler where the idea is the same (target utilization 0.7, a scale-down step
keeps at least 40 % of the capacity, ineffective scale-ups under 10 % of the expected gain), scaled to
micro-batches that run for minutes rather than the hours Flink's defaults assume (stabilization 60 s, not
5 min; the scale-down window 3 min, not 1 h; catch-up 5 min, not 30), and Hochreiner et al.'s BTU rule for
releases (the last 5 % of a paid unit).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from streamplace.errors import ModelError, Problem
from streamplace.ranges import Range


@dataclass(frozen=True)
class WorkerType:
    """What an executor on a kind of worker is worth and costs: ``speed`` reference cores per core (1: as fast as
    the machine the query's cost was first measured on), ``price`` per ``unit_s`` seconds of billing (a started
    unit is paid in full; per-second billing is a unit of 1 s)."""

    speed: float = 1.0
    price: float = 1.0
    unit_s: float = 3600.0


DEFAULT_TYPE = "default"


@dataclass(frozen=True)
class AutoscaleOptions:
    """How the autoscaler decides. Times in seconds; utilization = batch time / target batch time."""

    #: the batch time to stay within (None: the query's trigger interval; a query without one must say)
    target_batch_s: float | None = None
    #: the share of the target batch time a batch should take after a change (Flink: 0.7)
    target_utilization: float = 0.7
    #: a scale-up only above target + band, a scale-down only below target − band or where a whole executor is spare
    #: at the target utilization (Flink's bound: ±0.3)
    utilization_band: float = 0.2
    #: a backlog is to be drained within this time, on top of the arrival rate (Flink: catch-up duration)
    catch_up_s: float = 300.0
    #: no change within this time of the last one (Flink: stabilization interval)
    stabilization_s: float = 60.0
    #: a scale-down waits this long after it is first recommended, and is then sized by the highest need of the
    #: last scale_down_window_s (a sliding window,
    #: as Flink's autoscaler keeps its delayed scale-downs)
    scale_down_window_s: float = 180.0
    #: a scale-down keeps at least this share of the capacity. Flink's ``scale-down.max-factor`` 0.6 is applied in
    #: JobVertexScaler as a smallest scale factor of 1 − 0.6 = 0.4: a step may cut up to 60 %, keeping 40 %
    #: (its description, "scaled down with 60 % of the original parallelism", reads the other way; the code rules)
    min_scale_down_keep: float = 0.4
    #: a scale-up that realized less than this share of its expected gain is ineffective and not repeated
    ineffective_share: float = 0.1
    #: how long an ineffective scale-up blocks further scale-ups (a scale-down lifts it sooner)
    ineffective_block_s: float = 1800.0
    #: at most this many changes in any hour
    max_changes_per_hour: int = 12
    min_executors: int = 1
    #: None: as many as the cluster has
    max_executors: int | None = None
    #: an executor is released only in the last ``release_window`` share of its paid unit (Hochreiner et al.: 5 %),
    #: or within the next ``release_horizon_s`` when that is longer (the next decisions may come too late)
    release_window: float = 0.05
    release_horizon_s: float = 30.0
    #: batches after a change (and after the query's start) that are neither fitted nor judged: new executors
    #: start their JVMs and Python workers there
    warmup_batches: int = 2
    #: points (batches) the fit needs before it is used; fewer: the conservative fallback rule
    min_points: int = 5
    #: the most recent batches the fit uses
    window_points: int = 120
    #: doubling the capacity multiplies the rate by 2 ** this until the query's own changes say otherwise (1:
    #: linear; 0.8 is conservative for scale-ups; a scale-down is always judged as if linear)
    prior_scaling: float = 0.8
    #: worker type → speed and price; executors are matched to types by ``executor_types``
    worker_types: Mapping[str, WorkerType] = field(
        default_factory=lambda: MappingProxyType({DEFAULT_TYPE: WorkerType()}))
    #: executor host → worker type name (hosts not named: ``default``)
    executor_types: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def type_name(self, host: str) -> str:
        """The worker type of an executor on ``host`` (``check`` makes sure it exists)."""
        return self.executor_types.get(host, DEFAULT_TYPE)

    def type_of(self, host: str) -> WorkerType:
        return self.worker_types[self.type_name(host)]


#: the range of every numeric option (refused outside it, with the range in the message)
RANGES: dict[str, Range] = {
    "target_batch_s": Range(0.0, 86_400.0, lo_open=True),
    "target_utilization": Range(0.0, 1.0, lo_open=True),
    "utilization_band": Range(0.0, 1.0),
    "catch_up_s": Range(0.0, 86_400.0, lo_open=True),
    "stabilization_s": Range(0.0, 86_400.0),
    "scale_down_window_s": Range(0.0, 86_400.0),
    "min_scale_down_keep": Range(0.0, 1.0, lo_open=True),
    "ineffective_share": Range(0.0, 1.0),
    "ineffective_block_s": Range(0.0, 7 * 86_400.0),
    "max_changes_per_hour": Range(1, 3600, integer=True),
    "min_executors": Range(0, 100_000, integer=True),
    "max_executors": Range(1, 100_000, integer=True),
    "release_window": Range(0.0, 1.0),
    "release_horizon_s": Range(0.0, 86_400.0),
    "warmup_batches": Range(0, 1000, integer=True),
    "min_points": Range(2, 10_000, integer=True),
    "window_points": Range(2, 100_000, integer=True),
    "prior_scaling": Range(0.0, 1.0, lo_open=True),
}
TYPE_RANGES: dict[str, Range] = {
    "speed": Range(0.0, 1e6, lo_open=True), "price": Range(0.0, 1e12), "unit_s": Range(0.0, 31 * 86_400.0,
                                                                                         lo_open=True),
}


def _bad(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | float)


def check(options: AutoscaleOptions, prefix: str = "autoscale") -> AutoscaleOptions:
    """``options`` when every value is in its range; else a ModelError naming each bad one (``autoscale.<name>``),
    its range and the fix. Called before the query is touched."""
    problems: list[Problem] = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        allowed = RANGES.get(f.name)
        if allowed is None or value is None:
            continue
        if _bad(value) or not allowed.admits(float(value)):
            problems.append(Problem(f"{prefix}.{f.name}", f"must be a number in {allowed.text()}, got {value!r}",
                                    f"give {f.name} a value in {allowed.text()}"))
    if options.max_executors is not None and isinstance(options.min_executors, int) \
            and options.max_executors < options.min_executors:
        problems.append(Problem(f"{prefix}.max_executors", f"{options.max_executors} is below min_executors "
                                f"{options.min_executors}", "raise max_executors or lower min_executors"))
    if options.min_points > options.window_points:
        problems.append(Problem(f"{prefix}.min_points", f"{options.min_points} is more than the window of "
                                f"{options.window_points} points the fit keeps", "lower min_points or raise "
                                "window_points"))
    if options.target_utilization + options.utilization_band > 1.0 + 1e-9:
        problems.append(Problem(f"{prefix}.utilization_band", f"target {options.target_utilization:g} + band "
                                f"{options.utilization_band:g} exceeds 1: batches would miss the target before "
                                "any scale-up", "lower utilization_band or target_utilization"))
    if DEFAULT_TYPE not in options.worker_types:
        problems.append(Problem(f"{prefix}.worker_types", f"has no {DEFAULT_TYPE!r} type for executors on hosts "
                                "executor_types does not name", f"add a {DEFAULT_TYPE!r} worker type"))
    for name, kind in options.worker_types.items():
        if not isinstance(kind, WorkerType):
            problems.append(Problem(f"{prefix}.worker_types.{name}", f"must be a WorkerType, got {kind!r}",
                                    "write WorkerType(speed=..., price=..., unit_s=...)"))
            continue
        for key, allowed in TYPE_RANGES.items():
            value = getattr(kind, key)
            if _bad(value) or not allowed.admits(float(value)):
                problems.append(Problem(f"{prefix}.worker_types.{name}.{key}",
                                        f"must be a number in {allowed.text()}, got {value!r}",
                                        f"give {key} a value in {allowed.text()}"))
    for host, name in options.executor_types.items():
        if name not in options.worker_types:
            problems.append(Problem(f"{prefix}.executor_types.{host}", f"names no worker type ({name!r})",
                                    f"use one of {', '.join(sorted(options.worker_types))}"))
    if problems:
        raise ModelError(problems)
    return options


def options_from(values: Mapping[str, Any] | None = None, prefix: str = "autoscale") -> AutoscaleOptions:
    """AutoscaleOptions from keyword values (unknown names refused with the valid ones), checked."""
    values = dict(values or {})
    known = {f.name for f in dataclasses.fields(AutoscaleOptions)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ModelError([Problem(f"{prefix}.{name}", "is not an autoscaler option",
                                  f"use one of {', '.join(sorted(known))}") for name in unknown])
    kinds = values.get("worker_types")
    if isinstance(kinds, Mapping):
        values["worker_types"] = MappingProxyType({DEFAULT_TYPE: WorkerType(), **{
            name: WorkerType(**k) if isinstance(k, Mapping) else k for name, k in kinds.items()}})
    if isinstance(values.get("executor_types"), Mapping):
        values["executor_types"] = MappingProxyType(dict(values["executor_types"]))
    return check(AutoscaleOptions(**values), prefix)
