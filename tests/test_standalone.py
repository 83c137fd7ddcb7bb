"""The standalone cluster launcher and placed enactment.

The layout rules are checked without Spark; one slow test starts a real 2-worker
cluster, shows an application without the shared secret is refused, runs a
placed pipeline through the CLI in its own process (one SparkContext per
process) and checks every operator's tuples went through the nodes the plan
assigned — each task reports the node whose worker ran it (the worker's
environment), not the node it was planned on — then stops exactly what it started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from streamplace.errors import ModelError, SpecError
from streamplace.model.cluster import Cluster, Node
from streamplace.model.layout import branches, check_enactable, resource_name, worker_layout
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from tests.scripts import load_script

TWO = textwrap.dedent("""\
    name: two
    nodes:
      - {id: fast, cpu: 200, memory_mb: 4096, speedup: 2.0, slots: 2}
      - {id: slow, cpu: 200, memory_mb: 4096, speedup: 0.5, slots: 2}
    """)
CHAIN = textwrap.dedent("""\
    name: pin-chain
    operators:
      - {id: src, kind: source, rate: 200, cost_ms: 0.1, replicas: 1}
      - {id: mid, cost_ms: 1.0, replicas: 3}
      - {id: sink, kind: sink, cost_ms: 0.1, replicas: 1}
    streams:
      - {from: src, to: mid}
      - {from: mid, to: sink}
    """)
PLAN = {"scheduler": "manual", "status": "ok", "topology": "pin-chain", "cluster": "two",
        "replicas": {"src": {"fast": 1}, "mid": {"fast": 2, "slow": 1}, "sink": {"slow": 1}},
        "source_rates": {"src": 200}}


def _cluster() -> Cluster:
    return Cluster("two", (Node("fast", cpu=200, memory_mb=4096, speedup=2.0, slots=2),
                           Node("slow", cpu=200, memory_mb=4096, speedup=0.5, slots=2)))


def _topology() -> Topology:
    ops = (Operator("src", "source", rate=200.0, replicas=1), Operator("mid", "operator", replicas=3),
           Operator("sink", "sink", replicas=1))
    return Topology("pin-chain", ops, (Stream("src", "mid"), Stream("mid", "sink")))


def _plan(replicas: dict[str, dict[str, int]]) -> Plan:
    return Plan("manual", "pin-chain", "two", replicas, {"src": 200.0})


def test_layout_cores_rule_and_branches() -> None:
    workers = worker_layout(_cluster())
    assert [w.resource for w in workers] == [resource_name("fast"), resource_name("slow")]
    assert all(w.cores == w.replica_slots + 1 for w in workers)  # one core beyond the pinned executor's
    plan = _plan(PLAN["replicas"])
    mid = branches(plan, "mid", workers)
    assert [(b.node, b.offset, b.count) for b in mid] == [("fast", 0, 2), ("slow", 2, 1)]
    check_enactable(_topology(), plan, workers)


def test_plans_workers_cannot_run_are_refused_with_the_fix() -> None:
    workers = worker_layout(_cluster())
    with pytest.raises(ModelError, match=r"replicas\.mid\.fast: 5 replicas.*a larger replica_slots"):
        check_enactable(_topology(), _plan({"src": {"fast": 1}, "mid": {"fast": 5}, "sink": {"slow": 1}}), workers)
    with pytest.raises(ModelError, match="no worker for node 'gone'"):
        check_enactable(_topology(), _plan({"src": {"gone": 1}, "mid": {"fast": 1}, "sink": {"slow": 1}}), workers)
    dup = Cluster("dup", (Node("a-1", cpu=100, memory_mb=100), Node("a_1", cpu=100, memory_mb=100)))
    with pytest.raises(ModelError, match="same Spark resource name"):
        worker_layout(dup)


def _cli(*args: str, env: dict[str, str], timeout: float = 400) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("streamplace")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=timeout, check=False)


@pytest.mark.slow
def test_standalone_cluster_pins_replicas_and_refuses_strangers(tmp_path: Path) -> None:
    from streamplace.spark.cluster.state import ClusterState, master_json

    (tmp_path / "two.yaml").write_text(TWO)
    (tmp_path / "chain.yaml").write_text(CHAIN)
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    env = dict(os.environ, STREAMPLACE_HOME=str(tmp_path / "home"))
    state_dir = tmp_path / "home" / "clusters" / "two"
    started = _cli("cluster", "up", str(tmp_path / "two.yaml"), env=env, timeout=400)
    assert started.returncode == 0, started.stderr
    master = started.stdout.strip().splitlines()[-1]
    assert master.startswith("spark://127.0.0.1:")
    state = ClusterState.load(state_dir)
    try:
        # `up` primed the class archives the run's driver and executors map (jvm_archive.py)
        archives = state_dir / "jvm-archives"
        assert (archives / "driver.jsa").is_file() and (archives / "executor.jsa").is_file(), state.jvm_archive_note
        assert oct(Path(state.secret_file).stat().st_mode & 0o777) == "0o600"
        # an application without the secret: the master refuses its RPCs and never registers it
        intruder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""\
            from pyspark.sql import SparkSession
            s = SparkSession.builder.master({master!r}).appName("intruder").config("spark.ui.enabled", "false")
            s.config("spark.driver.host", "127.0.0.1").getOrCreate().range(10).count()
            print("RAN")
            """)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        log = Path(state.state_dir) / "logs" / "master.log"
        deadline = time.monotonic() + 60
        while "Expected SaslMessage" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(1)
        apps = [a["name"] for a in (master_json(state.host, state.webui_port) or {}).get("activeapps", [])]
        intruder.kill()
        out, _ = intruder.communicate()
        assert "Expected SaslMessage" in log.read_text()
        assert "intruder" not in apps and "RAN" not in out

        # the pinned executors start before the query (20–45 s on 2 cores, not part of the warm-up)
        ran = _cli("run", str(tmp_path / "chain.yaml"), str(tmp_path / "two.yaml"), "--plan",
                   str(tmp_path / "plan.json"), "--master", master, "--duration", "10", "--warmup", "30",
                   "--trigger", "2", "--out", str(tmp_path / "out"), "--json", env=env)
        assert ran.returncode == 0, ran.stderr[-3000:]
        result = json.loads(ran.stdout)
        # its executors mapped the archive, and no JVM complained of it (a mismatch prints [warning][cds])
        logs = [p.read_text(errors="replace") for p in (state_dir / "work").glob("*/*/*/stderr")]
        run_logs = [t for t in logs if "SharedArchiveFile=" in t]
        assert run_logs and not any("[warning][cds]" in t or "shared archive" in t.lower() for t in run_logs)
        assert result["measured"]["launch_to_first_batch_s"] >= result["measured"]["first_batch_end_s"] > 0
        # each node's Python daemons were forked by its zygote (zygote.py), none refused
        for w in state.workers:
            zlog = (state_dir / "logs" / f"zygote-{w.resource}.log").read_text()
            assert "forked daemon" in zlog and "refused" not in zlog, zlog
        if state.cpu_scale:  # cgroups writable here: each worker in its node's group, the quotas set again after run
            from streamplace.spark.cluster.cpu_quota import CgroupBackend

            assert result.get("cpu_quotas", "").startswith("lifted for the start")
            for w in state.workers:
                members = (Path(w.cgroup) / "cgroup.procs").read_text().split()
                assert str(w.pid) in members and str(w.zygote_pid) in members
                assert CgroupBackend.quota_cores(Path(w.cgroup)) == pytest.approx(w.cpu_quota_cores, rel=1e-3)
        placement = result["placement"]
        for op, planned in PLAN["replicas"].items():
            # every planned node processed tuples of the operator, and no other node did
            assert set(placement[op]) == set(planned), (op, placement, result["operators"])
            assert all(v["tuples"] > 0 for v in placement[op].values())
        mid = placement["mid"]
        # mid's replicas split 2 : 1 between fast and slow (hash of the tuple id)
        assert 0.55 < mid["fast"]["tuples"] / (mid["fast"]["tuples"] + mid["slow"]["tuples"]) < 0.78
        # emulated node speed: 1.0 ms per tuple burns 1.0/2.0 ms on fast and 1.0/0.5 on slow
        assert mid["fast"]["cost_ms"] == pytest.approx(0.5, rel=0.2)
        assert mid["slow"]["cost_ms"] == pytest.approx(2.0, rel=0.2)
        # the source ran once per tuple although two nodes' stages read it (persisted; recomputing it would double
        # its count), give or take the batch in flight when the run stopped
        src_total, mid_total = placement["src"]["fast"]["tuples"], mid["fast"]["tuples"] + mid["slow"]["tuples"]
        assert mid_total <= src_total < 1.3 * mid_total
    finally:
        stopped = _cli("cluster", "down", "--state-dir", str(state_dir), env=env, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert "master" in stopped.stdout
    assert all(not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
               for pid in [state.master_pid] + [w.pid for w in state.workers] + [w.zygote_pid for w in state.workers])
    assert not any(w.cgroup and Path(w.cgroup).exists() for w in state.workers)  # down removed the groups


#: the fault matrix's set-up (benchmarks/faults.py): a three-node cluster, a chain src → mid ×2 → sink at 100 t/s,
#: mid's replicas on b and c — one definition for the benchmark and the tests of faults
FAULTS = load_script(Path(__file__).resolve().parents[1] / "benchmarks" / "faults.py", "faults_benchmark",
                     siblings=True)
THREE, FAIL_CHAIN, FAIL_PLAN = FAULTS.CLUSTER, FAULTS.TOPOLOGY, FAULTS.PLAN


def up_three(tmp_path: Path) -> tuple[dict[str, str], str]:
    """The three-node cluster up under ``tmp_path`` (its spec, the chain and the plan written beside it): the
    environment that finds it, and its master's URL."""
    (tmp_path / "three.yaml").write_text(THREE)
    (tmp_path / "chain.yaml").write_text(FAIL_CHAIN)
    (tmp_path / "plan.json").write_text(json.dumps(FAIL_PLAN))
    env = dict(os.environ, STREAMPLACE_HOME=str(tmp_path / "home"))
    started = _cli("cluster", "up", str(tmp_path / "three.yaml"), "--no-jvm-archives", env=env, timeout=180)
    assert started.returncode == 0, started.stderr
    return env, started.stdout.strip().splitlines()[-1]


def live_args(tmp_path: Path, master: str, duration: float, *extra: str) -> list[str]:
    """`live` of the chain on the three nodes under the hold policy, its output under ``tmp_path``/out."""
    return ["live", str(tmp_path / "chain.yaml"), str(tmp_path / "three.yaml"), "--policy", "hold",
            "--plan", str(tmp_path / "plan.json"), "--master", master, "--duration", f"{duration:g}",
            "--interval", "10", "--out", str(tmp_path / "out"), "--json", *extra]


def down_three(tmp_path: Path, env: dict[str, str]) -> None:
    stopped = _cli("cluster", "down", "--state-dir", str(tmp_path / "home" / "clusters" / "three"), env=env)
    assert stopped.returncode == 0, stopped.stderr


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_no_output_is_lost(tmp_path: Path) -> None:
    env, master = up_three(tmp_path)
    try:
        ran = _cli(*live_args(tmp_path, master, 95, "--kill", "c@55"), env=env)
    finally:
        down_three(tmp_path, env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads(ran.stdout)
    lost = [e for e in result["events"] if e["kind"] == "node-lost"]
    assert len(lost) == 1 and "lost c" in lost[0]["detail"]
    assert lost[0]["detected_s"] < 5  # the master drops a killed worker at once; the loop polls every second
    assert lost[0]["pause_s"] is not None and lost[0]["pause_s"] < 40  # kill → first sink tuple, new plan
    assert "c" not in {n for per in result["final_replicas"].values() for n in per}
    assert sum(result["final_replicas"]["mid"].values()) == 2  # same replica counts on the survivors
    values = pd.read_parquet(tmp_path / "out" / "sink")["value"]
    assert len(values) > 100 * 30
    assert values.is_unique and values.min() == 0 and values.max() == len(values) - 1  # nothing lost or repeated


def test_cluster_commands_find_a_spec_files_cluster_by_its_name(tmp_path: Path, monkeypatch) -> None:
    from streamplace.workflows.cluster import state_dir_of as _state_dir

    monkeypatch.setenv("STREAMPLACE_HOME", str(tmp_path))
    (tmp_path / "clusters" / "three").mkdir(parents=True)
    (tmp_path / "clusters" / "three" / "state.json").write_text("{}")
    assert _state_dir("three", None) == tmp_path / "clusters" / "three"  # not a built-in: found by its state
    assert _state_dir("hetero-3", None) == tmp_path / "clusters" / "hetero-3"  # a built-in's name
    with pytest.raises(SpecError, match="no cluster file or built-in named 'four'"):
        _state_dir("four", None)


def test_worker_config_gives_a_real_host_what_cluster_up_gives_its_worker() -> None:
    """cluster worker-config: the node's resource, its discovery scripts, the same cores and memory `cluster up`
    starts that node's worker with, and absolute paths (Spark reads the properties literally)."""
    from streamplace.bench import resolve_cluster
    from streamplace.spark.cluster.standalone import render_worker_config, worker_config

    c = resolve_cluster("hetero-3")
    for w in worker_layout(c):
        doc = worker_config(c, w.node, "spark://10.0.0.5:7077", directory="/srv/w")
        assert (doc["cores"], doc["memory_mb"], doc["resource"]) == (w.cores, w.memory_mb, w.resource)
        text = render_worker_config(doc)
        assert f"spark.worker.resource.{w.resource}.discoveryScript /srv/w/{w.resource}.sh" in text
        assert f"Worker spark://10.0.0.5:7077 --host $SPARK_LOCAL_IP --cores {w.cores} --memory {w.memory_mb}m" in text
        assert '"name": "' + w.resource + '"' in text and "$STREAMPLACE" not in text
    with pytest.raises(ModelError, match="not a node of hetero-3"):
        worker_config(c, "nope", "spark://x:1")


def test_emulated_links_make_a_placed_task_wait_for_its_remote_input() -> None:
    """A pinned stage waits the longest one-way latency from a node holding an upstream replica (none for a local
    input or a source), once per task before it processes; the spec's latencies come as PipelineConfig takes them."""
    import dataclasses

    from streamplace.model.cluster import Links
    from streamplace.model.layout import link_latencies
    from streamplace.spark.query.pipeline import PipelineConfig, _run_chain
    from streamplace.spark.query.placed import PlacedPipeline

    cluster = Cluster("two", _cluster().nodes, Links(same_rack_ms=25.0))
    links = link_latencies(cluster)
    assert links == {"fast": {"slow": 25.0}, "slow": {"fast": 25.0}}
    pipeline = object.__new__(PlacedPipeline)  # the wait is decided from the plan alone: no Spark needed
    pipeline.topology, pipeline.cfg = _topology(), PipelineConfig(link_latency_ms=links)
    nodes = {op: tuple(node for node, n in per.items() for _ in range(n)) for op, per in PLAN["replicas"].items()}
    assert pipeline._fetch_wait_ms("src", "fast", nodes) == 0.0  # a source reads no shuffle
    assert pipeline._fetch_wait_ms("mid", "fast", nodes) == 0.0  # src sits on fast too
    assert pipeline._fetch_wait_ms("mid", "slow", nodes) == 25.0
    assert pipeline._fetch_wait_ms("sink", "slow", nodes) == 25.0  # mid has a replica on fast
    assert pipeline._fetch_wait_ms("mid", "fast", nodes, anywhere=True) == 25.0  # Spark's placement: src anywhere
    pipeline.cfg = PipelineConfig()
    assert pipeline._fetch_wait_ms("sink", "slow", nodes) == 0.0  # no latencies emulated

    @dataclasses.dataclass
    class Step:
        fetch_wait_ms: float

        def __call__(self, batches: object, stats: object, batch_id: int) -> list[int]:
            return [len(list(batches))]  # type: ignore[call-overload]

    import pyarrow as pa

    started = time.monotonic()
    batches = iter([pa.record_batch({"value": [1], "_t": [0]}), pa.record_batch({"value": [2], "_t": [0]})])
    assert _run_chain(((Step(60.0), ("value",)),), None, 3, None, batches) == [2]
    assert time.monotonic() - started >= 0.06  # waited (a lower bound: load only lengthens it)


def test_where_a_runs_start_goes_first_batch_after_the_query_started() -> None:
    """The first micro-batch with rows: when it ended after the query started, and how long it took itself (empty
    batches before it do not count); nothing when no batch had rows."""
    from datetime import UTC, datetime

    from streamplace.spark.query.metrics import BatchProgress
    from streamplace.spark.runtime.run import first_batch

    start = datetime(2026, 11, 24, 3, 0, 0, tzinfo=UTC).timestamp()
    batches = [BatchProgress(0, "2026-11-24T03:00:01.000Z", 0, 0.0, 0.0, {"triggerExecution": 900}),
               BatchProgress(1, "2026-11-24T03:00:04.500Z", 710, 0.0, 0.0, {"triggerExecution": 13_250}),
               BatchProgress(2, "2026-11-24T03:00:17.750Z", 710, 0.0, 0.0, {"triggerExecution": 6_000})]
    got = first_batch(batches, start)
    assert got["first_batch_s"] == pytest.approx(13.25)
    assert got["first_batch_end_s"] == pytest.approx(4.5 + 13.25)
    assert got["first_batch_end_at"] == pytest.approx(start + 4.5 + 13.25)
    assert first_batch(batches[:1], start) == {}


def test_spark_spread_deals_each_operators_tasks_one_per_worker_in_turn() -> None:
    """Spark's own scheduler, as predicted: each operator's n tasks dealt one per worker in the cluster's order,
    skipping full workers; operators of equal counts on the same nodes (the runtime fuses them); more replicas
    than the slots is refused."""
    from streamplace.model.layout import WorkerLayout, spark_spread

    workers = [WorkerLayout("a", "sp_a", 2, 1.0), WorkerLayout("b", "sp_b", 1, 1.0), WorkerLayout("c", "sp_c", 2, 1.0)]
    plan = _plan({"src": {"a": 1}, "mid": {"a": 2, "b": 1, "c": 1}, "sink": {"c": 1}})
    spread = spark_spread(plan, workers)
    assert spread.replicas == {"src": {"a": 1}, "mid": {"a": 2, "b": 1, "c": 1}, "sink": {"a": 1}}
    five = spark_spread(_plan({"src": {"a": 5}, "mid": {"c": 1}, "sink": {"c": 1}}), workers)
    assert five.replicas["src"] == {"a": 2, "b": 1, "c": 2}
    with pytest.raises(ModelError, match="1 more replicas than the workers' slots"):
        spark_spread(_plan({"src": {"a": 6}, "mid": {"c": 1}, "sink": {"c": 1}}), workers)


def test_each_emulated_node_gets_a_loopback_host_of_its_own() -> None:
    """Task locality tells nodes apart by host: on loopback every node's worker binds to its own address after the
    master's; beside remote workers (a routable master) local workers keep the master's address."""
    from streamplace.spark.cluster.standalone import node_hosts

    assert node_hosts("127.0.0.1", 3) == ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
    assert node_hosts("127.0.0.1", 300)[-1] == "127.0.1.45"
    assert node_hosts("10.0.0.5", 2) == ["10.0.0.5", "10.0.0.5"]
    with pytest.raises(ModelError, match="loopback addresses"):
        node_hosts("127.255.255.250", 10)


def test_a_placed_task_emulates_and_reports_the_node_it_runs_on(monkeypatch) -> None:
    """A placed operator's task picks the task of the node its worker names (STREAMPLACE_NODE), else of the
    replica's planned node; its statistics go under the node that really ran it."""
    import pyarrow as pa

    from streamplace.model.layout import NODE_ENV
    from streamplace.spark.query.library import logic_of
    from streamplace.spark.query.operators import OperatorTask
    from streamplace.spark.query.pipeline import PlacedOperator

    op = _topology().op("mid")
    tasks = {n: OperatorTask("mid", logic_of(op, 1.0), 1.0, False, 3, None, node=n) for n in ("fast", "slow")}
    placed = PlacedOperator(("fast", "fast", "slow"), tasks)
    monkeypatch.delenv(NODE_ENV, raising=False)
    assert placed.pick(2).node == "slow" and placed.pick(0).node == "fast"
    monkeypatch.setenv(NODE_ENV, "slow")
    assert placed.pick(0).node == "slow"

    class Stats:
        def __init__(self) -> None:
            self.keys: set[str] = set()

        def add(self, d: dict) -> None:
            self.keys |= set(d)

    stats = Stats()
    batch = pa.record_batch({"ts": pa.array([0], pa.timestamp("us")), "value": [1], "key": [1]})
    list(tasks["fast"](iter([batch]), stats, 0))  # planned on fast, ran on slow: counted on slow
    assert stats.keys == {"mid", "mid@slow"}


@pytest.mark.slow
def test_the_demo_enacts_the_best_plan_on_the_emulated_cluster_and_stops_it(tmp_path: Path) -> None:
    """`make demo`'s job, short: plan hetero-3, start it here, run the best plan pinned, report, stop the cluster."""
    import psutil

    env = dict(os.environ, STREAMPLACE_HOME=str(tmp_path / "home"))
    out = tmp_path / "demo"
    ran = _cli("demo", "--out", str(out), "--time-limit", "1", "--spark-seconds", "6", "--json", env=env,
               timeout=600)
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads(ran.stdout)
    run = result["spark_run"]
    assert run["on"] == "cluster" and run["page"].endswith("run-page.html"), run
    measured = {r["quantity"]: r["measured"] for r in run["rows"]}
    assert measured["throughput into sinks (tuples/s)"] > 0, (run, ran.stderr[-3000:])
    report = (out / "report.html").read_text()
    assert "plan enacted on hetero-3 (emulated on this machine)" in report and "pinned to its planned node" in report
    assert report.count("<svg") >= 3  # every usable plan's picture
    assert (out / "best-plan.json").is_file() and (out / "best-plan.svg").is_file()
    page = (out / "spark-run" / "run-page.html").read_text()
    assert '"status": "finished"' in page
    # the cluster is gone: `down` removed its state, and none of its master, workers or executors (their
    # command lines name its state directory) runs any more; the demo's own driver JVM, which names it too, ends
    # with the demo's process, a moment after it (its shutdown hooks)
    assert not (out / "cluster" / "state.json").exists()
    cluster_parts = ("deploy.master.Master", "deploy.worker.Worker", "CoarseGrainedExecutorBackend", "zygote")

    def left() -> list[str]:
        found = []
        for proc in psutil.process_iter(["cmdline", "status"]):
            line = " ".join(proc.info["cmdline"] or [])
            if str(out / "cluster") in line and proc.info["status"] != psutil.STATUS_ZOMBIE \
                    and any(part in line for part in cluster_parts):
                found.append(next(p for p in cluster_parts if p in line))
        return found

    assert not left(), left()
