"""Line up Spark's rate sources with the trigger, so that a second of data waits a known time for its batch.

Spark's ``rate`` source counts whole seconds from its start time: the rows of
second k carry event times in [start + k, start + k + 1) s and become readable
when that second has ended, at start + k + 1 s. A processing-time trigger fires
at whole multiples of its interval since the epoch (ProcessingTimeExecutor). So
every row waits, after its second ends, for the next trigger: a delay fixed for
the whole run by the start time's phase within the second — anywhere from 0 to
1 s by chance, which alone moves a 1-second trigger's mean latency by up to 1 s
from one run to the next.

The start time is the first entry of the source's metadata log in the
checkpoint (``sources/<i>/0``: ``v1`` and the epoch milliseconds), written by
Spark when the query first runs and read back on every restart. A fresh
checkpoint gets it from here instead: the latest moment before now whose phase
makes each second end ``lead_s`` before a whole second (the trigger's tick), so
the wait is ``lead_s`` for a trigger of one second (and ``lead_s`` plus whole
seconds for a longer one). A restarted query keeps the phase it had.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def aligned_start_ms(now_ms: int, lead_s: float) -> int:
    """The latest epoch ms ≤ ``now_ms`` at which a second starts ``lead_s`` before a whole second."""
    phase = (1000 - round(1000 * lead_s)) % 1000
    return now_ms - ((now_ms - phase) % 1000)


def lead_of(start_ms: int) -> float:
    """Seconds from the end of a rate source's second to the next whole second of the epoch."""
    return ((-start_ms) % 1000) / 1000.0


def _start_file(checkpoint: Path, index: int) -> Path:
    return checkpoint / "sources" / str(index) / "0"


def align_rate_sources(checkpoint: Path, indices: list[int], lead_s: float, now_ms: int | None = None,
                       head_start_s: int = 0) -> bool:
    """Write the start time of the rate sources at ``indices`` (their position among the query's sources) into a
    fresh checkpoint, ``head_start_s`` whole seconds before the latest aligned moment (the query's first batch
    then reads those seconds: a rate source has no rows until its first second has passed, and that batch would
    be empty); False, writing nothing, when the query has run before (its offsets log exists)."""
    if (checkpoint / "offsets").exists() or not indices:
        return False
    now = now_ms if now_ms is not None else int(time.time() * 1000)
    start = aligned_start_ms(now, lead_s) - 1000 * head_start_s
    for i in indices:
        path = _start_file(checkpoint, i)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(".0.streamplace-tmp")
        tmp.write_text(f"v1\n{start}", encoding="utf-8")
        os.replace(tmp, path)
    return True


def source_lead(checkpoint: Path, index: int) -> float | None:
    """The lead the source at ``index`` runs with, from its start time in the checkpoint (None before it ran)."""
    try:
        version, start = _start_file(checkpoint, index).read_text(encoding="utf-8").split("\n", 1)
        return lead_of(int(start.strip())) if version == "v1" else None
    except (OSError, ValueError):
        return None
