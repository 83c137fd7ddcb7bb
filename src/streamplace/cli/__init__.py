"""The ``streamplace`` command line (typer + rich).

Every command accepts a spec path or a built-in name (``streamplace bench list``) for TOPO and CLUSTER, prints
JSON with ``--json``, and exits non-zero with a one-line explanation (file, field, fix) on bad input.

``_common.py`` holds the apps, the consoles and what the commands share; each command group is a module whose
import registers its commands on ``app``, in the order `streamplace --help` lists them.
"""

from __future__ import annotations

# isort: off
# the order `streamplace --help` lists the commands in (typer lists a group's commands as they were registered)
from streamplace.cli import planning, run, live, sweep, cluster, measure, simulate, demo  # noqa: F401
# isort: on
from streamplace.cli._common import app, main

__all__ = ["app", "main"]
