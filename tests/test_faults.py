"""Faults injected into live runs (issue 55): the fault grammar, each injection on stand-in processes and cgroup
files, a stalled bounded source — and, marked slow, one live run per group of fault classes on an emulated
cluster, checked by the ids at the Parquet sink: nothing lost, nothing repeated. No assertion on a time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pandas as pd
import psutil
import pytest

from streamplace.errors import SpecError
from streamplace.spark.cluster.state import ClusterLaunchError, ClusterState, WorkerState
from streamplace.workflows.live import FaultSpec, fault_actions, parse_fault

from .test_standalone import _cli, down_three, live_args, up_three


def test_a_fault_is_kind_node_time_and_duration_and_a_wrong_one_is_named() -> None:
    assert parse_fault("executor:c@40") == FaultSpec("executor", 40.0, "c")
    assert parse_fault("slow:b@40+60") == FaultSpec("slow", 40.0, "b", 60.0)
    assert parse_fault("stall@35.5+10") == FaultSpec("stall", 35.5, None, 10.0)
    for bad, says in [("executor@40", "takes a node"), ("stall:b@3+1", "takes no node"), ("slow:b@40", "a duration"),
                      ("bogus@1", "is not a fault"), ("stall@x+1", "is not SECONDS"), ("stall@5+0", "> 0"),
                      ("freeze:c", "is not a fault")]:
        with pytest.raises(SpecError, match=says):
            parse_fault(bad, "--fault")


def test_live_refuses_a_fault_it_cannot_inject_before_spark_starts() -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "--fault", "executor:pentium-1@10"])
    assert res.exit_code == 2 and "only a standalone cluster's workers can be killed or faulted" in res.output
    res = runner.invoke(app, ["live", "nasiri-linear", "hetero-3", "--fault", "slow@10"])
    assert res.exit_code == 2 and "--fault" in res.output and "takes a node" in res.output


def test_faults_with_a_duration_are_undone_when_it_ends(tmp_path: Path) -> None:
    state = cast(Any, SimpleNamespace())  # a cluster `cluster up` started: the actions are only built here
    slow = fault_actions(FaultSpec("slow", 40.0, "b", 60.0), state, tmp_path)
    assert [(at, what) for at, what, _ in slow] == [(40.0, "slow b to 0.1 of its CPU for 60 s"),
                                                     (100.0, "b's CPU restored")]
    assert [at for at, _, _ in fault_actions(FaultSpec("freeze", 5.0, "c", 30.0), state, tmp_path)] == [5.0, 35.0]
    assert len(fault_actions(FaultSpec("executor", 5.0, "c"), state, tmp_path)) == 1
    with pytest.raises(SpecError, match="only a standalone cluster's workers"):  # a node's fault needs its cluster
        fault_actions(FaultSpec("executor", 5.0, "c"), None, tmp_path)


def test_a_stalled_bounded_source_admits_nothing_then_its_backlog(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    from streamplace.spark.query.bounded_source import STALL_FILE, BoundedRateReader, stall, stalled

    origin = time.time() - 10.0  # ~1,000 rows have arrived at 100/s
    reader = BoundedRateReader({"rowsPerSecond": "100", "origin": repr(origin),
                                "stallFile": str(tmp_path / STALL_FILE)})
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    assert reader.latestOffset({"rows": 500}, ReadAllAvailable())["rows"] >= 1000  # no stall file: all arrived
    stall(tmp_path, 30.0)
    assert stalled(tmp_path / STALL_FILE, time.time()) and not stalled(tmp_path / STALL_FILE, time.time() + 31)
    assert reader.latestOffset({"rows": 500}, ReadAllAvailable()) == {"rows": 500}  # stalled: an empty batch
    assert reader.reportLatestOffset()["rows"] >= 1000  # what arrived meanwhile is backlog
    stall(tmp_path, -1.0)  # over
    assert reader.latestOffset({"rows": 500}, ReadAllAvailable())["rows"] >= 1000
    (tmp_path / STALL_FILE).write_text("not a time")
    assert not stalled(tmp_path / STALL_FILE, time.time())  # unreadable: no stall


def _stand_in_node(tmp_path: Path) -> tuple[ClusterState, subprocess.Popen[bytes]]:
    """A 'worker' process with an 'executor' child (its command line names the executor's class) and a node cgroup
    made of plain files, as faults.py finds them."""
    from streamplace.spark.cluster.faults import EXECUTOR_MAIN

    head, tail = EXECUTOR_MAIN.rsplit(".", 1)  # joined in the child: the worker's own command line must not name it
    child = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', " \
            f"'{head}' + '.{tail}']); time.sleep(60)"
    worker = subprocess.Popen([sys.executable, "-c", child])
    group = tmp_path / "cg"
    group.mkdir()
    (group / "cpu.cfs_period_us").write_text("100000\n")
    (group / "cpu.cfs_quota_us").write_text("50000\n")
    w = WorkerState("c", "node_c", 2, 1.0, 3, 4096, 0, worker.pid, "", "", cpu_quota_cores=0.5, cgroup=str(group))
    state = ClusterState("three", "127.0.0.1", 0, 0, str(tmp_path), "", 0, workers=[w])
    deadline = time.monotonic() + 20
    while len(psutil.Process(worker.pid).children()) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    return state, worker


def _until(condition: Any, timeout_s: float = 10.0) -> None:
    """Wait for ``condition()`` (the kernel stops and resumes processes asynchronously)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


def test_cluster_faults_act_on_the_nodes_processes_and_quota(tmp_path: Path) -> None:
    from streamplace.spark.cluster import faults
    from streamplace.spark.cluster.cpu_quota import CgroupBackend

    state, worker = _stand_in_node(tmp_path)
    try:
        group = Path(state.workers[0].cgroup or "")
        assert faults.slow_node(state, "c", 0.1) == pytest.approx(0.05)
        assert CgroupBackend.quota_cores(group) == pytest.approx(0.05)
        faults.restore_node(state, "c")
        assert CgroupBackend.quota_cores(group) == pytest.approx(0.5)
        assert faults.freeze_node(state, "c") == 2
        _until(lambda: {p.status() for p in faults.node_processes(state, "c")} == {psutil.STATUS_STOPPED})
        faults.thaw_node(state, "c")
        _until(lambda: psutil.STATUS_STOPPED not in {p.status() for p in faults.node_processes(state, "c")})
        executor = faults.executor_processes(state, "c")
        assert len(executor) == 1 and faults.kill_executors(state, "c") == 1
        psutil.wait_procs(executor, timeout=10)
        assert worker.poll() is None  # the worker stays
        with pytest.raises(ClusterLaunchError, match="runs no executor"):
            faults.kill_executors(state, "c")
        with pytest.raises(ClusterLaunchError, match="no worker for node 'x'"):
            faults.freeze_node(state, "x")
        state.workers[0].cgroup = None
        with pytest.raises(ClusterLaunchError, match="cannot be slowed"):
            faults.slow_node(state, "c", 0.1)
    finally:
        os.kill(worker.pid, signal.SIGCONT)
        for p in [*psutil.Process(worker.pid).children(recursive=True)]:
            p.kill()
        worker.kill()
        worker.wait()


class _FailingQuery:
    isActive = False

    def exception(self) -> str:
        return "[Errno 28] No space left on device: '/out/sink/_staging/batch_id=7'\n\tat stack"


def _failing_pipelines(monkeypatch: pytest.MonkeyPatch, failing: int) -> list[Any]:
    """FakePipelines (tests/test_run_events.py) whose first ``failing`` queries have failed."""
    pytest.importorskip("pyspark")
    import streamplace.spark.runtime.live as live

    from .test_run_events import FakePipeline

    class Failing(FakePipeline):
        def start(self) -> None:
            if len(FakePipeline.made) <= failing:
                self.query = _FailingQuery()

    FakePipeline.made = []
    monkeypatch.setattr(live, "Pipeline", Failing)
    if hasattr(live, "pipeline_for"):  # the loop makes its pipelines through the runtime's chooser
        monkeypatch.setattr(live, "pipeline_for", Failing)
    return FakePipeline.made


def test_a_failed_query_restarts_from_its_checkpoint_until_its_restarts_are_spent(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No JVM: a query that failed (a full disk) is enacted again with the same plan after the delay, said as a
    fault; a query that keeps failing ends the run with its error once the restarts are spent."""
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.runtime.live import LiveRun

    from .test_run_events import CLUSTER, TOPO, GrowOnce, Recorder

    made = _failing_pipelines(monkeypatch, failing=2)
    heard = Recorder()
    runner = LiveRun(None, TOPO, CLUSTER, GrowOnce(), PipelineConfig(out_dir=tmp_path, trigger_s=0.02),
                     interval_s=10.0, poll_s=0.02, restarts=3, restart_delay_s=0.01)
    result = runner.run(0.5, faults=[(0.05, "nothing", lambda: None)], listener=heard)
    restarts = [e for e in result.events if e.kind == "fault"]
    assert len(restarts) == 2 and len(made) == 3 and made[2].query is None  # the third query runs
    assert all(e.detail.startswith("restarted from the checkpoint, same plan, after: [Errno 28] No space left")
               for e in restarts)
    assert all(p.plan.replicas == made[0].plan.replicas for p in made)
    said = [e.detail for e in heard.of("event") if e.kind == "fault"]
    assert any("restarting it from the checkpoint in 0.01 s (2 restarts left)" in d for d in said)
    assert result.faults == [{"at_s": result.faults[0]["at_s"], "what": "nothing"}]

    _failing_pipelines(monkeypatch, failing=10)
    runner = LiveRun(None, TOPO, CLUSTER, GrowOnce(), PipelineConfig(out_dir=tmp_path, trigger_s=0.02),
                     interval_s=10.0, poll_s=0.02, restarts=1, restart_delay_s=0.01)
    with pytest.raises(RuntimeError, match=r"the streaming query failed: \[Errno 28\] No space left"):
        runner.run(2.0)


def test_a_failed_query_is_said_by_its_cause_not_its_wrappers() -> None:
    pytest.importorskip("pyspark")
    from streamplace.spark.runtime.live import headline

    wrapped = ("An exception was raised by the Python Proxy. Return Message: Traceback (most recent call last):\n"
               "  File \"clientserver.py\", line 644, in _call_proxy\n"
               "py4j.protocol.Py4JJavaError: An error occurred while calling o312.save.\n"
               "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
               "OSError: [Errno 28] No space left on device\n\tat org.apache.spark.api.python.X(Y.scala:1)\n")
    assert headline(wrapped) == "OSError: [Errno 28] No space left on device"
    java = "java.lang.IllegalStateException: x\n\tat foo\nCaused by: java.io.IOException: No space left on device"
    assert headline(java) == "Caused by: java.io.IOException: No space left on device"
    assert headline("\nplain words\n") == "plain words" and headline("") == "no message"


def test_a_fault_that_cannot_be_injected_is_said_and_the_run_goes_on(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.runtime.live import LiveRun

    from .test_run_events import CLUSTER, TOPO, GrowOnce, Recorder

    _failing_pipelines(monkeypatch, failing=0)

    def refuse() -> None:
        raise ClusterLaunchError("node 'c' runs no executor to kill")

    heard = Recorder()
    runner = LiveRun(None, TOPO, CLUSTER, GrowOnce(), PipelineConfig(out_dir=tmp_path, trigger_s=0.02),
                     interval_s=10.0, poll_s=0.02)
    result = runner.run(0.3, faults=[(0.05, "kill c's executors", refuse)], listener=heard)
    assert result.faults[0]["error"] == "node 'c' runs no executor to kill"
    assert any(e.detail == "fault not injected: kill c's executors: node 'c' runs no executor to kill"
               for e in heard.of("event"))


def _sink_ids(out: Path) -> pd.Series:
    return pd.read_parquet(out / "sink")["value"]


def _assert_exactly_once(values: pd.Series) -> None:
    assert values.is_unique and values.min() == 0 and values.max() == len(values) - 1  # nothing lost or repeated


@pytest.mark.slow
def test_killed_executors_a_straggler_and_a_frozen_node_lose_and_repeat_nothing(tmp_path: Path) -> None:
    """One live run, three faults at different times on the nodes of mid's two replicas: c's executors killed (the
    worker starts new ones), b slowed to a tenth of its CPU for 15 s, c's processes stopped for 15 s (cut off)."""
    env, master = up_three(tmp_path)
    try:
        ran = _cli(*live_args(tmp_path, master, 110, "--fault", "executor:c@40", "--fault", "slow:b@55+15",
                          "--fault", "freeze:c@75+15"), env=env)
    finally:
        down_three(tmp_path, env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads(ran.stdout)
    assert [f["what"] for f in result["faults"]] == [
        "kill c's executors", "slow b to 0.1 of its CPU for 15 s", "b's CPU restored", "freeze c for 15 s",
        "c thawed"]
    assert not any("error" in f for f in result["faults"])
    assert not [e for e in result["events"] if e["kind"] == "node-lost"]  # no worker was lost: the plan stays
    values = _sink_ids(tmp_path / "out")
    assert values.max() > 100 * 90  # output went on after the last fault
    _assert_exactly_once(values)


@pytest.mark.slow
def test_a_stalled_source_and_a_killed_driver_restarted_from_its_checkpoint_lose_and_repeat_nothing(
        tmp_path: Path) -> None:
    """The sources stall for 10 s, then `live`'s whole process group is SIGKILLed mid-run; `live` started again on
    the same output directory resumes from the checkpoint (with the bounded sources the checkpoint was written by)."""
    env, master = up_three(tmp_path)
    try:
        proc = subprocess.Popen([str(Path(sys.executable).with_name("streamplace")),
                                 *live_args(tmp_path, master, 300, "--fault", "stall@35+10")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        sink = tmp_path / "out" / "sink"
        deadline = time.monotonic() + 240
        # killed once output has gone on after the stall: its batches are numbered past those of the first 45 s
        while proc.poll() is None and time.monotonic() < deadline and not _published_after(sink, 50):
            time.sleep(1)
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        before = _sink_ids(tmp_path / "out").max()
        again = _cli(*live_args(tmp_path, master, 45), env=env)
    finally:
        down_three(tmp_path, env)
    assert again.returncode == 0, again.stderr[-3000:]
    values = _sink_ids(tmp_path / "out")
    assert values.max() > before + 100 * 10  # the restarted driver went on from the checkpoint
    _assert_exactly_once(values)


def _published_after(sink: Path, batch_id: int) -> bool:
    return any(int(d.name.split("=")[1]) >= batch_id for d in sink.glob("batch_id=*"))
