"""The README and the docs pages show what the commands print, and only commands and options the CLI has.

The checks live in scripts/readme_examples.py (which also rewrites the shown outputs with --update);
here they run as a test over README.md and every docs/*.md page, and the checker itself is checked on
made-up pages so that a pass means something.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _checker() -> ModuleType:
    return load_script(ROOT / "scripts" / "readme_examples.py")


def test_readme_and_docs_outputs_and_commands_are_current() -> None:
    """Every page the checker covers passes it, and the pages together still hold what the README held
    before its reference moved into docs/ (an example that moved is still checked where it now lives)."""
    rx = _checker()
    pages = rx.pages()
    assert pages[0] == ROOT / "README.md"
    assert set(pages[1:]) == set((ROOT / "docs").glob("*.md")) and len(pages) >= 10
    texts = [page.read_text(encoding="utf-8") for page in pages]
    outputs, pythons, commands, mentions = (sum(n) for n in zip(*map(rx.counts, texts), strict=True))
    assert outputs >= 7 and pythons >= 2 and commands >= 30 and mentions >= 45
    readme = rx.counts(texts[0])
    assert readme[0] >= 2 and readme[2] >= 5  # the front page's own worked example is checked too
    problems = [p for page in pages for p in rx.check_page(page)]
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
    assert "must not start Spark" in rx.check("<!-- output: streamplace run linear rstorm-12 -->\n```\nx\n```\n")[0]
    assert "no-such-page.md" in rx.check("see [the page](docs/no-such-page.md#top)")[0]
    assert rx.check("[CLI](docs/cli.md#commands), ![picture](docs/img/none.png), [web](https://example.org)") == []


def test_docs_build_strict(tmp_path: Path) -> None:
    """`make docs`: the site (guide, API reference from the docstrings, architecture) builds without a warning."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("load_topology", "evaluate", "compare", "zero_reasons", "StreamplaceError"):
        assert name in page
