"""streamplace: replica counts and placement for stream-processing topologies.

The Python API (api.py) is importable from here: ``load_topology``, ``load_cluster``,
``load_profile``, ``plan``, ``evaluate``, ``compare``, ``run``, ``engine_settings``. They are
loaded on first use, so ``import streamplace`` stays cheap. The package is layered:
``model`` → ``spec`` → ``perf`` → ``schedulers`` / ``elastic`` → ``sim`` → ``spark`` /
``report`` → ``api`` → ``cli``; each layer uses only those before it.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["compare", "engine_settings", "evaluate", "load_cluster", "load_profile", "load_topology", "plan", "run"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from streamplace import api

        return getattr(api, name)
    raise AttributeError(f"module 'streamplace' has no attribute {name!r}")
