"""The run workflow (workflows/run.py) as a library: it prints nothing; warnings, notes, progress, the Spark
session and the live page go through the caller's callbacks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest


def test_enact_run_prints_nothing_and_says_everything_through_its_callbacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import streamplace.spark.runtime.run as spark_run
    from streamplace.bench import resolve_cluster, resolve_topology
    from streamplace.errors import SpecError
    from streamplace.perf.engines import EngineSettings
    from streamplace.schedulers import create
    from streamplace.spark.runtime.run import RunResult
    from streamplace.workflows.run import enact_run
    from streamplace.workflows.run_settings import RunHooks, RunSettings

    def fake_run(spark, topology, cluster, plan, duration, warmup, cfg, progress=None, engine=None,
                 after_first_batch=None, predicted=None, after_warmup=None, listener=None, settle_rows=None,
                 settle_max_s=0.0, origin=None):
        assert spark == "session"
        said["settle"].append((settle_rows, settle_max_s))
        for s in (1.0, warmup + duration):
            progress(s)
        pred = dict(predicted) if predicted is not None else spark_run.prediction(topology, cluster, plan, None, engine)
        return RunResult(duration, {"throughput": 1.0, "source_rate": 1.0, "latency_ms": 1.0, "cpu": 0.5,
                                    "sink_tuples_total": 10.0}, pred,
                         {op.id: {"input_per_s": 1.0, "output_per_s": 1.0, "busy_cores": 0.0,
                                  "cost_ms_measured": 0.0} for op in topology.operators})

    monkeypatch.setattr(spark_run, "run_pipeline", fake_run)
    t, c = resolve_topology("nasiri-linear"), resolve_cluster("hetero-3")
    plan = create("hetero").plan(t, c)
    said: dict[str, list] = {"warning": [], "info": [], "progress": [], "session": [], "page": [], "settle": []}

    def session(log_to: Path) -> str:
        said["session"].append(log_to)
        return "session"

    def open_page(title: str, seconds: float, target, path: Path) -> None:
        said["page"].append((title, seconds, path))

    settings = RunSettings(duration_s=3.0, warmup_s=2.0, trigger_s=1.0, cores=2, sink="noop", out_dir=tmp_path,
                           settle_rows=1, settle_max_s=60.0)
    hooks = RunHooks(session=session, open_page=open_page, on_warning=said["warning"].append,
                     on_info=said["info"].append, progress=lambda done, total: said["progress"].append((done, total)))
    done = enact_run(t, c, plan, "plan", settings, lambda trigger_s: EngineSettings(), hooks=hooks)
    assert capsys.readouterr() == ("", "")  # nothing printed
    # hetero's plan needs the 3 nodes' cores; run on 2 cores of this machine, the sources offer more than it takes
    assert any("the plan was made for" in w for w in said["warning"])
    assert any("each micro-batch admits at most" in w for w in said["warning"])
    assert said["session"] == [tmp_path / "spark.log"] and said["page"][0][1:] == (5.0, tmp_path / "run-page.html")
    assert said["progress"] == [(0.0, 5.0), (1.0, 5.0), (5.0, 5.0)]  # told from the pipeline's start, of 2 + 3 s
    assert done.page is None and done.here == "this machine (local[2])" and done.admission.overloaded
    assert done.result.measured["throughput"] == 1.0 and "before_spark_s" in done.result.measured
    # overloaded, the backlog only grows: the warm-up is not prolonged waiting for it to drain
    assert said["settle"] == [(None, 60.0)]
    # below capacity it is, until the rows queued during the start have been processed
    light = plan.evolve(source_rates={s: 1.0 for s in plan.source_rates})
    elsewhere = dataclasses.replace(settings, out_dir=tmp_path / "light")  # another pipeline, its own directory
    assert not enact_run(t, c, light, "plan", elsewhere, lambda trigger_s: EngineSettings(), hooks=hooks
                         ).admission.overloaded
    assert said["settle"][-1] == (1, 60.0)
    # a bad bound is an error on the name the caller gives it, no command-line flag by default, before anything runs
    for names, expected in (({}, "max_rate"), ({"max_rate": "--max-rate"}, "--max-rate")):
        with pytest.raises(SpecError, match=expected):
            RunSettings(max_rate=-1.0, names=names)
