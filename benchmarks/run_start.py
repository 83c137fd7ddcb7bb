"""How long `streamplace run` takes, on a warm emulated cluster, to finish its first pinned micro-batch.

Starts ``cluster up CLUSTER`` (CPU quotas as usual; replica slots for the plan's most replicas of one operator on a
node) unless ``--master`` names a cluster that is already up, plans ``--topology`` with ``--scheduler`` at
``--rate`` tuples/s per source into a plan file, then launches ``streamplace run TOPOLOGY CLUSTER --plan FILE
--master URL --json`` (``--duration`` 5 s after ``--warmup`` 10 s) ``--runs`` times, each with a fresh output
directory (a resumed checkpoint would start with the rate source's backlog), one after the other. From each run's
JSON it prints where the start went: before Spark (imports, plan, prediction), the Spark driver, the pinned
executors and their Python workers, the query to the end of its first micro-batch with rows, and the total from the
process's launch. Goal (issue 16, item 4): the first pinned micro-batch within 20 s of `run` on a warm cluster.

A run whose measured window held no tuple (`run` then exits 1, its JSON printed) still measured its start. A run in
which no micro-batch with rows ended at all did not: its first batch and total are said to be not measured, the
median and max are over the runs that measured them, and the goal is not measured (neither within nor outside).

Run: .venv/bin/python benchmarks/run_start.py [--cluster hetero-3] [--runs 3] [--master spark://...]
     [--duration 5] [--warmup 10] [--settle 10] [--no-jvm-archives]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_S = 20.0
PARTS = (("before_spark_s", "before Spark"), ("session_start_s", "driver"), ("executor_start_s", "executors"),
         ("first_batch_end_s", "query → 1st batch"), ("launch_to_first_batch_s", "total"))


def streamplace(*args: str) -> list[str]:
    return [sys.executable, "-m", "streamplace.cli", *args]


def plan_file(topology: str, cluster: str, scheduler: str, rate: float, path: Path) -> None:
    """The scheduler's plan, with every source at ``rate`` tuples/s (a rate the plan sustains, so the first batches
    measure the start and not a backlog)."""
    subprocess.run(streamplace("plan", topology, cluster, "-s", scheduler, "-o", str(path)), check=True,
                   stdout=subprocess.DEVNULL)
    doc = json.loads(path.read_text())
    doc["source_rates"] = {k: rate for k in doc["source_rates"]}
    path.write_text(json.dumps(doc))


def run_result(done: subprocess.CompletedProcess[str]) -> dict[str, Any] | None:
    """The run's measured figures (its ``--json`` document's), or None where the run failed. `run` exits 1 with its
    document printed when no tuple reached a sink in the measured window (a short window on a loaded machine): that
    is the window's throughput, which this benchmark does not measure, so the start it measured counts."""
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("measured"), dict):
        return None
    m: dict[str, Any] = doc["measured"]
    return m if done.returncode == 0 or (done.returncode == 1 and not m.get("throughput")) else None


def figure(m: dict[str, Any], key: str) -> float | None:
    """A start figure of a run (seconds), None where the run did not measure it (no micro-batch with rows ended)."""
    x = m.get(key)
    return float(x) if isinstance(x, int | float) and x == x else None


def run_line(i: int, m: dict[str, Any], seconds: float) -> str:
    """Run ``i``'s start, part by part; the parts after the first batch are not measured where none with rows ended
    within the run (``seconds``: its warm-up and window)."""
    parts = [f"{label} {x:.1f} s" if (x := figure(m, key)) is not None else f"{label} not measured"
             for key, label in PARTS]
    why = ("" if figure(m, "launch_to_first_batch_s") is not None else
           f" — no micro-batch with rows ended within the run's {seconds:g} s (warm-up and window); raise --warmup")
    return f"run {i}: " + ", ".join(parts) + f"{why}; executors all started: {m.get('executors_ready')}"


def summary(rows: list[dict[str, Any]], seconds: float) -> list[str]:
    """The median and max of each part over the runs that measured it, and the slowest start against the goal: not
    measured if a run's start was (its first batch may have come later than every measured one)."""
    out = [f"{'':8s}" + "".join(f"{label:>20s}" for _, label in PARTS)]
    for name, fn in (("median", statistics.median), ("max", max)):
        cells = []
        for key, _ in PARTS:
            xs = [x for m in rows if (x := figure(m, key)) is not None]
            cells.append(f"{fn(xs):20.1f}" if xs else f"{'not measured':>20s}")
        out.append(f"{name:8s}" + "".join(cells))
    totals = [figure(m, "launch_to_first_batch_s") for m in rows]
    missing = [str(i) for i, x in enumerate(totals, 1) if x is None]
    if not rows:
        out.append(f"slowest start: not measured — no run; the goal of {GOAL_S:g} s: not measured")
    elif missing:
        out.append(f"slowest start: not measured — run {', '.join(missing)} finished no micro-batch with rows within "
                   f"its {seconds:g} s; raise --warmup; the goal of {GOAL_S:g} s: not measured")
    else:
        worst = max(x for x in totals if x is not None)
        out.append(f"slowest start {worst:.1f} s: {'within' if worst < GOAL_S else 'outside'} the goal of "
                   f"{GOAL_S:g} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topology", default="nasiri-linear")
    parser.add_argument("--cluster", default="hetero-3")
    parser.add_argument("--scheduler", default="max-throughput")
    parser.add_argument("--rate", type=float, default=100.0, help="tuples/s per source")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--master", default=None, help="a cluster `cluster up` started already (else one is started)")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds the new cluster idles before the runs")
    parser.add_argument("--duration", type=float, default=5.0, help="each run's measured window, seconds")
    parser.add_argument("--warmup", type=float, default=10.0, help="each run's warm-up, seconds")
    parser.add_argument("--no-jvm-archives", action="store_true",
                        help="cluster up without the JVM class archives (no minute or two of priming; JVMs start "
                             "slower)")
    args = parser.parse_args()

    from streamplace.bench import resolve_cluster
    from streamplace.model.layout import worker_layout
    from streamplace.spark.cluster import standalone

    with tempfile.TemporaryDirectory(prefix="sp-start-") as tmp:
        plan = Path(tmp) / "plan.json"
        plan_file(args.topology, args.cluster, args.scheduler, args.rate, plan)
        state = None
        master = args.master
        if master is None:
            started = time.perf_counter()
            cluster = resolve_cluster(args.cluster)
            # room for the most replicas the plan puts of one operator on one node (max-throughput stacks more than
            # a worker's default slots: `run` refuses such a plan on a cluster started with the defaults)
            most = max(c for per in json.loads(plan.read_text())["replicas"].values() for c in per.values())
            slots = max([most] + [w.replica_slots for w in worker_layout(cluster)])
            state = standalone.up(cluster, Path(tmp) / "cluster", replica_slots=slots,
                                  jvm_archives=not args.no_jvm_archives)
            master = state.master_url
            print(f"cluster {args.cluster} up in {time.perf_counter() - started:.1f} s at {master}; "
                  + (f"CPU quota scale {state.cpu_scale:.3g}" if state.cpu_scale else state.cpu_quota_note), flush=True)
            time.sleep(args.settle)  # the workers' own start is over: a warm cluster
        try:
            rows = []
            for i in range(args.runs):
                cmd = streamplace("run", args.topology, args.cluster, "--plan", str(plan), "--master", master,
                                  "--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}", "--json", "--out",
                                  str(Path(tmp) / f"run{i}"))
                if state is not None:
                    cmd += ["--state-dir", state.state_dir]
                done = subprocess.run(cmd, capture_output=True, text=True)
                m = run_result(done)
                if m is None:
                    print(done.stderr[-3000:], file=sys.stderr)
                    raise SystemExit(f"run {i + 1} failed (exit {done.returncode})")
                rows.append(m)
                print(run_line(i + 1, m, args.warmup + args.duration), flush=True)
        finally:
            if state is not None:
                standalone.down(Path(state.state_dir))
    print(f"\n{args.topology} on {args.cluster} ({args.scheduler} plan, {args.rate:g} t/s per source), {args.runs} "
          f"runs on a warm cluster; goal: the first pinned micro-batch within {GOAL_S:g} s of `run`")
    for line in summary(rows, args.warmup + args.duration):
        print(line)


if __name__ == "__main__":
    main()
