"""Sweeps: the grid, one instance's row, and the report's comparisons (pure); one small sweep on Spark (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.bench.sweep import ROW_SCHEMA, Instance, chunks, evaluate_instance, grid, scaled
from streamplace.errors import SpecError
from streamplace.report.sweep import load_sweep, scheduler_table, winners, with_ratios, write_sweep_report


def test_grid_is_the_cartesian_product_in_a_stable_order() -> None:
    g = grid(["a", "b"], ["x"], ["s1", "s2", "s3"], [0.5, 1.0], [0, 1])
    assert len(g) == 2 * 1 * 3 * 2 * 2
    assert g[0] == Instance("a", "x", "s1", 0.5, 0) and g[-1] == Instance("b", "x", "s3", 1.0, 1)
    parts = list(chunks(g, 5))
    assert [len(p) for p in parts] == [5, 5, 5, 5, 4] and [i for p in parts for i in p] == g


def test_an_instance_row_holds_the_models_prediction_or_the_reason() -> None:
    topo, cluster = resolve_topology("nasiri-linear"), resolve_cluster("hetero-3")
    assert scaled(topo, 2.0).op("spout").rate == 2 * topo.op("spout").rate
    row = evaluate_instance(Instance("nasiri-linear", "hetero-3", "hetero", 2.0, 0), topo, cluster)
    assert set(row) == {name for name, _ in ROW_SCHEMA}
    assert row["status"] == "ok" and row["throughput"] > 1500 and row["replicas"] >= 4
    rr = evaluate_instance(Instance("nasiri-linear", "hetero-3", "round-robin", 2.0, 0), topo, cluster)
    assert rr["offered"] == pytest.approx(2 * 100.0)  # the scaled offered rate reaches the sink
    assert rr["throughput"] < row["throughput"]  # hetero sustains more than round robin on hetero-3
    refused = evaluate_instance(Instance("debs2015-q1", "hetero-3", "r-storm"), resolve_topology("debs2015-q1"),
                                cluster)
    assert refused["status"] == "refused" and refused["error"]  # DEBS pins its source to w1, absent here


def _rows() -> pd.DataFrame:
    base = {"cluster": "c", "seed": 0, "latency_ms": 5.0, "cost_per_hour": 1.0, "planning_ms": 1.0}
    data = []
    for scale, (a, b) in {1.0: (100.0, 50.0), 2.0: (80.0, 80.0)}.items():
        data.append({**base, "topology": "t", "scheduler": "A", "scale": scale, "status": "ok", "throughput": a})
        data.append({**base, "topology": "t", "scheduler": "B", "scale": scale, "status": "ok", "throughput": b})
    data.append({**base, "topology": "t", "scheduler": "C", "scale": 1.0, "status": "refused", "throughput": None})
    return pd.DataFrame(data)


def test_report_compares_schedulers_within_each_instance(tmp_path: Path) -> None:
    rows = _rows()
    r = with_ratios(rows)
    assert r.loc[(r.scheduler == "B") & (r.scale == 1.0), "ratio"].item() == pytest.approx(0.5)
    table = scheduler_table(rows)
    assert table.loc["A", "best (within 1 %)"] == 1.0 and table.loc["B", "best (within 1 %)"] == 0.5
    assert table.loc["C", "refused"] == 1 and table.loc["C", "plans"] == 0
    assert winners(rows).loc[("t", "c"), "best"] == "A"
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    rows.to_parquet(sweep / "part-0.parquet")
    (sweep / "_sweep.json").write_text(json.dumps({"seconds": 2.0, "per_second": 2.5, "tasks": 1, "master": "m",
                                                   "cores": 2, "axes": {"scheduler": ["A", "B", "C"]}}))
    page = write_sweep_report(sweep, tmp_path / "r.html").read_text()
    assert "Schedulers across all instances" in page and "data:image/png;base64," in page
    assert "swept in 2.0 s on m (2 cores)" in page  # the sweep's own timing, from _sweep.json
    assert "<td>A</td><td>2</td><td>2</td>" in page  # A: 2 instances, 2 plans, first in the table (best ratio)
    with pytest.raises(SpecError, match="no such sweep"):
        load_sweep(tmp_path / "missing")


@pytest.mark.slow
def test_sweep_runs_as_spark_tasks_and_writes_parquet(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    from typer.testing import CliRunner

    from streamplace.cli import app

    out = tmp_path / "sweep.parquet"
    res = CliRunner().invoke(app, ["sweep", "-t", "nasiri-linear,linear-cpu", "-c", "hetero-3,racks-2x3",
                                   "-s", "round-robin,hetero,ffd", "--scales", "0.5:2:4", "--out", str(out),
                                   "--master", "local[2]", "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output[res.output.index("{"):])
    assert summary["instances"] == 2 * 2 * 3 * 4
    rows = pd.read_parquet(out)
    assert len(rows) == 48 and set(rows["scheduler"]) == {"round-robin", "hetero", "ffd"}
    assert sorted(rows["scale"].unique()) == [0.5, 1.0, 1.5, 2.0]
    assert (rows["status"] == "ok").sum() >= 40 and rows.loc[rows.status == "ok", "throughput"].gt(0).all()
    meta = json.loads((out / "_sweep.json").read_text())
    assert meta["instances"] == 48 and meta["seconds"] > 0
    rep = CliRunner().invoke(app, ["report", str(out), "-o", str(tmp_path / "sweep.html")])
    assert rep.exit_code == 0, rep.output
    assert "hetero" in (tmp_path / "sweep.html").read_text()
