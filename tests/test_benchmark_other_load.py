"""benchmarks/autoscale.py's OtherLoad: the CPU of processes outside a run is counted, the run's own is not.

Each busy process burns a fixed amount of CPU time (not of wall time) and then stays alive for a sample, so the
figures hold on a loaded machine too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.scripts import load_script

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
BURN = ("import time\nwhile time.process_time() < 0.6: pass\ntime.sleep(6)\n")


def test_other_processes_cpu_is_counted_and_the_runs_own_is_not(tmp_path: Path) -> None:
    OtherLoad = load_script(BENCHMARKS / "autoscale.py", "autoscale_benchmark", siblings=True).OtherLoad
    ours = subprocess.Popen([sys.executable, "-c", "import subprocess, sys\n"
                             f"subprocess.run([sys.executable, '-c', {BURN!r}])"])
    with OtherLoad(ours.pid, tmp_path / "no-cluster") as load:
        other = subprocess.Popen([sys.executable, "-c", BURN])
        other.wait(timeout=300)
        ours.wait(timeout=300)
    by_us = [p for p, mine in load.ours.items() if mine and load.last[p] - load.first[p] >= 0.5]
    assert by_us, "the run's grandchild (descended from its root process) is the run's"
    assert load.ours[other.pid] is False
    assert load.last[other.pid] - load.first[other.pid] >= 0.5
    assert load.cores() > 0.0
