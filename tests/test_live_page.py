"""The live run page without Spark: points from counter readings, the server, the written page, the live feed."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from types import SimpleNamespace

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


def test_the_live_feed_logs_each_enactment_once_and_redraws_the_picture(tmp_path) -> None:
    from streamplace.model.topology import Operator, Stream, Topology
    from streamplace.spark.runtime.operators import N_STATS
    from streamplace.spark.runtime.watch import LiveFeed

    topo = Topology("c", (Operator("s", "source", rate=1.0), Operator("k", "sink")), (Stream("s", "k"),))
    page = RunPage("live", 60, {"local": 2.0}, tmp_path / "p.html", serve=False)
    drawn: list[str] = []

    def describe(plan):
        drawn.append(plan)
        return {"delivered_throughput": 1.0}, f"<svg>{plan}</svg>", {"local": 2.0}

    plans = ["first"]
    feed = LiveFeed(page, topo, lambda: 0.0, lambda: plans[-1], describe)
    pipe = SimpleNamespace(batch_done=(-1, 0.0, {}))
    start = SimpleNamespace(at_s=0.0, kind="start", detail="threshold: first plan")
    result = SimpleNamespace(events=[start])
    feed(pipe, 1, result)
    assert drawn == ["first"] and [e["kind"] for e in page.series.events] == ["start"]
    feed.decision(10.0, "kept the plan")
    replan = SimpleNamespace(at_s=20.0, kind="replan", detail="k 1→2")
    result.events.append(replan)
    plans.append("second")
    feed.decision(20.0, "k 1→2")  # the loop says the re-plan's detail too: logged once, as the re-plan
    row = [0.0] * N_STATS
    pipe.batch_done = (0, 21.0, {"k": row})
    feed(pipe, 2, result)
    kinds = [(e["kind"], e["detail"]) for e in page.series.events]
    assert kinds == [("start", "threshold: first plan"), ("decision", "kept the plan"), ("replan", "k 1→2")]
    assert drawn == ["first", "second"] and page.svg == "<svg>second</svg>"
    assert page.series.picture_version == 2


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


def test_a_feed_that_fails_is_said_once_and_stops() -> None:
    from streamplace.spark.runtime.watch import guarded

    said: list[str] = []
    calls: list[int] = []

    def feed(x: int) -> None:
        calls.append(x)
        raise ValueError("boom")

    safe = guarded(feed, said.append)
    safe(1)
    safe(2)
    assert calls == [1] and len(said) == 1 and "ValueError: boom" in said[0]
