"""The sink tasks' own Parquet output: files per replica, published whole per batch, replays replace."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from streamplace.spark.query import sink
from streamplace.spark.query.logic import BASE_COLUMNS, arrow_schema


def batch(values: list[int]) -> pa.RecordBatch:
    ts = pa.array([1_700_000_000_000_000 + v for v in values], pa.timestamp("us", tz="Etc/UTC"))
    return pa.RecordBatch.from_arrays([ts, pa.array(values, pa.int64()), pa.array(values, pa.int64())],
                                      names=["ts", "value", "key"])


def write_batch(out, batch_id: int, parts: dict[int, list[list[int]]], offset: int = 0) -> None:
    sink.prepare(out, "snk", batch_id)
    writer = sink.ParquetParts(str(out / "snk"), arrow_schema(BASE_COLUMNS), offset)
    for partition, batches in parts.items():
        assert list(writer.write(iter(batch(v) for v in batches), partition, batch_id)) == []


def test_published_batches_read_back_with_their_batch_ids(tmp_path):
    write_batch(tmp_path, 0, {0: [[1, 2], [3]], 1: [[4]]})
    write_batch(tmp_path, 1, {0: [], 1: [[5]]}, offset=2)  # an empty replica still writes its file (schema)
    assert not list((tmp_path / "snk").glob("batch_id=*"))  # nothing visible before publishing
    sink.publish(tmp_path, "snk", 0)
    sink.publish(tmp_path, "snk", 1)
    files = sorted(p.relative_to(tmp_path / "snk").as_posix() for p in (tmp_path / "snk").rglob("part-*"))
    assert files == ["batch_id=0/part-00000.parquet", "batch_id=0/part-00001.parquet",
                     "batch_id=1/part-00002.parquet", "batch_id=1/part-00003.parquet"]
    frame = pd.read_parquet(tmp_path / "snk")  # _staging is hidden from readers
    assert sorted(frame["value"]) == [1, 2, 3, 4, 5]
    assert dict(zip(frame["value"], frame["batch_id"].astype(int), strict=True)) == {1: 0, 2: 0, 3: 0, 4: 0, 5: 1}
    assert str(frame["ts"].dtype).startswith("datetime64") and frame["ts"].dt.tz is not None


def test_a_replayed_batch_replaces_its_output(tmp_path):
    write_batch(tmp_path, 7, {0: [[1]], 1: [[2]], 2: [[3]]})
    sink.publish(tmp_path, "snk", 7)
    write_batch(tmp_path, 7, {0: [[1, 2, 3]]})  # replayed after a re-plan to one replica
    sink.publish(tmp_path, "snk", 7)
    assert sorted(pd.read_parquet(tmp_path / "snk" / "batch_id=7")["value"]) == [1, 2, 3]
    assert [p.name for p in (tmp_path / "snk" / "batch_id=7").iterdir()] == ["part-00000.parquet"]
    assert not [p for p in (tmp_path / "snk" / "_staging").iterdir()]


def test_columns_in_another_order_are_written_in_the_declared_one(tmp_path):
    sink.prepare(tmp_path, "snk", 0)
    writer = sink.ParquetParts(str(tmp_path / "snk"), arrow_schema(BASE_COLUMNS))
    b = batch([9])
    list(writer.write(iter([b.select(["key", "value", "ts"])]), 0, 0))
    sink.publish(tmp_path, "snk", 0)
    assert list(pd.read_parquet(tmp_path / "snk" / "batch_id=0").columns) == ["ts", "value", "key"]


def test_an_unknown_column_type_is_named():
    with pytest.raises(ValueError, match="decimal"):
        arrow_schema((("x", "decimal"),))
