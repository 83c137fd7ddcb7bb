"""What an operator does to each Arrow batch, and the registry of built-in logic names.

Every tuple carries ``ts`` (event time at the source, for end-to-end latency),
``value`` (a unique id per source tuple) and ``key`` (``value`` mod the key
space unless an operator re-keys); operators may add columns (the DEBS and OEE
operators do). A ``Logic`` says what a batch becomes, which columns come out,
whether it realizes the operator's selectivity itself (then α is measured, not
imposed), whether it keeps state across micro-batches, and whether it sends
malformed records to a dead-letter output.

A spec names the logic in ``logic: {name: ..., params...}``: a built-in name
(``streamplace.spark.query.library`` lists them) or ``package.module:function`` — a
function mapping a ``pyarrow.RecordBatch`` to one with the same columns, or,
with ``factory: true``, a function ``(operator, params) -> Logic``;
``streamplace.spark.query.library.logic_of`` finds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow as pa

from streamplace.model.topology import Operator

Columns = tuple[tuple[str, str], ...]  # (name, Spark SQL type) in order
BASE_COLUMNS: Columns = (("ts", "timestamp"), ("value", "long"), ("key", "long"))
ERROR_COLUMN = "_error"  # set (non-null) on records a dead-letter logic rejects

BatchFn = Callable[[pa.RecordBatch], pa.RecordBatch]
#: stateful step: (batch, state or None, partition id) → (output batch, new state); the state is a DataFrame that
#: the runtime stores per (operator, partition) and micro-batch (see state.py)
StatefulFn = Callable[[pa.RecordBatch, "pd.DataFrame | None", int], tuple[pa.RecordBatch, "pd.DataFrame | None"]]


@dataclass(frozen=True)
class Logic:
    """An operator's per-batch behaviour (see the module docstring)."""

    fn: Callable[..., Any]
    adds: Columns = ()  # columns appended to the input's (replacing same-named ones)
    selective: bool = False  # the logic decides which tuples survive: α is not applied on top
    stateful: bool = False  # fn is a StatefulFn; the runtime keeps the state per (operator, partition)
    dead_letter: bool = False  # output carries ERROR_COLUMN; rows with an error go to the dead-letter sink
    source: str | None = None  # sources only: "rate" (Spark's rate source) or "file" (a directory fed by a generator)

    def columns(self, incoming: Columns) -> Columns:
        names = {n for n, _ in self.adds}
        out = tuple(c for c in incoming if c[0] not in names) + self.adds
        return (*out, (ERROR_COLUMN, "string")) if self.dead_letter else out


#: Spark SQL type names (as operators declare their columns) → the Arrow types Spark exchanges them as
ARROW_TYPES: dict[str, pa.DataType] = {
    "timestamp": pa.timestamp("us", tz="UTC"), "long": pa.int64(), "bigint": pa.int64(), "int": pa.int32(),
    "integer": pa.int32(), "double": pa.float64(), "float": pa.float32(), "string": pa.string(),
    "boolean": pa.bool_(),
}


def arrow_schema(columns: Columns) -> pa.Schema:
    """The Arrow schema of ``columns``; a type outside ARROW_TYPES is a programming error in a logic's spec."""
    unknown = sorted({t for _, t in columns if t not in ARROW_TYPES})
    if unknown:
        raise ValueError(f"no Arrow type for Spark type(s) {', '.join(unknown)} (known: {', '.join(ARROW_TYPES)})")
    return pa.schema([(name, ARROW_TYPES[t]) for name, t in columns])


def to_batch(frame: pd.DataFrame, like: pa.Schema, adds: Columns) -> pa.RecordBatch:
    """A RecordBatch with ``like``'s fields (types kept exactly, as Spark expects them) followed by ``adds``."""
    ts_type = like.field("ts").type if "ts" in like.names else pa.timestamp("us", tz="UTC")
    added = {n for n, _ in adds}
    fields = [f for f in like if f.name not in added and f.name != ERROR_COLUMN]
    fields += [pa.field(n, ts_type if t == "timestamp" else ARROW_TYPES[t]) for n, t in adds]
    arrays = [pa.array(frame[f.name], type=f.type, from_pandas=True) if len(frame) else pa.array([], f.type)
              for f in fields]
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def ddl(columns: Columns) -> str:
    return ", ".join(f"{n} {t}" for n, t in columns)


def merge_columns(inputs: list[Columns]) -> Columns:
    """The columns of a union of inputs (Spark's unionByName with missing columns as nulls)."""
    out: dict[str, str] = {}
    for cols in inputs:
        for name, typ in cols:
            out.setdefault(name, typ)
    return tuple(out.items())


Factory = Callable[[Operator, dict[str, Any], float], Logic]
REGISTRY: dict[str, tuple[Factory, str]] = {}


def register(name: str, help_text: str) -> Callable[[Factory], Factory]:
    def deco(fn: Factory) -> Factory:
        REGISTRY[name] = (fn, help_text)
        return fn

    return deco
