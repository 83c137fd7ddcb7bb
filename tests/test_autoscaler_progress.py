"""Reading a query's progress report: offsets of any shape summed, the batch's time and the state's partitions."""

from __future__ import annotations

import json

import pytest

from streamplace.autoscaler.progress import offset_sum, read_progress

REPORT = {
    "id": "q", "runId": "r", "batchId": 7, "timestamp": "2026-11-27T20:55:01.500Z", "numInputRows": 1200,
    "durationMs": {"addBatch": 900, "triggerExecution": 1250},
    "sources": [
        {"description": "KafkaV2[Subscribe[t]]", "startOffset": {"t": {"0": 100, "1": 50}},
         "endOffset": {"t": {"0": 700, "1": 650}}, "latestOffset": {"t": {"0": 900, "1": 800}}},
        {"description": "pattern", "startOffset": "{\"row\": 10}", "endOffset": "{\"row\": 10}",
         "latestOffset": "{\"row\": 10}"},
    ],
    "stateOperators": [{"numShufflePartitions": 8}, {"numShufflePartitions": 200}],
}


def test_a_report_is_read_with_every_sources_offsets_summed() -> None:
    facts = read_progress(json.dumps(REPORT))
    assert (facts.batch_id, facts.rows, facts.duration_s) == (7, 1200, 1.25)
    assert (facts.started, facts.processed, facts.position) == (160.0, 1360.0, 1710.0)
    assert facts.state_partitions == 8  # the smallest stateful stage bounds the tasks at once
    assert facts.started_epoch_s == pytest.approx(1795812901.5)


def test_offsets_without_numbers_say_so() -> None:
    assert offset_sum("None") is None and offset_sum(None) is None and offset_sum({"file": "a"}) is None
    assert offset_sum("{\"logOffset\": 3}") == 3.0 and offset_sum([1, 2, {"x": 3}]) == 6.0
    first = dict(REPORT, sources=[dict(REPORT["sources"][0], startOffset=None)], stateOperators=[])
    facts = read_progress(first)
    assert facts.started is None and facts.processed == 1350.0 and facts.state_partitions is None
