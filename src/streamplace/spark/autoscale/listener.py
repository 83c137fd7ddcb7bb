"""Collect: a StreamingQueryListener that queues one query's progress reports for the controller's thread.

PySpark calls a listener on a Py4J callback thread while the JVM's listener bus waits for it, so the listener
only puts the report's JSON on a queue; the controller reads, decides and calls back into the JVM on its own
thread. Also here: the query's trigger interval, read from the running query where Spark exposes it.
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql.streaming import StreamingQuery


def progress_listener(query_id: str, reports: queue.Queue[tuple[str, str]]) -> Any:
    """A listener that puts ``("progress", json)`` for ``query_id``'s reports and ``("terminated", "")`` when it
    ends (built here so that importing this module needs no PySpark)."""
    from pyspark.sql.streaming import StreamingQueryListener

    class ProgressQueue(StreamingQueryListener):
        def onQueryStarted(self, event: Any) -> None:
            pass

        def onQueryProgress(self, event: Any) -> None:
            if str(event.progress.id) == query_id:
                reports.put(("progress", event.progress.json))

        def onQueryIdle(self, event: Any) -> None:
            pass

        def onQueryTerminated(self, event: Any) -> None:
            if str(event.id) == query_id:
                reports.put(("terminated", str(event.exception or "")))

    return ProgressQueue()


def trigger_interval_s(query: StreamingQuery) -> float | None:
    """The query's processing-time trigger in seconds (None: no interval — the default trigger runs batches back
    to back — or not readable, as on Spark Connect)."""
    try:
        trigger = query._jsq.streamingQuery().trigger()  # StreamExecution.trigger: public in Spark 4
        if str(trigger.getClass().getSimpleName()) != "ProcessingTimeTrigger":
            return None
        ms = int(trigger.intervalMs())
    except Exception:  # Spark Connect (no _jsq), another query class: the caller asks for target_batch_s
        return None
    return ms / 1000.0 if ms > 0 else None


def session_of(query: StreamingQuery) -> Any:
    """The SparkSession a query runs in (a classic StreamingQuery does not name it: the active session)."""
    found = getattr(query, "sparkSession", None) or getattr(query, "_session", None)
    if found is not None:
        return found
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    return active if active is not None else SparkSession.builder.getOrCreate()
