"""The shown outputs of README.md and the docs pages, checked against what the commands print, and their
commands against the CLI.

Every page is checked the same way: README.md and each ``docs/*.md`` (``pages()``). An example is an HTML
comment naming a command, right before the fenced block that shows its output::

    <!-- output: streamplace compare --engine ideal linear-cpu rstorm-12 -s ffd -->
    ```
    ...what it prints...
    ```

The block must equal the output line by line (trailing blanks ignored, durations such as ``ok in 0.7 ms``
masked); a line holding only ``…`` stands for any number of output lines. Commands run in-process
through typer's runner, in a scratch directory holding the repository's ``examples/`` (so files they
write stay there; a fresh one per page), with ``STREAMPLACE_HOME`` empty: the spark engine uses its
built-in constants, not this machine's calibration. An output example must not start Spark (``run``,
``live``, ``demo``, ``profile``, ``calibrate``, ``cluster``, ``sweep``): one that names such a command is a
problem, never run.

A Python block right after ``<!-- example: python -->`` is run (a page's blocks in order, in one namespace
per page) and must not raise. Every other ``streamplace …`` command in a page's ``bash`` blocks is parsed by
the CLI without running it, so an option or argument that no longer fits is caught; inline mentions (the
CLI reference's synopses, ``[--opt X]``, and fragments in the prose) must name only options their command
has; a relative link to a file (``[text](docs/cli.md#anchor)``, not an image) must name one that exists.

    python scripts/readme_examples.py                      # check every page; exit 1 naming each mismatch
    python scripts/readme_examples.py --update             # rewrite the blocks without … from the commands
    python scripts/readme_examples.py docs/cli.md [--update]   # only these pages
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
EXAMPLE = re.compile(r"<!-- output: (streamplace [^>]*?) -->\n```[a-z]*\n(.*?)```", re.S)
PYTHON = re.compile(r"<!-- example: python -->\n```python\n(.*?)```", re.S)
#: what varies from run to run: planning and solver times
MASKS = [(re.compile(r"\b(ok|timeout|infeasible) in [0-9.,]+ (ms|s)\b"), r"\1 in … \2"),
         (re.compile(r"in [0-9.]+ s on the"), "in … s on the")]
ANY = "…"
#: placeholders the pages use in commands, and what stands in for them when parsing
PLACEHOLDERS = {"TOPO": "linear", "CLUSTER": "rstorm-12", "PORT": "7077", "spark://…": "spark://127.0.0.1:7077",
                "COMMAND": "schedulers"}
#: commands that start Spark (or a cluster): never run for an output example
SPARK_COMMANDS = ("run", "live", "demo", "profile", "calibrate", "cluster", "sweep")
#: a Markdown link (not an image): its target
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    """The pages checked: README.md, then every docs/*.md page."""
    return [README, *sorted(DOCS.glob("*.md"))]


@dataclass(frozen=True)
class Example:
    command: str
    shown: str  # the block's text
    start: int  # offsets of the block's text in the page
    end: int


def examples(text: str) -> list[Example]:
    return [Example(m.group(1), m.group(2), m.start(2), m.end(2)) for m in EXAMPLE.finditer(text)]


def normalize(line: str) -> str:
    line = line.rstrip()
    for pattern, repl in MASKS:
        line = pattern.sub(repl, line)
    return line


def matches(shown: str, printed: str) -> bool:
    """Whether the shown lines are the printed ones, a line of ``…`` standing for any run of lines."""
    want = [normalize(x) for x in shown.rstrip("\n").splitlines()]
    got = [normalize(x) for x in printed.rstrip("\n").splitlines()]

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == ANY:
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and want[i] == got[j] and match(i + 1, j + 1)

    return match(0, 0)


@contextmanager
def scratch() -> Iterator[Path]:
    """A scratch working directory with the repository's examples and an empty STREAMPLACE_HOME."""
    old_cwd, old_home = Path.cwd(), os.environ.get("STREAMPLACE_HOME")
    with tempfile.TemporaryDirectory(prefix="readme-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "examples", work / "examples")
        (work / "home").mkdir()
        os.environ["STREAMPLACE_HOME"] = str(work / "home")
        os.chdir(work)
        try:
            yield work
        finally:
            os.chdir(old_cwd)
            if old_home is None:
                os.environ.pop("STREAMPLACE_HOME", None)
            else:
                os.environ["STREAMPLACE_HOME"] = old_home


def run(command: str) -> tuple[int, str]:
    """Exit code and stdout (then stderr) of a ``streamplace …`` command, run in-process."""
    from streamplace.cli import app

    result = CliRunner().invoke(app, shlex.split(command)[1:])
    return result.exit_code, result.stdout + result.stderr


def shown_commands(text: str) -> list[str]:
    """Every ``streamplace …`` command line in a page's bash blocks (run as shown, or parsed)."""
    found = []
    for block in re.finditer(r"```bash\n(.*?)```", text, re.S):
        for line in block.group(1).replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("streamplace "):
                found.append(line)
    return found


def mentions(text: str) -> list[str]:
    """Every ``streamplace …`` in inline code: synopses of the CLI reference and commands in the prose."""
    return [s.group(1).replace("\\|", "|") for s in re.finditer(r"`(streamplace [^`]+)`", text)]


def _resolve(words: list[str]) -> tuple[Any, list[str], str]:
    """The click command a command line names, the words left for it, and its path."""
    from streamplace.cli import app

    cmd: Any = typer.main.get_command(app)  # typer's own (vendored) click objects
    path = "streamplace"
    words = list(words)
    while words and words[0].startswith("-") and words[0] in ("-v", "-q", "--verbose", "--quiet"):
        words.pop(0)
    while hasattr(cmd, "commands") and words and words[0] in cmd.commands:
        path += " " + words[0]
        cmd = cmd.commands[words.pop(0)]
    return cmd, words, path


def parse_problem(command: str) -> str | None:
    """Why the CLI would refuse to parse ``command`` (no run), or None."""
    for key, value in PLACEHOLDERS.items():
        command = command.replace(key, value)
    words = [w for w in shlex.split(command)[1:] if w != "…"]
    if words in (["--version"], ["--help"]):
        return None
    cmd, rest, path = _resolve(words)
    if hasattr(cmd, "commands"):
        return f"{command!r}: {path} needs a subcommand"
    try:
        with cmd.make_context(path, rest, resilient_parsing=False):
            pass
    except Exception as exc:  # click's UsageError / BadParameter (typer vendors click: no stable import)
        if not hasattr(exc, "format_message"):
            raise
        return f"{command!r}: {exc.format_message()}"
    return None


def option_problem(mention: str) -> str | None:
    """Options an inline mention (a synopsis ``[--opt X]`` or a fragment) names that its command lacks."""
    words = [w.strip("[]") for w in mention.split()[1:]]
    words = [x for w in words for x in w.split("|") if x]
    cmd, rest, path = _resolve([w for w in words if not w.startswith("-")])
    if hasattr(cmd, "commands") and rest:  # e.g. "cluster up|down|status": the first one's options
        path += " " + rest[0]
        cmd = cmd.commands.get(rest[0], cmd)
    if hasattr(cmd, "commands"):
        return None
    names = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)} | {"--help"}
    named = {w.split("=")[0] for w in words if re.fullmatch(r"-{1,2}[A-Za-z][\w-]*(=.*)?", w)}
    missing = sorted(named - names)
    return f"{mention!r}: {path} has no {', '.join(missing)}" if missing else None


def spark_problem(command: str) -> str | None:
    """Why an output example's command may not be run (it starts Spark), or None."""
    words = [w for w in shlex.split(command)[1:] if w not in ("-v", "-q", "--verbose", "--quiet")]
    if words and words[0] in SPARK_COMMANDS:
        return f"{command!r}: an output example must not start Spark ({words[0]}); show it in a bash block instead"
    return None


def link_problems(text: str, base: Path) -> list[str]:
    """Relative links (not images) whose file does not exist, resolved from the page's folder ``base``."""
    problems = []
    for target in LINK.findall(text):
        path = target.split("#")[0]
        if not path or re.match(r"[a-z][a-z0-9+.-]*:", path):  # an anchor on the page, or a URL
            continue
        if not (base / path).exists():
            problems.append(f"link to {target!r}: {path} does not exist")
    return problems


def python_problems(text: str, name: str = "README.md") -> list[str]:
    """Run a page's marked Python examples in order, in one namespace (a later one may use an earlier one's
    names), printing to nowhere; what each raised, if anything."""
    import contextlib
    import io
    import traceback

    namespace: dict[str, Any] = {"__name__": "readme"}
    problems = []
    for k, block in enumerate(PYTHON.findall(text)):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(block, f"{name} python example {k + 1}", "exec"), namespace)
        except Exception:  # what the example raised is the finding
            problems.append(f"python example {k + 1} raised:\n{traceback.format_exc(limit=3)}\n{block}")
    return problems


def check(text: str, name: str = "README.md", base: Path = ROOT) -> list[str]:
    """What is wrong with one page's text (``name`` and its folder ``base`` for the messages and its links)."""
    problems = [p for c in shown_commands(text) if (p := parse_problem(c))]
    problems += [p for m in mentions(text) if (p := option_problem(m))]
    problems += link_problems(text, base)
    with scratch():
        for ex in examples(text):
            if p := spark_problem(ex.command):
                problems.append(p)
                continue
            code, printed = run(ex.command)
            if not matches(ex.shown, printed):
                problems.append(f"{ex.command!r} (exit {code}) printed:\n{printed}\n{name} shows:\n{ex.shown}")
        problems += python_problems(text, name)
    return problems


def check_page(page: Path) -> list[str]:
    """``check`` of one page file, each problem prefixed with the page's path."""
    name = page.relative_to(ROOT).as_posix()
    return [f"{name}: {p}" for p in check(page.read_text(encoding="utf-8"), name, page.parent)]


def update(text: str) -> str:
    """The page with every example block (without …) replaced by what its command prints now."""
    out, last = [], 0
    with scratch():
        for ex in examples(text):
            if ANY in [x.strip() for x in ex.shown.splitlines()] or spark_problem(ex.command):
                continue
            _, printed = run(ex.command)
            out += [text[last:ex.start], "\n".join(x.rstrip() for x in printed.rstrip("\n").splitlines()) + "\n"]
            last = ex.end
    return "".join(out) + text[last:]


def counts(text: str) -> tuple[int, int, int, int]:
    """Output examples, Python examples, shown commands and inline mentions of a page."""
    return len(examples(text)), len(PYTHON.findall(text)), len(shown_commands(text)), len(mentions(text))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    chosen = [(Path.cwd() / a).resolve() for a in args if not a.startswith("--")] or pages()
    total, problems = [0, 0, 0, 0], []
    for page in chosen:
        if "--update" in args:
            text = page.read_text(encoding="utf-8")
            new = update(text)
            if new != text:
                page.write_text(new, encoding="utf-8")
        found = check_page(page)
        problems += found
        n = counts(page.read_text(encoding="utf-8"))
        total = [a + b for a, b in zip(total, n, strict=True)]
        print(f"{page.relative_to(ROOT).as_posix()}: {n[0]} outputs, {n[1]} Python examples, {n[2]} commands, "
              f"{n[3]} mentions; {len(found)} problem(s)")
    for p in problems:
        print(p, end="\n\n")
    print(f"{len(chosen)} pages: {total[0]} outputs, {total[1]} Python examples, {total[2]} commands and {total[3]} "
          f"mentions checked; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
