"""The ``streamplace`` command line (typer + rich).

Every command accepts a spec path or a built-in name (``streamplace bench list``) for TOPO and CLUSTER, prints
JSON with ``--json``, and exits non-zero with a one-line explanation (file, field, fix) on bad input.

``_common.py`` holds the apps, the consoles and what the commands share; each command group is a module whose
import registers its commands on ``app``. ``app`` (``from streamplace.cli import app``) has every command, in the
order `streamplace --help` lists them; :func:`main` — the ``streamplace`` script — imports only the module of the
command it is given (issue 56: a plan's start does not import, nor have typer build, the other 17 commands), and
every module where it is given none it knows (``--help``, ``--version``, an unknown or misspelt command, shell
completion), so what it prints is the same as with every command registered.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from typing import Any

from streamplace.cli import _common

#: each command module, in the order `streamplace --help` lists their commands (typer lists a group's commands
#: as they were registered), with the commands and command groups it registers (tests/test_cli_start.py holds the
#: table to what the modules register)
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "planning": ("plan", "evaluate", "compare", "schedulers", "bench", "import-flux"),
    "run": ("run",),
    "live": ("live",),
    "sweep": ("sweep", "report"),
    "cluster": ("cluster",),
    "measure": ("calibrate", "profile"),
    "simulate": ("simulate",),
    "demo": ("demo",),
}
#: the root's options that take no value and may come before the command (``-qv``: short flags together)
_ROOT_FLAGS = re.compile(r"-[vq]+|--verbose|--quiet")


def command_module(args: list[str]) -> str | None:
    """The module registering the command ``args`` (the command line past the program's name) invoke, or None
    when they name none of COMMAND_MODULES' commands after the root's flags, or ask for completion."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):  # typer's shell completion
        return None
    for arg in args:
        if not _ROOT_FLAGS.fullmatch(arg):
            return next((module for module, names in COMMAND_MODULES.items() if arg in names), None)
    return None


def load_commands(module: str | None = None) -> None:
    """Import the command module ``module`` (None: all of them), registering its commands on ``app``; every
    command in COMMAND_MODULES' order however many were registered before, and in which order."""
    for name in COMMAND_MODULES if module is None else (module,):
        importlib.import_module(f"streamplace.cli.{name}")
    rank = {f"streamplace.cli.{name}": k for k, name in enumerate(COMMAND_MODULES)}
    for typer_app in (_common.app, _common.bench_app, _common.cluster_app):
        typer_app.registered_commands.sort(key=lambda info: rank.get(getattr(info.callback, "__module__", ""), -1))


def __getattr__(name: str) -> Any:
    """``app``: the typer app with every command registered (what tests and ``typer.main.get_command`` take)."""
    if name == "app":
        load_commands()
        return _common.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The ``streamplace`` script: the invoked command's module (every module when it names none), then the
    command line (_common.main)."""
    load_commands(command_module(sys.argv[1:]))
    _common.main()


__all__ = ["COMMAND_MODULES", "app", "command_module", "load_commands", "main"]
