"""The live run page in a real browser (headless Chromium) while a short run on local Spark lasts, and after it.

Slow: one run of about 15 s on the shared session. Skipped, with the reason, where Chromium is not installed.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser import chromium, data_of, dom, screenshot, text_of

pytestmark = pytest.mark.slow
pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="session")
def spark():
    from streamplace.spark.runtime.session import local_session

    return local_session(2)


def _state(url: str) -> dict:
    with urllib.request.urlopen(url + "state.json", timeout=10) as r:
        return json.load(r)


def _shown(html: str, element_id: str) -> float:
    return float(text_of(html, element_id).replace(",", ""))


def test_a_run_page_shows_the_batches_beside_the_prediction_and_the_plan_while_it_runs_and_after(
        spark, tmp_path: Path) -> None:
    chromium()  # skip first, before Spark works, where there is no browser
    from streamplace.page.live_run import RunPage, capacity_cores
    from streamplace.perf.engines import EngineSettings
    from streamplace.perf.evaluate import evaluate
    from streamplace.report.placement import svg_text
    from streamplace.schedulers.base import create
    from streamplace.spark.query.pipeline import PipelineConfig
    from streamplace.spark.runtime.run import comparison, machine, on_one_node, prediction, run_pipeline
    from streamplace.workflows.feeds import PageFeed
    from tests.conftest import chain, two_racks

    topo, cluster = chain(rate=200.0, cost=0.5), two_racks()
    plan = create("round-robin").plan(topo, cluster)
    here, local_plan = machine(2), on_one_node(topo, plan)
    eng = EngineSettings(name="spark")
    predicted = prediction(topo, here, local_plan, None, eng)
    page = RunPage("chain on local Spark", 14.0, capacity_cores(here), tmp_path / "run-page.html")
    page.plan(predicted, svg_text(topo, cluster, plan, evaluate(topo, cluster, plan, None, engine=eng)))
    page.event(0.0, "start", "round-robin plan")
    cfg = PipelineConfig(trigger_s=1, sink="noop", out_dir=tmp_path)
    done: dict = {}
    started = time.perf_counter()
    # the page subscribes to the run's events, as `run` has it (workflows/feeds.py): it is ended by the run
    feed = PageFeed(page, summary=lambda result: [(q, str(pv), str(mv))
                                                  for q, pv, mv in comparison(result.predicted, result.measured)])

    def go() -> None:
        try:
            done["result"] = run_pipeline(spark, topo, here, local_plan, 8, 6, cfg, engine=eng, listener=feed,
                                          origin=started)
        except BaseException as exc:  # the test thread reports it below
            done["error"] = exc

    runner = threading.Thread(target=go)
    runner.start()
    try:
        deadline = time.monotonic() + 120
        while len(_state(page.url)["points"]) < 2 and runner.is_alive() and time.monotonic() < deadline:
            time.sleep(0.5)
        during = dom(page.url)
        # while it runs: the browser shows the state it fetched, the picture the server drew, the prediction
        assert data_of(during, "status") == "running"
        assert int(data_of(during, "points")) >= 2
        shown = _shown(during, "throughput")
        assert any(abs(shown - p["throughput"]) <= max(0.01, 0.006 * p["throughput"])
                   for p in _state(page.url)["points"])
        assert _shown(during, "throughput-predicted") == pytest.approx(predicted["delivered_throughput"], rel=0.01)
        assert "round-robin plan of chain on two-racks" in during  # the placement picture, fetched by the page
        assert during.count("<polyline") >= 3  # measured and predicted lines drawn
    finally:
        runner.join(timeout=180)
    assert "error" not in done, done.get("error")
    result, written = done["result"], feed.written
    assert feed.ended and written == tmp_path / "run-page.html"
    assert any(e["kind"] == "window" for e in _state(page.url)["events"])  # the run said its window opened
    final = _state(page.url)
    try:
        after = dom(page.url)
        shot = screenshot(page.url, tmp_path / "run-page.png")
    finally:
        page.close()
    last = final["points"][-1]
    for html in (after, dom(written.as_uri())):  # served, and the file written at the end (no server)
        assert data_of(html, "status") == "finished"
        assert int(data_of(html, "points")) == len(final["points"])
        assert _shown(html, "throughput") == pytest.approx(last["throughput"], rel=0.006, abs=0.01)
        assert _shown(html, "batches") == final["batches_done"]
        assert "throughput into sinks (tuples/s)" in html and "round-robin plan" in html
        assert "round-robin plan of chain on two-racks" in html
    assert shot.stat().st_size > 10_000
    # the measured points are the run's: throughput near what the sources offered once it warmed up
    assert result.measured["throughput"] > 0 and last["throughput"] > 0
