"""The rules users have today, as policies with ``decide``'s signature, so a benchmark drives them through the same
loop as ours: ``policy(view, memory, options) -> (Decision, Memory)``. Pure: no clock, no I/O; what a rule carries
from one call to the next is in Memory (``seen_until_s``, ``smoothed_usage``, ``usage_weight``, ``last_check_s``).
``POLICIES`` names the three.

**occupation** — AmadeusITGroup/Elastic-Scaling, ``src/main/scala/com/amadeus/elastic_scaling/ElasticScaling.scala``
and ``config/ElasticConfig.scala`` at 4e79d465 (release 2.0.5, built against Spark 3.4.1: a
StreamingQueryListener resizing a Databricks cluster; its first version, d6262fa0, 2021, Spark 2.4, requested and
killed Spark executors itself). On each progress report that ran a batch (``durationMs`` holds ``addBatch``):

* usage u = triggerExecution / the configured trigger interval (the measured interval is computed and unused);
* smoothed m = num / den after num ← α·num + u, den ← α·den + 1, seeded num = den = 1 (a prior of 1.0 that
  fades), α = 0.6 (``smoothing_factor``: the weight of the past; at steady state m ≈ 0.4·u + 0.6·m_before);
* if m > 1.0 (``threshold.high``) or m < 0.75 (``threshold.low``) — strict, the bounds themselves are inside —
  the workers needed are max(min(ceil(n·m), 10), 1) (``executors.max`` 10, ``executors.min`` 1, refused below
  1), n the workers running; else n;
* only when needed ≠ n, and not while the cluster is resizing (requested ≠ running): resize to needed. No
  cool-down, no other guard: the next report may act again.

The clamp is applied to ceil(n·m) whatever m's side of the band, so a job above the max that is overloaded is cut
to the max and one below the min that idles is raised to it (the source's own tests say so).

**dstreams** — Spark's DStreams dynamic allocation, apache/spark
``streaming/src/main/scala/org/apache/spark/streaming/scheduler/ExecutorAllocationManager.scala`` at 062d4ae4
(unchanged in substance since Spark 2.0; defaults in
``core/.../internal/config/Streaming.scala``, ``spark.streaming.dynamicAllocation.*``). A timer fires every
``scalingInterval`` (60 s), on multiples of it (``RecurringTimer.getStartTime``); each firing, over the batches
completed since the last one (none: nothing happens):

* ratio = (Σ processing ms // count, a Long division) / batch interval ms;
* ratio ≥ ``scalingUpRatio`` 0.9: request a total of max(min(maxExecutors, n + max(round(ratio), 1)),
  minExecutors) executors (Scala's round: half up; maxExecutors defaults to Int.MaxValue);
* ratio ≤ ``scalingDownRatio`` 0.3: if n > minExecutors (default max(1, receivers)), kill one executor chosen at
  random among those running no receiver;
* the sums are reset at every firing, acted on or not. No other guard.

**Adapted** (the view is a Structured Streaming query's, not the sources'):

* "executors" / "workers" are ``view.executors`` (Databricks runs one executor per worker); the configured
  interval is ``view.target_batch_s``; a batch's time is ``Batch.duration_s`` (triggerExecution), for DStreams'
  processingDelay too (the batch's jobs; a micro-batch has no separate scheduling delay to leave out).
* min / max: ``options.min_executors`` (raised to 1: both sources refuse less) and ``options.max_executors``
  (None: the occupation rule's default 10, DStreams' no bound). Executors are added as the cheapest worker types
  ``view.available`` has (decide.choose_adds; ``default`` when unknown), no more than it has free.
* A rule reads each batch once (``seen_until_s``), however often it is called. The occupation rule skips batches
  with no input rows (its skip of reports without ``addBatch``: the idle reports), smooths every new batch in
  order and decides once per call. DStreams counts every reported batch, idle ones included (its empty batches
  count too); its timer starts at the first call (the StreamingContext's start); the batches of a firing are
  those that ended by it. Calls further apart than the interval make one check of the missed firings' batches.
* A request lowering the total below n (DStreams at maxExecutors) changes nothing: kept.
* Times in whole ms, as the sources have them (``round(duration_s · 1000)``). ``Decision.utilization`` is the
  occupation rule's smoothed usage, DStreams' ratio (None between firings).
* ``view.pending``: the occupation rule's resize guard; DStreams has none (it sets an absolute total from the
  registered executors, which re-requests the pending ones) — kept here too, the firing's batches consumed.
* Released: the occupation rule, the oldest executors (lowest numeric id; its first version killed
  ``getExecutorIds`` sorted, the first ones, "the oldest"; on Databricks the platform picks); DStreams, the
  newest executor (the reverse order: the highest numeric id — an id that is not a number, local mode's
  ``driver``, would come first) instead of a random one — reproducible, and the one holding the least
  state-store and cache locality. Structured Streaming has no receivers: every executor may go.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from streamplace.autoscaler.decide import Decision, choose_adds, decide, new_cores
from streamplace.autoscaler.evaluate import capacity_of
from streamplace.autoscaler.options import AutoscaleOptions
from streamplace.autoscaler.state import Batch, Change, Executor, Memory, View

#: Elastic-Scaling's defaults (ElasticConfig.scala; its comment says max 20, the code 10)
OCCUPATION_HIGH = 1.0
OCCUPATION_LOW = 0.75
OCCUPATION_MIN_EXECUTORS = 1
OCCUPATION_MAX_EXECUTORS = 10
OCCUPATION_SMOOTHING = 0.6
#: num = den = 1.0 before the first report (ElasticScaling.scala)
OCCUPATION_SEED = 1.0

#: DStreams' defaults (Streaming.scala)
DSTREAMS_INTERVAL_S = 60.0
DSTREAMS_UP_RATIO = 0.9
DSTREAMS_DOWN_RATIO = 0.3
DSTREAMS_MIN_EXECUTORS = 1  # max(1, receivers): a Structured Streaming query has none
DSTREAMS_MAX_EXECUTORS: int | None = None  # Int.MaxValue

Policy = Callable[[View, Memory, AutoscaleOptions], tuple[Decision, Memory]]


def _unread(view: View, memory: Memory) -> list[Batch]:
    """The view's batches a rule has not read yet, oldest first."""
    seen = memory.seen_until_s
    return sorted((b for b in view.batches if seen is None or b.at_s > seen), key=lambda b: (b.at_s, b.batch_id))


def _id_order(e: Executor) -> tuple[int, int, float, str]:
    """Spark's executor ids count registrations: numeric ids in order, then the others by start."""
    return (0, int(e.id), e.started_s, e.id) if e.id.isdecimal() else (1, 0, e.started_s, e.id)


def _act(view: View, memory: Memory, options: AutoscaleOptions, rule: str, action: str, reason: str,
         utilization: float | None, add: tuple[str, ...] = (), release: tuple[str, ...] = (),
         limits: tuple[str, ...] = ()) -> tuple[Decision, Memory]:
    """The Decision, with the Change recorded in the memory when it is one (as decide does)."""
    n, cap = len(view.executors), capacity_of(view.executors, options)
    gone = [e for e in view.executors if e.id in release]
    after = cap + sum(new_cores(view.executors, t) * options.worker_types[t].speed for t in add) \
        - sum(e.cores * options.worker_types[e.type_name].speed for e in gone)
    if action != "keep":
        memory = dataclasses.replace(memory, changes=(*memory.changes, Change(view.now_s, action, cap, after)))
    return Decision(at_s=view.now_s, action=action, reason=reason, executors=n,
                    target_executors=n + len(add) - len(gone), capacity=cap, target_capacity=after, add=add,
                    release=release, limits=limits, utilization=utilization, rule=rule,
                    recommend_only=not view.can_act), memory


def _scale_to(view: View, memory: Memory, options: AutoscaleOptions, rule: str, total: int, why: str,
              utilization: float, newest_first: bool) -> tuple[Decision, Memory]:
    """Up or down to ``total`` executors: adds of the cheapest available types; releases the oldest executors
    (``_id_order``), or the newest."""
    n = len(view.executors)
    if total > n:
        add = choose_adds(view, options, math.inf, total - n)
        if not add:
            return _act(view, memory, options, rule, "keep", f"{why}, but the cluster has no free worker",
                        utilization)
        limits = (f"{total - n} executor(s) needed, the cluster has {len(add)} free",) if len(add) < total - n else ()
        return _act(view, memory, options, rule, "up", why, utilization, add=add, limits=limits)
    gone = sorted(view.executors, key=_id_order, reverse=newest_first)[:n - total]
    return _act(view, memory, options, rule, "down", f"{why}: releasing {', '.join(e.id for e in gone)}",
                utilization, release=tuple(e.id for e in gone))


def occupation_rule(view: View, memory: Memory, options: AutoscaleOptions) -> tuple[Decision, Memory]:
    """Elastic-Scaling's rule (see the module's docstring): the smoothed trigger usage outside [0.75, 1.0] →
    ceil(n · usage) executors, within [min, max]."""
    rule = "occupation"
    unread = _unread(view, memory)
    if unread:
        memory = dataclasses.replace(memory, seen_until_s=unread[-1].at_s)
    ran = [b for b in unread if b.rows > 0]
    if not ran:
        return _act(view, memory, options, rule, "keep", "occupation rule: no new batch with input rows (it acts "
                    "on each report that ran a batch)", memory.smoothed_usage)
    alpha, interval_ms = OCCUPATION_SMOOTHING, view.target_batch_s * 1000.0
    den = memory.usage_weight
    num = (memory.smoothed_usage if memory.smoothed_usage is not None else OCCUPATION_SEED) * den
    usage = 0.0
    for b in ran:
        usage = round(b.duration_s * 1000.0) / interval_ms  # triggerExecution, whole ms
        num, den = num * alpha + usage, den * alpha + 1.0
    mean = num / den
    memory = dataclasses.replace(memory, smoothed_usage=mean, usage_weight=den)
    n = len(view.executors)
    lo = max(OCCUPATION_MIN_EXECUTORS, options.min_executors)
    hi = options.max_executors if options.max_executors is not None else OCCUPATION_MAX_EXECUTORS
    said = (f"occupation rule: usage {usage:.4f} (triggerExecution / {view.target_batch_s:g} s trigger), smoothed "
            f"{mean:.4f} (α {alpha:g})")
    if OCCUPATION_LOW <= mean <= OCCUPATION_HIGH:
        return _act(view, memory, options, rule, "keep",
                    f"{said} is within [{OCCUPATION_LOW}, {OCCUPATION_HIGH}]", mean)
    needed = max(min(math.ceil(n * mean), hi), lo)
    why = f"{said} is outside [{OCCUPATION_LOW}, {OCCUPATION_HIGH}]: max(min(ceil({n} × {mean:.4f}), {hi}), " \
          f"{lo}) = {needed} executors"
    if needed == n:
        return _act(view, memory, options, rule, "keep", f"{why}, as many as run", mean)
    if view.pending:
        return _act(view, memory, options, rule, "keep", f"{why}, but {view.pending} requested executor(s) are "
                    "still registering (the cluster is already scaling)", mean)
    return _scale_to(view, memory, options, rule, needed, why, mean, newest_first=False)


def dstreams_rule(view: View, memory: Memory, options: AutoscaleOptions) -> tuple[Decision, Memory]:
    """Spark's DStreams dynamic allocation (see the module's docstring): every 60 s, the average batch time over
    the batch interval ≥ 0.9 → round(ratio) more executors, ≤ 0.3 → one fewer."""
    rule, period = "dstreams", DSTREAMS_INTERVAL_S
    if memory.last_check_s is None:  # the timer starts: it fires on the next multiple of the period
        memory = dataclasses.replace(memory, last_check_s=math.floor(view.now_s / period) * period)
    assert memory.last_check_s is not None
    due = memory.last_check_s + period
    if view.now_s < due:
        return _act(view, memory, options, rule, "keep", f"dstreams rule: next check at {due:g} s (every "
                    f"{period:g} s)", None)
    tick = memory.last_check_s + math.floor((view.now_s - memory.last_check_s) / period) * period
    counted = [b for b in _unread(view, memory) if b.at_s <= tick]
    memory = dataclasses.replace(memory, last_check_s=tick,
                                 seen_until_s=counted[-1].at_s if counted else memory.seen_until_s)
    if not counted:
        return _act(view, memory, options, rule, "keep", f"dstreams rule: check at {tick:g} s, no batch completed "
                    "since the last one", None)
    average_ms = sum(round(b.duration_s * 1000.0) for b in counted) // len(counted)
    ratio = average_ms / (view.target_batch_s * 1000.0)
    n = len(view.executors)
    lo = max(DSTREAMS_MIN_EXECUTORS, options.min_executors)
    hi = options.max_executors if options.max_executors is not None else DSTREAMS_MAX_EXECUTORS
    said = (f"dstreams rule: check at {tick:g} s, {len(counted)} batch(es) averaging {average_ms} ms over a "
            f"{view.target_batch_s:g} s interval: ratio {ratio:.4f}")
    if ratio >= DSTREAMS_UP_RATIO:
        more = max(math.floor(ratio + 0.5), 1)
        total = max(min(hi, n + more) if hi is not None else n + more, lo)
        why = f"{said} ≥ {DSTREAMS_UP_RATIO:g}: {more} more, a total of {total} executors"
        if total <= n:
            return _act(view, memory, options, rule, "keep", f"{why}, no more than run (maxExecutors {hi})", ratio)
    elif ratio <= DSTREAMS_DOWN_RATIO:
        if n <= lo:
            return _act(view, memory, options, rule, "keep", f"{said} ≤ {DSTREAMS_DOWN_RATIO:g}, but {n} "
                        f"executor(s) is not above minExecutors {lo}", ratio)
        total = n - 1
        why = f"{said} ≤ {DSTREAMS_DOWN_RATIO:g}: one executor fewer (the newest)"
    else:
        return _act(view, memory, options, rule, "keep", f"{said} is between {DSTREAMS_DOWN_RATIO:g} and "
                    f"{DSTREAMS_UP_RATIO:g}", ratio)
    if view.pending:
        return _act(view, memory, options, rule, "keep", f"{why}, but {view.pending} requested executor(s) are "
                    "still registering", ratio)
    return _scale_to(view, memory, options, rule, total, why, ratio, newest_first=True)


#: the policies a benchmark compares, by name: ours and the two rules above
POLICIES: dict[str, Policy] = {
    "streamplace": decide,
    "occupation": occupation_rule,
    "dstreams": dstreams_rule,
}
