"""Micro-batches on a processing-time trigger, fed by a source that releases whole quanta of data.

Spark's rate source makes the rows of a second readable when that second ends;
a processing-time trigger fires at whole multiples of its interval T since the
epoch, and a batch that overruns its interval is followed at once by the next
one, which reads every quantum that ended meanwhile (ProcessingTimeExecutor,
MicroBatchExecution). With a batch time B(m) for m quanta of data, what a run
settles into is not one period but a cycle: near the trigger a 1-quantum batch
that overruns a little shifts the next batch's start later, until two quanta
have ended when it starts and a longer batch pulls it back. Formulas for one
period miss that; replaying the triggers does not.

``replay`` steps through the batches of ``horizon`` quanta, quantum j readable
at (j + 1)·q − lead (the source's seconds end ``lead`` before a tick), and
measures the second half (the first is the settling from an empty start):

* the mean latency of a tuple: its quantum's mean event time (q / 2 before the
  quantum ends) to the end of the batch that reads it;
* the worst latency: the first tuple of a quantum (q before it ends) to its
  batch's end, the largest;
* the mean time between batch starts and the mean batch time.

Cost: O(horizon) steps, each one call of B for an m not seen before (B is cached:
m takes a few values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Replay:
    latency_mean_s: float
    latency_worst_s: float
    period_s: float  # mean time from a batch's start to the next one's
    batch_s: float  # mean batch time
    quanta_per_batch: float  # mean number of quanta a batch reads
    batch_counts: dict[int, int]  # m → batches of m quanta in the measured half


def replay(batch_time: Callable[[int], float], trigger_s: float, quantum_s: float, lead_s: float,
           horizon: int = 400) -> Replay:
    """Replay the trigger over ``horizon`` quanta of data; ``batch_time(m)`` is B for m quanta (seconds)."""
    if trigger_s <= 0 or quantum_s <= 0:
        raise ValueError("replay needs a positive trigger interval and quantum")
    cache: dict[int, float] = {}

    def b_of(m: int) -> float:
        if m not in cache:
            cache[m] = batch_time(m)
        return cache[m]

    def available(j: int) -> float:
        return (j + 1) * quantum_s - lead_s

    measured_from = horizon // 2
    t, read = 0.0, 0
    lat_sum = lat_worst = 0.0
    lat_n = 0
    starts: list[float] = []
    b_sum, m_sum = 0.0, 0
    counts: dict[int, int] = {}
    while read < horizon:
        ready = math.floor((t + lead_s) / quantum_s + 1e-9)  # quanta readable at t: available(j) ≤ t
        next_tick = (math.floor(t / trigger_s + 1e-9) + 1) * trigger_s
        if ready <= read:  # nothing new: the trigger finds no data; skip to the first tick with data (the ticks
            # in between find none either: stepping through them is O(quantum_s / trigger_s) per quantum)
            ticks = max(1, math.ceil((available(read) - t) / trigger_s - 1e-9))  # never past the first with data
            t = (math.floor(t / trigger_s + 1e-9) + ticks) * trigger_s
            continue
        m = ready - read
        b = b_of(m)
        end = t + b
        if read >= measured_from:
            starts.append(t)
            b_sum += b
            m_sum += m
            counts[m] = counts.get(m, 0) + 1
            for j in range(read, ready):
                lat_sum += end - (available(j) - quantum_s / 2)
                lat_worst = max(lat_worst, end - (available(j) - quantum_s))
                lat_n += 1
        read = ready
        t = max(end, next_tick)
    n = len(starts)
    period = (starts[-1] - starts[0]) / (n - 1) if n > 1 else max(trigger_s, quantum_s)
    return Replay(lat_sum / lat_n if lat_n else math.nan, lat_worst, period, b_sum / n if n else math.nan,
                  m_sum / n if n else math.nan, counts)
