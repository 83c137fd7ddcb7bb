"""One run's live page: the series, its server and the file it leaves behind, behind one small object.

``run`` and ``live`` create a ``RunPage`` before Spark starts and subscribe it to the run's events
(workflows/feeds.py), which hand it readings as micro-batches end (``take``), plans as they are enacted
(``plan``) and events (``event``); ``finish`` writes the page with its last state to a file and stops the
server. A page that cannot be served (the port is taken) is said once and the run goes on without it: the page
is a view, never a reason for a run to fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamplace.files import replace_whole
from streamplace.model.cluster import Cluster
from streamplace.page.render import static_page
from streamplace.page.series import LiveSeries, Reading, page_prediction
from streamplace.page.server import PageServer


def capacity_cores(cluster: Cluster) -> dict[str, float]:
    """Each node's cores (its CPU points / 100): the page's CPU utilization is busy cores over these."""
    return {n.id: n.cpu / 100.0 for n in cluster.nodes}


class RunPage:
    """The live page of one run: served at ``url`` while it lasts, written to ``path`` when it ends."""

    def __init__(self, title: str, duration_s: float, capacity_cores: dict[str, float], path: Path,
                 port: int = 0, serve: bool = True, latency_label: str | None = None):
        self.series = LiveSeries(title, duration_s, dict(capacity_cores), latency_label=latency_label)
        self.path = path
        self.svg: str | None = None
        self.server = PageServer(title, port) if serve else None
        if self.server is not None:
            self.server.publish(self.series.state())

    @property
    def url(self) -> str | None:
        """Where the page is served (None: not served)."""
        return self.server.url if self.server is not None else None

    def plan(self, predicted: dict[str, Any], svg: str | None, capacity_cores: dict[str, float] | None = None) -> None:
        """A plan is enacted: its prediction (spark/runtime/run.prediction's block) and picture replace the old ones."""
        if capacity_cores is not None:
            self.series.capacity_cores = dict(capacity_cores)
        self.svg = svg
        if self.server is not None and svg is not None:
            self.server.picture(svg)
        self.series.new_plan(page_prediction(predicted))
        self._publish()

    def take(self, reading: Reading | None) -> None:
        """A reading after a micro-batch (None: no batch has ended yet); published when it makes a point."""
        if reading is not None and self.series.add(reading) is not None:
            self._publish()

    def event(self, at_s: float, kind: str, detail: str) -> None:
        """Log ``detail`` at ``at_s`` (kind: start, window, replan, node-lost, fault, decision) and publish."""
        self.series.event(at_s, kind, detail)
        self._publish()

    def finish(self, status: str, summary: list[tuple[str, str, str]] | None = None) -> Path | None:
        """End the page: the page written whole to ``path`` with its last state (None where it could not be: the
        run's figures are not lost for it), and that state published; ``close`` stops the server."""
        self.series.status = status
        self.series.summary = list(summary or [])
        self.series.written_to = str(self.path)
        written: Path | None = self.path
        try:
            page = static_page(self.series.state(), self.svg)
            replace_whole(self.path, lambda tmp: tmp.write_text(page, encoding="utf-8"))
        except OSError:
            written, self.series.written_to = None, None
        self._publish()
        return written

    def close(self) -> None:
        """Stop serving (an open browser first gets the last state: PageServer.close)."""
        if self.server is not None:
            self.server.close()
            self.server = None

    def _publish(self) -> None:
        if self.server is not None:
            self.server.publish(self.series.state())
