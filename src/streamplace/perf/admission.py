"""How much each source may put into one micro-batch, and the trigger that goes with it (pure; issue 36 item 3).

A run's sources are bounded (spark/query/bounded_source.py): a micro-batch admits at most ``rows_per_trigger``
of a source, the rest waits in the source's backlog. The bound is the model's sustainable rate unless the user gives one
(``max_rate``, tuples/s over all sources, shared in proportion to the sources' offered rates):

* the trigger T: the one given, else the shortest whole second whose batch at the admitted rate fits (1 − headroom)
  of it (spark/runtime/run.steady_trigger's rule); where no trigger up to a minute does, the shortest that still
  admits the whole offered rate when it is below the plan's capacity 1 / W (T ≥ F / (1 − s·W)), and above capacity
  the shortest whole second whose fixed cost F is at most ``headroom`` of it (so that most of each trigger carries
  tuples: the trigger-bound rate is (1 − F/T) of the capacity);
* the bound per trigger: ``max_rate`` × T, else the trigger-bound scale s_T of the spark engine (the largest
  scale of the offered rates whose batch fits T) × each source's offered rate × T. Where s_T ≥ 1 the bound only
  clips bursts; below 1 the pipeline is overloaded: its backlog fills every batch to the bound, so the bound is the
  scale s_h whose batch fills (1 − headroom) of T, the trigger's own rule, and the backlog grows by (1 − s_h) × the
  offered rate. (At s_T every batch would end on the next tick and one a little slower than the model would put
  the next off its tick: nasiri-linear's hetero plan on the emulated hetero-3 admitted 134 t/s that way and
  delivered 99–103.)

The prediction of such a run is the engine's at the admitted rates (``admitted_plan``) with a continuous source
(quantum 0: rows arrive one by one, not in whole seconds as Spark's ``rate`` source releases them).

Cost: one evaluation per whole second tried for the trigger (at most ``longest_s``) plus two.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings
from streamplace.perf.evaluate import Evaluation, evaluate

#: share of a trigger a batch may leave unused (as run.TRIGGER_HEADROOM) and, overloaded, the most of a trigger
#: the fixed cost may take
HEADROOM = 0.2
LONGEST_TRIGGER_S = 60


@dataclass(frozen=True)
class Admission:
    """The sources' bound for a run and where it came from."""

    trigger_s: float
    rows_per_trigger: dict[str, int | None]  # source id → most rows one micro-batch admits (None: no bound)
    offered: dict[str, float]  # source id → tuples/s the source offers
    admitted_scale: float  # share of the offered rates the bound lets through at most (≥ 1: no overload)
    source: str  # "max_rate" (the user's) or "model"

    @property
    def max_rate(self) -> float:
        """Tuples/s over all sources the bound admits at most."""
        rows = self.rows_per_trigger.values()
        return math.inf if None in rows else sum(r or 0 for r in rows) / self.trigger_s

    @property
    def overloaded(self) -> bool:
        return self.admitted_scale < 1.0 - 1e-9


def offered_rates(topology: Topology, plan: Plan) -> dict[str, float]:
    """Each source's offered tuples/s: the plan's source rate, else the source's own."""
    return {s.id: float(plan.source_rates.get(s.id) or s.rate or 0.0) for s in topology.sources}


def continuous(engine: EngineSettings, trigger_s: float) -> EngineSettings:
    """The engine's settings for a run of bounded sources at ``trigger_s``: rows arrive continuously (quantum 0)."""
    return engine.with_params({"spark.trigger_s": trigger_s, "spark.quantum_s": 0.0}, "admission")


def admitted_plan(topology: Topology, plan: Plan, adm: Admission) -> Plan:
    """The plan at the rates its bounded sources let through: min(1, admitted scale) × each offered rate."""
    k = min(1.0, adm.admitted_scale)
    return plan.evolve(source_rates={s: r * k for s, r in adm.offered.items()})


def admission(topology: Topology, cluster: Cluster, plan: Plan, engine: EngineSettings,
              trigger_s: float | None = None, max_rate: float | None = None, where: str = "max_rate") -> Admission:
    """The bound and trigger of a run of ``plan`` on ``cluster`` (see the module's docstring). ``where`` names
    ``max_rate`` in errors."""
    offered = offered_rates(topology, plan)
    total = sum(offered.values())
    if total <= 0:
        raise ModelError([Problem("source_rates", "the sources offer no tuples", "give every source a rate > 0")])
    if max_rate is not None and not (max_rate > 0 and math.isfinite(max_rate)):
        raise ModelError([Problem(where, f"the admitted rate must be a positive number of tuples/s, got {max_rate}",
                                  "give a rate > 0, or leave it out for the model's sustainable rate")])
    target = 1.0 if max_rate is None else min(1.0, max_rate / total)
    at_trigger: Evaluation | None = None  # the plan at the offered rates and the chosen trigger, where found
    if trigger_s is None:
        trigger_s, at_trigger = _trigger(
            topology, cluster, plan.evolve(source_rates={s: r * target for s, r in offered.items()}), engine)
    if max_rate is not None:
        scale, source = max_rate / total, "max_rate"
    else:  # target 1: the trigger search evaluated this very plan at this trigger; it is not evaluated again
        scale, source = _sustainable_scale(topology, cluster, plan, engine, trigger_s, at_trigger), "model"
        if scale <= 0:
            fixed = evaluate(topology, cluster, plan, engine=continuous(engine, trigger_s)).engine_detail.get(
                "batch_fixed_s", 0.0)
            raise ModelError([Problem("trigger_s", f"a {trigger_s:g} s trigger leaves no room for tuples: the "
                                      f"{engine.name} model's fixed cost per micro-batch is {fixed:.2f} s",
                                      f"leave the trigger to the model (auto), give one above {fixed:.2f} s, or "
                                      f"bound the rate ({where})")])
    if not math.isfinite(scale):
        return Admission(float(trigger_s), dict.fromkeys(offered), offered, scale, source)
    rows = {s: _whole_rows(r, scale, trigger_s) for s, r in offered.items()}
    # what the whole rows let through, not the scale they were rounded from: at 4.49 t/s and a 2 s trigger a
    # batch admits 8 rows, 4.0 t/s (a prediction at 4.49 was 12 % high on the emulated hetero-3)
    admitted = min((n / (offered[s] * trigger_s) for s, n in rows.items() if offered[s] > 0), default=scale)
    return Admission(float(trigger_s), dict(rows), offered, admitted, source)  # dict(): the field's values may be None


def _whole_rows(rate: float, scale: float, trigger_s: float) -> int:
    """The most rows one micro-batch of a source offering ``rate`` admits at ``scale`` of it: whole rows, at least
    one; where the scale covers the offered rate (≥ 1), at least every row a trigger brings (rounded up), so that
    rounding alone never makes a sustained rate a growing backlog."""
    rows = math.floor(rate * scale * trigger_s + 1e-9)
    if scale >= 1.0:
        rows = max(rows, math.ceil(rate * trigger_s - 1e-9))
    return max(1, rows)


def _sustainable_scale(topology: Topology, cluster: Cluster, plan: Plan, engine: EngineSettings,
                       trigger_s: float, known: Evaluation | None = None) -> float:
    """The largest scale of the offered rates the model sustains at ``trigger_s``: another engine's sustainable
    scale (inf: no bound); for the spark engine the trigger-bound scale s_T (a batch fits its trigger) where that
    covers the offered rates, else — overloaded, every batch filled to the bound from the backlog — the scale s_h
    whose batch fills (1 − HEADROOM) of the trigger, as the trigger itself is chosen: at s_T every batch would end
    on the next tick, and a batch a little slower than the model (±10–25 % on the emulated clusters) would put
    each next one off its tick (nasiri-linear on hetero-3 admitted 134 t/s at s_T and delivered 99–103). Where the
    fixed cost leaves no room for the headroom (a trigger the user gave), s_T. ``known``: the plan's evaluation at
    ``trigger_s`` already made (the trigger search's last), so that it is not made twice."""
    ev = known if known is not None else evaluate(topology, cluster, plan, engine=continuous(engine, trigger_s))
    if not engine.model.micro_batches:
        return float(ev.sustainable_scale)
    if ev.offered_throughput <= 0:
        return math.inf
    s_t = float(ev.engine_detail.get("trigger_throughput", 0.0)) / ev.offered_throughput
    if s_t >= 1.0:
        return s_t
    fixed = float(ev.engine_detail.get("batch_fixed_s") or 0.0)
    work = float(ev.engine_detail.get("work_s_per_scale_second") or 0.0)
    s_h = ((1.0 - HEADROOM) * trigger_s - fixed) / (trigger_s * work) if work > 0 else 0.0
    return s_h if s_h > 0 else s_t


def _trigger(topology: Topology, cluster: Cluster, plan: Plan, engine: EngineSettings
             ) -> tuple[float, Evaluation | None]:
    """The shortest whole second whose batch at ``plan``'s rates takes at most (1 − HEADROOM) of it; where none up
    to LONGEST_TRIGGER_S does, the shortest that still keeps up with them (a batch at the offered rate fits its
    trigger: T ≥ F / (1 − s·W) for a load s·W < 1), and above capacity the shortest whose fixed cost F is at
    most HEADROOM of it. With it, the plan's evaluation at that trigger (every trigger it returns was tried)."""
    if not engine.model.micro_batches:
        return engine.spark.trigger_s, None
    fixed, capacity = 0.0, math.inf
    tried: dict[int, Evaluation] = {}
    for seconds in range(1, LONGEST_TRIGGER_S + 1):
        ev = tried[seconds] = evaluate(topology, cluster, plan, engine=continuous(engine, float(seconds)))
        batch = ev.engine_detail.get("batch_s")
        fixed, capacity = float(ev.engine_detail.get("batch_fixed_s") or 0.0), float(ev.sustainable_scale)
        if batch is None or batch <= (1.0 - HEADROOM) * seconds:
            return float(seconds), ev
    if capacity > 1.0:  # below capacity: the shortest trigger whose bound admits the whole offered rate
        chosen = min(LONGEST_TRIGGER_S, max(1, math.ceil(fixed / (1.0 - 1.0 / capacity) - 1e-9)))
    else:
        chosen = min(LONGEST_TRIGGER_S, max(1, math.ceil(fixed / HEADROOM - 1e-9)))
    return float(chosen), tried.get(chosen)
