"""Per-node CPU quotas for the emulated standalone cluster: the plan of quotas (pure), the cgroup files written
(v1 and v2, on a fake hierarchy), and — where this machine lets us — a real group capping a busy process."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from streamplace.bench import resolve_cluster
from streamplace.errors import ModelError
from streamplace.model.cluster import scaled_cluster
from streamplace.spark.cluster.cpu_quota import (
    PERIOD_US,
    CgroupBackend,
    default_budget,
    detect,
    group_name,
    plan_quotas,
)


def test_quotas_keep_the_specs_proportions_and_fit_the_budget() -> None:
    cluster = resolve_cluster("hetero-3")  # 200, 400, 400 cpu points
    q = plan_quotas(cluster, 1.5)
    assert q.scale == pytest.approx(1.5 / 10.0)
    assert q.cores == pytest.approx({"pentium-1": 0.3, "core-i3-1": 0.6, "core-i5-1": 0.6})
    assert sum(q.cores.values()) == pytest.approx(1.5)
    assert q.quota_us("core-i3-1") == round(0.6 * PERIOD_US)
    scaled = scaled_cluster(cluster, q.scale)
    assert [n.cpu for n in scaled.nodes] == pytest.approx([30.0, 60.0, 60.0])
    assert [n.speedup for n in scaled.nodes] == [n.speedup for n in cluster.nodes]  # speed stays emulated per tuple
    assert default_budget(2) == 1.5 and default_budget(1) == 0.5
    with pytest.raises(ModelError, match="cpu_budget"):
        plan_quotas(cluster, 0.0)


def test_the_prediction_of_a_quota_cluster_scales_with_it() -> None:
    """What `run --master` predicts under quotas: the model on the scaled cluster, whose sustainable throughput of a
    CPU-bound plan falls with the scale."""
    from streamplace.bench import resolve_topology
    from streamplace.perf import evaluate
    from streamplace.schedulers import create

    topo, cluster = resolve_topology("nasiri-linear"), resolve_cluster("hetero-3")
    plan = create("hetero").plan(topo, cluster)
    full = evaluate(topo, cluster, plan).predicted()["throughput"]
    quarter = evaluate(topo, scaled_cluster(cluster, 0.25), plan).predicted()["throughput"]
    assert quarter < 0.5 * full


def test_cgroup_files_written_for_v1_and_v2(tmp_path: Path) -> None:
    v1 = CgroupBackend(1, tmp_path / "v1")
    (tmp_path / "v1").mkdir()
    g = v1.create("c-1234", "sp_a", 0.25)
    assert (g / "cpu.cfs_quota_us").read_text().strip() == "25000"
    assert (g / "cpu.cfs_period_us").read_text().strip() == str(PERIOD_US)
    assert CgroupBackend.quota_cores(g) == pytest.approx(0.25)
    root = tmp_path / "v2"
    root.mkdir()
    (root / "cgroup.subtree_control").write_text("")
    for level in (root / "streamplace", root / "streamplace" / "c-1234"):  # the kernel creates these files
        level.mkdir(parents=True)
        (level / "cgroup.subtree_control").write_text("")
    g2 = CgroupBackend(2, root).create("c-1234", "sp_b", 1.5)
    assert (g2 / "cpu.max").read_text().split() == ["150000", str(PERIOD_US)]
    assert (root / "cgroup.subtree_control").read_text().strip() == "+cpu"  # the controller enabled down the path
    assert CgroupBackend.quota_cores(g2) == pytest.approx(1.5)
    for group in (g, g2):  # run lifts the quotas for the start and sets them again after the first batch
        CgroupBackend.set_quota(group, None)
        assert CgroupBackend.quota_cores(group) is None
        CgroupBackend.set_quota(group, 0.4)
        assert CgroupBackend.quota_cores(group) == pytest.approx(0.4)
    assert group_name(tmp_path / "a") != group_name(tmp_path / "b")


def test_detect_says_why_without_cgroups(tmp_path: Path) -> None:
    reason = detect(tmp_path / "none", tmp_path / "none2")
    assert isinstance(reason, str) and "no cgroup CPU controller" in reason
    (tmp_path / "v2").mkdir()
    (tmp_path / "v2" / "cgroup.controllers").write_text("memory io\n")
    assert "no cpu controller" in str(detect(tmp_path / "none", tmp_path / "v2"))


def _writable_backend() -> CgroupBackend | None:
    found = detect()
    return found if isinstance(found, CgroupBackend) else None


@pytest.mark.skipif(_writable_backend() is None, reason="cgroups not writable here")
def test_a_real_group_caps_a_process_and_what_it_starts() -> None:
    """A process started the way cluster up starts a worker joins its node's group before exec; it and its child,
    both spinning, get at most the quota between them (an upper bound that a loaded machine only lowers)."""
    from streamplace.spark.cluster.standalone import _spawn

    backend = _writable_backend()
    assert backend is not None
    group = backend.create(f"pytest-{os.getpid()}", "sp_node", 0.2)
    spin = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'while True: pass']); "
            "exec('while True: pass')")
    log = Path(f"/tmp/sp-quota-{os.getpid()}.log")
    pid = _spawn([sys.executable, "-c", spin], dict(os.environ), log, group)
    proc = psutil.Process(pid)
    try:
        time.sleep(0.5)
        tree = [proc, *proc.children(recursive=True)]
        assert len(tree) == 2
        members = {int(x) for x in (group / "cgroup.procs").read_text().split()}
        assert {p.pid for p in tree} <= members  # the child inherited the group
        before = sum(sum(p.cpu_times()[:2]) for p in tree)
        t0 = time.monotonic()
        time.sleep(3.0)
        used = sum(sum(p.cpu_times()[:2]) for p in tree) - before
        elapsed = time.monotonic() - t0
        assert used <= 0.2 * elapsed * 1.25 + 0.05  # two spinning processes would take 2 cores without the quota
    finally:
        for p in [proc, *proc.children(recursive=True)]:
            p.kill()
        psutil.wait_procs([proc], timeout=5)
        assert backend.remove([group]) == []
        log.unlink(missing_ok=True)
    assert not group.exists() and not group.parent.exists()
