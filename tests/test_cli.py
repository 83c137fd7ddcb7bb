"""The command line, end to end through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from streamplace.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_plan_json_matches_design_contract() -> None:
    code, out, _ = run("plan", "--scheduler", "r-storm", "--json", "linear", "rstorm-12")
    assert code == 0
    doc = json.loads(out)
    for key in ("scheduler", "status", "planning_ms", "topology", "cluster", "replicas", "source_rates",
                "predicted", "explanation"):
        assert key in doc
    for key in ("sustainable_scale", "throughput", "latency_ms", "utilization", "availability", "cost",
                "inter_node_traffic"):
        assert key in doc["predicted"]
    assert sum(sum(v.values()) for v in doc["replicas"].values()) == 22


def test_plan_out_then_evaluate(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    code, _, _ = run("plan", "-s", "ffd", "--out", str(plan_file), "star-cpu", "rstorm-12")
    assert code == 0 and plan_file.exists()
    code, out, _ = run("evaluate", "--json", "--engine", "ideal", "star-cpu", "rstorm-12", str(plan_file))
    assert code == 0
    pred = json.loads(out)["predicted"]
    assert pred["engine"] == "ideal" and pred["nodes_used"] == 6 and pred["delivered_throughput"] == 80.0
    # the default engine is Spark's: the same plan's stages run one after another in each micro-batch, so it
    # sustains less than the pipelined model's 80 t/s, and the prediction says which engine and constants
    code, out, _ = run("evaluate", "--json", "star-cpu", "rstorm-12", str(plan_file))
    spark = json.loads(out)["predicted"]
    assert spark["engine"] == "spark" and spark["delivered_throughput"] < 80.0
    assert spark["engine_params"]["trigger_s"] == 1.0 and "engine_detail" in spark


def test_evaluate_rejects_plan_for_another_cluster(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    run("plan", "-s", "ffd", "--out", str(plan_file), "star-cpu", "rstorm-12")
    code, _, err = run("evaluate", "star-cpu", "hetero-3", str(plan_file))
    assert code == 2 and "unknown node" in err and str(plan_file) in err


def test_compare_table_json_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "c.png"
    code, out, _ = run("compare", "--json", "--time-limit", "2", "--plot", str(png), "diamond-cpu", "rstorm-12")
    assert code == 0 and png.stat().st_size > 1000
    rows = json.loads(out)["rows"]
    assert {r["scheduler"] for r in rows} >= {"round-robin", "r-storm", "ffd", "hetero", "optimal", "ds2"}
    refused = [r for r in rows if r["status"] == "refused"]
    by_name = {r["scheduler"]: r for r in refused}
    assert "max_candidates" in by_name["exhaustive"]["explanation"][0]
    odrp = {r["scheduler"]: r for r in rows}["odrp"]  # no bounds given: computed from single-objective solves
    assert odrp["status"] in ("ok", "timeout") and "odrp" not in by_name
    code, out, _ = run("compare", "-s", "r-storm", "-p", "r-storm.cpu=hard", "linear-cpu", "rstorm-12")
    assert code == 0 and "r-storm" in out


def test_a_schedulers_own_figures_show_after_the_engines() -> None:
    # ODRP's utility and QoS come from its class (summary_rows), not from the command line knowing its name
    code, out, _ = run("plan", "-s", "odrp", "-p", "weights.r=1", "-p", "bounds.r_min=0", "-p", "bounds.r_max=5000",
                       "linear", "rstorm-12")
    assert code == 0
    assert "ODRP utility F" in out and "ODRP T (tuples/s)" in out
    code, out, _ = run("plan", "-s", "ffd", "linear", "rstorm-12")
    assert code == 0 and "ODRP" not in out


def test_bad_inputs_exit_nonzero_with_a_message(tmp_path: Path) -> None:
    spec = tmp_path / "t.yaml"
    spec.write_text(yaml.safe_dump({"name": "t", "operators": [{"id": "a", "kind": "source", "rate": -1}]}))
    code, _, err = run("plan", str(spec), "rstorm-12")
    assert code == 2 and "operators[0].rate" in err and str(spec) in err
    code, _, err = run("plan", "linear", "no-such-cluster")
    assert code == 2 and "rstorm-12" in err
    code, _, err = run("plan", "-s", "magic", "linear", "rstorm-12")
    assert code == 2 and "unknown scheduler" in err
    code, _, err = run("plan", "-p", "noequals", "linear", "rstorm-12")
    assert code == 2 and "key=value" in err


def test_infeasible_plan_exits_1_with_explanation() -> None:
    code, out, _ = run("plan", "--json", "pageload-cpu", "hetero-3", "-s", "ffd")  # 19,000 MB on 16,384 MB
    doc = json.loads(out)
    assert code == 1 and doc["status"] == "infeasible"
    assert "19,000 MB of memory for 190 replicas; the cluster has 16,384 MB" in doc["explanation"][0]


def test_bench_list_and_schedulers() -> None:
    code, out, _ = run("bench", "list", "--json")
    assert code == 0 and any(r["name"] == "rstorm-12" for r in json.loads(out))
    code, out, _ = run("schedulers")
    assert code == 0 and "r-storm" in out


def test_import_flux(tmp_path: Path) -> None:
    from .test_spec import FLUX

    src = tmp_path / "flux.yaml"
    src.write_text(FLUX)
    dst = tmp_path / "topo.yaml"
    code, _, _ = run("import-flux", str(src), "--out", str(dst), "--rate", "250")
    assert code == 0
    doc = yaml.safe_load(dst.read_text())
    assert doc["operators"][0]["rate"] == 250.0
    code, out, _ = run("plan", "--json", str(dst), "rstorm-12")
    assert code == 0 and json.loads(out)["status"] == "ok"
    # `run` accepts what import-flux writes: each Storm class becomes an emulation the runtime knows
    from streamplace.spark.query.library import logic_of
    from streamplace.spec.loader import load_topology

    topo = load_topology(dst)
    logics = {op.id: logic_of(op) for op in topo.operators}
    assert {op.id for op in topo.operators if op.logic.get("name") == "flux"} == set(logics)
    assert [logics[op.id].source for op in topo.operators if op.is_source] == ["rate"]


def test_demo_writes_report(tmp_path: Path) -> None:
    code, _, _ = run("demo", "--out", str(tmp_path), "--spark-seconds", "0")  # the Spark part: test_spark_pipeline
    assert code == 0
    page = (tmp_path / "report.html").read_text()
    assert "<table>" in page and "data:image/png;base64" in page and "r-storm" in page
    assert "<h2>Placements</h2>" in page and "<figcaption>r-storm</figcaption>" in page  # each plan drawn
    assert "local Spark" not in page


def test_help_has_examples() -> None:
    for cmd in ("plan", "evaluate", "compare", "demo", "import-flux"):
        code, out, _ = run(cmd, "--help")
        assert code == 0 and "Example" in out


def test_run_rejects_unknown_logic_before_starting_spark(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("name: x\noperators:\n  - {id: s, kind: source, rate: 10}\n"
                    "  - {id: k, kind: sink, logic: {name: nope}}\nstreams:\n  - {from: s, to: k}\n")
    code, out, err = run("run", str(spec), "rstorm-12", "--duration", "1")
    assert code != 0
    text = out + err
    assert str(spec) in text and "operators.k.logic.name" in text and "unknown logic 'nope'" in text


def test_engine_option_and_engine_parameters(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("STREAMPLACE_HOME", str(tmp_path))  # no calibration file: the built-in defaults
    code, out, _ = run("plan", "--json", "-s", "round-robin", "--engine", "storm", "-p", "storm.max_spout_pending=1",
                       "linear-net", "rstorm-12")
    pred = json.loads(out)["predicted"]
    assert code == 0 and pred["engine"] == "storm" and pred["engine_params"]["max_spout_pending"] == 1
    assert pred["bottleneck"].startswith("flow control")
    code, out, _ = run("plan", "--json", "-s", "r-storm", "linear-cpu", "rstorm-12")
    pred = json.loads(out)["predicted"]
    assert pred["engine"] == "spark" and pred["engine_detail"]["constants"] == "built-in defaults"
    code, _, err = run("plan", "--engine", "flink", "linear-cpu", "rstorm-12")
    assert code == 2 and "unknown engine 'flink'" in err
    code, _, err = run("plan", "-p", "spark.trigger=2", "linear-cpu", "rstorm-12")
    assert code == 2 and "spark.trigger_s" in err  # the error lists the valid keys
    cal = tmp_path / "cal.json"
    cal.write_text('{"spark": {"batch_s": 1}}')
    code, _, err = run("evaluate", "--calibration", str(cal), "linear-cpu", "rstorm-12", str(cal))
    assert code == 2
    code, out, _ = run("compare", "--json", "-s", "round-robin", "-s", "r-storm", "-p", "spark.trigger_s=3",
                       "linear-cpu", "rstorm-12")
    doc = json.loads(out)
    assert doc["engine"] == "spark" and doc["engine_params"]["trigger_s"] == 3.0 and len(doc["rows"]) == 2


def test_run_warns_before_starting_and_fails_when_nothing_reaches_a_sink(tmp_path: Path, monkeypatch) -> None:
    import streamplace.cli.run as cli_run  # where `run` opens its Spark session
    import streamplace.spark.runtime.run as spark_run
    from streamplace.spark.runtime.run import RunResult

    started = []

    def fake_run(spark, topology, cluster, plan, duration, warmup, cfg, progress=None, engine=None,
                 after_first_batch=None, predicted=None, after_warmup=None, listener=None, settle_rows=None,
                 settle_max_s=0.0, origin=None):
        started.append((cluster.name, plan.cluster))
        pred = dict(predicted) if predicted is not None else spark_run.prediction(topology, cluster, plan, None, engine)
        return RunResult(duration, {"throughput": 0.0, "source_rate": 0.0, "latency_ms": None, "cpu": 0.5,
                                    "sink_tuples_total": 0.0}, pred,
                         {op.id: {"input_per_s": 0.0, "output_per_s": 0.0, "busy_cores": 0.0,
                                  "cost_ms_measured": 0.0} for op in topology.operators})

    monkeypatch.setenv("STREAMPLACE_HOME", str(tmp_path))
    monkeypatch.setattr(spark_run, "run_pipeline", fake_run)
    monkeypatch.setattr(cli_run, "spark_session", lambda *a: None)
    code, out, err = run("run", "nasiri-linear", "hetero-3", "-s", "hetero", "--cores", "2", "--duration", "1",
                         "--out", str(tmp_path / "o"))
    # hetero's plan needs the 3 nodes' cores and sustains ~2,000 t/s there; this machine has 2 cores
    assert "warning: the plan was made for" in err and "this machine (local[2]) has 2" in err
    # offered ~2,000 t/s, the sources admit what the model says 2 cores sustain; the rest is backlog
    assert "each micro-batch admits at most" in err and "the backlog grows by" in err
    assert started == [("local", "local")], (out, err)  # predicted for this machine, as it runs
    assert code == 1 and "no tuple reached a sink" in err
    assert "measured / predicted" in out


def test_run_picks_a_steady_trigger_and_runs_with_it(tmp_path: Path, monkeypatch) -> None:
    import streamplace.cli.run as cli_run  # where `run` opens its Spark session
    import streamplace.spark.runtime.run as spark_run
    from streamplace.spark.runtime.run import RunResult

    seen = {}

    def fake_run(spark, topology, cluster, plan, duration, warmup, cfg, progress=None, engine=None,
                 after_first_batch=None, predicted=None, after_warmup=None, listener=None, settle_rows=None,
                 settle_max_s=0.0, origin=None):
        seen["cfg"], seen["pred"] = cfg, dict(predicted or spark_run.prediction(topology, cluster, plan, None, engine))
        seen["engine"], seen["where"] = engine, (topology, cluster, plan)
        return RunResult(duration, {"throughput": 1.0, "source_rate": 1.0, "latency_ms": 1.0, "cpu": 0.5,
                                    "sink_tuples_total": 10.0, "source_lead_s": 0.05}, seen["pred"],
                         {op.id: {"input_per_s": 1.0, "output_per_s": 1.0, "busy_cores": 0.0,
                                  "cost_ms_measured": 0.0} for op in topology.operators})

    monkeypatch.setenv("STREAMPLACE_HOME", str(tmp_path))
    monkeypatch.setattr(spark_run, "run_pipeline", fake_run)
    monkeypatch.setattr(cli_run, "spark_session", lambda *a: None)
    # 280 t/s through two 1.2 ms operators fused in one task: a 1 s batch would not fit 80 % of 1 s
    spec = tmp_path / "busy.yaml"
    spec.write_text("name: busy\noperators:\n  - {id: s, kind: source, rate: 280}\n"
                    "  - {id: a, cost_ms: 1.2}\n  - {id: k, kind: sink, cost_ms: 1.2}\n"
                    "streams:\n  - {from: s, to: a}\n  - {from: a, to: k}\n")
    code, out, err = run("run", str(spec), "rstorm-12", "--cores", "2", "--duration", "1", "--out",
                         str(tmp_path / "o"))
    assert code == 0, err
    trigger, pred, engine = seen["cfg"].trigger_s, seen["pred"], seen["engine"]
    # whole seconds, the shortest whose batch fits in 80 % of it, and the model predicts for that trigger
    assert trigger == int(trigger) > 1 and pred["engine_params"]["trigger_s"] == trigger
    assert pred["engine_detail"]["batch_s"] <= 0.8 * trigger
    shorter = spark_run.prediction(*seen["where"], None, engine.with_params({"spark.trigger_s": trigger - 1}))
    assert shorter["engine_detail"]["batch_s"] > 0.8 * (trigger - 1)
    # bounded sources: rows arrive one by one (quantum 0), each batch admits at most what fits the trigger
    assert engine.spark.quantum_s == 0 and f"trigger {trigger:g} s" in out
    assert seen["cfg"].admission["s"] >= 280 * trigger
    for bad in ("0.05", "soon"):
        code, _, err = run("run", "linear-cpu", "rstorm-12", "--trigger", bad, "--duration", "1")
        assert code == 2 and "--trigger" in err and "auto" in err


def test_version_and_verbose(monkeypatch) -> None:
    import os

    from streamplace import __version__

    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"streamplace {__version__}"
    monkeypatch.setenv("STREAMPLACE_SPARK_LOG", "")  # restored after the test
    code, _, _ = run("-v", "bench", "list")
    assert code == 0 and os.environ["STREAMPLACE_SPARK_LOG"] == "console"  # Spark's log shown live


def test_the_plan_records_its_profile_and_evaluate_warns_without_it(tmp_path: Path) -> None:
    """evaluate without the plan's profile would silently disagree with plan (903 vs 616 t/s in the issue)."""
    plan_file = tmp_path / "plan.json"
    args = ("examples/topology.yaml", "examples/cluster.yaml")
    code, _, _ = run("plan", *args, "--profile", "examples/profile.yaml", "--engine", "ideal", "-o", str(plan_file))
    assert code == 0
    record = json.loads(plan_file.read_text())["profile"]
    assert record["path"] == "examples/profile.yaml" and len(record["sha256"]) == 64
    code, _, err = run("evaluate", *args, str(plan_file), "--engine", "ideal")
    assert code == 0 and "made with the profile examples/profile.yaml" in " ".join(err.split())
    code, _, err = run("evaluate", *args, str(plan_file), "--engine", "ideal", "--profile", "examples/profile.yaml")
    assert code == 0 and "warning" not in err


def test_cluster_commands_need_no_name_when_one_cluster_is_up(tmp_path: Path, monkeypatch) -> None:
    from streamplace.errors import ModelError
    from streamplace.workflows.cluster import state_dir_of as _state_dir

    monkeypatch.setenv("STREAMPLACE_HOME", str(tmp_path))
    try:
        _state_dir(None, None)
        raise AssertionError("no cluster: expected an error")
    except ModelError as exc:
        assert "none was started" in str(exc)
    (tmp_path / "clusters" / "hetero-3").mkdir(parents=True)
    (tmp_path / "clusters" / "hetero-3" / "state.json").write_text("{}")
    assert _state_dir(None, None) == tmp_path / "clusters" / "hetero-3"
    (tmp_path / "clusters" / "hetero-12").mkdir()
    (tmp_path / "clusters" / "hetero-12" / "state.json").write_text("{}")
    code, _, err = run("cluster", "down")
    assert code == 2 and "there are 2: hetero-12, hetero-3" in err


def test_a_spec_can_come_from_standard_input() -> None:
    text = Path("examples/topology.yaml").read_text()
    result = runner.invoke(app, ["plan", "--json", "-", "rstorm-12", "--engine", "ideal"], input=text)
    assert result.exit_code == 0 and json.loads(result.stdout)["topology"] == "clicks"
    result = runner.invoke(app, ["plan", "-", "rstorm-12"], input="name: [unclosed")
    assert result.exit_code == 2 and "<stdin>" in result.stderr


def test_every_command_takes_json() -> None:
    import typer.main

    def leaves(cmd: Any, path: str = "") -> list[tuple[str, Any]]:
        if hasattr(cmd, "commands"):  # a group (typer's own click types)
            return [leaf for name, sub in cmd.commands.items() for leaf in leaves(sub, f"{path} {name}".strip())]
        return [(path, cmd)]

    missing = [path for path, cmd in leaves(typer.main.get_command(app))
               if not any("--json" in p.opts for p in cmd.params)]
    assert missing == []


def test_json_of_the_listing_commands(tmp_path: Path) -> None:
    code, out, _ = run("schedulers", "--json")
    names = [s["name"] for s in json.loads(out)]
    assert code == 0 and "optimal" in names and json.loads(out)[0]["parameters"]
    code, out, _ = run("import-flux", "examples/flux-wordcount.yaml", "--json")
    assert code == 0 and json.loads(out)["operators"]
    code, out, _ = run("demo", "--json", "--spark-seconds", "0", "--out", str(tmp_path / "demo"), "--time-limit", "2")
    doc = json.loads(out)
    assert code == 0 and Path(doc["report"]).exists() and doc["run"] is None and len(doc["rows"]) >= 10


def test_compare_one_operating_point_best_marked_and_100_columns() -> None:
    """hetero and optimal plan for their own maximum rate; compare shows every plan's figures at the
    topology's offered rate (max t/s apart), marks each column's best and fits 100 columns."""
    code, out, _ = run("compare", "--json", "--engine", "ideal", "nasiri-linear", "hetero-3",
                       "-s", "round-robin,hetero,optimal")
    assert code == 0
    rows = {r["scheduler"]: r for r in json.loads(out)["rows"]}
    assert rows["hetero"]["source_rates"] != rows["round-robin"]["source_rates"]  # planned at its own rate
    offered = rows["round-robin"]["source_rates"]["spout"]
    for r in rows.values():
        # delivered is at the common offered rate: never above it, and the plan's own max is at least that
        assert r["delivered_throughput"] <= offered * (1 + 1e-6)
        assert r["throughput"] >= r["delivered_throughput"] * (1 - 1e-6)
    code, text, _ = run("compare", "--engine", "ideal", "nasiri-linear", "hetero-3", "-s", "round-robin,hetero,optimal")
    assert code == 0
    assert max(len(line) for line in text.splitlines()) <= 100
    best_max = max(rows, key=lambda n: rows[n]["throughput"])
    line = next(x for x in text.splitlines() if x.strip().startswith(best_max))
    from streamplace.report.compare import fmt

    assert fmt(rows[best_max]["throughput"]) + "*" in line
    assert "at the offered" in text and "hill-climbing" not in text
    code, wide, _ = run("compare", "--wide", "--engine", "ideal", "linear-cpu", "rstorm-12", "-s", "ffd,hill-climbing")
    assert code == 0 and "planning ms" in wide and "hill-climbing " in wide


def test_quiet_prints_results_only(tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    args = ["examples/topology.yaml", "examples/cluster.yaml"]
    code, out, _ = run("plan", "-s", "ffd", "--profile", "examples/profile.yaml", "--out", str(plan_file), *args)
    assert code == 0 and "plan written to" in out
    code, out, _ = run("-q", "plan", "-s", "ffd", "--profile", "examples/profile.yaml", "--out", str(plan_file), *args)
    assert code == 0 and "plan written to" not in out and "ffd" in out
    code, _, err = run("evaluate", *args, str(plan_file))  # no --profile: the plan's figures would differ
    assert code == 0 and "warning:" in err
    code, out, err = run("-q", "evaluate", *args, str(plan_file))
    assert code == 0 and err == "" and out
    code, _, err = run("-q", "-v", "schedulers")
    assert code == 2 and "contradict" in err


def test_evaluate_says_when_a_plan_overcommits_a_nodes_memory(tmp_path) -> None:
    """From the bad-input corpus: a plan whose replicas need more memory than a node has was evaluated with
    predictions and not a word about it."""
    import json as _json

    from typer.testing import CliRunner as _Runner

    from streamplace.cli import app as _app

    plan = {"scheduler": "hand", "topology": "nasiri-linear", "cluster": "hetero-3",
            "replicas": {op: {"pentium-1": 40} for op in ("spout", "low", "mid", "high")},
            "source_rates": {"spout": 1.0}}
    path = tmp_path / "plan.json"
    path.write_text(_json.dumps(plan))
    result = _Runner().invoke(_app, ["evaluate", "nasiri-linear", "hetero-3", str(path), "--engine", "ideal",
                                     "--json"])
    assert result.exit_code == 0, result.output
    out = _json.loads(result.output)
    assert any("pentium-1 need" in w and "MB of memory" in w for w in out["warnings"]), out


def test_a_full_disk_is_one_message_and_leaves_no_half_written_plan(tmp_path, monkeypatch) -> None:
    """From the bad-input corpus: writing a plan to a full disk ended in an OSError traceback."""
    import errno
    import os as _os

    from typer.testing import CliRunner as _Runner

    from streamplace import cli

    real = _os.fdopen

    class Full:
        def __init__(self, fd, *a, **k):
            self.fh = real(fd, *a, **k)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_os, "fdopen", Full)
    out = tmp_path / "plan.json"
    result = _Runner().invoke(cli.app, ["plan", "nasiri-linear", "hetero-3", "-s", "hetero", "--engine", "ideal",
                                        "--out", str(out)])
    assert result.exit_code == 2, result.output  # an output that cannot be written: exit 2, as every bad path
    assert f"{out}: No space left on device" in " ".join(result.output.split()) and "Traceback" not in result.output
    assert not out.exists() and not list(tmp_path.iterdir())  # nothing half-written, no temporary left


def test_the_library_names_fields_and_the_command_line_names_its_options() -> None:
    """A library error names the parameters its fix mentions by field (``[[master]]`` → "master"); the command line
    renders the same problem with its options (issue 40: library code never speaks of flags)."""
    from streamplace.errors import SpecError
    from streamplace.workflows.run import check_run_options
    from streamplace.workflows.run_settings import RunSettings

    with pytest.raises(SpecError) as caught:
        check_run_options(RunSettings(sink="noop", placement="spark"), None)
    text = str(caught.value)
    assert text.startswith("placement:") and "give master the URL" in text and "--" not in text and "[[" not in text
    code, _, err = run("run", "linear-cpu", "hetero-3", "--placement", "spark", "--sink", "noop")
    assert code == 2 and "--placement:" in err and "give --master the URL" in " ".join(err.split())
    code, _, err = run("sweep", "-t", "linear-cpu", "-c", "hetero-3", "-s", "no-such")
    assert code == 2 and "--schedulers: unknown scheduler 'no-such'" in err  # sweep's own option, before Spark
