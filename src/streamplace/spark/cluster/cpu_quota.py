"""Per-node CPU quotas for a standalone cluster emulated on one machine (Linux cgroups).

Without quotas every emulated node's worker, executors and Python workers share
all of this machine's cores, so a node of 4 cores and one of 2 differ only by
how much CPU a tuple burns there (``cost_ms / speedup``, spark/query/busy.py). With
quotas each node's processes run in a cgroup of their own whose CPU bandwidth
is the node's share of a budget of real cores:

    scale = budget / Σ_u cpu_u/100        (real cores per spec core)
    quota_u = cpu_u/100 · scale           (real cores of node u)

so the nodes' capacities (cpu points × speed-up, the speed-up still emulated by
the work per tuple) keep the spec's proportions and the whole cluster fits the
budget. The model then predicts for the cluster with every node's cpu × scale
(:func:`scaled_cluster`), which is what the quotas enforce.

cgroup v1 (``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` under the ``cpu``
hierarchy) and v2 (``cpu.max``, with ``+cpu`` in the parents'
``cgroup.subtree_control``) are both written; where neither is writable,
:func:`detect` says why and the cluster runs without quotas. A process joins
its node's group before it executes anything (:meth:`CgroupBackend.join`, run in
the child between fork and exec), so everything it starts inherits the group.
Pure planning (:func:`plan_quotas`, :func:`scaled_cluster`) is separate from the
file writes (:class:`CgroupBackend`).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster

PERIOD_US = 100_000  # the CFS period: 100 ms, the kernel's default
MIN_QUOTA_US = 1_000  # the kernel refuses quotas under 1 ms per period
#: real cores left to what runs outside the nodes' groups by default: the driver (planning, the feeder, Spark's
#: scheduler and the sink's bookkeeping) and the master
DRIVER_RESERVE_CORES = 0.5
V1_ROOT = Path("/sys/fs/cgroup/cpu")
V2_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class CpuQuotas:
    """Real cores per node, and the scale from spec cores to real cores they share."""

    budget_cores: float
    scale: float
    cores: dict[str, float]  # node id → real cores of its quota

    def quota_us(self, node: str) -> int:
        return quota_us(self.cores[node])


def quota_us(cores: float) -> int:
    """A quota of ``cores`` real cores in µs of CPU per CFS period (at least the kernel's minimum)."""
    return max(MIN_QUOTA_US, round(cores * PERIOD_US))


def default_budget(real_cores: int | None = None) -> float:
    """This machine's cores less what the driver keeps (at least half a core for the nodes)."""
    cores = real_cores or os.cpu_count() or 1
    return max(0.5, cores - DRIVER_RESERVE_CORES)


def plan_quotas(cluster: Cluster, budget_cores: float) -> CpuQuotas:
    """Each node's quota: its cpu points' share of ``budget_cores`` real cores (pure; O(nodes))."""
    if not budget_cores > 0:
        raise ModelError([Problem("cpu_budget", f"must be > 0 real cores, got {budget_cores:g}",
                                  "give the real cores the emulated nodes may use together")])
    spec_cores = float(cluster.cpu.sum()) / 100.0
    scale = budget_cores / spec_cores
    return CpuQuotas(budget_cores, scale, {n.id: n.cpu / 100.0 * scale for n in cluster.nodes})


def group_name(state_dir: Path) -> str:
    """A cgroup name for one cluster's state directory: readable, and distinct for distinct directories."""
    path = str(Path(state_dir).resolve())
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(path).name)[:40]
    return f"{stem}-{hashlib.sha1(path.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class CgroupBackend:
    """Writes CPU quota groups under ``root/streamplace`` (cgroup v1 ``cpu`` hierarchy, or v2 unified)."""

    version: Literal[1, 2]
    root: Path

    @property
    def base(self) -> Path:
        return self.root / "streamplace"

    def create(self, cluster_group: str, node_group: str, cores: float) -> Path:
        """The group for one node with a quota of ``cores`` real cores; parents made as needed."""
        quota = quota_us(cores)
        parent = self.base / cluster_group
        group = parent / node_group
        if self.version == 2:
            for level in (self.root, self.base, parent):
                level.mkdir(exist_ok=True)
                _enable_cpu(level)
            group.mkdir(exist_ok=True)
            (group / "cpu.max").write_text(f"{quota} {PERIOD_US}\n")
        else:
            group.mkdir(parents=True, exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
            (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        return group

    @staticmethod
    def set_quota(group: Path, cores: float | None) -> None:
        """Set a group's quota to ``cores`` real cores, or lift it (None: unlimited)."""
        group = Path(group)
        quota = None if cores is None else quota_us(cores)
        if (group / "cpu.max").exists():
            (group / "cpu.max").write_text(f"{'max' if quota is None else quota} {PERIOD_US}\n")
        else:
            (group / "cpu.cfs_quota_us").write_text(f"{-1 if quota is None else quota}\n")

    @staticmethod
    def join(group: Path) -> None:
        """Move the calling process into ``group`` (called in a child before exec: what it starts inherits it)."""
        (Path(group) / "cgroup.procs").write_text(f"{os.getpid()}\n")

    @staticmethod
    def quota_cores(group: Path) -> float | None:
        """The quota a group enforces now, in cores (None: unlimited or unreadable)."""
        group = Path(group)
        try:
            if (group / "cpu.max").exists():
                quota, period = (group / "cpu.max").read_text().split()[:2]
                return None if quota == "max" else int(quota) / int(period)
            quota_us = int((group / "cpu.cfs_quota_us").read_text())
            return None if quota_us < 0 else quota_us / int((group / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            return None

    def remove(self, groups: list[Path], timeout_s: float = 10.0) -> list[str]:
        """Remove the node groups and their cluster's parent once their processes are gone; what could not be."""
        left = []
        parents = {Path(g).parent for g in groups}
        for group in [Path(g) for g in groups] + sorted(parents):
            deadline = time.monotonic() + timeout_s
            while group.exists():
                try:
                    group.rmdir()
                except OSError as exc:  # EBUSY while an exiting executor still counts as a member
                    if time.monotonic() > deadline:
                        left.append(f"{group}: {exc.strerror}")
                        break
                    time.sleep(0.2)
        return left


def _enable_cpu(level: Path) -> None:
    control = level / "cgroup.subtree_control"
    if "cpu" not in control.read_text().split():
        control.write_text("+cpu\n")


def detect(v1_root: Path = V1_ROOT, v2_root: Path = V2_ROOT) -> CgroupBackend | str:
    """The cgroup interface this process can write CPU quotas with, or why there is none."""
    if (v1_root / "cgroup.procs").exists() and (v1_root / "cpu.cfs_quota_us").exists():
        if os.access(v1_root, os.W_OK):
            return CgroupBackend(1, v1_root)
        return f"cgroup v1 cpu hierarchy {v1_root} is not writable by this user (run as root to enforce quotas)"
    controllers = v2_root / "cgroup.controllers"
    if controllers.exists():
        if "cpu" not in controllers.read_text().split():
            return f"the cgroup v2 hierarchy at {v2_root} offers no cpu controller"
        if os.access(v2_root, os.W_OK) and os.access(v2_root / "cgroup.subtree_control", os.W_OK):
            return CgroupBackend(2, v2_root)
        return f"cgroup v2 at {v2_root} is not writable by this user (run as root, or delegate a subtree)"
    return f"no cgroup CPU controller found at {v1_root} or {v2_root}"
