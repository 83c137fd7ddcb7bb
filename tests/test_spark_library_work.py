"""The real-work operators (parse, hash, regex, at-speed) on plain Arrow batches: their output against a direct
computation, and the passes that emulate a node's speed (no Spark, no clocks)."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from streamplace.errors import SpecError  # noqa: E402
from streamplace.model.topology import Operator  # noqa: E402
from streamplace.spark.query.library import logic_of, work  # noqa: E402


def base(values: np.ndarray) -> pa.RecordBatch:
    ts = pa.array(np.zeros(len(values), dtype=np.int64)).cast(pa.timestamp("us", tz="UTC"))
    return pa.RecordBatch.from_arrays([ts, pa.array(values), pa.array(values % 1024)], names=["ts", "value", "key"])


def op(**logic: object) -> Operator:
    return Operator("x", cost_ms=5.0, logic=dict(logic))


def test_parse_sums_each_generated_records_readings() -> None:
    values = np.array([0, 1, 2, 12345], dtype=np.int64)
    out = logic_of(op(name="parse", readings=5)).fn(base(values))
    docs = [json.loads(r) for r in work.records(values, 5)]
    assert [d["id"] for d in docs] == values.tolist() and all(len(d["readings"]) == 5 for d in docs)
    assert out.column("total").to_pylist() == pytest.approx([sum(d["readings"]) for d in docs])
    assert out.column("value").equals(pa.array(values))  # input columns kept
    assert work.records(values, 5) == work.records(values, 5)  # a replay regenerates the same records


def test_hash_is_iterated_sha256_over_the_payload() -> None:
    payload = ((7).to_bytes(8, "little") * 3)[:16]
    h = hashlib.sha256(payload).digest()
    h = hashlib.sha256(h + payload).digest()
    h = hashlib.sha256(h + payload).digest()
    out = logic_of(op(name="hash", rounds=3, payload_bytes=16)).fn(base(np.array([7, 8], dtype=np.int64)))
    assert out.column("digest").to_pylist()[0] == h.hex()
    assert out.column("digest").to_pylist()[1] != h.hex()


def test_regex_counts_the_patterns_matches_in_the_tuples_text() -> None:
    values = np.arange(130, dtype=np.int64)
    out = logic_of(op(name="regex", words=50, pattern=r"\bstream\w*")).fn(base(values))
    corpus = work.texts(50)
    want = [len(re.findall(r"\bstream\w*", corpus[v % len(corpus)])) for v in values]
    assert out.column("matches").to_pylist() == want and max(want) > 0


def test_passes_repeat_the_work_reference_over_speedup_times_in_the_mean() -> None:
    p = work.Passes(2.2, 1.0)  # 1.2 extra passes
    extra = [p.extra(100) for _ in range(10)]
    assert sum(w * 100 + part for w, part in extra) == pytest.approx(1200, abs=1)
    assert work.Passes(None, 3.0).factor == 1.0 and work.Passes(2.2, 2.2).extra(50) == (0, 0)
    with pytest.raises(ValueError, match="above reference"):
        work.Passes(1.5, 2.2)


def test_the_logic_runs_as_often_as_the_node_is_slow_and_its_output_does_not_change() -> None:
    calls: list[int] = []

    def fn(batch: pa.RecordBatch) -> pa.RecordBatch:
        calls.append(batch.num_rows)
        return batch

    batch = base(np.arange(10, dtype=np.int64))
    run = work.repeated(fn, work.Passes(2.5, 1.0))
    assert run(batch) is batch
    assert calls == [10, 10, 5]  # the output pass, one whole extra pass, half a pass
    slow, fast = (logic_of(op(name="hash", rounds=2, reference=2.2), s) for s in (1.0, 2.2))
    assert slow.fn(batch).equals(fast.fn(batch))


def test_at_speed_runs_another_logic_without_its_burn() -> None:
    logic = logic_of(op(name="at-speed", of="transform", reference=2.0, keys=10), 1.0)
    out = logic.fn(base(np.arange(5, dtype=np.int64)))
    assert out.column("key").to_pylist() == [(k * 31 + 7) % 10 for k in range(5)]
    for bad in ({"of": "window-count"}, {"of": "nope"}, {"of": "rate"}):
        with pytest.raises(SpecError):
            logic_of(op(name="at-speed", **bad))
    with pytest.raises(SpecError, match="above reference"):
        logic_of(op(name="hash", reference=1.0), 2.2)
