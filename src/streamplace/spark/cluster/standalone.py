"""Start, inspect and stop a Spark standalone cluster that emulates a cluster spec on this machine.

``up`` starts one master and one worker per node (separate JVMs, all bound to
loopback unless told otherwise), with the cores, memory and custom resources of
layout.py, and writes everything it started to a state directory: pid files,
the per-worker properties files, the discovery scripts, logs and ``state.json``.
``down`` stops exactly those processes. The same properties files and scripts
work on a real multi-machine cluster: copy a worker's file to its machine and
start ``spark-class org.apache.spark.deploy.worker.Worker spark://MASTER:PORT
--properties-file FILE`` there (see docs/spark.md).

Security: a standalone master runs code from whoever reaches it, so the cluster
binds to 127.0.0.1 by default and every daemon and application must present a
per-cluster shared secret (``spark.authenticate``); the secret lives only in
files readable by the owner (mode 600), never on a command line.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import secrets
import socket
import subprocess
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import psutil

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.layout import (
    NODE_ENV,
    SPARE,
    link_latencies,
    worker_layout,
)
from streamplace.spark.cluster import zygote
from streamplace.spark.cluster.cpu_quota import CgroupBackend, default_budget, detect, group_name, plan_quotas
from streamplace.spark.cluster.jvm_archive import prime
from streamplace.spark.cluster.state import (
    EXECUTOR_JVM_OPTIONS,
    STATE_FILE,
    ClusterLaunchError,
    ClusterState,
    WorkerState,
    alive_workers,
    is_loopback,
    master_json,
    state_root,
)
from streamplace.spark.daemons.zygote_client import SOCKET_ENV


def spark_class() -> Path:
    import pyspark

    path = Path(pyspark.__file__).parent / "bin" / "spark-class"
    if not path.exists():
        raise ClusterLaunchError(f"{path} is missing: the pyspark package has no launcher (fix: reinstall pyspark)")
    return path


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _private(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o600)


def _properties(values: dict[str, str]) -> str:
    return "".join(f"{k} {v}\n" for k, v in values.items())


def _discovery_text(name: str, addresses: list[str]) -> str:
    """A Spark resource discovery script that reports ``addresses`` for the custom resource ``name``."""
    return ("#!/bin/sh\n# streamplace: the addresses of custom resource " + name + "\n"
            + "echo '" + json.dumps({"name": name, "addresses": addresses}) + "'\n")


def _discovery_script(path: Path, name: str, addresses: list[str]) -> None:
    path.write_text(_discovery_text(name, addresses))
    path.chmod(0o755)


def _worker_properties(secret: str, resource: str, script: str, spare: str) -> dict[str, str]:
    """A worker's properties: the master's secret, its own resource (which pins replicas to it) and the spare."""
    return {"spark.authenticate": "true", "spark.authenticate.secret": secret,
            f"spark.worker.resource.{resource}.amount": "1",
            f"spark.worker.resource.{resource}.discoveryScript": script,
            f"spark.worker.resource.{SPARE}.amount": "1",
            f"spark.worker.resource.{SPARE}.discoveryScript": spare}


def node_hosts(master_host: str, nodes: int) -> list[str]:
    """The address each of ``nodes`` local workers binds to: with a loopback master, consecutive loopback
    addresses after the master's (127.0.0.2, 127.0.0.3, … — every 127/8 address is this machine), one per node,
    so that each emulated node is a host of its own to Spark's scheduler; otherwise the master's address (local
    workers beside remote ones must be reachable from them). O(nodes)."""
    if not is_loopback(master_host) or master_host == "localhost":
        return [master_host] * nodes
    base = int(ipaddress.ip_address(master_host))
    hosts = [str(ipaddress.ip_address(base + 1 + i)) for i in range(nodes)]
    if any(not ipaddress.ip_address(h).is_loopback for h in hosts):
        raise ModelError([Problem("host", f"{nodes} nodes do not fit in the loopback addresses after {master_host}",
                                  "bind the master to 127.0.0.1")])
    return hosts


def _daemon_env(state_dir: Path, host: str) -> dict[str, str]:
    env = dict(os.environ)
    conf_dir = state_dir / "conf"  # empty: daemons read no site-wide spark-defaults.conf or spark-env.sh
    conf_dir.mkdir(exist_ok=True)
    env.update(SPARK_LOCAL_IP=host, SPARK_CONF_DIR=str(conf_dir), SPARK_LOG_DIR=str(state_dir / "logs"),
               SPARK_NO_DAEMONIZE="1", SPARK_DAEMON_JAVA_OPTS=EXECUTOR_JVM_OPTIONS)
    return env


def _spawn(args: list[str], env: dict[str, str], log: Path, cgroup: Path | None = None) -> int:
    """Start a daemon in its own session; with ``cgroup`` it joins that group before exec, so the JVM and
    everything it starts (executors, Python workers) run under the group's CPU quota."""
    join = None if cgroup is None else (lambda: CgroupBackend.join(cgroup))
    with log.open("ab") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True,  # its own process group: down() stops the JVM and its shell
                                preexec_fn=join)
    return proc.pid


def up(cluster: Cluster, state_dir: Path | None = None, host: str = "127.0.0.1", replica_slots: int | None = None,
       timeout_s: float = 90.0, cpu_quota: bool = True, cpu_budget: float | None = None,
       cgroups: CgroupBackend | str | None = None, remote: Collection[str] = (), jvm_archives: bool = True
       ) -> ClusterState:
    """Start the master and one worker per node; return when every worker started here has registered (or raise).

    ``remote``: nodes whose workers run on other hosts (started there from ``worker_config``): recorded in the
    state but not started here, and not waited for; the master must then listen on an address they reach.

    ``cpu_quota``: each node's worker (and what it starts) runs in a cgroup whose CPU quota is the node's share of
    ``cpu_budget`` real cores (default: this machine's cores less half a core for the driver), see cpu_quota.py;
    where cgroups are not writable the cluster starts without quotas and ``cpu_quota_note`` says why.
    ``cgroups`` overrides the detected backend (tests). ``jvm_archives``: once the workers have registered, write
    the class archives that let a run's driver and executors start in less CPU (jvm_archive.py; about 60 s here,
    skipped when archives of an earlier ``up`` of this state directory still check)."""
    workers = worker_layout(cluster, replica_slots)
    _check_remote(cluster, host, remote)
    local = [w for w in workers if w.node not in remote]
    # quotas scale the whole spec onto this machine's cores: not when some nodes are real hosts
    cpu_quota = cpu_quota and not remote
    quotas = plan_quotas(cluster, cpu_budget if cpu_budget is not None else default_budget()) if cpu_quota else None
    backend = (cgroups if cgroups is not None else detect()) if cpu_quota else None
    state_dir = Path(state_dir or state_root() / cluster.name).resolve()
    if (state_dir / STATE_FILE).exists():
        old = ClusterState.load(state_dir)
        if _alive(old.master_pid):
            raise ClusterLaunchError(f"{state_dir}: cluster {old.name!r} is already running at {old.master_url} "
                                     "(fix: `streamplace cluster down` it first, or give another state directory)")
    for sub in ("logs", "scripts", "work"):
        (state_dir / sub).mkdir(parents=True, exist_ok=True)
    secret_file = state_dir / "secret"
    _private(secret_file, secrets.token_hex(32) + "\n")
    secret = secret_file.read_text().strip()
    env = _daemon_env(state_dir, host)
    port, webui = free_port(host), free_port(host)
    master_props = state_dir / "master.properties"
    _private(master_props, _properties({"spark.authenticate": "true", "spark.authenticate.secret": secret}))
    master_pid = _spawn([str(spark_class()), "org.apache.spark.deploy.master.Master", "--host", host,
                         "--port", str(port), "--webui-port", str(webui), "--properties-file", str(master_props)],
                        env, state_dir / "logs" / "master.log")
    state = ClusterState(cluster.name, host, port, webui, str(state_dir), str(secret_file), master_pid)
    if isinstance(backend, CgroupBackend) and quotas is not None:
        state.cpu_scale, state.cpu_budget_cores, state.cgroup_version = quotas.scale, quotas.budget_cores, \
            backend.version
    elif isinstance(backend, str):
        state.cpu_quota_note = f"no CPU quotas: {backend}; the nodes share this machine's cores"
    elif remote:
        state.cpu_quota_note = f"no CPU quotas: {len(remote)} node(s) run on other hosts at their own speed"
    state.save()
    try:
        _wait(lambda: master_json(host, webui) is not None, timeout_s,
              f"the master did not answer within {timeout_s:g} s (see {state_dir / 'logs' / 'master.log'})")
        spare = state_dir / "scripts" / f"{SPARE}.sh"
        _discovery_script(spare, SPARE, ["0"])
        hosts = dict(zip([w.node for w in local], node_hosts(host, len(local)), strict=True))
        for w in workers:
            if w.node in remote:
                state.workers.append(WorkerState(w.node, w.resource, w.replica_slots, w.speedup, w.cores,
                                                 w.memory_mb, 0, 0, "", "", remote=True))
                continue
            script = state_dir / "scripts" / f"{w.resource}.sh"
            _discovery_script(script, w.resource, ["0"])
            props = state_dir / f"worker-{w.resource}.properties"
            _private(props, _properties(_worker_properties(secret, w.resource, str(script), str(spare))))
            work = state_dir / "work" / w.resource
            work.mkdir(exist_ok=True)
            log = state_dir / "logs" / f"worker-{w.resource}.log"
            wport = free_port(host)
            group = None
            if isinstance(backend, CgroupBackend) and quotas is not None:
                group = backend.create(group_name(state_dir), w.resource, quotas.cores[w.node])
            sock = zygote.socket_name(state_dir, w.resource)
            node_env = {**env, "SPARK_LOCAL_IP": hosts[w.node], NODE_ENV: w.node}
            zygote_pid = _spawn(zygote.command(sock), zygote.environment(node_env), state_dir / "logs" /
                                f"zygote-{w.resource}.log", group)
            # its executors' Python daemons are forked by the zygote (they inherit the worker's environment)
            pid = _spawn([str(spark_class()), "org.apache.spark.deploy.worker.Worker", state.master_url,
                          "--host", hosts[w.node], "--cores", str(w.cores), "--memory", f"{w.memory_mb}m",
                          "--webui-port", str(wport), "--work-dir", str(work), "--properties-file", str(props)],
                         {**node_env, SOCKET_ENV: str(sock)}, log, group)
            state.workers.append(WorkerState(w.node, w.resource, w.replica_slots, w.speedup, w.cores, w.memory_mb,
                                             wport, pid, str(props), str(log),
                                             quotas.cores[w.node] if group is not None and quotas else None,
                                             str(group) if group is not None else None, zygote_pid,
                                             host=hosts[w.node]))
            state.save()
        mine = {w.resource for w in local}
        _wait(lambda: mine <= set(alive_workers(state)), timeout_s,
              f"not every worker registered within {timeout_s:g} s (see the logs in {state_dir / 'logs'})")
        if jvm_archives and local and not remote:
            state.jvm_archive_note = prime(state).describe()
        state.save()
    except BaseException:
        down(state_dir)
        raise
    return state


def _check_remote(cluster: Cluster, host: str, remote: Collection[str]) -> None:
    """Remote nodes must be the cluster's, and must be able to reach the master."""
    names = [n.id for n in cluster.nodes]
    unknown = [n for n in remote if n not in names]
    if unknown:
        raise ModelError([Problem("remote", f"{', '.join(map(repr, unknown))} is not a node of {cluster.name}",
                                  f"name nodes of {', '.join(names)}, or `all`")])
    if remote and is_loopback(host):
        raise ModelError([Problem("host", f"workers on other hosts cannot reach a master bound to {host}",
                                  "give [[host]] an address of this machine those hosts reach")])


def _wait(ready: Any, timeout_s: float, message: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        if time.monotonic() > deadline:
            raise ClusterLaunchError(message)
        time.sleep(0.5)


def _process(pid: int) -> psutil.Process | None:
    """The running process ``pid`` (a zombie, exited but not yet reaped, is not running), or None."""
    try:
        proc = psutil.Process(pid)
        return None if proc.status() == psutil.STATUS_ZOMBIE else proc
    except psutil.NoSuchProcess:
        return None
    except psutil.AccessDenied:  # someone else's process: it runs, but is not ours to stop
        return psutil.Process(pid)


def _alive(pid: int) -> bool:
    return _process(pid) is not None


def _tree(pid: int) -> list[psutil.Process]:
    """The process and everything it started (a daemon's shell, its JVM, a worker's executors)."""
    proc = _process(pid)
    if proc is None:
        return []
    with contextlib.suppress(psutil.Error):
        return [proc, *proc.children(recursive=True)]
    return [proc]


def stop_process(pid: int, grace_s: float = 10.0) -> bool:
    """Stop a process started by _spawn and its descendants (SIGTERM, then SIGKILL after ``grace_s``); True when
    something was running."""
    procs = _tree(pid)
    if not procs:
        return False
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, left = psutil.wait_procs(procs, timeout=grace_s)
    for proc in left:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(left, timeout=5.0)
    return True


def kill_worker(state: ClusterState, node: str) -> None:
    """Kill one node's worker at once (SIGKILL), as a machine failure would (its executors die with it)."""
    for w in state.workers:
        if w.node == node:
            if w.remote:
                raise ClusterLaunchError(f"node {node!r} runs on another host: stop its worker there")
            for proc in _tree(w.pid):
                with contextlib.suppress(psutil.Error):
                    proc.kill()
            return
    raise ClusterLaunchError(f"no worker for node {node!r} (nodes: {', '.join(w.node for w in state.workers)})")


def down(state_dir: Path) -> list[str]:
    """Stop the workers, then the master, that ``up`` started there; returns what was stopped."""
    state = ClusterState.load(state_dir)
    stopped = [f"worker {w.node} (pid {w.pid})" for w in state.workers if not w.remote and stop_process(w.pid)]
    stopped += [f"zygote {w.node} (pid {w.zygote_pid})" for w in state.workers
                if w.zygote_pid and stop_process(w.zygote_pid)]
    if stop_process(state.master_pid):
        stopped.append(f"master (pid {state.master_pid})")
    stopped += [f"(worker {w.node} runs on another host: stop it there)" for w in state.workers if w.remote]
    groups = [Path(w.cgroup) for w in state.workers if w.cgroup]
    if groups and state.cgroup_version in (1, 2):
        root = groups[0].parent.parent.parent  # root/streamplace/<cluster>/<node>
        left = CgroupBackend(state.cgroup_version, root).remove(groups)  # type: ignore[arg-type]
        stopped += [f"cgroup {g.name}" for g in groups if not g.exists()]
        stopped += [f"(cgroup left: {why})" for why in left]
    (Path(state.state_dir) / STATE_FILE).unlink(missing_ok=True)
    return stopped


def status(state_dir: Path) -> dict[str, Any]:
    """The cluster as its pid files and its master see it."""
    state = ClusterState.load(state_dir)
    doc = master_json(state.host, state.webui_port) or {}
    seen = alive_workers(state, doc)
    return {"name": state.name, "master_url": state.master_url, "master_alive": _alive(state.master_pid),
            "state_dir": state.state_dir, "cpu_scale": state.cpu_scale, "cpu_budget_cores": state.cpu_budget_cores,
            "cgroup_version": state.cgroup_version, "cpu_quota_note": state.cpu_quota_note,
            "jvm_archives": state.jvm_archive_note,
            "applications": [a.get("name") for a in doc.get("activeapps", [])],
            "workers": [{"node": w.node, "pid": None if w.remote else w.pid, "remote": w.remote,
                         "process_alive": None if w.remote else _alive(w.pid),
                         "registered": w.resource in seen, "cores": w.cores, "memory_mb": w.memory_mb,
                         "replica_slots": w.replica_slots, "speedup": w.speedup,
                         "cpu_quota_cores": w.cpu_quota_cores,
                         "zygote_alive": _alive(w.zygote_pid) if w.zygote_pid else None,
                         "cores_used": seen.get(w.resource, {}).get("coresused")} for w in state.workers]}


def emulated_links(state: ClusterState | None, cluster: Cluster) -> dict[str, dict[str, float]] | None:
    """The spec's link latencies for the pinned stages to wait (PipelineConfig.link_latency_ms) on a cluster
    `cluster up` emulates on this machine; None elsewhere: locally there are no links, and workers on other
    hosts have real ones."""
    if state is None or any(w.remote for w in state.workers):
        return None
    return link_latencies(cluster)


def worker_config(cluster: Cluster | ClusterState, node: str, master_url: str, replica_slots: int | None = None,
                  secret_file: str = "SECRET_FILE", directory: str = "/opt/streamplace-worker",
                  secret: str | None = None) -> dict[str, Any]:
    """What a real host needs to serve as ``node`` of ``cluster`` under a master started by ``cluster up`` (or
    any master with the same secret): the two resource discovery scripts, the worker's properties and the command
    that starts it, with the cores and memory ``cluster up`` gives that node's worker. The properties name
    ``secret_file`` unless ``secret`` is given (then they carry it: keep that output private). Pure: writes
    nothing (``render_worker_config`` says where each part goes). ``cluster``: the spec, or the state of the
    cluster `cluster up` started (its workers' layout as started; ``replica_slots`` is then ignored)."""
    workers = cluster.layout() if isinstance(cluster, ClusterState) else worker_layout(cluster, replica_slots)
    layout = {w.node: w for w in workers}
    if node not in layout:
        raise ModelError([Problem("NODE", f"{node!r} is not a node of {cluster.name}",
                                  f"use one of {', '.join(layout)}")])
    w = layout[node]
    script = f"{directory}/{w.resource}.sh"  # absolute: Spark reads these paths literally
    spare = f"{directory}/{SPARE}.sh"

    return {
        "node": node, "cluster": cluster.name, "resource": w.resource, "replica_slots": w.replica_slots,
        "speedup": w.speedup, "cores": w.cores, "memory_mb": w.memory_mb, "master": master_url,
        "directory": directory,
        "scripts": {script: _discovery_text(w.resource, ["0"]), spare: _discovery_text(SPARE, ["0"])},
        "properties": _worker_properties(secret if secret is not None else
                                          f"<the master's secret: the contents of {secret_file}>", w.resource,
                                          script, spare),
        "environment": {"SPARK_LOCAL_IP": "<this host's address the master and the driver can reach>",
                        NODE_ENV: node},
        "command": (f"$(python -c 'import pyspark, os; print(os.path.dirname(pyspark.__file__))')/bin/spark-class "
                    f"org.apache.spark.deploy.worker.Worker {master_url} --host $SPARK_LOCAL_IP --cores {w.cores} "
                    f"--memory {w.memory_mb}m "
                    f"--work-dir {directory}/work --properties-file {directory}/worker.properties"),
    }


def render_worker_config(doc: dict[str, Any]) -> str:
    """``worker_config``'s parts as a commented shell recipe."""
    (script, body), (spare, spare_body) = doc["scripts"].items()
    return (
        f"# streamplace worker for node {doc['node']} of {doc['cluster']} (replica slots {doc['replica_slots']}, "
        f"speed-up {doc['speedup']:g})\n"
        "# 1. a directory for it, on a host with streamplace and PySpark installed (the driver's versions; the\n"
        "#    executors run the driver's PYSPARK_PYTHON, so install them at that path or set it on the driver):\n"
        f"mkdir -p {doc['directory']}/work\n"
        f"# 2. {script} (chmod 755): names this worker to the scheduler's pinning\n{body}"
        f"# 3. {spare} (chmod 755): the spare resource every worker offers\n{spare_body}"
        f"# 4. {doc['directory']}/worker.properties (chmod 600; the secret must be the master's):\n"
        f"{_properties(doc['properties'])}"
        "# 5. start it:\n"
        + "".join(f"export {k}={v}\n" for k, v in doc["environment"].items())
        + doc["command"] + "\n")
