"""Plans measured on an emulated heterogeneous standalone cluster, beside the spark engine's prediction.

For each cluster (default hetero-3 and hetero-6) it starts ``cluster up`` with
per-node CPU quotas (cgroups: each node's worker, executors and Python workers
get the node's share of this machine's cores, scale printed) and runs
``--topology`` under the plans of hetero, round robin and R-Storm (both with
hetero's replica counts, as Nasiri et al. compare), optimal and max-throughput,
back to back, each placed by the plan (``--placements plan``) and by Spark's own
scheduler with the plan's replica counts (``spark``, the baseline). A placed
replica runs on its planned worker; every replica burns cost_ms / speed-up of
the CPU of the node it runs on per tuple. ``--fixed`` measures each plan's
fixed cost per batch instead: batches of one row per source back to back, the
median batch time of the window beside the model's F (goal, issue 36: at most
0.5 s on hetero-6).

Measured capacity: fixed micro-batches of R rows run back to back (Spark's
rate-micro-batch source), capacity = rows over the execution time of the batches
that ended in the measured window (``--duration`` after ``--warmup``; the nodes'
CPU quotas are lifted until the warm-up ends, so their JVMs have compiled their
hot code), from Spark's progress reports. Predicted: the spark
engine on the cluster scaled to the quotas, the same R rows per batch: R over
the model's batch time. R = the model's sustainable throughput × ``--batch-s``
(the same for every plan of a cluster: the largest plan's). Goal (issue 16):
every plan within 25 % of its prediction, and the measured ranking equal to
the predicted one. A window in which no micro-batch with rows ended (a short
window on a loaded machine) measures no capacity: the plan's capacity, its ratio,
the ranking and the comparison with Spark's scheduling say not measured (they
printed "nan t/s" and ranked it).

Run: .venv/bin/python benchmarks/standalone_hetero.py [--clusters hetero-3,hetero-6] [--warmup 40] [--duration 60]
     [--plans hetero,...] [--planner library|cli] [--placements plan,spark] [--fixed] [--no-jvm-archives]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from streamplace import api
from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.model.cluster import Cluster, scaled_cluster
from streamplace.model.layout import spark_spread, worker_layout
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf import evaluate
from streamplace.perf.engines import EngineSettings
from streamplace.schedulers import create
from streamplace.spark.cluster import standalone
from streamplace.spark.cluster.connect import app_conf
from streamplace.spark.cluster.state import lift_cpu_quotas
from streamplace.spark.query.pipeline import PipelineConfig
from streamplace.spark.runtime.run import run_pipeline
from streamplace.spark.runtime.session import local_session

GOAL = 0.25
FIXED_GOAL_S = 0.5  # issue 36: a placed batch's fixed cost on the emulated hetero-6


def make_plans(topo: Topology, cluster: Cluster) -> dict[str, Plan]:
    het = create("hetero").plan(topo, cluster)
    same_graph = topo.with_replicas(het.counts())
    return {"hetero": het, "round-robin": create("round-robin").plan(same_graph, cluster),
            "r-storm": create("r-storm").plan(same_graph, cluster),
            "optimal": create("optimal", {"time_limit_s": "20"}).plan(topo, cluster),
            "max-throughput": create("max-throughput").plan(topo, cluster)}


def cli_plans(topo: Topology, cluster: Cluster, names: list[str]) -> dict[str, Plan]:
    """Each scheduler's plan as ``streamplace plan -s NAME`` makes it (the spark engine, the topology's own rates):
    the plans ``run`` enacts, which stack more replicas per node (max-throughput's 34 on hetero-3, 16-18 per node)
    than the library's defaults above. Plans that place the same replicas on the same nodes are kept once."""
    plans: dict[str, Plan] = {}
    for name in names:
        made = api.plan(topo, cluster, name)
        same = [k for k, p in plans.items() if p.replicas == made.replicas]
        if same:
            print(f"  {name}: the same placement as {same[0]}; measured once", flush=True)
            continue
        plans[name] = made
    return plans


def predicted_capacity(topo: Topology, cluster: Cluster, plan: Plan, rows: float, eng: EngineSettings) -> float:
    """Rows per second of back-to-back batches of ``rows`` rows, by the spark engine: rows over its batch time."""
    long_s = 100.0  # one batch of ``rows`` rows: a trigger far longer than the batch, the source rate rows/trigger
    at = plan.evolve(source_rates={s.id: rows / long_s / len(topo.sources) for s in topo.sources})
    detail = evaluate(topo, cluster, at, engine=eng.with_params({"spark.trigger_s": long_s}, "bench")).engine_detail
    batch_s = float(detail.get("batch_s") or float("nan"))
    return rows / batch_s


def measure(state: Any, topo: Topology, cluster: Cluster, plan: Plan, rows: float, args: argparse.Namespace,
            out: Path, placement: str = "plan", expected: Plan | None = None) -> dict:
    """One plan's run; ``expected``: the replicas' nodes to compare where tuples ran with (default: the plan's;
    under Spark's placement, its predicted spread)."""
    plan = plan.evolve(source_rates={s.id: max(1.0, rows / len(topo.sources)) for s in topo.sources})
    conf = app_conf(state)
    if args.executor_java_opts is not None:
        conf["spark.executor.extraJavaOptions"] = args.executor_java_opts
    if args.driver_java_opts is not None:
        conf["spark.driver.extraJavaOptions"] = args.driver_java_opts
    # as `run` does, the quotas are lifted for the start; here they stay lifted through the warm-up (--warm-quota:
    # set again after the first batch, as `run` does): an executor JVM on a node of a tenth of a core takes minutes
    # of batches to compile its hot code, and batches were still 15-25 % faster at the end of a 150 s run than at
    # its start; lifted, it gets there within the warm-up and the window measures the steady state
    boost = None if args.no_start_boost else lift_cpu_quotas(state)
    spark = local_session(master=state.master_url, conf=conf)
    cfg = PipelineConfig(sink="noop", out_dir=out, workers=state.layout(), trigger_s=0, batch_s=1.0,
                         link_latency_ms=standalone.emulated_links(state, cluster),
                         placement=placement)  # type: ignore[arg-type]
    started = time.monotonic()
    sampler = CpuSampler(state) if args.verbose else None
    res = run_pipeline(spark, topo, cluster, plan, args.duration, warmup_s=args.warmup, cfg=cfg,
                       after_first_batch=boost if args.warm_quota else None,
                       after_warmup=None if args.warm_quota else boost)
    if sampler is not None:
        print("    real cores used in the last", f"{args.duration:g} s by node (JVMs / Python workers / quota):",
              sampler.stop(args.duration))
    if args.stages:
        print(stage_report(spark, args.duration, res.series))
    spark.stop()
    done = [b for b in res.series if b["input_rows"] > 0]
    window = set(res.measured.get("window_batches") or [])
    if args.verbose:
        times = [f"{b['duration_ms'].get('triggerExecution', 0) / 1000:.1f}" for b in done]
        opens = next((i for i, b in enumerate(done) if b["batch_id"] in window), None)
        if opens is not None:
            times[opens] = "|" + times[opens]
        print("    batch s (| the window):", " ".join(times))
    first = done[0]["duration_ms"].get("triggerExecution", 0) / 1000 if done else None
    done = [b for b in done if b["batch_id"] in window]
    busy_s = sum(b["duration_ms"].get("triggerExecution", 0) for b in done) / 1000
    # the rows of each batch are what the source was told (rowsPerBatch): Spark's numInputRows counts a source read
    # by several stages (a source with replicas on two nodes) once per read; None: no batch with rows ended in the
    # window, nothing measured
    capacity = rows * len(done) / busy_s if busy_s > 0 else None
    if args.verbose and done:
        print(f"    numInputRows per batch / rowsPerBatch: {statistics.mean(b['input_rows'] for b in done) / rows:.2f}")
    placed = {op: set(by_node) for op, by_node in res.placement.items()}
    plan = expected or plan
    times = sorted(b["duration_ms"].get("triggerExecution", 0) / 1000 for b in done)
    # no tuple ran anywhere (no batch with rows ended in the run): where tuples ran is not measured, not off the plan
    ran = any(v.get("tuples") for by_node in res.placement.values() for v in by_node.values())
    return {"capacity": capacity, "batches": len(done), "first_batch_s": first,
            "median_batch_s": times[len(times) // 2] if times else None,
            "executor_start_s": res.measured.get("executor_start_s"), "wall_s": time.monotonic() - started,
            "on_plan": all(placed.get(op, set()) == {n for n, c in per.items() if c > 0}
                       for op, per in plan.replicas.items()) if ran else None,
            "nodes_used": len({n for per in placed.values() for n in per})}


def seconds(x: float | None, spec: str) -> str:
    """``x`` seconds with ``spec`` and the unit, or "not measured" (no batch to take it from)."""
    return f"{x:{spec}} s" if x is not None else "not measured"


def run_line(label: str, pred: float, fixed: float, got: dict, args: argparse.Namespace) -> str:
    """One plan's run: capacity predicted and measured (or not measured, and why), its batches and placement."""
    if got["capacity"] is not None:
        said = (f"measured {got['capacity']:.1f} t/s over {got['batches']} batches (median "
                f"{seconds(got['median_batch_s'], '.2f')}, ")
    else:
        said = (f"measured: not measured — no micro-batch with rows ended in the {args.duration:g} s window; raise "
                "--duration (")
    on_plan = "not measured (no tuple ran)" if got["on_plan"] is None else got["on_plan"]
    return (f"  {label}: predicted {pred:.1f} t/s, {said}model's F {fixed:.2f} s; first "
            f"{seconds(got['first_batch_s'], '.1f')}, executors {got['executor_start_s'] or 0:.0f} s, every tuple "
            f"on plan: {on_plan}, nodes used {got['nodes_used']})")


def tree_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds so far of the JVMs and of the Python processes in the process tree under ``pid`` (itself
    included); (0, 0) once it is gone."""
    import psutil

    java = py = 0.0
    with contextlib.suppress(psutil.Error):
        root = psutil.Process(pid)
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                t = proc.cpu_times()
                busy = t.user + t.system + t.children_user + t.children_system
                if "java" in proc.name():
                    java += busy
                elif "python" in proc.name():
                    py += busy
    return java, py


class CpuSampler:
    """Every 2 s, per node: CPU seconds of the JVMs (worker daemon, executors) and of the Python workers under its
    worker process — where a node's quota goes (diagnostic, --verbose)."""

    def __init__(self, state: Any) -> None:
        import threading

        self.state, self.done = state, threading.Event()
        self.samples: list[tuple[float, dict[str, tuple[float, float]]]] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import os

        while not self.done.wait(2.0):
            row = {w.node: tree_cpu(w.pid) for w in self.state.workers}
            row["driver"] = tree_cpu(os.getpid())  # this process (Python) and its JVM
            self.samples.append((time.monotonic(), row))

    def stop(self, window_s: float) -> str:
        self.done.set()
        self.thread.join()
        if len(self.samples) < 2:
            return "no samples"
        end_t, end = self.samples[-1]
        start_t, start = min(self.samples, key=lambda s: abs(s[0] - (end_t - window_s)))
        span = max(end_t - start_t, 1e-9)
        quota = {w.node: w.cpu_quota_cores for w in self.state.workers} | {"driver": None}
        return ", ".join(f"{n} {(end[n][0] - start[n][0]) / span:.2f} / {(end[n][1] - start[n][1]) / span:.2f} / "
                         f"{quota[n] or 0:.2f}" for n in end if n in start)


def stage_report(spark: Any, window_s: float, series: list[dict]) -> str:
    """Diagnostic (--stages): the stages that completed in the last ``window_s`` seconds, per number of tasks
    and kind — those reading a shuffle (an operator's stage) and those reading none (a source, a re-read of a
    persisted output) — with tasks, summed task run and CPU seconds per batch, from Spark's status store."""
    sc = spark.sparkContext
    store = sc._jsc.sc().statusStore()
    stages = store.stageList(None, False, False, getattr(store, "stageList$default$4")(), None)
    rows = []
    for i in range(stages.size()):
        st = stages.apply(i)
        if str(st.status()) != "COMPLETE" or st.completionTime().isEmpty():
            continue
        rows.append((st.completionTime().get().getTime() / 1000.0, f"{st.numTasks()} tasks",
                     "shuffle-in" if st.shuffleReadRecords() > 0 else "no-shuffle-in", st.numTasks(),
                     st.executorRunTime() / 1000.0, st.executorCpuTime() / 1e9,
                     st.submissionTime().get().getTime() / 1000.0 if st.submissionTime().isDefined() else 0.0))
    if not rows:
        return "    stages: none recorded"
    end = max(r[0] for r in rows)
    agg: dict[tuple[str, str], list[float]] = {}
    for t, node, kind, tasks, run_s, cpu_s, _ in rows:
        if t >= end - window_s:
            a = agg.setdefault((node, kind), [0, 0, 0.0, 0.0])
            a[0] += 1
            a[1] += tasks
            a[2] += run_s
            a[3] += cpu_s
    from datetime import datetime

    with_rows = [b for b in series if b["input_rows"] > 0]
    ends = [datetime.fromisoformat(b["timestamp"]).timestamp() + b["duration_ms"].get("triggerExecution", 0) / 1000
            for b in with_rows]
    n = sum(1 for e in ends if e >= end - window_s)
    if with_rows:
        last = with_rows[-1]
        b0 = datetime.fromisoformat(last["timestamp"]).timestamp()
        b1 = b0 + last["duration_ms"].get("triggerExecution", 0) / 1000
        timeline = sorted((r[6] - b0, r[0] - b0, r[1], r[2], r[3], r[4]) for r in rows if b0 <= r[6] and r[0] <= b1)
        lines = [f"    the last batch ({b1 - b0:.1f} s, durations {last['duration_ms']}): stage submitted, completed "
                 "(s from the batch's start), node, kind, tasks, task run s"]
        lines += [f"      {a:6.2f} {c:6.2f} {node:10s} {kind:14s} {tasks:3d} {run_s:7.3f}"
                  for a, c, node, kind, tasks, run_s in timeline]
    else:  # the [-1] of no batch raised IndexError
        lines = ["    the last batch: not measured — no micro-batch with rows ended in the run; raise --duration"]
    if n:
        lines.append(f"    stages per batch (node kind: stages, tasks, task run s, task CPU s), over ~{n} batches:")
    else:  # per batch over no batch would be the totals under another name
        lines.append(f"    stages per batch: not measured — no micro-batch with rows ended in the last {window_s:g} s; "
                     "their totals (node kind: stages, tasks, task run s, task CPU s):")
    per = max(n, 1)
    lines += [f"      {node:10s} {kind:14s} {a[0] / per:6.1f} {a[1] / per:7.1f} {a[2] / per:8.3f} {a[3] / per:8.3f}"
              for (node, kind), a in sorted(agg.items())]
    return "\n".join(lines)


#: the grid fit_fixed searches: per stage level (stage_s), per wave of tasks (task_s), and the CPU a stage's set-up
#: (stage_cpu_s) and a task (task_cpu_s) take on each node, stretched by 1 / speed on a fractional node
FIT_GRID = {"stage_s": (0.0, 0.01, 0.024, 0.034), "task_s": (0.0, 0.007, 0.02, 0.078),
            "stage_cpu_s": (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.073),
            "task_cpu_s": (0.0, 0.002, 0.005, 0.007)}  # the model caps task_cpu_s at task_s (all of it CPU)


def fit_fixed(topo: Topology, eng: EngineSettings, runs: list[dict]) -> str:
    """The spark engine's fixed-cost constants (FIT_GRID) that bring the model's F closest to the measured medians
    of ``runs`` (least squares of log F_model / F_measured), with each plan's F under them: what a calibration of
    the emulated cluster takes from this measurement (``run -p spark.KEY=VALUE`` applies it). Two fits: all four
    free, and only the CPU pair (stage_cpu_s, task_cpu_s) with stage_s and task_s as the engine has them (what
    `calibrate` measures on full cores). O(grid × runs) evaluations, ~3 ms each."""
    import itertools

    import numpy as np

    unmeasured = len([g for g in runs if g["median_batch_s"] is None])
    runs = [g for g in runs if g["median_batch_s"] is not None]  # a run with no batch in its window has no F
    measured = np.array([g["median_batch_s"] for g in runs])
    if not len(measured):
        return (f"fit: not measured — none of the {unmeasured} runs had a batch in its window; raise --duration"
                if unmeasured else "fit: no runs")
    consts = eng.spark.constants
    grid = {k: tuple(sorted({*v, getattr(consts, k)})) for k, v in FIT_GRID.items()}
    scored = []
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values, strict=True))
        e = eng.with_params({f"spark.{k}": v for k, v in params.items()}, "fit")
        model = [evaluate(topo, *g["model_inputs"], engine=e).engine_detail["batch_fixed_s"] for g in runs]
        scored.append((float(np.sum(np.log(np.array(model) / measured) ** 2)), params, model))

    def said(best: tuple[float, dict[str, float], list[float]]) -> str:
        ratios = ", ".join(f"{m / x:.2f}" for m, x in zip(best[2], measured, strict=True))
        return f"{' '.join(f'-p spark.{k}={v:g}' for k, v in best[1].items())}; model F / measured: {ratios}"

    free = min(scored, key=lambda t: t[0])
    held = min((t for t in scored if t[1]["stage_s"] == consts.stage_s and t[1]["task_s"] == consts.task_s),
               key=lambda t: t[0])
    now = ", ".join(f"{k} {getattr(consts, k)}" for k in FIT_GRID)
    skipped = f", {unmeasured} not measured left out" if unmeasured else ""
    return (f"fit over {len(runs)} runs{skipped} (now {now}):\n    all four free: {said(free)}\n"
            f"    CPU pair only: {said(held)}")


def save_runs(path: Path, runs: list[tuple[str, str, dict]]) -> None:
    """The --fixed runs as JSON (cluster, label, the cluster as the quotas enforced it, the plan, the measured median
    batch, the model's F then), so that runs of several invocations can be fitted together (``--fit-runs``)."""
    rows = [{"cluster": name, "label": label, "node_cpu": [n.cpu for n in got["model_inputs"][0].nodes],
             "plan": got["model_inputs"][1].to_dict(), "median_batch_s": got["median_batch_s"],
             "fixed_predicted_s": got["fixed_predicted_s"]} for name, label, got in runs]
    path.write_text(json.dumps(rows, indent=1, default=str))
    print(f"runs written to {path}")


def load_runs(paths: list[Path]) -> list[dict]:
    """The runs ``save_runs`` wrote, as fit_fixed takes them: each plan on its cluster scaled by the run's quotas
    (rebuilt from the built-in cluster, scaled by the same factor, and checked against what was written)."""
    runs = []
    for path in paths:
        for row in json.loads(path.read_text()):
            written = row["node_cpu"]
            base = resolve_cluster(row["cluster"])
            scaled = scaled_cluster(base, written[0] / base.nodes[0].cpu)
            if [round(n.cpu, 6) for n in scaled.nodes] != [round(cpu, 6) for cpu in written]:
                raise SystemExit(f"{path}: {row['label']} on {row['cluster']}: the cluster written is not the "
                                 "built-in one scaled; re-measure")
            runs.append({"label": row["label"], "median_batch_s": row["median_batch_s"],
                         "model_inputs": (scaled, Plan.from_dict(row["plan"]))})
    return runs


def ranking(values: dict[str, float]) -> list[str]:
    return sorted(values, key=lambda k: -values[k])


def ratio_cell(measured: float | None, pred: float) -> str:
    """measured / predicted, with "(outside the goal)"; "–" where either is missing (not measured, no prediction)."""
    if measured is None or not pred or pred != pred:
        return f"{'–':>13s}"
    ratio = measured / pred
    return f"{ratio:13.2f}{'' if abs(ratio - 1) <= GOAL else '  (outside the goal)'}"


def capacity_report(topo: Topology, cluster: Cluster, rows: float, rows_list: list[tuple[str, Plan, float, dict]],
                    args: argparse.Namespace) -> list[str]:
    """A cluster's table of capacities predicted and measured, the rankings and the placed plans against Spark's
    own scheduling. A plan with no capacity measured (no batch in its window) is said to be not measured, and so
    are the ranking (without it, it would rank other plans than the predicted one) and the comparison it is in."""
    out = [f"\n{topo.name} on {cluster.name}, batches of {rows:g} rows back to back, {args.duration:g} s measured "
           f"after {args.warmup:g} s; goal: measured within {GOAL:.0%} of predicted, same ranking"]
    header = f"{'plan':15s} {'replicas':>8s} {'predicted t/s':>13s} {'measured t/s':>12s} {'measured/pred':>13s}"
    out += [header, "-" * len(header)]
    for plan_name, plan, pred, got in rows_list:
        measured = f"{got['capacity']:12.1f}" if got["capacity"] is not None else f"{'not measured':>12s}"
        out.append(f"{plan_name:15s} {sum(plan.counts().values()):8d} {pred:13.1f} {measured} "
                   f"{ratio_cell(got['capacity'], pred)}".rstrip())
    placed = [r for r in rows_list if "/" not in r[0]]
    predicted = ranking({n: p for n, _, p, _ in placed})
    out.append(f"ranking predicted (placed plans): {' > '.join(predicted)}")
    missing = [n for n, _, _, g in placed if g["capacity"] is None]
    if missing:
        out.append(f"ranking measured:  not measured — no capacity for {', '.join(missing)} (no micro-batch with rows "
                   f"ended in its {args.duration:g} s window); raise --duration")
    else:
        measured_rank = ranking({n: g["capacity"] for n, _, _, g in placed})
        out.append(f"ranking measured:  {' > '.join(measured_rank)}  "
                   f"({'same' if predicted == measured_rank else 'differs'})")
    spread = {n: g["capacity"] for n, _, _, g in rows_list if n.endswith("/spark")}
    if placed and spread:
        unmeasured = missing + [n for n, x in spread.items() if x is None]
        if unmeasured:
            out.append(f"best placed plan vs Spark's own scheduling: not measured — no capacity for "
                       f"{', '.join(unmeasured)}; raise --duration (goal: at least 1.2x: not measured)")
        else:
            best = max(placed, key=lambda r: r[3]["capacity"])
            base = max(spread.values())
            out.append(f"best placed plan {best[0]} {best[3]['capacity']:.1f} t/s vs Spark's own scheduling at best "
                       f"{base:.1f} t/s ({max(spread, key=lambda k: spread[k])}): {best[3]['capacity'] / base:.2f}x "
                       "(goal: at least 1.2x)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topology", default="nasiri-linear")
    parser.add_argument("--clusters", default="hetero-3,hetero-6")
    parser.add_argument("--batch-s", type=float, default=4.0, help="batch size in seconds of predicted capacity")
    parser.add_argument("--warmup", type=float, default=40.0)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--warm-quota", action="store_true",
                        help="set the quotas again after the first batch (as `run` does), not after the warm-up")
    parser.add_argument("--plans", default="hetero,round-robin,r-storm,optimal,max-throughput")
    parser.add_argument("--planner", choices=("library", "cli"), default="library",
                        help="library: the plans above (hetero's counts for round robin and R-Storm, the ideal "
                             "engine); cli: each of --plans (any registered scheduler) as `plan -s NAME` makes it")
    parser.add_argument("--placements", default="plan,spark",
                        help="plan: every replica on its planned node; spark: the plan's counts placed by Spark's "
                             "own scheduler (the baseline)")
    parser.add_argument("--fixed", action="store_true",
                        help="measure each plan's fixed cost per batch: batches of one row per source back to back "
                             "(goal: at most 0.5 s on hetero-6), beside the model's F")
    parser.add_argument("--runs-out", type=Path, default=None,
                        help="with --fixed: write each run's plan, cluster, CPU scale and median batch to this JSON "
                             "file, for --fit-runs")
    parser.add_argument("--fit-runs", type=Path, nargs="+", default=None,
                        help="no Spark: fit the fixed-cost constants over the runs of the --runs-out files given "
                             "(several invocations: both clusters, both planners) and print each plan's F")
    parser.add_argument("--no-cpu-quota", action="store_true", help="the old emulation: nodes share the machine")
    parser.add_argument("--cpu-budget", type=float, default=None)
    parser.add_argument("--verbose", action="store_true", help="print every batch's duration")
    parser.add_argument("--stages", action="store_true",
                        help="print the stages of the measured window per node and kind (diagnostic)")
    parser.add_argument("--no-start-boost", action="store_true", help="keep the quotas during the start too")
    parser.add_argument("--no-jvm-archives", action="store_true",
                        help="cluster up without the JVM class archives (no minute or two of priming; JVMs start "
                             "slower)")
    parser.add_argument("--executor-java-opts", default=None, help="spark.executor.extraJavaOptions (experiments)")
    parser.add_argument("--driver-java-opts", default=None,
                        help="spark.driver.extraJavaOptions (diagnostics, e.g. a flight recording)")
    args = parser.parse_args()
    topo = resolve_topology(args.topology)
    eng = api.engine_settings("spark")
    assert eng is not None
    if args.fit_runs:
        print(fit_fixed(topo, eng, load_runs(args.fit_runs)))
        return
    tables = []
    for name in args.clusters.split(","):
        cluster = resolve_cluster(name)
        plans = (cli_plans(topo, cluster, args.plans.split(",")) if args.planner == "cli" else
                 {k: v for k, v in make_plans(topo, cluster).items() if k in args.plans.split(",")})
        with tempfile.TemporaryDirectory(prefix="sp-bench-") as tmp:
            started = time.perf_counter()
            # room for the most replicas any plan puts of one operator on one node (optimal may stack more replicas
            # than a node has cores; under quotas executor cores do not add CPU)
            most = max(c for p in plans.values() for per in p.replicas.values() for c in per.values())
            slots = max([most] + [w.replica_slots for w in worker_layout(cluster)])
            state = standalone.up(cluster, Path(tmp) / "cluster", replica_slots=slots, cpu_quota=not args.no_cpu_quota,
                                  cpu_budget=args.cpu_budget, jvm_archives=not args.no_jvm_archives)
            scaled = scaled_cluster(cluster, state.cpu_scale) if state.cpu_scale else cluster
            print(f"cluster {cluster.name} up in {time.perf_counter() - started:.1f} s at {state.master_url}; "
                  + (f"CPU quotas: scale {state.cpu_scale:.4g}, "
                     + ", ".join(f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers)
                     if state.cpu_scale else state.cpu_quota_note or "no CPU quotas"), flush=True)
            sustain = {k: evaluate(topo, scaled, p, engine=eng).predicted()["throughput"] for k, p in plans.items()}
            rows = 1.0 * len(topo.sources) if args.fixed else max(50.0, round(max(sustain.values()) * args.batch_s,
                                                                                -1))
            rows_list = []
            try:
                for plan_name, plan in plans.items():
                    for placement in args.placements.split(","):
                        target = spark_spread(plan, state.layout()) if placement == "spark" else plan
                        label = plan_name if placement == "plan" else f"{plan_name}/spark"
                        pred = predicted_capacity(topo, scaled, target, rows, eng)
                        fixed = evaluate(topo, scaled, target, engine=eng).engine_detail["batch_fixed_s"]
                        got = measure(state, topo, scaled, plan, rows, args, Path(tmp) / label, placement, target)
                        got["fixed_predicted_s"] = fixed
                        got["model_inputs"] = (scaled, target)
                        rows_list.append((label, plan, pred, got))
                        print(run_line(label, pred, fixed, got, args), flush=True)
            finally:
                standalone.down(Path(state.state_dir))
        tables.append((cluster, rows, rows_list))
    if args.fixed:
        for cluster, _, rows_list in tables:
            print(f"\nfixed cost per batch on {cluster.name} (batches of one row per source, back to back, median "
                  f"of the window); goal: at most {FIXED_GOAL_S:g} s (hetero-6)")
            print(f"{'plan':22s} {'nodes':>5s} {'model F s':>9s} {'measured s':>10s}")
            for label, _, _, got in rows_list:
                median = got["median_batch_s"]
                cell = (f"{median:10.2f}{'' if median <= FIXED_GOAL_S else '  (over)'}" if median is not None
                        else f"{'not measured':>10s} — no batch in the window; raise --duration")
                print(f"{label:22s} {got['nodes_used']:5d} {got['fixed_predicted_s']:9.2f} {cell}")
        labelled = [(cluster.name, label, got) for cluster, _, rows_list in tables for label, _, _, got in rows_list]
        if args.runs_out is not None:
            save_runs(args.runs_out, labelled)
        print(fit_fixed(topo, eng, [got for _, _, got in labelled]))
        return
    for cluster, rows, rows_list in tables:
        print("\n".join(capacity_report(topo, cluster, rows, rows_list, args)))


if __name__ == "__main__":
    main()
