"""The decision: the smallest, cheapest allocation that keeps a query's batches within target. Pure.

``decide(view, memory, options)`` reads the collected state (state.View), evaluates it (evaluate.py) and returns
a Decision — add executors of these worker types, release these executors, or keep — with a reason a person can
read, and the Memory the next call starts from. No clock, no Spark, no I/O: the live autoscaler and a simulated
query call the same function.

The rule, in order:

1. **Need.** Rows a batch must carry = (arrival rate + backlog / ``catch_up_s``) × target batch time, the rate the
   higher of the recent window's and the last interval's for a scale-up (a rise is met at once), the last
   interval's for a scale-down (whose window then keeps the busiest interval's need); the capacity
   that runs them within ``target_utilization`` × target, from the query's own cost fit (fit.py). With too few
   settled batches for a fit, a conservative rule: scale up by the ratio of the settled batches' utilization to
   the target, never down.
2. **Band.** A scale-up only where the predicted utilization at the current capacity exceeds target +
   ``utilization_band``; a scale-down where it is under target − band, or where the need leaves a whole executor
   spare at the target utilization (with a fixed cost per batch the utilization hardly moves with capacity, and
   the band alone would keep every executor). Else nothing changes.
3. **Guards.** No change while executors are still registering, nor within ``stabilization_s`` of the last
   change taking effect (decided, and its executors registered), nor past ``max_changes_per_hour``. Scale-ups:
   not repeated after one that realized under ``ineffective_share`` of its expected gain (for
   ``ineffective_block_s``). Scale-downs: none while a backlog drains; delayed by ``scale_down_window_s`` after
   it is first recommended and then sized by the highest need of the last ``scale_down_window_s`` (a sliding
   window, as Flink's DelayedScaleDown); at most down to ``min_scale_down_keep`` of the capacity in one step.
4. **Which executors.** Added: the worker types whose capacity is cheapest (price per unit of time per reference
   core), as the cluster has them free. Released: only executors within the last ``release_window`` of their
   paid billing unit (or the next ``release_horizon_s``), the dearest capacity first (Hochreiner et al.'s BTU
   rule: an hour already paid for is used, not given back); with one of them, those within two such windows of
   their unit's end (one action, one state reload, instead of two).
5. **What cannot change** is said where it limits the decision: a stateful query's shuffle partitions (the most
   tasks its stateful stage runs at once, fixed in the checkpoint), the tasks of the heaviest stage (from Spark's
   status store: its partitions bound the cores that speed it up), state locality, a fixed cost per batch that
   alone exceeds the target, a cluster with nothing left to give.

O(batches in the window + executors · log executors) per call.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass
from typing import Any

from streamplace.autoscaler.evaluate import Evaluation, capacity_of, evaluate, settled
from streamplace.autoscaler.fit import CostFit
from streamplace.autoscaler.options import AutoscaleOptions, WorkerType
from streamplace.autoscaler.state import Change, Executor, Memory, View
from streamplace.elastic.billing import Lease, remaining_in_btu

HOUR_S = 3600.0
#: a fitted β below this is said: added capacity barely helps the query
LITTLE_GAIN_EXPONENT = 0.3
#: the rows' part of a batch (at the current capacity) must be at least this share of the target for the fit to
#: call an executor spare
ROWS_PART_MIN = 0.01


@dataclass(frozen=True)
class Decision:
    """What to do now and why. ``add``: one worker type name per executor to request; ``release``: executor ids."""

    at_s: float
    action: str  # "up", "down" or "keep"
    reason: str
    executors: int
    target_executors: int
    capacity: float
    target_capacity: float
    add: tuple[str, ...] = ()
    release: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()
    arrival_rows_s: float | None = None
    backlog_rows: float = 0.0
    utilization: float | None = None  # measured, recent batches
    predicted_utilization: float | None = None  # at the current capacity, catch-up included
    needed_capacity: float | None = None
    fit: dict[str, Any] | None = None
    rule: str = "model"  # "model", "fallback" (too few points) or "none" (nothing to decide on yet)
    recommend_only: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for key in ("capacity", "target_capacity", "arrival_rows_s", "backlog_rows", "utilization",
                    "predicted_utilization", "needed_capacity"):
            value = out[key]
            if isinstance(value, float):
                out[key] = round(value, 4) if math.isfinite(value) else None
        out["add"], out["release"], out["limits"] = list(self.add), list(self.release), list(self.limits)
        return out


def _cost_per_core_s(kind: WorkerType, cores: float) -> float:
    return kind.price / kind.unit_s / max(cores * kind.speed, 1e-12)


def new_cores(executors: tuple[Executor, ...], type_name: str) -> int:
    """Cores a new executor of ``type_name`` is expected to have: the median of its live ones, else of all, else 1."""
    same = [e.cores for e in executors if e.type_name == type_name] or [e.cores for e in executors]
    return int(statistics.median(same)) if same else 1


def choose_adds(view: View, options: AutoscaleOptions, deficit: float, room: int) -> tuple[str, ...]:
    """Worker types to add, cheapest capacity first, until ``deficit`` reference cores are covered or ``room``
    executors are requested."""
    free = dict(view.available) if view.available is not None else {"default": room}
    kinds = sorted(free, key=lambda t: (_cost_per_core_s(options.worker_types[t], new_cores(view.executors, t)),
                                        -options.worker_types[t].speed, t))
    out: list[str] = []
    covered = 0.0
    for name in kinds:
        gain = new_cores(view.executors, name) * options.worker_types[name].speed
        while free[name] > 0 and covered < deficit - 1e-9 and len(out) < room:
            out.append(name)
            free[name] -= 1
            covered += gain
    return tuple(out)


def paid_left_s(e: Executor, now_s: float, options: AutoscaleOptions) -> float:
    """Seconds until the end of the billing unit ``e`` has already paid for."""
    return remaining_in_btu(Lease(e.started_s), now_s, options.worker_types[e.type_name].unit_s)


def release_window_s(e: Executor, options: AutoscaleOptions) -> float:
    """How long before the end of its paid unit ``e`` may go: ``release_window`` of the unit, at least
    ``release_horizon_s``."""
    return max(options.release_window * options.worker_types[e.type_name].unit_s, options.release_horizon_s)


def releasable(e: Executor, now_s: float, options: AutoscaleOptions) -> bool:
    return paid_left_s(e, now_s, options) <= release_window_s(e, options)


#: an executor within this many release windows of its paid unit's end goes with one that is at it
CO_RELEASE_WINDOWS = 2.0


def choose_releases(view: View, options: AutoscaleOptions, floor: float) -> tuple[str, ...]:
    """Executors to release, keeping at least ``floor`` reference cores and ``min_executors``: those at the end
    of a paid unit, the dearest capacity first, then the one whose paid time runs out soonest — and, once one
    goes, those within ``CO_RELEASE_WINDOWS`` release windows of their unit's end, so that one action (one state
    reload, measured at one missed batch each on the emulated cluster) does what two would: they give up at most
    a window's paid time more."""
    capacity = capacity_of(view.executors, options)
    left = len(view.executors)

    def order(e: Executor) -> tuple[float, float, str]:
        return (-_cost_per_core_s(options.worker_types[e.type_name], e.cores), paid_left_s(e, view.now_s, options),
                e.id)

    due = sorted((e for e in view.executors if releasable(e, view.now_s, options)), key=order)
    near = sorted((e for e in view.executors if not releasable(e, view.now_s, options)
                   and paid_left_s(e, view.now_s, options) <= CO_RELEASE_WINDOWS * release_window_s(e, options)),
                  key=lambda e: (paid_left_s(e, view.now_s, options), e.id))
    out: list[str] = []
    for k, e in enumerate(due + near):
        if k >= len(due) and not out:
            break  # the near ones go only with one that is due
        gain = e.cores * options.worker_types[e.type_name].speed
        if capacity - gain >= floor - 1e-9 and left - 1 >= options.min_executors:
            out.append(e.id)
            capacity -= gain
            left -= 1
    return tuple(out)


def _kept(ev: Evaluation, n: int, limits: list[str], base: dict[str, Any], reason: str,
          rule: str = "model") -> Decision:
    """The decision to keep the ``n`` executors (capacity ``ev.capacity``), with its reason and limits."""
    return Decision(action="keep", reason=reason, target_executors=n, target_capacity=ev.capacity, rule=rule,
                    limits=tuple(limits), **base)


def _judge_last_up(view: View, ev: Evaluation, memory: Memory, options: AutoscaleOptions) -> tuple[Memory, str]:
    """Memory with an ineffective scale-up blocked (and a note saying so), once its settled batches are in."""
    last = next((c for c in reversed(memory.changes) if c.kind == "up"), None)
    if last is None or memory.judged_up_s == last.at_s or ev.fit is None or last.row_cost_before is None \
            or last.row_cost_expected is None:
        return memory, ""
    after = [b for b in settled(view.batches, options.warmup_batches)
             if b.at_s > last.at_s and b.rows > 0 and math.isclose(b.capacity, last.capacity_after, rel_tol=0.02)]
    if len(after) < 3:
        return memory, ""
    realized = statistics.median(max(0.0, b.duration_s - ev.fit.fixed_s) / b.rows for b in after)
    expected_gain = last.row_cost_before - last.row_cost_expected
    memory = dataclasses.replace(memory, judged_up_s=last.at_s)
    if expected_gain <= 0:
        return memory, ""
    share = (last.row_cost_before - realized) / expected_gain
    if share >= options.ineffective_share:
        return memory, ""
    until = view.now_s + options.ineffective_block_s
    return dataclasses.replace(memory, blocked_until_s=until), (
        f"the scale-up at {last.at_s:.0f} s ({last.capacity_before:g} → {last.capacity_after:g} cores) realized "
        f"{100 * share:.0f} % of the per-row gain it expected (under {100 * options.ineffective_share:.0f} %): "
        f"ineffective, no further scale-up until {until:.0f} s")


def _max_executors(view: View, options: AutoscaleOptions) -> int:
    cap = options.max_executors if options.max_executors is not None else 1_000_000
    if view.available is not None:
        cap = min(cap, len(view.executors) + view.pending + sum(view.available.values()))
    return cap


def decide(view: View, memory: Memory, options: AutoscaleOptions) -> tuple[Decision, Memory]:
    """The decision for ``view`` and the memory the next call starts from (see the module's docstring)."""
    ev = evaluate(view, options)
    memory, judged = _judge_last_up(view, ev, memory, options)
    limits: list[str] = [judged] if judged else []
    target_s, rho, band = view.target_batch_s, options.target_utilization, options.utilization_band
    n, cap_now = len(view.executors), ev.capacity
    base: dict[str, Any] = dict(at_s=view.now_s, executors=n, capacity=cap_now, arrival_rows_s=ev.arrival_rows_s,
                                backlog_rows=ev.backlog_rows, utilization=ev.utilization,
                                fit=ev.fit.summary() if ev.fit is not None else None,
                                recommend_only=not view.can_act)
    if not ev.arrival_from_offsets and ev.arrival_rows_s is not None:
        limits.append("the sources report no numeric offsets: the arrival rate is the processed rate, which a "
                      "rate cap (maxOffsetsPerTrigger) would hide")

    def keep(reason: str, rule: str = "model") -> tuple[Decision, Memory]:
        return _kept(ev, n, limits, base, reason, rule), memory

    if not view.batches or ev.arrival_rows_s is None:
        return keep("no micro-batch has finished yet", rule="none")
    if view.pending:
        return keep(f"waiting for {view.pending} requested executor(s) to register")
    if not view.executors:
        return keep("the application has no live executor to measure or release")

    max_n = _max_executors(view, options)
    speeds = [options.worker_types[t].speed for t in (view.available or {})] + \
        [options.worker_types[e.type_name].speed for e in view.executors]
    usable = ev.state_partitions * max(speeds) if ev.state_partitions else math.inf

    fit = ev.fit
    if fit is None:
        return _fallback(view, ev, memory, options, limits, base, max_n)

    # the higher of the window's average and the last interval: a rise is met in one step, a fall waits for the
    # window (and the scale-down window after it)
    rate = max(ev.arrival_rows_s, ev.latest_rows_s or 0.0)
    if rate > ev.arrival_rows_s:
        base.update(arrival_rows_s=rate)
    predicted, need = _demand(fit, rate, ev, options, target_s)
    base.update(predicted_utilization=predicted, needed_capacity=need)
    if fit.exponent_fitted and fit.exponent < LITTLE_GAIN_EXPONENT:
        limits.append(f"the query's own capacity changes show little gain from added capacity (β = "
                      f"{fit.exponent:.2f}: doubling it speeds rows up {2 ** fit.exponent:.2f}×); a bottleneck "
                      "outside the executors (the source, the driver, one partition) may bound it")
    if math.isinf(need):
        limits.append(f"a batch's fixed cost ({fit.fixed_s:.2f} s) alone exceeds {rho:g} × the target "
                      f"({target_s:g} s): no executor count meets it (fix: a longer trigger or target_batch_s)")
    if need > usable:
        limits.append(f"the stateful query's {ev.state_partitions} shuffle partitions run at most "
                      f"{ev.state_partitions} tasks at once: capacity beyond {usable:g} reference cores adds nothing "
                      "(fixed in the checkpoint; a new checkpoint with more spark.sql.shuffle.partitions lifts it)")
        need = usable
    widest = ev.heaviest_tasks * max(speeds) if ev.heaviest_tasks else math.inf
    if need > widest:
        limits.append(f"the query's heaviest stage ran at most {ev.heaviest_tasks} tasks in its recent batches: "
                      f"capacity beyond {widest:g} reference cores cannot speed it up (more source partitions or a "
                      "repartition before the costly step lift it)")
        need = widest

    since_last = _since_last_change(view, memory)
    if predicted > rho + band and need > cap_now * (1 + 1e-9):
        memory = dataclasses.replace(memory, down_since_s=None, down_needs=())
        return _scale_up(view, ev, memory, options, limits, base, need, predicted, since_last, max_n)
    # a scale-down judges the last interval alone: the window's highest need is then the need of the busiest
    # interval inside the window, not of a 30 s average reaching back before the load fell
    down_rate = ev.latest_rows_s if ev.latest_rows_s is not None else ev.arrival_rows_s
    predicted_down, need_down = _demand(fit, down_rate, ev, options, target_s)
    need_down = min(need, need_down)
    # down where the utilization is under the band, or where a whole executor is spare at the target utilization:
    # with a fixed cost per batch the utilization hardly moves with capacity (F = 3.5 s of a 10 s trigger kept
    # four executors at 0.50 where two ran the load at 0.61), so the band alone would never let one go. The spare
    # rule needs rows that cost something: a fit with w ≈ 0 says capacity does not matter, which its batches —
    # all of one size, or noise — cannot show
    spare = cap_now - min(e.cores * options.worker_types[e.type_name].speed for e in view.executors)
    rows_part = predicted_down * target_s - fit.fixed_s
    spare_rule = rows_part > ROWS_PART_MIN * target_s and need_down <= spare + 1e-9
    if (predicted_down < rho - band or spare_rule) and need_down < cap_now * (1 - 1e-9):
        return _scale_down(view, ev, memory, options, limits, base, need_down, predicted_down, since_last,
                           down_rate)
    memory = dataclasses.replace(memory, down_since_s=None, down_needs=())
    if rho - band <= predicted <= rho + band:
        return keep(f"predicted utilization {predicted:.2f} is within {rho - band:.2f}–{rho + band:.2f} "
                    f"at {rate:,.0f} rows/s")
    return keep(f"predicted utilization {predicted:.2f} is outside {rho - band:.2f}–{rho + band:.2f} but "
                f"{cap_now:g} reference cores is already what the query can use")


def _demand(fit: CostFit, rate: float, ev: Evaluation, options: AutoscaleOptions,
            target_s: float) -> tuple[float, float]:
    """At ``rate`` rows/s plus the backlog drained over ``catch_up_s`` (the rows a batch must carry): the predicted
    utilization at the current capacity, and the capacity that keeps it at the target utilization."""
    rows = (rate + ev.backlog_rows / options.catch_up_s) * target_s
    return fit.batch_s(rows, ev.capacity) / target_s, fit.capacity_for(rows, options.target_utilization * target_s)


def _since_last_change(view: View, memory: Memory) -> float:
    """Seconds since the last change took effect (inf: none yet): since it was decided, or since the latest of the
    live executors registered, whichever is later. Stabilization runs from there, as Flink's runs from the job's
    restart after a rescale: measured, executors asked for at 319 s registered at 344 s, and a second scale-up
    decided at 345 s read the batches of the wait (and its backlog) as the new capacity's."""
    if memory.last_change is None:
        return math.inf
    took_effect = max([memory.last_change.at_s, *(e.started_s for e in view.executors)])
    return max(0.0, view.now_s - took_effect)


def _guard(view: View, memory: Memory, options: AutoscaleOptions, since_last: float) -> str:
    """Why no change may happen now ('' when one may)."""
    if since_last < options.stabilization_s:
        return (f"stabilizing: the last change took effect {since_last:.0f} s ago (stabilization_s "
                f"{options.stabilization_s:g} s)")
    if memory.changes_since(view.now_s - HOUR_S) >= options.max_changes_per_hour:
        return f"{options.max_changes_per_hour} changes in the last hour already (max_changes_per_hour)"
    return ""


def _up_decision(view: View, ev: Evaluation, memory: Memory, options: AutoscaleOptions, limits: list[str],
                 base: dict[str, Any], target: float, reason: str, max_n: int, rule: str) -> tuple[Decision, Memory]:
    n, cap_now = len(view.executors), ev.capacity
    room = max(0, max_n - n - view.pending)
    add = choose_adds(view, options, target - cap_now, room)
    if not add:
        limits.append(f"needs {target:.2f} reference cores, has {cap_now:g}, and the cluster has no free worker "
                      "(or max_executors is reached)")
        return _kept(ev, n, limits, base, f"{reason}, but nothing can be added", rule), memory
    gained = sum(new_cores(view.executors, t) * options.worker_types[t].speed for t in add)
    if cap_now + gained < target - 1e-9:
        limits.append(f"needs {target:.2f} reference cores; the cluster gives at most {cap_now + gained:.2f}")
    if ev.state_partitions:
        limits.append("state stores stay on the executors that hold them (Spark prefers their locations): a new "
                      "executor takes stateful tasks only as the scheduler moves them")
    after = cap_now + gained
    # what the per-row time should become at the capacity really asked for (the ineffective-scale-up check's yardstick)
    fit = ev.fit
    change = Change(view.now_s, "up", cap_now, after, fit.row_time_s(cap_now) if fit else None,
                    fit.row_time_s(after) if fit else None)
    memory = dataclasses.replace(memory, changes=(*memory.changes, change))
    return Decision(action="up", reason=reason, target_executors=n + len(add), target_capacity=after, add=add,
                    limits=tuple(limits), rule=rule, **base), memory


def _scale_up(view: View, ev: Evaluation, memory: Memory, options: AutoscaleOptions, limits: list[str],
              base: dict[str, Any], need: float, predicted: float, since_last: float,
              max_n: int) -> tuple[Decision, Memory]:
    n = len(view.executors)
    blocked = memory.blocked_until_s is not None and view.now_s < memory.blocked_until_s
    why = (f"predicted utilization {predicted:.2f} > {options.target_utilization + options.utilization_band:.2f} at "
           f"{base['arrival_rows_s']:,.0f} rows/s" + (f" + a backlog of {ev.backlog_rows:,.0f} rows to drain in "
                                                 f"{options.catch_up_s:g} s" if ev.backlog_rows > 0 else ""))
    hold = _guard(view, memory, options, since_last) or (
        f"an earlier scale-up was ineffective: none before {memory.blocked_until_s:.0f} s" if blocked else "")
    if hold:
        return _kept(ev, n, limits, base, f"{why}; kept: {hold}"), memory
    reason = f"{why}: {need:.2f} reference cores keep it at {options.target_utilization:g}" \
        if math.isfinite(need) else f"{why}: as much as the cluster gives"
    return _up_decision(view, ev, memory, options, limits, base, need, reason, max_n, "model")


def window_needs(needs: tuple[tuple[float, float], ...], now_s: float, need: float,
                 window_s: float) -> tuple[tuple[float, float], ...]:
    """The needs of the last ``window_s`` with ``need`` recorded at ``now_s``, kept as a decreasing sequence (a
    need that a later, higher one outlives can never be the window's highest): the first is the window's highest.
    A sliding window, as Flink's DelayedScaleDown keeps its recommendations: a scale-down first recommended while
    the load was still falling is sized by the needs of its last window, not by the first one (measured: 4.35
    reference cores from the interval that straddled a fall from 300 to 30 rows/s held 3 executors where 0.70
    were needed, and the descent took three steps). O(needs kept): a decreasing run, short in practice."""
    kept = [(at, n) for at, n in needs if at >= now_s - window_s and n > need]
    return (*kept, (now_s, need))


def _scale_down(view: View, ev: Evaluation, memory: Memory, options: AutoscaleOptions, limits: list[str],
                base: dict[str, Any], need: float, predicted: float, since_last: float,
                rate: float) -> tuple[Decision, Memory]:
    n, cap_now = len(view.executors), ev.capacity

    def keep(reason: str) -> tuple[Decision, Memory]:
        return _kept(ev, n, limits, base, reason), memory

    batch_rows = (ev.arrival_rows_s or 0.0) * view.target_batch_s
    if ev.backlog_rows > max(batch_rows, 1.0) or ev.backlog_growing:
        memory = dataclasses.replace(memory, down_since_s=None, down_needs=())
        return keep(f"predicted utilization {predicted:.2f} is low, but a backlog of {ev.backlog_rows:,.0f} rows "
                    "is draining: no scale-down during catch-up")
    since = memory.down_since_s if memory.down_since_s is not None else view.now_s
    needs = window_needs(memory.down_needs, view.now_s, need, options.scale_down_window_s)
    window_need = needs[0][1]
    memory = dataclasses.replace(memory, down_since_s=since, down_needs=needs)
    waited = view.now_s - since
    low = options.target_utilization - options.utilization_band
    why = (f"at {rate:,.0f} rows/s (the last interval) " + (
        f"predicted utilization {predicted:.2f} < {low:.2f}" if predicted < low else
        f"{need:.2f} reference cores keep the utilization at {options.target_utilization:g} where {cap_now:g} run "
        "(an executor is spare)"))
    if waited < options.scale_down_window_s:
        return keep(f"{why}: a scale-down to {window_need:.2f} reference cores is recommended; waiting "
                    f"{options.scale_down_window_s - waited:.0f} s more for the window's highest need")
    hold = _guard(view, memory, options, since_last)
    if hold:
        return keep(f"scale-down to {window_need:.2f} reference cores due; kept: {hold}")
    # a step keeps min_scale_down_keep of the capacity, but may always release one executor when the need allows:
    # with whole executors a 40 % cut of two would never release either
    smallest = min(e.cores * options.worker_types[e.type_name].speed for e in view.executors)
    floor = max(window_need, min(options.min_scale_down_keep * cap_now, cap_now - smallest))
    if len(view.executors) <= options.min_executors or cap_now - smallest < window_need - 1e-9:
        return keep(f"predicted utilization {predicted:.2f} is low, but {window_need:.2f} reference cores are "
                    f"needed and {len(view.executors)} executor(s) run (min_executors {options.min_executors})")
    release = choose_releases(view, options, floor)
    if not release:
        paying = sorted(view.executors, key=lambda e: paid_left_s(e, view.now_s, options))
        soonest = paying[0]
        return keep(f"scale-down to {floor:.2f} reference cores due, but no executor is at the end of its paid "
                    f"unit: {soonest.id} ({soonest.host}) has {paid_left_s(soonest, view.now_s, options):.0f} s "
                    "paid left, kept until then")
    gone = {e.id: e for e in view.executors if e.id in release}
    after = cap_now - sum(e.cores * options.worker_types[e.type_name].speed for e in gone.values())
    if ev.state_partitions:
        limits.append("the released executors' state stores are reloaded from the checkpoint by the executors "
                      "that take their partitions: the next batches are slower")
    if floor > window_need + 1e-9:
        limits.append(f"a step keeps at least {options.min_scale_down_keep:g} of the capacity (min_scale_down_keep)")
    change = Change(view.now_s, "down", cap_now, after)
    memory = dataclasses.replace(memory, changes=(*memory.changes, change), down_since_s=None, down_needs=(),
                                 blocked_until_s=None)
    reason = (f"{why} for {waited:.0f} s; the window's highest need is {window_need:.2f} reference cores: releasing "
              + ", ".join(f"{e.id} ({e.host}, {paid_left_s(e, view.now_s, options):.0f} s of its paid unit left)"
                          for e in gone.values()))
    return Decision(action="down", reason=reason, target_executors=n - len(release), target_capacity=after,
                    release=release, limits=tuple(limits), **base), memory


def _fallback(view: View, ev: Evaluation, memory: Memory, options: AutoscaleOptions, limits: list[str],
              base: dict[str, Any], max_n: int) -> tuple[Decision, Memory]:
    """Too few settled batches for a fit: scale up in proportion to the settled batches' utilization, never down."""
    n, cap_now = len(view.executors), ev.capacity
    ready = settled(view.batches, options.warmup_batches)
    note = f"fallback rule: the fit needs {options.min_points} settled batches, has {ev.points}"
    if not ready:
        return _kept(ev, n, limits, base, f"{note}; the executors are warming up (the first "
                     f"{options.warmup_batches} batches after a start or change are not judged)", "fallback"), memory
    recent = ready[-3:]
    used = statistics.fmean(b.duration_s for b in recent) / view.target_batch_s
    upper = options.target_utilization + options.utilization_band
    if used <= upper:
        return _kept(ev, n, limits, base, f"{note}; settled batches use {used:.2f} of the target (≤ {upper:.2f}); "
                     "no scale-down before the fit", "fallback"), memory
    since_last = _since_last_change(view, memory)
    hold = _guard(view, memory, options, since_last)
    if hold:
        return _kept(ev, n, limits, base, f"{note}; settled batches use {used:.2f} of the target; kept: {hold}",
                     "fallback"), memory
    target = cap_now * used / options.target_utilization
    return _up_decision(view, ev, memory, options, limits, base, target,
                        f"{note}; settled batches use {used:.2f} of the target: {target:.2f} reference cores "
                        f"bring it to {options.target_utilization:g} if the query scales linearly",
                        max_n, "fallback")
