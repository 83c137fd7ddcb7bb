"""The state of a standalone cluster `cluster up` started: what it started where, and what its master reports.

``state.json`` in the cluster's state directory records the master, every worker (its node, resource, slots,
host, pid, CPU quota and cgroup) and the notes of the start; the functions here read it back, find a cluster by
its master URL, ask the master which workers are alive and where, and switch the nodes' CPU quotas. Starting and
stopping the processes is standalone.py's job.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import urllib.request
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from streamplace.errors import ModelError, Problem, StreamplaceError
from streamplace.model.layout import SPARE, WorkerLayout, resource_name
from streamplace.spark.cluster.cpu_quota import CgroupBackend

STATE_FILE = "state.json"


#: JVM options of the executors and daemons: the client compiler only, serial GC (see app_conf)
EXECUTOR_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


class ClusterLaunchError(StreamplaceError, RuntimeError):
    """The standalone cluster could not be started, found or stopped."""


def state_root() -> Path:
    """Where ``cluster up`` keeps clusters by default ($STREAMPLACE_HOME/clusters, else ~/.streamplace/clusters)."""
    return Path(os.environ.get("STREAMPLACE_HOME", Path.home() / ".streamplace")) / "clusters"


@dataclass
class WorkerState:
    node: str
    resource: str
    replica_slots: int
    speedup: float
    cores: int
    memory_mb: int
    webui_port: int
    pid: int
    properties: str
    log: str
    cpu_quota_cores: float | None = None  # real cores its cgroup allows (None: no quota)
    cgroup: str | None = None
    #: the node's Python zygote (zygote.py), started beside its worker in its cgroup; None: none (remote)
    zygote_pid: int | None = None
    #: started on another host from `cluster worker-config` (pid 0, no files here): not ours to start or stop
    remote: bool = False
    #: the address the worker and its executor bind to: a node's own loopback address on an emulated cluster (so
    #: Spark's task locality can tell the nodes apart, as it tells real hosts apart); "" where unknown (remote)
    host: str = ""


@dataclass
class ClusterState:
    name: str
    host: str
    port: int
    webui_port: int
    state_dir: str
    secret_file: str
    master_pid: int
    workers: list[WorkerState] = field(default_factory=list)
    #: real cores per spec core when every node's processes run under a CPU quota (None: they share the machine)
    cpu_scale: float | None = None
    cpu_budget_cores: float | None = None
    cgroup_version: int | None = None
    #: why the nodes run without quotas, when they do
    cpu_quota_note: str = ""
    #: what `up` left of the JVMs' class archives (jvm_archive.py), or why none
    jvm_archive_note: str = ""

    @property
    def master_url(self) -> str:
        return f"spark://{self.host}:{self.port}"

    @property
    def secret(self) -> str:
        return Path(self.secret_file).read_text().strip()

    def layout(self) -> list[WorkerLayout]:
        """The workers as the runtime places replicas on them; a remote worker's host is the one it registered
        with the master (asked only when some worker's host is not known here)."""
        known = {w.node: w.host for w in self.workers if w.host}
        if len(known) < len(self.workers):
            known = placement_hosts(self) | known
        return [WorkerLayout(w.node, w.resource, w.replica_slots, w.speedup, known.get(w.node, ""))
                for w in self.workers]

    def save(self) -> None:
        path = Path(self.state_dir) / STATE_FILE
        path.write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, state_dir: Path) -> ClusterState:
        path = Path(state_dir) / STATE_FILE
        if not path.exists():
            raise ClusterLaunchError(f"{path}: no cluster state here (fix: start one with `streamplace cluster up`)")
        doc = json.loads(path.read_text())
        doc["workers"] = [WorkerState(**w) for w in doc["workers"]]
        return cls(**doc)


def master_json(host: str, webui_port: int, timeout_s: float = 2.0) -> dict[str, Any] | None:
    """The master's own view (workers, their resources, applications), or None when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{host}:{webui_port}/json/", timeout=timeout_s) as r:
            return json.loads(r.read())
    except (OSError, ValueError):
        return None


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def local_address(host: str, port: int) -> str:
    """This machine's address on the route to ``host`` (what the master and the workers can reach the driver
    at): the master's own address when it is local or loopback. Sends nothing (a UDP socket's connect only picks
    the route)."""
    if is_loopback(host):
        return host
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, port))
            return str(s.getsockname()[0])
    except OSError as e:
        raise ClusterLaunchError(f"no route from this machine to the master at {host}:{port} ({e}); run the "
                                 "driver on a host that reaches it") from e


def require_registered(state: ClusterState, nodes: Collection[str]) -> None:
    """A clear error when a node the plan uses has no worker registered with the master (a remote host not
    started yet, or a worker that died)."""
    alive = alive_nodes(state)
    if alive is None:
        raise ModelError([Problem("master", f"the master at {state.master_url} does not answer",
                                  "start it again with `streamplace cluster up`")])
    missing = sorted(set(nodes) - alive)
    if missing:
        remote = {w.node for w in state.workers if w.remote}
        hint = ("start it on its host with the recipe of `streamplace cluster worker-config "
                f"{state.name} NODE` and wait until `streamplace cluster status` shows it registered"
                if set(missing) & remote else "see `streamplace cluster status`; `cluster down` and `up` again")
        raise ModelError([Problem("plan", f"node(s) {', '.join(missing)} have no worker registered with the master "
                                  f"at {state.master_url}", hint)])


def enforce_cpu_quotas(state: ClusterState, enforce: bool = True) -> bool:
    """Switch the nodes' CPU quotas on (each node's planned cores) or off (unlimited); False when the cluster has
    none. ``run`` lifts them while the executors start and the first micro-batch runs (JVMs and Python workers
    starting, classes loading and compiling: 1–2 minutes under a third of a core, seconds on a real node) and
    sets them before anything is measured."""
    groups = [(w.cgroup, w.cpu_quota_cores) for w in state.workers if w.cgroup and w.cpu_quota_cores]
    for group, cores in groups:
        CgroupBackend.set_quota(Path(group), cores if enforce else None)
    return bool(groups)


def lift_cpu_quotas(state: ClusterState) -> Callable[[], None] | None:
    """Lift the nodes' CPU quotas for a run's start; returns what sets them again (None: the cluster has none)."""
    if not enforce_cpu_quotas(state, False):
        return None

    def restore() -> None:
        enforce_cpu_quotas(state, True)

    return restore


def alive_workers(state: ClusterState, doc: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Resource name → the master's record, for the workers it sees ALIVE (``doc``: a master_json already read)."""
    doc = doc if doc is not None else master_json(state.host, state.webui_port) or {}
    out = {}
    for w in doc.get("workers", []):
        if w.get("state") != "ALIVE":
            continue
        for name in w.get("resources", {}):
            if name != SPARE:
                out[name] = w
    return out


def alive_nodes(state: ClusterState) -> set[str] | None:
    """The nodes whose workers the master sees ALIVE; None when the master does not answer (then nothing is known
    to be lost)."""
    doc = master_json(state.host, state.webui_port)
    if doc is None:
        return None
    names = alive_workers(state, doc)
    return {w.node for w in state.workers if resource_name(w.node) in names}


def find_state(master_url: str) -> ClusterState | None:
    """The state of a cluster this machine started, found by its master URL."""
    root = state_root()
    if not root.exists():
        return None
    for path in sorted(root.glob(f"*/{STATE_FILE}")):
        with contextlib.suppress(OSError, ValueError, TypeError):
            state = ClusterState.load(path.parent)
            if state.master_url == master_url:
                return state
    return None


def placement_hosts(state: ClusterState, doc: dict[str, Any] | None = None) -> dict[str, str]:
    """Node → the host its registered worker (and so its executor) runs on, as the master reports it: what a placed
    task's preferred location names. Nodes without a live worker are left out. O(workers)."""
    alive = alive_workers(state, doc)
    return {w.node: str(alive[w.resource].get("host")) for w in state.workers
            if w.resource in alive and alive[w.resource].get("host")}


def state_at(master: str | None, state_dir: Path | None) -> ClusterState | None:
    """The cluster `cluster up` started at a spark:// master URL (None for local masters); a clear error when
    nothing started here answers there."""
    if master is None or not master.startswith("spark://"):
        return None
    state = ClusterState.load(state_dir) if state_dir is not None else find_state(master)
    if state is None or state.master_url != master:
        raise ModelError([Problem("master", f"no cluster started here answers at {master}",
                                  "start it with `streamplace cluster up CLUSTER` (or give its [[state_dir]])")])
    return state
