"""CPU prediction (TCU = e·IR + MET) of real-work operators: profiled on one node type, predicted on the others.

benchmarks/cpu_prediction.py reproduces Nasiri et al. 2023's check with ``busy`` operators, which burn exactly the
spec's cost_ms / speed-up per tuple: the prediction uses the number the operator burns, so it mostly checks itself.
Here the operator does real work whose CPU per tuple nobody wrote down (spark/query/library/work.py): ``hash``
(iterated SHA-256 over a generated payload), ``regex`` (a compiled pattern over a generated text), ``parse``
(json.loads of a generated record). Their spec cost_ms is a placeholder (printed) that nothing here uses.

Per operator, on the emulated cluster (default hetero-3, ``cluster up`` with per-node CPU quotas: node u gets
cpu_u/100 · scale real cores, spark/cluster/cpu_quota.py) and with one application for the whole run:

* Plan: the operator's ``--replicas`` replicas alone on the node under test, the rate source (no work) on the
  other node with the most capacity. Every node is primed first (``--prime`` s of the plan on it, quotas lifted,
  nothing measured: its JVMs compile, its Python workers start).
* Rates: ``--steps`` rates evenly up to ``--top`` × the node's guide rate — its quota's real cores over the logic's
  CPU per tuple timed once in this driver on a small batch, at the node's speed-up, for the first step; for the
  others the logic's CPU per tuple the first step measured on the node, × RUNTIME_MARGIN. The guide only chooses
  the rates; no prediction uses it.
* Profile (on one node type: ``--profile-node``, default the cluster's first node), from that node's steps that
  kept up, two ways: the paper's (its § "Profiling": e read from Storm's execute latency, MET = TCU − e·IR at the
  maximum point) — e = the operator's own CPU per tuple (its threads' clocks, as spark/measure/profiler.py reads
  it), MET = (node CPU − e·IR) at the highest step / replicas; and a least-squares line through (IR, node CPU)
  (slope e, intercept MET · replicas). The paper's is the headline; the line's accuracy is shown beside it.
* Predict the other node types from that profile with the model's own rule for a node's speed (perf/cells.py:
  e = cost_ms / speed-up): e_type = e_profiled · speed-up_profiled / speed-up_type, MET the same on every type (the
  model never scales MET by speed-up) — written as a Profile with an entry per node type and read back through
  cost_tables, as ``plan --profile`` would. TCU = e·IR/10 + k·MET real points at the measured IR.
* The emulation's assumption that makes that rule testable here: a node's speed-up cannot make real work faster on
  one machine, so a node of speed-up s runs the operator's logic ``reference`` / s times per batch (``reference`` =
  the cluster's fastest speed-up; the output is the first pass's) — the logic's CPU scales by the speed-up as busy's
  burn does; what the runtime spends around it (Arrow batches to and from Python, the executor JVM, per-batch
  scheduling) does not, as on real machines the parts of a workload do not all speed up alike. Where the
  prediction misses on the other types, that part is why; the table shows the logic's own CPU per tuple (its
  threads' clocks) per node beside the node's.
* Measured (the paper's collector tool, as cpu_prediction.py): the node's cgroup CPU over each step's window of
  whole micro-batches; IR the operator's replicas' input over the same window; ± the spread over ``--chunk`` s
  pieces.
* Difference |measured − predicted| in % of the node's quota; accuracy = 100 − the largest, per node type (the
  profiled type in-sample, marked), over the predicted types, per operator and over all, beside the paper's 92 %.

Run: .venv/bin/python benchmarks/cpu_prediction_real.py [--operators hash,regex,parse] [--cluster hetero-3]
     [--profile-node pentium-1] [--nodes ...] [--steps 5] [--top 1.1] [--warmup 4] [--duration 8] [--trigger 1]
     [--replicas 2] [--prime 20] [--idle 3] [--state-dir DIR] [--no-jvm-archives] [--markdown FILE] [--json FILE]
     .venv/bin/python benchmarks/cpu_prediction_real.py --combine a.json,b.json [--markdown FILE]  (one table)
About 6 minutes per operator with the defaults on a 2-core machine (3 node types × 5 steps of ~20 s; hash and
regex took 724 s with the cluster's start in a first run), and a minute to prime every node: hold the machine's
lock for at most two operators per run (--combine joins the runs' --json files into one table).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import verdicts as V
from cpu_meters import FLAG, NodeMeter, Sampler, attach_meters, tear_down
from cpu_prediction import PAPER_ACCURACY, Step, run_step
from markdown_out import write_markdown

from streamplace.bench import resolve_cluster
from streamplace.model.cluster import Cluster, scaled_cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.perf.cells import cost_tables

#: each operator's work per tuple, chosen to cost ~1 real ms at the reference speed on this kind of machine (the
#: guide rate measures it again; nothing assumes it)
WORK: dict[str, dict[str, object]] = {
    "hash": {"rounds": 500, "payload_bytes": 1024},
    "regex": {"words": 2000},
    "parse": {"readings": 600},
}
#: the node's CPU over its logic's near saturation (Arrow batches, the executor JVM, per-batch costs; 1.26 on the
#: Pentium in a first short run): the rates' guide only
RUNTIME_MARGIN = 1.25
PLACEHOLDER_COST_MS = 1.0  # the spec's cost_ms of the operator: not what it burns, not what is predicted from


# ----------------------------------------------------------------------------------------------- model side
def topology(op_name: str, reference: float) -> Topology:
    """A rate source (no work) feeding the real-work operator ``op_name`` (a sink)."""
    ops = (Operator("src", "source", rate=100.0, cost_ms=0.0, overhead=0.0, logic={"name": "rate"}),
           Operator(op_name, "sink", cost_ms=PLACEHOLDER_COST_MS, overhead=2.0,
                    logic={"name": op_name, **WORK[op_name], "reference": reference}))
    return Topology(f"real-{op_name}", ops, (Stream("src", op_name),))


def plan_for(topo: Topology, cluster: Cluster, op: str, node: str, replicas: int) -> Plan:
    """``op``'s replicas alone on ``node``; the source on the other node of most capacity (cpu × speed-up)."""
    host = max((n for n in cluster.nodes if n.id != node), key=lambda n: n.cpu * n.speedup)
    return Plan("cpu-prediction-real", topo.name, cluster.name, {"src": {host.id: 1}, op: {node: replicas}},
                source_rates={"src": 100.0})


def guide_ms(op: Operator, speedup: float, rows: int = 300) -> float:
    """The logic's CPU per tuple (ms, this thread's clock) on a batch of ``rows`` at ``speedup``: only to choose the
    steps' rates."""
    import pyarrow as pa

    from streamplace.spark.query.library import logic_of

    values = np.arange(rows, dtype=np.int64)
    ts = pa.array(np.zeros(rows, dtype=np.int64)).cast(pa.timestamp("us", tz="UTC"))
    batch = pa.RecordBatch.from_arrays([ts, pa.array(values), pa.array(values % 1024)], names=["ts", "value", "key"])
    logic = logic_of(op, speedup)
    logic.fn(batch)  # warm (imports, compiled pattern)
    t = time.thread_time()
    logic.fn(batch)
    return 1000.0 * (time.thread_time() - t) / rows


@dataclass(frozen=True)
class Fit:
    """A profile of the operator on the profiled node: e real ms/tuple, MET real points per replica (clamped to the
    model's [0, 99]; the raw fixed part kept), how it was taken, and the steps it used."""

    e_ms: float
    met: float
    fixed: float
    how: str
    points: int


def fit_profile(rows: list[Row], replicas: int, how: str) -> Fit:
    """The profile from the profiled node's steps that kept up (every measured step when fewer than two did).

    ``paper`` (Nasiri et al.'s profiling): e = the operator's own CPU per tuple (its threads' clocks over those steps:
    the paper reads Storm's execute latency, get_execute_ms_avg) and MET = (the node's CPU − e·IR) at the highest of
    them (the paper's maximum point) / replicas. ``line``: a least-squares line through (IR, node CPU) — slope e,
    intercept MET · replicas."""
    ok = [r for r in rows if not math.isnan(r.cores) and not math.isnan(r.ir)]
    kept = [r for r in ok if not r.note] if sum(not r.note for r in ok) >= 2 else ok
    if len(kept) < 2:
        raise SystemExit(f"the profile needs two measured steps, got {len(kept)}: raise --duration or --steps")
    if how == "paper":
        e = 1000.0 * sum(r.logic for r in kept) / sum(r.ir for r in kept)
        top = max(kept, key=lambda r: r.ir)
        fixed = 100.0 * top.cores - e * top.ir / 10.0
    else:
        slope, fixed = (float(v) for v in np.polyfit([r.ir for r in kept], [100.0 * r.cores for r in kept], 1))
        e = 10.0 * slope
    return Fit(e, min(99.0, max(0.0, fixed / replicas)), fixed, how, len(kept))


def predicted_profile(topo: Topology, cluster: Cluster, op: str, node: str, fit: Fit) -> Profile:
    """The profile of ``node``'s type carried to every type by the model's speed rule (e ∝ 1 / speed-up, MET kept)."""
    speed = {n.type: n.speedup for n in cluster.nodes}
    s_p = cluster.node(node).speedup
    entries = tuple(ProfileEntry(op, t, fit.e_ms * s_p / s, fit.met) for t, s in speed.items())
    return Profile(entries)


def prediction(topo: Topology, cluster: Cluster, profile: Profile, op: str, node: str, ir: float,
               replicas: int) -> tuple[float, float, float]:
    """(TCU real points, e ms, MET per replica) the model's tables give ``op`` on ``node`` at input rate ``ir``."""
    e, met = cost_tables(topo, cluster, profile)
    i, u = topo.index[op], cluster.ids.index(node)
    return ir * float(e[i, u]) / 10.0 + replicas * float(met[i, u]), float(e[i, u]), float(met[i, u])


# ----------------------------------------------------------------------------------------------- results
@dataclass
class Row:
    """One step as reported: real cores measured, real points predicted."""

    offered: float
    ir: float
    cores: float
    cores_sd: float
    logic: float
    pred: float = math.nan
    note: str = ""
    batches_per_s: float = math.nan  # micro-batches per second in the window (fewer than 1 / trigger: they stretched)
    pred_line: float = math.nan  # predicted from the least-squares profile


@dataclass
class NodeRun:
    operator: str
    node: str
    node_type: str
    speedup: float
    quota_cores: float
    replicas: int
    profiled: bool
    guide_ms: float
    rows: list[Row] = field(default_factory=list)
    e_pred: float = math.nan
    met_pred: float = math.nan
    e_line: float = math.nan
    met_line: float = math.nan

    def diffs(self, kept_only: bool = False, line: bool = False) -> list[float]:
        """|measured − predicted| in % of the node's quota, per measured step (``line``: the least-squares
        profile's prediction)."""
        out = []
        for r in self.rows:
            pred = r.pred_line if line else r.pred
            if not math.isnan(pred) and not math.isnan(r.cores) and not (kept_only and r.note):
                out.append(abs(100.0 * r.cores - pred) / self.quota_cores)
        return out

    def logic_ms(self) -> float:
        """The logic's own CPU per tuple over the steps (its threads' clocks), real ms."""
        ok = [r for r in self.rows if r.ir > 0 and not math.isnan(r.logic)]
        return 1000.0 * sum(r.logic for r in ok) / sum(r.ir for r in ok) if ok else math.nan

    def measured_line(self) -> tuple[float, float]:
        """(e real ms/tuple, intercept real points) of the line through this node's measured points."""
        ok = [r for r in self.rows if not math.isnan(r.cores) and not r.note]
        if len(ok) < 2:
            return math.nan, math.nan
        slope, icpt = np.polyfit([r.ir for r in ok], [100.0 * r.cores for r in ok], 1)
        return 10.0 * float(slope), float(icpt)


def accuracy(diffs: list[float]) -> float:
    return 100.0 - max(diffs) if diffs else math.nan


def fmt(x: float, spec: str = ".1f", missing: str = "not measured", unit: str = "") -> str:
    """``x`` formatted and followed by ``unit``, or ``missing`` where it was not measured (NaN)."""
    return missing if math.isnan(x) else format(x, spec) + unit


# ----------------------------------------------------------------------------------------------- measuring
def measure_node(spark: Any, state: Any, topo: Topology, scaled: Cluster, cluster: Cluster, op: str, node: str,
                 args: argparse.Namespace, tmp: Path, sampler: Sampler, meters: dict[str, NodeMeter],
                 profiled: bool) -> tuple[NodeRun, list[Step]]:
    """The steps on ``node``: the operator alone there, rates up to ``--top`` × its guide rate."""
    spec = cluster.node(node)
    w = next(w for w in state.workers if w.node == node)
    quota = float(w.cpu_quota_cores or 0.0)
    e_guide = guide_ms(topo.op(op), spec.speedup)
    run = NodeRun(op, node, spec.type, spec.speedup, quota, args.replicas, profiled, e_guide)
    plan = plan_for(topo, scaled, op, node, args.replicas)
    fill = 1000.0 * quota / e_guide
    print(f"\n{op} ×{args.replicas} on {node} ({spec.type}, speed-up {spec.speedup:g}, {quota:.2f} real cores"
          f"{', profiled' if profiled else ''}); source on {next(iter(plan.replicas['src']))}; logic ~{e_guide:.3f} "
          f"real ms/tuple here (guide) → fills at ~{fill:.0f} t/s", flush=True)
    steps = []
    for j in range(1, args.steps + 1):
        rate = round(fill * args.top * j / args.steps, 1)
        step, _ = run_step(spark, state, topo, scaled, plan, op, node, rate, args, tmp / f"{op}-{node}-{j}",
                           sampler, meters)
        steps.append(step)
        run.rows.append(Row(rate, step.ir, step.cores, step.cores_sd, step.logic, note=step.note,
                            batches_per_s=step.batches_per_s))
        print(f"  {rate:7.1f} t/s offered: IR {step.ir:7.1f}, node {100 * step.cores:5.1f} real pts "
              f"({100 * step.cores / quota if quota else math.nan:5.1f} % of it), logic {100 * step.logic:5.1f} "
              f"{step.note}", flush=True)
        if j == 1 and step.ir > 0 and step.logic > 0:  # the guide again, from the logic's CPU on the node itself
            fill = 1000.0 * quota / (1000.0 * step.logic / step.ir * RUNTIME_MARGIN)
            print(f"  the logic took {1000 * step.logic / step.ir:.3f} real ms/tuple on the node: the next steps "
                  f"up to {args.top:g} × {fill:.0f} t/s", flush=True)
    return run, steps


def measure_operator(spark: Any, state: Any, cluster: Cluster, scaled: Cluster, op: str, nodes: list[str],
                     args: argparse.Namespace, tmp: Path, sampler: Sampler,
                     meters: dict[str, NodeMeter]) -> list[NodeRun]:
    """Profile on ``--profile-node``, then measure every node and fill in both profiles' predictions."""
    topo = topology(op, max(n.speedup for n in cluster.nodes))
    first = args.profile_node
    runs: list[NodeRun] = []
    fits: dict[str, Fit] = {}
    for node in [first] + [n for n in nodes if n != first]:
        run, _ = measure_node(spark, state, topo, scaled, cluster, op, node, args, tmp, sampler, meters,
                              node == first)
        if not fits:
            fits = {how: fit_profile(run.rows, args.replicas, how) for how in ("paper", "line")}
            for f in fits.values():
                print(f"  profile ({cluster.node(first).type}, {f.how}): e = {f.e_ms:.3f} real ms/tuple, MET = "
                      f"{f.met:.2f} real pts per replica (fixed part {f.fixed:.2f}, {f.points} steps); the spec's "
                      f"placeholder cost_ms {PLACEHOLDER_COST_MS:g} is not used", flush=True)
        runs.append(run)
    profiles = {how: predicted_profile(topo, scaled, op, first, f) for how, f in fits.items()}
    for run in runs:
        for r in run.rows:
            if not math.isnan(r.ir):
                r.pred, run.e_pred, run.met_pred = prediction(topo, scaled, profiles["paper"], op, run.node, r.ir,
                                                              run.replicas)
                r.pred_line, run.e_line, run.met_line = prediction(topo, scaled, profiles["line"], op, run.node,
                                                                   r.ir, run.replicas)
    return runs


# ----------------------------------------------------------------------------------------------- report
def node_table(run: NodeRun, scale: float) -> list[str]:
    """Markdown rows of one node's steps (real points / scale = the node type's spec points)."""
    md = [f"##### `{run.operator}` on {run.node} ({run.node_type}, speed-up {run.speedup:g}, "
          f"{run.quota_cores:.2f} real cores){' — the profiled type, in-sample' if run.profiled else ''}", "",
          "| offered t/s | IR t/s | predicted pts | measured pts (± sd) | diff %node | logic pts | batches/s |",
          "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in run.rows:
        if math.isnan(r.cores) or math.isnan(r.pred):
            md.append(f"| {r.offered:.1f} | {r.note or 'not measured'} | | | | | |")
            continue
        d = (100.0 * r.cores - r.pred) / run.quota_cores
        md.append(f"| {r.offered:.1f} | {r.ir:.1f} | {r.pred / scale:.1f} | {100 * r.cores / scale:.1f} ± "
                  f"{100 * r.cores_sd / scale:.1f} | {d:+.1f} | {100 * r.logic / scale:.1f}"
                  f"{' (' + r.note + ')' if r.note else ''} | {fmt(r.batches_per_s, '.2f', '–')} |")
    e_meas, icpt = run.measured_line()
    md += ["", f"e predicted {run.e_pred:.3f} real ms/tuple (least-squares profile {run.e_line:.3f}), this node's "
           f"measured line {fmt(e_meas, '.3f')}, its logic alone {fmt(run.logic_ms(), '.3f')}; MET predicted "
           f"{run.replicas} × {run.met_pred:.2f} real pts (least-squares {run.replicas} × {run.met_line:.2f}), this "
           f"node's measured intercept {fmt(icpt, '.2f')}.", ""]
    return md


def summary(runs: list[NodeRun]) -> list[str]:
    """The accuracy table: per operator and node type, per operator over the predicted types, over all."""
    md = ["| operator | node type | steps | largest \\|diff\\| %node | accuracy | steps kept up | least-squares "
          "profile | paper | verdict |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    print(f"\n{'operator':8s} {'node type':20s} {'steps':>5s} {'max|d|':>7s} {'accuracy':>9s} {'kept up':>8s} "
          f"{'lsq':>7s}  paper {PAPER_ACCURACY:g} %")

    def line(name: str, what: str, rs: list[NodeRun]) -> None:
        d, k = [x for r in rs for x in r.diffs()], [x for r in rs for x in r.diffs(True)]
        acc, kept, lsq = accuracy(d), accuracy(k), accuracy([x for r in rs for x in r.diffs(line=True)])
        verdict = "not measured" if math.isnan(acc) else "met" if acc >= PAPER_ACCURACY else "missed"
        print(f"{name:8s} {what:20s} {len(d):5d} {fmt(max(d) if d else math.nan, '7.1f', '–'):>7s} "
              f"{fmt(acc, '8.1f', '–', '%'):>9s} {fmt(kept, '7.1f', '–', '%'):>8s} {fmt(lsq, '6.1f', '–', '%'):>7s}  "
              f"{verdict}")
        md.append(f"| {name} | {what} | {len(d)} | {fmt(max(d) if d else math.nan)} | {fmt(acc, unit=' %')} | "
                  f"{fmt(kept, unit=' %')} | {fmt(lsq, unit=' %')} | {PAPER_ACCURACY:g} % | "
                  f"{'not measured' if math.isnan(acc) else V.value(acc, PAPER_ACCURACY)} |")

    ops = list(dict.fromkeys(r.operator for r in runs))
    for op in ops:
        mine = [r for r in runs if r.operator == op]
        for r in mine:
            line(op, r.node_type + (" (profiled)" if r.profiled else ""), [r])
        line(op, "predicted types", [r for r in mine if not r.profiled])
    if len(ops) > 1:
        line("all", "predicted types", [r for r in runs if not r.profiled])
    d = [x for r in runs if not r.profiled for x in r.diffs()]
    if len(d) > 1:
        print(f"|diff| over the {len(d)} predicted steps: {statistics.mean(d):.1f} ± {statistics.stdev(d):.1f} % of "
              "the node")
    return md


def report(runs: list[NodeRun], scale: float, meta: dict[str, Any], markdown: Path | None) -> None:
    md = [f"#### CPU prediction for real-work operators on the emulated {meta['cluster']}: profiled on "
          f"{meta['profile_type']}, predicted elsewhere", "",
          f"{meta['replicas']} replicas alone on the node; {meta['steps']} rate steps; {meta['warmup']:g} s warm-up, "
          f"{meta['duration']:g} s window, {meta['trigger']:g} s triggers; pts = the node type's spec points (real "
          f"points / {scale:.3g}); accuracy = 100 − the largest |measured − predicted| in % of the node (the paper: "
          f"{PAPER_ACCURACY:g} %).", ""]
    for run in runs:
        md += node_table(run, scale)
        e_meas, _ = run.measured_line()
        print(f"{run.operator} on {run.node_type}: e predicted {run.e_pred:.3f} (lsq {run.e_line:.3f}), measured "
              f"{fmt(e_meas, '.3f')}, logic "
              f"{fmt(run.logic_ms(), '.3f')} real ms/tuple; accuracy {fmt(accuracy(run.diffs()))} %")
    md += summary(runs)
    if markdown:
        write_markdown(markdown, "\n".join(md) + "\n")


def save(path: Path, runs: list[NodeRun], scale: float, meta: dict[str, Any]) -> None:
    path.write_text(json.dumps({"scale": scale, "meta": meta, "runs": [asdict(r) for r in runs]}, indent=1))


def load(path: Path) -> tuple[list[NodeRun], float, dict[str, Any]]:
    doc = json.loads(path.read_text())
    runs = []
    for r in doc["runs"]:
        rows = [Row(**x) for x in r.pop("rows")]
        runs.append(NodeRun(**r, rows=rows))
    return runs, float(doc["scale"]), dict(doc["meta"])


# ----------------------------------------------------------------------------------------------- main
def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--operators", default="hash", help=f"comma-separated, of {', '.join(WORK)}")
    p.add_argument("--cluster", default="hetero-3")
    p.add_argument("--profile-node", default=None, help="the node whose type is profiled (default: the first)")
    p.add_argument("--nodes", default=None, help="comma-separated node ids to measure (default: every node)")
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--top", type=float, default=1.1, help="the last step's rate as a multiple of the guide rate")
    p.add_argument("--warmup", type=float, default=4.0)
    p.add_argument("--duration", type=float, default=8.0)
    p.add_argument("--trigger", type=float, default=1.0)
    p.add_argument("--chunk", type=float, default=2.0)
    p.add_argument("--prime", type=float, default=20.0,
                   help="seconds of an unmeasured query on each node first, quotas lifted (its JVMs compile)")
    p.add_argument("--idle", type=float, default=3.0)
    p.add_argument("--cpu-budget", type=float, default=None)
    p.add_argument("--state-dir", type=Path, default=None)
    p.add_argument("--no-jvm-archives", action="store_true")
    p.add_argument("--markdown", type=Path)
    p.add_argument("--json", type=Path, help="also write the measurements (for --combine)")
    p.add_argument("--combine", default=None, help="comma-separated --json files: one table, no Spark")
    return p.parse_args()


def main() -> None:
    args = parse_args()
    if args.combine:
        loaded = [load(Path(f)) for f in args.combine.split(",")]
        report([r for rs, _, _ in loaded for r in rs], loaded[0][1], loaded[0][2], args.markdown)
        return
    from streamplace.spark.cluster import standalone
    from streamplace.spark.cluster.connect import app_conf
    from streamplace.spark.cluster.state import lift_cpu_quotas, state_root
    from streamplace.spark.runtime.session import local_session

    started = time.monotonic()
    cluster = resolve_cluster(args.cluster)
    ops = args.operators.split(",")
    unknown = [o for o in ops if o not in WORK]
    if unknown:
        raise SystemExit(f"unknown operator(s) {', '.join(unknown)}: use {', '.join(WORK)}")
    args.profile_node = args.profile_node or cluster.nodes[0].id
    nodes = args.nodes.split(",") if args.nodes else [n.id for n in cluster.nodes]
    state_dir = (args.state_dir or state_root() / f"cpu-prediction-{cluster.name}").resolve()
    FLAG.touch()
    state, spark, sampler = None, None, None
    meters: dict[str, NodeMeter] = {}
    runs: list[NodeRun] = []
    scale = math.nan
    try:
        state = standalone.up(cluster, state_dir, replica_slots=max(args.replicas, 2), cpu_quota=True,
                              cpu_budget=args.cpu_budget, jvm_archives=not args.no_jvm_archives)
        if not state.cpu_scale:
            raise SystemExit(f"no CPU quotas ({state.cpu_quota_note}): run as root with writable cgroups")
        scale = state.cpu_scale
        scaled = scaled_cluster(cluster, scale)
        print(f"cluster {cluster.name} up; scale {scale:.4g} real cores per spec core: "
              + ", ".join(f"{w.node} {w.cpu_quota_cores:.2f}" for w in state.workers), flush=True)
        meters = attach_meters(state)
        sampler = Sampler(meters)
        boost = lift_cpu_quotas(state)
        spark = local_session(master=state.master_url, conf=app_conf(state))
        with tempfile.TemporaryDirectory(prefix="sp-cpu-real-") as tmp:
            topo = topology(ops[0], max(n.speedup for n in cluster.nodes))
            prime = argparse.Namespace(**{**vars(args), "warmup": 2.0, "duration": args.prime})
            for node in [args.profile_node] + [n for n in nodes if n != args.profile_node]:
                # every measured node's JVMs compile and its Python workers start here, not in its first measured
                # steps (a first run primed the profiled node alone, 15 s: the first operator's steps on the Pentium
                # and the Core i3 carried up to 4-6 real points more CPU beside the logic than the later ones)
                run_step(spark, state, topo, scaled, plan_for(topo, scaled, ops[0], node, args.replicas), ops[0],
                         node, 100.0, prime, Path(tmp) / f"prime-{node}", sampler, meters)
            if boost is not None:
                boost()
            t_idle = time.time()
            time.sleep(args.idle)
            sampler.wait_past(time.time())
            print("executors primed; quotas set; idle CPU per node (real cores): " + ", ".join(
                f"{n} {float(sampler.cores(n, t_idle + 1.0, time.time())[0]):.3f}" for n in meters), flush=True)
            for op in ops:
                runs += measure_operator(spark, state, cluster, scaled, op, nodes, args, Path(tmp), sampler, meters)
    finally:
        tear_down(spark, sampler, state, meters)
    meta = {"cluster": cluster.name, "profile_type": cluster.node(args.profile_node).type, "replicas": args.replicas,
            "steps": args.steps, "warmup": args.warmup, "duration": args.duration, "trigger": args.trigger,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.json:
        save(args.json, runs, scale, meta)
    report(runs, scale, meta, args.markdown)
    print(f"took {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
