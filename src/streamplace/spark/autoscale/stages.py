"""Collect: what a micro-batch's Spark jobs did, from the driver's status tracker and status store.

A progress report says how long a batch took (``durationMs.triggerExecution``), not where the time went. Spark's
own bookkeeping does: Structured Streaming runs a batch's jobs in the job group of the query's run id, described
``… batch = N`` (StreamExecution.getBatchDescriptionString), and the status store keeps each job's submission and
completion times and each stage's task count and summed executor run time (the figures the Spark UI shows). From
them, per batch:

* ``jobs_s``: the wall time from the first job's submission to the last one's completion: the batch's time on
  the executors; what is left of triggerExecution is the driver's (offsets, planning, WAL, commit);
* ``task_s``: Σ executor run time of its tasks: core-seconds of work, whatever the executors' count;
* ``heaviest_tasks``: the task count of the stage with the most executor run time: more cores than that cannot
  make that stage faster.

Each call reads only the job group's ids (one call: the array as text) and the new jobs' records: a few
gateway calls per batch. Spark Connect has no SparkContext: the reader is then None and the batches carry no
stage facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StageFacts:
    jobs_s: float
    task_s: float
    heaviest_tasks: int


def _option(value: Any) -> Any:
    """A Scala Option's content, or None."""
    return value.get() if value is not None and value.isDefined() else None


def _batch_of(description: Any) -> int | None:
    """The batch id a streaming job's description ends with (``… batch = 7``), None for another job."""
    _, sep, tail = str(description or "").rstrip().rpartition("batch = ")
    return int(tail) if sep and tail.isdigit() else None


class StageReader:
    """Reads the stage facts of one query run's batches (see the module's docstring)."""

    def __init__(self, spark: Any, run_id: str):
        sc = spark.sparkContext
        self.jvm = sc._jvm
        self.tracker = sc._jsc.sc().statusTracker()
        self.store = sc._jsc.sc().statusStore()
        self.run_id = run_id
        self.done: set[int] = set()  # jobs already counted in a batch (a job belongs to one batch)

    def _group_jobs(self) -> list[int]:
        text = str(self.jvm.java.util.Arrays.toString(self.tracker.getJobIdsForGroup(self.run_id)))
        return [int(x) for x in text.strip("[]").split(",") if x.strip()]

    def read(self, batch_id: int) -> StageFacts | None:
        """The facts of batch ``batch_id`` (None: none of its jobs is known — evicted, or a batch with no job)."""
        first = last = None
        task_ms = 0.0
        heaviest = (-1.0, 0)
        known = set(self._group_jobs())
        self.done &= known  # the ids Spark no longer retains need no remembering
        for job_id in sorted(known - self.done):
            try:
                job = self.store.job(job_id)
            except Exception:  # evicted from the store (spark.ui.retainedJobs) or not yet written
                continue
            of = _batch_of(_option(job.description()))
            if of is None or of < batch_id:  # not a batch's, or an earlier one's (before the reader was attached)
                self.done.add(job_id)  # never read again
                continue
            submitted, completed = _option(job.submissionTime()), _option(job.completionTime())
            if of > batch_id or submitted is None or completed is None:
                continue  # the next batch's, already running
            self.done.add(job_id)
            start, end = float(submitted.getTime()) / 1000, float(completed.getTime()) / 1000
            first = start if first is None else min(first, start)
            last = end if last is None else max(last, end)
            stages = job.stageIds()
            for i in range(stages.size()):
                try:
                    stage = self.store.lastStageAttempt(stages.apply(i))
                except Exception:  # a stage skipped or evicted
                    continue
                run_ms = float(stage.executorRunTime())
                task_ms += run_ms
                if run_ms > heaviest[0]:
                    heaviest = (run_ms, int(stage.numTasks()))
        if first is None or last is None:
            return None
        return StageFacts(jobs_s=max(0.0, last - first), task_s=task_ms / 1000, heaviest_tasks=heaviest[1])


def stage_reader(spark: Any, run_id: str) -> StageReader | None:
    """A reader for a classic session; None on Spark Connect (no SparkContext, no status store)."""
    try:
        return StageReader(spark, run_id)
    except Exception:
        return None
