"""The what-if over time (workflows/over_time.py, `streamplace evaluate --over-time`): a plan stepped through
seconds of Storm beside the steady-state storm engine — below capacity the same, above it bounded by what the
plan sustains, starving without flow control and not with it; its inputs checked, its series written whole."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from streamplace.cli import app
from streamplace.errors import ModelError
from streamplace.model.plan import Plan
from streamplace.workflows.over_time import MAX_STEPS, storm_over_time
from streamplace.workflows.planning import plan

TOPO, CLUSTER = "linear-net", "rstorm-12"


@pytest.fixture(scope="module")
def rr() -> Plan:
    return plan(TOPO, CLUSTER, "round-robin")


def test_below_capacity_the_sinks_get_what_is_offered(rr: Plan) -> None:
    done = storm_over_time(TOPO, CLUSTER, rr, 60.0, load=0.5)
    s = done.summary
    assert done.capacity > 1.0  # so 0.5 is below it
    assert s.throughput == pytest.approx(s.offered, rel=0.01)
    assert s.goodput == pytest.approx(s.offered, rel=0.01)
    assert not s.starving and s.queued_end < 0.01 * s.offered


def test_at_one_and_a_half_capacity_throughput_holds_and_goodput_needs_flow_control(rr: Plan) -> None:
    """Storm's defaults (no max spout pending): the queues pass the 30 s time-out and every root tuple fails,
    while the sinks still process what the plan sustains; with 30 pending the spouts emit what completes."""
    bare = storm_over_time(TOPO, CLUSTER, rr, 300.0, at_capacity=1.5)
    s = bare.summary
    assert bare.load == pytest.approx(1.5 * bare.capacity)
    assert s.offered == pytest.approx(1.5 * s.steady_state, rel=1e-6)
    assert s.throughput == pytest.approx(s.steady_state, rel=0.05)
    assert s.starving and s.failed > 0 and s.queued_end > 60 * s.steady_state
    paced = storm_over_time(TOPO, CLUSTER, rr, 300.0, at_capacity=1.5,
                            params={"storm.max_spout_pending": 30, "time.dt_s": 0.025})
    p = paced.summary
    assert paced.settings.max_spout_pending == 30 and paced.settings.dt_s == 0.025
    assert p.goodput == pytest.approx(p.steady_state, rel=0.05) and not p.starving
    assert p.latency_ms < 1000 < s.latency_ms


def test_refused_inputs_name_their_field(rr: Plan, tmp_path: Path) -> None:
    cases = [({"duration_s": 0.0}, "duration_s"), ({"duration_s": 10.0, "load": 2, "at_capacity": 1}, "load"),
             ({"duration_s": 10.0, "load": -1}, "load"), ({"duration_s": 10.0, "at_capacity": 1e6}, "at_capacity"),
             ({"duration_s": MAX_STEPS * 0.05 * 0.9, "params": {"time.dt_s": 0.01}}, "duration_s"),
             ({"duration_s": 10.0, "params": {"time.foo": 1}}, "params"),
             ({"duration_s": 10.0, "params": {"time.nic_sharing": "bad"}}, "params"),
             ({"duration_s": 10.0, "series": tmp_path / "x.txt"}, "series")]
    for kwargs, field in cases:
        with pytest.raises(ModelError) as info:
            storm_over_time(TOPO, CLUSTER, rr, **kwargs)  # type: ignore[arg-type]
        assert info.value.problems[0].path == field, (kwargs, str(info.value))
        assert "(fix: " in str(info.value)
    assert not list(tmp_path.iterdir())


def test_the_command_line_prints_both_and_writes_the_series(rr: Plan, tmp_path: Path) -> None:
    runner = CliRunner()
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(rr.to_json())
    series = tmp_path / "series.csv"
    done = runner.invoke(app, ["evaluate", TOPO, CLUSTER, str(plan_file), "--over-time", "20", "--at-capacity", "1.5",
                               "--series", str(series)])
    assert done.exit_code == 0, done.stderr
    assert "predicted (storm engine)" in done.stdout and "goodput" in done.stdout and "1.5 × capacity" in done.stdout
    rows = list(csv.DictReader(series.open()))
    assert len(rows) == 20 and f"{TOPO}.goodput" in rows[0]
    as_json = runner.invoke(app, ["evaluate", TOPO, CLUSTER, str(plan_file), "--over-time", "20", "--json"])
    doc = json.loads(as_json.stdout)
    assert doc["predicted"]["engine"] == "storm" and doc["over_time"]["load"] == 1.0
    for args, words in ((["--load", "2"], "--load: only with --over-time"),
                        (["--over-time", "20", "--engine", "spark"], "--engine: --over-time steps Storm's"),
                        (["--over-time", "20", "--load", "1", "--at-capacity", "1"], "--load: give --load or "
                                                                                      "--at-capacity"),
                        (["--over-time", "20", "-p", "time.dt_s=0"], "--param")):
        bad = runner.invoke(app, ["evaluate", TOPO, CLUSTER, str(plan_file), *args])
        assert bad.exit_code == 2 and words in bad.stderr, (args, bad.stderr)
