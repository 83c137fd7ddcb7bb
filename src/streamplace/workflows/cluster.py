"""Cluster use cases: start a Spark standalone cluster that emulates a cluster spec here (or spans hosts), find
it again, say what a remote host needs to serve as one of its nodes, show it and stop it.

`streamplace cluster up|worker-config|status|down`, and the commands that run on a cluster (`run`, `live`,
`sweep`, `calibrate`, the demo) call these; nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.spark import cluster as spark_cluster
from streamplace.workflows.instance import Spec, load_cluster

if TYPE_CHECKING:
    from streamplace.spark.cluster import ClusterState


@dataclass(frozen=True)
class Started:
    """What `cluster up` started: the cluster's state, the nodes left to start on other hosts, and whether the
    JVM class archives it wrote are in use (False: its runs start their JVMs without them)."""

    cluster: Cluster
    state: ClusterState
    remote: list[str]
    archives_in_use: bool


def start(cluster: Cluster | Spec, state_dir: Path | None = None, host: str = "127.0.0.1",
          replica_slots: int | None = None, cpu_quota: bool = True, cpu_budget: float | None = None,
          remote: str | list[str] | None = None, jvm_archives: bool = True) -> Started:
    """Start one master and one worker per node here (``remote``: the nodes whose workers run on other hosts,
    a list, a comma list or ``"all"``), with per-node CPU quotas where cgroups allow, and the JVMs' class
    archives."""
    c = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    far = remote_nodes(c, remote)
    state = spark_cluster.up(c, state_dir, host, replica_slots, cpu_quota=cpu_quota, cpu_budget=cpu_budget, remote=far,
                             jvm_archives=jvm_archives)
    return Started(c, state, far, bool(spark_cluster.driver_options(state) and spark_cluster.executor_options(state)))


def remote_nodes(cluster: Cluster, remote: str | list[str] | None) -> list[str]:
    """The nodes whose workers run on other hosts: a list, a comma list, ``"all"`` or None (none)."""
    if remote == "all":
        return [n.id for n in cluster.nodes]
    if isinstance(remote, str) or remote is None:
        return [n for n in (remote or "").split(",") if n]
    return list(remote)


def state_dir_of(cluster: str | None, state_dir: Path | None) -> Path:
    """The state directory of a cluster `cluster up` started here: ``state_dir`` if given, else by the cluster's
    name (as `up` printed it), spec or built-in name, else the one cluster there is."""
    if state_dir is not None:
        return state_dir
    if cluster is None:  # the one cluster `cluster up` left state for, when there is exactly one
        root = spark_cluster.state_root()
        known = sorted(p.parent.name for p in root.glob("*/state.json")) if root.is_dir() else []
        if len(known) == 1:
            return root / known[0]
        raise ModelError([Problem("cluster", "which cluster? " + (f"there are {len(known)}: {', '.join(known)}"
                                                                  if known else "none was started"),
                                  "name it, or give its [[state_dir]]")])
    if (spark_cluster.state_root() / cluster / "state.json").is_file():  # the spec's name, as `cluster up` printed it
        return spark_cluster.state_root() / cluster
    return spark_cluster.state_root() / load_cluster(cluster).name


def cluster_at(master: str | None, state_dir: Path | None = None) -> Any:
    """The state of the cluster `cluster up` started here that answers at ``master`` (a spark:// URL); None for a
    local master; a clear error when none started here answers there."""
    return spark_cluster.state_at(master, state_dir)


def worker_config(cluster: str, node: str, master: str | None = None, replica_slots: int | None = None,
                  directory: str = "/opt/streamplace-worker", include_secret: bool = False,
                  state_dir: Path | None = None) -> dict[str, Any]:
    """What a real host needs to serve as ``node`` of ``cluster``: its discovery script, properties and start
    command (render it with :func:`render_worker_config`)."""
    where = state_dir_of(cluster, state_dir)
    # the cluster `cluster up` started here (its URL, secret and workers as started), when there is one
    state = spark_cluster.ClusterState.load(where) if (where / "state.json").is_file() else None
    if state is None and (master is None or include_secret):
        raise ModelError([Problem("master" if master is None else "include_secret",
                                  f"no cluster was started here for {cluster} ({where})",
                                  "start it with `streamplace cluster up`, or give [[master]] and copy the secret")])
    spec = state if state is not None and replica_slots is None else load_cluster(cluster)
    url = master if master is not None else state.master_url  # type: ignore[union-attr]
    return spark_cluster.worker_config(spec, node, url, replica_slots, str(where / "secret"), directory,
                                       state.secret if include_secret and state else None)


def render_worker_config(doc: dict[str, Any]) -> str:
    """A worker configuration as the shell recipe a person follows on that host."""
    return spark_cluster.render_worker_config(doc)


def stop(state_dir: Path) -> list[str]:
    """Stop exactly the master and workers `cluster up` started (from their pid files); what was stopped."""
    return spark_cluster.down(state_dir)


def status(state_dir: Path) -> dict[str, Any]:
    """The master, each worker's process and registration, and the running applications."""
    return spark_cluster.status(state_dir)


def kill_worker(state: ClusterState, node: str) -> None:
    """Kill one node's worker and executor (the fault `live --kill-node` injects)."""
    spark_cluster.kill_worker(state, node)


def alive_hosts_of(master: str) -> list[str] | None:
    """The hosts of the workers alive on a cluster `cluster up` started here at ``master`` (one executor each for an
    application); None for a master started elsewhere or one that does not answer."""
    state = spark_cluster.find_state(master)
    if state is None:
        return None
    hosts = spark_cluster.placement_hosts(state)
    return sorted(hosts.values()) if hosts else None
