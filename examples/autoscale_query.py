"""A plain PySpark Structured Streaming query, and the two lines that put streamplace's autoscaler on it.

Nothing here is a streamplace topology: a Python streaming data source whose rate follows a pattern, a pandas UDF
that costs CPU per row, and either a windowed count per key (``--sink count``) or the rows themselves into Parquet
(``--sink parquet``: exactly-once, so a scaling step that lost or repeated a row would show). With
``--mode autoscale`` (or ``recommend``) the only streamplace code is::

    import streamplace
    handle = streamplace.autoscale(query)

Run it on a cluster ``streamplace cluster up`` started (its state directory holds the secret an application
needs)::

    streamplace cluster up examples/autoscale-cluster.yaml        # prints spark://127.0.0.1:PORT
    python examples/autoscale_query.py --master spark://127.0.0.1:PORT \\
        --secret-file ~/.streamplace/clusters/autoscale-4/secret --duration 180 --mode autoscale

``--mode`` none (a fixed allocation: every core the cluster gives, or ``--executors N``), dynamic (Spark's dynamic
allocation), autoscale or recommend. Prints one JSON object at the end: batches, rows, the decisions' log.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition


def rows_by(levels: list[tuple[float, float]], seconds: float) -> int:
    """Rows arrived ``seconds`` after the start, for a rate of ``levels`` ((from second, rows/s), ascending)."""
    total = 0.0
    for k, (start, rate) in enumerate(levels):
        end = levels[k + 1][0] if k + 1 < len(levels) else math.inf
        if seconds <= start:
            break
        total += rate * (min(seconds, end) - start)
    return int(total)


def parse_levels(text: str) -> list[tuple[float, float]]:
    """'0:200,60:1200' → [(0, 200), (60, 1200)]: from second 0, 200 rows/s; from second 60, 1,200."""
    out = sorted((float(a), float(b)) for a, b in (part.split(":") for part in text.split(",") if part))
    if not out or out[0][0] != 0 or any(r < 0 for _, r in out):
        raise SystemExit(f"--levels {text!r}: write FROM_S:ROWS_PER_S pairs starting at 0, rates ≥ 0")
    return out


class Range(InputPartition):
    def __init__(self, first: int, end: int):
        super().__init__((first, end))
        self.first, self.end = first, end


class PatternReader(DataSourceStreamReader):
    """Offsets are row numbers: row i arrives when the pattern's integral since ``start`` reaches i."""

    def __init__(self, options: dict[str, str]):
        self.levels = parse_levels(options["levels"])
        self.start = float(options["start"])
        self.partitions_n = int(options.get("partitions", "4"))

    def initialOffset(self) -> dict[str, int]:
        return {"row": 0}

    def latestOffset(self) -> dict[str, int]:
        return {"row": rows_by(self.levels, time.time() - self.start)}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        a, b = int(start["row"]), int(end["row"])
        step = max(1, math.ceil((b - a) / self.partitions_n))
        return [Range(i, min(b, i + step)) for i in range(a, b, step)]

    def read(self, partition: InputPartition) -> Iterator[tuple[int, int, Any]]:
        import datetime

        assert isinstance(partition, Range)
        now = datetime.datetime.now()
        for i in range(partition.first, partition.end):
            yield (i, i % 16, now)

    def commit(self, end: dict[str, int]) -> None:
        pass


class PatternSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "pattern"

    def schema(self) -> str:
        return "id long, key int, ts timestamp"

    def streamReader(self, schema: Any) -> DataSourceStreamReader:
        return PatternReader(self.options)


def burner(cost_us: float) -> Any:
    """A pandas UDF that spends ``cost_us`` µs of CPU per row (a busy loop on the process's CPU clock)."""

    @F.pandas_udf("long")
    def burn(ids: pd.Series) -> pd.Series:
        until = time.process_time() + len(ids) * cost_us / 1e6
        x = 0
        while time.process_time() < until:
            x += 1
        return ids + (x & 0)

    return burn


def executor_lifetimes(spark: SparkSession) -> list[dict[str, Any]]:
    """Every executor the application had (the driver left out): id, host, cores, added and removed (epoch s;
    removed None while alive), from Spark's status store (through PySpark's gateway: no public Python API)."""
    found = spark.sparkContext._jsc.sc().statusStore().executorList(False)
    out = []
    for i in range(found.size()):
        e = found.apply(i)
        if str(e.id()) == "driver":
            continue
        removed = e.removeTime()
        out.append({"id": str(e.id()), "host": str(e.hostPort()).rsplit(":", 1)[0], "cores": int(e.totalCores()),
                    "added": e.addTime().getTime() / 1000.0,
                    "removed": removed.get().getTime() / 1000.0 if removed.isDefined() else None})
    return out


def lost_tasks(spark: SparkSession, run_id: str) -> list[dict[str, Any]] | str:
    """The query's task attempts that failed on an executor that went away (ExecutorLostFailure): stage, task,
    executor, launched (epoch s) and the error's first line, from Spark's status store — where a released executor
    was running tasks when it went, they are here. A string says why they could not be read."""
    try:
        tracker, store = spark.sparkContext.statusTracker(), spark.sparkContext._jsc.sc().statusStore()
        stages = sorted({s for j in tracker.getJobIdsForGroup(run_id) if (info := tracker.getJobInfo(j))
                         for s in info.stageIds})
        out = []
        for sid in stages:
            stage = tracker.getStageInfo(sid)
            if stage is None or (stage.numFailedTasks == 0 and stage.currentAttemptId == 0):
                continue
            for attempt in range(stage.currentAttemptId + 1):
                tasks = store.taskList(sid, attempt, 100000)
                for i in range(tasks.size()):
                    t = tasks.apply(i)
                    error = str(t.errorMessage().get()) if t.errorMessage().isDefined() else ""
                    if "ExecutorLost" in error:
                        out.append({"stage": sid, "attempt": attempt, "task": int(t.taskId()),
                                    "executor": str(t.executorId()), "launched": t.launchTime().getTime() / 1000.0,
                                    "error": error.splitlines()[0][:300]})
        return out
    except Exception as exc:  # a developer API through the gateway: say why, do not fail the run
        return f"{type(exc).__name__}: {str(exc)[:300]}"


def session(args: argparse.Namespace) -> SparkSession:
    b = SparkSession.builder.master(args.master).appName(f"autoscale-query-{args.mode}")
    b = b.config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", str(args.partitions))
    b = b.config("spark.sql.streaming.numRecentProgressUpdates", "100000")  # every report, for --record
    # the Python workers' interpreter (the driver's data-source runner and the executors'): this one, which has
    # pyarrow (on this machine's emulated cluster the executors run it too)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if args.master.startswith("spark://"):
        b = b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        if args.secret_file:
            b = b.config("spark.authenticate", "true").config("spark.authenticate.secret",
                                                               Path(args.secret_file).expanduser().read_text().strip())
        dynamic = args.mode == "dynamic"
        b = b.config("spark.dynamicAllocation.enabled", str(dynamic).lower())
        if dynamic:
            b = b.config("spark.dynamicAllocation.shuffleTracking.enabled", "true")
            b = b.config("spark.dynamicAllocation.minExecutors", "1")
        if args.executors and not dynamic:
            b = b.config("spark.cores.max", str(args.executors * args.executor_cores))
        b = b.config("spark.executor.memory", "512m")
    return b.getOrCreate()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--secret-file", default=None)
    ap.add_argument("--mode", choices=["none", "dynamic", "autoscale", "recommend"], default="autoscale")
    ap.add_argument("--levels", default="0:200,60:1200,120:300", help="FROM_S:ROWS_PER_S,… (the arrival pattern)")
    ap.add_argument("--cost-us", type=float, default=1500.0, help="CPU per row in the pandas UDF (µs)")
    ap.add_argument("--trigger", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=180.0)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--sink", choices=["count", "parquet"], default="count")
    ap.add_argument("--out", default=None, help="directory for the Parquet sink, its checkpoint and the log")
    ap.add_argument("--executors", type=int, default=0, help="mode none: cap the executors (0: all)")
    ap.add_argument("--executor-cores", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], help="an autoscaler option KEY=VALUE (repeatable)")
    ap.add_argument("--policy", default="streamplace", help="autoscale/recommend: streamplace, occupation, dstreams")
    ap.add_argument("--record", action="store_true", help="write run.json: every progress report and executor")
    args = ap.parse_args(argv)
    out = Path(args.out or f"/tmp/autoscale-query-{int(time.time())}")
    out.mkdir(parents=True, exist_ok=True)
    spark = session(args)
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(PatternSource)
    start = time.time()
    rows = (spark.readStream.format("pattern").option("levels", args.levels).option("start", str(start))
            .option("partitions", str(args.partitions)).load())
    burned = rows.select(burner(args.cost_us)("id").alias("id"), "key", "ts")
    if args.sink == "parquet":
        writer = burned.writeStream.format("parquet").option("path", str(out / "rows"))
    else:
        # the aggregate reads the UDF's output: a plain count() would let Catalyst prune the unused column, and
        # with it the UDF (it did: batches cost Spark's fixed overhead alone, whatever their rows)
        counted = (burned.withWatermark("ts", "10 seconds").groupBy(F.window("ts", "10 seconds"), "key")
                   .agg(F.count("id").alias("count"), F.max("id").alias("last_id")))
        writer = counted.writeStream.format("noop").outputMode("update")
    query = (writer.option("checkpointLocation", str(out / "checkpoint"))
             .trigger(processingTime=f"{args.trigger:g} seconds").start())
    handle = None
    if args.mode in ("autoscale", "recommend"):
        import streamplace

        options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
        attach = streamplace.autoscale if args.mode == "autoscale" else streamplace.recommend
        handle = attach(query, log_path=out / "decisions.jsonl", policy=args.policy, **options)
    query.awaitTermination(args.duration)
    progress = [json.loads(p.json) for p in query.recentProgress]
    query.stop()
    ended = time.time()
    if handle is not None:
        handle.stop()
    if args.record:
        (out / "run.json").write_text(json.dumps({"start": start, "end": ended, "levels": args.levels,
                                                  "trigger_s": args.trigger, "progress": progress,
                                                  "executors": executor_lifetimes(spark),
                                                  "lost_tasks": lost_tasks(spark, str(query.runId))}))
    result = {"mode": args.mode, "batches": len(progress), "last_batch": progress[-1]["batchId"] if progress else None,
              "out": str(out), "decisions": str(out / "decisions.jsonl") if handle else None,
              "autoscaler_error": handle.error if handle else None}
    spark.stop()
    return result


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
