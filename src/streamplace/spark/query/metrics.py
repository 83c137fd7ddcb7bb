"""Measurements of a running pipeline: per-operator statistics (a Spark accumulator) and per-batch progress.

Each operator task adds, per Arrow batch, rows in and out, CPU and wall seconds
spent in the operator's logic, and at sinks the end-to-end latency (now − the
event time carried from the source). The driver reads the sums at any time;
rates are differences between two readings. A ``StreamingQueryListener``
records every micro-batch's input and processed rows per second and durations.
Machine CPU comes from psutil, as the share of all cores busy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import psutil
from pyspark.accumulators import AccumulatorParam
from pyspark.sql.streaming import StreamingQueryListener

from streamplace.spark.query.operators import LAT_MAX_S, N_STATS


class StatsParam(AccumulatorParam):
    """Operator id → [rows_in, rows_out, cpu_s, wall_s, batches, lat_sum_s, lat_count, lat_max_s]."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        for key, row in b.items():
            cur = a.get(key)
            if cur is None:
                a[key] = list(row)
                continue
            for k in range(N_STATS):
                cur[k] = max(cur[k], row[k]) if k == LAT_MAX_S else cur[k] + row[k]
        return a


@dataclass
class BatchProgress:
    batch_id: int
    timestamp: str
    input_rows: int
    input_rows_per_s: float
    processed_rows_per_s: float
    duration_ms: dict[str, int]
    #: per source (in the query's order), rows arrived but not admitted after this batch; None for a source that
    #: does not say (bounded_source.py's sources do)
    backlog: list[int | None] = field(default_factory=list)

    @property
    def backlog_rows(self) -> float | None:
        """The rows all sources that say had waiting after this batch; None when none says."""
        said = [x for x in self.backlog if x is not None]
        return float(sum(said)) if said else None


@dataclass
class ProgressListener(StreamingQueryListener):
    """Collects the progress of every micro-batch of the queries of this session."""

    batches: list[BatchProgress] = field(default_factory=list)

    def onQueryStarted(self, event: Any) -> None:
        pass

    def onQueryProgress(self, event: Any) -> None:
        p = event.progress
        backlog = [source_backlog(s) for s in (p.sources or [])]
        self.batches.append(BatchProgress(int(p.batchId), str(p.timestamp), int(p.numInputRows),
                                          float(p.inputRowsPerSecond or 0.0), float(p.processedRowsPerSecond or 0.0),
                                          dict(p.durationMs or {}), backlog))

    def onQueryIdle(self, event: Any) -> None:
        pass

    def onQueryTerminated(self, event: Any) -> None:
        pass


def source_backlog(source: Any) -> int | None:
    """Rows a source had arrived but not admitted when the batch was planned: ``latestOffset − endOffset`` of a
    bounded source's progress (offsets ``{"rows": n}``, bounded_source.py); None for any other source."""
    import json

    try:
        latest, end = json.loads(source.latestOffset or "null"), json.loads(source.endOffset or "null")
    except (TypeError, ValueError):
        return None
    if not (isinstance(latest, dict) and isinstance(end, dict) and "rows" in latest and "rows" in end):
        return None
    return max(0, int(latest["rows"]) - int(end["rows"]))


def cpu_times() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores (psutil; idle and I/O wait are not
    busy)."""
    t = psutil.cpu_times()
    # guest time is already counted in user and nice (as in /proc/stat)
    total = float(sum(t)) - getattr(t, "guest", 0.0) - getattr(t, "guest_nice", 0.0)
    return total - t.idle - getattr(t, "iowait", 0.0), total


def cpu_share(before: tuple[float, float], after: tuple[float, float]) -> float | None:
    """The machine's busy share of all cores between two cpu_times() readings (None when no time passed)."""
    if after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


@dataclass
class Snapshot:
    at: float
    stats: dict[str, list[float]]
    cpu: tuple[float, float]

    @classmethod
    def take(cls, acc: Any) -> Snapshot:
        return cls(time.perf_counter(), {k: list(v) for k, v in acc.value.items()}, cpu_times())
