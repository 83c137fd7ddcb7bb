"""The README shows what the commands print, and only commands and options the CLI has.

The checks live in scripts/readme_examples.py (which also rewrites the shown outputs with --update);
here they run as a test, and the checker itself is checked on made-up READMEs so that a pass means
something.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _checker() -> ModuleType:
    name = "readme_examples"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "readme_examples.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_readme_outputs_and_commands_are_current() -> None:
    rx = _checker()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(rx.examples(text)) >= 5 and len(rx.shown_commands(text)) >= 15 and len(rx.PYTHON.findall(text)) >= 2
    problems = rx.check(text)
    assert not problems, "\n\n".join(problems) + "\n\n(python scripts/readme_examples.py --update rewrites outputs)"


def test_checker_catches_stale_output_options_and_commands() -> None:
    rx = _checker()
    stale = ("<!-- output: streamplace plan --engine ideal nasiri-linear hetero-3 -s ffd -->\n```\n"
             "ffd on nasiri-linear × hetero-3: ok in 1 ms\n  source rates: spout 999 t/s\n…\n```\n")
    fresh = stale.replace("  source rates: spout 999 t/s\n", "")
    assert any("printed" in p for p in rx.check(stale))
    assert rx.check(fresh) == []
    assert rx.check("`streamplace compare TOPO CLUSTER [--no-such-option X]`")
    assert rx.check("```bash\nstreamplace plan linear rstorm-12 --scheduler\n```\n")  # option without its value
    assert rx.check("```bash\nstreamplace planx linear rstorm-12\n```\n")
    assert rx.matches("a\n…\nd\n", "a\nb\nc\nd\n") and not rx.matches("a\nd\n", "a\nb\nd\n")
    two = "<!-- example: python -->\n```python\nx = 1\n```\n<!-- example: python -->\n```python\nassert x == {}\n```\n"
    assert rx.check(two.format(1)) == [] and "AssertionError" in rx.check(two.format(2))[0]


def test_docs_build_strict(tmp_path: Path) -> None:
    """`make docs`: the site (guide, API reference from the docstrings, architecture) builds without a warning."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("load_topology", "evaluate", "compare", "zero_reasons", "StreamplaceError"):
        assert name in page
