"""What the autoscaler knows, as typed values: the collected batches, the executors, and the decision's memory.

``collect`` (a Spark listener, or a simulated query) produces these; ``evaluate`` and ``decide`` read them and
nothing else, so the decision is a pure function of them and of the options.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Batch:
    """One finished micro-batch, as the query's progress reports it.

    ``position``: the sources' latest available offsets, summed over every source and partition, and
    ``processed``: their end offsets, the same way (None where a source's offsets are not numbers). Offsets are
    the only arrival signal a rate cap (``maxOffsetsPerTrigger``) does not hide; ``rows`` / the offsets the batch
    advanced converts them to rows."""

    at_s: float  # when the batch ended, seconds on the collector's clock
    batch_id: int
    rows: int
    duration_s: float  # triggerExecution
    capacity: float  # reference cores the query's executors had while it ran (Σ cores × speed)
    executors: int
    started: float | None = None  # the sources' start offsets, summed
    processed: float | None = None  # end offsets, summed
    position: float | None = None  # latest offsets, summed
    #: the batch's executors changed while it ran (or it is the query's first): not a point of the fit
    unsettled: bool = False
    #: a stateful operator's shuffle partitions (frozen in the checkpoint): the most tasks its stage runs at once
    state_partitions: int | None = None
    #: from Spark's status store (None where it cannot be read: Spark Connect, a simulated query): the wall time of
    #: the batch's Spark jobs (the rest of duration_s is the driver's), Σ its tasks' executor run time, and the
    #: task count of its heaviest stage
    jobs_s: float | None = None
    task_s: float | None = None
    heaviest_tasks: int | None = None
    #: Σ cores of the executors while it ran (None: not known): converts task_s to reference core-seconds
    cores: int | None = None

    @property
    def driver_s(self) -> float | None:
        """The batch's time outside its Spark jobs (offsets, planning, WAL, commit): a fixed cost per batch."""
        return None if self.jobs_s is None else max(0.0, self.duration_s - self.jobs_s)

    @property
    def task_ref_s(self) -> float | None:
        """Σ its tasks' run time in reference core-seconds: task_s × the executors' mean speed (capacity / cores);
        None where either is not known."""
        if self.task_s is None or not self.cores:
            return None
        return self.task_s * self.capacity / self.cores


@dataclass(frozen=True)
class Executor:
    """A live executor of the application."""

    id: str
    host: str
    cores: int
    started_s: float  # when it registered, on the collector's clock
    type_name: str = "default"


@dataclass(frozen=True)
class Change:
    """A change the autoscaler made: when, from and to what capacity, and what it expected of the per-row cost."""

    at_s: float
    kind: str  # "up" or "down"
    capacity_before: float
    capacity_after: float
    row_cost_before: float | None = None  # seconds of batch time per row at capacity_before (fit), if known
    row_cost_expected: float | None = None  # at capacity_after, as the decision predicted it


@dataclass(frozen=True)
class Memory:
    """What the decision carries from one call to the next (the decision returns a new one; nothing mutates)."""

    changes: tuple[Change, ...] = ()
    #: when a scale-down was first recommended (since then every call has recommended one), and the needs
    #: recorded since as (time, reference cores), each higher than every later one: the first within the
    #: window is the window's highest
    down_since_s: float | None = None
    down_needs: tuple[tuple[float, float], ...] = ()
    #: no scale-up before this time (an ineffective scale-up was detected)
    blocked_until_s: float | None = None
    #: the last scale-up whose effect has been judged (so it is judged once)
    judged_up_s: float | None = None
    #: baselines.py's rules (the decision above does not read these). The end (``at_s``) of the last batch a rule
    #: has read: each batch is read once, whatever the number of calls (an idle report repeats a batch id)
    seen_until_s: float | None = None
    #: the occupation rule's smoothed usage (None: the source's seed, 1.0) and the weight behind it (its seed 1.0)
    smoothed_usage: float | None = None
    usage_weight: float = 1.0
    #: the DStreams rule's timer: when its last check was due
    last_check_s: float | None = None

    @property
    def last_change(self) -> Change | None:
        return self.changes[-1] if self.changes else None

    def changes_since(self, since_s: float) -> int:
        return sum(1 for c in self.changes if c.at_s > since_s)


@dataclass(frozen=True)
class View:
    """Everything one decision reads: the clock, the batches so far, the executors, what is pending."""

    now_s: float
    target_batch_s: float
    batches: tuple[Batch, ...]
    executors: tuple[Executor, ...]
    #: executors requested and not registered yet
    pending: int = 0
    #: executors the cluster could still start, by worker type (None: unknown, take the options' max_executors)
    available: dict[str, int] | None = None
    #: the application cannot change its executors (local mode, Spark Connect, a recommend-only run)
    can_act: bool = True
    notes: tuple[str, ...] = field(default=())
