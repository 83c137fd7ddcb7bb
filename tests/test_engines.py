"""Engine models (perf/engines): formulas checked on cases computed by hand, parameters, calibration files."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from streamplace.errors import ModelError, SpecError
from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.engines import EngineSettings, SparkConstants, SparkSettings, StormSettings
from streamplace.perf.evaluate import evaluate

#: round numbers so the expected values below can be worked out on paper
CONSTS = SparkConstants(batch_s=0.2, stage_s=0.05, task_s=0.01, hop_us=0.0, source_us=0.0, sink_us=0.0,
                        jvm_cores=0.0, exchange_s=0.0)


def spark(consts: SparkConstants = CONSTS, trigger_s: float = 1.0, lead_s: float | None = 0.05) -> EngineSettings:
    return EngineSettings("spark", SparkSettings(trigger_s=trigger_s, quantum_s=1.0, constants=consts, lead_s=lead_s))


def two_stage(rate: float = 100.0) -> tuple[Topology, Cluster, Plan]:
    """src (1 task, no work) → a (2 tasks, 1 ms per tuple) on one node of 2 cores."""
    topo = Topology("t", (Operator("src", "source", rate=rate), Operator("a", "sink", cost_ms=1.0)),
                    (Stream("src", "a"),))
    cluster = Cluster("one", (Node("n", cpu=200.0, memory_mb=10_000),))
    return topo, cluster, Plan("m", "t", "one", {"src": {"n": 1}, "a": {"n": 2}}, source_rates={"src": rate})


def test_spark_chain_matches_the_formulas_worked_by_hand() -> None:
    topo, cluster, plan = two_stage()
    ev = evaluate(topo, cluster, plan, engine=spark())
    d = ev.engine_detail
    # F = batch 0.2 + two stages × (stage 0.05 + one wave of tasks 0.01) = 0.32 s
    assert d["batch_fixed_s"] == pytest.approx(0.32)
    # W: each of a's 2 tasks takes 50 tuples per second of data × 1 ms = 0.05 s; the source does no work
    assert d["work_s_per_scale_second"] == pytest.approx(0.05)
    assert ev.sustainable_scale == pytest.approx(20.0) and ev.throughput == pytest.approx(2000.0)
    assert d["trigger_throughput"] == pytest.approx(100 * (1 - 0.32) / 0.05)  # B(s, 1 s) ≤ 1 s
    # at 100 t/s: B = 0.32 + 0.05 = 0.37 s fits the 1 s trigger; a second of data ends lead 0.05 s before its
    # trigger: latency = quantum/2 + lead + B, the worst a whole quantum + lead + B
    assert d["batch_s"] == pytest.approx(0.37) and d["period_s"] == pytest.approx(1.0)
    assert ev.latency_mean_ms == pytest.approx(920.0) and ev.latency_ms == pytest.approx(1420.0)
    # a 2 s trigger takes two seconds of data: the earlier one waits a second more (mean + (2 − 1)/2 s); the
    # batch carries 2 s of data: B = 0.32 + 2 × 0.05
    slow = evaluate(topo, cluster, plan, engine=spark(trigger_s=2.0))
    assert slow.engine_detail["batch_s"] == pytest.approx(0.42)
    assert slow.latency_mean_ms == pytest.approx(500 + 50 + 500 + 420) and slow.latency_ms == pytest.approx(2470.0)
    # the phase left to chance (Spark's own start time): the wait is uniform over the period, mean P / 2; the
    # worst is that of the latest of the 8 phases averaged (lead 15/16 s)
    chance = evaluate(topo, cluster, plan, engine=spark(lead_s=None))
    assert chance.latency_mean_ms == pytest.approx(1370.0) and chance.latency_ms == pytest.approx(2307.5)
    # busy: task seconds per batch (0.01 + 2 × 0.06) over 1 s × 2 cores
    assert ev.cpu_utilization[0] == pytest.approx(0.065)
    assert ev.predicted()["engine"] == "spark"


def test_spark_behind_the_trigger_runs_batches_back_to_back() -> None:
    topo, cluster, plan = two_stage(1500.0)  # scale 15: B(15, 1 s) = 1.07 s > 1 s
    ev = evaluate(topo, cluster, plan, engine=spark())
    # each batch starts when the last ends and reads the whole seconds that ended meanwhile (1 or 2): over a run
    # they take as long as the data they carry, so the mean period is the fixed point F / (1 − s·W) = 1.28 s,
    # between the 1 and 2 seconds that a single batch carries
    assert ev.engine_detail["period_s"] == pytest.approx(0.32 / (1 - 0.75), rel=0.01)
    assert ev.engine_detail["batch_s"] == pytest.approx(ev.engine_detail["period_s"], rel=0.01)
    # a tuple waits half a second for its second to end, up to a batch for the next start, and that batch
    assert 1000 * (0.5 + 0.05 + 1.07) < ev.latency_mean_ms < 1000 * (0.5 + 1.07 + 1.82)
    continuous = EngineSettings("spark", SparkSettings(trigger_s=1.0, quantum_s=0.0, constants=CONSTS))
    ev = evaluate(topo, cluster, plan, engine=continuous)
    period = 0.32 / (1 - 15 * 0.05)  # a continuous source: the fixed point P = F + s·P·W
    assert ev.engine_detail["period_s"] == pytest.approx(period)
    assert ev.latency_mean_ms == pytest.approx(1000 * (period / 2 + period))
    assert ev.delivered_throughput == pytest.approx(1500.0)  # still keeps up: capacity is 2,000
    over = evaluate(topo, cluster, plan.evolve(source_rates={"src": 2500.0}), engine=spark())
    assert over.delivered_throughput == pytest.approx(2000.0) and over.latency_mean_ms == float("inf")


def test_replayed_triggers_follow_the_batches_step_by_step() -> None:
    from streamplace.perf.engines.triggers import replay

    # B(1) = 1.2 s, B(2) = 1.7 s, seconds end 0.05 s before a tick: worked by hand, the run settles into a cycle
    # of 14 s of data in 10 batches (2, 1, 1, 2, 1, 2, 1, 1, 2, 1 seconds), back to back
    r = replay(lambda m: 0.7 + 0.5 * m, 1.0, 1.0, 0.05, horizon=700)
    assert r.period_s == pytest.approx(1.4, rel=0.01) and r.quanta_per_batch == pytest.approx(1.4, rel=0.01)
    assert r.batch_counts[2] / r.batch_counts[1] == pytest.approx(4 / 6, rel=0.05)
    # batches that fit the trigger: every second waits lead for its tick, then B
    fits = replay(lambda m: 0.3 + 0.1 * m, 1.0, 1.0, 0.05)
    assert fits.latency_mean_s == pytest.approx(0.5 + 0.05 + 0.4) and fits.period_s == pytest.approx(1.0)
    assert fits.batch_counts == {1: sum(fits.batch_counts.values())}
    # a 0.5 s trigger still reads each second once, at the first tick after it ends
    half = replay(lambda m: 0.3 + 0.1 * m, 0.5, 1.0, 0.05)
    assert half.latency_mean_s == pytest.approx(0.95) and half.period_s == pytest.approx(1.0)


def test_spark_threads_share_a_full_node() -> None:
    topo, cluster, plan = two_stage()
    # all of task_s CPU, no set-up of its own: the share stretches the whole task, as worked here
    ev = evaluate(topo, cluster, plan, engine=spark(SparkConstants(0.2, 0.05, 0.01, 0, 0, 0, jvm_cores=0.5,
                                                                   exchange_s=0.0, task_cpu_s=0.01,
                                                                   stage_cpu_s=0.0)))
    # a's two tasks fill both cores, so they run at (2 − 0.5) / 2 of a core; the source's one task does not
    assert ev.engine_detail["work_s_per_scale_second"] == pytest.approx(0.05 / 0.75)
    assert ev.engine_detail["batch_fixed_s"] == pytest.approx(0.2 + 0.06 + 0.05 + 0.01 / 0.75)


def test_fused_operators_share_one_stage() -> None:
    from streamplace.model.fusion import fused_chains

    # src → a → b (α_a = 0.5) → k (key grouping): src, a and b have 2 replicas on n and no shuffle between them
    ops = (Operator("src", "source", rate=100.0), Operator("a", cost_ms=1.0, selectivity=0.5),
           Operator("b", cost_ms=2.0), Operator("k", "sink", cost_ms=1.0))
    streams = (Stream("src", "a"), Stream("a", "b"), Stream("b", "k", grouping="key", key="key"))
    topo = Topology("f", ops, streams)
    cluster = Cluster("one", (Node("n", cpu=200.0, memory_mb=10_000),))
    plan = Plan("m", "f", "one", {"src": {"n": 2}, "a": {"n": 2}, "b": {"n": 2}, "k": {"n": 2}},
                source_rates={"src": 100.0})
    assert fused_chains(topo, plan.replicas) == [("src", "a", "b"), ("k",)]
    ev = evaluate(topo, cluster, plan, engine=spark())
    d = ev.engine_detail
    assert d["fused"] == [["src", "a", "b"]] and d["stages"] == 2
    # F = batch 0.2 + 2 stages × (0.05 + 0.01); W per stage task: 50 t/s × (1 ms + 0.5 × 2 ms) = 0.1 s, then
    # k's task 25 t/s × 1 ms = 0.025 s
    assert d["batch_fixed_s"] == pytest.approx(0.32)
    assert d["work_s_per_scale_second"] == pytest.approx(0.1 + 0.025)
    # unequal counts, a fan-out, a key grouping or a cycle break a chain
    assert fused_chains(topo, {**plan.replicas, "b": {"n": 1}}) == [("src", "a"), ("b",), ("k",)]
    fan = Topology("g", ops, (*streams, Stream("a", "k")))
    assert fused_chains(fan, plan.replicas) == [("src", "a"), ("b",), ("k",)]


def test_spark_stages_on_different_nodes_run_side_by_side() -> None:
    topo = Topology("t", (Operator("src", "source", rate=100.0), Operator("a", "sink", cost_ms=1.0)),
                    (Stream("src", "a"),))
    nodes = (Node("n1", cpu=100.0, memory_mb=10_000), Node("n2", cpu=100.0, memory_mb=10_000))
    cluster = Cluster("two", nodes)
    spread = evaluate(topo, cluster, Plan("m", "t", "two", {"src": {"n1": 1}, "a": {"n1": 1, "n2": 1}}),
                      engine=spark())
    packed = evaluate(topo, cluster, Plan("m", "t", "two", {"src": {"n1": 1}, "a": {"n1": 2}}), engine=spark())
    # each replica takes 50 t/s × 1 ms: side by side on two nodes 0.05 s, two waves on one core 0.10 s
    assert spread.engine_detail["work_s_per_scale_second"] == pytest.approx(0.05)
    assert packed.engine_detail["work_s_per_scale_second"] == pytest.approx(0.10)
    assert spread.engine_detail["stages"] == 3 and packed.engine_detail["stages"] == 2


def test_spark_stages_wait_for_their_input_to_cross_a_link() -> None:
    """A stage fed from another node waits that link's one-way latency once per batch (the shuffle fetch), on top of
    its tasks' CPU time; a stage whose input is local does not. Worked by hand: src on x, a on y (40 ms away)."""
    topo = Topology("t", (Operator("src", "source", rate=100.0), Operator("a", "sink", cost_ms=1.0)),
                    (Stream("src", "a"),))
    nodes = (Node("x", cpu=100.0, memory_mb=10_000, rack="r0"), Node("y", cpu=100.0, memory_mb=10_000, rack="r1"))
    far = Cluster("far", nodes, Links(same_rack_ms=0.0, cross_rack_ms=40.0))
    near = Cluster("near", nodes, Links(same_rack_ms=0.0, cross_rack_ms=0.0))
    remote = Plan("m", "t", "far", {"src": {"x": 1}, "a": {"y": 1}}, source_rates={"src": 100.0})
    local = Plan("m", "t", "far", {"src": {"x": 1}, "a": {"x": 1}}, source_rates={"src": 100.0})
    f_far = evaluate(topo, far, remote, engine=spark()).engine_detail
    f_near = evaluate(topo, near, remote, engine=spark()).engine_detail
    # F = batch 0.2 + src (0.05 + 0.01) + a (0.05 + 0.01 + 0.04 fetch) = 0.36 s; W unchanged (the wait is not work)
    assert f_far["batch_fixed_s"] == pytest.approx(0.36) and f_near["batch_fixed_s"] == pytest.approx(0.32)
    assert f_far["work_s_per_scale_second"] == pytest.approx(f_near["work_s_per_scale_second"])
    # both on x: one fused stage, no shuffle and no wait (0.2 + 0.05 + 0.01)
    assert evaluate(topo, far, local, engine=spark()).engine_detail["batch_fixed_s"] == pytest.approx(0.26)


def cross_rack() -> tuple[Topology, Cluster, Plan]:
    topo = Topology("t", (Operator("src", "source", rate=100.0, bytes_per_tuple=1000.0), Operator("a", "sink")),
                    (Stream("src", "a"),))
    nodes = (Node("x", cpu=100.0, memory_mb=1000, rack="r0"), Node("y", cpu=100.0, memory_mb=1000, rack="r1"))
    cluster = Cluster("c", nodes, Links(same_rack_ms=1.0, cross_rack_ms=10.0))
    return topo, cluster, Plan("m", "t", "c", {"src": {"x": 1}, "a": {"y": 1}}, source_rates={"src": 100.0})


def test_storm_charges_serialization_to_both_ends_of_a_remote_stream() -> None:
    topo, cluster, plan = cross_rack()
    ev = evaluate(topo, cluster, plan, engine=EngineSettings("storm"))
    # 100 tuples/s of 1,000 B cross: (4 + 2·1) µs each way → 0.6 ms of CPU per second = 0.06 points per node
    assert ev.engine_detail["serialization_points"] == {"x": pytest.approx(0.06), "y": pytest.approx(0.06)}
    assert ev.cpu_utilization == pytest.approx(np.array([0.0006, 0.0006]))
    local = evaluate(topo, cluster, plan.evolve(replicas={"src": {"x": 1}, "a": {"x": 1}}),
                     engine=EngineSettings("storm"))
    assert local.engine_detail["serialization_points"] == {}  # same worker: passed by reference


def test_storm_flow_control_is_littles_law() -> None:
    topo, cluster, plan = cross_rack()
    storm = EngineSettings("storm", storm=StormSettings(max_spout_pending=1))
    ev = evaluate(topo, cluster, plan, engine=storm)
    # no queueing (no CPU cost), 10 ms link there and 10 ms for the ack back: one tuple in flight → 50 t/s
    assert ev.engine_detail["complete_latency_ms"] == pytest.approx(20.0)
    assert ev.sustainable_scale == pytest.approx(0.5, rel=1e-6) and ev.delivered_throughput == pytest.approx(50.0)
    assert "flow control" in ev.bottleneck
    unbounded = evaluate(topo, cluster, plan, engine=EngineSettings("storm"))
    # Storm's default (no max_spout_pending): only the serialization CPU limits it, 100 points / 0.06 per scale
    assert unbounded.sustainable_scale == pytest.approx(100 / 0.06) and unbounded.bottleneck == "cpu of node x"


def test_ideal_is_the_base_model() -> None:
    topo, cluster, plan = cross_rack()
    assert evaluate(topo, cluster, plan, engine=EngineSettings("ideal")).predicted() == \
        evaluate(topo, cluster, plan).predicted()


def test_engine_parameters_are_coerced_and_checked() -> None:
    e = EngineSettings("spark").with_params({"spark.trigger_s": "2.5", "spark.batch_s": "0.1",
                                             "storm.max_spout_pending": "500"})
    assert e.spark.trigger_s == 2.5 and e.spark.constants.batch_s == 0.1 and e.storm.max_spout_pending == 500
    assert "overrides" in e.spark.constants.origin
    assert EngineSettings("storm").with_params({"storm.max_spout_pending": "none"}).storm.max_spout_pending is None
    with pytest.raises(ModelError, match=r"storm\.max_spout_pending"):
        EngineSettings("spark").with_params({"storm.pending": "1"})
    for bad in ({"spark.batch_s": "-1"}, {"spark.trigger_s": "0"}, {"spark.task_s": "inf"},
                {"storm.ser_us": "fast"}):
        with pytest.raises(ModelError):
            EngineSettings("spark").with_params(bad)
    with pytest.raises(ModelError, match="unknown engine"):
        EngineSettings("flink")  # type: ignore[arg-type]


def test_calibration_file_round_trip_and_errors(tmp_path: Path) -> None:
    from streamplace.spark.measure.calibration import load_calibration, write_calibration

    consts = SparkConstants(0.31, 0.02, 0.07, 0.6, 0.8, 0.8, 0.1, exchange_s=0.0)
    path = write_calibration(tmp_path / "cal.json", consts, {"cores": 2})
    back = load_calibration(path)
    assert back.as_dict() | {"origin": ""} == consts.as_dict() | {"origin": ""}
    assert str(path) in back.origin
    doc = json.loads(path.read_text())
    doc["spark"]["task_s"] = -1
    del doc["spark"]["hop_us"]
    path.write_text(json.dumps(doc))
    with pytest.raises(SpecError) as exc:
        load_calibration(path)
    assert "spark.task_s" in str(exc.value) and "spark.hop_us" in str(exc.value) and str(path) in str(exc.value)
    # a file written before exchange_s existed: the built-in default, and the origin says so
    doc = json.loads(write_calibration(tmp_path / "old.json", consts, {}).read_text())
    del doc["spark"]["exchange_s"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    old = load_calibration(tmp_path / "old.json")
    assert old.exchange_s == SparkConstants().exchange_s and "exchange_s: built-in default" in old.origin


def test_calibration_fit_recovers_the_constants_of_the_model() -> None:
    from streamplace.spark.measure.calibration import design_row, fit_constants, jvm_cores_from, probes

    truth = np.array([0.3, 0.02, 0.08, 0.6, 0.9])  # batch, stage, task, hop, source+sink share
    rows = [design_row(p, 2) for p in probes(2)]
    consts, _, r2 = fit_constants(rows, list(np.asarray(rows) @ truth))
    assert r2 == pytest.approx(1.0)
    assert [consts.batch_s, consts.stage_s, consts.task_s, consts.hop_us, consts.source_us] == \
        pytest.approx(list(truth))
    # noisy times of a model whose stage cost is zero: an unconstrained fit goes negative, NNLS stays at 0
    noisy = np.asarray(rows) @ np.array([0.3, 0.0, 0.08, 0.6, 0.9])
    noisy = noisy * (1 + 0.05 * np.random.default_rng(0).standard_normal(len(noisy)))
    free, *_ = np.linalg.lstsq(np.asarray(rows), noisy, rcond=None)
    consts, fitted, r2 = fit_constants(rows, list(noisy))
    assert min(free) < 0 <= min(consts.batch_s, consts.stage_s, consts.task_s, consts.hop_us, consts.source_us)
    assert 0.9 < r2 < 1.0 and fitted.shape == noisy.shape
    # jvm_cores solves the model's time of the busy probe: 2 cores at (2 − 0.4) / 2 of their speed
    rows_ = 24_000
    fixed = consts.batch_s + 2 * consts.stage_s + 2 * consts.task_s
    measured = fixed + rows_ / 2 * (consts.source_us + consts.hop_us + consts.sink_us) / 1e6 + \
        rows_ / 2 * 0.5e-3 / 0.8
    assert jvm_cores_from(measured, consts, 2, rows_) == pytest.approx(0.4)


def test_perf_does_not_depend_on_schedulers() -> None:
    code = "import sys, streamplace.perf, streamplace.perf.engines; print('streamplace.schedulers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_optimal_under_spark_finds_the_enumerated_best_capacity() -> None:
    """A chain on two unequal nodes, at most 3 replicas per operator: every placement enumerated and predicted by
    the spark engine; optimal's plan (its own MILP on the Spark model) sustains the most of them all."""
    import itertools

    from streamplace.schedulers import create

    topo = Topology("c", (Operator("src", "source", rate=100.0, cost_ms=0.1), Operator("a", cost_ms=1.0),
                          Operator("b", "sink", cost_ms=0.5)), (Stream("src", "a"), Stream("a", "b")))
    cluster = Cluster("two", (Node("fast", cpu=200.0, memory_mb=10_000, speedup=2.0),
                              Node("slow", cpu=100.0, memory_mb=10_000)))
    eng = spark(SparkConstants(0.2, 0.05, 0.01, 0.0, 0.0, 0.0, 0.0, exchange_s=0.0))
    per_op = [(f, s) for f, s in itertools.product(range(4), repeat=2) if 1 <= f + s <= 3]
    best = 0.0
    for combo in itertools.product(per_op, repeat=3):
        replicas = {op.id: {n: c for n, c in zip(("fast", "slow"), counts, strict=True) if c}
                    for op, counts in zip(topo.operators, combo, strict=True)}
        best = max(best, evaluate(topo, cluster, Plan("e", "c", "two", replicas), engine=eng).throughput)
    plan = create("optimal", {"max_replicas": "3"}).plan(topo, cluster, engine=eng)
    assert plan.status == "ok" and plan.predicted["engine"] == "spark"
    assert plan.predicted["throughput"] == pytest.approx(best, rel=1e-6)
    ideal = create("optimal", {"max_replicas": "3"}).plan(topo, cluster)  # the papers' model picks another plan
    assert evaluate(topo, cluster, ideal, engine=eng).throughput <= best * (1 + 1e-9)


def test_cluster_spec_engine_block(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app
    from streamplace.spec.loader import cluster_to_doc, load_cluster

    spec = tmp_path / "c.yaml"
    spec.write_text("name: c\nnodes:\n  - {id: x, cpu: 100, memory_mb: 1000, rack: r0}\n"
                    "  - {id: y, cpu: 100, memory_mb: 1000, rack: r1}\n"
                    "links: {same_rack_ms: 1, cross_rack_ms: 10}\n"
                    "engine:\n  storm: {max_spout_pending: 1}\n  spark: {trigger_s: 4}\n")
    cluster = load_cluster(spec)
    assert dict(cluster.engine_params) == {"storm.max_spout_pending": 1, "spark.trigger_s": 4}
    assert load_cluster(cluster_to_doc(cluster)).engine_params == cluster.engine_params
    topo = tmp_path / "t.yaml"
    topo.write_text("name: t\noperators:\n  - {id: src, kind: source, rate: 100, bytes_per_tuple: 1000}\n"
                    "  - {id: a, kind: sink, pinned: [y]}\nstreams:\n  - {from: src, to: a}\n")
    runner = CliRunner()
    res = runner.invoke(app, ["plan", "--json", "--engine", "storm", "-s", "round-robin", str(topo), str(spec)])
    pred = json.loads(res.stdout)["predicted"]
    assert pred["engine_params"]["max_spout_pending"] == 1 and pred["bottleneck"].startswith("flow control")
    res = runner.invoke(app, ["plan", "--json", "-s", "round-robin", "-p", "spark.trigger_s=2", str(topo), str(spec)])
    assert json.loads(res.stdout)["predicted"]["engine_params"]["trigger_s"] == 2.0  # the command line wins
    spec.write_text(spec.read_text().replace("max_spout_pending", "max_pending"))
    with pytest.raises(SpecError) as exc:
        load_cluster(spec)
    assert str(spec) in str(exc.value) and "storm.max_pending" in str(exc.value)


def test_a_placed_plan_pays_the_drivers_build_per_routed_input() -> None:
    """On several nodes the driver builds one routed input per chain and upstream chain (the batch's rows for a
    source) and cuts the plan there before a batch's first stage runs: exchange_s each, in F only, however many
    nodes the chains' replicas sit on. Worked by hand: src on x, a on x and y (not fusable: a has a replica where
    src has none). Inputs: src reads the batch (1), a reads src (1): 2. F = 0.2 + 2 × 0.1 + src (0.05 + 0.01) +
    a (0.05 + 0.01) = 0.52 s. One node: none (the local runtime, whose per-operator build is in batch_s and
    stage_s)."""
    topo = Topology("t", (Operator("src", "source", rate=100.0), Operator("a", "sink", cost_ms=1.0)),
                    (Stream("src", "a"),))
    nodes = (Node("x", cpu=100.0, memory_mb=10_000), Node("y", cpu=100.0, memory_mb=10_000))
    two = Cluster("two", nodes, Links(same_rack_ms=0.0, cross_rack_ms=0.0))  # no link wait: the build alone
    plan = Plan("m", "t", "two", {"src": {"x": 1}, "a": {"x": 1, "y": 1}}, source_rates={"src": 100.0})
    consts = SparkConstants(batch_s=0.2, stage_s=0.05, task_s=0.01, hop_us=0.0, source_us=0.0, sink_us=0.0,
                            jvm_cores=0.0, exchange_s=0.1)
    with_build = evaluate(topo, two, plan, engine=spark(consts)).engine_detail
    without = evaluate(topo, two, plan, engine=spark()).engine_detail
    assert with_build["batch_fixed_s"] == pytest.approx(0.52)
    assert without["batch_fixed_s"] == pytest.approx(0.32)
    assert with_build["work_s_per_scale_second"] == pytest.approx(without["work_s_per_scale_second"])
    one = Cluster("one", nodes[:1])
    alone = Plan("m", "t", "one", {"src": {"x": 1}, "a": {"x": 2}}, source_rates={"src": 100.0})
    assert evaluate(topo, one, alone, engine=spark(consts)).engine_detail["batch_fixed_s"] == pytest.approx(
        evaluate(topo, one, alone, engine=spark()).engine_detail["batch_fixed_s"])


def test_the_driver_probe_plan_has_the_routed_inputs_the_engine_counts() -> None:
    """calibration.driver_probe fits its build times over ``ops`` routed inputs per batch: what the engine
    charges exchange_s for on that plan (unfused: the probe's pipeline runs each operator as its own stage),
    whatever the nodes."""
    from streamplace.model.cluster import Cluster as C
    from streamplace.perf.cells import compile_cells
    from streamplace.perf.engines.spark import build_stages, routed_inputs
    from streamplace.perf.rates import operator_rates
    from streamplace.spark.measure.calibration import driver_probe_plan

    for nodes, ops in ((2, 4), (5, 4), (3, 2)):
        topo, plan, workers = driver_probe_plan(nodes, ops)
        cluster = C("probe", tuple(Node(w.node, cpu=100.0, memory_mb=10_000) for w in workers))
        rates = operator_rates(topo)
        arrays = build_stages(topo, compile_cells(topo, cluster, plan.replicas, rates), rates, SparkConstants(),
                              fuse=False)
        assert routed_inputs(arrays) == ops


def test_a_fractional_node_stretches_only_the_cpu_of_fixed_costs_and_tasks_at_once_overlap_their_waits() -> None:
    """Worked by hand: src (1 task) → a (4 tasks) on one node, task_s 0.01 of which 0.004 CPU, stage set-up 0.02
    CPU, no per-tuple work. At 0.3 cores (one slot of speed 0.3, 4 tasks at once) a stage ends after its tasks'
    CPU (0.004 / 0.3 each, on the one slot), one wave of waiting (0.006) and the set-up's stretch
    0.02 · (1 / 0.3 − 1): src 0.05 + 0.01333 + 0.006 + 0.04667 = 0.116, a 0.05 + 4 · 0.01333 + 0.006 + 0.04667 =
    0.156, F = 0.2 + 0.116 + 0.156 = 0.472 s. With one task at once a waits four times (+0.018). At a full core
    it is the calibrated waves of task_s: 0.2 + (0.05 + 0.01) + (0.05 + 4 · 0.01) = 0.35 s."""
    topo = Topology("t", (Operator("src", "source", rate=100.0), Operator("a", "sink", cost_ms=1.0)),
                    (Stream("src", "a"),))
    consts = SparkConstants(batch_s=0.2, stage_s=0.05, task_s=0.01, hop_us=0.0, source_us=0.0, sink_us=0.0,
                            jvm_cores=0.0, exchange_s=0.0, task_cpu_s=0.004, stage_cpu_s=0.02)
    plan = Plan("m", "t", "one", {"src": {"x": 1}, "a": {"x": 4}}, source_rates={"src": 100.0})

    def fixed(cpu: float, slots: int) -> float:
        one = Cluster("one", (Node("x", cpu=cpu, memory_mb=10_000, slots=slots),))
        return evaluate(topo, one, plan, engine=spark(consts)).engine_detail["batch_fixed_s"]

    assert fixed(30.0, 4) == pytest.approx(0.2 + (0.05 + 0.004 / 0.3 + 0.006 + 0.02 * (1 / 0.3 - 1))
                                           + (0.05 + 4 * 0.004 / 0.3 + 0.006 + 0.02 * (1 / 0.3 - 1)))
    assert fixed(30.0, 1) == pytest.approx(fixed(30.0, 4) + 3 * 0.006)
    assert fixed(100.0, 1) == pytest.approx(0.35)
    # all of task_s CPU and no set-up of its own: the model of before, every fixed cost stretched by 1 / speed
    whole = dataclasses.replace(consts, task_cpu_s=0.01, stage_cpu_s=0.0)
    one = Cluster("one", (Node("x", cpu=30.0, memory_mb=10_000, slots=1),))
    assert evaluate(topo, one, plan, engine=spark(whole)).engine_detail["batch_fixed_s"] == pytest.approx(
        0.2 + (0.05 + 0.01 / 0.3) + (0.05 + 4 * 0.01 / 0.3))
