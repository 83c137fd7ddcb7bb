"""Engines as objects (perf/engines/base.py, registry.py): the registry lists the built-in engines, each engine
parses and refuses its own parameters with field paths, a new engine is one class and one registration, and
engine=None is the ideal engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

import streamplace as sp
from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.errors import ModelError
from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.capacity import ScaleLimit
from streamplace.perf.engines import (
    ENGINES,
    EngineFigures,
    EngineInputs,
    EngineModel,
    EngineSettings,
    IdealSettings,
    SparkSettings,
    StormSettings,
    engine_model,
    engine_names,
    engine_or_ideal,
    register,
    replica_cap_of,
    unregister,
)
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers import create


def _instance() -> tuple[Topology, Cluster, Any]:
    t, c = resolve_topology("linear-cpu"), resolve_cluster("hetero-3")
    return t, c, create("r-storm").plan(t, c)


def test_the_registry_lists_the_three_engines() -> None:
    assert engine_names() == ("spark", "storm", "ideal")
    for name, settings in (("spark", SparkSettings), ("storm", StormSettings), ("ideal", IdealSettings)):
        model = engine_model(name)
        assert model.name == name and model.description and model.settings_type is settings
        assert EngineSettings(name).model is model and EngineSettings(name).settings == settings()
    assert EngineSettings("spark", SparkSettings(trigger_s=2.0)) == EngineSettings("spark", spark=SparkSettings(2.0))
    with pytest.raises(TypeError, match="no engine's settings"):
        EngineSettings("spark", {"trigger_s": 2.0})
    assert [n for n, m in ENGINES.items() if m.micro_batches] == ["spark"]
    assert [n for n, m in ENGINES.items() if m.remote_tuple_cpu] == ["storm"]
    assert [n for n, m in ENGINES.items() if not m.records_params] == ["ideal"]
    with pytest.raises(ModelError) as unknown:
        engine_model("flink")
    assert unknown.value.problems[0].path == "engine" and "spark, storm, ideal" in str(unknown.value)


@pytest.mark.parametrize(("params", "check"), [
    ({"spark.trigger_s": "2", "spark.batch_s": "0.2"},
     lambda e: e.spark.trigger_s == 2.0 and e.spark.constants.batch_s == 0.2),
    ({"storm.max_spout_pending": "none", "storm.ser_us": "8"},
     lambda e: e.storm.max_spout_pending is None and e.storm.ser_us == 8.0),
    ({"ideal.replica_cap": "thread"}, lambda e: e.ideal.replica_cap == "thread" and e.replica_cap == "thread"),
])
def test_each_engine_parses_its_own_parameters(params: dict[str, str], check: Any) -> None:
    for name in engine_names():  # any engine's parameters apply whichever engine is chosen
        e = EngineSettings(name).with_params(params)
        assert e.name == name and check(e)


@pytest.mark.parametrize(("params", "words"), [
    ({"spark.trigger_s": "0"}, "spark.trigger_s must be > 0"),
    ({"spark.lead_s": "2"}, "spark.lead_s must be below spark.quantum_s"),
    ({"spark.batch_s": "nan"}, "spark.batch_s expects a finite number"),
    ({"storm.ser_us": "-1"}, "the storm engine's parameter storm.ser_us must be ≥ 0"),
    ({"storm.ser_us": "fast"}, "storm.ser_us"),
    ({"ideal.replica_cap": "core"}, "ideal.replica_cap must be one of machine, thread"),
    ({"storm.pending": "1"}, "no engine parameter 'storm.pending'"),
    ({"flink.x": "1"}, "no engine parameter 'flink.x'"),
])
def test_each_engine_refuses_bad_parameters_on_the_field_path(params: dict[str, str], words: str) -> None:
    for where in ("params", "cluster-a: engine"):
        with pytest.raises(ModelError) as bad:
            EngineSettings("ideal").with_params(params, where)
        assert bad.value.problems[0].path == where and words in str(bad.value)
        assert "--" not in str(bad.value)


# ---------------------------------------------------------------- a new engine: one class, one registration
@dataclass(frozen=True)
class ToySettings:
    slowdown: float = 2.0  # every replica runs this many times slower than the ideal model says
    label: str = "toy"


class ToyEngine(EngineModel):
    name = "toy"
    description = "the ideal model, slowed down"
    settings_type = ToySettings

    def parameter_names(self) -> tuple[str, ...]:
        return ("slowdown",)

    def revise(self, settings: ToySettings, inputs: EngineInputs, figures: EngineFigures) -> EngineFigures:
        limit = ScaleLimit(figures.limit.scale / settings.slowdown, "toy")
        return dataclasses.replace(figures, limit=limit, detail={"slowdown": settings.slowdown})

    def bottleneck(self, limit: ScaleLimit, topology: Topology, cluster: Cluster) -> str | None:
        return "the toy engine's slowdown" if limit.kind == "toy" else None

    def summary_rows(self, detail: Mapping[str, Any]) -> list[tuple[str, Any]]:
        return [("slowdown", detail.get("slowdown"))]


@pytest.fixture
def toy() -> Iterator[EngineModel]:
    model = register(ToyEngine())
    try:
        yield model
    finally:
        unregister("toy")


def test_a_registered_engine_is_usable_without_editing_other_modules(toy: EngineModel) -> None:
    t, c, plan = _instance()
    assert "toy" in engine_names()
    ideal = evaluate(t, c, plan)
    eng = EngineSettings("toy").with_params({"toy.slowdown": "4"})
    ev = evaluate(t, c, plan, engine=eng)
    assert ev.engine == "toy" and ev.engine_detail == {"slowdown": 4.0}
    assert ev.sustainable_scale == pytest.approx(ideal.sustainable_scale / 4)
    assert ev.bottleneck == "the toy engine's slowdown" and eng.replica_cap == "thread"
    from streamplace.params import by_scope

    assert by_scope({"toy.slowdown": "3", "seed": "1"}, engine_names()) == ({"toy": {"slowdown": "3"}}, {"seed": "1"})
    with pytest.raises(ModelError, match=r"toy\.slowdown"):  # its parameters join the list of valid ones
        eng.with_params({"toy.label": "x"})
    # through a scheduler and the library's API, by name: the plan records the engine and its parameters
    planned = create("r-storm").plan(t, c, engine=eng)
    assert planned.predicted["engine"] == "toy"
    assert planned.predicted["engine_params"] == {"slowdown": 4.0, "label": "toy"}
    by_name = sp.evaluate(t, c, plan, engine="toy")
    assert by_name.engine == "toy" and by_name.sustainable_scale == pytest.approx(ideal.sustainable_scale / 2)
    assert EngineSettings("ideal").settings_for("toy") == ToySettings()  # every engine's settings ride along


def test_an_engine_is_registered_once_under_a_plain_name(toy: EngineModel) -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(ToyEngine())
    bad = type("Dotted", (ToyEngine,), {"name": "a.b"})
    with pytest.raises(ValueError, match="without dots"):
        register(bad())


def test_unregistered_engines_are_unknown() -> None:
    assert "toy" not in engine_names()
    with pytest.raises(ModelError, match="unknown engine 'toy'"):
        EngineSettings("toy")


def test_no_engine_is_the_ideal_engine() -> None:
    t, c, plan = _instance()
    assert engine_or_ideal(None) == EngineSettings("ideal") and replica_cap_of(None) == "machine"
    assert evaluate(t, c, plan).predicted() == evaluate(t, c, plan, engine=EngineSettings("ideal")).predicted()
    for scheduler in ("hetero", "max-throughput"):
        a = create(scheduler).plan(t, c)
        b = create(scheduler).plan(t, c, engine=EngineSettings("ideal"))
        assert a.replicas == b.replicas and a.predicted == b.predicted
        assert "engine_params" not in a.predicted  # the ideal model records none, named or not


def test_a_cluster_spec_sets_any_registered_engines_parameters() -> None:
    """The cluster spec's engine block takes every registered engine (ideal's replica_cap included), checked by
    the engine's own parser: an unknown engine or value is refused naming the file's field."""
    import streamplace as sp
    from streamplace.errors import SpecError

    doc = {"name": "c", "nodes": [{"id": "a", "cpu": 400, "memory_mb": 4096}],
           "engine": {"ideal": {"replica_cap": "thread"}}}
    cluster = sp.load_cluster(doc)
    assert sp.engine_settings("ideal", cluster=cluster).ideal.replica_cap == "thread"
    for bad, words in (({"flink": {"x": 1}}, "no engine parameter 'flink.x'"),
                       ({"ideal": {"replica_cap": "core"}}, "must be one of machine, thread")):
        with pytest.raises(SpecError, match=words):
            sp.load_cluster(doc | {"engine": bad})
