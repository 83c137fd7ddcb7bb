"""Autoscale any PySpark Structured Streaming query from inside its own driver, or only recommend.

Two lines in an existing application::

    import streamplace
    handle = streamplace.autoscale(query)          # or streamplace.recommend(query): decide and say, never act

The loop is the one the best autoscalers use — collect → evaluate → decide → realize — with the decision pure:

* **collect** (spark/autoscale/listener.py, stages.py): a StreamingQueryListener queues each progress report;
  this controller thread reads it with the live executors and the batch's Spark jobs and stages (Spark's status
  tracker and status store: the driver's part of the batch, its tasks' run time) and makes a ``Batch``;
* **evaluate** and **decide** (autoscaler/): arrival rate from the offsets, backlog, the online cost fit, and the
  decision with its reason — the same functions a simulated query drives;
* **realize** (spark/autoscale/executors.py): the target total and the releases through the driver's executor
  allocation client; nothing in recommend-only mode, local mode or on Spark Connect.

Every decision, kept or acted on, is one JSON line in the log (``log_path``) and an event on the live page.
Options are checked before the query is touched (a ModelError naming ``autoscale.<option>`` and the fix).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamplace.autoscaler.baselines import POLICIES, Policy
from streamplace.autoscaler.decide import Decision
from streamplace.autoscaler.evaluate import capacity_of
from streamplace.autoscaler.options import AutoscaleOptions, options_from
from streamplace.autoscaler.progress import read_progress
from streamplace.autoscaler.state import Batch, Executor, Memory, View
from streamplace.errors import ModelError, Problem
from streamplace.page.live_run import RunPage
from streamplace.page.series import Reading
from streamplace.spark.autoscale import (
    AllocationRefused,
    ExecutorClient,
    allocation_mode,
    on_a_cluster,
    progress_listener,
    session_of,
    stage_reader,
    trigger_interval_s,
)
from streamplace.workflows.cluster import alive_hosts_of

#: batches kept for the evaluation (the fit uses at most window_points of them)
KEPT_BATCHES = 5000
#: a requested executor that has not registered by then is taken as one the cluster cannot start (an executor of
#: the emulated cluster registers 10–30 s after its request; the first batch on it takes longer, but that is not
#: waited for): the target falls back to what runs, and later requests are capped there until one registers
REGISTER_TIMEOUT_S = 60.0


def _default_log(query_id: str) -> Path:
    home = Path(os.environ.get("STREAMPLACE_HOME") or Path.home() / ".streamplace")
    return home / "autoscale" / f"{query_id}.jsonl"


@dataclass
class AutoscaleHandle:
    """What ``autoscale`` and ``recommend`` return: the decisions so far, the fitted model, the log and page, and
    ``stop()``."""

    query_id: str
    acting: bool
    options: AutoscaleOptions
    target_batch_s: float
    log_path: Path | None
    why_not_acting: str = ""
    policy: str = "streamplace"
    decisions: list[Decision] = field(default_factory=list)
    batches: list[Batch] = field(default_factory=list)
    page_url: str | None = None
    error: str | None = None  # what stopped the controller, if something did
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _cleanup: list[Callable[[], None]] = field(default_factory=list)

    @property
    def fit(self) -> dict[str, Any] | None:
        """The latest cost fit (fixed seconds per batch, ms per row per reference core, scaling exponent, points,
        error), None before it has enough points."""
        return next((d.fit for d in reversed(self.decisions) if d.fit is not None), None)

    @property
    def last(self) -> Decision | None:
        return self.decisions[-1] if self.decisions else None

    def wait_for_batches(self, n: int, timeout_s: float) -> bool:
        """Block until ``n`` batches have been decided on (False at the timeout)."""
        deadline = time.monotonic() + timeout_s
        while len(self.decisions) < n and time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(0.1)
        return len(self.decisions) >= n

    def stop(self) -> None:
        """Stop deciding (the query goes on with the executors it has); idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)
        while self._cleanup:
            with contextlib.suppress(Exception):
                self._cleanup.pop()()


def _driver_cores(spark: Any) -> int:
    """The cores a local session's tasks run on (1 where the session cannot say: Spark Connect)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:  # Spark Connect has no SparkContext
        return 1


def _target_batch(query: Any, options: AutoscaleOptions) -> float:
    if options.target_batch_s is not None:
        return options.target_batch_s

    interval = trigger_interval_s(query)
    if interval is None:
        raise ModelError([Problem("autoscale.target_batch_s", "the query has no processing-time trigger to take "
                                  "the target batch time from (the default trigger runs batches back to back)",
                                  "give target_batch_s, or start the query with .trigger(processingTime='N seconds')")])
    return interval


def _policy(name: str) -> Policy:
    if name not in POLICIES:
        raise ModelError([Problem("autoscale.policy", f"unknown policy {name!r}",
                                  f"use one of {', '.join(POLICIES)} (streamplace: ours; the others are the rules "
                                  "users have today, for comparison)")])
    return POLICIES[name]


def _start(query: Any, acting: bool, options: Mapping[str, Any], log_path: str | Path | None, page: bool,
           page_port: int, on_decision: Callable[[Decision], None] | None, policy: str) -> AutoscaleHandle:
    opts = options_from(options)
    rule = _policy(policy)

    spark = session_of(query)
    why_not = allocation_mode(spark)
    if acting and why_not:
        raise AllocationRefused(f"streamplace.autoscale cannot change this application's executors: {why_not} "
                                "(streamplace.recommend decides and reports without acting)")
    target_s = _target_batch(query, opts)
    query_id = str(query.id)
    path = Path(log_path) if log_path is not None else _default_log(query_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = AutoscaleHandle(query_id, acting, opts, target_s, path, why_not, policy=policy)
    # executors are read wherever a classic session runs on a cluster (recommend under dynamic allocation too)
    client = ExecutorClient(spark) if on_a_cluster(spark) else None
    local_cores = _driver_cores(spark) if client is None else 0
    reports: queue.Queue[tuple[str, str]] = queue.Queue()
    listener = progress_listener(query_id, reports)
    spark.streams.addListener(listener)
    handle._cleanup.append(lambda: spark.streams.removeListener(listener))
    run_page = None
    if page:
        run_page = RunPage(f"autoscaler: query {query.name or query_id}", 0.0, {}, path.with_suffix(".html"),
                           page_port, latency_label="micro-batch time, trigger → committed")
        handle.page_url = run_page.url
        handle._cleanup.append(run_page.close)
        page_left = run_page

        def write_page() -> None:  # the page written whole beside the log when the handle stops (run before close)
            page_left.finish("stopped")

        handle._cleanup.append(write_page)
    available = _available_workers(spark, opts)
    stages = stage_reader(spark, str(query.runId))
    loop = _Loop(handle, client, local_cores, reports, run_page, available, on_decision, rule, stages)
    handle._thread = threading.Thread(target=loop.run, name="streamplace-autoscaler", daemon=True)
    handle._thread.start()
    return handle


def autoscale(query: Any, *, log_path: str | Path | None = None, page: bool = False, page_port: int = 0,
              on_decision: Callable[[Decision], None] | None = None, policy: str = "streamplace",
              **options: Any) -> AutoscaleHandle:
    """Scale ``query``'s executors from now on (a running ``StreamingQuery`` of a classic PySpark session on a
    cluster with dynamic allocation off). ``options``: AutoscaleOptions' fields (target_batch_s,
    target_utilization, catch_up_s, worker_types, …); ``policy``: "streamplace" (ours), or "occupation" /
    "dstreams" — the rules users have today (autoscaler/baselines.py), for comparison. Refuses, before touching
    the query, options out of range and applications whose executors the driver cannot change (saying what to
    change)."""
    return _start(query, True, options, log_path, page, page_port, on_decision, policy)


def recommend(query: Any, *, log_path: str | Path | None = None, page: bool = False, page_port: int = 0,
              on_decision: Callable[[Decision], None] | None = None, policy: str = "streamplace",
              **options: Any) -> AutoscaleHandle:
    """Decide for ``query`` as ``autoscale`` would, and only report: works in local mode and on clusters alike."""
    return _start(query, False, options, log_path, page, page_port, on_decision, policy)


def _available_workers(spark: Any, options: AutoscaleOptions) -> Callable[[list[Executor]], dict[str, int] | None]:
    """Free workers by type, for a cluster `cluster up` started here (its master's view: a worker gives an
    application one executor); elsewhere unknown (None: max_executors bounds the requests)."""
    master = str(spark.sparkContext.master)
    if not master.startswith("spark://"):
        return lambda executors: None

    def free(executors: list[Executor]) -> dict[str, int] | None:
        hosts = alive_hosts_of(master)
        if hosts is None:
            return None
        used = {e.host for e in executors}
        out: dict[str, int] = {}
        for host in hosts:
            if host not in used:
                kind = options.type_name(host)
                out[kind] = out.get(kind, 0) + 1
        return out

    return free


class _Loop:
    """The controller thread: one decision per progress report."""

    def __init__(self, handle: AutoscaleHandle, client: Any, local_cores: int, reports: queue.Queue[tuple[str, str]],
                 page: RunPage | None, available: Callable[[list[Executor]], dict[str, int] | None],
                 on_decision: Callable[[Decision], None] | None, policy: Policy, stages: Any = None):
        self.policy, self.stages = policy, stages
        self.h, self.client, self.local_cores, self.reports = handle, client, local_cores, reports
        self.page, self.available, self.on_decision = page, available, on_decision
        self.t0_mono, self.t0_wall = time.monotonic(), time.time()
        self.batches: deque[Batch] = deque(maxlen=KEPT_BATCHES)
        self.memory = Memory()
        self.previous_ids: frozenset[str] | None = None
        self.pending_since: float | None = None
        self.rows_total = 0
        self.time_total = 0.0
        #: the most executors the cluster has shown it can start, learned when requested ones did not register
        #: (None: not learned — no request has timed out, or the cluster's free workers are known)
        self.learned_cap: int | None = None

    def now(self) -> float:
        return time.monotonic() - self.t0_mono

    def executors(self) -> list[Executor]:
        opts = self.h.options
        if self.client is None:  # local mode or Spark Connect: the driver's cores are the capacity
            return [Executor("driver", "localhost", max(1, self.local_cores), 0.0)]
        now, wall = self.now(), time.time()
        return [Executor(e.id, e.host, e.cores, now - (wall - e.added_epoch_s), opts.type_name(e.host))
                for e in self.client.live()]

    def run(self) -> None:
        try:
            with self.h.log_path.open("a", encoding="utf-8") if self.h.log_path else contextlib.nullcontext() as log:
                while not self.h._stop.is_set():
                    try:
                        kind, payload = self.reports.get(timeout=0.5)
                    except queue.Empty:
                        continue
                    if kind == "terminated":
                        break
                    self.step(payload, log)
        except Exception as exc:  # the query must not die of its autoscaler: say why it stopped deciding
            self.h.error = f"{type(exc).__name__}: {exc}"
            if self.page is not None:
                self.page.event(self.now(), "fault", f"autoscaler stopped: {self.h.error}")

    def step(self, report: str, log: Any) -> None:
        facts = read_progress(report)
        now = self.now()
        # the batch ended at its trigger's time + its duration (the report may wait in the queue a little)
        ended = now if facts.started_epoch_s is None else \
            min(now, facts.started_epoch_s + facts.duration_s - self.t0_wall)
        executors = self.executors()
        ids = frozenset(e.id for e in executors)
        changed = self.previous_ids is not None and ids != self.previous_ids
        self.previous_ids = ids
        jobs = self.stages.read(facts.batch_id) if self.stages is not None else None
        batch = Batch(at_s=ended, batch_id=facts.batch_id, rows=facts.rows, duration_s=facts.duration_s,
                      capacity=capacity_of(executors, self.h.options), executors=len(executors),
                      started=facts.started, processed=facts.processed, position=facts.position,
                      unsettled=changed or not self.batches, state_partitions=facts.state_partitions,
                      jobs_s=jobs.jobs_s if jobs else None, task_s=jobs.task_s if jobs else None,
                      heaviest_tasks=jobs.heaviest_tasks if jobs else None, cores=sum(e.cores for e in executors))
        self.batches.append(batch)
        self.h.batches.append(batch)
        pending = 0
        notes: tuple[str, ...] = ()
        if self.client is not None and self.client.target is not None:
            pending = max(0, self.client.target - len(executors))
            if pending and self.pending_since is None:
                self.pending_since = now
            if not pending:
                self.pending_since = None
            elif now - self.pending_since > REGISTER_TIMEOUT_S and self.h.acting:  # type: ignore[operator]
                self.client.set_total(len(executors))
                self.learned_cap = len(executors)
                notes = (f"{pending} requested executor(s) did not register within {REGISTER_TIMEOUT_S:g} s: the "
                         f"target is what runs, and no more than {len(executors)} are asked for until the cluster "
                         "shows more",)
                pending, self.pending_since = 0, None
        available = self.available(executors)
        if available is None and self.learned_cap is not None:
            if len(executors) > self.learned_cap:  # the cluster started more than it did then: forget the cap
                self.learned_cap = None
            else:
                available = {"default": max(0, self.learned_cap - len(executors))}
        view = View(now_s=now, target_batch_s=self.h.target_batch_s, batches=tuple(self.batches),
                    executors=tuple(executors), pending=pending, available=available,
                    can_act=self.h.acting, notes=notes)
        decision, self.memory = self.policy(view, self.memory, self.h.options)
        if self.h.acting and decision.action == "up":
            self.client.set_total(len(executors) + len(decision.add))
        elif self.h.acting and decision.action == "down":
            self.client.release(list(decision.release))
        self.h.decisions.append(decision)
        if log is not None:
            log.write(json.dumps({"batch": {"id": batch.batch_id, "rows": batch.rows,
                                            "duration_s": round(batch.duration_s, 3),
                                            "executors": batch.executors, "capacity": round(batch.capacity, 3),
                                            "jobs_s": None if batch.jobs_s is None else round(batch.jobs_s, 3),
                                            "task_s": None if batch.task_s is None else round(batch.task_s, 3),
                                            "heaviest_tasks": batch.heaviest_tasks, "cores": batch.cores},
                                  **decision.to_dict(), "notes": list(notes)}, default=str) + "\n")
            log.flush()
        if self.page is not None:
            self._show(batch, decision)
        if self.on_decision is not None:
            self.on_decision(decision)

    def _show(self, batch: Batch, decision: Decision) -> None:
        assert self.page is not None
        self.rows_total += batch.rows
        self.time_total += batch.duration_s
        self.page.take(Reading(at_s=batch.at_s, query=0, batch_id=batch.batch_id, sink_tuples=self.rows_total,
                               latency_sum_s=self.time_total, latency_count=len(self.h.batches), cpu_s={},
                               backlog_rows=decision.backlog_rows))
        last = self.h.decisions[-2] if len(self.h.decisions) > 1 else None
        if decision.action != "keep" or last is None or last.reason.split(":")[0] != decision.reason.split(":")[0]:
            verb = {"up": "scale up", "down": "scale down", "keep": "keep"}[decision.action]
            mode = "" if self.h.acting else " (recommended)"
            self.page.event(batch.at_s, "decision", f"{verb}{mode}: {decision.executors} → "
                            f"{decision.target_executors} executors — {decision.reason}")
