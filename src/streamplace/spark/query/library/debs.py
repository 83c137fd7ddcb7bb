"""DEBS 2015 Grand Challenge Query 1 on Spark: synthetic taxi trips, parsing, the grid, routes and top-10.

The real data set is not available here, so ``debs-trips`` generates CSV lines with
the 17 fields of the challenge's schema (reference-data.md). Each line is a pure
function of the tuple id, so a replayed batch regenerates the same trips. Trips
cluster around a few hot cells (so the top-10 is meaningful), a share lies
outside the 300 × 300 grid (the area filter drops them, ``outside`` default 3 %,
matching the topology's α = 0.97), and a share is malformed (``bad`` default
0.1 %: a missing field, a non-numeric coordinate or a bad timestamp) — the
parser sends those to the dead-letter output instead of failing.

Event time: trip k drops off at ``start`` + k · ``event_step_s`` (default 0.2 s,
about New York's 5 trips/s), so the 30-minute window of ``countByWindow`` holds
about 9,000 trips whatever the generation rate.

Grid: cell 1.1 is centred at (41.474937, −74.913585); one cell is 0.005986° of
longitude and 0.004491556° of latitude (500 m); cells count east first, then
south; ids are ``x.y`` with x, y in 1..300; a route is ``start-end``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from streamplace.model.topology import Operator
from streamplace.spark.query.busy import burn_cpu_ms
from streamplace.spark.query.hashing import salt_of, unit_hash
from streamplace.spark.query.library.generic import burner, top_k, top_k_merge, window_count
from streamplace.spark.query.logic import ERROR_COLUMN, Logic, register, to_batch

FIELDS = ("medallion", "hack_license", "pickup_datetime", "dropoff_datetime", "trip_time_in_secs", "trip_distance",
          "pickup_longitude", "pickup_latitude", "dropoff_longitude", "dropoff_latitude", "payment_type",
          "fare_amount", "surcharge", "mta_tax", "tip_amount", "tolls_amount", "total_amount")
TIME_FIELDS = ("pickup_datetime", "dropoff_datetime")
STRING_FIELDS = ("medallion", "hack_license", "payment_type")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
LAT0, LON0 = 41.474937, -74.913585  # centre of cell 1.1
DLAT, DLON = 0.004491556, 0.005986
GRID = 300
START = pd.Timestamp("2013-01-01 00:00:00")
#: popular cells (x, y) near Manhattan's grid position, where most synthetic trips start and end
HOT_CELLS = np.array([(157, 160), (158, 161), (156, 158), (160, 163), (155, 162), (161, 159), (159, 157),
                      (154, 160), (162, 165), (157, 156), (163, 161), (153, 163)])


def cell_of(lon: np.ndarray, lat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grid cell (x east, y south; 1-based) of coordinates; outside the grid gives values outside 1..300."""
    x = np.floor((lon - (LON0 - DLON / 2)) / DLON).astype(np.int64) + 1
    y = np.floor(((LAT0 + DLAT / 2) - lat) / DLAT).astype(np.int64) + 1
    return x, y


def _coords(u_hot: np.ndarray, u_pick: np.ndarray, u_x: np.ndarray, u_y: np.ndarray, u_out: np.ndarray,
            outside: float) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates: 70 % in a hot cell, else anywhere on the grid; a share ``outside`` lands off the grid."""
    hot = HOT_CELLS[(u_pick * len(HOT_CELLS)).astype(int) % len(HOT_CELLS)]
    anywhere = np.stack([1 + (u_x * GRID).astype(int), 1 + (u_y * GRID).astype(int)], axis=1)
    cells = np.where((u_hot < 0.7)[:, None], hot, anywhere)
    jitter_x, jitter_y = (u_x * 997) % 1 - 0.5, (u_y * 991) % 1 - 0.5
    lon = LON0 + (cells[:, 0] - 1 + jitter_x * 0.98) * DLON
    lat = LAT0 - (cells[:, 1] - 1 + jitter_y * 0.98) * DLAT
    off = u_out < outside
    lon = np.where(off, lon - GRID * DLON, lon)  # shifted a whole grid west
    return lon, lat


def generate_lines(values: np.ndarray, event_step_s: float = 0.2, outside: float = 0.03,
                   bad: float = 0.001) -> pa.Array:
    """One 17-field CSV line per tuple id (a pure function of the id)."""
    u = [unit_hash(values, salt_of(f"debs-{k}")) for k in range(12)]
    dropoff = START + pd.to_timedelta(np.floor(values * event_step_s), unit="s")  # whole seconds, as in the data
    trip_s = (120 + u[0] * 1800).astype(np.int64)
    pickup = dropoff - pd.to_timedelta(trip_s, unit="s")
    p_lon, p_lat = _coords(u[1], u[2], u[3], u[4], u[5], outside / 2)
    d_lon, d_lat = _coords(u[6], u[7], u[8], u[9], u[10], outside / 2)
    fare = np.round(2.5 + trip_s / 60 * 0.9, 2)
    tip = np.round(fare * np.where(u[11] < 0.5, 0.2, 0.0), 2)
    taxi = (u[0] * 1e6).astype(np.int64) % 5000
    cols = {
        "medallion": pc.binary_join_element_wise("M", pa.array(taxi).cast(pa.string()), ""),
        "hack_license": pc.binary_join_element_wise("H", pa.array((taxi * 7 + 3) % 9000).cast(pa.string()), ""),
        "pickup_datetime": pc.strftime(pa.array(pickup).cast(pa.timestamp("s")), format=TIME_FORMAT),
        "dropoff_datetime": pc.strftime(pa.array(dropoff).cast(pa.timestamp("s")), format=TIME_FORMAT),
        "trip_time_in_secs": pa.array(trip_s).cast(pa.string()),
        "trip_distance": pa.array(np.round(trip_s / 300, 2)).cast(pa.string()),
        "pickup_longitude": pa.array(np.round(p_lon, 6)).cast(pa.string()),
        "pickup_latitude": pa.array(np.round(p_lat, 6)).cast(pa.string()),
        "dropoff_longitude": pa.array(np.round(d_lon, 6)).cast(pa.string()),
        "dropoff_latitude": pa.array(np.round(d_lat, 6)).cast(pa.string()),
        "payment_type": pa.array(np.where(u[11] < 0.5, "CRD", "CSH")),
        "fare_amount": pa.array(fare).cast(pa.string()),
        "surcharge": pa.array(np.full(len(values), 0.5)).cast(pa.string()),
        "mta_tax": pa.array(np.full(len(values), 0.5)).cast(pa.string()),
        "tip_amount": pa.array(tip).cast(pa.string()),
        "tolls_amount": pa.array(np.zeros(len(values))).cast(pa.string()),
        "total_amount": pa.array(np.round(fare + 1.0 + tip, 2)).cast(pa.string()),
    }
    lines = pc.binary_join_element_wise(*cols.values(), ",").to_numpy(zero_copy_only=False).astype(object)
    broken = np.flatnonzero(unit_hash(values, salt_of("debs-bad")) < bad)
    for k, i in enumerate(broken):  # three kinds of damage, in turn
        fields = lines[i].split(",")
        if k % 3 == 0:
            fields = fields[:-1]
        elif k % 3 == 1:
            fields[6] = "n/a"
        else:
            fields[3] = "2013-13-45 25:61:00"
        lines[i] = ",".join(fields)
    return pa.array(lines, pa.string())


@register("debs-trips", "source: synthetic DEBS 2015 trips as 17-field CSV lines; params: event_step_s (0.2), "
          "outside (0.03), bad (0.001), input (rate|file)")
def trips(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    step, outside, bad = (float(params.get("event_step_s", 0.2)), float(params.get("outside", 0.03)),
                          float(params.get("bad", 0.001)))
    cost = burner(op, params, speedup)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        lines = generate_lines(batch.column("value").to_numpy(zero_copy_only=False), step, outside, bad)
        return batch.append_column("line", lines) if "line" not in batch.schema.names else batch

    return Logic(fn, adds=(("line", "string"),), source="rate")


PARSED = tuple((f, "timestamp" if f in TIME_FIELDS else "string" if f in STRING_FIELDS else
                "long" if f == "trip_time_in_secs" else "double") for f in FIELDS)


def parse_lines(lines: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    """The 17 typed fields of each line and, per line, why it is malformed (None when it is fine)."""
    parts = lines.fillna("").str.split(",", expand=True)
    n_fields = lines.fillna("").str.count(",") + 1
    error = pd.Series(np.where(n_fields != len(FIELDS), "expected 17 fields, got " + n_fields.astype(str), None),
                      index=lines.index, dtype=object)
    out = {}
    for k, (name, typ) in enumerate(PARSED):
        raw = parts[k] if k in parts.columns else pd.Series(None, index=lines.index, dtype=object)
        if typ == "timestamp":
            val = pd.to_datetime(raw, format=TIME_FORMAT, errors="coerce")
        elif typ == "string":
            val = raw
        else:
            val = pd.to_numeric(raw, errors="coerce")
        if typ != "string":
            bad = val.isna() & error.isna()
            error[bad] = f"bad {name}"
        out[name] = val
    frame = pd.DataFrame(out)
    frame["trip_time_in_secs"] = frame["trip_time_in_secs"].fillna(0).astype(np.int64)
    return frame, error


@register("debs-parse", "parse the 17 CSV fields; malformed lines go to the dead-letter output")
def parse(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    cost = burner(op, params, speedup)
    adds = (*PARSED, ("line", "string"))

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        fields, error = parse_lines(df["line"])
        out = pd.concat([df.drop(columns=list(FIELDS), errors="ignore").reset_index(drop=True), fields], axis=1)
        out["line"] = df["line"].where(error.notna(), None)  # kept only where a dead letter needs it
        out[ERROR_COLUMN] = error
        return to_batch(out, batch.schema, (*adds, (ERROR_COLUMN, "string")))

    return Logic(fn, adds=adds, selective=True, dead_letter=True)


CELLS = (("start_x", "long"), ("start_y", "long"), ("end_x", "long"), ("end_y", "long"))


@register("debs-area", "keep trips whose start and end cells lie on the 300 × 300 grid (adds the cells)")
def area(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    cost = burner(op, params, speedup)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        df = batch.to_pandas()
        sx, sy = cell_of(df["pickup_longitude"].to_numpy(float), df["pickup_latitude"].to_numpy(float))
        ex, ey = cell_of(df["dropoff_longitude"].to_numpy(float), df["dropoff_latitude"].to_numpy(float))
        df["start_x"], df["start_y"], df["end_x"], df["end_y"] = sx, sy, ex, ey
        inside = np.all([(c >= 1) & (c <= GRID) for c in (sx, sy, ex, ey)], axis=0)
        return to_batch(df[inside], batch.schema, CELLS)

    return Logic(fn, adds=CELLS, selective=True)


@register("debs-route", "route id 'x.y-x.y' from the start and end cells")
def route(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    cost = burner(op, params, speedup)
    adds = (("route", "string"),)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        c = {n: pc.cast(batch.column(n), pa.string()) for n, _ in CELLS}
        ident = pc.binary_join_element_wise(pc.binary_join_element_wise(c["start_x"], c["start_y"], "."),
                                            pc.binary_join_element_wise(c["end_x"], c["end_y"], "."), "-")
        names = batch.schema.names
        return (batch.set_column(names.index("route"), "route", ident) if "route" in names
                else batch.append_column("route", ident))

    return Logic(fn, adds=adds)


@register("debs-metronome", "one tick per batch carrying the latest drop-off time (advances the window clock)")
def metronome(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    cost = burner(op, params, speedup)

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        burn_cpu_ms(cost * batch.num_rows)
        if batch.num_rows == 0:
            return batch
        times = batch.column("dropoff_datetime")
        latest = pc.index(times, pc.max(times)).as_py()
        return batch.slice(max(latest, 0), 1)

    return Logic(fn, selective=True)


@register("debs-count", "countByWindow: trips per route over the last 30 minutes of drop-off time")
def count_by_window(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    defaults = {"by": "route", "time": "dropoff_datetime", "window_s": 1800, "bucket_s": 60}
    return window_count(op, defaults | params, speedup)


@register("debs-partial-rank", "partialRank: each replica's top-10 routes by count")
def partial_rank(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    return top_k(op, {"k": 10, "by": "count", "id": "route"} | params, speedup)


@register("debs-global-rank", "globalRank: the top-10 routes of the last 30 minutes")
def global_rank(op: Operator, params: dict[str, Any], speedup: float) -> Logic:
    return top_k_merge(op, {"k": 10, "by": "count", "id": "route"} | params, speedup)
