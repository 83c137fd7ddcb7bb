"""A plan depends on its inputs, seed and limits — not on how busy the machine is or how warm the process is.

max-throughput once gave its exact check 80 ms of wall clock counted from the start of planning (a lazy
scipy import included): in a fresh CLI process the check never ran, and beside competing load its plans
changed. Its budgets are work now (search rounds, solver nodes). These tests run the CLI in fresh processes,
idle and beside two CPU burners (as many as this project's CI machine has cores), and compare the plans;
they assert nothing about time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES = [
    # the authors' rc-s2 at k = 10: the exact neighbourhood finds the optimum (with the old 80 ms budget a warm
    # process ran the check and found it, a fresh CLI process did not: 325,150 against 312,400 tuples/s)
    ("rollingcount-authors", "nasiri-authors-rc-s2", "nasiri-authors-rc", "10"),
    # the authors' rc-s2 at k = 16: the exact neighbourhood finds a better plan than the search (HiGHS runs)
    ("rollingcount-authors", "nasiri-authors-rc-s2", "nasiri-authors-rc", "16"),
    # hetero-3's UniqueVisitor: the exact check answers "no better plan within ±3" (an infeasible MILP)
    ("uniquevisitor", "hetero-3", None, "10"),
]


def _plan(topology: str, cluster: str, profile: str | None, k: str, out: Path) -> dict:
    cmd = [sys.executable, "-c", "from streamplace.cli import main; main()", "plan", topology, cluster,
           "-s", "max-throughput", "-p", f"max_replicas={k}", "--engine", "ideal", "--json", "--out", str(out)]
    if profile:
        cmd += ["--profile", profile]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    return json.loads(out.read_text())


def _burners(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


@pytest.mark.parametrize(("topology", "cluster", "profile", "k"), CASES)
def test_the_same_plan_idle_and_beside_two_cpu_burners(tmp_path: Path, topology: str, cluster: str,
                                                        profile: str | None, k: str) -> None:
    idle = _plan(topology, cluster, profile, k, tmp_path / "idle.json")
    burners = _burners(max(2, os.cpu_count() or 2))
    try:
        loaded = _plan(topology, cluster, profile, k, tmp_path / "loaded.json")
    finally:
        for p in burners:
            p.kill()
        for p in burners:
            p.wait()
    # and the same as in a warm process, where imports are done (the old wall-clock budget ran its check only
    # there: a fresh CLI process and the library disagreed on rc-s2)
    from streamplace.bench import resolve_cluster, resolve_profile, resolve_topology
    from streamplace.schedulers import create

    args = (resolve_topology(topology), resolve_cluster(cluster), resolve_profile(profile) if profile else None)
    create("max-throughput", {"max_replicas": k}).plan(*args)  # warm-up
    warm = create("max-throughput", {"max_replicas": k}).plan(*args)
    assert {op: dict(nodes) for op, nodes in warm.replicas.items()} == idle["replicas"]
    assert idle["status"] == loaded["status"] == "ok"
    assert idle["replicas"] == loaded["replicas"]
    assert idle["source_rates"] == loaded["source_rates"]
    assert idle["gap"] == loaded["gap"]
    assert any("exact checks" in w for w in idle["warnings"])
    strip = [w.split(" branch-and-bound nodes")[0] for w in idle["warnings"]]  # solver ms differ, nodes do not
    assert strip == [w.split(" branch-and-bound nodes")[0] for w in loaded["warnings"]]
