"""The views' subscriptions to a run (spark/events.py): the live page's — the runtime's events become its
points, log, plans and last state — and the terminal's (``live``'s decisions as lines). `run` and `live`
(workflows/run.py, workflows/live.py) subscribe them; the runtime knows neither.

The page is a view: :class:`Guarded` keeps its errors from the run (said once, then it hears no more), and an
error writing its last state is said, never raised. Imported where a run starts, not with the command line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.page.live_run import capacity_cores
from streamplace.page.series import Reading
from streamplace.perf.engines import EngineSettings
from streamplace.spark import enact as spark_enact
from streamplace.spark.events import BatchEnded, RunEnd, RunEvent, RunListener
from streamplace.workflows.instance import Say, silent

if TYPE_CHECKING:
    from streamplace.page.live_run import RunPage

#: what the page shows of a plan enacted: (its predicted block, its picture as SVG or None, node → cores it runs on)
Describe = Callable[[Plan], tuple[dict[str, Any], str | None, dict[str, float]]]
#: the page's last table from a run's result: (quantity, predicted, measured) as text
Summary = Callable[[Any], list[tuple[str, str, str]]]


class PageFeed(RunListener):
    """``page`` fed by a run: each micro-batch a point, each event a line of its log and, for a plan enacted, that
    plan's prediction and picture (``describe``; None: the page keeps the one it was given), the end its last state
    — "finished" with ``summary(result)``, or "failed" — written to its file, and said (``on_info``). ``ended``:
    whether it has been ended; ``written``: where its file went (None: not, or not yet)."""

    def __init__(self, page: RunPage, *, describe: Describe | None = None, summary: Summary | None = None,
                 on_warning: Say = silent, on_info: Say = silent):
        self.page, self.describe, self.summary = page, describe, summary
        self.on_warning, self.on_info = on_warning, on_info
        self.ended = False
        self.written: Path | None = None

    def on_batch(self, batch: BatchEnded) -> None:
        self.page.take(Reading(**dataclasses.asdict(batch)))

    def on_event(self, event: RunEvent) -> None:
        self.page.event(event.at_s, event.kind, event.detail)
        if event.plan is not None and self.describe is not None:
            self.page.plan(*self.describe(event.plan))

    def on_end(self, end: RunEnd) -> None:
        if self.ended:
            return
        self.ended = True
        try:
            summary = self.summary(end.result) if self.summary is not None and end.result is not None else None
        except Exception as exc:  # the run's figures are not the page's to lose
            self.on_warning(f"the live page's summary could not be made ({type(exc).__name__}: {exc})")
            summary = None
        self.written = finish_page(self.page, end.status, summary, self.on_warning)
        if self.written is not None and end.error is None:
            self.on_info(f"live page written to {self.written}")


class Steps(RunListener):
    """The terminal's subscription to `live`'s loop: each fault, decision, re-plan and lost node as
    ``on_step(at_s, what)``; not the first plan's start (the caller's table of the plans enacted lists it at the
    end)."""

    def __init__(self, on_step: Callable[[float, str], None]):
        self.on_step = on_step

    def on_event(self, event: RunEvent) -> None:
        if event.kind != "start":
            self.on_step(event.at_s, event.detail)


class Guarded(RunListener):
    """``listener``, a view the run must not fail for: its first error on a batch or an event is said through
    ``on_error`` and it hears no more of them (the run, its figures and its exit code are not a view's to spoil);
    the end it still hears, so that the page is written with what it had."""

    def __init__(self, listener: RunListener, on_error: Say):
        self.listener, self.on_error = listener, on_error
        self.broken = False

    def on_batch(self, batch: BatchEnded) -> None:
        self._call(self.listener.on_batch, batch)

    def on_event(self, event: RunEvent) -> None:
        self._call(self.listener.on_event, event)

    def on_end(self, end: RunEnd) -> None:
        self.listener.on_end(end)

    def _call(self, method: Callable[[Any], None], what: Any) -> None:
        if self.broken:
            return
        try:
            method(what)
        except Exception as exc:  # a view must not end a measurement; said once
            self.broken = True
            self.on_error(f"the live page stopped updating ({type(exc).__name__}: {exc}); the run goes on")


def finish_page(page: Any, status: str, summary: list[tuple[str, str, str]] | None, on_warning: Say) -> Path | None:
    """The page's last state and its file (RunPage.finish); an error of the page's own is said, not raised."""
    try:
        return page.finish(status, summary)
    except Exception as exc:
        on_warning(f"the live page could not be finished ({type(exc).__name__}: {exc})")
        return None


def describe_plan(topology: Topology, cluster: Cluster, runs_on: Cluster, one_node: bool, engine: EngineSettings,
                  plan: Plan) -> tuple[dict[str, Any], str | None, dict[str, float]]:
    """What the page shows of a plan ``live`` enacts: the prediction for where it runs (``runs_on``: this machine
    as one node with ``one_node``, the plan's parallelism on it; else the cluster as its workers run it, e.g. every
    node's CPU scaled to its quota), its picture on the cluster it was made for, and the cores of the nodes it runs
    on (what the page's measured CPU is a share of)."""
    from streamplace.report.placement import plan_svg  # lazy: matplotlib, only where a page is drawn

    where, as_run = runs_on, (spark_enact.on_one_node(topology, plan) if one_node else plan)
    predicted = spark_enact.prediction(topology, where, as_run, None, engine)
    predicted["offered_rate"] = predicted.get("source_rate")
    return predicted, plan_svg(topology, cluster, plan, engine), capacity_cores(where)
