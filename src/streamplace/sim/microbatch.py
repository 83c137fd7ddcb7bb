"""A simulated Structured Streaming query, driven by the same autoscaler decision the live one uses.

The query behaves as Spark's micro-batch engine does with a processing-time trigger and no admission cap: a batch
starts at the next trigger tick after the previous one ended (at once, when it ended late), reads every row that
arrived by then, and takes ``B = F + rows · w / C^β`` seconds on the capacity C its executors had when it
started. Offsets are row numbers, so the policy sees the arrival rate and the backlog as it would from a Kafka
source. After each batch the policy decides (collect → evaluate → decide, autoscaler/); an added executor
registers ``start_s`` later, a released one goes at once. Every executor-second is counted, and every batch's
time against the target.

Pure and deterministic: a function of the query, the arrival pattern, the policy and its options. O(batches ×
the policy's cost per call).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from streamplace.autoscaler.baselines import Policy
from streamplace.autoscaler.decide import Decision
from streamplace.autoscaler.evaluate import capacity_of
from streamplace.autoscaler.options import AutoscaleOptions
from streamplace.autoscaler.state import Batch, Executor, Memory, View


@dataclass(frozen=True)
class SimulatedQuery:
    fixed_s: float = 0.5  # F
    row_s: float = 0.002  # w: seconds per row on one reference core
    exponent: float = 1.0  # β
    trigger_s: float = 2.0
    cores: int = 1  # per executor
    start_s: float = 20.0  # from request to registration


@dataclass
class SimulatedRun:
    batches: list[Batch] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    executor_s: float = 0.0  # executor-seconds used
    actions: int = 0
    worst_lag_s: float = 0.0  # the oldest unprocessed row's age at any batch start

    def within_target(self, target_s: float) -> float:
        """Share of batches that took at most ``target_s``."""
        return sum(b.duration_s <= target_s + 1e-9 for b in self.batches) / len(self.batches) if self.batches else 0.0


def _arrived(rate: Callable[[float], float], t: float, step: float = 0.5) -> float:
    """Rows arrived by ``t`` (the integral of ``rate``, by steps of ``step`` seconds)."""
    n = int(t // step)
    return sum(rate(k * step) * step for k in range(n)) + rate(n * step) * (t - n * step)


def simulate(query: SimulatedQuery, rate: Callable[[float], float], policy: Policy, options: AutoscaleOptions,
             duration_s: float, executors: int, max_executors: int) -> SimulatedRun:
    """Run ``query`` for ``duration_s`` under ``policy``, starting with ``executors`` executors (at most
    ``max_executors`` can exist: the cluster's size)."""
    run = SimulatedRun()
    live = [Executor(str(i), f"h{i}", query.cores, 0.0) for i in range(executors)]
    pending: list[float] = []  # registration times of requested executors
    memory = Memory()
    done = 0.0
    t = 0.0
    next_id = executors
    arrivals: list[tuple[float, float]] = []  # (time, rows arrived by then), for the lag
    next_tick = 0.0
    while t < duration_s:
        # Spark's ProcessingTimeExecutor: the next trigger time is fixed when a batch starts (the next multiple of
        # the interval); a batch that ends after it is followed at once
        start = max(t, next_tick)
        next_tick = (math.floor(start / query.trigger_s + 1e-9) + 1) * query.trigger_s
        for at in [p for p in pending if p <= start]:
            pending.remove(at)
            live.append(Executor(str(next_id), f"h{next_id}", query.cores, at))
            next_id += 1
        available = _arrived(rate, start)
        arrivals.append((start, available))
        if available > done:
            oldest = next((a_t for a_t, rows in arrivals if rows > done), start)
            run.worst_lag_s = max(run.worst_lag_s, start - oldest)
        rows = max(0.0, available - done)
        capacity = capacity_of(live, options)
        duration = query.fixed_s + rows * query.row_s / max(capacity, 1e-9) ** query.exponent
        end = start + duration
        run.executor_s += (end - t) * len(live)
        batch = Batch(at_s=end, batch_id=len(run.batches), rows=int(rows), duration_s=duration, capacity=capacity,
                      executors=len(live), started=done, processed=done + rows, position=available)
        run.batches.append(batch)
        done += rows
        t = end
        room = {"default": max(0, max_executors - len(live) - len(pending))}
        view = View(now_s=t, target_batch_s=query.trigger_s, batches=tuple(run.batches[-500:]),
                    executors=tuple(live), pending=len(pending), available=room)
        decision, memory = policy(view, memory, options)
        run.decisions.append(decision)
        if decision.action == "up":
            pending += [t + query.start_s] * len(decision.add)
            run.actions += 1
        elif decision.action == "down":
            live = [e for e in live if e.id not in decision.release]
            run.actions += 1
    return run
