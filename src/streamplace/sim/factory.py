"""Build a controller and a simulation configuration from ``key=value`` parameters (the CLI's ``--param``).

A key names either a controller constant (``btu``: scaling_threshold, history, cf,
ql, weights, penalty, release_window, max_release_share, double_threshold,
migrate_with_scaledown, cooldown_s, vm_start_guard_s; ``threshold``: up, double_up, down, victim, trigger,
history) or a
simulation setting (``SimConfig``: btu_minutes, price_per_btu, penalty_per_item,
service_ratio, dt, lease_delay_s, …). Tuples are written comma-separated
(``weights=1,1,2,1``). An unknown key is an error that lists the valid ones.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from typing import Any

from streamplace.coerce import coerce_value
from streamplace.elastic.btu import BtuController
from streamplace.elastic.controller import Controller
from streamplace.elastic.factory import INTERNAL_FIELDS, controller_class, field_default
from streamplace.errors import Problem, SpecError
from streamplace.ranges import Range
from streamplace.sim.engine import SimConfig

#: the longest simulation ``simulate`` runs (a week of minutes; ``--minutes`` above it is refused, not run for days)
MAX_MINUTES = 7 * 24 * 60
#: the most time steps one simulation runs (a week at the default dt of 1 s is 604,800; each step is O(instances
#: + operators)): a tiny ``dt`` over many minutes is refused, not run for days
MAX_STEPS = 10_000_000

#: the range of every numeric controller and simulator parameter (one table; a tuple parameter's every value);
#: beyond these a parameter only breaks the model (a BTU of 1e-300 minutes, a time step of two hours, releasing
#: five times a type's instances) — refused with the range, never computed with
RANGES: dict[str, Range] = {
    # BTU controller (Hochreiner et al. 2017) and the threshold baseline
    "scaling_threshold": Range(0.0, 1e9), "history": Range(1, 10_000, integer=True), "cf": Range(0.0, 1e6),
    "ql": Range(0.0, 1e9, lo_open=True), "weights": Range(0.0, 1e6), "penalty": Range(0.0, 1e6),
    "release_window": Range(0.0, 1.0, lo_open=True), "max_release_share": Range(0.0, 1.0, lo_open=True),
    "double_threshold": Range(0.0, 1e9), "cooldown_s": Range(0.0, 86_400.0), "vm_start_guard_s": Range(0.0, 86_400.0),
    "up": Range(0.0, 1e9), "double_up": Range(0.0, 1e9), "down": Range(0.0, 1e9),
    # the simulator
    "dt": Range(0.0, 60.0, lo_open=True), "monitor_s": Range(0.0, 3_600.0, lo_open=True),
    "reason_s": Range(0.0, 86_400.0, lo_open=True), "btu_minutes": Range(1.0, 1_440.0),
    "price_per_btu": Range(0.0, 1e9), "lease_delay_s": Range(0.0, 86_400.0), "start_cached_s": Range(0.0, 86_400.0),
    "start_uncached_s": Range(0.0, 86_400.0), "penalty_per_item": Range(0.0, 1e6),
    "initial_hosts": Range(1, 10_000, integer=True), "initial_utilization": Range(0.0, 1.0),
    "service_ratio": Range(0.0, 1.0, lo_open=True), "service_cv": Range(0.0, 100.0, lo_open=True),
}


def check_range(key: str, value: Any) -> None:
    """SpecError naming ``params.key``, its range and the fix where ``value`` (or a value of a tuple) is outside
    RANGES or not finite."""
    allowed = RANGES.get(key)
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            continue
        if not (allowed.admits(v) if allowed is not None else math.isfinite(v)):
            where = f"in {allowed.text()}" if allowed is not None else "finite"
            raise SpecError([Problem(f"params.{key}", f"must be {where}, got {v!r}", f"give {key} a value {where}")])


def sim_parameters() -> dict[str, Any]:
    return {f.name: field_default(f) for f in dataclasses.fields(SimConfig) if f.name not in ("minutes", "seed")}


def build(name: str, params: Mapping[str, str], minutes: int, seed: int) -> tuple[Controller, SimConfig]:
    """The controller ``name`` and a SimConfig, with every parameter routed to the one that owns it."""
    cls = controller_class(name)
    ctrl_fields = {f.name: f for f in dataclasses.fields(cls) if f.name not in INTERNAL_FIELDS}
    sim_fields = {f.name: f for f in dataclasses.fields(SimConfig) if f.name not in ("minutes", "seed")}
    ctrl_hints, sim_hints = typing.get_type_hints(cls), typing.get_type_hints(SimConfig)
    ctrl_kw: dict[str, Any] = {}
    sim_kw: dict[str, Any] = {}
    if not 1 <= minutes <= MAX_MINUTES:
        raise SpecError([Problem("minutes", f"must be in [1, {MAX_MINUTES:,}] (a week), got {minutes:,}",
                                 f"simulate at most {MAX_MINUTES:,} minutes at a time")])
    for key, raw in params.items():
        if key in ctrl_fields:
            ctrl_kw[key] = _coerce(raw, ctrl_hints[key], key)
            check_range(key, ctrl_kw[key])
            if key in sim_fields:  # e.g. history: the controller's N is also the samples monitoring keeps
                sim_kw[key] = _coerce(raw, sim_hints[key], key)
        elif key in sim_fields:
            sim_kw[key] = _coerce(raw, sim_hints[key], key)
            check_range(key, sim_kw[key])
        else:
            valid = sorted(set(ctrl_fields) | set(sim_fields))
            raise SpecError([Problem(f"params.{key}", f"not a parameter of the {name!r} controller or the simulator",
                                     f"use one of {', '.join(valid)}")])
    try:
        ctrl = cls(**ctrl_kw)
    except ValueError as exc:
        raise SpecError([Problem("params", str(exc), "give a value in the stated range")]) from None
    if isinstance(ctrl, BtuController) and "reason_s" in sim_kw:
        ctrl.reason_s = sim_kw["reason_s"]
    try:
        cfg = SimConfig(minutes=minutes, seed=seed, **sim_kw)
    except ValueError as exc:
        raise SpecError([Problem("params", str(exc), "give a value in the stated range")]) from None
    steps = minutes * 60 / cfg.dt
    if steps > MAX_STEPS:
        raise SpecError([Problem("params.dt", f"{minutes:,} minutes at dt = {cfg.dt:g} s is {steps:,.0f} time steps, "
                                 f"more than the {MAX_STEPS:,} a simulation runs",
                                 f"raise dt to at least {minutes * 60 / MAX_STEPS:.3g} s or simulate fewer minutes")])
    return ctrl, cfg


def _coerce(raw: str, hint: Any, key: str) -> Any:
    def error(message: str) -> SpecError:
        return SpecError([Problem(f"params.{key}", message, f"write it as {key}=VALUE")])

    return coerce_value(raw, hint, key, error)
