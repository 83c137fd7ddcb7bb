"""The runtime's events (spark/events.py) without a JVM: what `live`'s loop and the batch watch tell their
listener, and how the live page and the terminal subscribe to them (issue 54, item 4: events, not imports)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from streamplace.model.cluster import Cluster, Node
from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology

pytest.importorskip("pyspark")  # the runtime's modules import it (no session is started here)

TOPO = Topology("c", (Operator("s", "source", rate=10.0), Operator("k", "sink")), (Stream("s", "k"),))
CLUSTER = Cluster("one", (Node("n1", cpu=400, memory_mb=4096, slots=4),))


def _plan(sinks: int) -> Plan:
    return Plan("manual", TOPO.name, CLUSTER.name, {"s": {"n1": 1}, "k": {"n1": sinks}}, {"s": 10.0})


class Recorder:
    """A listener that keeps what it hears, in order."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, Any]] = []

    def on_batch(self, batch: Any) -> None:
        self.heard.append(("batch", batch))

    def on_event(self, event: Any) -> None:
        self.heard.append(("event", event))

    def on_end(self, end: Any) -> None:
        self.heard.append(("end", end))

    def of(self, kind: str) -> list[Any]:
        return [what for k, what in self.heard if k == kind]


def test_the_batch_watch_tells_each_new_micro_batch_once_per_query() -> None:
    from streamplace.spark.query.operators import LAT_COUNT, LAT_SUM_S, N_STATS, ROWS_IN
    from streamplace.spark.runtime.watch import BatchWatch

    heard = Recorder()
    watch = BatchWatch(TOPO, heard, origin=100.0)  # type: ignore[arg-type]
    row = [0.0] * N_STATS
    row[ROWS_IN], row[LAT_SUM_S], row[LAT_COUNT] = 40.0, 2.0, 40.0
    pipe = SimpleNamespace(batch_done=(-1, 100.0, {}))
    watch.look(pipe, 0)  # no batch has ended
    watch.look(None, 0)  # no pipeline yet
    pipe.batch_done = (3, 104.5, {"k": row})
    for _ in range(3):  # looked at three times while batch 3 is the last: told once
        watch.look(pipe, 0, [SimpleNamespace(backlog_rows=7.0)])
    pipe.batch_done = (0, 110.0, {"k": row})  # a re-plan's query: its ids start again
    watch.look(pipe, 1)
    batches = heard.of("batch")
    assert [(b.query, b.batch_id, b.at_s) for b in batches] == [(0, 3, 4.5), (1, 0, 10.0)]
    assert batches[0].sink_tuples == 40.0 and batches[0].latency_sum_s == 2.0 and batches[0].backlog_rows == 7.0
    assert batches[0].cpu_s == {"local": 0.0} and batches[1].backlog_rows is None


class FakePipeline:
    """What LiveRun reads of a pipeline, without Spark: every read of its statistics has 10 more tuples at the sink,
    a micro-batch ends every 20 ms."""

    made: ClassVar[list[FakePipeline]] = []

    def __init__(self, spark: Any, topology: Topology, plan: Plan, cfg: Any):
        from streamplace.spark.query.operators import N_STATS

        self.plan, self.rows, self.n_stats = plan, 0.0, N_STATS
        self.begun = time.perf_counter()
        self.query = None
        FakePipeline.made.append(self)

    @property
    def stats(self) -> Any:
        from streamplace.spark.query.operators import ROWS_IN

        self.rows += 10.0
        row = [0.0] * self.n_stats
        row[ROWS_IN] = self.rows
        return SimpleNamespace(value={"k": row})

    @property
    def batch_done(self) -> tuple[int, float, dict[str, list[float]]]:
        return int((time.perf_counter() - self.begun) / 0.02), time.perf_counter(), self.stats.value

    def start(self) -> None:
        pass

    def stop(self, wait_s: float = 0.0) -> None:
        pass


class GrowOnce:
    """A policy that asks for a second sink replica at its first decision, then keeps the plan (or fails)."""

    name = "grow-once"

    def __init__(self, fail: bool = False):
        self.reason, self.decided, self.fail = "", 0, fail

    def initial(self, cluster: Cluster) -> Plan:
        return _plan(1)

    def decide(self, obs: Any, plan: Plan, cluster: Cluster) -> Plan | None:
        self.decided += 1
        if self.fail:
            raise RuntimeError("the policy broke")
        self.reason = "busy" if self.decided == 1 else ""
        return _plan(2) if self.decided == 1 else None


@pytest.fixture
def fake_pipelines(monkeypatch: pytest.MonkeyPatch) -> list[FakePipeline]:
    import streamplace.spark.runtime.live as live

    FakePipeline.made = []
    monkeypatch.setattr(live, "pipeline_for", FakePipeline)  # the loop makes its pipelines through the chooser
    return FakePipeline.made


def _runner(policy: Any, tmp_path: Path) -> Any:
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.runtime.live import LiveRun

    runner = LiveRun(None, TOPO, CLUSTER, policy, PipelineConfig(out_dir=tmp_path, trigger_s=0.02), interval_s=0.15,
                     poll_s=0.02, settle_intervals=0)
    return runner


def test_the_live_loop_tells_its_listener_every_plan_decision_batch_and_its_end(
        fake_pipelines: list[FakePipeline], tmp_path: Path) -> None:
    heard = Recorder()
    runner = _runner(GrowOnce(), tmp_path)
    result = runner.run(0.6, listener=heard)
    events = heard.of("event")
    # the first plan and the re-plan, each with the plan enacted, in the order the loop recorded them
    enacted = [(e.kind, e.detail, e.plan) for e in events if e.plan is not None]
    assert enacted == [(e.kind, e.detail, p.plan) for e, p in zip(result.events, fake_pipelines, strict=True)]
    assert [kind for kind, _, _ in enacted] == ["start", "replan"]
    assert enacted[1][1] == "k 1→2 — busy" and enacted[1][2].counts()["k"] == 2
    assert any(e.kind == "decision" and e.detail == "kept the plan" for e in events)
    assert [e.at_s for e in events] == sorted(e.at_s for e in events)  # as they happen
    batches = heard.of("batch")
    assert {b.query for b in batches} == {1, 2}  # both queries' batches, each told once
    assert len({(b.query, b.batch_id) for b in batches}) == len(batches)
    assert heard.heard[-1][0] == "end" and len(heard.of("end")) == 1
    end = heard.of("end")[0]
    assert end.result is result and end.error is None and end.status == "finished"


def test_a_failing_loop_tells_its_end_with_the_error(fake_pipelines: list[FakePipeline], tmp_path: Path) -> None:
    heard = Recorder()
    with pytest.raises(RuntimeError, match="the policy broke"):
        _runner(GrowOnce(fail=True), tmp_path).run(0.6, listener=heard)
    [end] = heard.of("end")
    assert end.status == "failed" and str(end.error) == "the policy broke"


def test_the_page_and_the_terminal_see_what_they_saw_before_the_events(
        fake_pipelines: list[FakePipeline], tmp_path: Path) -> None:
    """`live`'s subscribers: the terminal hears every decision, re-plan and fault but not the first plan (as the
    loop's progress callback had it); the page logs each once, redraws its picture per plan and is written at the
    end."""
    from streamplace.page.live_run import RunPage
    from streamplace.spark.events import Listeners
    from streamplace.workflows.feeds import Guarded, PageFeed, Steps

    page = RunPage("live", 1, {"n1": 4.0}, tmp_path / "live-page.html", serve=False)
    drawn: list[dict[str, dict[str, int]]] = []

    def describe(plan: Plan) -> tuple[dict[str, Any], str | None, dict[str, float]]:
        drawn.append(plan.replicas)
        return {"delivered_throughput": 10.0}, "<svg/>", {"n1": 4.0}

    feed = PageFeed(page, describe=describe)
    steps: list[tuple[float, str]] = []
    warned: list[str] = []
    result = _runner(GrowOnce(), tmp_path).run(
        0.6, listener=Listeners(Guarded(feed, warned.append), Steps(lambda at, what: steps.append((at, what)))))
    logged = [(e["kind"], e["detail"]) for e in page.series.events]
    assert logged[:1] == [("start", "grow-once: first plan")]
    assert ("replan", "k 1→2 — busy") in logged and ("decision", "kept the plan") in logged
    assert [what for _, what in steps] == [detail for kind, detail in logged if kind != "start"]
    assert drawn == [{"s": {"n1": 1}, "k": {"n1": 1}}, {"s": {"n1": 1}, "k": {"n1": 2}}]
    assert page.series.picture_version == 2 and page.series.points  # points from both queries' batches
    assert page.series.status == "finished" and feed.written == tmp_path / "live-page.html" and not warned
    assert result.final is not None and result.final.counts()["k"] == 2
