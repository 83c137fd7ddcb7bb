"""A Structured Streaming progress report (``StreamingQueryProgress.json``) as the autoscaler reads it. Pure.

From each report: the batch id, when it started (``timestamp``), the rows it read (``numInputRows``), its time
(``durationMs.triggerExecution``),
the sources' start, end and latest offsets summed over every source and partition (a Kafka offset is
``{"topic": {"0": 17, "1": 4}}``, a rate source's a number, a Python data source's whatever JSON it returns: every
number in it counts; a source whose offsets hold none makes the sums None) and the shuffle partitions of its
stateful operators (fixed in the checkpoint).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class ProgressFacts:
    batch_id: int
    rows: int
    duration_s: float
    started: float | None
    processed: float | None
    position: float | None
    state_partitions: int | None
    started_epoch_s: float | None  # when the trigger fired (the report's timestamp), seconds since the epoch


def offset_sum(value: Any) -> float | None:
    """Every number in an offset (a JSON value, or its text), summed; None where it holds none."""
    if isinstance(value, str):
        text = value.strip()
        if not text or text in ("None", "null"):
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        parts = [offset_sum(v) for v in value.values()]
    elif isinstance(value, list):
        parts = [offset_sum(v) for v in value]
    else:
        return None
    found = [p for p in parts if p is not None]
    return sum(found) if found else None


def _sources_sum(sources: list[dict[str, Any]], key: str) -> float | None:
    total = 0.0
    for source in sources:
        part = offset_sum(source.get(key))
        if part is None:
            return None
        total += part
    return total if sources else None


def _epoch_s(stamp: Any) -> float | None:
    """An ISO-8601 timestamp of a report ('2026-11-27T20:55:01.123Z') as seconds since the epoch."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def read_progress(report: dict[str, Any] | str) -> ProgressFacts:
    """The facts of one progress report (its JSON text or the parsed object)."""
    doc = json.loads(report) if isinstance(report, str) else report
    sources = list(doc.get("sources") or [])
    durations = doc.get("durationMs") or {}
    partitions = [int(op["numShufflePartitions"]) for op in doc.get("stateOperators") or []
                  if isinstance(op.get("numShufflePartitions"), int | float) and op["numShufflePartitions"] > 0]
    return ProgressFacts(batch_id=int(doc.get("batchId", -1)), rows=int(doc.get("numInputRows") or 0),
                         duration_s=float(durations.get("triggerExecution", 0.0)) / 1000.0,
                         started=_sources_sum(sources, "startOffset"), processed=_sources_sum(sources, "endOffset"),
                         position=_sources_sum(sources, "latestOffset"),
                         state_partitions=min(partitions) if partitions else None,
                         started_epoch_s=_epoch_s(doc.get("timestamp")))
