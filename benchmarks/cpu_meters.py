"""The CPU meters of the CPU-prediction checks (cpu_prediction.py, cpu_prediction_real.py): the paper's collector
tool on the emulated cluster — per node the cgroup's CPU seconds and the JVM / Python split, sampled over a run —
and the teardown both checks share. A helper module, imported, not run."""

from __future__ import annotations

import contextlib
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from streamplace.spark.cluster import standalone
from streamplace.spark.cluster.cpu_quota import V1_ROOT
from streamplace.spark.cluster.state import ClusterState

FLAG = Path("/tmp/streamplace-measuring")
CPUACCT_ROOT = Path("/sys/fs/cgroup/cpuacct")


# ----------------------------------------------------------------------------------------------- CPU meters
@dataclass
class NodeMeter:
    """One emulated node's CPU counters: the cgroup total (all its processes, the paper's collector tool) and, for
    the split, the process trees under its worker JVM and its Python zygote."""

    node: str
    cpu_group: Path | None  # the node's cpu (quota) group
    usage: Path | None  # cpuacct.usage (ns) or cpu.stat (usage_usec)
    made: Path | None  # a cpuacct group this script made (removed at the end)
    roots: tuple[int, ...]  # worker and zygote pids

    def sync(self) -> None:
        """Move the cpu group's processes not yet in our cpuacct group there (cgroup v1; what they start later
        inherits the group, so this is needed once, and is cheap to repeat)."""
        if self.made is None or self.cpu_group is None:
            return
        inside = set((self.made / "cgroup.procs").read_text().split())
        for pid in (self.cpu_group / "cgroup.procs").read_text().split():
            if pid not in inside:
                with contextlib.suppress(OSError):  # gone meanwhile
                    (self.made / "cgroup.procs").write_text(f"{pid}\n")

    def total_s(self) -> float:
        """CPU seconds the node's processes used so far (cgroup); NaN without a cgroup."""
        if self.usage is None:
            return math.nan
        text = self.usage.read_text()
        if self.usage.name == "cpu.stat":
            fields = dict(line.split() for line in text.splitlines() if line.strip())
            return int(fields["usage_usec"]) / 1e6
        return int(text) / 1e9

    def split_s(self) -> tuple[float, float]:
        """CPU seconds so far of the JVMs and of the Python processes under the node's roots (children that
        ended and were reaped included)."""
        java = py = 0.0
        seen: set[int] = set()
        for root in self.roots:
            with contextlib.suppress(psutil.Error):
                top = psutil.Process(root)
                for proc in [top, *top.children(recursive=True)]:
                    if proc.pid in seen:
                        continue
                    seen.add(proc.pid)
                    with contextlib.suppress(psutil.Error):
                        t = proc.cpu_times()
                        busy = t.user + t.system + t.children_user + t.children_system
                        if "java" in proc.name():
                            java += busy
                        else:
                            py += busy
        return java, py


def attach_meters(state: ClusterState) -> dict[str, NodeMeter]:
    """A meter per node: a cpuacct group mirroring its cpu group (v1), or its v2 group's own cpu.stat."""
    meters = {}
    for w in state.workers:
        roots = tuple(p for p in (w.pid, w.zygote_pid) if p)
        group = Path(w.cgroup) if w.cgroup else None
        usage = made = None
        if group is not None and state.cgroup_version == 2:
            usage = group / "cpu.stat"
        elif group is not None and CPUACCT_ROOT.exists():
            made = CPUACCT_ROOT / group.relative_to(V1_ROOT)
            made.mkdir(parents=True, exist_ok=True)
            usage = made / "cpuacct.usage"
        meter = NodeMeter(w.node, group, usage, made, roots)
        meter.sync()
        meters[w.node] = meter
    return meters


def tear_down(spark: Any, sampler: Sampler | None, state: Any, meters: dict[str, NodeMeter]) -> None:
    """What a run leaves, undone in order whatever failed: the Spark session, the sampler, the cluster, the meters'
    cgroups and the flag file; a cgroup that could not be removed is said."""
    if spark is not None:
        with contextlib.suppress(Exception):
            spark.stop()
    if sampler is not None:
        sampler.stop()
    if state is not None:
        stopped = standalone.down(Path(state.state_dir))
        left = remove_meters(meters)
        if left or any(s.startswith("(cgroup left") for s in stopped):
            print("left behind:", left, [s for s in stopped if s.startswith("(")])
    FLAG.unlink(missing_ok=True)


def remove_meters(meters: dict[str, NodeMeter], timeout_s: float = 15.0) -> list[str]:
    """Remove the cpuacct groups made here (their processes must have ended), then their empty parents."""
    left = []
    made = [m.made for m in meters.values() if m.made is not None]
    parents = sorted({p for g in made for p in g.parents if p != CPUACCT_ROOT and CPUACCT_ROOT in p.parents},
                     key=lambda p: -len(p.parts))
    for group in made + parents:
        deadline = time.monotonic() + timeout_s
        while group.exists():
            try:
                group.rmdir()
            except OSError as exc:  # EBUSY: a process is still exiting, or (parents) another cluster's groups
                if group in parents and exc.errno != 16:
                    break
                if time.monotonic() > deadline:
                    left.append(f"{group}: {exc.strerror}")
                    break
                time.sleep(0.2)
    return left


class Sampler:
    """Every ``period_s``: wall time (epoch) and, per node, the cgroup's CPU seconds and the JVM / Python split."""

    def __init__(self, meters: dict[str, NodeMeter], period_s: float = 0.25) -> None:
        self.meters, self.period_s = meters, period_s
        self.samples: list[tuple[float, dict[str, tuple[float, float, float]]]] = []
        self.lock, self.done = threading.Lock(), threading.Event()
        self.thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)
        self.thread.start()

    def _take(self) -> None:
        row = {n: (m.total_s(), *m.split_s()) for n, m in self.meters.items()}
        with self.lock:
            self.samples.append((time.time(), row))

    def _run(self) -> None:
        while True:
            self._take()
            if self.done.wait(self.period_s):
                return

    def stop(self) -> None:
        self.done.set()
        self.thread.join()

    def at(self, t: float, node: str) -> np.ndarray:
        """The node's (cgroup, JVM, Python) CPU seconds at epoch time ``t``, linearly between samples."""
        with self.lock:
            samples = list(self.samples)
        times = np.array([s[0] for s in samples])
        values = np.array([s[1][node] for s in samples])
        return np.array([np.interp(t, times, values[:, k]) for k in range(values.shape[1])])

    def cores(self, node: str, t0: float, t1: float) -> np.ndarray:
        """Mean real cores over [t0, t1]: cgroup, JVM, Python."""
        return (self.at(t1, node) - self.at(t0, node)) / max(t1 - t0, 1e-9)

    def wait_past(self, t: float, timeout_s: float = 5.0) -> None:
        """Until a sample later than ``t`` exists (so ``at(t)`` interpolates rather than extrapolates)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                if self.samples and self.samples[-1][0] > t:
                    return
            time.sleep(0.05)
