"""What every command of the ``streamplace`` command line shares: the typer apps (``app`` and its ``bench`` and
``cluster`` groups) and the root options, the consoles and -q, the error handling (``friendly``), whole-file
writes, the option types and the parsing that several commands do.

The command modules (``cli/planning.py``, ``cli/run.py``, …) register their commands on these apps when
``cli/__init__.py`` imports them; this module imports none of them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from streamplace import __version__
from streamplace.cli._typer import QuickGroup
from streamplace.errors import ModelError, Problem, SpecError, StreamplaceError, named
from streamplace.model.cluster import Cluster
from streamplace.model.plan import json_text
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.params import parse_assignments
from streamplace.workflows.instance import engine_catalog
from streamplace.workflows.instance import load_instance as workflow_instance
from streamplace.workflows.session import open_session, spark_log

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

app = typer.Typer(
    name="streamplace",
    help="Replica counts and placement for stream-processing topologies on heterogeneous clusters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=QuickGroup,
)


def _print_version(value: bool) -> None:
    if value:
        print(f"streamplace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show Spark's log on the terminal too (INFO "
                                          "and above); it always goes to the log file whose path is printed")]
    = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="print only results and errors: no warnings, "
                                        "progress bars or lines about files written")] = False,
    version: Annotated[bool, typer.Option("--version", help="print the version and exit", is_eager=True,
                                          callback=_print_version)] = False,
) -> None:
    """Replica counts and placement for stream-processing topologies on heterogeneous clusters."""
    global _quiet
    if verbose and quiet:
        raise typer.BadParameter("-q and -v contradict each other: give one of them", param_hint="--quiet")
    _quiet = quiet
    if verbose:
        os.environ["STREAMPLACE_SPARK_LOG"] = "console"


bench_app = typer.Typer(help="Built-in benchmark topologies and clusters.", no_args_is_help=True, cls=QuickGroup)
app.add_typer(bench_app, name="bench")
cluster_app = typer.Typer(help="A Spark standalone cluster emulating a cluster spec on this machine.",
                          no_args_is_help=True, cls=QuickGroup)
app.add_typer(cluster_app, name="cluster")
StateOpt = Annotated[Path | None, typer.Option("--state-dir", help="where the cluster's pid files, secret and logs "
                                               "live (default: ~/.streamplace/clusters/NAME)")]

#: tables and wrapped text fit this many columns (a narrower terminal: its width); `compare --wide` is wider
WIDTH = 100


def _console(stderr: bool = False) -> Console:
    from rich.console import Console  # the command-line start: rich only where something is printed through it

    probe = Console(stderr=stderr)
    return Console(stderr=stderr, width=min(probe.width, WIDTH) if probe.is_terminal else WIDTH)


class _Console:
    """Standard output's (or error's) rich Console, made on first use: a command that prints no table or styled
    line (``plan --json``) does not import rich (issue 56: the command line's start). Every attribute is the
    Console's; ``rich`` is the Console itself (what rich's own classes take)."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._made: Console | None = None

    @property
    def rich(self) -> Console:
        if self._made is None:
            self._made = _console(self._stderr)
        return self._made

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich, name)


out = _Console(stderr=False)
err = _Console(stderr=True)
#: set by -q: only results and errors are printed (no warnings, notes on files written, progress bars)
_quiet = False


def warn(text: str) -> None:
    """A warning on stderr, unless -q."""
    if not _quiet:
        err.print(f"[yellow]warning:[/] {text}", highlight=False)


def info(text: str, stderr: bool = False) -> None:
    """A line about what was done (a file written, a log's path), unless -q."""
    if not _quiet:
        (err if stderr else out).print(text, highlight=False)


F = TypeVar("F", bound=Callable[..., Any])

TopoArg = Annotated[str, typer.Argument(help="topology spec (YAML/JSON, Storm Flux YAML) or built-in name")]
ClusterArg = Annotated[str, typer.Argument(help="cluster spec (YAML/JSON) or built-in name")]
ProfileOpt = Annotated[Path | None, typer.Option("--profile",
                                                 help="profile spec with measured costs, or a built-in profile")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]
CoresOpt = Annotated[int | None, typer.Option("--cores", min=1, help="local[N] (default: all cores)")]
PageOpt = Annotated[bool, typer.Option("--page/--no-page", help="serve a live page of the run on localhost "
                                       "(throughput, latency, backlog and CPU per node beside the prediction, "
                                       "the plan's picture, each re-plan; its URL is printed) and write it to the "
                                       "output directory when the run ends")]
PagePortOpt = Annotated[int, typer.Option("--page-port", min=0, max=65535, help="the live page's port on "
                                          "127.0.0.1 (0: any free port)")]
EngineParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help="engine parameter ENGINE.KEY=VALUE "
                                                       "(spark.trigger_s=2, storm.max_spout_pending=500, "
                                                       "ideal.replica_cap=thread; repeatable)")]
TriggerOpt = Annotated[float, typer.Option("--trigger", min=0.1, help="micro-batch interval (s)")]
RunTriggerOpt = Annotated[str, typer.Option("--trigger", help="micro-batch interval (s), or auto: the shortest whole "
                                            "seconds whose batches the engine model fits in 80 % of it")]


def parse_trigger(value: str) -> float | None:
    """Seconds of a --trigger value, or None for auto."""
    if value.strip().lower() == "auto":
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0.1 or seconds == float("inf"):
        raise ModelError([Problem("--trigger", f"expected seconds ≥ 0.1 or auto, got {value!r}",
                                  "write e.g. --trigger 2 or --trigger auto")])
    return seconds
ParamOpt = Annotated[list[str] | None, typer.Option("--param", "-p", help="scheduler parameter key=value "
                                                    "(repeatable; dotted keys for nested values; ENGINE.KEY — "
                                                    "spark., storm., ideal. — sets the engine model's)")]


def _engines_help() -> str:
    """``--engine``'s help: every registered engine with its one-line description."""
    named = [f"{name} ({description})" for name, description in engine_catalog()]
    return "whose predictions: " + (", ".join(named[:-1]) + " or " + named[-1] if len(named) > 1 else named[0])


EngineOpt = Annotated[str, typer.Option("--engine", help=_engines_help())]
PictureOpt = Annotated[Path | None, typer.Option("--picture", help="draw the plan on its cluster: nodes by rack "
                                                  "with utilization, replicas, traffic, the bottleneck (.svg or "
                                                  ".png)")]
CalibrationOpt = Annotated[Path | None, typer.Option("--calibration", help="Spark engine constants from "
                                                     "`streamplace calibrate` (default: ~/.streamplace/"
                                                     "calibration.json when it exists, else built-in defaults)")]


def progress_bar(description: str, counter: str, disable: bool) -> Progress:
    """The progress bar of long commands, on stderr: description, bar, counter, elapsed time."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn  # the command-line start

    return Progress(TextColumn(description), BarColumn(), TextColumn(counter), TimeElapsedColumn(),
                    console=err.rich, transient=True, disable=disable or _quiet)


def escape(text: str) -> str:
    """``text`` with rich's markup escaped (rich.markup.escape, imported when an error is printed)."""
    from rich.markup import escape as rich_escape  # the command-line start

    return rich_escape(text)


#: the library names a parameter by its field (``params.dt``, ``pattern``); the command line by its option
FLAGS = {"params": "--param", "minutes": "--minutes", "controller": "--controller", "pattern": "--pattern",
         "policy": "--policy", "engine": "--engine", "cpu_budget": "--cpu-budget", "host": "--host",
         "remote": "--remote", "master": "--master", "plot": "--plot", "out_dir": "--out",
         "schedulers": "--scheduler", "counts_from": "--counts-from", "trigger_s": "--trigger",
         "cluster": "CLUSTER", "include_secret": "--include-secret", "operators": "--operator",
         "sink": "--sink", "placement": "--placement", "max_rate": "--max-rate", "kill": "--kill", "rate": "--rate",
         "fault": "--fault",
         "state_dir": "--state-dir", "replica_slots": "--replica-slots", "custom_as_shuffle": "--custom-as-shuffle",
         "on": "--on"}


#: this command's own names where they differ from FLAGS (`sweep` has --schedulers where compare has --scheduler)
_COMMAND_FLAGS: dict[str, str] = {}


def command_flags(**names: str) -> None:
    """Name some fields by this command's own options (call at the command's start)."""
    _COMMAND_FLAGS.clear()
    _COMMAND_FLAGS.update(names)


def flag_of(path: str) -> str:
    """The option that sets the field ``path`` (``params.dt`` → ``--param dt``; unknown fields as they are)."""
    head, dot, rest = path.partition(".")
    if head == "params" and dot:
        return f"--param {rest}"
    return _COMMAND_FLAGS.get(path) or FLAGS.get(path, path)


def in_cli_terms(exc: StreamplaceError) -> StreamplaceError:
    """``exc`` with the problems about parameters named by the options that set them (``params.dt`` → ``--param
    dt``) and the parameters their texts name (``[[master]]``) written as options; problems found in a file keep
    the file's own field paths."""
    if not isinstance(exc, ModelError):
        return exc
    sourced = exc.source is not None
    renamed = [dataclasses.replace(p, path=p.path if sourced else flag_of(p.path),
                                   message=named(p.message, flag_of), fix=named(p.fix, flag_of))
               for p in exc.problems]
    if renamed == list(exc.problems):
        return exc
    kind = type(exc) if type(exc) in (ModelError, SpecError) else ModelError
    return kind(renamed, exc.source)


def friendly(fn: F) -> F:
    """Report streamplace errors as one clear message and exit code 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _COMMAND_FLAGS.clear()  # a command's own option names last for that command only
        given = sys.stdout
        sys.stdout = _NamedStdout(given)
        try:
            done = fn(*args, **kwargs)
            sys.stdout.flush()  # output to a full device fails here, said, and not at the interpreter's exit
            return done
        except StreamplaceError as exc:
            err.print(f"[bold red]error:[/] {escape(str(in_cli_terms(exc)))}", highlight=False, markup=True,
                      soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err.print(f"interrupted{_log_hint()}", highlight=False)
            raise typer.Exit(130) from None
        except ImportError as exc:  # an optional part this install lacks (pyproject's extras)
            missing = _missing_extra(exc)
            if missing is None:
                raise
            err.print("[bold red]error:[/] " + escape(
                f"this needs {missing}, which is not installed: planning, comparing and simulating need no Spark, "
                "running does (fix: pip install 'streamplace[spark]' — PySpark, pyarrow and a Java 17+ runtime; "
                "`make setup` installs everything)"), highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except OSError as exc:  # a path given on the command line, or standard output, that cannot be written
            if _from_spark(exc):
                raise
            err.print(f"[bold red]error:[/] {escape(_os_error(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except Exception as exc:
            if not _from_spark(exc):
                raise
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            err.print(f"[bold red]error:[/] Spark failed: {first}{_log_hint()}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        finally:
            sys.stdout = given

    return wrapper  # type: ignore[return-value]


#: what an OSError of writing standard output names as its file
STDOUT = "<stdout>"


class _NamedStdout:
    """Standard output whose write errors name it (a full device's error names no file otherwise); a command's
    tables and JSON go through it (rich's consoles write to whatever ``sys.stdout`` is)."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        return int(self._named(lambda: self._stream.write(text)))

    def flush(self) -> None:
        self._named(self._stream.flush)

    def _named(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except OSError as exc:
            if exc.filename is not None or exc.errno is None:
                raise
            with contextlib.suppress(Exception):  # what is still pending goes nowhere instead of failing again at
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())  # exit (code 120)
            raise OSError(exc.errno, exc.strerror or str(exc), STDOUT) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: errors of where a file goes rather than of its path: the device or the quota is full, the file system read-only
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG}


def _os_error(exc: OSError) -> str:
    """The one line an OSError of a command becomes: the file (or standard output), what failed and the fix. The
    files the commands write are written whole or not at all (files.replace_whole)."""
    why = exc.strerror or str(exc)
    if exc.filename == STDOUT:
        return (f"standard output: {why} (fix: send the output where there is room — another file or device, or "
                "--out FILE where the command has one)")
    room = exc.errno in _NO_ROOM
    fix = "free some space there, or write elsewhere; nothing was half-written" if room else \
        "give a path to a file that can be read, or written in an existing directory"
    return f"{exc.filename}: {why} (fix: {fix})" if exc.filename is not None else f"{why} (fix: {fix})"


def _from_spark(exc: BaseException) -> bool:
    """An error raised by PySpark or the JVM behind it (or a streaming query's failure streamplace re-raised)."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__module__.split(".")[0] in ("pyspark", "py4j") or "streaming query failed" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: the modules of the ``spark`` extra (pyproject.toml): a command that needs one says how to install it
SPARK_EXTRA = ("pyspark", "py4j", "pyarrow")


def _missing_extra(exc: ImportError) -> str | None:
    """The module of the ``spark`` extra whose absence ``exc`` reports (pandas says "Unable to find a usable
    engine; tried using: 'pyarrow'…" for parquet), or None for any other import error."""
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "") in SPARK_EXTRA:  # the package itself is absent
        return exc.name
    # pandas' words for "no parquet engine" (a pyarrow too old, or one that fails to load, is another matter)
    return "pyarrow" if "Unable to find a usable engine" in str(exc) and "pyarrow" in str(exc) else None


def _log_hint() -> str:
    try:
        path = spark_log()
    except ImportError:  # no PySpark here: no Spark log either
        return ""
    return f"; Spark's log: {path}" if path is not None else ""


def parse_params(items: list[str] | None) -> dict[str, str]:
    """``--param`` items as a mapping (streamplace.params: one grammar for every command)."""
    return parse_assignments(items)


def load_instance(topo: str, cluster: str, profile: Path | None) -> tuple[Topology, Cluster, Profile | None]:
    """The instance a command plans (workflows.instance.load_instance), its warnings printed."""
    inst = workflow_instance(topo, cluster, profile, on_warning=warn)
    return inst.topology, inst.cluster, inst.profile


def emit_json(data: Any) -> None:
    sys.stdout.write(json_text(data) + "\n")


def list_option(values: str | list[str] | None, option: str) -> list[str]:
    """The items of a list option: repeatable, and each value may be a comma list (``-s a,b -s c``)."""
    texts = [values] if isinstance(values, str) else values or []
    items = [x.strip() for text in texts for x in text.split(",") if x.strip()]
    if not items:
        raise ModelError([Problem(option, "empty list", f"write e.g. {option} a,b")])
    return items


def spark_session(master: str | None, state: Any, cores: int | None, log_to: Path | None = None) -> Any:
    """The process's SparkSession (workflows.session.open_session); Spark's log goes to ``log_to`` (default:
    ~/.streamplace/logs/…), whose path is printed — on the terminal, only what streamplace itself says (-v: Spark's
    INFO too)."""
    level = "info" if os.environ.get("STREAMPLACE_SPARK_LOG") == "console" else None
    spark = open_session(master, state, cores, log_to, level)
    info(f"[dim]Spark's log: {spark_log()}[/]", stderr=True)
    return spark


def main() -> None:
    """The command line. Standard output is named in its write errors for the whole invocation, and a success
    counts once its output is out: output that cannot be written (``> /dev/full``) is an error, exit 2, also where
    it is printed outside a command's :func:`friendly` (``--version``, ``--help``, typer's own messages)."""
    given = sys.stdout
    sys.stdout = _NamedStdout(given)
    code: Any = 0
    try:
        try:
            app()  # standalone: ends by SystemExit with the command's code
        except SystemExit as done:
            code = done.code
        if code in (0, None):
            sys.stdout.flush()
    except OSError as exc:
        if exc.filename != STDOUT:
            raise
        err.print(f"[bold red]error:[/] {escape(_os_error(exc))}", highlight=False, soft_wrap=True)
        code = 2
    finally:
        sys.stdout = given
    sys.exit(code)
