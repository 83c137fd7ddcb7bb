"""Controller/simulator parameters, time series output, the paper-shaped tables and `streamplace simulate`."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.cli import app
from streamplace.elastic import make_pattern
from streamplace.elastic.btu import BtuController
from streamplace.elastic.threshold import ThresholdController
from streamplace.errors import SpecError
from streamplace.report.elastic import table_rows
from streamplace.sim import simulate
from streamplace.sim.engine import SimConfig, price_per_btu
from streamplace.sim.factory import build
from streamplace.sim.series import write_series

TOPO, VM = resolve_topology("manufacturing"), resolve_cluster("visp-vm")


def test_parameters_go_to_their_owner() -> None:
    ctrl, cfg = build("btu", {"btu_minutes": "60", "weights": "1,2,3,4", "history": "5", "service_ratio": "0.5"},
                      30, 7)
    assert isinstance(ctrl, BtuController) and ctrl.weights == (1.0, 2.0, 3.0, 4.0) and ctrl.history == 5
    assert cfg.btu_minutes == 60 and cfg.history == 5 and cfg.service_ratio == 0.5 and cfg.seed == 7
    ctrl, _ = build("threshold", {"up": "20"}, 30, 0)
    assert isinstance(ctrl, ThresholdController) and ctrl.up == 20 and ctrl.trigger == "algorithm1"
    ctrl, cfg = build("threshold", {"trigger": "queue", "history": "5"}, 30, 0)
    assert isinstance(ctrl, ThresholdController) and ctrl.trigger == "queue" and ctrl.history == 5 == cfg.history


@pytest.mark.parametrize(("name", "params", "needle"), [
    ("btu", {"bogus": "1"}, "scaling_threshold"),  # lists the valid keys
    ("threshold", {"weights": "1,1,1,1"}, "double_up"),  # a BTU constant is not the threshold's
    ("btu", {"weights": "1,2"}, "4 comma-separated numbers"),
    ("btu", {"service_ratio": "2"}, "service_ratio"),
    ("btu", {"service_cv": "0"}, "service_cv"),
    ("threshold", {"victim": "oldest"}, "loneliest, newest"),
    ("nope", {}, "btu, threshold"),
])
def test_bad_parameters_are_explained(name: str, params: dict, needle: str) -> None:
    with pytest.raises(SpecError, match=needle):
        build(name, params, 10, 0)


def test_price_follows_the_vm_and_the_btu_length() -> None:
    assert price_per_btu(SimConfig(btu_minutes=10), VM) == pytest.approx(1.0)
    assert price_per_btu(SimConfig(btu_minutes=60), VM) == pytest.approx(6.0)  # linear: 1, 3, 6
    assert price_per_btu(SimConfig(btu_minutes=60, price_per_btu=2.5), VM) == 2.5


def test_time_to_adapt_is_measured_at_monitoring_samples() -> None:
    r = simulate(TOPO, VM, make_pattern("two-level", 20), ThresholdController(), SimConfig(minutes=20))
    s = r.summary
    assert s["delay_episodes"] > 0  # one instance per type cannot carry 2 machines' load at the start
    assert s["time_to_adapt_s"] > 0 and (s["time_to_adapt_s"] * s["delay_episodes"]) % 15 == pytest.approx(0, abs=1e-6)


def test_series_csv_has_one_row_per_minute(tmp_path) -> None:
    r = simulate(TOPO, VM, make_pattern("stepwise", 6), BtuController(), SimConfig(minutes=6))
    path = write_series(r.series, tmp_path / "s.csv")
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 6 and float(rows[-1]["minute"]) == 6.0
    assert int(float(rows[0]["instances"])) == sum(int(float(rows[0][f"instances_O{k}"])) for k in range(1, 10))


def test_table_has_the_papers_rows_with_mean_and_std() -> None:
    summaries = [simulate(TOPO, VM, make_pattern("stepwise", 10), ThresholdController(),
                          SimConfig(minutes=10, seed=s)).summary for s in (0, 1)]
    rows = dict(table_rows({"threshold/BTU10": summaries}))
    assert {"Real-time compliance", "Near real-time compliance", "Relaxed compliance", "Resource cost",
            "Real-time total cost", "Near real-time total cost", "Relaxed total cost"} <= set(rows)
    mean = sum(s["resource_cost"] for s in summaries) / 2
    assert rows["Resource cost"][0].startswith(f"{mean:.2f} (s = ")


def test_simulate_command(tmp_path) -> None:
    runner = CliRunner()
    series, plot = tmp_path / "series.csv", tmp_path / "fig.png"
    res = runner.invoke(app, ["simulate", "manufacturing", "--controller", "threshold", "--pattern", "pyramid",
                              "--minutes", "8", "-p", "btu_minutes=30", "--series", str(series), "--plot", str(plot),
                              "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    for key in ("resource_cost", "paid_btus", "compliance", "total_cost", "scaling"):
        assert key in data
    assert set(data["compliance"]) == set(data["total_cost"]) == {"realtime", "near_realtime", "relaxed"}
    assert set(data["scaling"]) == {"up", "down", "migrations"} and data["btu_minutes"] == 30
    assert series.stat().st_size > 0 and plot.read_bytes()[:4] == b"\x89PNG"
    bad = runner.invoke(app, ["simulate", "manufacturing", "--pattern", "sawtooth"])
    assert bad.exit_code == 2 and "stepwise" in bad.output


def test_series_parquet_round_trips(tmp_path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    r = simulate(TOPO, VM, make_pattern("constant", 3), ThresholdController(), SimConfig(minutes=3))
    table = pq.read_table(write_series(r.series, tmp_path / "s.parquet"))
    assert table.num_rows == 3 and table.column("vms").to_pylist() == r.series["vms"].tolist()
