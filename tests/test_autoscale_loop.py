"""The live loop's bookkeeping around the decision (workflows/autoscale.py), with a fake executor client: no Spark."""

from __future__ import annotations

import json
import queue
from dataclasses import dataclass, field
from typing import Any

import pytest

from streamplace.autoscaler.decide import Decision
from streamplace.autoscaler.options import options_from
from streamplace.autoscaler.state import Memory, View
from streamplace.spark.autoscale.executors import LiveExecutor
from streamplace.workflows import autoscale as workflow


@dataclass
class FakeClient:
    """A cluster of ``running`` executors that starts none of those asked for beyond them."""

    running: int
    target: int | None = None
    totals: list[int] = field(default_factory=list)

    def live(self) -> list[LiveExecutor]:
        return [LiveExecutor(str(i), f"10.0.0.{i}", 2, 0.0) for i in range(self.running)]

    def set_total(self, total: int) -> bool:
        self.target = total
        self.totals.append(total)
        return True

    def release(self, ids: list[str]) -> bool:
        return True


def report(batch_id: int) -> str:
    return json.dumps({"batchId": batch_id, "numInputRows": 100, "durationMs": {"triggerExecution": 1000},
                       "timestamp": None, "sources": [{"startOffset": batch_id * 100, "endOffset": (batch_id + 1) * 100,
                                                       "latestOffset": (batch_id + 1) * 100}]})


def test_requests_the_cluster_cannot_start_stop_blocking_and_cap_later_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[View] = []

    def always_up(view: View, memory: Memory, options: Any) -> tuple[Decision, Memory]:
        seen.append(view)
        n = len(view.executors)
        room = sum(view.available.values()) if view.available is not None else 2
        add = ("default",) * (min(2, room) if not view.pending else 0)  # as decide: nothing while some register
        return Decision(at_s=view.now_s, action="up" if add else "keep", reason="test", executors=n,
                        target_executors=n + len(add), capacity=2.0 * n, target_capacity=2.0 * (n + len(add)),
                        add=add), memory

    monkeypatch.setattr(workflow, "REGISTER_TIMEOUT_S", 0.0)
    handle = workflow.AutoscaleHandle("q", True, options_from({}), 10.0, None)
    client = FakeClient(running=4)
    loop = workflow._Loop(handle, client, 0, queue.Queue(), None, lambda executors: None, None, always_up)
    loop.step(report(0), None)  # asks for 6: the cluster has 4 (its free workers unknown)
    assert client.totals == [6] and seen[-1].available is None
    loop.step(report(1), None)  # none registered: pending, the decision waits
    assert seen[-1].pending == 2
    loop.step(report(2), None)  # past the timeout: the target falls back to what runs, and the cap is learned
    assert client.totals == [6, 4] and seen[-1].pending == 0 and seen[-1].available == {"default": 0}
    client.running = 5  # the cluster shows more: the cap is forgotten
    loop.step(report(3), None)
    assert seen[-1].available is None
