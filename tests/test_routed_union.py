"""A pinned stage's input: the parts of its upstream operator's nodes, routed to its replicas, one task each."""

from __future__ import annotations

import pytest

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def spark():
    from streamplace.spark.session import local_session

    return local_session(2)


def test_three_parts_reach_two_replicas_in_two_tasks_each_on_its_own_columns(spark) -> None:
    """Behind three upstream parts, a stage of two replicas runs two tasks (not six: a projection between the
    exchanges and the union gave one task per part and replica), every row in the task its routing value hashes to,
    and the operator sees its own columns only."""
    import pyarrow as pa
    import pyspark.sql.functions as F

    from streamplace.spark.pipeline import _columns_of, routed_union

    parts = [spark.range(k * 100, k * 100 + 60).select(F.col("id").alias("value"), (F.col("id") % 2).cast("int")
                                                        .alias("_t")) for k in range(3)]
    x = routed_union(parts, 2)

    def task(batches):
        from pyspark import TaskContext

        pid = TaskContext.get().partitionId()
        for b in _columns_of(batches, ["value"]):
            yield pa.RecordBatch.from_pydict({"value": b.column(0), "task": pa.array([pid] * b.num_rows, pa.int32()),
                                              "columns": pa.array([",".join(b.schema.names)] * b.num_rows)})

    out = x.mapInArrow(task, "value long, task int, columns string")
    assert out.rdd.getNumPartitions() == 2
    rows = out.collect()
    assert len(rows) == 180 and {r["columns"] for r in rows} == {"value"}
    # every row in the task its routing value hashes to (Spark's hash partitioning, as the pipeline targets it)
    expected = {r["t"]: r["p"] for r in spark.range(2).select(F.col("id").cast("int").alias("t"))
                .select("t", F.expr("pmod(hash(t), 2)").alias("p")).collect()}
    assert all(r["task"] == expected[r["value"] % 2] for r in rows)
