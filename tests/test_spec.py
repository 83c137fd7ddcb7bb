"""Spec loading: one test per error class, each asserting the message names file and field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from streamplace.errors import SpecError
from streamplace.model.cluster import check_compatible
from streamplace.spec.loader import dump_topology, load_cluster, load_plan, load_profile, load_topology

GOOD = {
    "name": "t",
    "operators": [
        {"id": "spout", "kind": "source", "rate": 100, "cost_ms": 0.5},
        {"id": "bolt", "cost_ms": 1.0, "selectivity": 0.5},
        {"id": "sink"},
    ],
    "streams": [{"from": "spout", "to": "bolt"}, {"from": "bolt", "to": "sink", "grouping": "key:user"}],
}


def write(tmp_path: Path, doc: dict, name: str = "spec.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc))
    return p


def broken(tmp_path: Path, mutate) -> str:
    import copy

    doc = copy.deepcopy(GOOD)
    mutate(doc)
    path = write(tmp_path, doc)
    with pytest.raises(SpecError) as info:
        load_topology(path)
    text = str(info.value)
    assert str(path) in text, text  # names the file
    assert "fix:" in text, text  # and says how to fix it
    return text


def test_good_spec_loads_and_infers_kinds(tmp_path: Path) -> None:
    t = load_topology(write(tmp_path, GOOD))
    assert [o.kind for o in t.operators] == ["source", "operator", "sink"]
    assert t.streams[1].grouping == "key" and t.streams[1].key == "user"


def test_json_is_accepted(tmp_path: Path) -> None:
    import json

    p = tmp_path / "t.json"
    p.write_text(json.dumps(GOOD))
    assert load_topology(p).name == "t"


def test_unknown_stream_endpoint(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["streams"].append({"from": "bolt", "to": "bolt9"}))
    assert "streams[2].to" in text and "bolt9" in text


def test_duplicate_ids(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["operators"].append({"id": "bolt"}))
    assert "operators[3].id" in text and "duplicate" in text


@pytest.mark.parametrize("field,value", [("rate", 0), ("rate", -5)])
def test_non_positive_rate(tmp_path: Path, field: str, value: float) -> None:
    text = broken(tmp_path, lambda d: d["operators"][0].update({field: value}))
    assert "operators[0].rate" in text


def test_negative_cost(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["operators"][1].update({"cost_ms": -1}))
    assert "operators[1].cost_ms" in text


def test_source_with_inputs(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["streams"].append({"from": "bolt", "to": "spout"}))
    assert "operators[0].kind" in text and "input stream" in text


def test_no_source(tmp_path: Path) -> None:
    def mutate(d: dict) -> None:
        d["operators"] = [{"id": "a", "kind": "operator"}, {"id": "b", "kind": "sink"}]
        d["streams"] = [{"from": "a", "to": "b"}]

    text = broken(tmp_path, mutate)
    assert "operators:" in text and "no source" in text


def test_negative_selectivity(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["operators"][1].update({"selectivity": -0.1}))
    assert "operators[1].selectivity" in text


def test_unknown_grouping(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["streams"][0].update({"grouping": "broadcast"}))
    assert "streams[0].grouping" in text and "broadcast" in text


def test_unknown_field_is_a_typo(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["operators"][1].update({"cpu_ms": 3}))
    assert "operators[1].cpu_ms" in text


def test_wrong_type(tmp_path: Path) -> None:
    text = broken(tmp_path, lambda d: d["operators"][1].update({"replicas": "many"}))
    assert "operators[1].replicas" in text


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("name: t\noperators: [\n  - id: x\n")
    with pytest.raises(SpecError) as info:
        load_topology(p)
    assert str(p) in str(info.value) and "line" in str(info.value)


def test_missing_file() -> None:
    with pytest.raises(SpecError, match="file not found"):
        load_topology("does/not/exist.yaml")


def test_pinned_to_unknown_node(tmp_path: Path) -> None:
    import copy

    doc = copy.deepcopy(GOOD)
    doc["operators"][0]["pinned"] = ["edge-9"]
    t = load_topology(write(tmp_path, doc))
    cluster = load_cluster(write(tmp_path, {"name": "c", "nodes": [{"id": "n1", "cpu": 100, "memory_mb": 512}]},
                                 "c.yaml"))
    problems = check_compatible(t, cluster)
    assert problems[0].path == "operators[0].pinned[0]" and "edge-9" in problems[0].message


def test_cluster_non_positive_capacity(tmp_path: Path) -> None:
    p = write(tmp_path, {"name": "c", "nodes": [{"id": "n1", "cpu": 0, "memory_mb": 512}]}, "c.yaml")
    with pytest.raises(SpecError) as info:
        load_cluster(p)
    assert str(p) in str(info.value) and "nodes[0].cpu" in str(info.value)


def test_cluster_negative_cost(tmp_path: Path) -> None:
    p = write(tmp_path, {"name": "c", "nodes": [{"id": "n1", "cpu": 100, "memory_mb": 512, "cost_per_hour": -1}]},
              "c.yaml")
    with pytest.raises(SpecError, match=r"nodes\[0\]\.cost_per_hour"):
        load_cluster(p)


def test_cluster_link_override_unknown_node(tmp_path: Path) -> None:
    p = write(tmp_path, {"name": "c", "nodes": [{"id": "n1", "cpu": 100, "memory_mb": 512}],
                         "links": {"latency_ms": {"n1": {"n7": 4}}}}, "c.yaml")
    with pytest.raises(SpecError, match=r"links\.latency_ms\.n1\.n7"):
        load_cluster(p)


def test_dump_round_trip(tmp_path: Path) -> None:
    t = load_topology(write(tmp_path, GOOD))
    p = tmp_path / "again.yaml"
    p.write_text(dump_topology(t))
    assert load_topology(p) == t


def test_profile_and_plan(tmp_path: Path) -> None:
    prof = load_profile(write(tmp_path, {"profiles": [{"operator": "bolt", "node_type": "i5", "cost_ms": 0.3}],
                                         "selectivity": {"bolt": 0.4}}, "p.yaml"))
    assert prof.lookup()[("bolt", "i5")].cost_ms == 0.3
    with pytest.raises(SpecError, match="replicas"):
        load_plan(write(tmp_path, {"scheduler": "x"}, "plan.yaml"))


FLUX = """
name: "wordcount"
config: {topology.workers: 2}
spouts:
  - id: "sentence"
    className: "org.apache.storm.testing.TestWordSpout"
    parallelism: 3
    cpuLoad: 50.0
    onHeapMemoryLoad: 256.0
    offHeapMemoryLoad: 64.0
bolts:
  - id: "split"
    className: "org.apache.storm.starter.SplitSentence"
    parallelism: 4
    configMethods:
      - name: setCPULoad
        args: [30.0]
      - name: setMemoryLoad
        args: [512.0]
  - id: "count"
    className: "org.apache.storm.starter.WordCount"
    parallelism: 2
streams:
  - name: "sentence --> split"
    from: "sentence"
    to: "split"
    grouping: {type: SHUFFLE}
  - name: "split --> count"
    from: "split"
    to: "count"
    grouping: {type: FIELDS, args: ["word"]}
"""


def test_flux_import(tmp_path: Path) -> None:
    p = tmp_path / "flux.yaml"
    p.write_text(FLUX)
    t = load_topology(p)
    s, split, count = t.operators
    assert (s.kind, s.replicas, s.cpu, s.memory_mb) == ("source", 3, 50.0, 320.0)
    assert (split.cpu, split.memory_mb, split.replicas) == (30.0, 512.0, 4)
    assert count.kind == "sink" and count.cpu == 10.0  # Storm's default
    assert t.streams[1].grouping == "key" and t.streams[1].key == "word"


def test_flux_refuses_direct_grouping(tmp_path: Path) -> None:
    p = tmp_path / "flux.yaml"
    p.write_text(FLUX.replace("type: SHUFFLE", "type: DIRECT"))
    with pytest.raises(SpecError) as info:
        load_topology(p)
    assert "streams[0].grouping.type" in str(info.value) and str(p) in str(info.value)


@pytest.mark.parametrize(("vertex", "stream", "field"), [
    ("{id: b, className: B}", "{from: s, to: b, grouping: shuffle}", "streams[0].grouping"),
    ("{id: b, className: B, parallelism: true}", "{from: s, to: b}", "bolts[0].parallelism"),
    ("{id: b, className: B, cpuLoad: true}", "{from: s, to: b}", "bolts[0].cpuLoad"),
    ("{id: b, className: B, configMethods: setCPULoad}", "{from: s, to: b}", "bolts[0].configMethods"),
    ("{id: b, className: B, parallelism: 200000}", "{from: s, to: b}", "bolts[0].parallelism"),
    ("{id: b, className: B}", "s-to-b", "streams[0]"),
    ("{id: b, className: B}", "{from: ghost, to: b}", "streams[0].from")])
def test_flux_errors_name_the_flux_files_own_fields(tmp_path: Path, vertex: str, stream: str, field: str) -> None:
    """From the bad-input corpus: these were tracebacks (some pydantic's raw output), ``cpuLoad: true`` was read
    as one point, and errors named the converted topology's ``operators[1]`` instead of ``bolts[0]``."""


    path = tmp_path / "flux.yaml"
    path.write_text(f"name: x\nspouts:\n  - {{id: s, className: S}}\nbolts:\n  - {vertex}\nstreams:\n  - {stream}\n")
    with pytest.raises(SpecError) as info:
        load_topology(path)
    assert any(p.path == field for p in info.value.problems), info.value


def test_flux_follows_includes_and_explains_what_it_cannot_read(tmp_path: Path) -> None:


    (tmp_path / "base.yaml").write_text("name: base\nspouts:\n  - {id: s, className: S}\nbolts:\n"
                                        "  - {id: b, className: B}\nstreams:\n  - {from: s, to: b}\n")
    (tmp_path / "main.yaml").write_text("name: main\nincludes:\n  - {resource: false, file: base.yaml}\nbolts:\n"
                                        "  - {id: c, className: C}\nstreams:\n  - {from: b, to: c}\n")
    t = load_topology(tmp_path / "main.yaml")
    assert t.name == "main" and set(t.ids) == {"s", "b", "c"}
    (tmp_path / "jar.yaml").write_text("name: j\nincludes:\n  - {resource: true, file: /other.yaml}\n")
    with pytest.raises(SpecError, match="classpath resource"):
        load_topology(tmp_path / "jar.yaml")
    (tmp_path / "java.yaml").write_text("name: j\ntopologySource:\n  className: org.example.Builder\n")
    with pytest.raises(SpecError, match=r"a Java class \(org\.example\.Builder\) builds this topology"):
        load_topology(tmp_path / "java.yaml")
    (tmp_path / "lonely.yaml").write_text("name: l\nspouts:\n  - {id: s, className: S}\nbolts:\n"
                                          "  - {id: b, className: B}\n  - {id: z, className: Z}\n"
                                          "streams:\n  - {from: s, to: b}\n")
    with pytest.raises(SpecError, match=r"bolts\[1\]: bolt 'z' has no input stream"):
        load_topology(tmp_path / "lonely.yaml")


def test_a_custom_grouping_is_refused_with_the_way_to_plan_it_as_shuffle(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from streamplace.cli import app

    path = tmp_path / "custom.yaml"
    path.write_text("name: c\nspouts:\n  - {id: s, className: S}\nbolts:\n  - {id: b, className: B}\nstreams:\n"
                    "  - {from: s, to: b, grouping: {type: CUSTOM, customClass: {className: org.X}}}\n")
    refused = CliRunner().invoke(app, ["import-flux", str(path)])
    assert refused.exit_code == 2 and "--custom-as-shuffle" in refused.output
    assert "no input stream" not in refused.output  # the refused stream still feeds its bolt
    taken = CliRunner().invoke(app, ["import-flux", str(path), "--custom-as-shuffle"])
    assert taken.exit_code == 0 and "planned as shuffle" in taken.output and "grouping: shuffle" in taken.output


def test_a_node_groups_loading_does_not_grow_type_work_per_node(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """Issue 56's regression, in kind: type hints resolved once per node made a 10,000-node spec load 2× slower.
    Loading 10 nodes and 1,000 nodes of one group must resolve the same (small) number of type hints."""
    import typing

    from streamplace.spec import derive
    from streamplace.spec.loader import load_cluster

    calls = {"n": 0}
    real = typing.get_type_hints

    def counting(*args: object, **kwargs: object) -> object:
        calls["n"] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(derive.typing, "get_type_hints", counting)
    derive.field_plan.cache_clear()
    # validation in kind too: a node's dataclass __init__ and its value checks run once per group, not per node
    from streamplace.model import cluster as cluster_model

    built = {"init": 0, "checked": 0}
    real_init, real_check = cluster_model.Node.__init__, cluster_model.node_value_problems

    def init(self: object, *args: object, **kwargs: object) -> None:
        built["init"] += 1
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    def check(node: cluster_model.Node) -> list[tuple[str, str, str]]:
        built["checked"] += 1
        return real_check(node)

    monkeypatch.setattr(cluster_model.Node, "__init__", init)
    monkeypatch.setattr(cluster_model, "node_value_problems", check)
    counts, work = [], []
    for size in (1, 10, 1000):  # the first load resolves each class's hints once; the others must add none
        calls["n"] = built["init"] = built["checked"] = 0
        spec = tmp_path / f"group-{size}.yaml"
        spec.write_text(f"name: g\nnodes:\n  - {{id: n, cpu: 100, memory_mb: 1024, count: {size}}}\n"
                        "  - {id: m, cpu: 200, memory_mb: 2048, count: 3}\n")
        cluster = load_cluster(spec)
        assert len(cluster.nodes) == size + 3 and cluster.nodes[size - 1].id == f"n-{size:0{len(str(size))}d}"
        assert cluster.nodes[size - 1] == cluster_model.Node(f"n-{size:0{len(str(size))}d}", 100.0, 1024.0)
        counts.append(calls["n"])
        work.append(dict(built))
    assert counts[1] == counts[2] == 0, counts
    assert work[1] == work[2] == {"init": 2 + 1, "checked": 2}, work  # one per group (+ the comparison's own)


def test_node_copies_equal_nodes_built_field_by_field() -> None:
    from streamplace.model.cluster import Node

    first = Node("a-1", 400.0, 4096.0, type="big", rack="r2", zone="z1", speedup=1.5, availability=0.99,
                 cost_per_hour=0.5, slots=2, bandwidth_mbps=1000.0, coords=(1.0, 2.0))
    copies = first.with_ids(["a-2", "a-3"])
    import dataclasses

    assert copies == [dataclasses.replace(first, id="a-2"), dataclasses.replace(first, id="a-3")]
    assert {hash(n) for n in copies} == {hash(dataclasses.replace(first, id=i)) for i in ("a-2", "a-3")}
    with pytest.raises(dataclasses.FrozenInstanceError):
        copies[0].cpu = 1.0  # type: ignore[misc]


def test_a_cluster_listing_bad_values_is_told_per_node_as_before(tmp_path: Path) -> None:
    """Values are checked once per distinct valid set; a bad value is still named at every node that has it."""
    spec = tmp_path / "c.yaml"
    spec.write_text("name: g\nnodes:\n  - {id: a, cpu: 0, memory_mb: 10}\n  - {id: b, cpu: 100, memory_mb: 10}\n"
                    "  - {id: c, cpu: 0.0, memory_mb: 10}\n  - {id: d, cpu: 100, memory_mb: 10, slots: 0}\n")
    with pytest.raises(SpecError) as err:
        load_cluster(spec)
    text = str(err.value)
    assert "nodes[0].cpu: must be > 0, got 0" in text and "nodes[2].cpu: must be > 0, got 0.0" in text
    assert "nodes[3].slots: must be >= 1, got 0" in text and "nodes[1]" not in text


#: YAML that libyaml and PyYAML's pure-Python parser refuse in different words (and one they read alike)
BAD_YAML = ["name: t\nnodes: [1, 2\n", "name: t\nnodes:\n\t- 1\n", "name: t\n nodes: 2\n", "- x\nname: 1\n",
            "name: *nope\n", "name: 'x\n", "name: t\nnodes: {a: 1, a: 2}\n"]


@pytest.mark.parametrize("text", BAD_YAML)
def test_yaml_errors_read_the_same_with_or_without_libyaml(tmp_path: Path, text: str) -> None:
    from streamplace.spec import documents

    messages = []
    for loader in (documents.SpecLoader, documents.PySpecLoader):
        with pytest.raises(SpecError) as err:
            documents._parse(text, tmp_path / "c.yaml", False, loader)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "line " in messages[0], messages
    assert documents._parse("name: t\nnodes: []\n", tmp_path / "c.yaml", False, documents.PySpecLoader) == \
        documents._parse("name: t\nnodes: []\n", tmp_path / "c.yaml", False) == {"name": "t", "nodes": []}


def test_a_cluster_is_checked_alike_by_the_fast_pass_and_node_by_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """validate_cluster's C-level pass (every id valid and unique, each distinct set of values valid) finds no
    problem exactly when the node-by-node loop finds none; otherwise the loop names each problem."""
    import random

    from streamplace.errors import ModelError
    from streamplace.model import cluster as cluster_model
    from streamplace.model.cluster import Cluster, Node

    rng = random.Random(4)
    stems = ["a", "b", "c", "d-1", "e.2", "f g", "h\n", "i_3", "j/", "", "k//", "l\n/"]
    for _ in range(300):
        nodes = [Node(rng.choice(stems) + rng.choice(["", "", "0", "1", "2"]),
                      cpu=rng.choice([100.0, 0.0, -1.0, 50.0]) if rng.random() < 0.2 else 100.0,
                      memory_mb=1024.0, slots=rng.choice([0, 1, 2]) if rng.random() < 0.2 else 1)
                 for _ in range(rng.randrange(1, 6))]
        problems = []
        for fast in (True, False):
            if not fast:
                monkeypatch.setattr(cluster_model, "_all_nodes_valid", lambda nodes: None)
            try:
                Cluster("c", tuple(nodes))
                problems.append([])
            except ModelError as err:
                problems.append([str(p) for p in err.problems])
            monkeypatch.undo()
        assert problems[0] == problems[1], nodes
