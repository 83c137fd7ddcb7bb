"""The live run page without Spark: points from counter readings, the server, the written page, the live feed."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from streamplace.page.live_run import RunPage
from streamplace.page.render import static_page
from streamplace.page.series import MAX_POINTS, LiveSeries, Reading, page_prediction
from streamplace.page.server import PageServer


def _reading(at: float, batch: int, sunk: float, lat_sum: float = 0.0, lat_n: float = 0.0, query: int = 0,
             cpu: float = 0.0) -> Reading:
    return Reading(at_s=at, query=query, batch_id=batch, sink_tuples=sunk, latency_sum_s=lat_sum,
                   latency_count=lat_n, cpu_s={"n1": cpu}, backlog_rows=5.0, machine_busy_s=at, machine_total_s=4 * at)


def test_a_point_is_the_rates_and_means_since_the_previous_batch() -> None:
    s = LiveSeries("t", 60, {"n1": 2.0})
    assert s.add(_reading(1.0, 0, 100)) is None  # the first reading sets the baseline
    p = s.add(_reading(3.0, 2, 500, lat_sum=80.0, lat_n=400, cpu=1.0))
    assert p is not None
    assert p["throughput"] == pytest.approx(200.0)  # 400 tuples over 2 s
    assert p["latency_ms"] == pytest.approx(200.0)  # 80 s of latency over 400 tuples
    assert p["batches"] == 2 and p["batch"] == 2
    assert p["utilization"] == {"n1": pytest.approx(0.25)}  # 1 CPU s over 2 s on 2 cores
    assert p["machine_cpu"] == pytest.approx(0.25) and p["backlog"] == 5.0
    assert s.add(_reading(3.5, 2, 900)) is None  # the same batch again: no point, the baseline stays
    assert s.add(_reading(4.0, 3, 700))["throughput"] == pytest.approx(200.0)
    # a re-plan's new query starts its counters at zero: its first reading is a baseline, not a negative rate
    assert s.add(_reading(6.0, 0, 10, query=1)) is None
    assert s.add(_reading(7.0, 1, 60, query=1))["throughput"] == pytest.approx(50.0)
    assert s.state()["status"] == "running" and len(s.state()["points"]) == 3
    # batches 0–3 of the first query and 0–1 of the second ended while the page watched (ids resume from a
    # checkpoint, so the page counts batches, not ids)
    assert s.state()["batches_done"] == 6


def test_the_points_kept_are_bounded() -> None:
    s = LiveSeries("t", 60, {})
    for k in range(MAX_POINTS + 50):
        s.add(_reading(float(k), k, 10.0 * k))
    assert len(s.points) == MAX_POINTS and s.points[-1]["batch"] == MAX_POINTS + 49


def test_an_overloaded_plan_has_no_predicted_latency() -> None:
    steady = page_prediction({"offered_throughput": 100.0, "delivered_throughput": 100.0, "latency_mean_ms": 40.0,
                              "utilization": {"a": 0.5}, "offered_rate": 100.0})
    behind = page_prediction({"offered_throughput": 100.0, "delivered_throughput": 60.0, "latency_mean_ms": 40.0})
    assert steady["latency_ms"] == 40.0 and steady["utilization"] == {"a": 0.5}
    assert behind["latency_ms"] is None and behind["throughput"] == 60.0


def _get(url: str) -> tuple[int, bytes, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read(), r.headers["Content-Type"]


def test_the_server_answers_the_page_its_state_and_its_picture_and_nothing_else() -> None:
    server = PageServer("a run", 0)
    try:
        status, body, kind = _get(server.url)
        assert status == 200 and kind.startswith("text/html") and b"state.json" in body
        assert json.loads(_get(server.url + "state.json")[1])["status"] == "starting"
        with pytest.raises(urllib.error.HTTPError):  # no picture yet
            _get(server.url + "picture.svg")
        server.publish({"status": "running", "points": [{"throughput": float("nan")}]})
        assert json.loads(_get(server.url + "state.json")[1]) == {"status": "running",
                                                                   "points": [{"throughput": None}]}
        server.picture("<svg>x</svg>")
        assert _get(server.url + "picture.svg?v=1")[1] == b"<svg>x</svg>"
        with pytest.raises(urllib.error.HTTPError):
            _get(server.url + "../etc/passwd")
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        with pytest.raises(OSError):  # the port is taken: the CLI says so and runs without a page
            PageServer("another", port)
    finally:
        server.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


def test_the_written_page_carries_its_state_and_no_value_can_end_its_script(tmp_path) -> None:
    page = RunPage("chain </script><b>x</b>", 30, {"n1": 1.0}, tmp_path / "page.html", serve=False)
    page.plan({"delivered_throughput": 10.0, "offered_throughput": 10.0, "latency_mean_ms": 5.0}, "<svg id='pic'/>")
    page.event(1.0, "start", "plan </script><script>alert(1)</script>")
    page.take(_reading(1.0, 0, 0))
    page.take(_reading(2.0, 1, 10))
    written = page.finish("finished", [("throughput", "10", "10")])
    html = written.read_text()
    assert html.count("</script>") == 2  # the page's own two script elements, nothing from the values
    assert "<svg id='pic'/>" in html and "<b>x</b>" not in html
    state = json.loads(html.split('type="application/json">')[1].split("</script>")[0])
    assert state["status"] == "finished" and len(state["points"]) == 1 and state["summary"][0][0] == "throughput"
    assert state["events"][0]["detail"] == "plan </script><script>alert(1)</script>"
    assert not list(tmp_path.glob(".*"))  # written whole: no temporary left


def test_a_static_page_of_an_empty_run_renders() -> None:
    html = static_page(LiveSeries("empty", 10, {}).state(), None)
    assert '"points": []' in html


def test_the_page_feed_shows_each_event_batch_and_plan_and_ends_the_page(tmp_path) -> None:
    """The page subscribes to a run's events (workflows/feeds.py): an event is a line of its log, a plan enacted
    redraws its picture with that plan's prediction, a batch is a reading, the end writes it with its summary."""
    from streamplace.spark.events import BatchEnded, RunEnd, RunEvent
    from streamplace.workflows.feeds import PageFeed

    page = RunPage("live", 60, {"local": 2.0}, tmp_path / "p.html", serve=False)
    drawn: list[str] = []

    def describe(plan):
        drawn.append(plan)
        return {"delivered_throughput": 1.0}, f"<svg>{plan}</svg>", {"local": 2.0}

    said: list[str] = []
    feed = PageFeed(page, describe=describe, summary=lambda result: [("throughput", "1", str(result))],
                    on_info=said.append)
    feed.on_event(RunEvent(0.0, "start", "threshold: first plan", "first"))  # a plan: what describe() is given
    feed.on_event(RunEvent(10.0, "decision", "kept the plan"))
    feed.on_event(RunEvent(20.0, "replan", "k 1→2", "second"))
    for at, batch, sunk in ((21.0, 0, 0.0), (22.0, 1, 50.0)):
        feed.on_batch(BatchEnded(at, 2, batch, sunk, 0.0, 0.0, {"local": 0.0}))
    kinds = [(e["kind"], e["detail"]) for e in page.series.events]
    assert kinds == [("start", "threshold: first plan"), ("decision", "kept the plan"), ("replan", "k 1→2")]
    assert drawn == ["first", "second"] and page.svg == "<svg>second</svg>"
    assert page.series.picture_version == 2
    assert [p["throughput"] for p in page.series.points] == [50.0]  # the first batch of a query is its baseline
    feed.on_end(RunEnd(25.0, result="r"))
    feed.on_end(RunEnd(26.0, error=RuntimeError("not twice")))  # ended once
    state = json.loads((tmp_path / "p.html").read_text().split('type="application/json">')[1].split("</script>")[0])
    assert state["status"] == "finished" and state["summary"] == [["throughput", "1", "r"]]
    assert feed.ended and feed.written == tmp_path / "p.html" and said == [f"live page written to {feed.written}"]


def test_a_failed_run_ends_its_page_failed_and_a_page_that_cannot_be_written_is_said(tmp_path) -> None:
    from streamplace.spark.events import RunEnd
    from streamplace.workflows.feeds import PageFeed

    page = RunPage("run", 60, {"local": 2.0}, tmp_path / "p.html", serve=False)
    said: list[str] = []
    PageFeed(page, summary=lambda result: [("x", "1", "1")], on_info=said.append).on_end(
        RunEnd(3.0, error=KeyboardInterrupt()))
    assert page.series.status == "failed" and page.series.summary == [] and said == []  # no "written" for a failure
    (tmp_path / "a-file").write_text("not a directory")
    blocked = RunPage("run", 60, {"local": 2.0}, tmp_path / "a-file" / "p.html", serve=False)
    warned: list[str] = []
    feed = PageFeed(blocked, summary=lambda result: [("x", str(1 / 0), "")], on_warning=warned.append,
                    on_info=said.append)
    feed.on_end(RunEnd(3.0, result="r"))
    assert feed.ended and feed.written is None and said == []
    assert warned == ["the live page's summary could not be made (ZeroDivisionError: division by zero)"]
    assert blocked.series.status == "finished"


def test_a_watching_browser_gets_the_final_state_before_the_server_stops() -> None:
    import threading
    import time

    server = PageServer("a run", 0)
    _get(server.url + "state.json")  # a browser is watching
    server.publish({"status": "finished", "points": []})
    seen: dict = {}

    def browser() -> None:
        time.sleep(0.3)
        seen["state"] = json.loads(_get(server.url + "state.json")[1])

    t = threading.Thread(target=browser)
    t.start()
    server.close(linger_s=30)  # returns once the watching browser has fetched the final state
    t.join(timeout=30)
    assert seen["state"]["status"] == "finished"


def test_a_page_that_fails_is_said_once_and_hears_no_more_but_its_end() -> None:
    """Guarded: the page is a view; its first error is said and it stops updating, the run goes on, and it is
    still ended (written with what it had)."""
    from streamplace.spark.events import BatchEnded, RunEnd, RunEvent, RunListener
    from streamplace.workflows.feeds import Guarded

    heard: list[str] = []

    class Failing(RunListener):
        def on_event(self, event: RunEvent) -> None:
            heard.append(event.detail)
            raise ValueError("boom")

        def on_batch(self, batch: BatchEnded) -> None:
            heard.append("batch")

        def on_end(self, end: RunEnd) -> None:
            heard.append(end.status)

    said: list[str] = []
    safe = Guarded(Failing(), said.append)
    safe.on_event(RunEvent(1.0, "decision", "one"))
    safe.on_event(RunEvent(2.0, "decision", "two"))
    safe.on_batch(BatchEnded(3.0, 0, 0, 0.0, 0.0, 0.0, {}))
    safe.on_end(RunEnd(4.0))
    assert heard == ["one", "finished"] and safe.broken
    assert said == ["the live page stopped updating (ValueError: boom); the run goes on"]
