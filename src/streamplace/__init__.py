"""streamplace: replica counts and placement for stream-processing topologies.

The Python API (api.py, which gathers the use cases of ``streamplace.workflows``) is importable from here:
``load_topology``, ``load_cluster``, ``load_profile``, ``load_instance``, ``plan``, ``predict``, ``evaluate``,
``compare``, ``schedulers``, ``run``, ``engine_settings``, and ``autoscale`` / ``recommend`` for any running
Structured Streaming query. They are loaded on first use, so ``import streamplace``
stays cheap. The layers are in docs/architecture.md; tests/test_layers.py enforces them.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["AutoscaleHandle", "Engine", "Instance", "Prediction", "Spec", "autoscale", "compare", "engine_settings",
           "evaluate", "load_cluster", "load_instance", "load_profile", "load_topology", "plan", "predict", "recommend",
           "run", "schedulers"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from streamplace import api

        return getattr(api, name)
    raise AttributeError(f"module 'streamplace' has no attribute {name!r}")
