"""From collected batches to what a decision needs: arrival rate, backlog, utilization and the cost fit. Pure.

* **Arrival rate** from the sources' offsets: the latest available offset (summed over sources and partitions,
  read when a batch starts) advances with what arrives, whatever a batch admits; ``rows`` over the offsets a
  batch advanced converts offsets to rows (1 for Kafka; a rate source's offsets count seconds). Where the sources
  give no numeric offsets, the processed rows per second, and the evaluation says the rate may hide a cap.
  The rate between the last two batches alone is kept beside it: a decision takes the higher of the two, so a
  rise is met at once and a fall waits for the window.
* **Backlog**: latest − end offset of the last batch, in rows, plus the rows that arrived while it overran the
  target (an uncapped source's lag).
* **Points of the fit**: batches that ran on settled executors — not the query's first ``warmup_batches``, not the
  first ``warmup_batches`` after a change of capacity, not one during which executors changed — the most recent
  ``window_points`` of them.
* **Utilization**: the recent batches' time over the target batch time.
* **Stage facts** (where Spark's status store gave them): each point's time outside its Spark jobs (the driver's
  fixed part, fit.py's floor for F) and its tasks' run time in reference core-seconds (fit.py's bound on the work
  per row where F and w cannot be told apart), and the most tasks the heaviest stage ran in the last ``TASKS_WINDOW``
  batches: more cores than that cannot speed that stage up.

O(batches in the window) per call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from streamplace.autoscaler.fit import CostFit, Point, fit_cost
from streamplace.autoscaler.options import AutoscaleOptions
from streamplace.autoscaler.state import Batch, Executor, View

#: seconds of recent batches the arrival rate and the utilization are averaged over (at least RATE_MIN_BATCHES)
RATE_WINDOW_S = 30.0
RATE_MIN_BATCHES = 3
#: batches whose heaviest stage's task count bounds the useful cores (the most of them: a small batch may read
#: fewer partitions than a large one)
TASKS_WINDOW = 20


@dataclass(frozen=True)
class Evaluation:
    arrival_rows_s: float | None  # None: no batch yet
    arrival_from_offsets: bool
    backlog_rows: float  # rows available at the sources and not yet processed
    backlog_growing: bool  # larger than a window ago
    utilization: float | None  # recent batches' time / target
    capacity: float  # reference cores of the live executors
    fit: CostFit | None
    points: int  # settled points available (the fit may need more)
    state_partitions: int | None
    heaviest_tasks: int | None = None  # the most tasks the heaviest stage ran lately (None: not measured)
    latest_rows_s: float | None = None  # the arrival between the last two batches (None: not from offsets)


def settled(batches: Sequence[Batch], warmup: int) -> list[Batch]:
    """The batches that ran on settled executors (see the module's docstring), oldest first."""
    out = []
    since_change = 0
    previous: float | None = None
    for b in batches:
        if previous is None or not math.isclose(b.capacity, previous, rel_tol=1e-6):
            since_change = 0
        previous = b.capacity
        since_change += 1
        if since_change > warmup and not b.unsettled:
            out.append(b)
    return out


def _recent(batches: Sequence[Batch], now_s: float) -> list[Batch]:
    recent = [b for b in batches if b.at_s >= now_s - RATE_WINDOW_S]
    if len(recent) < RATE_MIN_BATCHES:
        recent = list(batches[-RATE_MIN_BATCHES:])
    return recent


def rows_per_offset(batches: Sequence[Batch]) -> float | None:
    """Rows per unit of the sources' offsets, from what the batches read (None: offsets not numeric or none read)."""
    rows = advanced = 0.0
    for b in batches:
        if b.started is not None and b.processed is not None and b.processed > b.started:
            rows += b.rows
            advanced += b.processed - b.started
    return rows / advanced if advanced > 0 and rows > 0 else None


def arrival(batches: Sequence[Batch], now_s: float) -> tuple[float | None, bool]:
    """(rows/s arriving, whether from the offsets) over the recent window."""
    if not batches:
        return None, False
    recent = _recent(batches, now_s)
    first, last = recent[0], recent[-1]
    rate = _offset_rate(first, last, rows_per_offset(batches[-max(len(recent), 20):]))
    if rate is not None:
        return rate, True
    span = sum(b.duration_s for b in recent) if len(recent) == 1 else last.at_s - first.at_s
    rows = sum(b.rows for b in recent[1:]) if len(recent) > 1 else recent[0].rows
    return (rows / span if span > 0 else None), False


def _offset_rate(first: Batch, last: Batch, scale: float | None) -> float | None:
    """Rows/s that arrived between the starts of ``first`` and ``last``, from their sources' latest offsets (read
    when a batch's trigger fires: at its start) and ``scale`` rows per offset unit (None: not numeric)."""
    begun = last.at_s - last.duration_s - (first.at_s - first.duration_s)
    if scale is None or first.position is None or last.position is None or begun <= 0:
        return None
    return max(0.0, (last.position - first.position) * scale / begun)


def latest_arrival(batches: Sequence[Batch]) -> float | None:
    """Rows/s arriving between the last two batches' starts, from the offsets (None: not numeric, or one batch).
    A rise shows here one window sooner than in the average: a step up is answered in one scale-up, not two."""
    if len(batches) < 2:
        return None
    return _offset_rate(batches[-2], batches[-1], rows_per_offset(batches[-20:]))


def backlog(batches: Sequence[Batch], rate: float | None, target_s: float) -> float:
    """Rows waiting after the last batch: what its sources held back when it started (latest − end offsets: a rate
    cap's queue), plus what arrived while it overran the target (a source without a cap hands those to the next
    batch at once: the lag of a query that fell behind)."""
    if not batches:
        return 0.0
    last = batches[-1]
    overrun = (rate or 0.0) * max(0.0, last.duration_s - target_s)
    scale = rows_per_offset(batches[-20:])
    if scale is None or last.position is None or last.processed is None:
        return overrun
    return max(0.0, (last.position - last.processed) * scale) + overrun


def capacity_of(executors: Sequence[Executor], options: AutoscaleOptions) -> float:
    """Reference cores: Σ cores × the speed of each executor's worker type."""
    return sum(e.cores * options.worker_types[e.type_name].speed for e in executors)


def evaluate(view: View, options: AutoscaleOptions) -> Evaluation:
    batches = view.batches
    capacity = capacity_of(view.executors, options)
    rate, from_offsets = arrival(batches, view.now_s)
    queue = backlog(batches, rate, view.target_batch_s)
    earlier = [b for b in batches if b.at_s <= view.now_s - RATE_WINDOW_S]
    growing = bool(earlier) and queue > backlog(earlier, rate, view.target_batch_s) * 1.05 + 1.0
    recent = _recent(batches, view.now_s) if batches else []
    utilization = (sum(b.duration_s for b in recent) / len(recent) / view.target_batch_s) if recent else None
    points = [Point(b.rows, b.capacity, b.duration_s, b.driver_s, b.task_ref_s)
              for b in settled(batches, options.warmup_batches)]
    points = points[-options.window_points:]
    fit = fit_cost(points, options.prior_scaling, min_points=options.min_points)
    partitions = next((b.state_partitions for b in reversed(batches) if b.state_partitions), None)
    tasks = [b.heaviest_tasks for b in batches[-TASKS_WINDOW:] if b.heaviest_tasks]
    return Evaluation(arrival_rows_s=rate, arrival_from_offsets=from_offsets, backlog_rows=queue,
                      backlog_growing=growing, utilization=utilization, capacity=capacity, fit=fit,
                      points=len(points), state_partitions=partitions, heaviest_tasks=max(tasks, default=None),
                      latest_rows_s=latest_arrival(batches))
