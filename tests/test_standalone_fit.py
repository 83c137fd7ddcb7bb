"""benchmarks/standalone_hetero.py's fit over saved runs: what --runs-out writes, --fit-runs reads back as the same
plans on the same quota'd clusters, so runs of several invocations (both clusters, both planners) fit together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.model.cluster import scaled_cluster
from streamplace.perf import evaluate
from streamplace.perf.engines import EngineSettings
from streamplace.schedulers import create
from tests.scripts import load_script

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_saved_runs_load_as_the_same_plans_and_fit(tmp_path: Path) -> None:
    bench = load_script(BENCHMARKS / "standalone_hetero.py", "standalone_hetero_benchmark", siblings=True)
    topo, cluster = resolve_topology("nasiri-linear"), resolve_cluster("hetero-3")
    scaled = scaled_cluster(cluster, 0.15)
    plans = {name: create(name).plan(topo, cluster) for name in ("hetero", "max-throughput")}
    eng = EngineSettings()
    runs = []
    for label in ("hetero", "max-throughput"):
        fixed = evaluate(topo, scaled, plans[label], engine=eng).engine_detail["batch_fixed_s"]
        runs.append(("hetero-3", label, {"model_inputs": (scaled, plans[label]), "median_batch_s": 2.0 * fixed,
                                         "fixed_predicted_s": fixed}))
    path = tmp_path / "runs.json"
    bench.save_runs(path, runs)
    loaded = bench.load_runs([path])
    assert [r["label"] for r in loaded] == ["hetero", "max-throughput"]
    for (_, _, got), back in zip(runs, loaded, strict=True):
        assert back["model_inputs"][1].replicas == got["model_inputs"][1].replicas
        assert [n.cpu for n in back["model_inputs"][0].nodes] == pytest.approx([n.cpu for n in scaled.nodes])
    said = bench.fit_fixed(topo, eng, loaded)
    assert said.startswith("fit over 2 runs")
    assert "model F / measured" in said


def test_a_saved_cluster_that_is_not_the_built_in_one_scaled_is_refused(tmp_path: Path) -> None:
    bench = load_script(BENCHMARKS / "standalone_hetero.py", "standalone_hetero_benchmark", siblings=True)
    topo, cluster = resolve_topology("nasiri-linear"), resolve_cluster("hetero-3")
    plan = create("hetero").plan(topo, cluster)
    path = tmp_path / "runs.json"
    bench.save_runs(path, [("hetero-3", "hetero", {"model_inputs": (scaled_cluster(cluster, 0.15), plan),
                                                   "median_batch_s": 0.4, "fixed_predicted_s": 0.4})])
    rows = json.loads(path.read_text())
    rows[0]["node_cpu"][1] *= 2
    path.write_text(json.dumps(rows))
    with pytest.raises(SystemExit, match="not the built-in one scaled"):
        bench.load_runs([path])
