"""What the live page is fed during a run: a pipeline's counters after its last whole micro-batch, as a reading.

Called from `run`'s and `live`'s waiting loops (every 0.5–1 s): it reads what the driver already holds
(``Pipeline.batch_stats``, the progress listener's last report, psutil's CPU times), never asks Spark anything,
and does nothing while no new micro-batch has ended. CPU per node is the CPU its replicas' logic spent there
(the tasks' own statistics under ``operator@node``); on local Spark every task is on the one node ``local``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.page.live_run import RunPage
from streamplace.page.series import Reading
from streamplace.perf.engines import EngineSettings
from streamplace.spark.runtime.metrics import BatchProgress, cpu_times
from streamplace.spark.runtime.operators import CPU_S, LAT_COUNT, LAT_SUM_S, ROWS_IN, parse_placed_key


def reading(topology: Topology, pipeline: Any, origin: float, query: int,
            batches: Sequence[BatchProgress] | None = None) -> Reading | None:
    """The pipeline's counters after its last whole micro-batch, timed at that batch's end in seconds after
    ``origin`` (a ``time.perf_counter()`` reading: when the run started); None before the first batch ended."""
    if pipeline is None:
        return None
    batch_id, done_at, stats = pipeline.batch_done  # one value: Spark's thread replaces it whole
    if batch_id < 0:
        return None
    sinks = [s.id for s in topology.sinks]
    cpu: dict[str, float] = {}
    placed = False
    for key, row in stats.items():
        if (where := parse_placed_key(key)) is not None:
            placed = True
            cpu[where[1]] = cpu.get(where[1], 0.0) + row[CPU_S]
    if not placed:
        cpu = {"local": sum(row[CPU_S] for key, row in stats.items() if parse_placed_key(key) is None)}
    backlog = batches[-1].backlog_rows if batches else None
    busy, total = cpu_times()
    return Reading(at_s=done_at - origin, query=query, batch_id=batch_id,
                   sink_tuples=sum(stats.get(s, [0.0] * (ROWS_IN + 1))[ROWS_IN] for s in sinks),
                   latency_sum_s=sum(stats[s][LAT_SUM_S] for s in sinks if s in stats),
                   latency_count=sum(stats[s][LAT_COUNT] for s in sinks if s in stats),
                   cpu_s=cpu, backlog_rows=backlog, machine_busy_s=busy, machine_total_s=total)


def capacity_cores(cluster: Cluster) -> dict[str, float]:
    """Each node's cores (its CPU points / 100): the page's CPU utilization is busy cores over these."""
    return {n.id: n.cpu / 100.0 for n in cluster.nodes}


def run_feed(page: RunPage, topology: Topology, origin: float) -> Callable[[Any, list[Any]], None]:
    """``run_pipeline``'s ``watch``: each new micro-batch of the one query of a `run` becomes a point."""
    return lambda pipeline, batches: page.take(reading(topology, pipeline, origin, 0, batches))


class LiveFeed:
    """``LiveRun.run``'s ``watch``: points from the running query, and each enactment (the first plan, a re-plan,
    a lost node's re-placement) as an event with its plan's prediction and picture (``describe(plan)`` →
    (predicted block, SVG or None, node → cores)). ``origin()``: when the loop started (perf_counter), the zero
    of its events' times, so points and events share one time axis."""

    def __init__(self, page: RunPage, topology: Topology, origin: Callable[[], float],
                 current: Callable[[], Plan | None],
                 describe: Callable[[Plan], tuple[dict[str, Any], str | None, dict[str, float]]]):
        self.page, self.topology, self.origin = page, topology, origin
        self.current, self.describe = current, describe
        self.seen = 0
        self.said: list[tuple[float, str]] = []  # the loop's messages since the last call

    def __call__(self, pipeline: Any, query: int, result: Any) -> None:
        self.sync(result)
        self.page.take(reading(self.topology, pipeline, self.origin(), query))

    def sync(self, result: Any) -> None:
        """Log what happened since the last call: the loop's messages, then each new enactment (one event
        each) with the newest plan's prediction and picture. Call it once more when the loop has ended."""
        events = result.events[self.seen:]
        self.seen += len(events)
        enacted = {e.detail for e in events}
        for at_s, what in self.said:  # an enactment's own message is its event: not twice
            if what not in enacted:
                self.page.event(at_s, "fault" if what.startswith("fault:") else "decision", what)
        self.said = []
        for e in events:
            self.page.event(e.at_s, e.kind, e.detail)
        if events and (plan := self.current()) is not None:
            self.page.plan(*self.describe(plan))

    def decision(self, at_s: float, what: str) -> None:
        """A message of the loop (``LiveRun.run``'s ``progress``), shown in the page's log at the next call."""
        self.said.append((at_s, what))


def describe_plan(topology: Topology, cluster: Cluster, runs_on: Cluster, one_node: bool, engine: EngineSettings,
                  plan: Plan) -> tuple[dict[str, Any], str | None, dict[str, float]]:
    """What the page shows of a plan ``live`` enacts: the prediction for where it runs (``runs_on``: this machine
    as one node with ``one_node``, the plan's parallelism on it; else the cluster as its workers run it, e.g. every
    node's CPU scaled to its quota), its picture on the cluster it was made for, and the cores of the nodes it runs
    on (what the page's measured CPU is a share of)."""
    from streamplace.report.placement import plan_svg
    from streamplace.spark.runtime.run import on_one_node, prediction

    where, as_run = runs_on, (on_one_node(topology, plan) if one_node else plan)
    predicted = prediction(topology, where, as_run, None, engine)
    predicted["offered_rate"] = predicted.get("source_rate")
    return predicted, plan_svg(topology, cluster, plan, engine), capacity_cores(where)


def guarded(feed: Callable[..., None], on_error: Callable[[str], None]) -> Callable[..., None]:
    """``feed`` that never fails the run it watches: its first error is said through ``on_error`` and the page
    stops updating (the run, its figures and its exit code are not the page's to spoil)."""
    broken = False

    def call(*args: Any) -> None:
        nonlocal broken
        if broken:
            return
        try:
            feed(*args)
        except Exception as exc:  # a view must not end a measurement; said once
            broken = True
            on_error(f"the live page stopped updating ({type(exc).__name__}: {exc}); the run goes on")

    return call
