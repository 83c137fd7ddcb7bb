"""Calibrated CPU work: burn a given number of CPU milliseconds in the calling thread.

The burn runs small numpy kernels until the thread's CPU clock (``time.thread_time``)
has advanced by the target, so an operator with ``cost_ms`` e costs e ms of CPU per
tuple on this machine whatever its speed; emulated slower nodes scale e by
1/speedup. Work is done per Arrow batch (n tuples → n·e ms), so the Python
overhead per tuple is nil. The kernel is a real computation (its result is
returned) so nothing can optimise it away.
"""

from __future__ import annotations

import time

import numpy as np

_BLOCK = np.arange(256, dtype=np.float64)


def burn_cpu_ms(ms: float) -> float:
    """Spend ``ms`` milliseconds of this thread's CPU time; returns the CPU seconds actually spent."""
    if ms <= 0:
        return 0.0
    start = time.thread_time()
    end = start + ms / 1000.0
    acc = 0.0
    while time.thread_time() < end:
        acc += float(np.sqrt(_BLOCK + acc % 7.0).sum()) * 1e-12
    return time.thread_time() - start
