"""File sources fed by generators: a driver thread writes the generator's output as Parquet files at a rate.

For a source with ``logic: {..., input: file}`` the runtime does not use Spark's
rate source: every ``interval_s`` this feeder generates the tuples due since
the last file (ids continue across restarts: the next id is kept beside the
files), runs the source's generator logic on them (DEBS lines, sensor
readings) and writes one Parquet file atomically (a hidden temporary file,
then a rename), which Spark's file source picks up. That is how a real
deployment reads a landing directory; the query's checkpoint records which
files were consumed, so a restart neither skips nor re-reads one.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from streamplace.spark.query.logic import BatchFn


@dataclass
class FileFeeder:
    directory: Path
    rate: float  # tuples per second
    generate: BatchFn  # base batch (ts, value, key) → the files' rows
    key_space: int = 1024
    interval_s: float = 0.5
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @property
    def _cursor(self) -> Path:
        return self.directory / "_next_id.json"

    def next_id(self) -> int:
        return int(json.loads(self._cursor.read_text())["next"]) if self._cursor.exists() else 0

    def write_once(self, first: int, count: int, seq: int) -> None:
        values = np.arange(first, first + count, dtype=np.int64)
        now = pa.array(np.full(count, int(time.time() * 1e6), dtype=np.int64)).cast(pa.timestamp("us", tz="UTC"))
        base = pa.RecordBatch.from_arrays([now, pa.array(values), pa.array(values % self.key_space)],
                                          names=["ts", "value", "key"])
        table = pa.Table.from_batches([self.generate(base)])
        tmp = self.directory / f".part-{seq:08d}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.directory / f"part-{seq:08d}-{first}.parquet")
        self._cursor.write_text(json.dumps({"next": first + count}))

    def _loop(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        first, owed, last = self.next_id(), 0.0, time.monotonic()
        seq = len(list(self.directory.glob("part-*.parquet")))
        while not self._stop.wait(self.interval_s):
            now = time.monotonic()
            owed += self.rate * (now - last)
            last = now
            count = int(owed)
            if count > 0:
                self.write_once(first, count, seq)
                first, owed, seq = first + count, owed - count, seq + 1

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._loop, name=f"feeder-{self.directory.name}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
