"""What one operator's Spark tasks run: its logic, its selectivity, state and statistics.

The logic comes from the operator's ``logic`` spec (see logic.py and the
built-ins in library/). Unless the logic decides itself which tuples survive,
the operator's selectivity α then applies, deterministically per tuple: α < 1
keeps a tuple when a hash of (value, operator) falls below α; α ≥ 1 emits ⌊α⌋
copies plus one more for the fractional part. Merges need no logic: an operator
with several inputs receives their union. Per Arrow batch the task adds its
statistics to a Spark accumulator (metrics.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamplace.model.layout import NODE_ENV
from streamplace.spark.query.hashing import salt_of, unit_hash
from streamplace.spark.query.logic import ERROR_COLUMN, Logic
from streamplace.spark.query.state import StateStore

# operator statistics, summed over tasks by a Spark accumulator (see metrics.py)
ROWS_IN, ROWS_OUT, CPU_S, WALL_S, BATCHES, LAT_SUM_S, LAT_COUNT, LAT_MAX_S, DEAD = range(9)
N_STATS = 9


def placed_key(op_id: str, node: str) -> str:
    """Statistics key of an operator's replicas on one node (pinned runs): proves where its tasks ran."""
    return f"{op_id}@{node}"


def parse_placed_key(key: str) -> tuple[str, str] | None:
    """(operator, node) of a placed_key, None for an operator's own key (operator ids have no '@')."""
    op, sep, node = key.partition("@")
    return (op, node) if sep else None


def apply_selectivity(batch: pa.RecordBatch, alpha: float, salt: int) -> pa.RecordBatch:
    if alpha == 1.0 or batch.num_rows == 0:
        return batch
    u = unit_hash(batch.column("value").to_numpy(zero_copy_only=False), salt)
    whole, frac = int(np.floor(alpha)), alpha - np.floor(alpha)
    copies = whole + (u < frac).astype(np.int64)
    if whole == 0:
        return batch.filter(pa.array(copies > 0))
    return batch.take(pa.array(np.repeat(np.arange(batch.num_rows), copies)))


@dataclass(frozen=True)
class OperatorTask:
    """One operator's per-partition work; ``state_dir`` is where stateful logic keeps its versions."""

    op_id: str
    logic: Logic
    selectivity: float
    measure_latency: bool
    parallelism: int = 1
    state_dir: str | None = None
    #: placed replicas (a standalone cluster): the node these tasks emulate (its speed); their statistics are kept
    #: under the node the task really ran on, which the worker's environment names (NODE_ENV), so a replica off its
    #: planned node shows in them
    node: str | None = None
    #: ms the task waits before it processes: its shuffle input crossing an emulated link (pipeline.py)
    fetch_wait_ms: float = 0.0

    def __call__(self, batches: Iterator[pa.RecordBatch], stats: Any, batch_id: int) -> Iterator[pa.RecordBatch]:
        salt = salt_of(self.op_id)
        store, state, partition = None, None, 0
        ran_on = None if self.node is None else os.environ.get(NODE_ENV) or self.node
        if self.logic.stateful:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            partition = ctx.partitionId() if ctx is not None else 0
        if self.logic.stateful:
            store = StateStore(self.state_dir or "streamplace-state", self.op_id, partition, self.parallelism)
            state = store.load(batch_id)
        for batch in batches:
            wall0, cpu0 = time.perf_counter(), time.thread_time()
            if self.logic.stateful:
                out, state = self.logic.fn(batch, state, partition)
            else:
                out = self.logic.fn(batch)
            if not self.logic.selective:
                out = apply_selectivity(out, self.selectivity, salt)
            row = [0.0] * N_STATS
            if self.logic.dead_letter and out.num_rows:
                row[DEAD] = out.num_rows - pc.sum(pc.is_null(out.column(ERROR_COLUMN))).as_py()
            row[ROWS_IN], row[ROWS_OUT], row[BATCHES] = batch.num_rows, out.num_rows - row[DEAD], 1
            row[CPU_S], row[WALL_S] = time.thread_time() - cpu0, time.perf_counter() - wall0
            if self.measure_latency and out.num_rows:
                ts = out.column("ts").cast(pa.int64()).to_numpy(zero_copy_only=False)  # µs since the epoch
                lat = time.time() - ts / 1e6
                row[LAT_SUM_S], row[LAT_COUNT], row[LAT_MAX_S] = float(lat.sum()), out.num_rows, float(lat.max())
            stats.add({self.op_id: row} if ran_on is None else {self.op_id: row, placed_key(self.op_id, ran_on): row})
            yield out
        if store is not None:
            store.save(batch_id, state)
