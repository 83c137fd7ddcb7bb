"""The ``spark`` engine: a plan as Spark Structured Streaming runs it, one micro-batch at a time.

What the runtime builds (spark/query/pipeline.py) is what is modelled. Each operator
(or fused chain) is one **stage** of a micro-batch with one task per replica; on
a standalone cluster each task runs on its replica's node (task locality), so
the model keeps the stage's tasks per (chain, node) cell, the cells of a chain
starting together. A stage starts when every stage of its upstream operators has
finished (plus a fixed scheduling cost), its tasks queue for their node's cores,
and it lasts as long as its slowest task. Batches do not overlap.

Per micro-batch carrying D seconds of data at scale s of the source rates, a
task of cell c (input rate r_c tuples/s per replica at scale 1) on node u runs

    d_c = (task_s + s · D · r_c · (e_c + h_c · w_c / (k_u · ⌈w_c / k_u⌉))) / v_u     seconds,
    h_c = source_us at a source, hop_us behind a shuffle, + α · sink_us at an output,

e_c and h_c in ms per input tuple, w_c the stage's tasks, k_u the node's ⌈cores⌉
slots and v_u ≤ 1 the speed of one slot; a stage that keeps every slot busy
shares the node with Spark's own threads (JIT compilation of each batch's
generated code, the driver, Arrow I/O), which take ``jvm_cores`` of it, so its
tasks run at (k_u · v_u − jvm_cores) / k_u of the slot speed. The operator's logic e_c runs in one
Python thread per task; Spark's own per-tuple work h_c (shuffle write and read,
Arrow framing) runs in the JVM beside it, so it spreads over the node's cores
whatever the task count (measured: one task moves tuples as fast as four).
Scheduling the tasks of every stage on their node's slots in order of
readiness (list scheduling) gives the batch time

    B(s, D) ≈ F + s · D · W,

F = batch_s (+ exchange_s · X + exchange_sq_s · X² for the X routed inputs of a placed plan on several nodes:
the driver projects each, plans its chain's exchange and cuts the plan there before the batch's first stage
starts; X grows with chains and streams, not nodes) + the makespan of the fixed costs alone,
W = the makespan of the per-tuple work alone per unit of s·D (exact for a chain of single stages; an
upper bound where stages run side by side). From that:

* **capacity**: batches of any length keep up while s · W < 1 (a longer batch
  carries more data but costs the same fixed F), so the sustainable scale is
  1 / W; throughput is the sinks' rate there;
* **trigger-bound rate**: the largest s whose batch fits its interval,
  B(s, P) ≤ P with P = max(trigger, quantum): (P − F) / (P · W);
* **period and latency**: while B(s, trigger) fits the trigger, P = the
  trigger and the mean latency is quantum / 2 (Spark's rate source releases
  whole seconds) + lead_s + (trigger − quantum) / 2 + B: the source's seconds
  end ``lead_s`` before a tick (the runtime sets that phase, spark/query/phase.py).
  Otherwise batches run back to back, each reading the quanta that ended
  meanwhile, in a cycle of batch sizes that no single period describes: the
  triggers are replayed batch by batch (triggers.py), which gives the mean
  period (F / (1 − s · W) back to back), the mean and worst latency and the
  batch sizes; with the phase left to chance (lead_s None) the replay is
  averaged over 8 phases. A continuous source (quantum 0) settles at the fixed
  point P = B(s, P), latency P / 2 + B;
* **busy share** of node u: the task seconds it runs per batch / (P · cores_u).

Cost per simulation: O(G log G) for G chains plus one vectorized step per wave of tasks of a chain (its
stages, one per node, placed together); two simulations for F and W, one per batch size the replay meets (a
few), and O(400) replay steps. 50,500 replicas on 10,000 nodes: 0.03 s per simulation.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.fusion import fused_chains
from streamplace.model.topology import Topology
from streamplace.perf.capacity import ScaleLimit, bandwidth_scale
from streamplace.perf.cells import Cells, sorted_unique
from streamplace.perf.engines.base import EngineFigures, EngineInputs, EngineModel, coerce_field, field_names
from streamplace.perf.engines.triggers import replay
from streamplace.perf.rates import OperatorRates


@dataclass(frozen=True)
class SparkConstants:
    """Spark's own costs on a machine (``streamplace calibrate`` measures them; seconds and µs)."""

    # defaults: the median of three `streamplace calibrate --cores 2` runs on an idle 2-core machine of streamplace's
    # CI kind on 2026-11-26 (R² 0.967–0.974; the three: batch 0.112–0.164, stage 0.016–0.028, wave 0.0067–0.0075,
    # hop 0.80–0.86 µs). The 2026-11-23 defaults (batch 0.14, stage 0.034, wave 0.078) put a 7-stage chain's batch at
    # 0.92 s where it measured 0.43 s: a wave of tasks now costs a tenth of what it did (warm Python workers)
    batch_s: float = 0.135  # per micro-batch: offsets, planning, WAL, commit (driver)
    stage_s: float = 0.024  # per stage: scheduling and the shuffle barrier
    task_s: float = 0.007  # per wave of tasks: launch, Python worker round trip, Arrow framing
    hop_us: float = 0.82  # per tuple read behind a shuffle (write + read + Arrow to and from Python)
    source_us: float = 0.51  # per tuple the rate source generates
    sink_us: float = 0.51  # per tuple an output writes
    jvm_cores: float = 0.005  # cores Spark's own threads (JIT, driver, Arrow I/O) take from tasks that fill a node
    # per routed input of a placed (standalone) plan: the driver's instantiation of each chain's exchange and stage,
    # planned once (spark/query/jvm/ChainTemplate.java), and the plan cut (LocatedRDD) before a batch's first
    # stage. calibration.driver_probe, median of three runs each on an idle machine (2026-11-29): on hetero-3
    # (benchmarks/placed_build.py --cluster hetero-3) 0.5 ms (0.2–1.3), on local[2] (--local --repeats 3) 0.3 ms
    # (0.0–0.5). It was 0.011 s (2026-11-28, load 4.0–4.4; 3.3 ms idle on hetero-3) while each batch generated
    # every stage's whole-stage code and cleaned its closures, walked the stack for each RDD's call site and
    # analysed each chain's output DataFrame; 0.023 s while every batch re-planned each chain
    exchange_s: float = 0.0005
    # per input²: `calibrate` fits it beside exchange_s (each chain's plan is cut at its stage, so the build is
    # linear in the inputs); the built-in pair is a linear fit
    exchange_sq_s: float = 0.0
    # of task_s, the CPU a task spends on its node (deserializing, running and reporting it in the executor, the
    # Python worker's round trip): it takes the node's cores, so a slow or fractional node stretches it; the rest
    # of task_s is waiting (the driver's scheduling, status round trips), which tasks running at once overlap.
    # Built-in: fitted with stage_cpu_s to the fixed cost of placed batches on the emulated hetero-3 and hetero-6
    # (standalone_hetero.py --fixed, 16 runs on 2026-11-29 in benchmarks/measured/: the library's 5 plans on each
    # cluster and the 6 distinct plans `plan -s NAME` makes on hetero-3, up to 18 replicas per node): all of
    # task_s — a task's fixed cost is CPU on its node, so 8-10 small tasks on a 0.6-core node take 8-10 of it,
    # stretched. Model F / measured 0.72-1.30 over the 16 (median |error| 14 %), where the fit before (0 here,
    # stage_cpu_s 0.02, on 10 plans of 1-6 replicas per operator) gave 0.55-1.47 (20 %) and under-predicted the
    # many-task plans most (max-throughput's 34 replicas: 0.55)
    task_cpu_s: float = 0.007
    # per stage on each node it runs on: the executor's CPU to set the stage up (fetch and deserialize its task
    # binary, compile its generated code, the Python command); part of stage_s and task_s on a node of full-speed
    # slots, stretched by 1 / speed on a slower one (fractional cores: an emulated node's CPU quota). Built-in: the
    # fit above gives 0 (the tasks' CPU carries the stretch); it was 0.02 s with task_cpu_s 0, and 0.073 s
    # regressed on the old runtime's per-node stages
    stage_cpu_s: float = 0.0
    origin: str = "built-in defaults"  # where these figures come from (a calibration file, or the defaults)

    def as_dict(self) -> dict[str, float | str]:
        return {"batch_s": self.batch_s, "stage_s": self.stage_s, "task_s": self.task_s,
                "task_cpu_s": self.task_cpu_s, "stage_cpu_s": self.stage_cpu_s, "hop_us": self.hop_us,
                "source_us": self.source_us, "sink_us": self.sink_us, "jvm_cores": self.jvm_cores,
                "exchange_s": self.exchange_s, "exchange_sq_s": self.exchange_sq_s, "origin": self.origin}


#: seconds from the end of a rate source's second to the trigger that reads it: the runtime starts every fresh
#: query's rate sources at this phase (spark/query/phase.py); chance alone would make it anything from 0 to 1 s
SOURCE_LEAD_S = 0.05


@dataclass(frozen=True)
class SparkSettings:
    """How the pipeline is run: trigger interval, the source's release quantum and its lead on the trigger (None:
    the source's phase left to chance, as Spark's own start time leaves it), plus the constants."""

    trigger_s: float = 1.0
    quantum_s: float = 1.0  # Spark's rate source makes a second's rows available when that second ends
    constants: SparkConstants = field(default_factory=SparkConstants)
    lead_s: float | None = SOURCE_LEAD_S


@dataclass(frozen=True)
class SparkPrediction:
    capacity_scale: float  # largest sustainable scale of the source rates (1 / W)
    trigger_scale: float  # largest scale whose batch fits the trigger (quantum) interval
    fixed_s: float  # F: a batch's fixed time
    work_s: float  # W: seconds of batch time per unit of scale × second of data
    period_s: float  # P at the evaluated scale (inf when it cannot keep up)
    batch_s: float  # B at the evaluated scale
    latency_mean_ms: float
    latency_worst_ms: float
    busy: np.ndarray  # per node: share of its cores busy at the evaluated scale
    stages: int
    tasks: int
    critical: tuple[int, int] | None  # (op, node) of the stage with the most work on the critical path
    scale: float  # the scale evaluated (the plan's source rates = 1)
    fused: tuple[tuple[str, ...], ...] = ()  # chains of operators fused into one stage (two or more)


@dataclass(frozen=True)
class Stages:
    """A micro-batch's stages as arrays, one per (chain, node) cell of the plan, in the runtime's order. The
    stages of one chain form a group (contiguous): they start together, after the shuffle from their parents."""

    cell: np.ndarray  # the chain head's cell
    op: np.ndarray  # the chain head
    node: np.ndarray
    tasks: np.ndarray  # replicas: one task each
    tuples: np.ndarray  # input tuples per task per second of data at scale 1
    logic_ms: np.ndarray  # the chain's own ms per input tuple on this node (e)
    spark_ms: np.ndarray  # Spark's ms per input tuple (source, shuffle hop, sink write)
    bounds: np.ndarray  # group g's stages are bounds[g]:bounds[g + 1]
    parents: tuple[tuple[int, ...], ...]  # per group: the groups whose every stage must finish first
    chains: tuple[tuple[str, ...], ...]  # per group: the operators it runs (head first)

    def __len__(self) -> int:
        return len(self.node)


def build_stages(topology: Topology, cells: Cells, rates: OperatorRates, consts: SparkConstants,
                 fuse: bool = True) -> Stages:
    """The stages of a plan (acyclic order; back edges are not run): a chain is a run of operators fused into
    one stage (model/fusion.py), or one operator. A fused stage's tasks take the chain head's tuples and run
    every member's logic on what reaches it (e_k × its rate over the head's); Spark's per-tuple work is the
    head's input and the last member's output only. O(cells + streams), vectorized per chain."""
    idx = topology.index
    forward = topology.forward_predecessors
    n_nodes = int(cells.node.max()) + 1 if len(cells.node) else 0
    of_op = [np.flatnonzero(cells.op == i) for i in range(len(topology.operators))]  # ascending cells
    replicas = {topology.operators[i].id: dict(zip(cells.node[cs].tolist(), cells.count[cs].tolist(), strict=True))
                for i, cs in enumerate(of_op) if len(cs)}
    chains = fused_chains(topology, replicas) if fuse else [(o,) for o in topology.acyclic_order]
    outputs = {idx[o.id] for o in topology.operators if not topology.successors(o.id)}
    sources = {idx[o.id] for o in topology.sources}
    group_of: dict[int, int] = {}  # operator → the group that runs it
    parts: list[tuple[np.ndarray, ...]] = []
    parents: list[tuple[int, ...]] = []
    kept: list[tuple[str, ...]] = []
    for chain in chains:
        head, last = idx[chain[0]], idx[chain[-1]]
        heads = of_op[head]
        if not len(heads):
            continue  # no replicas: no stage, and nothing downstream waits for it
        group = len(parts)
        parents.append(tuple(dict.fromkeys(group_of[idx[p]] for p in forward[chain[0]]
                                           if idx[p] in group_of)))
        kept.append(tuple(chain))
        nodes = cells.node[heads]
        base = cells.rate[heads].astype(float)
        members = [heads]
        for o in chain[1:]:  # the member's cell on each of the head's nodes (fusion: the same nodes)
            at = np.full(n_nodes, -1, dtype=np.intp)
            at[cells.node[of_op[idx[o]]]] = of_op[idx[o]]
            members.append(at[nodes])
        work = np.zeros(len(heads))
        for m in members:
            work = work + cells.e[m] * cells.rate[m]
        positive = base > 0
        safe = np.where(positive, base, 1.0)
        logic = np.where(positive, work / safe, cells.e[heads])
        share = np.where(positive, cells.rate[members[-1]] / safe, 1.0)
        sink = consts.sink_us * float(rates.selectivity[last]) * share if last in outputs else np.zeros(len(heads))
        hop = consts.source_us if head in sources else consts.hop_us
        parts.append((heads, np.full(len(heads), head), nodes, cells.count[heads].astype(np.int64), base, logic,
                      (hop + sink) / 1000.0))
        for o in chain:
            group_of[idx[o]] = group
    sizes = [len(part[0]) for part in parts]
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    cols = [np.concatenate([part[k] for part in parts]) if parts else np.zeros(0) for k in range(7)]
    return Stages(cols[0].astype(np.intp), cols[1].astype(np.intp), cols[2].astype(np.intp),
                  cols[3].astype(np.int64), cols[4].astype(float), cols[5].astype(float), cols[6].astype(float),
                  bounds, tuple(parents), tuple(kept))


def _slots(cluster: Cluster) -> tuple[np.ndarray, np.ndarray]:
    """Per node: slots (⌈cores⌉, at least 1) and the speed of one slot (cores / slots ≤ 1)."""
    cores = np.maximum(cluster.cpu / 100.0, 1e-9)
    k = np.maximum(1, np.ceil(cores - 1e-9)).astype(int)
    return k, cores / k


def tasks_at_once(cluster: Cluster) -> np.ndarray:
    """Per node: the tasks its executor runs at once — its worker's replica slots, max(slots, ⌈cores⌉), as the
    runtime gives them (model/layout.py, worker_layout). Tasks beyond that wait for a wave of their own. A
    node of fewer cores than slots (an emulated node's CPU quota, a fractional spec) runs them side by side
    on the cores it has."""
    k, _ = _slots(cluster)
    return np.maximum(k, np.array([n.slots for n in cluster.nodes], dtype=int))


def fetch_waits(arrays: Stages, cluster: Cluster) -> np.ndarray:
    """Per stage, the seconds its tasks wait for their shuffle input to cross the network: the longest one-way
    latency from a node of a parent group's stages to the stage's own node (0 when every input is local, and for
    the source stages). O(Σ_g stages_g · parent nodes_g)."""
    waits = np.zeros(len(arrays))
    for g, parents in enumerate(arrays.parents):
        if not parents:
            continue
        upstream = sorted_unique(np.concatenate([arrays.node[arrays.bounds[p]:arrays.bounds[p + 1]] for p in parents]))
        lo, hi = int(arrays.bounds[g]), int(arrays.bounds[g + 1])
        lat = cluster.latency_block(upstream, arrays.node[lo:hi])  # upstream × this group's stages (no n × n)
        lat = np.where(upstream[:, None] == arrays.node[None, lo:hi], 0.0, lat)
        waits[lo:hi] = lat.max(axis=0) / 1000.0
    return waits


def routed_inputs(arrays: Stages) -> int:
    """The routed inputs the placed runtime builds per micro-batch (spark/query/placed.py, build_placed): every
    chain's stage reads the union of its parent chains' outputs (a source's stage the micro-batch's rows) through
    one exchange, and the driver puts each input's rows into the chain's exchange and stage (planned once, at the
    first batch: jvm/ChainTemplate.java) and cuts the plan there (LocatedRDD) before the batch's first stage can
    start (``exchange_s`` each). O(groups + parent links): it grows with operators and streams, not with the
    nodes they are placed on."""
    return int(sum(max(1, len(parents)) for parents in arrays.parents))


def driver_build_s(exchanges: int, consts: SparkConstants) -> float:
    """The driver's build and planning of a placed micro-batch of X routed inputs: exchange_s · X +
    exchange_sq_s · X² (calibration.driver_probe fits both; each chain's plan is cut where its stage starts, so
    the square term is near 0). O(1)."""
    return consts.exchange_s * exchanges + consts.exchange_sq_s * exchanges * exchanges


def simulate(arrays: Stages, slots: np.ndarray, speed: np.ndarray, stage_s: float, task_s: float,
             per_tuple: float, jvm_cores: float = 0.0, fetch_s: np.ndarray | None = None,
             task_cpu_s: float | None = None, at_once: np.ndarray | None = None, stage_cpu_s: float = 0.0
             ) -> tuple[float, np.ndarray, np.ndarray]:
    """List-schedule one batch: (makespan, CPU seconds of tasks per node, finish time per stage).

    A group's stages are ready ``stage_s`` after the last stage of its parent groups finishes; ready stages take
    the earliest free slots of their node in order of readiness (groups in order of readiness, then of index);
    each task's CPU lasts (task_cpu_s + tuples · per_tuple · cost) / speed, plus ``fetch_s`` of its stage (the
    wait for its shuffle input to cross a link, fetch_waits; not CPU, so not scaled by speed). The rest of a
    task's fixed cost, task_s − task_cpu_s, is waiting that the tasks the node's executor runs at once
    (``at_once``, default its slots) overlap: a stage ends ⌈tasks / at_once⌉ such waits after its last task's CPU.
    ``task_cpu_s`` None: all of task_s is CPU. A group's stages sit on
    different nodes, so they are placed together, one wave of tasks at a time, vectorized over the group:
    O(G log G + Σ_g w_g · n_g) array work for G groups, n_g stages of at most w_g tasks each, instead of a Python
    step per task.
    """
    n = len(arrays.node)
    finish = np.zeros(n)
    if n == 0:
        return 0.0, np.zeros(len(slots)), finish
    u = arrays.node
    k = slots[u].astype(float)
    v = speed[u].astype(float)
    w = arrays.tasks
    spread = w / (k * np.ceil(w / k))  # Spark's per-tuple work spreads over the node's slots
    running = np.minimum(w, k)  # tasks at once: Spark's own threads take jvm_cores of the node from them
    share = np.minimum(1.0, np.maximum(k * v - jvm_cores, 0.05 * k) / (running * v))
    own = task_s if task_cpu_s is None else min(task_cpu_s, task_s)
    cpu = (own + arrays.tuples * per_tuple * (arrays.logic_ms + arrays.spark_ms * spread) / 1000.0) / (v * share)
    d = cpu if fetch_s is None else cpu + fetch_s
    concurrent = k if at_once is None else at_once[u].astype(float)
    # the stage's own set-up CPU on its node: within stage_s and task_s at full speed, stretched on a slower slot
    setup = stage_cpu_s * np.maximum(1.0 / (v * share) - 1.0, 0.0)
    waits = np.ceil(w / concurrent) * (task_s - own) + setup
    pool = np.where(np.arange(int(slots.max()))[None, :] < slots[:, None], 0.0, np.inf)  # free time per slot
    n_groups = len(arrays.parents)
    children: list[list[int]] = [[] for _ in range(n_groups)]
    waiting = np.zeros(n_groups, dtype=int)
    for g, parents in enumerate(arrays.parents):
        waiting[g] = len(parents)
        for p in parents:
            children[p].append(g)
    ready_at = np.zeros(n_groups)
    heap = [(stage_s, g) for g in range(n_groups) if not arrays.parents[g]]
    heapq.heapify(heap)
    while heap:
        ready, g = heapq.heappop(heap)
        lo, hi = int(arrays.bounds[g]), int(arrays.bounds[g + 1])
        nodes, dd, ww = u[lo:hi], d[lo:hi], w[lo:hi]
        end = np.full(hi - lo, ready)
        for t in range(int(ww.max())):
            act = slice(None) if t == 0 else ww > t
            rows = nodes[act]
            j = pool[rows].argmin(axis=1)
            done = np.maximum(pool[rows, j], ready) + dd[act]
            pool[rows, j] = done
            end[act] = np.maximum(end[act], done)
        end = end + waits[lo:hi]
        finish[lo:hi] = end
        last = float(end.max())
        for c in children[g]:
            waiting[c] -= 1
            ready_at[c] = max(ready_at[c], last)
            if waiting[c] == 0:
                heapq.heappush(heap, (ready_at[c] + stage_s, c))
    busy = np.bincount(u, weights=(cpu + task_s - own) * w, minlength=len(slots))  # a task's whole fixed cost
    return float(finish.max()), busy, finish


def predict(topology: Topology, cluster: Cluster, cells: Cells, rates: OperatorRates, settings: SparkSettings,
            scale: float = 1.0) -> SparkPrediction:
    """Capacity, trigger-bound rate, period, latency and busy shares of a plan on Spark at ``scale``."""
    consts = settings.constants
    arrays = build_stages(topology, cells, rates, consts)
    slots, speed = _slots(cluster)
    at_once = tasks_at_once(cluster)
    jvm = consts.jvm_cores
    fetch = fetch_waits(arrays, cluster) if len(cluster) > 1 else None
    driver_s = consts.batch_s + (driver_build_s(routed_inputs(arrays), consts) if len(cluster) > 1 else 0.0)

    def run(data_s: float) -> tuple[float, np.ndarray, np.ndarray]:
        return simulate(arrays, slots, speed, consts.stage_s, consts.task_s, data_s, jvm, fetch, consts.task_cpu_s,
                        at_once, consts.stage_cpu_s)

    fixed_span, _, _ = run(0.0)
    fixed = driver_s + fixed_span
    work, _, _ = simulate(arrays, slots, speed, 0.0, 0.0, 1.0, jvm)
    q, trig = settings.quantum_s, settings.trigger_s
    base = max(trig, q)
    capacity = 1.0 / work if work > 0 else math.inf
    trigger_scale = max(0.0, (base - fixed) / (base * work)) if work > 0 else (math.inf if fixed <= base else 0.0)

    def batch(s: float, data_s: float) -> tuple[float, np.ndarray]:
        span, busy, _ = run(s * data_s)
        return driver_s + span, busy

    if scale * work >= 1.0:  # cannot keep up: batches grow without bound, the nodes as busy as at capacity
        period = b = math.inf
        mean = worst = math.inf
        near, longest = (1.0 - 1e-3) / work, max(fixed, 1e-6) / 1e-3  # the period there: F / (1 − s·W)
        _, busy, _ = run(near * longest)
        busy = busy / (longest * cluster.cpu / 100.0)
    elif q > 0:  # whole quanta of data on a trigger: replay the batches (triggers.py) at the run's phase
        leads = [settings.lead_s] if settings.lead_s is not None else [q * (k + 0.5) / 8 for k in range(8)]
        shares: dict[int, np.ndarray] = {}
        times: dict[int, float] = {}  # shared by the replays of every phase: one simulation per batch size

        def batch_of(m: int) -> float:
            if m not in times:
                times[m], shares[m] = batch(scale, m * q)
            return times[m]

        runs = [replay(batch_of, trig, q, lead) for lead in leads]
        mean = 1000.0 * float(np.mean([r.latency_mean_s for r in runs]))
        worst = 1000.0 * max(r.latency_worst_s for r in runs)
        period = float(np.mean([r.period_s for r in runs]))
        b = float(np.mean([r.batch_s for r in runs]))
        # busy: the task seconds of the batches run over the time they span
        task_s = np.zeros(len(slots))
        spans = 0.0
        for r in runs:
            for m, n in r.batch_counts.items():
                task_s += n * shares[m]
            spans += r.period_s * sum(r.batch_counts.values())
        busy = task_s / (spans * cluster.cpu / 100.0) if spans > 0 else task_s
    else:  # a continuous source: the period is the fixed point P = B(s, P)
        b, busy = batch(scale, base)
        period = base
        if b > base:
            period = max(base, fixed / (1.0 - scale * work))
            for _ in range(50):  # the bound above is exact for chains; refine on the simulated batch time
                b, busy = batch(scale, period)
                if abs(b - period) <= 1e-6 * period:
                    break
                period = max(base, b)
        mean = 1000.0 * (period / 2 + b)
        worst = 1000.0 * (period + b)
        busy = busy / (period * cluster.cpu / 100.0)
    critical = None
    if len(arrays):
        u = arrays.node
        heaviest = int(np.argmax(arrays.tasks * arrays.tuples * (arrays.logic_ms + arrays.spark_ms)
                                 / (slots[u] * speed[u])))
        critical = (int(arrays.op[heaviest]), int(u[heaviest]))
    fused = tuple(dict.fromkeys(chain for chain in arrays.chains if len(chain) > 1))
    return SparkPrediction(capacity, trigger_scale, fixed, work, period, b, mean, worst, busy, len(arrays),
                           int(arrays.tasks.sum()), critical, scale, fused)


#: keys of ``spark.*`` that set SparkSettings; the rest set SparkConstants
RUN_KEYS = ("trigger_s", "quantum_s", "lead_s")
#: the longest trigger interval, source quantum or lead a prediction takes (a day): beyond it no stream runs
MAX_INTERVAL_S = 86_400.0


class SparkEngine(EngineModel):
    name = "spark"
    description = "micro-batches, the engine streamplace runs"
    settings_type = SparkSettings
    micro_batches = True
    fuses_operators = True
    per_tuple_batch_work = True
    reads_calibration = True

    def parameter_names(self) -> tuple[str, ...]:
        return (*RUN_KEYS, *(k for k in field_names(SparkConstants) if k != "origin"))

    def parse_value(self, key: str, value: Any, where: str) -> Any:
        return coerce_field(SparkSettings if key in RUN_KEYS else SparkConstants, key, value, where, f"spark.{key}")

    def apply(self, settings: SparkSettings, values: Mapping[str, Any], where: str) -> SparkSettings:
        run = {k: v for k, v in values.items() if k in RUN_KEYS}
        const = {k: v for k, v in values.items() if k not in RUN_KEYS}
        if run.get("trigger_s", 1.0) <= 0:
            raise ModelError([Problem(where, "spark.trigger_s must be > 0", "give the trigger interval in seconds")])
        for k in RUN_KEYS:
            if (run.get(k) or 0.0) > MAX_INTERVAL_S:
                raise ModelError([Problem(where, f"spark.{k} must be at most {MAX_INTERVAL_S:,.0f} s (a day), got "
                                          f"{run[k]:g}", "give an interval in seconds, e.g. 1")])
        lead = run.get("lead_s", settings.lead_s)
        if lead is not None and lead >= run.get("quantum_s", settings.quantum_s) > 0:
            raise ModelError([Problem(where, f"spark.lead_s must be below spark.quantum_s, got {lead}",
                                      "give the seconds from a source second's end to its trigger, e.g. 0.05")])
        consts = settings.constants
        if const:
            consts = dataclasses.replace(consts, **const, origin=f"{consts.origin}, with {where} overrides")
        return dataclasses.replace(settings, **run, constants=consts)

    def describe(self, settings: SparkSettings) -> dict[str, Any]:
        return {"trigger_s": settings.trigger_s, "quantum_s": settings.quantum_s, "lead_s": settings.lead_s,
                **settings.constants.as_dict()}

    def revise(self, settings: SparkSettings, inputs: EngineInputs, figures: EngineFigures) -> EngineFigures:
        """Micro-batches instead of pipelined replicas: the capacity, latency and busy shares of the batches
        (``predict``), the network still bounding the scale (shuffles cross it too)."""
        topology, cluster, streams = inputs.topology, inputs.cluster, inputs.streams
        sp = predict(topology, cluster, inputs.cells, inputs.rates, settings)
        op, node = sp.critical if sp.critical is not None else (None, None)
        network = bandwidth_scale(cluster, streams.node_traffic, streams.rack_traffic)
        limit = ScaleLimit(sp.capacity_scale, "spark", node=node, op=op)
        if network.scale < limit.scale:
            limit = network
        detail = {"trigger_s": settings.trigger_s, "batch_fixed_s": sp.fixed_s, "batch_s": sp.batch_s,
                  "period_s": sp.period_s, "work_s_per_scale_second": sp.work_s,
                  "trigger_throughput": inputs.offered * sp.trigger_scale, "stages": sp.stages, "tasks": sp.tasks,
                  "fused": [list(chain) for chain in sp.fused], "constants": settings.constants.origin}
        return EngineFigures(limit, sp.latency_worst_ms, sp.latency_mean_ms, sp.busy, detail)

    def bottleneck(self, limit: ScaleLimit, topology: Topology, cluster: Cluster) -> str | None:
        if limit.kind == "spark" and limit.op is not None and limit.node is not None:
            return (f"Spark micro-batches: per-tuple work of the stages, the heaviest "
                    f"{topology.operators[limit.op].id} on {cluster.nodes[limit.node].id}")
        return None

    def summary_rows(self, detail: Mapping[str, Any]) -> list[tuple[str, Any]]:
        if not detail:
            return []
        return [(label, detail.get(key)) for key, label in (
            ("trigger_s", "Spark trigger (s)"), ("batch_fixed_s", "Spark fixed time per batch (s)"),
            ("batch_s", "Spark batch time at these rates (s)"), ("period_s", "Spark batch period (s)"),
            ("trigger_throughput", "throughput within the trigger (t/s)"), ("stages", "Spark stages"),
            ("constants", "Spark constants"))]
