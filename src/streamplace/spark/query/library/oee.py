"""Hochreiner et al.'s (2017) manufacturing operators (overall equipment effectiveness) with synthetic machine sensors.

Sensors (``sensor`` source logic, one tuple id per reading, machine = key):

* S1 availability: ``x`` = 1 while the machine runs, 0 when it reports a stop (2 %);
* S2 production data (one record per production cycle): ``x`` parts produced,
  ``y`` defective parts, ``z`` seconds of stoppage in the cycle;
* S3 temperature: ``x`` °C, around 70 with rare spikes above 95 (1 %).

Operators (``oee`` logic, chosen by ``operator``: Table 2's names): Parse and
Distribute Data (validates a production record), Filter Availability (keeps
stops), Calculate Performance (produced / ideal), Availability (1 − stoppage /
cycle), Quality (good / produced), Calculate OEE (A · P · Q once all three of a
cycle have arrived — the three streams are key-grouped by the cycle id
``value``), Monitor Temperature (keeps readings above 95 °C), Generate Report
(mean OEE per machine every 300 results) and Inform User (the sink). The result
of each calculation is in ``metric``; ``kind`` says what it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from streamplace.model.topology import Operator
from streamplace.spark.query.busy import burn_cpu_ms
from streamplace.spark.query.hashing import salt_of, unit_hash
from streamplace.spark.query.library.generic import burner
from streamplace.spark.query.logic import Logic, register, to_batch

READING = (("kind", "string"), ("x", "double"), ("y", "double"), ("z", "double"))
METRIC = (("metric", "double"),)
IDEAL_PARTS, CYCLE_S, HOT_C = 60.0, 480.0, 95.0


def readings(sensor: str, values: np.ndarray) -> pd.DataFrame:
    u = [unit_hash(values, salt_of(f"{sensor}-{k}")) for k in range(3)]
    if sensor == "S1":
        x, y, z = (u[0] >= 0.02).astype(float), np.zeros(len(values)), np.zeros(len(values))
    elif sensor == "S2":
        x = np.floor(40 + 20 * u[0])
        y, z = np.floor(4 * u[1] ** 3), np.floor(60 * u[2] ** 2)
    elif sensor == "S3":
        x = np.where(u[0] < 0.01, 96 + 10 * u[1], 60 + 20 * u[1])
        y = z = np.zeros(len(values))
    else:
        raise ValueError(f"sensor must be S1, S2 or S3, got {sensor!r}")
    return pd.DataFrame({"kind": sensor, "x": x, "y": y, "z": z})


@register("sensor", "source: machine sensor (Hochreiner et al. 2017); params: sensor (S1|S2|S3), machines (8)")
def sensor(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    name, machines = str(params.get("sensor", "S2")), int(params.get("machines", 8))
    readings(name, np.zeros(1, np.int64))  # fail early on a bad sensor name
    cost = burner(op, params, speedup)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        df["key"] = df["value"] % machines
        df = pd.concat([df[["ts", "value", "key"]], readings(name, df["value"].to_numpy())], axis=1)
        return to_batch(df, batch.schema, READING)

    return Logic(fn, adds=READING, source="rate")


def _oee_join(df: pd.DataFrame) -> pd.DataFrame:
    """OEE of every production cycle whose performance, availability and quality are all in this batch."""
    parts = df.pivot_table(index="value", columns="kind", values="metric", aggfunc="last")
    need = ["performance", "availability", "quality"]
    complete = parts.dropna(subset=[c for c in need if c in parts.columns]) if set(need) <= set(parts.columns) \
        else parts.iloc[:0]
    last = df.drop_duplicates("value", keep="last").set_index("value").loc[complete.index].reset_index()
    return last.assign(kind="oee", metric=(complete[need].prod(axis=1)).to_numpy() if len(complete) else [])


def _step(name: str, df: pd.DataFrame) -> pd.DataFrame:
    if name == "Parse and Distribute Data":
        return df[(df["x"] >= 0) & (df["y"] <= df["x"])].assign(metric=lambda d: d["x"])
    if name == "Filter Availability":
        return df[df["x"] == 0].assign(metric=0.0, kind="stop")
    if name == "Calculate Performance":
        return df.assign(metric=lambda d: np.minimum(d["x"] / IDEAL_PARTS, 1.0), kind="performance")
    if name == "Calculate Availability":
        return df.assign(metric=lambda d: 1.0 - d["z"] / CYCLE_S, kind="availability")
    if name == "Calculate Quality":
        return df.assign(metric=lambda d: np.where(d["x"] > 0, (d["x"] - d["y"]) / d["x"].clip(lower=1), 0.0),
                         kind="quality")
    if name == "Calculate OEE":
        return _oee_join(df)
    if name == "Monitor Temperature":
        return df[df["x"] > HOT_C].assign(metric=lambda d: d["x"], kind="overheat")
    if name == "Inform User":
        return df
    raise ValueError(f"unknown OEE operator {name!r}")


@register("oee", "Hochreiner et al.'s (2017) operators; params: operator (Table 2 name), every (300, Generate Report)")
def oee(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    name = str(params.get("operator", ""))
    cost = burner(op, params, speedup)
    if name == "Generate Report":
        return _report(int(params.get("every", 300)), cost)
    _step(name, pd.DataFrame({"value": [], "kind": [], "metric": [], "x": [], "y": [], "z": []}))  # validate name

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        if "metric" not in df.columns:
            df["metric"] = np.nan
        return to_batch(_step(name, df), batch.schema, METRIC)

    return Logic(fn, adds=METRIC, selective=True)


def _report(every: int, cost: float) -> Logic:
    """Mean OEE per machine over every ``every`` results (state: running count and sum per machine)."""

    def fn(batch: pa.RecordBatch, state: pd.DataFrame | None, partition: int) -> tuple[pa.RecordBatch, Any]:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        acc = state.set_index("key") if state is not None else pd.DataFrame({"n": [], "total": []})
        rows = []
        for key, group in df.groupby("key", sort=True):
            n, total = (acc.loc[key, "n"], acc.loc[key, "total"]) if key in acc.index else (0, 0.0)
            for _, row in group.iterrows():
                n, total = n + 1, total + float(row["metric"])
                if n >= every:
                    rows.append(row.to_dict() | {"kind": "report", "metric": total / n})
                    n, total = 0, 0.0
            acc.loc[key, ["n", "total"]] = [n, total]
        out = pd.DataFrame(rows, columns=df.columns)
        return to_batch(out, batch.schema, METRIC), acc.reset_index(names="key")

    return Logic(fn, adds=METRIC, selective=True, stateful=True)
