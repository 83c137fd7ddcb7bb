"""The last bad inputs of the Python API (issue 55): every argument of every public function given a value of the
wrong type is a StreamplaceError naming the argument — never a TypeError, AttributeError or KeyError from deep
inside — and the valid-but-suspicious inputs the held-out corpus found are said (``on_warning``) or refused.

The wrong-type test is exhaustive rather than sampled: each public function × each of its arguments × each kind
of wrong value (an int, text, bytes, a list, None, a Path where an object belongs). A value a function takes by
its annotation (None where the argument is optional, text or a Path where a path is) may succeed; any other that
returns is a failure, so a wrong type let through silently fails here too.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from streamplace import api as sp  # the functions themselves (`import streamplace as sp` gives them lazily)
from streamplace.errors import ModelError, StreamplaceError
from streamplace.model.plan import json_text


class _Reached(Exception):
    """Raised where a call would start Spark: the arguments passed every check before it."""


class _FakeQuery:
    """Has what a StreamingQuery's class has; asking for its session means the autoscaler got past its checks."""

    id = "q"
    runId = "r"

    def awaitTermination(self) -> None:
        raise AssertionError("not called")

    @property
    def sparkSession(self) -> Any:
        raise _Reached


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    return {int: "int", str: "str", bytes: "bytes", list: "list"}.get(type(value), "path")


#: per public function: the valid arguments it is called with, and per argument the kinds of value its annotation
#: takes (of the wrong values below; every other kind must be refused)
TOPO, CLUSTER = "nasiri-linear", "hetero-3"
SPEC = {"str", "path"}


def _cases(tmp: Path) -> dict[str, tuple[dict[str, Any], dict[str, set[str]]]]:
    plan = sp.plan(TOPO, CLUSTER, "ffd", engine="ideal")
    engine_args = {"engine": {"none", "str"}, "calibration": {"none", "str", "path"}, "params": {"none"}}
    auto = ({"query": _FakeQuery()}, {"query": set(), "log_path": {"none", "str", "path"}, "page": set(),
                                      "page_port": {"int"}, "on_decision": {"none"}, "policy": {"str"}})
    return {
        "load_topology": ({"spec": TOPO}, {"spec": SPEC}),
        "load_cluster": ({"spec": CLUSTER}, {"spec": SPEC}),
        "load_profile": ({"spec": "nasiri-authors-rc"}, {"spec": SPEC}),
        "load_instance": ({"topology": TOPO, "cluster": CLUSTER},
                          {"topology": SPEC, "cluster": SPEC, "profile": SPEC | {"none"}, "on_warning": set()}),
        "engine_settings": ({}, {**engine_args, "cluster": {"none"}, "trigger_s": {"none", "int"},
                                 "where": {"str"}}),
        "plan": ({"topology": TOPO, "cluster": CLUSTER, "engine": "ideal"},
                 {"topology": SPEC, "cluster": SPEC, "scheduler": {"str"}, "profile": SPEC | {"none"},
                  **engine_args, "time_limit_s": {"none", "int"}, "profile_path": {"none", "str", "path"},
                  "on_warning": set()}),
        "predict": ({"topology": TOPO, "cluster": CLUSTER, "plan": plan, "engine": "ideal"},
                    {"topology": SPEC, "cluster": SPEC, "plan": SPEC, "profile": SPEC | {"none"}, **engine_args,
                     "profile_path": {"none", "str", "path"}, "on_warning": set()}),
        "evaluate": ({"topology": TOPO, "cluster": CLUSTER, "plan": plan, "engine": "ideal"},
                     {"topology": SPEC, "cluster": SPEC, "plan": SPEC, "profile": SPEC | {"none"},
                      "engine": {"none", "str"}, "on_warning": set()}),
        "compare": ({"topology": TOPO, "cluster": CLUSTER, "schedulers": ["ffd"], "engine": "ideal",
                     "time_limit_s": 2},
                    {"topology": SPEC, "cluster": SPEC, "schedulers": {"none"}, "params": {"none"},
                     "profile": SPEC | {"none"}, "engine": {"none", "str"}, "time_limit_s": {"none", "int"},
                     "on_done": {"none"}, "counts_from": {"none", "str"}, "on_warning": set()}),
        "schedulers": ({}, {}),
        "run": ({"topology": TOPO, "cluster": CLUSTER, "plan": plan, "out_dir": tmp / "run", "duration_s": 1},
                {"topology": SPEC, "cluster": SPEC, "plan": SPEC | {"none"}, "duration_s": {"int"},
                 "warmup_s": {"int"}, "trigger_s": {"none", "int"}, "cores": {"none", "int"},
                 "out_dir": {"none", "str", "path"}, "engine": {"none", "str"}, "max_rate": {"none", "int"}}),
        "autoscale": auto,
        "recommend": auto,
        "storm_over_time": ({"topology": TOPO, "cluster": CLUSTER, "plan": plan, "duration_s": 2},
                            {"topology": SPEC, "cluster": SPEC, "plan": SPEC, "duration_s": {"int"},
                             "load": {"none", "int"}, "at_capacity": {"none", "int"}, "profile": SPEC | {"none"},
                             "params": {"none"}, "series": {"none", "str", "path"}, "on_warning": set()}),
    }


def _public_functions() -> list[str]:
    return sorted(name for name in sp.__all__
                  if inspect.isfunction(getattr(sp, name)) and not name[0].isupper())


def test_every_public_function_has_its_wrong_type_cases(tmp_path: Path) -> None:
    """A function added to the API without a line in the table above fails here."""
    cases = _cases(tmp_path)
    assert sorted(cases) == _public_functions()
    for name, (_, accepts) in cases.items():
        params = [p for p in inspect.signature(getattr(sp, name)).parameters.values()
                  if p.kind is not inspect.Parameter.VAR_KEYWORD]
        assert sorted(p.name for p in params) == sorted(accepts), name


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A call that passed its checks stops where it would start Spark (the run's session, the query's)."""
    import streamplace.spark.runtime.session as session

    def reached(*args: Any, **kwargs: Any) -> Any:
        raise _Reached

    monkeypatch.setattr(session, "local_session", reached)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("function", _public_functions())
def test_every_argument_of_wrong_type_is_a_clear_typed_error(function: str, tmp_path: Path, no_spark: None) -> None:
    base, accepts = _cases(tmp_path)[function]
    fn: Callable[..., Any] = getattr(sp, function)
    wrong: list[Any] = [5, "nonsense", b"nasiri-linear", [1, 2], None, tmp_path / "missing" / "x.yaml"]
    checked = 0
    for argument, kinds in accepts.items():
        for value in wrong:
            try:
                fn(**{**base, argument: value})
            except _Reached:
                outcome = "passed"
            except StreamplaceError as exc:
                assert str(exc).strip(), (function, argument, value)
                if isinstance(exc, ModelError) and " expects " in str(exc):  # a wrong type: the argument named
                    path = exc.problems[0].path
                    assert path.startswith(argument) or argument == "where", str(exc)
                    assert "(fix: " in str(exc), str(exc)
                    if path == argument:  # (else an item of it, e.g. schedulers[0])
                        assert f"got {type(value).__name__}" in str(exc), str(exc)
                checked += 1
                continue
            else:
                outcome = "returned"
            assert _kind(value) in kinds, f"{function}({argument}={value!r}) {outcome} instead of an error"
    assert checked or not accepts  # at least one refusal per function with arguments


def test_the_corpus_wrong_types_name_the_argument() -> None:
    """The 8 bad ones' first four: a cluster as an int, parameters as text, a topology as bytes or a list —
    tracebacks from bench/clusters.py, params.py and bench/registry.py before."""
    for call, words in (
            (lambda: sp.load_cluster(5),
             "spec: expects a cluster spec: a built-in name, a YAML/JSON path or a mapping, got int 5"),
            (lambda: sp.plan(TOPO, 5), "cluster: expects a Cluster, a built-in name"),
            (lambda: sp.plan(TOPO, CLUSTER, params="cpu=hard"),
             "params: expects a mapping of parameter names to values (or None), got str 'cpu=hard'"),
            (lambda: sp.engine_settings("spark", params="spark.trigger_s=2"), "params: expects a mapping"),
            (lambda: sp.compare(TOPO, CLUSTER, ["ffd"], params="ds2.placer=ffd"), "params: expects a mapping"),
            (lambda: sp.load_topology(b"nasiri-linear"), "spec: expects a topology spec: a built-in name"),
            (lambda: sp.load_topology(["nasiri-linear"]), "got list"),
            (lambda: sp.plan(["nasiri-linear"], CLUSTER), "topology: expects a Topology"),
            (lambda: sp.compare(TOPO, CLUSTER, "ffd"), "schedulers: expects a list of names"),
            (lambda: sp.plan(TOPO, CLUSTER, 5), "scheduler: expects text, got int"),
            (lambda: sp.compare(TOPO, CLUSTER, ["ffd"], params={"ffd": {1: 5}}),
             "params.ffd[1]: expects a parameter name (text), got int 1"),  # an AttributeError in schedulers/base.py
    ):
        with pytest.raises(StreamplaceError) as caught:
            call()
        assert words in str(caught.value) and "(fix: " in str(caught.value)


def test_an_object_that_is_not_a_query_is_refused_before_a_spark_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """autoscale(5) used to ask for the active Spark session (starting one) before failing."""
    import streamplace.spark.autoscale.listener as listener

    monkeypatch.setattr(listener, "session_of", lambda q: (_ for _ in ()).throw(AssertionError("session asked")))
    for fn in (sp.autoscale, sp.recommend):
        with pytest.raises(StreamplaceError, match="query: expects a running StreamingQuery, got int"):
            fn(5)


# ---------------------------------------------------------------- a plan given as a path (the corpus's evaluate)
def _plan_file(tmp_path: Path, **changes: Any) -> Path:
    doc = sp.plan(TOPO, CLUSTER, "ffd", engine="ideal").to_dict() | changes
    path = tmp_path / "plan.json"
    path.write_text(json_text(doc), encoding="utf-8")
    return path


def test_a_plan_path_for_another_instance_is_evaluated_with_a_warning(tmp_path: Path) -> None:
    """evaluate given a plan file made for another topology and cluster (the same operator and node names) used
    to compute from it without a word."""
    path = _plan_file(tmp_path, topology="other", cluster="elsewhere")
    heard: list[str] = []
    sp.evaluate(TOPO, CLUSTER, path, engine="ideal", on_warning=heard.append)
    assert any("topology: the plan was made for topology 'other', not 'nasiri-linear'" in w for w in heard), heard
    assert any("cluster: the plan was made for cluster 'elsewhere', not 'hetero-3'" in w for w in heard), heard
    heard.clear()
    sp.evaluate(TOPO, CLUSTER, _plan_file(tmp_path), engine="ideal", on_warning=heard.append)
    assert heard == []  # its own instance: nothing to say


def test_a_path_that_is_not_a_plan_is_an_error_naming_the_file(tmp_path: Path) -> None:
    topo = tmp_path / "topology.json"
    topo.write_text(json.dumps({"name": "t", "operators": [{"id": "a", "rate": 1}]}), encoding="utf-8")
    with pytest.raises(StreamplaceError) as caught:
        sp.evaluate(TOPO, CLUSTER, topo, engine="ideal")
    assert str(caught.value).startswith(f"{topo}: ") and "replicas" in str(caught.value)


def test_a_misspelt_plan_key_is_said_not_dropped(tmp_path: Path) -> None:
    """A plan's ``source_rate`` (for source_rates) was kept as an annotation and not read, without a word."""
    path = _plan_file(tmp_path)
    doc = json.loads(path.read_text())
    doc["source_rate"] = doc.pop("source_rates")
    path.write_text(json.dumps(doc))
    heard: list[str] = []
    sp.predict(TOPO, CLUSTER, path, engine="ideal", on_warning=heard.append)
    assert heard == [f"{path}: source_rate: not a plan field, so it is not read (fix: did you mean "
                     "'source_rates'?)"]
    doc["made_by"] = "a tool"  # an annotation far from every field: kept, not warned about
    doc["source_rates"] = doc.pop("source_rate")
    heard.clear()
    sp.predict(TOPO, CLUSTER, doc, engine="ideal", on_warning=heard.append)
    assert heard == []


# ---------------------------------------------------------------- valid but suspicious, or refused
ORPHAN = {"name": "orphan", "operators": [
    {"id": "src", "kind": "source", "rate": 100, "cost_ms": 0.1},
    {"id": "src2", "kind": "source", "rate": 50, "cost_ms": 0.1},
    {"id": "work", "cost_ms": 1.0},
    {"id": "out", "kind": "sink", "cost_ms": 0.1}],
    "streams": [{"from": "src", "to": "work"}, {"from": "work", "to": "out"}]}


def test_a_second_source_with_no_path_to_a_sink_is_warned_about() -> None:
    heard: list[str] = []
    plan = sp.plan(ORPHAN, CLUSTER, "ffd", engine="ideal", on_warning=heard.append)
    assert plan.status == "ok"
    assert heard == ["orphan: operators[1]: source 'src2' has no stream path to a sink, so the 50 tuples/s it "
                     "offers are planned for but never reach the output (fix: add a stream from it towards a "
                     "sink, or remove it)"]
    single = {**ORPHAN, "operators": ORPHAN["operators"][:1] + ORPHAN["operators"][2:]}
    heard.clear()
    sp.plan(single, CLUSTER, "ffd", engine="ideal", on_warning=heard.append)
    assert heard == []  # every source reaches the sink


def test_ds2_true_rates_naming_no_operator_is_refused() -> None:
    with pytest.raises(StreamplaceError) as caught:
        sp.plan(TOPO, CLUSTER, "ds2", params={"true_rates.nope": 100})
    assert str(caught.value) == ("params.true_rates.nope: ds2: 'nope' is not an operator of topology "
                                 "'nasiri-linear' (fix: name one of spout, low, mid, high)")
    with pytest.raises(StreamplaceError, match=r"params\.ds2\.true_rates\.lo: ds2: 'lo' is not an operator"):
        sp.compare(TOPO, CLUSTER, ["ffd", "ds2"], params={"ds2.true_rates.lo": 100})
    assert sp.plan(TOPO, CLUSTER, "ds2", params={"true_rates.low": 100}).status == "ok"


def test_a_parameter_for_a_scheduler_not_compared_is_warned_about() -> None:
    heard: list[str] = []
    rows = sp.compare(TOPO, CLUSTER, ["ffd"], params={"ds2.placer": "r-storm"}, engine="ideal",
                      on_warning=heard.append)
    assert [r.scheduler for r in rows] == ["ffd"]
    assert heard == ["ds2.placer: a parameter for ds2, which is not among the schedulers compared (ffd): not used "
                     "(fix: add ds2 to the schedulers, or drop the parameter)"]
    heard.clear()
    sp.compare(TOPO, CLUSTER, ["ffd"], params={"hetero.max_replicas": 3}, engine="ideal", counts_from="hetero",
               on_warning=heard.append)
    assert heard == []  # counts_from's scheduler uses its parameters


def test_an_engine_parameter_error_names_the_engine_and_the_parameter() -> None:
    """Was "params: engine parameter trigger_s must be ≥ 0": neither the engine nor the parameter's full name."""
    with pytest.raises(ModelError) as caught:
        sp.plan(TOPO, CLUSTER, params={"spark.trigger_s": -1})
    assert str(caught.value) == ("params: the spark engine's parameter spark.trigger_s must be ≥ 0, got -1.0 "
                                 "(fix: give spark.trigger_s a value ≥ 0)")


def test_a_plan_file_to_run_says_its_misspelt_keys(tmp_path: Path) -> None:
    """`run --plan` and `live --plan` read plan files as evaluate does (workflows.run.plan_to_run)."""
    from streamplace.workflows.run import plan_to_run

    path = _plan_file(tmp_path)
    doc = json.loads(path.read_text())
    doc["replica"] = doc["replicas"]
    path.write_text(json.dumps(doc))
    heard: list[str] = []
    t, c = sp.load_topology(TOPO), sp.load_cluster(CLUSTER)
    assert plan_to_run(path, "r-storm", t, c, on_warning=heard.append).scheduler == "ffd"
    assert heard == [f"{path}: replica: not a plan field, so it is not read (fix: did you mean 'replicas'?)"]


def test_a_plan_file_for_live_says_its_misspelt_keys(tmp_path: Path) -> None:
    from streamplace.workflows.live import prepare_live
    from streamplace.workflows.live_settings import LiveSettings

    path = _plan_file(tmp_path)
    doc = json.loads(path.read_text()) | {"statu": "ok"}
    path.write_text(json.dumps(doc))
    heard: list[str] = []
    t, c = sp.load_topology(TOPO), sp.load_cluster(CLUSTER)
    policy, faults = prepare_live(t, c, "hold", path, "r-storm", {}, None, LiveSettings(),
                                   on_warning=heard.append)
    assert policy is not None and faults == []
    assert heard == [f"{path}: statu: not a plan field, so it is not read (fix: did you mean 'status'?)"]
