"""Multi-host Spark: a master and workers on separate network hosts, the workers set up from `cluster worker-config`.

Hosts are network namespaces, each with its own address on a veth pair into one bridge (the driver's
address): the master's namespace runs `cluster up --remote all`, each worker's namespace runs the start
command of `cluster worker-config` literally with the files it prints, and the driver, in the root
namespace, runs a pinned plan across them. Needs root and `ip netns` (skipped otherwise). The offline
parts (recipe contents, refusals) are checked without namespaces.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from streamplace.errors import ModelError
from streamplace.spark.cluster.standalone import render_worker_config, up
from streamplace.spark.cluster.standalone import worker_config as make_worker_config
from streamplace.spark.cluster.state import ClusterState, WorkerState, local_address
from tests.test_standalone import CHAIN, PLAN, TWO, _cli, _cluster

SUBNET = "10.231.77"  # the bridge is .254, the master .1, the workers .2 and .3


def test_a_master_for_remote_workers_must_be_reachable_and_name_real_nodes(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"host: workers on other hosts cannot reach a master bound to 127\.0\.0\.1"):
        up(_cluster(), tmp_path, "127.0.0.1", remote=["fast"])
    with pytest.raises(ModelError, match=r"'nope' is not a node of two"):
        up(_cluster(), tmp_path, "10.0.0.5", remote=["nope"])
    assert not (tmp_path / "state.json").exists()  # refused before anything started
    assert local_address("127.0.0.1", 7077) == "127.0.0.1"


def test_worker_recipe_carries_the_secret_only_when_asked() -> None:
    named = make_worker_config(_cluster(), "slow", "spark://10.0.0.5:7077", directory="/srv/w")
    shown = make_worker_config(_cluster(), "slow", "spark://10.0.0.5:7077", directory="/srv/w", secret="s3cr3t")
    assert "s3cr3t" not in json.dumps(named) and shown["properties"]["spark.authenticate.secret"] == "s3cr3t"
    assert "--host $SPARK_LOCAL_IP" in shown["command"] and "--work-dir /srv/w/work" in shown["command"]
    assert "mkdir -p /srv/w/work" in render_worker_config(shown)


def test_remote_workers_are_not_ours_to_stop(tmp_path: Path) -> None:
    from streamplace.spark.cluster.standalone import down, kill_worker, status
    from streamplace.spark.cluster.state import ClusterLaunchError

    state = ClusterState("two", "10.0.0.5", 1, 2, str(tmp_path), str(tmp_path / "secret"), 2 ** 22 + 12345,
                         [WorkerState("fast", "sp_fast", 2, 2.0, 3, 4096, 0, 0, "", "", remote=True)])
    state.save()
    with pytest.raises(ClusterLaunchError, match="runs on another host"):
        kill_worker(state, "fast")
    st = status(tmp_path)
    assert st["workers"][0]["remote"] and st["workers"][0]["pid"] is None
    assert "(worker fast runs on another host: stop it there)" in down(tmp_path)


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


@contextlib.contextmanager
def _hosts(names: list[str]) -> Iterator[dict[str, tuple[str, str]]]:
    """One network namespace per name on a fresh bridge: name → (namespace, address)."""
    tag = f"{os.getpid() % 100000}"
    bridge = f"spb{tag}"
    made: list[str] = []
    try:
        _sh("ip", "link", "add", bridge, "type", "bridge")
        _sh("ip", "addr", "add", f"{SUBNET}.254/24", "dev", bridge)
        _sh("ip", "link", "set", bridge, "up")
        hosts = {}
        for i, name in enumerate(names, start=1):
            ns, veth = f"sp{tag}-{name}", f"spv{tag}{i}"
            _sh("ip", "netns", "add", ns)
            made.append(ns)
            _sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _sh("ip", "link", "set", veth, "master", bridge, "up")
            _sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{SUBNET}.{i}/24", "dev", "eth0")
            _sh("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
            _sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")  # executor ↔ Python worker
            hosts[name] = (ns, f"{SUBNET}.{i}")
        yield hosts
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", bridge], capture_output=True, check=False)


def _namespaces_work() -> str | None:
    """Why the namespace test cannot run here (None: it can)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return "needs root and iproute2"
    routes = subprocess.run(["ip", "route"], capture_output=True, text=True, check=False).stdout
    if f"{SUBNET}." in routes:
        return f"{SUBNET}.0/24 is in use here"
    try:
        with _hosts(["probe"]):
            return None
    except (subprocess.CalledProcessError, OSError) as e:
        return f"network namespaces do not work here: {e}"


@pytest.mark.slow
def test_a_pinned_plan_runs_across_workers_on_separate_hosts(tmp_path: Path) -> None:
    why = _namespaces_work()
    if why:
        pytest.skip(why)
    (tmp_path / "two.yaml").write_text(TWO)
    (tmp_path / "chain.yaml").write_text(CHAIN)
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    venv_bin = str(Path(sys.executable).parent)
    env = dict(os.environ, STREAMPLACE_HOME=str(tmp_path / "home"), PATH=f"{venv_bin}:{os.environ['PATH']}")
    state_dir = tmp_path / "home" / "clusters" / "two"
    exe = str(Path(sys.executable).with_name("streamplace"))
    workers: list[subprocess.Popen[bytes]] = []
    with _hosts(["master", "fast", "slow"]) as hosts:
        master_ns, master_ip = hosts["master"]
        started = subprocess.run(["ip", "netns", "exec", master_ns, exe, "cluster", "up", str(tmp_path / "two.yaml"),
                                  "--host", master_ip, "--remote", "all", "--json"],
                                 capture_output=True, text=True, env=env, timeout=180, check=False)
        assert started.returncode == 0, started.stderr
        master = json.loads(started.stdout)["master_url"]
        assert master.startswith(f"spark://{master_ip}:")
        try:
            for node in ("fast", "slow"):  # each host is set up from the recipe alone
                got = _cli("cluster", "worker-config", "two", node, "--include-secret", "--dir",
                           str(tmp_path / node), "--json", env=env)
                assert got.returncode == 0, got.stderr
                doc = json.loads(got.stdout)
                assert doc["master"] == master
                (tmp_path / node / "work").mkdir(parents=True)
                for path, text in doc["scripts"].items():
                    Path(path).write_text(text)
                    Path(path).chmod(0o755)
                props = tmp_path / node / "worker.properties"
                props.write_text("".join(f"{k} {v}\n" for k, v in doc["properties"].items()))
                props.chmod(0o600)
                ns, ip = hosts[node]
                # the recipe's environment: this host's address, and the node it serves as given
                exports = "".join(f"export {k}={ip if k == 'SPARK_LOCAL_IP' else v}; "
                                  for k, v in doc["environment"].items())
                with (tmp_path / f"{node}.log").open("wb") as log:
                    workers.append(subprocess.Popen(["ip", "netns", "exec", ns, "sh", "-c", exports + doc["command"]],
                                                    stdout=log, stderr=subprocess.STDOUT, env=env,
                                                    start_new_session=True))
            state = ClusterState.load(state_dir)
            registered: dict[str, str] = {}
            deadline = time.monotonic() + 120
            while len(registered) < 2 and time.monotonic() < deadline:
                time.sleep(1)
                st = json.loads(_cli("cluster", "status", "--state-dir", str(state_dir), "--json", env=env).stdout)
                registered = {w["node"]: w for w in st["workers"] if w["registered"]}  # type: ignore[misc]
            assert set(registered) == {"fast", "slow"}, (tmp_path / "fast.log").read_text()[-2000:]
            from streamplace.spark.cluster.state import alive_workers

            hosts_seen = {r: w["host"] for r, w in alive_workers(state).items()}
            assert sorted(hosts_seen.values()) == [hosts["fast"][1], hosts["slow"][1]]  # two hosts, not loopback

            ran = _cli("run", str(tmp_path / "chain.yaml"), str(tmp_path / "two.yaml"), "--plan",
                       str(tmp_path / "plan.json"), "--master", master, "--state-dir", str(state_dir),
                       "--duration", "10", "--warmup", "30", "--trigger", "2", "--out", str(tmp_path / "out"),
                       "--json", env=env)
            assert ran.returncode == 0, ran.stderr[-3000:]
            placement = json.loads(ran.stdout)["placement"]
            for op, planned in PLAN["replicas"].items():  # every tuple on its planned node (tasks check it too)
                assert set(placement[op]) == set(planned), (op, placement)
                assert all(v["tuples"] > 0 for v in placement[op].values())
        finally:
            for proc in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            stopped = _cli("cluster", "down", "--state-dir", str(state_dir), env=env, timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        assert "runs on another host" in stopped.stdout
