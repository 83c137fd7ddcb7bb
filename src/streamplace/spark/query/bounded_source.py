"""A rate source with admission control: tuples arrive on the wall clock, each micro-batch admits at most a cap.

Spark's ``rate`` source puts everything that arrived since the previous micro-batch into the next one, so a
pipeline offered more than it sustains runs ever larger batches (issue 36 measured a 61.6 s batch on a 40 s run).
This Python streaming data source (PySpark ≥ 4.2's ``latestOffset(start, limit)``) is the rate source with a
bound, as Kafka's ``maxOffsetsPerTrigger`` is for Kafka and max spout pending for Storm:

* row ``v`` (0, 1, 2, …) *arrives* at ``origin + v / rowsPerSecond`` (seconds since the epoch); its ``timestamp`` column
  is that instant, so a sink's latency (now − timestamp) includes the time a row waited to be admitted;
* a micro-batch from offset ``s`` ends at ``min(arrived(now), s + maxRowsPerTrigger)``: the rows not admitted stay
  queued (the backlog), in arrival order, for the next batches;
* ``reportLatestOffset`` is the arrived count, so every progress report carries the backlog
  (``latestOffset − endOffset``; metrics.source_backlog) and the age of its oldest row (backlog / rate).

Offsets are ``{"rows": n}``: rows ``[s, e)`` make a batch, split into ``numPartitions`` contiguous ranges. A
restarted query resumes from its checkpointed offset with the same ``origin``, so nothing is lost or repeated.
The options (strings, as Spark passes them): ``rowsPerSecond`` (> 0), ``maxRowsPerTrigger`` (≥ 1; absent: no
bound), ``origin`` (required: the driver fixes it so the arrival process does not depend on when the reader was
made), ``numPartitions`` (≥ 1), ``stallFile`` (optional: while that file holds an instant still to come, in
seconds since the epoch, the source admits nothing — a source that stalls, as a broker out of reach; the rows
that arrive meanwhile are backlog, read when it resumes: :func:`stall`).

The reader's offsets are computed in the driver's Python data-source runner; ``read`` runs in executors' Python
workers and builds its rows with numpy, O(rows).
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

from streamplace.errors import Problem, SpecError

#: the name to read it by: ``spark.readStream.format(NAME)`` after :func:`register`
NAME = "streamplace_rate"
SCHEMA = "timestamp timestamp, value bigint"  # as Spark's rate source


@dataclass(frozen=True)
class RangePartition(InputPartition):
    """Rows [start, end) of one micro-batch."""

    start: int
    end: int


def arrived(origin: float, rate: float, now: float) -> int:
    """Rows arrived by ``now``: row v arrives at origin + v / rate, so rows 0..⌊(now − origin)·rate⌋ have."""
    if now < origin:
        return 0
    return math.floor((now - origin) * rate + 1e-9) + 1


def admitted_end(start: int, available: int, cap: int | None) -> int:
    """The end offset of the next micro-batch: everything available, at most ``cap`` rows past ``start``."""
    end = max(start, available)
    return end if cap is None else min(end, start + cap)


def split(start: int, end: int, parts: int) -> list[RangePartition]:
    """[start, end) in ``parts`` contiguous ranges as even as integers allow (empty ranges left out)."""
    n = end - start
    bounds = [start + (n * k) // parts for k in range(parts + 1)]
    return [RangePartition(a, b) for a, b in itertools.pairwise(bounds) if b > a]


class BoundedRateReader(DataSourceStreamReader):
    """The stream reader: see the module's docstring."""

    def __init__(self, options: dict[str, str]) -> None:
        options = {k.lower(): v for k, v in options.items()}  # Spark passes option names lower-cased
        self.rate = float(options["rowspersecond"])
        cap = options.get("maxrowspertrigger")
        self.cap = int(cap) if cap is not None and cap != "" else None
        self.origin = float(options["origin"])
        self.parts = int(options.get("numpartitions", "1"))
        stall_file = options.get("stallfile")
        self.stall_file = Path(stall_file) if stall_file else None

    def initialOffset(self) -> dict:
        return {"rows": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.cap) if self.cap is not None else ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        cap = limit.max_rows if isinstance(limit, ReadMaxRows) else None  # the engine's limit rules
        if stalled(self.stall_file, time.time()):
            return {"rows": int(start["rows"])}  # nothing admitted: the next batch is empty
        return {"rows": admitted_end(int(start["rows"]), arrived(self.origin, self.rate, time.time()), cap)}

    def reportLatestOffset(self) -> dict:
        return {"rows": arrived(self.origin, self.rate, time.time())}

    def partitions(self, start: dict, end: dict) -> list[RangePartition]:
        return split(int(start["rows"]), int(end["rows"]), self.parts)

    def read(self, partition: InputPartition) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        assert isinstance(partition, RangePartition)
        values = np.arange(partition.start, partition.end, dtype=np.int64)
        micros = np.round((self.origin + values / self.rate) * 1e6).astype(np.int64)
        yield pa.RecordBatch.from_arrays([pa.array(micros, pa.timestamp("us", tz="UTC")), pa.array(values)],
                                         names=["timestamp", "value"])

    def commit(self, end: dict) -> None:
        pass


class BoundedRateSource(DataSource):
    """``spark.readStream.format("streamplace_rate")``: see the module's docstring."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return SCHEMA

    def streamReader(self, schema: Any) -> BoundedRateReader:
        return BoundedRateReader(dict(self.options))


#: the file in a query's checkpoint directory that holds the bounded sources' arrival origin
ORIGIN_FILE = "streamplace-origin"


def arrival_origin(checkpoint: Path) -> float:
    """The origin of a query's arrivals (seconds since the epoch), kept in its checkpoint: a restarted query's rows
    go on arriving where they left off (the time it was down is backlog); a fresh query's (no offset logged yet)
    is now. A checkpoint with offsets but no origin (written by another source) is refused: its offsets would
    not match this source's arrivals."""
    path = checkpoint / ORIGIN_FILE
    offsets = checkpoint / "offsets"
    if offsets.is_dir() and any(p.name.isdigit() for p in offsets.iterdir()):
        try:
            return float(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise SpecError([Problem(str(path), "the checkpoint has offsets but no arrival origin of the bounded "
                                     "sources (it was written by another source)",
                                     "delete the output directory or give another [[out_dir]]")]) from None
    now = time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".streamplace-origin.tmp")
    tmp.write_text(repr(now), encoding="utf-8")
    os.replace(tmp, path)
    return now


#: the file in a query's checkpoint directory that stalls its bounded sources (the ``stallFile`` option)
STALL_FILE = "streamplace-stall"


def stalled(stall_file: Path | None, now: float) -> bool:
    """Does ``stall_file`` (None: none) hold an instant after ``now``? An unreadable file is no stall."""
    if stall_file is None:
        return False
    try:
        return float(stall_file.read_text(encoding="utf-8")) > now
    except (OSError, ValueError):
        return False


def stall(checkpoint: Path, seconds: float) -> None:
    """Stall the bounded sources of the query checkpointed at ``checkpoint`` for ``seconds`` from now: they admit
    nothing until then, and afterwards what arrived meanwhile (the fault a stalled source injects)."""
    path = checkpoint / STALL_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{STALL_FILE}.tmp")
    tmp.write_text(repr(time.time() + seconds), encoding="utf-8")
    os.replace(tmp, path)


def register(spark: Any) -> None:
    """Make the source readable in ``spark`` (idempotent)."""
    spark.dataSource.register(BoundedRateSource)
