"""The pipeline on local Spark: one shared session, a few meaningful runs (marked slow: about a minute)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology

pytestmark = pytest.mark.slow
pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="session")
def spark():
    from streamplace.spark.runtime.session import local_session

    return local_session(2)


def chain(rate: float, **sel: float) -> tuple[Topology, Plan]:
    ops = (Operator("src", "source", rate=rate), Operator("a", selectivity=sel.get("a", 1.0)),
           Operator("b", selectivity=sel.get("b", 1.0)), Operator("c"), Operator("out", "sink"))
    streams = (Stream("src", "a"), Stream("a", "b"), Stream("a", "c", grouping="all"),
               Stream("b", "c", grouping="key", key="key"), Stream("c", "out"))
    topo = Topology("fan", ops, streams)
    plan = Plan("manual", "fan", "local", {"src": {"l": 1}, "a": {"l": 2}, "b": {"l": 3}, "c": {"l": 2},
                                           "out": {"l": 1}})
    return topo, plan


def run_for(pipeline, seconds: float) -> None:
    pipeline.start()
    time.sleep(seconds)
    pipeline.stop()


def test_fan_out_runs_upstream_once_and_selectivity_holds(spark, tmp_path: Path) -> None:
    from streamplace.spark.query.operators import ROWS_IN, ROWS_OUT
    from streamplace.spark.query.pipeline import LocalPipeline, PipelineConfig

    topo, plan = chain(400, b=0.5)
    p = LocalPipeline(spark, topo, plan, PipelineConfig(sink="memory", out_dir=tmp_path, trigger_s=1))
    run_for(p, 12)
    stats = p.batch_stats  # as after the last whole batch
    # a stop can still leave the counters of the last batch's later stages short (seen once in ~10 runs on CI:
    # the merge one batch behind): downstream may lag upstream by one batch, never lead it
    batch = 400 * 1.5  # source tuples in one 1 s batch, with room to spare
    src_out = stats["src"][ROWS_OUT]
    assert src_out > 2 * batch
    assert 0 <= src_out - stats["a"][ROWS_IN] <= batch  # a feeds b and c but ran once per source tuple
    assert stats["b"][ROWS_OUT] == pytest.approx(0.5 * stats["b"][ROWS_IN], rel=0.15)
    # the merge gets both inputs, a's in full to each of its 2 replicas (all grouping): 2.5 per source tuple,
    # where one replica would give 1.5
    assert 0 <= 2 * stats["a"][ROWS_OUT] + stats["b"][ROWS_OUT] - stats["c"][ROWS_IN] <= 2.5 * batch
    written = sum(len(df) for df in p.memory["out"].values())
    # the sink's own count may differ from what it wrote by its last batch; on a loaded machine a batch after a
    # slow one carries every second that ended meanwhile (seen on CI: 2 s of source tuples, 1,990 sink rows)
    late_batch = 400 * 2.5
    assert written > 0 and abs(written - stats["out"][ROWS_OUT]) <= 2.5 * late_batch
    assert stats["out"][7] > 0  # end-to-end latency measured at the sink


def test_offered_ten_times_the_bound_each_batch_admits_the_bound_and_the_backlog_is_measured(spark, tmp_path: Path
                                                                                            ) -> None:
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.runtime.run import machine, on_one_node, run_pipeline

    ops = (Operator("src", "source", rate=2000), Operator("a"), Operator("out", "sink"))
    topo = Topology("pass", ops, (Stream("src", "a"), Stream("a", "out")))
    plan = Plan("manual", "pass", "local", {"src": {"l": 1}, "a": {"l": 2}, "out": {"l": 1}})
    cfg = PipelineConfig(sink="noop", out_dir=tmp_path, trigger_s=1, admission={"src": 200})
    res = run_pipeline(spark, topo, machine(2), on_one_node(topo, plan), 6, warmup_s=4, cfg=cfg)
    m = res.measured
    window = [b for b in res.series if b["batch_id"] in m["window_batches"]]
    assert window and all(b["input_rows"] <= 200 for b in res.series)  # bounded, from the first batch on
    # overloaded, every batch admits exactly the bound: the window counts its whole batches' rows
    assert m["source_rate"] * m["window_s"] == pytest.approx(200 * len(window), abs=1) and m["throughput"] > 0
    # what is not admitted queues: 2,000 offered, at most 200 admitted per second
    assert 1800 * 0.9 <= m["backlog_growth_per_s"] <= 2000 * 1.1
    assert m["backlog_rows"] > 0 and m["backlog_age_s"] == pytest.approx(m["backlog_rows"] / 2000)
    # a tuple counts its wait in the backlog: those admitted in the window waited at least the backlog it opened on
    opened = next(b for b in reversed(res.series) if b["batch_id"] < m["window_batches"][0])
    assert m["latency_ms"] >= 1000 * opened["backlog"][0] / 2000


def test_restart_from_checkpoint_writes_every_tuple_once(spark, tmp_path: Path) -> None:
    from streamplace.spark.query.pipeline import LocalPipeline, PipelineConfig

    ops = (Operator("src", "source", rate=300), Operator("a"), Operator("out", "sink"))
    topo = Topology("pass", ops, (Stream("src", "a"), Stream("a", "out")))
    plan = Plan("manual", "pass", "local", {"src": {"l": 1}, "a": {"l": 2}, "out": {"l": 2}})
    for _ in range(2):  # the second pipeline resumes from the first one's checkpoint
        run_for(LocalPipeline(spark, topo, plan, PipelineConfig(sink="parquet", out_dir=tmp_path, trigger_s=1)), 7)
    values = spark.read.parquet(str(tmp_path / "out")).toPandas()["value"]
    assert len(values) > 300
    assert values.is_unique and values.min() == 0 and values.max() == len(values) - 1


def test_run_command_prints_predicted_and_measured_on_a_quiet_terminal(tmp_path: Path) -> None:
    """As a user runs it (its own process and JVM): the figures, and on the terminal nothing from Spark."""
    import json
    import subprocess
    import sys

    cli = Path(sys.executable).parent / "streamplace"
    res = subprocess.run([str(cli), "run", "linear-net", "rstorm-12", "--duration", "6", "--warmup", "6",
                          "--sink", "noop", "--out", str(tmp_path), "--json", "--series", str(tmp_path / "series.csv")],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    data = json.loads(res.stdout)
    assert {"predicted", "measured", "duration_s"} <= set(data)
    assert {"throughput", "latency_ms", "cpu"} <= set(data["measured"])
    assert data["measured"]["source_rate"] > 0 and data["measured"]["throughput"] > 0
    assert data["predicted"]["offered_throughput"] == 4000
    assert data["admission"]["from"] == "model" and not data["admission"]["overloaded"]
    assert data["measured"]["backlog_rows"] >= 0  # bounded sources report their backlog
    window = data["measured"]["window_batches"]  # the batches that ended inside the measured window, in order
    assert window and window == sorted(window) and window[0] > 0
    assert (tmp_path / "series.csv").read_text().startswith("batch_id,")
    # the live page was served during the run and written whole at its end, with the run's batches in it
    assert "live page: http://127.0.0.1:" in res.stderr
    page = (tmp_path / "run-page.html").read_text()
    state = json.loads(page.split('type="application/json">')[1].split("</script>")[0])
    assert state["status"] == "finished" and len(state["points"]) >= 3
    assert state["summary"][0][0] == "source rate admitted (tuples/s)" and "<svg" in page
    # Spark's log went to the file under --out, and the terminal got only streamplace's own lines
    assert f"Spark's log: {tmp_path / 'spark.log'}" in res.stderr.replace("\n", "")
    assert (tmp_path / "spark.log").stat().st_size > 0
    for noise in ("WARN", "ERROR", "\tat ", "Traceback", "Exception", "log4j"):
        assert noise not in res.stderr, res.stderr[-3000:]


def test_debs_query1_from_generated_files_with_dead_letters(spark, tmp_path: Path) -> None:
    from dataclasses import replace

    from streamplace.bench.topologies import debs2015_q1
    from streamplace.spark.query.operators import DEAD, ROWS_IN
    from streamplace.spark.query.pipeline import LocalPipeline, PipelineConfig

    topo = debs2015_q1(rate=400)
    src = topo.op("source")
    topo = _swap(topo, replace(src, logic={**src.logic, "input": "file", "bad": 0.01}))
    plan = Plan("manual", topo.name, "local", {o.id: {"l": 1 if o.max_replicas == 1 else 2} for o in topo.operators})
    fast = {o.id: 1e6 for o in topo.operators}  # the query's logic only, no emulated CPU cost
    p = LocalPipeline(spark, topo, plan, PipelineConfig(sink="parquet", out_dir=tmp_path, trigger_s=1, speedup=fast))
    run_for(p, 14)
    assert p.query.exception() is None
    stats = p.stats.value
    assert stats["parser"][ROWS_IN] > 1000 and stats["parser"][DEAD] > 0
    dead = spark.read.parquet(str(tmp_path / "_deadletter" / "parser")).toPandas()
    assert len(dead) == stats["parser"][DEAD] and dead["_error"].notna().all() and dead["line"].notna().all()
    ranks = spark.read.parquet(str(tmp_path / "globalRank")).toPandas()
    latest = ranks[ranks["batch_id"] == ranks["batch_id"].max()]
    assert latest["rank"].tolist() == list(range(1, 11))
    assert latest["count"].is_monotonic_decreasing and latest["route"].is_unique
    assert any((tmp_path / "_input" / "source").glob("part-*.parquet"))


def _swap(topo: Topology, op: Operator) -> Topology:
    return Topology(topo.name, tuple(op if o.id == op.id else o for o in topo.operators), topo.streams)


def test_profile_command_fits_cost_and_selectivity(spark, tmp_path: Path) -> None:
    """A 1 ms busy operator that keeps half its input, profiled while two other processes keep both cores busy:
    e within 15 % (it is read on the thread's CPU clock), a loadable profile."""
    import subprocess
    import sys

    import yaml
    from typer.testing import CliRunner

    from streamplace.cli import app
    from streamplace.spec.loader import load_profile

    spec = {"name": "one", "operators": [{"id": "src", "kind": "source", "rate": 100, "logic": {"name": "rate"}},
                                         {"id": "work", "kind": "sink", "cost_ms": 1.0, "selectivity": 0.5}],
            "streams": [{"from": "src", "to": "work"}]}
    topo_file = tmp_path / "one.yaml"
    topo_file.write_text(yaml.safe_dump(spec))
    out = tmp_path / "profile.yaml"
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        res = CliRunner().invoke(app, ["profile", str(topo_file), "--operator", "work", "--cores", "2",
                                       "--batches", "2", "-o", str(out), "--json"])
    finally:
        for b in burners:
            b.kill()
            b.wait()
    assert res.exit_code == 0, res.output
    profile = load_profile(out)
    (entry,) = profile.entries
    assert entry.operator == "work" and entry.node_type == "local"
    assert entry.cost_ms == pytest.approx(1.0, rel=0.15)
    assert 0 <= entry.overhead < 100
    fit = yaml.safe_load(out.read_text())["measured"]["fits"]["work"]
    assert len(fit["points"]) == 3


def test_kill_minus_9_then_restart_writes_every_tuple_once(spark, tmp_path: Path) -> None:
    """The driver (Python and its JVM) is killed mid-run; a new pipeline resumes from the checkpoint."""
    import os
    import signal
    import subprocess
    import sys

    from streamplace.spark.query.pipeline import LocalPipeline, PipelineConfig

    ops = (Operator("src", "source", rate=500), Operator("work", cost_ms=0.5), Operator("out", "sink"))
    topo = Topology("killed", ops, (Stream("src", "work"), Stream("work", "out")))
    plan = Plan("manual", "killed", "local", {"src": {"l": 1}, "work": {"l": 2}, "out": {"l": 2}})
    script = f"""
import time
from pathlib import Path
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.spark.query.pipeline import LocalPipeline, PipelineConfig
from streamplace.spark.runtime.session import local_session
ops = (Operator("src", "source", rate=500), Operator("work", cost_ms=0.5), Operator("out", "sink"))
topo = Topology("killed", ops, (Stream("src", "work"), Stream("work", "out")))
plan = Plan("manual", "killed", "local", {{"src": {{"l": 1}}, "work": {{"l": 2}}, "out": {{"l": 2}}}})
LocalPipeline(local_session(2), topo, plan, PipelineConfig(sink="parquet", out_dir=Path({str(tmp_path)!r}))).start()
time.sleep(300)
"""
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list((tmp_path / "out").glob("batch_id=*"))) < 4:
            time.sleep(0.2)
        time.sleep(0.4)  # most likely inside a batch now: 500 tuples × 0.5 ms over 2 tasks ≈ 0.13 s of work each
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(list((tmp_path / "out").glob("batch_id=*"))) >= 4, "the first driver never got going"
    run_for(LocalPipeline(spark, topo, plan, PipelineConfig(sink="parquet", out_dir=tmp_path, trigger_s=1)), 8)
    values = spark.read.parquet(str(tmp_path / "out")).toPandas()["value"]
    assert values.is_unique and values.min() == 0 and values.max() == len(values) - 1
    assert len(values) > 2000


def test_demo_runs_the_best_plan_on_spark_and_reports_it(spark, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    res = CliRunner().invoke(app, ["demo", "--out", str(tmp_path), "--topo", "linear-cpu", "--cluster", "rstorm-12",
                                   "--time-limit", "1", "--spark-seconds", "4", "--cores", "2", "--on", "local"])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "report.html").read_text()
    assert "as a real pipeline on local Spark" in page and "measured (Spark)" in page
    assert "why this plan" in page and "measured / predicted: throughput" in page
    assert any((tmp_path / "spark-run").rglob("*.parquet"))  # the pipeline wrote its sink


def test_driver_probe_times_the_build_of_placed_plans_without_running_them(spark) -> None:
    """calibrate's exchange_s and exchange_sq_s: the build of a placed batch (chains of 2–4 operators with a
    replica on each of two emulated workers) timed in this local session; nothing runs on the absent workers."""
    from streamplace.spark.measure.calibration import driver_probe, fit_exchange

    (per, per_sq), points = driver_probe(spark, sizes=(2, 3, 4), nodes=2, repeats=1)
    assert [e for e, _ in points] == [2, 3, 4]
    assert all(t > 0 for _, t in points) and per >= 0 and per_sq >= 0
    # the coefficients are the fit of the times measured (whose slope a busy machine may hide: not asserted here)
    assert (per, per_sq) == fit_exchange(points)
    # a build that grows with its inputs gives a positive slope; one that does not, none
    assert sum(fit_exchange([(2, 0.10), (3, 0.16), (4, 0.24)])) > 0
    assert fit_exchange([(2, 0.20), (3, 0.15), (4, 0.10)]) == (0.0, 0.0)
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()  # every persisted part released
