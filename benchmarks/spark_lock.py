"""The machine's Spark measurement lock, shared by the benchmarks that run Spark (autoscale.py, faults.py).

``held(lock)`` holds an exclusive flock(1)-style lock on the file ``lock`` while its block runs (nothing when
None): other Spark work on the machine that takes the same lock waits between measured runs, never during one.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def held(lock: Path | None) -> Iterator[None]:
    """An exclusive lock on ``lock`` while the block runs (nothing when None)."""
    if lock is None:
        yield
        return
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
