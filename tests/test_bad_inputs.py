"""Bad input never ends in a traceback: exit 2 and a message naming the file or field and the fix (issue 21).

The cases are the ones a newcomer hit: directories where files belong, binary and non-UTF-8 files, deep
nesting, NaN / infinity / booleans as numbers, malformed parameters, foreign files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from streamplace.cli import app

runner = CliRunner()


def topology(tmp_path: Path, rate: object, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    doc = {"name": "t", "operators": [{"id": "a", "kind": "source", "rate": rate}, {"id": "b", "kind": "sink"}],
           "streams": [{"from": "a", "to": "b"}]}
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    text = result.stdout + result.stderr
    assert "Traceback" not in text
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{args}: uncaught {type(result.exception).__name__}: {result.exception}")
    return result.exit_code, text


CASES = {
    "directory as topology": (lambda p: ["plan", str(p), "rstorm-12"], "is a directory"),
    "directory as --out": (lambda p: ["plan", "linear", "rstorm-12", "--out", str(p)], "a-directory"),
    "directory as plan": (lambda p: ["evaluate", "linear", "rstorm-12", str(p)], "is a directory"),
    "directory as --profile": (lambda p: ["plan", "linear", "rstorm-12", "--profile", str(p)], "is a directory"),
    "non-UTF-8 topology": (lambda p: ["plan", str(_write(p / "latin.yaml", "name: caf\xe9\n".encode("latin-1"))),
                                      "rstorm-12"], "UTF-8"),
    "deeply nested YAML": (lambda p: ["plan", str(_write(p / "deep.yaml", b"name: " + b"[" * 5000 + b"]" * 5000)),
                                      "rstorm-12"], "deep.yaml"),
    "rate .inf with --json": (lambda p: ["plan", "--json", str(_text(p / "inf.yaml", "rate: .inf")), "rstorm-12"],
                              "finite"),
    "rate .nan": (lambda p: ["plan", str(_text(p / "nan.yaml", "rate: .nan")), "rstorm-12"], "finite"),
    "rate true": (lambda p: ["plan", str(_text(p / "bool.yaml", "rate: true")), "rstorm-12"], "rate"),
    "binary topology": (lambda p: ["plan", str(_write(p / "bin.yaml", bytes(range(256)))), "rstorm-12"], "bin.yaml"),
    "mapping parameter given a number": (lambda p: ["plan", "-s", "hill-climbing", "-p", "weights=3", "linear",
                                                    "rstorm-12"], "weights"),
    "NaN parameter": (lambda p: ["plan", "-s", "ffd", "-p", "time_limit_s=nan", "linear", "rstorm-12"], "finite"),
    "run with 0 cores": (lambda p: ["run", "linear", "rstorm-12", "--cores", "0"], "--cores"),
    "btu_minutes 0": (lambda p: ["simulate", "manufacturing", "-p", "btu_minutes=0", "--minutes", "5"],
                      "btu_minutes"),
    "negative btu_minutes": (lambda p: ["simulate", "manufacturing", "-p", "btu_minutes=-5", "--minutes", "5"],
                             "btu_minutes"),
    "binary CSV trace": (lambda p: ["simulate", "manufacturing", "--pattern",
                                    str(_write(p / "trace.csv", bytes(range(256)) * 4)), "--minutes", "5"],
                         "trace.csv"),
    "plot to a .txt file": (lambda p: ["compare", "linear", "rstorm-12", "-s", "ffd", "--plot", str(p / "x.txt")],
                            "x.txt"),
    "import-flux on a non-Flux file": (lambda p: ["import-flux", str(_text(p / "plain.yaml", "rate: 5"))],
                                       "plain.yaml"),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _text(path: Path, rate_line: str) -> Path:
    path.write_text("name: t\noperators:\n  - {id: a, kind: source, " + rate_line
                    + "}\n  - {id: b, kind: sink}\nstreams:\n  - {from: a, to: b}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_with_a_message(case: str, tmp_path: Path) -> None:
    make_args, expected = CASES[case]
    directory = tmp_path / "a-directory"
    directory.mkdir()
    args = make_args(directory if "directory" in case else tmp_path)
    code, text = invoke(*args)
    assert code == 2, f"{case}: exit {code}: {text[-500:]}"
    assert expected in text, f"{case}: {text[-500:]}"


def test_an_operator_whose_output_goes_nowhere_is_an_error(tmp_path: Path) -> None:
    """Declared kind: operator with no output stream would make the whole topology's throughput 0."""
    path = tmp_path / "dangling.yaml"
    path.write_text(yaml.safe_dump({"name": "t", "operators": [
        {"id": "a", "kind": "source", "rate": 5}, {"id": "b", "kind": "operator"}],
        "streams": [{"from": "a", "to": "b"}]}), encoding="utf-8")
    code, text = invoke("plan", str(path), "rstorm-12")
    assert code == 2 and "operators[1].kind" in text and "reaches a sink" in text
    path.write_text(yaml.safe_dump({"name": "t", "operators": [{"id": "a", "kind": "source", "rate": 5}, {"id": "b"}],
                                    "streams": [{"from": "a", "to": "b"}]}), encoding="utf-8")
    assert invoke("plan", str(path), "rstorm-12")[0] == 0  # left out, the kind is inferred: a sink


def test_overheads_above_a_node_s_capacity_are_explained(tmp_path: Path) -> None:
    """Throughput 0 because fixed overheads alone overload a node: the plan says so instead of a bare 0."""
    topo, cluster = tmp_path / "t.yaml", tmp_path / "c.yaml"
    topo.write_text(yaml.safe_dump({"name": "t", "operators": [
        {"id": "a", "kind": "source", "rate": 10, "cost_ms": 1, "overhead": 60},
        {"id": "b", "kind": "sink", "cost_ms": 1, "overhead": 60}], "streams": [{"from": "a", "to": "b"}]}))
    cluster.write_text(yaml.safe_dump({"name": "small", "nodes": [{"id": "n1", "cpu": 100, "memory_mb": 4096}]}))
    code, text = invoke("plan", str(topo), str(cluster), "--engine", "ideal")
    assert code == 0 and "MET) on n1 take 120 CPU points of the 100 it may use" in " ".join(text.split())


@pytest.mark.parametrize(("change", "field"), [
    ({"planning_ms": "fast"}, "planning_ms"), ({"warnings": 3}, "warnings"), ({"predicted": []}, "predicted"),
    ({"source_rates": {"spout": float("nan")}}, "source_rates.spout"),
    ({"source_rates": {"spout": -5}}, "source_rates.spout"), ({"source_rates": {"spout": 0}}, "source_rates.spout"),
    ({"source_rates": {"low": 10}}, "source_rates.low"), ({"source_rates": {"ghost": 10}}, "source_rates.ghost"),
    ({"replicas": {"spout": {"pentium-1": True}, "low": {"pentium-1": 1}, "mid": {"pentium-1": 1},
                   "high": {"pentium-1": 1}}}, "replicas.spout.pentium-1"),
    ({"status": "great"}, "status")])
def test_a_plan_file_with_a_field_of_the_wrong_type_or_range_is_refused_with_the_field(tmp_path, change, field):
    """From the bad-input corpus: these were tracebacks in model/plan.py or perf/engines/triggers.py, or were
    taken silently (a rate for a non-source, ``count: true`` as one replica)."""
    import json as _json

    from typer.testing import CliRunner as _Runner

    from streamplace.cli import app as _app

    plan = {"scheduler": "hand", "topology": "nasiri-linear", "cluster": "hetero-3",
            "replicas": {op: {"pentium-1": 1} for op in ("spout", "low", "mid", "high")},
            "source_rates": {"spout": 10.0}} | change
    path = tmp_path / "plan.json"
    path.write_text(_json.dumps(plan))  # NaN written as JSON allows it
    result = _Runner().invoke(_app, ["evaluate", "nasiri-linear", "hetero-3", str(path), "--engine", "ideal"])
    assert result.exit_code == 2, result.output
    assert field in result.output and "fix:" in result.output and "Traceback" not in result.output


def test_a_profile_that_would_apply_to_nothing_is_refused_or_named(tmp_path) -> None:
    """From the bad-input corpus: a misspelt top-level key, or a topology file given as a profile, loaded as an
    empty profile without a word; entries for a node type the cluster lacks never applied, silently."""
    from typer.testing import CliRunner as _Runner

    from streamplace.cli import app as _app
    from streamplace.errors import SpecError
    from streamplace.spec.loader import load_profile

    bad = tmp_path / "p.yaml"
    bad.write_text("profilez:\n  - {operator: parse, node_type: atom, cost_ms: 1}\n")
    with pytest.raises(SpecError, match="unknown top-level key 'profilez'"):
        load_profile(bad)
    with pytest.raises(SpecError, match="a topology spec, not a profile"):
        load_profile("examples/topology.yaml")
    result = _Runner().invoke(_app, ["plan", "examples/topology.yaml", "hetero-3", "--profile",
                                     "examples/profile.yaml", "-s", "hetero", "--engine", "ideal"])
    assert result.exit_code == 0 and "node type 'atom' never apply" in result.output


def test_huge_inputs_are_refused_with_the_bound_instead_of_running_for_minutes(tmp_path) -> None:
    """From the bad-input corpus: a node group of 10⁸ nodes, a billion replicas, a "billion laughs" YAML and a
    20 MB cluster YAML each ran past 20 s with no message."""
    from streamplace.errors import SpecError
    from streamplace.spec.loader import load_cluster, load_topology

    with pytest.raises(SpecError, match="at most 100,000"):
        load_cluster({"name": "big", "nodes": [{"id": "n", "count": 60_000, "cpu": 100, "memory_mb": 1024},
                                               {"id": "m", "count": 60_000, "cpu": 100, "memory_mb": 1024}]})
    with pytest.raises(SpecError, match="count"):
        load_cluster({"name": "big", "nodes": [{"id": "n", "count": 10**8, "cpu": 100, "memory_mb": 1024}]})
    with pytest.raises(SpecError, match="replicas"):
        load_topology({"name": "t", "operators": [{"id": "s", "kind": "source", "rate": 1, "replicas": 10**9},
                                                  {"id": "k", "kind": "sink"}], "streams": [{"from": "s", "to": "k"}]})
    laughs = ["name: t", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 9):
        laughs.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
    laughs.append("operators: []")
    bomb = tmp_path / "laughs.yaml"
    bomb.write_text("\n".join(laughs) + "\n")
    with pytest.raises(SpecError, match="expands to more than"):
        load_topology(bomb)
    large = tmp_path / "large.yaml"
    large.write_text("name: big\n# " + "x" * 17_000_000 + "\nnodes: []\n")
    with pytest.raises(SpecError, match="YAML specs are read up to 16 MB"):
        load_cluster(large)
