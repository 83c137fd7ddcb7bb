"""One schema per file format (issue 39, item 1): specs, profiles, plans, calibration and Flux files are all
validated by a pydantic schema through ``spec.loader.validate_document`` before anything is computed, and
every refusal names the file's own field, in the file's own words — never pydantic's class names or union
tags — with a fix; a misspelt field at any depth lists the fields its place knows."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from streamplace.errors import SpecError
from streamplace.perf.engines.spark import SparkConstants
from streamplace.spark.measure.calibration import FIELDS, OPTIONAL, load_calibration
from streamplace.spec.loader import load_cluster, load_plan, load_topology

PLAN = {"scheduler": "hetero", "topology": "t", "cluster": "c", "replicas": {"a": {"n1": 2}},
        "parallelism": {"a": 2}, "source_rates": {"a": 10.0}, "predicted": {"throughput": 10.0}}
FLUX = {"name": "f", "spouts": [{"id": "s", "className": "S"}],
        "bolts": [{"id": "b", "className": "B", "parallelism": 2}],
        "streams": [{"from": "s", "to": "b", "grouping": {"type": "SHUFFLE"}}],
        "config": {"topology.workers": 1}}


def refusal(load, doc) -> list[str]:
    with pytest.raises(SpecError) as info:
        load(doc)
    text = str(info.value)
    assert "Spec" not in text and "Input should be a valid dictionary or instance" not in text, text
    return [p.path for p in info.value.problems]


def test_a_plan_as_written_loads_and_its_derived_parallelism_is_accepted() -> None:
    plan = load_plan(copy.deepcopy(PLAN))
    assert plan.counts() == {"a": 2} and plan.source_rates == {"a": 10.0}


@pytest.mark.parametrize(("change", "field"), [
    (("replicas", {"a": {"n1": True}}), "replicas.a.n1"),
    (("replicas", {"a": {"n1": -1}}), "replicas.a.n1"),
    (("source_rates", {"a": float("inf")}), "source_rates.a"),
    (("status", "great"), "status"),
    (("planning_ms", "fast"), "planning_ms"),
    (("warnings", [1]), "warnings[0]"),
])
def test_a_plan_field_of_the_wrong_type_or_range_is_named(change, field) -> None:
    doc = copy.deepcopy(PLAN)
    doc[change[0]] = change[1]
    assert refusal(load_plan, doc) == [field]


def test_a_misspelt_field_at_any_depth_lists_the_fields_of_its_place() -> None:
    cluster = {"name": "c", "nodes": [{"id": "n", "cpu": 100, "memory_mb": 100}], "links": {"cross_rak_ms": 1}}
    with pytest.raises(SpecError) as info:
        load_cluster(cluster)
    (problem,) = info.value.problems
    assert problem.path == "links.cross_rak_ms" and "cross_rack_ms" in problem.fix
    topo = {"name": "t", "operators": [{"id": "a", "rate": 1, "cpu_ms": 2}]}
    with pytest.raises(SpecError) as info:
        load_topology(topo)
    (problem,) = info.value.problems
    assert problem.path == "operators[0].cpu_ms" and "cost_ms" in problem.fix


def calibration(tmp_path: Path, spark: object) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"spark": spark, "measured": {"cores": 2}}), encoding="utf-8")
    return path


def test_a_calibration_file_is_validated_by_its_schema(tmp_path: Path) -> None:
    values = {name: getattr(SparkConstants(), name) * 2 for name in FIELDS}
    assert load_calibration(calibration(tmp_path, values)).batch_s == pytest.approx(values["batch_s"])
    older = {k: v for k, v in values.items() if k not in OPTIONAL}  # written before the optional constants
    consts = load_calibration(calibration(tmp_path, older))
    assert "built-in default" in consts.origin
    for bad, field in (({**values, "batch_s": -1}, "spark.batch_s"), ({**values, "stage_s": True}, "spark.stage_s"),
                       ({**values, "stage_z": 1}, "spark.stage_z"), (3, "spark")):
        with pytest.raises(SpecError) as info:
            load_calibration(calibration(tmp_path, bad))
        assert [p.path for p in info.value.problems] == [field] and "calibration.json" in str(info.value)
    missing = {k: v for k, v in values.items() if k != "batch_s"}
    with pytest.raises(SpecError, match=r"spark\.batch_s"):
        load_calibration(calibration(tmp_path, missing))


def test_a_flux_file_is_validated_by_its_schema_in_its_own_terms() -> None:
    numbered = copy.deepcopy(FLUX)
    numbered["spouts"][0]["id"] = 1  # YAML reads `id: 1` as a number: a Flux id all the same
    numbered["streams"][0]["from"] = 1
    assert [o.id for o in load_topology(numbered).operators] == ["1", "b"]
    for path, value, field in ((("bolts", 0, "parallelism"), True, "bolts[0].parallelism"),
                               (("spouts", 0, "rate"), float("nan"), "spouts[0].rate"),
                               (("streams", 0, "grouping"), "SHUFFLE", "streams[0].grouping"),
                               (("streams", 0, "from"), None, "streams[0].from"),
                               (("bolts", 0, "configMethods"), "setCPULoad", "bolts[0].configMethods")):
        doc = copy.deepcopy(FLUX)
        doc[path[0]][path[1]][path[2]] = value
        assert refusal(load_topology, doc) == [field]
