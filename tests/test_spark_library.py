"""The operator library on plain Arrow batches (no Spark needed): DEBS Q1 steps, windowed count, top-k, OEE."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

from streamplace.bench.manufacturing import manufacturing  # noqa: E402
from streamplace.bench.topologies import debs2015_q1  # noqa: E402
from streamplace.errors import SpecError  # noqa: E402
from streamplace.model.topology import Operator  # noqa: E402
from streamplace.spark.query.library import debs, logic_of  # noqa: E402
from streamplace.spark.query.logic import ERROR_COLUMN  # noqa: E402


def base(values: np.ndarray) -> pa.RecordBatch:
    ts = pa.array(np.full(len(values), int(time.time() * 1e6))).cast(pa.timestamp("us", tz="UTC"))
    return pa.RecordBatch.from_arrays([ts, pa.array(values), pa.array(values % 1024)], names=["ts", "value", "key"])


@pytest.fixture(scope="module")
def q1():
    return {o.id: logic_of(o, speedup=1e12) for o in debs2015_q1().operators}  # no CPU burn in unit tests


def test_grid_cells_follow_the_challenge_definition() -> None:
    x, y = debs.cell_of(np.array([debs.LON0, debs.LON0 + debs.DLON, debs.LON0]),
                        np.array([debs.LAT0, debs.LAT0, debs.LAT0 - 299 * debs.DLAT]))
    assert list(x) == [1, 2, 1] and list(y) == [1, 1, 300]  # east first, then south


def test_trips_parse_with_dead_letters_and_are_reproducible(q1) -> None:
    values = np.arange(30_000, dtype=np.int64)
    lines = q1["source"].fn(base(values))
    assert lines.column("line").equals(q1["source"].fn(base(values)).column("line"))  # a replay regenerates
    assert len(lines.column("line")[5].as_py().split(",")) == 17
    parsed = q1["parser"].fn(lines)
    errors = parsed.column(ERROR_COLUMN).to_pandas()
    bad = errors.notna()
    assert 10 < bad.sum() < 60  # about 0.1 % of 30,000
    assert set(errors[bad].str.split(" ").str[0]) == {"expected", "bad"}
    assert parsed.column("line").to_pandas()[~bad].isna().all()  # raw lines kept only for dead letters
    good = parsed.filter(pa.array(~bad.to_numpy())).drop_columns([ERROR_COLUMN])
    kept = q1["filterByCoordinates"].fn(good)
    assert 0.95 < kept.num_rows / good.num_rows < 0.99
    cells = kept.to_pandas()[["start_x", "start_y", "end_x", "end_y"]]
    assert cells.min().min() >= 1 and cells.max().max() <= 300


def test_count_and_rank_match_a_brute_force_recount(q1) -> None:
    lines = q1["source"].fn(base(np.arange(20_000, dtype=np.int64)))
    parsed = q1["parser"].fn(lines)
    ok = parsed.filter(pc.is_null(parsed.column(ERROR_COLUMN))).drop_columns([ERROR_COLUMN])
    routed = q1["computeRouteID"].fn(q1["filterByCoordinates"].fn(ok))
    counted, _state = q1["countByWindow"].fn(routed, None, 0)
    trips = routed.to_pandas()
    end = trips["dropoff_datetime"].max()
    minute = (trips["dropoff_datetime"] - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(minutes=1)
    end_minute = (end - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(minutes=1)
    recent = trips[minute > end_minute - 30]
    truth = recent.groupby("route").size().sort_values(ascending=False)
    got = counted.to_pandas().set_index("route")["count"]
    assert got[truth.index[:50]].tolist() == truth.iloc[:50].tolist()
    # two partial rankers over halves of the routes, then the global merge: the true top-10 counts
    frame = counted.to_pandas()
    half = frame["route"].map(hash) % 2 == 0
    partials = [q1["partialRank"].fn(pa.RecordBatch.from_pandas(frame[m], schema=counted.schema), None, p)[0]
                for p, m in ((0, half), (1, ~half))]
    merged, _ = q1["globalRank"].fn(pa.concat_tables([pa.Table.from_batches([b]) for b in partials])
                                    .combine_chunks().to_batches()[0], None, 0)
    top = merged.to_pandas()
    assert top["rank"].tolist() == list(range(1, 11))
    assert top["count"].tolist() == truth.iloc[:10].tolist()


def test_window_expires_old_counts_on_metronome_ticks() -> None:
    op = Operator("w", logic={"name": "window-count", "window_s": 10, "bucket_s": 1})
    logic = logic_of(op)
    t0 = pd.Timestamp("2024-01-01", tz="UTC")
    first = pa.RecordBatch.from_pandas(pd.DataFrame({"ts": [t0] * 3, "value": [1, 2, 3], "key": [7, 7, 8]}),
                                       preserve_index=False)
    out, state = logic.fn(first, None, 0)
    assert dict(zip(out.column("key").to_pylist(), out.column("count").to_pylist(), strict=True)) == {7: 2, 8: 1}
    later = pa.RecordBatch.from_pandas(pd.DataFrame({"ts": [t0 + pd.Timedelta(seconds=20)], "value": [4],
                                                     "key": [None]}).astype({"key": "Int64"}),
                                       preserve_index=False)
    out, state = logic.fn(later, state, 0)  # a tick 20 s later: key-less rows only move the clock
    assert out.num_rows == 0 and len(state) == 0


def test_oee_is_the_product_of_its_three_parts() -> None:
    topo = manufacturing(1)
    L = {o.id: logic_of(o, speedup=1e12) for o in topo.operators}
    production = L["O1"].fn(L["S2"].fn(base(np.arange(100, dtype=np.int64))))
    parts = [L[k].fn(production) for k in ("O3", "O4", "O5")]
    oee = L["O7"].fn(pa.Table.from_batches(parts).combine_chunks().to_batches()[0]).to_pandas()
    assert len(oee) == 100
    by_kind = {k: p.to_pandas().set_index("value")["metric"] for k, p in zip(("p", "a", "q"), parts, strict=True)}
    expected = by_kind["p"] * by_kind["a"] * by_kind["q"]
    assert np.allclose(oee.set_index("value")["metric"].sort_index(), expected.sort_index())
    assert (oee["metric"].between(0, 1)).all()
    hot = L["O6"].fn(L["S3"].fn(base(np.arange(20_000, dtype=np.int64)))).to_pandas()
    assert 0.005 < len(hot) / 20_000 < 0.015 and hot["ts"].notna().all()


def test_unknown_logic_and_bad_params_are_spec_errors() -> None:
    with pytest.raises(SpecError, match="unknown logic"):
        logic_of(Operator("x", logic={"name": "nope"}))
    with pytest.raises(SpecError, match="bad parameters"):
        logic_of(Operator("x", "source", rate=1, logic={"name": "sensor", "sensor": "S9"}))
