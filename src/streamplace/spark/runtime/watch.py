"""A running pipeline's micro-batches as events: its counters after its last whole micro-batch, told once per batch.

Looked at from `run`'s and `live`'s waiting loops (every 0.5–1 s): it reads what the driver already holds
(``Pipeline.batch_done``, the progress listener's last report, psutil's CPU times), never asks Spark anything,
and tells its listener nothing while no new micro-batch has ended. CPU per node is the CPU its replicas' logic
spent there (the tasks' own statistics under ``operator@node``); on local Spark every task is on the one node
``local``. Whoever shows the batches subscribes to the listener (events.py); nothing here knows a view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamplace.model.topology import Topology
from streamplace.spark.events import BatchEnded, RunListener
from streamplace.spark.query.metrics import BatchProgress, cpu_times
from streamplace.spark.query.operators import CPU_S, LAT_COUNT, LAT_SUM_S, ROWS_IN, parse_placed_key


def batch_ended(topology: Topology, pipeline: Any, origin: float, query: int,
                batches: Sequence[BatchProgress] | None = None) -> BatchEnded | None:
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
    return BatchEnded(at_s=done_at - origin, query=query, batch_id=batch_id,
                      sink_tuples=sum(stats.get(s, [0.0] * (ROWS_IN + 1))[ROWS_IN] for s in sinks),
                      latency_sum_s=sum(stats[s][LAT_SUM_S] for s in sinks if s in stats),
                      latency_count=sum(stats[s][LAT_COUNT] for s in sinks if s in stats),
                      cpu_s=cpu, backlog_rows=backlog, machine_busy_s=busy, machine_total_s=total)


class BatchWatch:
    """Tells ``listener`` of each micro-batch a run's pipelines end: ``look`` reads the pipeline's last whole batch
    and calls ``on_batch`` when it is one not told yet (of that query: a re-plan's query starts its ids afresh).
    Times are seconds after ``origin`` (perf_counter). O(operators) per new batch, O(1) otherwise."""

    def __init__(self, topology: Topology, listener: RunListener, origin: float):
        self.topology, self.listener, self.origin = topology, listener, origin
        self._told: tuple[int, int] | None = None  # (query, batch id) last told

    def look(self, pipeline: Any, query: int, batches: Sequence[BatchProgress] | None = None) -> None:
        if pipeline is None or (query, pipeline.batch_done[0]) == self._told:
            return
        batch = batch_ended(self.topology, pipeline, self.origin, query, batches)
        if batch is not None:
            self._told = (query, batch.batch_id)
            self.listener.on_batch(batch)
