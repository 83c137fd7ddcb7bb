"""Names once: the command line and the workflows name no scheduler (the default is DEFAULT_SCHEDULER, a
scheduler's own figures come from its class), and the command line names no engine (DEFAULT_ENGINE,
RUNTIME_ENGINE)."""

from __future__ import annotations

import ast
from pathlib import Path

from streamplace.perf.engines import DEFAULT_ENGINE, ENGINES, RUNTIME_ENGINE
from streamplace.schedulers.base import BUILTIN_MODULES, DEFAULT_SCHEDULER, REGISTRY, scheduler_summary

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "streamplace"


def _string_constants(folder: Path) -> list[tuple[str, int, str]]:
    """Every string constant of the modules under ``folder`` that is not a docstring: (file, line, value)."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        out += [(path.name, node.lineno, node.value) for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]
    return out


def test_no_scheduler_is_named_in_the_command_line_or_the_workflows() -> None:
    names = set(BUILTIN_MODULES)
    found = [(f"{folder}/{file}", line, value) for folder in ("cli", "workflows")
             for file, line, value in _string_constants(PACKAGE / folder) if value in names]
    assert found == [], f"name the scheduler through DEFAULT_SCHEDULER or the scheduler's class: {found}"


def test_no_engine_is_named_in_the_command_line() -> None:
    found = [(file, line, value) for file, line, value in _string_constants(PACKAGE / "cli") if value in ENGINES]
    assert found == [], f"name the engine through DEFAULT_ENGINE or RUNTIME_ENGINE: {found}"


def test_the_defaults_are_registered() -> None:
    assert DEFAULT_SCHEDULER in REGISTRY
    assert DEFAULT_ENGINE in ENGINES and RUNTIME_ENGINE in ENGINES


def test_odrp_renders_its_own_figures_and_others_none() -> None:
    predicted = {"odrp": {"utility": 0.5, "response_ms": 12.0, "availability": 0.99, "cost": 3.0,
                          "inter_node_traffic": 10.0, "network_usage": 20.0, "elastic_energy": 30.0,
                          "z_unit": "bytes"}}
    rows = dict(scheduler_summary("odp", predicted))  # ODP is ODRP's class with its placement alone
    assert rows["ODRP utility F"] == 0.5
    assert rows["ODRP T (bytes/s)"] == 10.0
    assert len(rows) == 7
    assert scheduler_summary("odrp", {}) == []
    assert scheduler_summary("round-robin", predicted) == []
    assert scheduler_summary("a plan file's own scheduler", predicted) == []


def test_only_odrp_needs_parameters_to_be_compared() -> None:
    needing = {name for name in REGISTRY if REGISTRY[name].comparison_params}
    assert needing == {"odrp", "odp"}
    assert REGISTRY["odrp"].comparison_params["weights"] == {"r": 1.0}
