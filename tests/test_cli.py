"""The command line, end to end through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

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
    code, out, _ = run("evaluate", "--json", "star-cpu", "rstorm-12", str(plan_file))
    assert code == 0
    pred = json.loads(out)["predicted"]
    assert pred["nodes_used"] == 6 and pred["delivered_throughput"] == 80.0


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
    assert "bounds" in by_name["odrp"]["explanation"][0]  # ODRP needs normalization bounds: a clear refusal
    code, out, _ = run("compare", "-s", "r-storm", "-p", "r-storm.cpu=hard", "linear-cpu", "rstorm-12")
    assert code == 0 and "r-storm" in out


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


def test_demo_writes_report(tmp_path: Path) -> None:
    code, _, _ = run("demo", "--out", str(tmp_path), "--spark-seconds", "0")  # the Spark part: test_spark_pipeline
    assert code == 0
    page = (tmp_path / "report.html").read_text()
    assert "<table>" in page and "data:image/png;base64" in page and "r-storm" in page
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
