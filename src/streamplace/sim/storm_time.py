"""Storm over time: a time-stepped fluid model of placed Storm topologies, so that overload has its dynamics.

The ``storm`` engine (perf/engines/storm.py) is a steady-state model: it says which rate a plan sustains, not
what happens above it. This model steps the same executors through time (Δt, default 50 ms) and keeps what a
steady state has no room for: queues, acking with ``max_spout_pending``, tuple time-outs and replays. It is a
pure function of (topologies, plans, cluster, settings, duration, load): no clock, no randomness.

What is modelled, per step Δt (cells: the replicas of one operator on one node, storm_net.py):

* **Sources.** A spout cell's offered data (its share of the source rate × ``load``) joins a backlog (the
  queue outside Storm, e.g. Kafka); replayed tuples wait in a second backlog and go first. A spout emits what
  its threads' CPU and — with acking and ``max_spout_pending`` P — flow control allow; what it emits is in
  flight at once, and waits in the spout's outgoing queue (Storm 0.9's unbounded Netty buffers) until its NIC
  takes it.
* **Executors.** Every bolt cell has a FIFO input queue of fluid tuples, kept by *cohort* (the time bin, of
  ``bin_s``, in which their root tuple left the spout), so that ages, time-outs and completions can be told.
  A step serves operators in topological order, so a tuple can cross the whole topology within one step when
  nothing is queued (queueing variability below capacity is in the M/M/1 term below, not in the fluid).
* **CPU.** Each replica is a thread of at most one core less its fixed overhead (MET); a node's cores (× the
  cluster's utilization limit, less every replica's MET) are shared equally among its busy threads (processor
  sharing, water-filling over their demands — estimated from the queue and last step's arrivals — then what is
  left over shared the same way). A tuple costs its operator's e plus the serialization of its remote output
  and the deserialization of its remote input (the storm engine's per-tuple costs; here the executor's
  thread pays them).
* **Network.** Every NIC (each direction) and every rack uplink (each direction) carries at most its
  bandwidth per step. Where the cells' estimated sending would overfill one, the senders share it max-min
  fairly (``nic_sharing="fair"``: each sending cell's bytes rise at one pace until it has what it wants or a
  resource it uses is full — TCP connections through one bottleneck) or in proportion to what they offer
  (``"fifo"``: one queue per resource); within the step no resource is ever overfilled. The rest waits in the
  sender's queue. Below capacity nothing is held.
* **Acking, time-outs, replays.** A root tuple is complete when its cohort's share has reached every sink
  (min over the sinks of the share processed there). A cohort older than ``timeout_s``
  (``topology.message.timeout.secs``, 30 s) fails: what of it is not complete is counted failed, re-emitted by a
  reliable spout (``replay``), and — as in Storm — stays in the queues and is still processed (wasted work),
  no longer counted in flight, so the spout may emit more.
* **Flow control.** With P set, a topology's spouts keep at most P × (spout replicas) root tuples in flight:
  the queued ones (fluid, ``live``) plus rate × L in service and on the wire, L the complete latency of the
  storm engine at the current per-replica rates (M/M/1 per operator, mean link latencies, the ack's way back:
  Little's law, as in the steady-state engine). A step emits what came free in it (completions and time-outs,
  smoothed over 0.15 s) plus the gap P·n − live − rate·L closed by d(live)/dt = (P·n − live)/L − c over the
  step (at most half of it: completions lag a step). The fluid cannot hold a window smaller than what one
  step carries: keep Δt below P·n / (root tuples per second), or the window empties within a step and the
  emission alternates (pageload-net at P = 10: −26 % at Δt = 50 ms, −5 % at 10 ms).

Reported per sample (``sample_s``) and per topology: spout emissions, sink throughput (tuples the sinks process,
timed-out ones included — what the R-Storm paper measures at its output bolts), goodput (sink tuples of root
tuples completed within the time-out), failures, replays, tuples queued, in flight, complete latency
(Little's law over the live tuples in flight plus the M/M/1 and link latency) and per-node CPU use.

What-if, e.g. a plan at 1.5 × the rate the steady-state engine says it sustains::

    limit = evaluate(topology, cluster, plan, engine=EngineSettings("storm")).sustainable_scale
    result = simulate_storm([topology], [plan], cluster, 300.0, load=1.5 * limit)
    result.summary()  # per topology: throughput, goodput, latency, failures, replays, queue at the end
    write_series(result.series(), "run.csv")  # sim/series.py: one row per second

Not modelled: acker executors' CPU and ack traffic, the transfer and receive threads as threads of their own,
bounded (disruptor) queues and back-pressure (Storm < 1.0 has none: queues grow), GC, worker failures.

Cost: O(steps · (Σ_k cells_i·cells_j·bins + cells·resources + cells·rounds)) with numpy doing the per-element
work, bins = timeout / ``bin_s`` + 2 (62 by default), rounds ≤ the most cells on a node (CPU water-filling)
and ≤ cells + resources (network, only in a step where one is full); the topological order is walked in Python
per step, and with flow control the storm engine's path latency is recomputed per step (O(operators +
streams)). §6.5 (2 topologies, 335 replicas on 24 nodes) runs 120 s of Storm in 3–4 s of CPU at Δt = 50 ms
(300 s in 8–10 s; R-Storm's plans and the default's, 2 runs each, 2026-11-29).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.engines import StormSettings
from streamplace.perf.latency import path_latency
from streamplace.sim.storm_net import StormNet, build_net


@dataclass(frozen=True)
class StormTimeSettings:
    dt_s: float = 0.05  # step
    bin_s: float = 0.5  # cohort width: ages, time-outs and completions are told to this resolution
    timeout_s: float = 30.0  # topology.message.timeout.secs (Storm's default)
    max_spout_pending: int | None = None  # per spout replica; None: Storm's default (no flow control)
    acking: bool = True  # Storm's default (one acker per worker); off: no time-outs, no flow control
    replay: bool = True  # reliable spouts re-emit failed tuples
    sample_s: float = 1.0  # one row of the time series per sample
    nic_sharing: str = "fair"  # how a full NIC or uplink is shared: "fair" (per sender, as TCP) or "fifo" (by rate)
    storm: StormSettings = field(default_factory=StormSettings)  # the per-tuple serialization costs

    def __post_init__(self) -> None:
        if not (self.dt_s > 0 and self.bin_s >= self.dt_s and self.timeout_s > 0 and self.sample_s >= self.dt_s):
            raise ValueError("storm time model: need dt_s > 0, bin_s ≥ dt_s, timeout_s > 0, sample_s ≥ dt_s")
        if self.nic_sharing not in ("fair", "fifo"):
            raise ValueError(f"storm time model: nic_sharing is 'fair' or 'fifo', got {self.nic_sharing!r}")


@dataclass(frozen=True)
class TopologySummary:
    name: str
    offered: float  # sink tuples/s the sources offer (at the load given)
    throughput: float  # sink tuples/s processed, timed-out ones included (mean over the window)
    goodput: float  # sink tuples/s of root tuples completed within the time-out
    latency_ms: float  # mean complete latency
    failed: float  # root tuples/s timed out
    replayed: float  # root tuples/s re-emitted
    queued_end: float  # tuples queued at the end
    steady_state: float  # the storm engine's sink throughput alone: offered × min(1, sustainable scale) at load

    @property
    def starving(self) -> bool:
        """Goodput below 1 % of what it is offered (and of what the steady state gives it)."""
        return self.goodput < 0.01 * min(self.offered, self.steady_state)


@dataclass(frozen=True)
class StormTimeResult:
    """Time series (rows: samples, columns: topologies, or nodes for ``cpu_util``) and the model's inputs."""

    names: tuple[str, ...]
    time_s: np.ndarray  # end of each sample
    offered: np.ndarray  # per topology, sink tuples/s offered
    emitted: np.ndarray  # root tuples/s leaving the spouts
    throughput: np.ndarray
    goodput: np.ndarray
    failed: np.ndarray
    replayed: np.ndarray
    queued: np.ndarray  # tuples queued at the sample's end (bolts' input, spouts' output waiting for the NIC)
    in_flight: np.ndarray  # root tuples in flight (fluid + rate × latency)
    latency_ms: np.ndarray
    cpu_util: np.ndarray  # per node, share of its CPU busy
    steady_state: np.ndarray  # per topology, the storm engine's delivered sink throughput at the load
    net: StormNet = field(repr=False)

    def summary(self, from_s: float | None = None) -> list[TopologySummary]:
        """Means over the samples ending after ``from_s`` (default: the second half of the run)."""
        start = self.time_s[-1] / 2 if from_s is None else from_s
        w = self.time_s > start + 1e-9
        if not w.any():
            w = np.ones(len(self.time_s), dtype=bool)
        out = []
        for t, name in enumerate(self.names):
            lat = self.latency_ms[w, t]
            lat = lat[np.isfinite(lat)]
            out.append(TopologySummary(name, float(self.offered[t]), float(self.throughput[w, t].mean()),
                                       float(self.goodput[w, t].mean()), float(lat.mean()) if lat.size else math.inf,
                                       float(self.failed[w, t].mean()), float(self.replayed[w, t].mean()),
                                       float(self.queued[-1, t]), float(self.steady_state[t])))
        return out

    def series(self) -> dict[str, np.ndarray]:
        """One column per (quantity, topology), for sim.series.write_series."""
        cols: dict[str, np.ndarray] = {"time_s": self.time_s}
        for q in ("emitted", "throughput", "goodput", "failed", "replayed", "queued", "in_flight", "latency_ms"):
            arr = getattr(self, q)
            for t, name in enumerate(self.names):
                cols[f"{name}.{q}"] = arr[:, t]
        return cols


def share_cpu(want: np.ndarray, node: np.ndarray, count: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """CPU (ms) per cell when each node's ``budget`` is shared equally among its threads (``count`` per cell),
    none getting more than its cell's ``want`` / count: progressive filling, O(cells · rounds), rounds ≤ the
    most cells on one node."""
    n = len(budget)
    alloc = np.zeros(len(want))
    active = want > 0
    remaining = np.maximum(budget, 0.0).astype(float)
    while active.any():
        threads = np.bincount(node[active], weights=count[active], minlength=n)
        level = np.divide(remaining, threads, out=np.zeros(n), where=threads > 0)
        offer = level[node] * count
        sat = active & (want <= offer * (1 + 1e-12))
        if not sat.any():
            alloc[active] = offer[active]
            break
        alloc[sat] = want[sat]
        remaining -= np.bincount(node[sat], weights=want[sat], minlength=n)
        remaining = np.maximum(remaining, 0.0)
        active &= ~sat
    return alloc


def _t_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a.T @ b`` summed in one order on every machine. A matrix product goes through BLAS, whose kernel
    (chosen for the CPU at run time) orders and fuses the sums its own way; the model feeds its queues back
    into themselves for thousands of steps, so those last-bit differences grew into 0.02 % of a sink's
    throughput between two machines (R-Storm §6.5, Processing with 30 pending: 23,095 against 23,090 t/s).
    einsum without ``optimize`` uses no BLAS. Small operands (cells × resources, cells × cohorts)."""
    return np.einsum("ij,i...->j...", a, b)


def _fifo_take(q: np.ndarray, served: np.ndarray) -> np.ndarray:
    """What ``served`` tuples per row take from cohort rows ``q`` (oldest column first)."""
    before = np.cumsum(q, axis=1) - q
    return np.minimum(q, np.maximum(served[:, None] - before, 0.0))


def _loads(load: float | Sequence[float], n: int) -> np.ndarray:
    if isinstance(load, int | float):
        return np.full(n, float(load))
    out = np.asarray(list(load), dtype=float)
    if out.shape != (n,):
        raise ValueError(f"storm time model: {len(out)} loads for {n} topologies")
    return out


def simulate_storm(topologies: Sequence[Topology], plans: Sequence[Plan | Mapping[str, Mapping[str, int]]],
                   cluster: Cluster, duration_s: float, settings: StormTimeSettings | None = None,
                   load: float | Sequence[float] = 1.0) -> StormTimeResult:
    """Step the topologies, placed by ``plans`` and sharing ``cluster``, for ``duration_s`` seconds of Storm with
    their sources at ``load`` × their offered rates (module docstring)."""
    st = settings or StormTimeSettings()
    net = build_net(topologies, plans, cluster, st.storm)
    return run(net, cluster, duration_s, st, _loads(load, len(topologies)))


def run(net: StormNet, cluster: Cluster, duration_s: float, st: StormTimeSettings, loads: np.ndarray
        ) -> StormTimeResult:
    """The stepping loop over a built :class:`StormNet` (``simulate_storm``)."""
    n_t, n_c, n_n = len(net.topologies), net.n_cells, len(cluster)
    dt = st.dt_s
    steps = round(duration_s / dt)
    per_bin = max(1, round(st.bin_s / dt))
    per_sample = max(1, round(st.sample_s / dt))
    bins = math.ceil(st.timeout_s / (per_bin * dt)) + 1
    nb = bins + 1  # column 0: timed out (stale), 1 … bins: cohorts, oldest first
    acking = st.acking
    pending = st.max_spout_pending if acking else None

    cost = net.e + net.e_net
    step_ms = dt * 1000.0
    thread_cap = net.count * np.maximum(100.0 - net.met, 0.0) / 100.0 * step_ms
    fixed = np.bincount(net.node, weights=net.count * net.met, minlength=n_n)
    budget = np.maximum(cluster.utilization_limit * cluster.cpu - fixed, 0.0) / 100.0 * step_ms
    res_cap = net.capacity * dt
    uses = net.coef > 0

    spout = np.zeros(n_c, dtype=bool)
    offered_c = np.zeros(n_c)  # root tuples/s per spout cell at the load
    spout_share = np.zeros(n_c)  # share of its topology's spout replicas
    sink_rows: list[list[tuple[int, float]]] = [[] for _ in range(n_t)]  # per topology: (D row, gain)
    op_sink_row: dict[int, int] = {}
    for k, op in enumerate(net.ops):
        cs = op.cells
        if op.source:
            spout[cs] = True
            offered_c[cs] = op.offered * loads[op.topo] * net.share[cs]
            spout_share[cs] = net.count[cs] / max(net.n_spouts[op.topo], 1.0)
        if op.sink and op.gain > 0:
            op_sink_row[k] = len(op_sink_row)
            sink_rows[op.topo].append((op_sink_row[k], op.gain))
    offered_sink = net.source_total * loads * net.sink_gain
    steady = np.array([ev.offered_throughput * loads[t] * min(1.0, ev.sustainable_scale / loads[t])
                       if loads[t] > 0 else 0.0 for t, ev in enumerate(net.evaluations)])

    q = np.zeros((n_c, nb))
    backlog = np.zeros(n_c)
    replay = np.zeros(n_c)
    emitted_bins = np.zeros((n_t, nb))
    sink_bins = np.zeros((max(len(op_sink_row), 1), nb))
    done_prev = np.zeros((n_t, nb))
    arrived_prev = np.zeros(n_c)
    freed_rate = np.zeros(n_t)  # root tuples/s completed or timed out (slots coming free), smoothed over ~0.15 s
    fc_w = min(1.0, dt / 0.15)
    rate_ema = np.zeros(n_c)  # tuples/s per cell, smoothed over ~1 s (for the M/M/1 term)
    ema_w = min(1.0, dt / 1.0)
    micro_ms = np.zeros(n_t)

    n_samples = steps // per_sample
    shape = (n_samples, n_t)
    out = {k: np.zeros(shape) for k in ("emitted", "throughput", "goodput", "failed", "replayed", "queued",
                                        "in_flight", "latency_ms")}
    cpu_util = np.zeros((n_samples, n_n))
    acc = {k: np.zeros(n_t) for k in ("emitted", "throughput", "goodput", "failed", "replayed")}
    acc_cpu = np.zeros(n_n)
    flight = np.zeros(n_t)

    for step in range(steps):
        freed_now = np.zeros(n_t)
        if step and step % per_bin == 0:  # cohorts age by one bin; the oldest live one times out
            if acking:
                done = _completed(emitted_bins, sink_bins, sink_rows)
                failed = emitted_bins[:, 1] - done[:, 1]
                acc["failed"] += failed
                freed_now += failed
                if st.replay:
                    replay += failed[net.topo] * spout_share * spout
            for arr in (q, emitted_bins, sink_bins, done_prev):
                arr[:, 0] += arr[:, 1]
                arr[:, 1:-1] = arr[:, 2:]
                arr[:, -1] = 0.0
        backlog += offered_c * dt

        src_avail = backlog + replay
        if pending is not None:  # at most P × spout replicas in flight (module docstring)
            live = emitted_bins[:, 1:].sum(axis=1) - done_prev[:, 1:].sum(axis=1)
            micro_ms = _micro_latency_ms(net, rate_ema)
            # slots free at the rate c tuples complete or time out (smoothed); between, the tuples in flight relax
            # towards P·n at the rate Little's law allows, d(live)/dt = (P·n − live)/L − c, solved over the step
            lat_s = np.maximum(micro_ms / 1000.0, 1e-9)
            relax = np.minimum(-np.expm1(-dt / lat_s), 0.5)  # at most half the gap a step: completions lag a step
            step_cap = freed_rate * dt + (pending * net.n_spouts - freed_rate * lat_s - live) * relax
            src_avail = np.minimum(src_avail, np.maximum(step_cap, 0.0)[net.topo] * spout_share)
        queued = q.sum(axis=1)
        work = np.where(spout, src_avail, queued + arrived_prev)  # tuples a cell would serve (spouts: emit)
        alloc = share_cpu(np.minimum(work * cost, thread_cap), net.node, net.count, budget)
        # what the demands (estimated from last step's arrivals) leave of a node, its threads share as well:
        # a thread whose input comes within this step is not held to last step's
        spare = budget - np.bincount(net.node, weights=alloc, minlength=n_n)
        alloc += share_cpu(thread_cap - alloc, net.node, net.count, spare)
        cpu_cap = np.divide(alloc, cost, out=np.full(n_c, np.inf), where=cost > 0)
        will = np.minimum(work, cpu_cap)
        # what each cell would send: a spout what it emits and its held tuples as if they came again within ~1 s
        net_cap = _network_caps(net, np.where(spout, will + queued * ema_w, will), res_cap, uses,
                                st.nic_sharing == "fair")

        served_all = np.zeros(n_c)
        arrived = np.zeros(n_c)
        room = res_cap.copy()  # what the NICs and uplinks carry in the rest of this step
        for k, op in enumerate(net.ops):
            cs = op.cells
            if cs.start == cs.stop:
                continue
            if op.source:  # emit what CPU (and flow control) allow; the spout's queue is what the NIC holds
                served = will[cs]
                from_replay = np.minimum(served, replay[cs])
                replay[cs] -= from_replay
                backlog[cs] -= served - from_replay
                emitted_bins[op.topo, -1] += served.sum()
                acc["emitted"][op.topo] += served.sum()
                acc["replayed"][op.topo] += from_replay.sum()
                q[cs, -1] += served
                send = _fit(net.coef[cs], np.minimum(q[cs].sum(axis=1), net_cap[cs]), room)
                take = _fifo_take(q[cs], send)
                q[cs] -= take
                outgoing = take * net.alpha[cs][:, None]
            else:
                served = _fit(net.coef[cs], np.minimum(np.minimum(q[cs].sum(axis=1), cpu_cap[cs]), net_cap[cs]), room)
                take = _fifo_take(q[cs], served)
                q[cs] -= take
                outgoing = take * net.alpha[cs][:, None]
                if k in op_sink_row:  # root tuples: one per copy an all-grouped input made, per gain
                    sink_bins[op_sink_row[k]] += take.sum(axis=0) / (op.gain * op.copies)
                if op.sink:
                    acc["throughput"][op.topo] += served.sum() / op.copies
            served_all[cs] = served
            for li in op.out:
                link = net.links[li]
                incoming = _t_dot(link.w, outgoing)
                q[link.tgt] += incoming
                arrived[link.tgt] += incoming.sum(axis=1)
        arrived_prev = arrived
        acc_cpu += np.bincount(net.node, weights=served_all * cost, minlength=n_n)
        rate_ema += ema_w * (served_all / dt - rate_ema)

        done = _completed(emitted_bins, sink_bins, sink_rows) if acking else done_prev
        if acking:
            completed = (done[:, 1:] - done_prev[:, 1:]).sum(axis=1)
            acc["goodput"] += completed * net.sink_gain
            freed_now += completed
            done_prev = done
        freed_rate += fc_w * (freed_now / dt - freed_rate)

        if (step + 1) % per_sample == 0:
            row = (step + 1) // per_sample - 1
            span = per_sample * dt
            for key, v in acc.items():
                out[key][row] = v / span
                v[:] = 0.0
            if not acking:
                out["goodput"][row] = out["throughput"][row]
            flight = emitted_bins[:, 1:].sum(axis=1) - done_prev[:, 1:].sum(axis=1) if acking else np.zeros(n_t)
            if pending is None:
                micro_ms = _micro_latency_ms(net, rate_ema)
            rate = out["emitted"][row]
            with np.errstate(divide="ignore", invalid="ignore"):
                fluid_ms = np.where(rate > 0, flight / rate * 1000.0, np.where(flight > 0, np.inf, 0.0))
            out["latency_ms"][row] = fluid_ms + micro_ms
            out["in_flight"][row] = flight + rate * micro_ms / 1000.0
            out["queued"][row] = np.bincount(net.topo, weights=q.sum(axis=1), minlength=n_t)
            cpu_util[row] = acc_cpu / np.maximum(cluster.cpu / 100.0 * span * 1000.0, 1e-12)
            acc_cpu[:] = 0.0
    times = (np.arange(n_samples) + 1) * per_sample * dt
    return StormTimeResult(tuple(t.name for t in net.topologies), times, offered_sink, out["emitted"],
                           out["throughput"], out["goodput"], out["failed"], out["replayed"], out["queued"],
                           out["in_flight"], out["latency_ms"], cpu_util, steady, net)


def _network_caps(net: StormNet, est: np.ndarray, res_cap: np.ndarray, uses: np.ndarray, fair: bool) -> np.ndarray:
    """Tuples each cell may serve this step so that no NIC or uplink carries more than ``res_cap``, from the
    estimated service ``est`` (inf where nothing holds a cell), by progressive filling:

    * ``fair`` (TCP-like): every sending cell's bytes rise at one pace (on the resource it loads most), each
      stopping at its estimate or when a resource it uses fills — max-min fair shares, as TCP connections
      through one bottleneck get;
    * otherwise (one FIFO queue per resource): one common fraction of every cell's estimate rises, the cells of
      a resource that fills stopping there — each resource's senders share it in proportion to what they offer.

    O(cells · resources · rounds); rounds ≤ cells + resources, none when no resource is over."""
    cap = np.full(len(est), np.inf)
    if not (_t_dot(net.coef, est) > res_cap).any():
        return cap
    size = net.coef.max(axis=1)  # bytes per tuple on the resource a cell loads most
    active = (est > 0) & (size > 0)
    # the pace: tuples per unit of level; fair: level in bytes (est·size at the cell's own estimate)
    pace = np.where(size > 0, 1.0 / np.where(size > 0, size, 1.0), 0.0) if fair else est.astype(float)
    reach = np.where(pace > 0, est / np.where(pace > 0, pace, 1.0), np.inf)  # level at which a cell has its est
    room = res_cap.astype(float).copy()
    level = 0.0
    while active.any():
        slope = _t_dot(net.coef[active], pace[active])  # bytes per unit of level on each resource
        with np.errstate(divide="ignore", invalid="ignore"):
            rise = np.where(slope > 0, room / slope, np.inf)
        step = min(float(rise.min()), float(reach[active].min()) - level)
        step = max(step, 0.0)
        level += step
        room -= slope * step
        done = active & (reach <= level * (1 + 1e-9))
        full = rise <= step * (1 + 1e-9)
        stop = active & ~done & (uses[:, full].any(axis=1)) if full.any() else np.zeros_like(active)
        cap[stop] = level * pace[stop]
        active &= ~(done | stop)
        if not (done.any() or stop.any()):
            break
    return cap


def _fit(coef: np.ndarray, served: np.ndarray, room: np.ndarray) -> np.ndarray:
    """``served`` scaled down where the bytes it puts on a resource exceed the ``room`` left on it this step
    (each cell by the least fraction over the resources it uses); ``room`` is reduced by what is carried."""
    use = _t_dot(coef, served)
    over = use > room * (1 + 1e-12)
    if over.any():
        frac = np.where(over, room / np.where(over, use, 1.0), 1.0)
        served = served * np.where(coef > 0, frac[None, :], 1.0).min(axis=1)
        use = _t_dot(coef, served)
    room -= np.minimum(use, room)
    return served


def _completed(emitted: np.ndarray, at_sinks: np.ndarray, rows: list[list[tuple[int, float]]]) -> np.ndarray:
    """Per topology and cohort, the root tuples complete: the least share of the cohort any sink has processed
    (capped at what was emitted)."""
    done = np.zeros_like(emitted)
    for t, sink_list in enumerate(rows):
        if sink_list:
            least = np.min(at_sinks[[r for r, _ in sink_list]], axis=0)
            done[t] = np.minimum(least, emitted[t])
    return done


def _micro_latency_ms(net: StormNet, rate: np.ndarray) -> np.ndarray:
    """Per topology, the storm engine's complete latency (mean path of M/M/1 responses and link latencies, plus
    the ack's way back) at per-replica rates ``rate`` / count, each replica held below 99 % busy (above that the
    fluid queue carries the wait)."""
    out = np.zeros(len(net.topologies))
    for t, (topology, ev) in enumerate(zip(net.topologies, net.evaluations, strict=True)):
        cells = ev.cells
        mine = np.flatnonzero(net.topo == t)
        per = np.zeros(len(mine))
        per[net.perms[t]] = rate[mine] / np.maximum(net.count[mine], 1.0)
        mu = np.where(cells.e > 0, 1000.0 / np.where(cells.e > 0, cells.e, 1.0), np.inf)
        per = np.minimum(per, 0.99 * mu)
        now = dataclasses.replace(cells, rate=per)
        paths = path_latency(topology, now, ev.streams.worst_latency_ms, ev.streams.mean_latency_ms)
        out[t] = paths.mean_ms + paths.links_only_ms
    return out
