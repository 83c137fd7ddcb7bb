"""The package's layering, enforced: every import of a streamplace module (at module level, inside a function or
for types only) is an edge between two top-level parts that ALLOWED_EDGES lists, every listed edge is used and
points down the layers docs/architecture.md draws (its list of edges is written from ALLOWED_EDGES: run this file
to rewrite it), no module cycle, only spark/ imports PySpark, an import inside a function says why it is lazy, and
no module outgrows ~700 lines.

A new edge, an unused one or an unexplained lazy import fails here, naming the file and line.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "streamplace"
ARCHITECTURE = PACKAGE.parents[1] / "docs" / "architecture.md"

#: lowest first; every allowed edge points from a higher layer to a lower one. spark/ sits below the views
#: (report, page), which import nothing of it (test_only_the_workflows_call_spark): the runtime tells a listener of
#: its batches, decisions and end (spark/events.py) and the workflows subscribe the views to it. The
#: package's own ``__init__`` is the API's names, loaded on first use: above api; its version is ``_version``'s
LAYERS: list[set[str]] = [
    {"errors", "coerce", "ranges", "files", "_version"},
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
    {"__init__"},
    {"cli"},
    {"__main__"},
]
#: (importer, imported) between top-level parts: what the code imports (type-only imports included), each one
#: meant. Not "anything lower": a new edge is a decision, made here and in docs/architecture.md (written from
#: this set) together
ALLOWED_EDGES: set[tuple[str, str]] = {
    # the lowest layer imports nothing of the package
    ("params", "errors"),
    ("model", "errors"),
    ("perf", "errors"), ("perf", "coerce"), ("perf", "model"),
    # the loader builds the engine settings a cluster spec's engine block names
    ("spec", "errors"), ("spec", "model"), ("spec", "perf"),
    # netcoord: pure geometry, nothing of the package
    ("schedulers", "errors"), ("schedulers", "coerce"), ("schedulers", "ranges"), ("schedulers", "model"),
    ("schedulers", "perf"), ("schedulers", "netcoord"),  # latency-aware: network coordinates
    # live_policies.py: the live loop's policies re-plan through the schedulers
    ("elastic", "errors"), ("elastic", "coerce"), ("elastic", "model"), ("elastic", "perf"), ("elastic", "schedulers"),
    # decide.py: a lease's billing unit (elastic/billing.py)
    ("autoscaler", "errors"), ("autoscaler", "ranges"), ("autoscaler", "perf"), ("autoscaler", "elastic"),
    # microbatch.py simulates the autoscaler's decisions
    ("sim", "errors"), ("sim", "coerce"), ("sim", "ranges"), ("sim", "model"), ("sim", "perf"), ("sim", "elastic"),
    ("sim", "autoscaler"),
    # registry.py reads spec files by name; sweep.py and ecker_method.py plan the instances they generate
    ("bench", "errors"), ("bench", "model"), ("bench", "perf"), ("bench", "spec"), ("bench", "schedulers"),
    # calibration.py reads and writes its spec block; live.py runs the live policies; measure/sweep.py runs
    # bench/sweep.py's instances as Spark tasks
    ("spark", "errors"), ("spark", "model"), ("spark", "perf"), ("spark", "spec"), ("spark", "elastic"),
    ("spark", "bench"),
    # placement.py draws a plan with its evaluation; sweep.py reads bench/sweep.py's columns
    ("report", "_version"), ("report", "errors"), ("report", "model"), ("report", "perf"), ("report", "bench"),
    ("page", "_version"), ("page", "files"), ("page", "model"),
    # the use cases: everything below them that a use case calls, spark/ only from here
    ("workflows", "errors"), ("workflows", "files"), ("workflows", "params"), ("workflows", "model"),
    ("workflows", "perf"), ("workflows", "spec"), ("workflows", "schedulers"), ("workflows", "elastic"),
    ("workflows", "autoscaler"), ("workflows", "sim"), ("workflows", "bench"), ("workflows", "spark"),
    ("workflows", "report"), ("workflows", "page"),
    # the Python API: the use cases, and the autoscaler's Decision type
    ("api", "workflows"), ("api", "autoscaler"),
    ("__init__", "_version"), ("__init__", "api"),
    # the command line: CLI_MAY_IMPORT's parts (perf only for types: EngineSettings, Evaluation)
    ("cli", "errors"), ("cli", "files"), ("cli", "params"), ("cli", "model"), ("cli", "perf"), ("cli", "report"),
    ("cli", "page"), ("cli", "workflows"), ("cli", "__init__"),
    ("__main__", "cli"),
}
MAX_LINES = 700
#: module cycles that exist today: none (issue 40 removed the last ones in spark/, issue 54 the package __init__'s
#: with the API and spark/query/library's with logic.py); a new cycle fails
KNOWN_CYCLES: set[frozenset[str]] = set()


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.parts[-1] == "__init__" else rel.parts
    return ".".join(parts)


#: every module of the package, by dotted name
MODULES = {_module_of(p) for p in PACKAGE.rglob("*.py")}


def _part(module: str) -> str:
    """The top-level part of streamplace a dotted module name belongs to (the root package is ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _names(node: ast.AST) -> list[str]:
    """The streamplace modules an import statement imports: ``from streamplace.x import y`` imports module
    ``streamplace.x.y`` where that is one (``from streamplace import api``), else ``streamplace.x``."""
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                 for a in node.names]
    elif isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        return []
    return list(dict.fromkeys(n for n in names if n == "streamplace" or n.startswith("streamplace.")))


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, typing_too: bool = True) -> list[tuple[str, int]]:
    """The streamplace modules a file imports, with their lines (``typing_too=False``: those under ``if
    TYPE_CHECKING:`` left out, the imports that run)."""
    tree = _tree(path)
    typing_only: set[int] = set()
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                typing_only |= {id(n) for child in node.body for n in ast.walk(child)}
    return [(name, node.lineno) for node in ast.walk(tree) if id(node) not in typing_only for name in _names(node)]


def _layer(part: str) -> int:
    return next(k for k, layer in enumerate(LAYERS) if part in layer)


def _edge_problems(rel: Path, imports: list[tuple[str, int]]) -> list[str]:
    """The imports of the module at ``rel`` (in the package) that are no edge ALLOWED_EDGES lists."""
    own = rel.parts[0].removesuffix(".py")
    return [f"{rel}:{line}: {own} imports {module} (add ({own!r}, {_part(module)!r}) to ALLOWED_EDGES if the "
            f"architecture means it)" for module, line in imports
            if _part(module) != own and (own, _part(module)) not in ALLOWED_EDGES]


def _edges_used() -> set[tuple[str, str]]:
    return {(path.relative_to(PACKAGE).parts[0].removesuffix(".py"), _part(module))
            for path in PACKAGE.rglob("*.py") for module, _ in _imports(path)} - {(p, p) for p in set().union(*LAYERS)}


def test_every_import_is_an_allowed_edge() -> None:
    problems = [problem for path in sorted(PACKAGE.rglob("*.py"))
                for problem in _edge_problems(path.relative_to(PACKAGE), _imports(path))]
    assert not problems, "\n".join(problems)


def test_every_allowed_edge_is_used() -> None:
    """The list stays what the code does: an edge no import uses any more is taken off (and off the docs)."""
    unused = sorted(ALLOWED_EDGES - _edges_used())
    assert not unused, f"no import uses these edges any more: take them off ALLOWED_EDGES {unused}"


def test_every_allowed_edge_points_down_the_layers() -> None:
    wrong = sorted((a, b) for a, b in ALLOWED_EDGES if _layer(a) <= _layer(b))
    assert not wrong, f"these edges do not point down LAYERS: {wrong}"


@pytest.mark.parametrize("module", ["streamplace.page.live_run", "streamplace.page.series",
                                    "streamplace.report.placement", "streamplace.workflows.feeds"])
def test_the_runtime_importing_a_view_fails_the_layers(module: str) -> None:
    """The runtime feeds the live page and the terminal through events (issue 54, item 4): an import of the page,
    the report or their feed from spark/ — as spark/runtime/watch.py imported RunPage and plan_svg — fails."""
    for rel in (Path("spark/runtime/watch.py"), Path("spark/runtime/run.py"), Path("spark/measure/check.py")):
        assert [p.split(" (")[0] for p in _edge_problems(rel, [(module, 17)])] == [f"{rel}:17: spark imports {module}"]
    assert _edge_problems(Path("workflows/run.py"), [(module, 3)]) == []  # where the views are subscribed


def test_from_the_package_import_a_module_is_that_module() -> None:
    """``from streamplace import api`` (the package's __init__ loading the API) is an edge to api, not to the
    package itself."""
    tree = ast.parse("from streamplace import api\nfrom streamplace.bench import continuum, list_builtins\n")
    assert [_names(node) for node in tree.body] == [["streamplace.api"],
                                                    ["streamplace.bench.continuum", "streamplace.bench"]]


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or
             (p.is_dir() and (p / "__init__.py").exists())}
    placed = set().union(*LAYERS)
    assert parts <= placed, f"give {sorted(parts - placed)} a layer in LAYERS (and docs/architecture.md)"


def test_no_module_outgrows_its_limit() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


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
    cycles = [frozenset(c) for c in nx.simple_cycles(graph)]  # a package's __init__ is no exception
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not new, new
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in cycles]
    assert not gone, f"these cycles are gone: take them off KNOWN_CYCLES {gone}"


#: spark/'s own parts and what each may import of the others: the query builder (query/) and the listener
#: interface (events.py) import nothing of spark/; the executors' daemons use the query builder; the drivers
#: (runtime/) build the query and tell the listeners (the daemon module they configure Spark with is a name, not an
#: import); the cluster manager starts daemons and connects sessions; the measurements use the query builder and
#: the drivers; the autoscaler's edges stand alone. The
#: faces (FACES) load what they name on first use (_face.py). Written out, not "anything lower": a new edge here is
#: a decision as ALLOWED_EDGES' are
SPARK_EDGES: dict[str, set[str]] = {
    "_face": set(), "events": set(), "query": set(),
    "daemons": {"query"},
    "runtime": {"query", "events"},
    "cluster": {"_face", "query", "daemons", "runtime"},
    "measure": {"_face", "query", "runtime"},
    "autoscale": {"_face"},
    "enact": {"_face", "query", "runtime"},
    "live": {"_face", "query", "runtime"},
}
#: what the workflows may import of spark/: one face per job — enact a plan, run a live loop, the events a run
#: tells, manage a cluster, measure, the autoscaler's edges
FACES = {"streamplace.spark.enact", "streamplace.spark.live", "streamplace.spark.events", "streamplace.spark.cluster",
         "streamplace.spark.measure", "streamplace.spark.autoscale"}


def _spark_part(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["streamplace", "spark"] and len(parts) > 2 else None


def test_spark_parts_import_what_their_edges_allow() -> None:
    root = PACKAGE / "spark"
    problems = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        own = rel.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        assert own in SPARK_EDGES, f"give spark/{rel.parts[0]} its edges in SPARK_EDGES"
        for module, line in _imports(path):
            part = _spark_part(module)
            if part is not None and part != own and part not in SPARK_EDGES[own]:
                problems.append(f"spark/{rel}:{line}: {own} imports {module} (not in SPARK_EDGES[{own!r}])")
    assert not problems, "\n".join(problems)


def test_every_spark_edge_is_used() -> None:
    root = PACKAGE / "spark"
    used = {(path.relative_to(root).parts[0].removesuffix(".py"), _spark_part(module))
            for path in root.rglob("*.py") for module, _ in _imports(path)}
    unused = sorted((a, b) for a, bs in SPARK_EDGES.items() for b in bs if (a, b) not in used)
    assert not unused, f"no import uses these edges of spark/ any more: take them off SPARK_EDGES {unused}"


def test_the_workflows_reach_spark_through_its_faces() -> None:
    """workflows/ imports of spark/ only what FACES list (issue 54, item 1): not the query builder, the drivers,
    the daemons or a cluster module itself."""
    problems = [f"workflows/{path.name}:{line}: imports {module} (use one of {sorted(FACES)})"
                for path in sorted((PACKAGE / "workflows").glob("*.py")) for module, line in _imports(path)
                if _part(module) == "spark" and module not in FACES and module != "streamplace.spark"]
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
    """Outside spark/ itself, only streamplace.workflows runs pipelines or manages clusters: the one edge into
    spark/ (test_every_import_is_an_allowed_edge holds the code to it)."""
    assert {a for a, b in ALLOWED_EDGES if b == "spark"} == {"workflows"}


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
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            problems += [f"{rel}:{node.lineno}: imports {n}" for n in names if n.split(".")[0] in SPARK_ONLY]
    assert not problems, "\n".join(problems)


#: why an import of a streamplace module may sit inside a function (its ``# lazy:`` comment starts with one): a
#: heavy or optional dependency the importing module must not load for every caller (PySpark and pyarrow are the
#: ``spark`` extra), or what `streamplace --help`, `streamplace plan …` or ``import streamplace`` would load more
#: of. An import cycle is no reason: test_no_module_imports_itself_back counts the imports inside functions too
LAZY_REASONS = ("PySpark", "pyarrow", "matplotlib", "networkx", "pandas", "numpy", "command-line start",
                "import streamplace")
LAZY = re.compile(r"#\s*lazy:\s*(.*)")


def _lazy_imports(path: Path) -> list[tuple[int, str | None]]:
    """Each import of a streamplace module inside a function: (line, the reason its ``# lazy:`` comment gives, or
    None). The comment is on the import's own line(s) or on the line above the run of imports it starts."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []

    def said(first: int, last: int) -> str | None:
        for text in lines[first - 1:last]:
            if found := LAZY.search(text):
                return found.group(1).strip()
        return None

    def visit(body: list[ast.stmt], in_function: bool) -> None:
        run_start: ast.stmt | None = None  # the first of the run of imports on consecutive lines stmt is in
        previous_end = 0
        for stmt in body:
            is_import = isinstance(stmt, ast.Import | ast.ImportFrom)
            run_start = (run_start if stmt.lineno == previous_end + 1 else None) or stmt if is_import else None
            previous_end = stmt.end_lineno or stmt.lineno
            if is_import and in_function and _names(stmt):
                assert run_start is not None
                reason = said(stmt.lineno, stmt.end_lineno or stmt.lineno)
                above = lines[run_start.lineno - 2].strip() if run_start.lineno > 1 else ""
                if reason is None and above.startswith("#"):
                    reason = said(run_start.lineno - 1, run_start.lineno - 1)
                out.append((stmt.lineno, reason))
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner, in_function or isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef))
            for handler in getattr(stmt, "handlers", []):
                visit(handler.body, in_function)

    visit(_tree(path).body, False)
    return out


def lazy_imports() -> dict[str, list[str]]:
    """Every lazy import of a streamplace module, by reason: ``python tests/test_layers.py --lazy`` prints them."""
    by_reason: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, reason in _lazy_imports(path):
            key = next((r for r in LAZY_REASONS if reason and reason.startswith(r)), "(none)")
            by_reason.setdefault(key, []).append(f"{path.relative_to(PACKAGE)}:{line}: {reason}")
    return by_reason


def test_every_lazy_import_says_why() -> None:
    """An import of a streamplace module sits at its module's top unless it must not: then its line, or the line
    above its run of imports, says ``# lazy: <reason>`` with one of LAZY_REASONS (``# lazy: PySpark``, ``# lazy:
    command-line start``, …), and the list of them is one command away (lazy_imports)."""
    unsaid = {k: v for k, v in lazy_imports().items() if k == "(none)"}
    assert not unsaid, "\n".join(unsaid["(none)"]) + f"\n(say '# lazy: ' and one of {LAZY_REASONS}, or move it up)"


@pytest.mark.parametrize(("source", "reasons"), [
    ("def f():\n    from streamplace.model import plan\n", [None]),
    ("def f():\n    from streamplace.model import plan  # lazy: PySpark\n", ["PySpark"]),
    ("def f():\n    # lazy: matplotlib, only where drawn\n    import numpy\n    from streamplace.report import plots\n"
     "    from streamplace.report import html\n\n    from streamplace.page import render\n",
     ["matplotlib, only where drawn"] * 2 + [None]),
    ("from streamplace.model import plan\nif True:\n    import streamplace.perf\n", []),
    ("class A:\n    def f(self):\n        try:\n            import streamplace.perf\n        except ImportError:\n"
     "            import streamplace.model  # lazy: command-line start\n", [None, "command-line start"]),
])
def test_a_lazy_import_is_found_with_its_reason(tmp_path: Path, source: str, reasons: list[str | None]) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert [reason for _, reason in _lazy_imports(path)] == reasons


#: the block of docs/architecture.md that edges_block() writes
DOCS_BEGIN = "<!-- edges: begin (ALLOWED_EDGES of tests/test_layers.py; `python tests/test_layers.py` rewrites it) -->"
DOCS_END = "<!-- edges: end -->"


def edges_block() -> str:
    """ALLOWED_EDGES as docs/architecture.md shows them: each part, lowest layer first, and the parts it imports."""
    width = max(len(part) for layer in LAYERS for part in layer)
    rows = [f"{'part':<{width}}  imports", f"{'-' * width}  -------"]
    for layer in LAYERS:
        for part in sorted(layer):
            targets = sorted((b for a, b in ALLOWED_EDGES if a == part), key=lambda b: (_layer(b), b))
            rows.append(f"{part:<{width}}  {' '.join(targets) or '(nothing of the package)'}".rstrip())
    return "\n".join([DOCS_BEGIN, "```text", *rows, "```", DOCS_END])


def _docs_block(text: str) -> str:
    start, end = text.find(DOCS_BEGIN), text.find(DOCS_END)
    assert 0 <= start < end, f"docs/architecture.md has no block between {DOCS_BEGIN!r} and {DOCS_END!r}"
    return text[start:end + len(DOCS_END)]


def write_docs() -> None:
    """Rewrite the block of docs/architecture.md from ALLOWED_EDGES (``python tests/test_layers.py``)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    ARCHITECTURE.write_text(text.replace(_docs_block(text), edges_block()), encoding="utf-8")


def test_the_architecture_page_draws_the_allowed_edges() -> None:
    """docs/architecture.md's list of edges is ALLOWED_EDGES, written out: `python tests/test_layers.py`
    rewrites it after a change to the list."""
    assert _docs_block(ARCHITECTURE.read_text(encoding="utf-8")) == edges_block(), \
        "docs/architecture.md's edges differ from ALLOWED_EDGES: run `python tests/test_layers.py`"


if __name__ == "__main__":  # python tests/test_layers.py [--lazy]
    if "--lazy" in sys.argv:
        for why, where in sorted(lazy_imports().items()):
            print(f"{why} ({len(where)}):", *where, sep="\n  ")
    else:
        write_docs()
