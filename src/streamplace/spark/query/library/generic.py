"""Generic operators: rate source, calibrated busy work, pass, filter, transform, windowed count, top-k.

Each factory takes the operator, its logic parameters and the node's speed-up
(emulated heterogeneity divides CPU work by it) and returns a ``Logic``.
Windowed count and top-k keep state across micro-batches, per partition: with
key grouping every key lives in one partition, so the state is that key's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from streamplace.model.topology import Operator
from streamplace.spark.query.busy import burn_cpu_ms
from streamplace.spark.query.logic import Logic, register, to_batch


def burner(op: Operator, params: dict[str, Any], speedup: float) -> float:
    """CPU ms to burn per tuple: ``cost_ms`` (param, else the operator's) divided by the node's speed-up."""
    return float(params.get("cost_ms", op.cost_ms)) / speedup


@register("rate", "source: Spark's rate source at the operator's rate (burns cost_ms per tuple when > 0)")
def rate(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    return Logic(busy(op, params, speedup).fn, source="rate")


@register("busy", "burn cost_ms of CPU per tuple (calibrated on the thread's CPU clock); params: cost_ms")
def busy(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    cost = burner(op, params, speedup)
    if cost <= 0:
        return Logic(lambda batch: batch)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        return batch

    return Logic(fn)


@register("pass", "forward every tuple unchanged (no work)")
def passthrough(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    return Logic(lambda batch: batch)


@register("flux", "a Storm class imported from Flux, emulated: the rate source for a spout, else busy work of the "
                  "operator's cost_ms; params: className (kept for the record), emits (key fields its FIELDS-grouped "
                  "outputs need: copies of the tuple's key)")
def flux(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    emits = [str(f) for f in params.get("emits", [])]
    params = {k: v for k, v in params.items() if k not in ("className", "emits")}
    work = rate(op, params, speedup) if op.is_source else busy(op, params, speedup)
    if not emits:
        return work

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        batch = work.fn(batch)
        keys = batch.column("key")
        kept = [n for n in batch.schema.names if n not in emits]
        return pa.RecordBatch.from_arrays([batch.column(n) for n in kept] + [keys] * len(emits),
                                          names=kept + emits)

    return Logic(fn, adds=tuple((f, "long") for f in emits), source=work.source)


@register("filter", "keep tuples whose value is divisible by modulus (default 2); params: modulus")
def divisible(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    modulus = int(params.get("modulus", 2))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        values = batch.column("value").to_numpy(zero_copy_only=False)
        return batch.filter(pa.array(values % modulus == 0))

    return Logic(fn, selective=True)


@register("transform", "re-key: key = (key·multiplier + offset) mod keys; params: multiplier, offset, keys")
def rekey(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    mult, offset, space = int(params.get("multiplier", 31)), int(params.get("offset", 7)), int(params.get("keys", 1024))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        i = batch.schema.get_field_index("key")
        keys = batch.column(i).to_numpy(zero_copy_only=False)
        return batch.set_column(i, "key", pa.array((keys * mult + offset) % space))

    return Logic(fn)


def seconds(col: pd.Series) -> np.ndarray:
    """Event time in whole seconds since the epoch, from timestamps (any unit, naive = UTC) or numbers."""
    if pd.api.types.is_datetime64_any_dtype(col):
        return ((pd.to_datetime(col, utc=True) - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy()
    return col.to_numpy(dtype=np.float64).astype(np.int64)


@register("window-count", "sliding count per key over event time; emits each touched key's count per batch; "
          "params: by (key), time (ts), window_s (60), bucket_s (1)")
def window_count(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    """Count per key over the last ``window_s`` of event time, in ``bucket_s`` buckets.

    Rows whose key is null (metronome ticks) only advance the clock, so counts expire
    without new data. Per batch and per touched key, one update comes out: the key's
    last tuple with its current ``count``. State: (key, bucket, n) rows, O(keys × buckets).
    """
    by, time_col = str(params.get("by", "key")), str(params.get("time", "ts"))
    window_s, bucket_s = float(params.get("window_s", 60)), float(params.get("bucket_s", 1))
    span = max(1, round(window_s / bucket_s))
    cost = burner(op, params, speedup)
    adds = (("count", "long"),)

    def fn(batch: pa.RecordBatch, state: pd.DataFrame | None, partition: int) -> tuple[pa.RecordBatch, Any]:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        state = state if state is not None else pd.DataFrame({"k": pd.Series(dtype=object), "bucket": pd.Series(
            dtype=np.int64), "n": pd.Series(dtype=np.int64)})
        buckets = (seconds(df[time_col]) // bucket_s).astype(np.int64) if len(df) else np.zeros(0, np.int64)
        clock = max(int(buckets.max()) if len(buckets) else -1, int(state["bucket"].max()) if len(state) else -1)
        keyed = df[by].notna().to_numpy()
        new = pd.DataFrame({"k": df[by][keyed].to_numpy(), "bucket": buckets[keyed], "n": 1})
        merged = pd.concat([state, new], ignore_index=True) if len(new) else state
        merged = merged.groupby(["k", "bucket"], as_index=False, sort=False)["n"].sum()
        merged = merged[merged["bucket"] > clock - span]
        counts = merged.groupby("k")["n"].sum()
        last = df[keyed].drop_duplicates(subset=[by], keep="last")
        last = last.assign(count=counts.reindex(last[by].to_numpy()).fillna(0).to_numpy().astype(np.int64))
        return to_batch(last, batch.schema, adds), merged.reset_index(drop=True)

    return Logic(fn, adds=adds, selective=True, stateful=True)


@register("top-k", "keeps each id's latest score and emits its partition's top k per batch (rank 1..k); "
          "params: k (10), by (count), id (key)")
def top_k(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    """Partial ranking: the top ``k`` ids by latest score in this partition, re-emitted when it gets input.

    The rows come out with ``key`` = the partition id, so a global merge can replace a
    partition's list when a newer one arrives. O(ids in the partition) per batch.
    """
    k, by, ident = int(params.get("k", 10)), str(params.get("by", "count")), str(params.get("id", "key"))
    cost = burner(op, params, speedup)
    adds = (("rank", "long"),)

    def fn(batch: pa.RecordBatch, state: pd.DataFrame | None, partition: int) -> tuple[pa.RecordBatch, Any]:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas().drop(columns=["rank"], errors="ignore")
        if not len(df):
            return to_batch(df.assign(rank=0).iloc[:0], batch.schema, adds), state
        merged = pd.concat([state, df], ignore_index=True) if state is not None else df
        merged = merged.drop_duplicates(subset=[ident], keep="last").reset_index(drop=True)
        top = merged.sort_values([by, ident], ascending=[False, True], kind="stable").head(k)
        top = top.assign(ts=df["ts"].max(), value=df["value"].max(), key=partition, rank=np.arange(1, len(top) + 1))
        return to_batch(top, batch.schema, adds), merged

    return Logic(fn, adds=adds, selective=True, stateful=True)


@register("top-k-merge", "global ranking: keeps each partial ranker's latest list (by key) and emits the top k; "
          "params: k (10), by (count), id (key of the ranked item)")
def top_k_merge(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    k, by, ident = int(params.get("k", 10)), str(params.get("by", "count")), str(params.get("id", "key"))
    cost = burner(op, params, speedup)
    adds = (("rank", "long"),)

    def fn(batch: pa.RecordBatch, state: pd.DataFrame | None, partition: int) -> tuple[pa.RecordBatch, Any]:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        if not len(df):
            return to_batch(df.iloc[:0], batch.schema, adds), state
        newest = df.groupby("key")["value"].transform("max") == df["value"]  # each partial's latest list
        lists = df[newest.to_numpy()]
        if state is not None:
            state = state[~state["key"].isin(lists["key"].unique())]
        merged = pd.concat([state, lists], ignore_index=True) if state is not None else lists
        top = (merged.sort_values([by, ident], ascending=[False, True], kind="stable")
               .drop_duplicates(subset=[ident]).head(k))
        top = top.assign(ts=df["ts"].max(), value=df["value"].max(), rank=np.arange(1, len(top) + 1))
        return to_batch(top, batch.schema, adds), merged.reset_index(drop=True)

    return Logic(fn, adds=adds, selective=True, stateful=True)
