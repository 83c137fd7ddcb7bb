"""The operator library: vectorized Arrow functions that Spark runs with ``mapInArrow``.

Every tuple of a generic pipeline has the columns ``ts`` (event time, carried
from the source to the sink for end-to-end latency), ``value`` (a unique id per
source tuple) and ``key`` (``value`` mod the key space; what ``key`` grouping
hash-partitions by). An operator's ``logic`` picks what it does per batch:

* ``busy`` (default when ``cost_ms`` > 0): burn ``cost_ms`` of CPU per tuple (see busy.py);
* ``pass`` (default otherwise) / ``filter`` / ``transform``: no work, a predicate, a new value.

Then the operator's selectivity α applies, deterministically per tuple: α < 1 keeps
a tuple when a hash of (value, operator) falls below α; α ≥ 1 emits ⌊α⌋ copies plus
one more for the fractional part. Merges need no logic: an operator with several
inputs receives their union. A user callable is given as ``logic: {name:
"package.module:function"}``; it maps a ``pyarrow.RecordBatch`` to one with the same
columns.
"""

from __future__ import annotations

import importlib
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from streamplace.errors import Problem, SpecError
from streamplace.model.topology import Operator
from streamplace.spark.busy import burn_cpu_ms

SCHEMA_DDL = "ts timestamp, value long, key long"
BatchFn = Callable[[pa.RecordBatch], pa.RecordBatch]

# operator statistics, summed over tasks by a Spark accumulator (see metrics.py)
ROWS_IN, ROWS_OUT, CPU_S, WALL_S, BATCHES, LAT_SUM_S, LAT_COUNT, LAT_MAX_S = range(8)
N_STATS = 8


def _salt(name: str) -> int:
    return zlib.crc32(name.encode()) & 0xFFFFFFFF


def _unit_hash(values: np.ndarray, salt: int) -> np.ndarray:
    """A uniform number in [0, 1) per value (splitmix64 finalizer), reproducible across runs."""
    x = values.astype(np.uint64) ^ np.uint64(salt)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def apply_selectivity(batch: pa.RecordBatch, alpha: float, salt: int) -> pa.RecordBatch:
    if alpha == 1.0 or batch.num_rows == 0:
        return batch
    u = _unit_hash(batch.column("value").to_numpy(zero_copy_only=False), salt)
    whole, frac = int(np.floor(alpha)), alpha - np.floor(alpha)
    copies = whole + (u < frac).astype(np.int64)
    if whole == 0:
        return batch.filter(pa.array(copies > 0))
    return batch.take(pa.array(np.repeat(np.arange(batch.num_rows), copies)))


def _busy(op: Operator, params: dict[str, Any], speedup: float) -> BatchFn:
    cost = float(params.get("cost_ms", op.cost_ms)) / speedup

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        return batch

    return fn


def _pass(op: Operator, params: dict[str, Any], speedup: float) -> BatchFn:
    return lambda batch: batch


def _filter(op: Operator, params: dict[str, Any], speedup: float) -> BatchFn:
    """Keep tuples whose value is divisible by ``modulus`` (default 2): a real predicate, α ≈ 1/modulus."""
    modulus = int(params.get("modulus", 2))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        values = batch.column("value").to_numpy(zero_copy_only=False)
        return batch.filter(pa.array(values % modulus == 0))

    return fn


def _transform(op: Operator, params: dict[str, Any], speedup: float) -> BatchFn:
    """Re-key tuples: key = (key · multiplier + offset) mod key space."""
    mult, offset, space = int(params.get("multiplier", 31)), int(params.get("offset", 7)), int(params.get("keys", 1024))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        keys = batch.column("key").to_numpy(zero_copy_only=False)
        return pa.RecordBatch.from_arrays([batch.column("ts"), batch.column("value"),
                                           pa.array((keys * mult + offset) % space)], names=batch.schema.names)

    return fn


LOGIC: dict[str, Callable[[Operator, dict[str, Any], float], BatchFn]] = {
    "busy": _busy, "pass": _pass, "filter": _filter, "transform": _transform,
}


def logic_of(op: Operator, speedup: float = 1.0, where: str = "topology") -> BatchFn:
    """The per-batch function of an operator, from its ``logic`` (built-in name or ``module:callable``)."""
    params = dict(op.logic)
    name = str(params.pop("name", "busy" if op.cost_ms > 0 else "pass"))
    if name in ("rate", "sensor", "generator") and op.is_source:
        name = "busy" if op.cost_ms > 0 else "pass"
    if name in LOGIC:
        return LOGIC[name](op, params, speedup)
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            target = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise SpecError([Problem(f"operators.{op.id}.logic.name", f"cannot load {name!r}: {exc}",
                                     "give an importable package.module:function")], where) from None
        return target(op, params) if params.get("factory") else target
    raise SpecError([Problem(f"operators.{op.id}.logic.name", f"unknown logic {name!r}",
                             f"use one of {', '.join(sorted(LOGIC))}, rate (sources) or package.module:function")],
                    where)


@dataclass(frozen=True)
class OperatorTask:
    """What one operator's tasks run: its logic, then its selectivity, with statistics for the accumulator."""

    op_id: str
    fn: BatchFn
    selectivity: float
    measure_latency: bool

    def __call__(self, batches: Iterator[pa.RecordBatch], stats: Any) -> Iterator[pa.RecordBatch]:
        salt = _salt(self.op_id)
        for batch in batches:
            wall0, cpu0 = time.perf_counter(), time.thread_time()
            out = apply_selectivity(self.fn(batch), self.selectivity, salt)
            row = [0.0] * N_STATS
            row[ROWS_IN], row[ROWS_OUT], row[BATCHES] = batch.num_rows, out.num_rows, 1
            row[CPU_S], row[WALL_S] = time.thread_time() - cpu0, time.perf_counter() - wall0
            if self.measure_latency and out.num_rows:
                ts = out.column("ts").cast(pa.int64()).to_numpy(zero_copy_only=False)  # µs since the epoch
                lat = time.time() - ts / 1e6
                row[LAT_SUM_S], row[LAT_COUNT], row[LAT_MAX_S] = float(lat.sum()), out.num_rows, float(lat.max())
            stats.add({self.op_id: row})
            yield out
