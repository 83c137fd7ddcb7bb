"""How long `streamplace run` takes, on a warm emulated cluster, to finish its first pinned micro-batch.

Starts ``cluster up CLUSTER`` (CPU quotas as usual; replica slots for the plan's most replicas of one operator on a
node) unless ``--master`` names a cluster that is already up, plans ``--topology`` with ``--scheduler`` at
``--rate`` tuples/s per source into a plan file, then launches ``streamplace run TOPOLOGY CLUSTER --plan FILE
--master URL --json`` (``--duration`` 5 s after ``--warmup`` 10 s) ``--runs`` times, each with a fresh output
directory (a resumed checkpoint would start with the rate source's backlog), one after the other. From each run's
JSON it prints where the start went: before Spark (imports, plan, prediction), the Spark driver, the pinned
executors and their Python workers, the query to the end of its first micro-batch with rows, and the total from the
process's launch. Goal (issue 16, item 4): the first pinned micro-batch within 20 s of `run` on a warm cluster.

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
    from streamplace.spark.cluster import standalone
    from streamplace.spark.runtime.layout import worker_layout

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
                if done.returncode != 0:
                    print(done.stderr[-3000:], file=sys.stderr)
                    raise SystemExit(f"run {i + 1} failed (exit {done.returncode})")
                m = json.loads(done.stdout)["measured"]
                rows.append(m)
                print(f"run {i + 1}: " + ", ".join(f"{label} {m.get(key, float('nan')):.1f} s" for key, label in PARTS)
                      + f"; executors all started: {m.get('executors_ready')}", flush=True)
        finally:
            if state is not None:
                standalone.down(Path(state.state_dir))
    print(f"\n{args.topology} on {args.cluster} ({args.scheduler} plan, {args.rate:g} t/s per source), {args.runs} "
          f"runs on a warm cluster; goal: the first pinned micro-batch within {GOAL_S:g} s of `run`")
    header = "".join(f"{label:>20s}" for _, label in PARTS)
    print(f"{'':8s}{header}")
    for name, fn in (("median", statistics.median), ("max", max)):
        print(f"{name:8s}" + "".join(f"{fn(m.get(k, float('nan')) for m in rows):20.1f}" for k, _ in PARTS))
    worst = max(m.get("launch_to_first_batch_s", float("inf")) for m in rows)
    print(f"slowest start {worst:.1f} s: {'within' if worst < GOAL_S else 'outside'} the goal of {GOAL_S:g} s")


if __name__ == "__main__":
    main()
