"""What a run tells whoever shows it, as it goes: a small listener interface the runtime calls and views subscribe to.

The runtime — ``run.run_pipeline`` and ``live.LiveRun.run`` — calls a :class:`RunListener`'s ``on_batch`` as a
micro-batch ends (its counters, read from what the driver already holds: watch.py), ``on_event`` for what the run
does or decides (the first plan, the measured window opening, a re-plan, a lost node, a fault, a plan kept), and
``on_end`` once, as it ends or fails. It imports no view: the workflows subscribe the live page and the terminal
(workflows/feeds.py, workflows/live.py), so the runtime knows neither. Pure data and dispatch: no Spark here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from streamplace.model.plan import Plan

#: what a RunEvent is: the first plan enacted, the measured window opening (`run`'s warm-up over), a re-plan, a lost
#: node's replicas re-placed, a fault injected, or a decision that changed nothing (e.g. "kept the plan")
EventKind = Literal["start", "window", "replan", "node-lost", "fault", "decision"]


@dataclass(frozen=True)
class BatchEnded:
    """A pipeline's counters after its last whole micro-batch, cumulative since ``query`` started (a re-plan
    starts a new query, its counters at zero)."""

    at_s: float  # when the batch ended, seconds after the run's start
    query: int  # which query of the run (one per enactment)
    batch_id: int
    sink_tuples: float  # tuples into the sinks
    latency_sum_s: float  # the sinks' summed event-time → sink latency, and how many tuples it sums
    latency_count: float
    cpu_s: dict[str, float]  # node → CPU seconds its replicas' logic spent ("local" on local Spark)
    backlog_rows: float | None = None  # rows offered but not admitted yet (bounded sources); None: not said
    machine_busy_s: float | None = None  # the whole machine's busy and total CPU seconds (psutil), cumulative
    machine_total_s: float | None = None


@dataclass(frozen=True)
class RunEvent:
    """Something the run did or decided, ``at_s`` seconds after its start; ``plan``: the plan it enacted (start,
    replan, node-lost), else None."""

    at_s: float
    kind: EventKind
    detail: str
    plan: Plan | None = None


@dataclass(frozen=True)
class RunEnd:
    """The run is over, ``at_s`` seconds after its start: with its result (run.RunResult, live.LiveResult), or
    the error it ended on."""

    at_s: float
    result: Any = None
    error: BaseException | None = None

    @property
    def status(self) -> Literal["finished", "failed"]:
        return "failed" if self.error is not None else "finished"


class RunListener:
    """Hears a run. Each method does nothing here: a subscriber overrides what it shows. Called on the thread that
    drives the run (never Spark's), so a method must be quick and must only read what it is given."""

    def on_batch(self, batch: BatchEnded) -> None:
        """A micro-batch ended: one call per batch the run saw end (none while no new one has)."""

    def on_event(self, event: RunEvent) -> None:
        """The run did or decided something."""

    def on_end(self, end: RunEnd) -> None:
        """The run ended (once), or failed."""


class Listeners(RunListener):
    """Several listeners as one, each told in turn, in the order given (None: left out)."""

    def __init__(self, *listeners: RunListener | None):
        self.listeners = [one for one in listeners if one is not None]

    def on_batch(self, batch: BatchEnded) -> None:
        for one in self.listeners:
            one.on_batch(batch)

    def on_event(self, event: RunEvent) -> None:
        for one in self.listeners:
            one.on_event(event)

    def on_end(self, end: RunEnd) -> None:
        for one in self.listeners:
            one.on_end(end)
