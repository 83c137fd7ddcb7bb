"""The package's layering, enforced: every import of a streamplace module (at module level or inside a function)
points down the layers docs/architecture.md draws, and no module outgrows ~700 lines.

A new upward or sideways import fails here, naming the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "streamplace"

#: lowest first; a module may import from its own layer's package or any lower layer. spark/ sits below the views
#: (report, page), which import nothing of it (test_only_the_workflows_call_spark): the runtime tells a listener of
#: its batches, decisions and end (spark/runtime/events.py) and the workflows subscribe the views to it
LAYERS: list[set[str]] = [
    {"errors", "coerce", "ranges", "files", "__init__"},
    {"params"},
    {"model"},
    {"perf"},
    {"spec"},
    {"netcoord"},
    {"schedulers"},
    {"elastic"},
    {"autoscaler"},
    {"sim"},
    {"bench"},
    {"spark"},
    {"report"},
    {"page"},
    {"workflows"},
    {"api"},
    {"cli"},
    {"__main__"},
]
#: imports between packages of one layer that exist today; none are left, and no others are allowed
KNOWN_SIDEWAYS: set[tuple[str, str]] = set()
MAX_LINES = 700
#: module cycles that exist today (none: issue 40 removed the last ones, in spark/); a new cycle fails
KNOWN_CYCLES: set[frozenset[str]] = set()


def _part(module: str) -> str:
    """The top-level part of streamplace a dotted module name belongs to (the root package is ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, typing_too: bool = True) -> list[tuple[str, int]]:
    """The streamplace modules a file imports, with their lines (``typing_too=False``: those under ``if
    TYPE_CHECKING:`` left out, the imports that run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                typing_only |= {id(n) for child in node.body for n in ast.walk(child)}
    out = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [(n, node.lineno) for n in names if n == "streamplace" or n.startswith("streamplace.")]
    return out


def _layer(part: str) -> int:
    return next(k for k, layer in enumerate(LAYERS) if part in layer)


def _layer_problems(rel: Path, imports: list[tuple[str, int]]) -> list[str]:
    """The imports of the module at ``rel`` (in the package) that do not point down the layers."""
    own = rel.parts[0].removesuffix(".py")
    problems = []
    for module, line in imports:
        target = _part(module)
        if target == own or (own, target) in KNOWN_SIDEWAYS:
            continue
        if _layer(target) >= _layer(own):
            problems.append(f"{rel}:{line}: {own} imports {module} ({target} is not below {own})")
    return problems


def test_every_import_points_down_the_layers() -> None:
    problems = [problem for path in sorted(PACKAGE.rglob("*.py"))
                for problem in _layer_problems(path.relative_to(PACKAGE), _imports(path))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module", ["streamplace.page.live_run", "streamplace.page.series",
                                    "streamplace.report.placement", "streamplace.workflows.feeds"])
def test_the_runtime_importing_a_view_fails_the_layers(module: str) -> None:
    """The runtime feeds the live page and the terminal through events (issue 54, item 4): an import of the page,
    the report or their feed from spark/ — as spark/runtime/watch.py imported RunPage and plan_svg — fails."""
    for rel in (Path("spark/runtime/watch.py"), Path("spark/runtime/run.py"), Path("spark/measure/check.py")):
        assert _layer_problems(rel, [(module, 17)]) == [
            f"{rel}:17: spark imports {module} ({_part(module)} is not below spark)"]
    assert _layer_problems(Path("workflows/run.py"), [(module, 3)]) == []  # where the views are subscribed


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or
             (p.is_dir() and (p / "__init__.py").exists())}
    placed = set().union(*LAYERS)
    assert parts <= placed, f"give {sorted(parts - placed)} a layer in LAYERS (and docs/architecture.md)"


def test_no_module_outgrows_its_limit() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
    return ".".join(parts)


def test_no_module_imports_itself_back() -> None:
    """No cycle among the modules (a lazy import inside a function counts): each one can be read, tested and
    moved with what it imports, never with what imports it."""
    import networkx as nx

    modules = {_module_of(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    for name, path in modules.items():
        for target, _ in _imports(path):
            # `from streamplace.x import y` may name a module y or a name in x: the module where it exists
            if target in modules and target != name:
                graph.add_edge(name, target)
    package_inits = {m for m, p in modules.items() if p.name == "__init__.py"}
    # a package's __init__ re-exporting its modules is the one allowed loop (the module imports the package)
    cycles = [frozenset(c) for c in nx.simple_cycles(graph) if not set(c) & package_inits]
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not new, new
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert not gone, f"these cycles are gone: take them off KNOWN_CYCLES {gone}"


#: spark/'s own parts, lowest first: the runtime knows nothing of the cluster manager, the measurements use both;
#: the autoscaler's edges may use all three
SPARK_PARTS = ["runtime", "cluster", "measure", "autoscale"]


def test_spark_parts_point_down() -> None:
    problems = []
    root = PACKAGE / "spark"
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if len(rel.parts) < 2:
            continue
        own = SPARK_PARTS.index(rel.parts[0])
        for module, line in _imports(path):
            parts = module.split(".")
            if parts[:2] == ["streamplace", "spark"] and len(parts) > 2 and parts[2] in SPARK_PARTS \
                    and SPARK_PARTS.index(parts[2]) > own:
                problems.append(f"spark/{rel}:{line}: {rel.parts[0]} imports {module}")
    assert not problems, "\n".join(problems)


#: what the command line may import: the use cases, rendering (report, the live page), the model's types and
#: the lowest layer; everything else it reaches through streamplace.workflows (type-only imports aside)
CLI_MAY_IMPORT = {"cli", "workflows", "report", "page", "model", "errors", "files", "params", "coerce", "ranges",
                  "__init__"}


def test_the_command_line_calls_the_workflows() -> None:
    """cli/ parses text, calls one workflow and renders: it reaches no scheduler, engine, spec loader, simulator
    or Spark module itself."""
    problems = [f"cli/{path.name}:{line}: imports {module}"
                for path in sorted((PACKAGE / "cli").glob("*.py"))
                for module, line in _imports(path, typing_too=False) if _part(module) not in CLI_MAY_IMPORT]
    assert not problems, "\n".join(problems)


def test_only_the_workflows_call_spark() -> None:
    """Outside spark/ itself, only streamplace.workflows runs pipelines or manages clusters."""
    problems = [f"{path.relative_to(PACKAGE)}:{line}: imports {module}"
                for path in sorted(PACKAGE.rglob("*.py"))
                if path.relative_to(PACKAGE).parts[0] not in ("spark", "workflows")
                for module, line in _imports(path, typing_too=False) if _part(module) == "spark"]
    assert not problems, "\n".join(problems)


#: PySpark and its JVM bridge: the optional ``spark`` extra, which planning, comparing and simulating do without
SPARK_ONLY = ("pyspark", "py4j")


def test_only_spark_imports_pyspark() -> None:
    """No module outside spark/ imports PySpark: not at module level, not inside a function, not even for types
    under ``if TYPE_CHECKING:`` (a signature that names a PySpark type belongs in spark/ too). What needs a
    session calls a function of spark/ (e.g. spark/runtime/session.py's stop_active_session)."""
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "spark":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            problems += [f"{rel}:{node.lineno}: imports {n}" for n in names if n.split(".")[0] in SPARK_ONLY]
    assert not problems, "\n".join(problems)
