"""The live page's state: per-micro-batch points from successive counter readings, beside the prediction.

A reading is what the driver knows after a micro-batch: cumulative counters since the current query started
(tuples into sinks, the sinks' latency sums, operator CPU seconds per node) and, where the sources say, their
backlog. Each new reading becomes one point — rates and means over the time since the previous reading — so a
point holds every batch that ended in between. A new query (a re-plan of ``live``) starts its counters at
zero: the first reading after it only sets the baseline. Pure: no clock, no Spark, no I/O; ``add`` is O(1) per
reading (O(nodes) for the CPU), the kept points are bounded (``MAX_POINTS``, the oldest dropped), and ``state``
is O(points kept).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

#: points kept for the page (an hour of 1 s batches); older ones are dropped so a long run's page stays small
MAX_POINTS = 3600
#: events kept (re-plans, faults, decisions)
MAX_EVENTS = 500


@dataclass(frozen=True)
class Reading:
    """Counters after a micro-batch, cumulative since ``query`` started."""

    at_s: float  # seconds since the run started, when the batch ended
    query: int  # which query (a re-plan starts a new one, its counters at zero)
    batch_id: int
    sink_tuples: float
    latency_sum_s: float
    latency_count: float
    cpu_s: dict[str, float]  # node → CPU seconds its replicas' logic spent
    backlog_rows: float | None = None  # rows offered but not admitted yet (bounded sources); None: not said
    machine_busy_s: float | None = None  # the whole machine's busy and total CPU seconds (psutil), cumulative
    machine_total_s: float | None = None


@dataclass
class LiveSeries:
    """The page's state: the plan's title and prediction, one point per reading, events."""

    title: str
    duration_s: float
    capacity_cores: dict[str, float]  # node → cores it has (for utilization)
    predicted: dict[str, Any] = field(default_factory=dict)
    points: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_POINTS))
    events: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_EVENTS))
    status: str = "starting"
    elapsed_s: float = 0.0
    picture_version: int = 0
    summary: list[tuple[str, str, str]] = field(default_factory=list)  # (quantity, predicted, measured) at the end
    #: micro-batches that ended while the page watched (a resumed query's batch ids go on from its checkpoint)
    batches_done: int = 0
    written_to: str | None = None  # where the page was written when the run ended
    #: what the latency series measures, where it is not "event time → sink" (the autoscaler's page: batch time)
    latency_label: str | None = None
    _last: Reading | None = None

    def add(self, r: Reading) -> dict[str, Any] | None:
        """Take a reading; return the point it made (None: the first of its query, or no new batch)."""
        self.elapsed_s = max(self.elapsed_s, r.at_s)
        last, self._last = self._last, r
        if last is None or last.query != r.query or r.batch_id <= last.batch_id:
            if last is not None and last.query == r.query:
                self._last = last  # the same batch again: keep the older baseline
            else:
                self.batches_done += 1  # a query's first batch seen: the baseline
            return None
        dt = r.at_s - last.at_s
        if dt <= 0:
            self._last = last
            return None
        count = r.latency_count - last.latency_count
        point: dict[str, Any] = {
            "at_s": round(r.at_s, 3),
            "batch": r.batch_id,
            "batches": r.batch_id - last.batch_id,
            "throughput": (r.sink_tuples - last.sink_tuples) / dt,
            "latency_ms": 1000.0 * (r.latency_sum_s - last.latency_sum_s) / count if count > 0 else None,
            "backlog": r.backlog_rows,
            "utilization": {node: max(0.0, (busy - last.cpu_s.get(node, 0.0)) / dt) / cores
                            for node, busy in r.cpu_s.items()
                            if (cores := self.capacity_cores.get(node, 0.0)) > 0},
        }
        busy_now, busy_before = r.machine_busy_s, last.machine_busy_s
        total_now, total_before = r.machine_total_s, last.machine_total_s
        if busy_now is not None and total_now is not None and busy_before is not None and total_before is not None:
            total = total_now - total_before
            point["machine_cpu"] = (busy_now - busy_before) / total if total > 0 else None
        self.points.append(point)
        self.batches_done += r.batch_id - last.batch_id
        self.status = "running"
        return point

    def event(self, at_s: float, kind: str, detail: str) -> None:
        """A re-plan, a fault, a decision: shown in the page's log (and on the charts' time axis)."""
        self.events.append({"at_s": round(at_s, 3), "kind": kind, "detail": detail})

    def new_plan(self, predicted: dict[str, Any]) -> None:
        """A new plan is enacted: its prediction replaces the old one and the picture is redrawn."""
        self.predicted = dict(predicted)
        self.picture_version += 1

    def state(self) -> dict[str, Any]:
        """Everything the page shows, as JSON-ready values."""
        return {"title": self.title, "status": self.status, "elapsed_s": round(self.elapsed_s, 3),
                "duration_s": self.duration_s, "predicted": self.predicted, "points": list(self.points),
                "events": list(self.events), "picture_version": self.picture_version,
                "summary": [list(row) for row in self.summary], "batches_done": self.batches_done,
                "written_to": self.written_to, "latency_label": self.latency_label}


def page_prediction(predicted: dict[str, Any]) -> dict[str, Any]:
    """What the page sets beside the measured series, from a run's ``predicted`` block (spark/runtime/run.prediction):
    throughput into sinks delivered at the plan's rates, what the sinks and sources are offered, the mean latency
    (none when the model says the plan falls behind: the wait in a growing backlog has no steady value), each
    node's CPU utilization, the bottleneck and the engine."""
    offered = predicted.get("offered_throughput")
    delivered = predicted.get("delivered_throughput")
    behind = (isinstance(offered, int | float) and isinstance(delivered, int | float)
              and delivered < offered * (1 - 1e-6))
    return {"throughput": delivered, "offered_sinks": offered,
            "offered": predicted.get("offered_rate", predicted.get("source_rate")),
            "latency_ms": None if behind else predicted.get("latency_mean_ms"),
            "utilization": dict(predicted.get("utilization") or {}), "bottleneck": predicted.get("bottleneck"),
            "engine": predicted.get("engine")}
