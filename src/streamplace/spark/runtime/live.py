"""A pipeline under an elastic policy: measure each interval, re-plan, re-enact from the checkpoint; survive node loss.

Re-enacting is Storm's rebalance done the Structured Streaming way: the running
query stops between micro-batches, a new query with the new parallelism and
placement starts from the same checkpoint (source offsets, commits, operator
state), so the rows that arrived meanwhile are processed by the new plan and the
per-batch sinks keep every tuple exactly once. An operator whose parallelism
changed restarts its state empty (state.py).

With a standalone cluster the loop also watches the master's list of live
workers (every ``poll_s``): when a planned node disappears, the query is stopped
(its stage for that node can never get an executor), the same replica counts are
placed on the surviving nodes, and the new plan starts from the checkpoint. The
recovery time is from the loss (the kill, when this loop injected it; else its
detection) to the first tuple at a sink under the new plan.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamplace.elastic.live_policies import Observation, Policy, place_counts, placed, shrink
from streamplace.errors import StreamplaceError
from streamplace.model.cluster import Cluster
from streamplace.model.layout import WorkerLayout
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.spark.events import EventKind, RunEnd, RunEvent, RunListener
from streamplace.spark.query.build import pipeline_for
from streamplace.spark.query.metrics import Snapshot
from streamplace.spark.query.operators import ROWS_IN
from streamplace.spark.query.pipeline import Pipeline, PipelineConfig
from streamplace.spark.runtime.run import measure
from streamplace.spark.runtime.watch import BatchWatch


@dataclass
class LiveEvent:
    at_s: float
    kind: EventKind  # start, replan, node-lost
    replicas: dict[str, dict[str, int]]
    detail: str = ""
    #: from the old query's stop (a node loss: from the loss) to the first tuple at a sink under the new plan
    pause_s: float | None = None
    detected_s: float | None = None  # node loss: from the loss to its detection


@dataclass
class LiveResult:
    duration_s: float
    events: list[LiveEvent] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)
    final: Plan | None = None
    #: the faults injected: {"at_s": seconds after the start, "what": ...}
    faults: list[dict[str, Any]] = field(default_factory=list)
    started_at: float = 0.0  # when the loop started, seconds since the epoch (its events' zero)

    def to_dict(self) -> dict[str, Any]:
        return {"duration_s": self.duration_s, "started_at": self.started_at, "faults": self.faults,
                "events": [dataclasses.asdict(e) for e in self.events],
                "observations": self.observations,
                "final_replicas": placed(self.final.replicas) if self.final else {}}


Fault = tuple[float, str, Callable[[], object]]  # (at seconds, what, action); what an action returns is not used


@dataclass
class _Loop:
    """What the live loop carries from one look to the next: the counters its interval is measured from, when it
    next reasons, the cluster it plans on (shrunk by lost nodes), and when the last fault was injected."""

    before: Snapshot
    next_reason: float
    cluster: Cluster
    fault_at: float | None = None


class LiveRun:
    """One topology under one policy, on local Spark or a standalone cluster (``workers``)."""

    def __init__(self, spark: Any, topology: Topology, cluster: Cluster, policy: Policy, cfg: PipelineConfig,
                 interval_s: float = 10.0, alive: Callable[[], set[str] | None] | None = None, poll_s: float = 1.0,
                 settle_intervals: int = 1, restarts: int = 3, restart_delay_s: float = 10.0):
        self.spark, self.topology, self.cluster, self.policy = spark, topology, cluster, policy
        self.cfg, self.interval_s, self.alive, self.poll_s = cfg, interval_s, alive, poll_s
        self.settle_intervals = settle_intervals
        #: a failed query (a full disk, a task failing every attempt) is started again from its checkpoint with the
        #: same plan after ``restart_delay_s``, at most ``restarts`` times in a run (Flink's fixed-delay restart
        #: strategy); then the run fails with the query's error
        self.restarts, self.restart_delay_s = restarts, restart_delay_s
        self._settle = 0
        self.pipeline: Pipeline | None = None
        self.plan: Plan | None = None
        self.lost: set[str] = set()
        self.started = time.perf_counter()  # when run() began: the zero of its events' times
        self._pending: LiveEvent | None = None  # waiting for the first sink tuple of a new plan
        self._since = 0.0  # when that wait began (perf_counter)
        self._listener: RunListener = RunListener()  # run()'s: hears every enactment (_enact)

    @property
    def workers(self) -> list[WorkerLayout] | None:
        if self.cfg.workers is None:
            return None
        return [w for w in self.cfg.workers if w.node not in self.lost]

    @property
    def slots(self) -> dict[str, int] | None:
        return {w.node: w.replica_slots for w in self.workers} if self.workers is not None else None

    def run(self, duration_s: float, faults: list[Fault] | None = None,
            listener: RunListener | None = None) -> LiveResult:
        """Run for ``duration_s``; ``listener`` hears the run (events.py): each plan enacted (the first, a
        re-plan, a lost node's replicas re-placed; with the plan), each fault and decision as it is taken, the
        micro-batches as they end (looked for at every poll) and the end, with the result or the error; its
        times are seconds after the loop started (``started``)."""
        self._listener = listener if listener is not None else RunListener()
        self.started = time.perf_counter()
        try:
            result = self._run(duration_s, faults)
        except BaseException as exc:
            self._listener.on_end(RunEnd(time.perf_counter() - self.started, error=exc))
            raise
        self._listener.on_end(RunEnd(time.perf_counter() - self.started, result=result))
        return result

    def _run(self, duration_s: float, faults: list[Fault] | None) -> LiveResult:
        """The loop: every ``poll_s``, inject the faults that are due, restart a failed query, tell the listener
        of ended micro-batches, re-place a lost node's replicas, and every ``interval_s`` measure and decide."""
        result = LiveResult(duration_s, started_at=time.time() - (time.perf_counter() - self.started))
        started = self.started
        watch = BatchWatch(self.topology, self._listener, started)
        clock = lambda: time.perf_counter() - started  # noqa: E731
        pending = sorted(faults or [], key=lambda f: f[0])
        plan = self.policy.initial(self.cluster)
        self._enact(plan, result, LiveEvent(0.0, "start", placed(plan.replicas), f"{self.policy.name}: first plan"),
                    started)
        assert self.pipeline is not None and self.plan is not None  # _enact set them
        loop = _Loop(Snapshot.take(self.pipeline.stats), self.interval_s, self.cluster)
        try:
            while (now := clock()) < duration_s:
                time.sleep(min(self.poll_s, max(0.0, duration_s - now)))
                now = clock()
                self._inject_due(pending, loop, result, now, clock)
                self._check_first_output()
                if (failure := self._failure()) is not None:
                    self._restart(failure, result, now)
                    self._measure_afresh(loop, clock())
                    continue
                watch.look(self.pipeline, len(result.events))
                if self._replaced_lost_nodes(loop, result, now):
                    self._measure_afresh(loop, clock())
                    continue
                if now >= loop.next_reason:
                    self._reason(loop, result, now)
        finally:
            if self.pipeline is not None:
                self.pipeline.stop()
        self._check_first_output()
        result.final = self.plan
        return result

    def _inject_due(self, pending: list[Fault], loop: _Loop, result: LiveResult, now: float,
                    clock: Callable[[], float]) -> None:
        """Run the faults due by ``now`` (in time order), each recorded and said; one that cannot be injected is
        said, not a crash. The last one injected starts the clock of a node loss it causes."""
        while pending and pending[0][0] <= now:
            _, what, action = pending.pop(0)
            try:
                action()
            except StreamplaceError as exc:
                result.faults.append({"at_s": round(clock(), 3), "what": what, "error": str(exc)})
                self._say(now, "fault", f"fault not injected: {what}: {exc}")
                continue
            loop.fault_at = time.perf_counter()
            result.faults.append({"at_s": round(clock(), 3), "what": what})
            self._say(now, "fault", f"fault: {what}")

    def _measure_afresh(self, loop: _Loop, at_s: float) -> None:
        """After a restart or a re-enactment: the next interval is measured from now."""
        assert self.pipeline is not None
        loop.before = Snapshot.take(self.pipeline.stats)
        loop.next_reason = at_s + self.interval_s

    def _replaced_lost_nodes(self, loop: _Loop, result: LiveResult, now: float) -> bool:
        """Whether nodes were lost since the last look; if so, the same replica counts are placed on the nodes
        left and enacted at once (not gracefully: the lost executors' batch is replayed), the detection time
        measured from the fault that caused it where one was injected."""
        seen = self.alive() if self.alive is not None else None
        if seen is None or not (gone := {w.node for w in self.workers or []} - seen):
            return False
        assert self.plan is not None
        loss_t = loop.fault_at if loop.fault_at is not None else time.perf_counter()
        loop.fault_at = None
        self.lost |= gone
        loop.cluster = shrink(self.cluster, self.lost)
        plan = place_counts(self.topology, loop.cluster, self.plan.counts(), self.slots).evolve(
            source_rates=dict(self.plan.source_rates))
        event = LiveEvent(now, "node-lost", placed(plan.replicas), f"lost {', '.join(sorted(gone))}; same "
                          f"replica counts re-placed on {len(loop.cluster.nodes)} nodes",
                          detected_s=time.perf_counter() - loss_t)
        self._enact(plan, result, event, loss_t, graceful=False)
        return True

    def _reason(self, loop: _Loop, result: LiveResult, now: float) -> None:
        """One reasoning interval: measure it, and let the policy decide — unless no tuple reached a sink in it
        (executors still starting, the first batch still running: it says nothing about the plan) or it is the
        first with output after an enactment (the new plan catching up on the rows that arrived meanwhile; Flink's
        autoscaler calls this stabilization). A new plan is enacted; on local Spark one that only moves replicas is
        kept without re-enacting (Spark runs tasks wherever it likes)."""
        assert self.pipeline is not None and self.plan is not None
        after = Snapshot.take(self.pipeline.stats)
        obs = self._observe(loop.before, after, now)
        warming = obs.throughput <= 0
        settling = not warming and self._settle > 0
        if settling:
            self._settle -= 1
        decide = not (warming or settling)
        result.observations.append({**dataclasses.asdict(obs), "parallelism": self.plan.counts(), "decided": decide})
        loop.before, loop.next_reason = after, now + self.interval_s
        new = self.policy.decide(obs, self.plan, loop.cluster) if decide else None
        replaced_locally = False
        if new is not None and self.workers is None and new.counts() == self.plan.counts():
            self.plan = new.evolve(source_rates=dict(self.plan.source_rates))  # placement only: local
            new = None
            replaced_locally = True
        if new is not None:
            new = new.evolve(source_rates=dict(self.plan.source_rates))
            why = getattr(self.policy, "reason", "")
            event = LiveEvent(now, "replan", placed(new.replicas), _describe(self.plan, new)
                              + (f" — {why}" if why else ""))
            self._enact(new, result, event, time.perf_counter())
            loop.before = Snapshot.take(self.pipeline.stats)
        else:
            self._say(now, "decision", "no output yet: measuring again" if warming
                      else "catching up after the re-plan: measuring again" if settling
                      else "re-placed (placement only: local Spark places tasks itself, nothing to "
                           "re-enact)" if replaced_locally else "kept the plan")

    # ------------------------------------------------------------------ helpers
    def _enact(self, plan: Plan, result: LiveResult, event: LiveEvent, since: float, graceful: bool = True) -> None:
        if self.pipeline is not None:
            # a batch still running after two triggers is one of the plan being replaced: interrupting it costs
            # nothing (the new plan replays it from the checkpoint), waiting for it would delay the new plan
            self.pipeline.stop(wait_s=2 * self.cfg.trigger_s if graceful else 0.0)
        if not plan.source_rates:
            plan = plan.evolve(source_rates={s.id: float(s.rate or 0.0) for s in self.topology.sources})
        cfg = dataclasses.replace(self.cfg, workers=self.workers)
        self.pipeline = pipeline_for(self.spark, self.topology, plan, cfg)
        self.pipeline.start()
        self.plan = plan
        result.events.append(event)
        self._pending, self._since = event, since
        self._settle = self.settle_intervals if event.kind != "start" else 0
        self._listener.on_event(RunEvent(event.at_s, event.kind, event.detail, plan))

    def _say(self, at_s: float, kind: EventKind, what: str) -> None:
        self._listener.on_event(RunEvent(at_s, kind, what))

    def _check_first_output(self) -> None:
        if self._pending is None or self.pipeline is None:
            return
        stats = self.pipeline.stats.value
        if any(stats.get(s.id, [0.0])[ROWS_IN] > 0 for s in self.topology.sinks):
            self._pending.pause_s = time.perf_counter() - self._since
            self._pending = None

    def _failure(self) -> str | None:
        """The running query's error when it has failed, else None."""
        query = self.pipeline.query if self.pipeline is not None else None
        if query is not None and not query.isActive and query.exception() is not None:
            return str(query.exception())
        return None

    def _restart(self, failure: str, result: LiveResult, now: float) -> None:
        """Start the failed query's plan again from the checkpoint after the restart delay, or raise once the run's
        restarts are spent. The pause is from the failure's detection to the first sink tuple again."""
        first = headline(failure)
        if self.restarts <= 0:
            raise RuntimeError(f"the streaming query failed: {failure}")
        self.restarts -= 1
        failed_at = time.perf_counter()
        self._say(now, "fault", f"the streaming query failed: {first}; restarting it from the checkpoint in "
                                f"{self.restart_delay_s:g} s ({self.restarts} restarts left)")
        time.sleep(self.restart_delay_s)
        assert self.plan is not None  # a query ran
        self._enact(self.plan, result, LiveEvent(time.perf_counter() - self.started, "fault",
                                                 placed(self.plan.replicas),
                                                 f"restarted from the checkpoint, same plan, after: {first}"),
                    failed_at, graceful=False)

    def _observe(self, before: Snapshot, after: Snapshot, now: float) -> Observation:
        assert self.plan is not None  # observed only once a plan runs
        measured, operators = measure(before, after, self.topology)
        rates = {s.id: float(self.plan.source_rates.get(s.id) or s.rate or 0.0) for s in self.topology.sources}
        lag_s = max(0.0, (measured["latency_ms"] or 0.0) / 1000 - self.cfg.trigger_s)
        return Observation(now, measured["window_s"], rates, measured["throughput"], measured["latency_ms"], lag_s,
                           operators)


#: lines that name what went wrong: an OS error; an exception with its message (``OSError: …``,
#: ``Caused by: java.io.IOException: …``)
_ERRNO = re.compile(r"\[Errno \d+\]")
_RAISED = re.compile(r"[\w.]+(Error|Exception): \S")


def headline(failure: str) -> str:
    """The line of a query's error that says what went wrong: a Python worker's error arrives wrapped in Py4J's and
    Spark's ("An exception was raised by the Python Proxy. Return Message: Traceback …"), its cause last. An OS
    error's line, else the last exception with a message (not a stack frame), else the first line."""
    lines = [line.strip() for line in failure.splitlines() if line.strip()]
    raised = [line for line in lines if _RAISED.search(line) and not line.startswith("at ")]
    cause = next((line for line in lines if _ERRNO.search(line)), raised[-1] if raised else None)
    return (cause or (lines[0] if lines else "no message"))[:300]


def _describe(old: Plan, new: Plan) -> str:
    a, b = old.counts(), new.counts()
    changed = [f"{op} {a.get(op, 0)}→{b[op]}" for op in b if a.get(op, 0) != b[op]]
    return ", ".join(changed) if changed else "same counts, new placement"
