"""Faults injected into a standalone cluster `cluster up` emulates on this machine (issue 55's fault matrix).

Each function acts at once on one node's processes as ``state.json`` records them, and raises ClusterLaunchError
where it cannot (a node on another host, no CPU quota to lower). Together with ``standalone.kill_worker`` (a
machine failure) they are what `streamplace live --kill/--fault` and benchmarks/faults.py inject:

* :func:`kill_executors` — SIGKILL the node's executor JVMs (``CoarseGrainedExecutorBackend``) and nothing else:
  the worker lives on and the master starts the application a new executor there;
* :func:`slow_node` — set the node's CPU quota (its cgroup) to ``factor`` of what ``cluster up`` gave it, and
  :func:`restore_node` puts it back: a straggler;
* :func:`freeze_node` / :func:`thaw_node` — SIGSTOP, then SIGCONT, every process of the node (worker, executors,
  its zygote and the Python workers it forked): the node stops answering on every link at once, as a network
  partition of that host would look to Spark (connections stay open, nothing comes back). The emulated hosts are
  loopback addresses of one network namespace, so one link between two of them cannot be cut here (docs/faults.md).
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import psutil

from streamplace.spark.cluster.cpu_quota import CgroupBackend
from streamplace.spark.cluster.state import ClusterLaunchError, ClusterState, WorkerState

#: the class an executor JVM runs (its command line names it)
EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend"


def _worker(state: ClusterState, node: str) -> WorkerState:
    for w in state.workers:
        if w.node == node:
            if w.remote:
                raise ClusterLaunchError(f"node {node!r} runs on another host: inject faults there")
            return w
    raise ClusterLaunchError(f"no worker for node {node!r} (nodes: {', '.join(w.node for w in state.workers)})")


def _tree(pid: int | None) -> list[psutil.Process]:
    if not pid:
        return []
    try:
        proc = psutil.Process(pid)
        return [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return []


def node_processes(state: ClusterState, node: str) -> list[psutil.Process]:
    """Every live process of ``node``: its worker's tree (the worker JVM, its executors) and its zygote's."""
    w = _worker(state, node)
    return _tree(w.pid) + _tree(w.zygote_pid)


def executor_processes(state: ClusterState, node: str) -> list[psutil.Process]:
    """The node's executor JVMs (children of its worker)."""
    found = []
    for proc in _tree(_worker(state, node).pid):
        with contextlib.suppress(psutil.Error):
            if any(EXECUTOR_MAIN in part for part in proc.cmdline()):
                found.append(proc)
    return found


def kill_executors(state: ClusterState, node: str) -> int:
    """SIGKILL the node's executors (the worker stays); how many were killed. None running is an error: the fault
    would silently be no fault."""
    procs = executor_processes(state, node)
    if not procs:
        raise ClusterLaunchError(f"node {node!r} runs no executor to kill")
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    return len(procs)


def _group(state: ClusterState, node: str) -> tuple[Path, float]:
    w = _worker(state, node)
    if not w.cgroup or w.cpu_quota_cores is None:
        raise ClusterLaunchError(f"node {node!r} runs without a CPU quota ({state.cpu_quota_note or 'none set'}): "
                                 "it cannot be slowed")
    return Path(w.cgroup), w.cpu_quota_cores


def slow_node(state: ClusterState, node: str, factor: float) -> float:
    """Lower the node's CPU quota to ``factor`` (0 < factor ≤ 1) of its own; returns the cores it now has."""
    if not 0 < factor <= 1:
        raise ClusterLaunchError(f"a slow-down factor must be in (0, 1], got {factor:g}")
    group, cores = _group(state, node)
    CgroupBackend.set_quota(group, cores * factor)
    return cores * factor


def restore_node(state: ClusterState, node: str) -> None:
    """Give the node back the CPU quota `cluster up` set."""
    group, cores = _group(state, node)
    CgroupBackend.set_quota(group, cores)


def _signal_node(state: ClusterState, node: str, sig: signal.Signals) -> int:
    procs = node_processes(state, node)
    if not procs:
        raise ClusterLaunchError(f"node {node!r} has no running process")
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)
    return len(procs)


def freeze_node(state: ClusterState, node: str) -> int:
    """SIGSTOP every process of the node; how many (thaw_node undoes it)."""
    return _signal_node(state, node, signal.SIGSTOP)


def thaw_node(state: ClusterState, node: str) -> int:
    """SIGCONT every process of the node (those started while it was frozen were never stopped)."""
    return _signal_node(state, node, signal.SIGCONT)
