"""The command line's start (issue 56: CLI start < 0.4 s, a 1 k plan < 0.5 s), kept from regressing in kind: a
``plan --json`` run as the ``streamplace`` script imports only its own command module, no rich (it prints no
table) and no pydantic (typer's adapters are built only for values that need them; plainly valid spec files are
checked without it), and what it prints is what every command registered and typer's own coercion print. No wall
time is asserted: what is imported and built is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
import yaml
from typer.testing import CliRunner

from streamplace import cli
from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.cli import COMMAND_MODULES, _typer, command_module, load_commands
from streamplace.spec.loader import cluster_to_doc, topology_to_doc

#: what a plan run as the script reports: its exit code and the modules it imported (on stderr, after the plan)
_RUN = """\
import json, sys
sys.argv = ["streamplace", *sys.argv[1:]]
from streamplace.cli import main
try:
    main()
except SystemExit as done:
    code = done.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
PLAN = ["plan", "linear", "rstorm-12", "-s", "round-robin", "--engine", "ideal", "--json"]


def script(*args: str) -> tuple[int, str, set[str]]:
    """Run the command line as the ``streamplace`` script does (cli.main) in a fresh process: exit code, standard
    output and the modules it imported."""
    done = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, check=True)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], done.stdout, set(report["modules"])


def test_a_plan_as_json_imports_its_command_alone_and_neither_rich_nor_pydantic() -> None:
    code, out, modules = script(*PLAN)
    assert code == 0 and json.loads(out)["scheduler"] == "round-robin"
    commands = {m for m in modules if m.startswith("streamplace.cli.")}
    assert commands == {"streamplace.cli._common", "streamplace.cli._typer", "streamplace.cli.planning"}, commands
    assert not {m for m in modules if m.split(".")[0] in ("rich", "pydantic", "pydantic_core")}
    assert "typer._adapters" not in modules  # no pydantic TypeAdapter built for any parameter
    # the same plan as with every command registered (the app the tests invoke), but its planning time
    result = CliRunner().invoke(cli.app, PLAN)
    assert result.exit_code == 0
    assert {k: v for k, v in json.loads(out).items() if k != "planning_ms"} == \
        {k: v for k, v in json.loads(result.stdout).items() if k != "planning_ms"}


def test_a_plan_of_spec_files_imports_no_pydantic(tmp_path: Path) -> None:
    """Issue 56's 1 k plan in kind: a topology file and a cluster of node groups, plainly valid, are checked by
    spec/plain.py — no pydantic, no schema built — and planned as with pydantic's validation; a file with a
    problem still imports pydantic, whose message names the field."""
    topology, cluster = tmp_path / "topology.yaml", tmp_path / "cluster.yaml"
    topology.write_text(yaml.safe_dump(topology_to_doc(storm_large(2, 3, 4, 5)), sort_keys=False))
    doc = cluster_to_doc(racks(3, 4))
    node = {k: v for k, v in doc["nodes"][0].items() if k not in ("id", "rack")}
    cluster.write_text(yaml.safe_dump({"name": "groups", "links": doc["links"], "nodes": [
        {"id": f"r{r}", "count": 4, "rack": f"rack{r}", **node} for r in range(3)]}, sort_keys=False))
    args = ["plan", str(topology), str(cluster), "-s", "r-storm", "--engine", "ideal", "--json"]
    code, out, modules = script(*args)
    assert code == 0 and json.loads(out)["scheduler"] == "r-storm"
    assert not {m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core")}
    assert "streamplace.spec.schema" not in modules and "importlib.metadata" not in modules
    result = CliRunner().invoke(cli.app, args)  # in this process, pydantic's schema validates it too (as before)
    from streamplace.spec.schema import ClusterSpec, TopologySpec

    assert ClusterSpec.model_validate(yaml.safe_load(cluster.read_text())).nodes[2].count == 4
    assert TopologySpec.model_validate(yaml.safe_load(topology.read_text())).name == "storm-large"
    assert {k: v for k, v in json.loads(out).items() if k != "planning_ms"} == \
        {k: v for k, v in json.loads(result.stdout).items() if k != "planning_ms"}
    cluster.write_text(cluster.read_text().replace("count: 4", "count: 4\n  cpu_ms: 1", 1))
    code, out, modules = script(*args)
    assert code == 2 and "pydantic" in modules


def test_a_plan_as_a_table_imports_rich() -> None:
    """The other side of the test above: printing a table does import rich (it is not imported by accident)."""
    code, out, modules = script(*[a for a in PLAN if a != "--json"])
    assert code == 0 and "round-robin" in out and "rich.table" in modules


@pytest.mark.parametrize(("args", "module"), [
    (["plan", "linear", "rstorm-12"], "planning"), (["-q", "plan"], "planning"), (["-qv", "run", "x"], "run"),
    (["--verbose", "bench", "list"], "planning"), (["cluster", "up"], "cluster"), (["report", "x"], "sweep"),
    (["profile"], "measure"), (["demo", "--help"], "demo"), ([], None), (["--help"], None), (["--version"], None),
    (["plann"], None), (["-x", "plan"], None), (["--quiet=1", "plan"], None), (["--", "plan"], None),
])
def test_the_script_imports_the_module_of_the_command_it_is_given(args: list[str], module: str | None) -> None:
    """Every other start (help, the version, a misspelt command, an unknown option) imports every module, so
    that typer lists, suggests and refuses as with every command registered."""
    assert command_module(args) == module


def test_the_table_of_command_modules_is_what_the_modules_register() -> None:
    from streamplace.cli import _common

    load_commands()
    by_module: dict[str, set[str]] = {}
    for info in _common.app.registered_commands:
        name = info.name or info.callback.__name__.lower().replace("_", "-")
        by_module.setdefault(info.callback.__module__, set()).add(name)
    for group in _common.app.registered_groups:
        for info in group.typer_instance.registered_commands:
            by_module.setdefault(info.callback.__module__, set()).add(group.name)
    assert by_module == {f"streamplace.cli.{m}": set(names) for m, names in COMMAND_MODULES.items()}


def test_commands_are_listed_in_one_order_whichever_module_came_first() -> None:
    """A process that ran one command and then loads them all (a test after ``main``) lists them as `streamplace
    --help` always does."""
    code = ("from streamplace.cli import load_commands, _common\nimport sys\nfor m in sys.argv[1:]:\n"
            "    load_commands(m or None)\nprint([c.callback.__name__ for c in _common.app.registered_commands])\n")
    once = subprocess.run([sys.executable, "-c", code, ""], capture_output=True, text=True, check=True).stdout
    later = subprocess.run([sys.executable, "-c", code, "demo", "sweep", ""], capture_output=True, text=True,
                           check=True).stdout
    assert once == later and "plan" in once


def _parameters() -> list[tuple[str, Any, Any]]:
    """Every typer parameter of every command (its --help too), with its command's click object."""
    found = []

    def walk(command: Any, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")
        ctx = command.make_context(path, [], resilient_parsing=True)
        found.extend((path, command, p) for p in command.get_params(ctx) if hasattr(p, "type_descriptor"))

    walk(typer.main.get_command(cli.app), "streamplace")
    return found


#: values a parameter's coercion meets: text, text that looks like a number, a path or an option, lists of them
VALUES: list[Any] = ["", "x", " a b ", "ü", "-", "--json", "1", "0", "-1", "1.5", "1e3", " 7", "inf", "nan", "true",
                     "no", "plan.json", ("a", "b"), ["1"], (), ("",), 3, 2.5, True]


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        got = runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as exc:
        return "refused", exc.format_message()
    except Exception as exc:  # the same error either way is what counts
        return "raised", f"{type(exc).__name__}: {exc}"
    return type(got).__name__, repr(got)  # repr: nan is nan


@pytest.mark.skipif(not _typer.QUICK, reason="typer without the coercion _typer.py defers")
def test_deferred_coercion_gives_what_typer_s_own_gives_for_every_parameter() -> None:
    """For every parameter of every command and each of VALUES, the command line's coercion (cli/_typer.py) returns
    what typer's own does — the same type and value, or the same refusal — while it builds typer's own only for a
    value that is not text for a text parameter."""
    from typer._coercion import build_runtime_param

    load_commands()
    differ, checked = [], 0
    for path, command, param in _parameters():
        ctx = command.make_context(path, [], resilient_parsing=True)
        desc = param.type_descriptor
        typer_own = build_runtime_param(desc)
        for value in VALUES:
            deferred = _typer.Deferred(desc.parameter_info, desc.annotation, desc, _typer.is_text(desc))
            param._runtime_param = None
            ours = _outcome(deferred, value, param, ctx)
            built = param._runtime_param is not None  # typer's own, built by the deferred coercion
            theirs = _outcome(typer_own, value, param, ctx)
            checked += 1
            if ours != theirs or (built and type(value) is str and desc.annotation is str):
                differ.append((path, param.name, value, ours, theirs))
    assert checked > 1000 and not differ, differ[:5]


@pytest.mark.skipif(not _typer.QUICK, reason="typer without the coercion _typer.py defers")
@pytest.mark.parametrize("args", [
    PLAN, PLAN[:-1], [*PLAN, "-p", "a=1", "--param", "b=2"], ["plan", "linear", "rstorm-12", "--profile", "nope"],
    ["compare", "linear", "rstorm-12", "--time-limit", "x"], ["simulate", "linear", "--minutes", "-3"],
    ["cluster", "up", "hetero-3", "--replica-slots", "0"], ["plan", "linear"], ["bench", "list", "--json"],
    ["-q", "-v", "schedulers"], ["plan", "--help"],
])
def test_the_command_line_says_what_it_said_with_typer_s_own_coercion(args: list[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole commands — results, typer's refusals of bad values, help — with the deferred coercion and with
    typer's own throughout (_typer.QUICK off): the same exit code and output (but a plan's planning time)."""
    def run() -> tuple[int, str, str]:
        result = CliRunner().invoke(cli.app, args)
        text = result.stdout
        if text.startswith("{"):
            text = json.dumps({k: v for k, v in json.loads(text).items() if k != "planning_ms"})
        elif "round-robin on" in text:
            text = text.split(" ms", 1)[1]  # the line with the planning time
        return result.exit_code, text, result.stderr

    quick = run()
    monkeypatch.setattr(_typer, "QUICK", False)
    assert quick == run()
