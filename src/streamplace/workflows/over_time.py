"""The what-if use case over time: a plan stepped through seconds of Storm by the time model (sim/storm_time.py),
beside what the steady-state ``storm`` engine predicts for it. `streamplace evaluate --over-time` calls it;
nothing here prints.

The steady-state engine says which rate a plan sustains and has nothing to say above it; this answers "what
happens to this plan at 1.5 × its capacity?": sink throughput, goodput (tuples of root tuples completed within
the time-out), complete latency, failures, replays and the queue left at the end, under Storm's acking, time-outs
and ``max_spout_pending``. The load is a multiple of the topology's offered rate (``load``) or of the rate the
steady state sustains (``at_capacity``). Parameters: the storm engine's ``storm.KEY`` (its per-tuple costs and
``max_spout_pending``, which both models use) and the time model's own ``time.KEY``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.params import by_scope
from streamplace.perf.engines import EngineSettings
from streamplace.perf.engines.base import coerce_field
from streamplace.sim.storm_time import StormTimeResult, StormTimeSettings, TopologySummary, simulate_storm
from streamplace.workflows import arguments
from streamplace.workflows.instance import Say, Spec, silent
from streamplace.workflows.planning import Prediction, predict

#: the engine whose steady state the time model steps through time (its per-tuple costs, its flow control)
OVER_TIME_ENGINE = "storm"
#: the time model's own parameters (``time.KEY``); ``max_spout_pending`` is the storm engine's (``storm.KEY``),
#: so that both models run under the same flow control, and ``storm`` its per-tuple costs
TIME_KEYS = tuple(f.name for f in dataclasses.fields(StormTimeSettings) if f.name not in ("storm", "max_spout_pending"))
#: the longest run and the most steps accepted: an hour of Storm at the default 50 ms step is 72,000 steps
#: (one topology of ~100 replicas: about a minute of CPU); more is refused, not left to run for hours
MAX_DURATION_S = 3600.0
MAX_STEPS = 100_000
MAX_LOAD = 1000.0
SERIES_SUFFIXES = (".csv", ".parquet")


@dataclass(frozen=True)
class OverTime:
    """A plan stepped through time: the steady-state prediction at the offered rate, the load the sources ran at
    (× the offered rate), the time model's settings and its result (``result.series()`` per second)."""

    prediction: Prediction
    load: float
    duration_s: float
    settings: StormTimeSettings
    result: StormTimeResult

    @property
    def summary(self) -> TopologySummary:
        """Means over the run's second half (sim.storm_time.StormTimeResult.summary)."""
        return self.result.summary()[0]

    @property
    def capacity(self) -> float:
        """The steady state's sustainable scale: the multiple of the offered rate the plan sustains."""
        return float(self.prediction.evaluation.sustainable_scale)

    def as_dict(self) -> dict[str, Any]:
        """The figures as `evaluate --over-time --json` prints them."""
        s = self.summary
        return {"duration_s": self.duration_s, "load": self.load, "capacity": self.capacity,
                "settings": {k: getattr(self.settings, k) for k in (*TIME_KEYS, "max_spout_pending")},
                "offered": s.offered, "steady_state": s.steady_state, "throughput": s.throughput,
                "goodput": s.goodput, "latency_ms": s.latency_ms if math.isfinite(s.latency_ms) else None,
                "failed": s.failed, "replayed": s.replayed, "queued_end": s.queued_end, "starving": s.starving,
                "window": "means over the second half of the run"}


def time_settings(params: Mapping[str, Any] | None, engine: EngineSettings, where: str = "params"
                  ) -> StormTimeSettings:
    """The time model's settings: ``time.KEY`` entries of ``params`` (text coerced, ranges checked), the storm
    engine's per-tuple costs and ``max_spout_pending`` from ``engine``."""
    storm = engine.settings_for(OVER_TIME_ENGINE)
    values: dict[str, Any] = {}
    for key, value in (params or {}).items():
        if key not in TIME_KEYS:
            raise ModelError([Problem(where, f"no time model parameter 'time.{key}'",
                                      "use one of " + ", ".join(f"time.{k}" for k in TIME_KEYS))])
        values[key] = value if key == "nic_sharing" else coerce_field(StormTimeSettings, key, value, where,
                                                                      f"time.{key}")
    try:
        return StormTimeSettings(**values, max_spout_pending=storm.max_spout_pending, storm=storm)
    except ValueError as exc:
        raise ModelError([Problem(where, str(exc), "e.g. time.dt_s=0.05, time.bin_s=0.5, time.timeout_s=30, "
                                  "time.nic_sharing=fifo")]) from exc


def _check_run(duration_s: float, load: float | None, at_capacity: float | None, settings: StormTimeSettings,
               series: Path | None) -> None:
    problems = []
    if not (math.isfinite(duration_s) and 0 < duration_s <= MAX_DURATION_S):
        problems.append(Problem("duration_s", f"must be in (0, {MAX_DURATION_S:g}] seconds, got {duration_s:g}",
                                "give the seconds of Storm to step, e.g. 300"))
    elif duration_s / settings.dt_s > MAX_STEPS:
        problems.append(Problem("duration_s", f"{duration_s:g} s at a {settings.dt_s:g} s step is "
                                f"{duration_s / settings.dt_s:,.0f} steps, more than {MAX_STEPS:,}",
                                "step fewer seconds or set a larger time.dt_s"))
    if load is not None and at_capacity is not None:
        problems.append(Problem("load", "give [[load]] or [[at_capacity]], not both",
                                "[[load]]: × the offered rate; [[at_capacity]]: × the rate the steady state sustains"))
    for name, value in (("load", load), ("at_capacity", at_capacity)):
        if value is not None and not (math.isfinite(value) and 0 < value <= MAX_LOAD):
            problems.append(Problem(name, f"must be in (0, {MAX_LOAD:g}], got {value:g}", "e.g. 1.5"))
    if series is not None and series.suffix not in SERIES_SUFFIXES:
        problems.append(Problem("series", f"{series.name}: one of {', '.join(SERIES_SUFFIXES)}",
                                "name the file .csv or .parquet"))
    if problems:
        raise ModelError(problems)


def storm_over_time(topology: Topology | Spec, cluster: Cluster | Spec, plan: Plan | Spec, duration_s: float, *,
                    load: float | None = None, at_capacity: float | None = None,
                    profile: Profile | Spec | None = None, params: Mapping[str, Any] | None = None,
                    series: str | Path | None = None, on_warning: Say = silent) -> OverTime:
    """Step ``plan`` through ``duration_s`` seconds of Storm with its sources at ``load`` × the topology's offered
    rate, or ``at_capacity`` × the rate the steady-state storm engine says it sustains (default: the offered
    rate); write the per-second series to ``series`` (.csv or .parquet) where given. ``params``: ``storm.KEY``
    (both models) and ``time.KEY`` (the time model's step, cohort width, time-out, acking, replay, sampling,
    NIC sharing). Refused (ModelError on the field): a load out of (0, 1000], a run over an hour or 100,000
    steps, an infeasible plan, ``at_capacity`` where the steady state sustains no rate or any."""
    arguments.number(duration_s, "duration_s", "give the seconds of Storm to step, e.g. 300")
    arguments.number(load, "load", "give a multiple of the offered rate, e.g. load=1.5, or None", optional=True)
    arguments.number(at_capacity, "at_capacity", "give a multiple of the sustainable rate, e.g. at_capacity=1.5, "
                     "or None", optional=True)
    arguments.path(series, "series", "give a .csv or .parquet path, e.g. series='run.csv', or None")
    arguments.parameters(params)
    series = Path(series) if series is not None else None
    scoped, rest = by_scope(params or {}, ("time",))
    pred = predict(topology, cluster, plan, profile=profile, engine=OVER_TIME_ENGINE, params=rest,
                   on_warning=on_warning)
    settings = time_settings(scoped.get("time"), pred.engine)
    _check_run(duration_s, load, at_capacity, settings, series)
    scale = float(pred.evaluation.sustainable_scale)
    if at_capacity is not None:
        if not (math.isfinite(scale) and scale > 0):
            raise ModelError([Problem("at_capacity", f"the steady state sustains {scale:g} × the offered rate: "
                                      "no capacity to take a multiple of", "give [[load]] instead")])
        factor = at_capacity * scale
    else:
        factor = 1.0 if load is None else load
    result = simulate_storm([pred.instance.topology], [pred.plan], pred.instance.cluster, duration_s, settings,
                            factor)
    if series is not None:
        # lazy: pandas
        from streamplace.files import replace_whole
        from streamplace.sim.series import write_series

        replace_whole(series, lambda tmp: write_series(result.series(), tmp))
    return OverTime(pred, factor, duration_s, settings, result)
