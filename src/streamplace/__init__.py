"""streamplace: replica counts and placement for stream-processing topologies.

The Python API (api.py, which gathers the use cases of ``streamplace.workflows``) is importable from here:
``load_topology``, ``load_cluster``, ``load_profile``, ``load_instance``, ``plan``, ``predict``, ``evaluate``,
``compare``, ``schedulers``, ``run``, ``engine_settings``, ``storm_over_time`` (a plan over time in Storm), and
``autoscale`` / ``recommend`` for any running Structured Streaming query. They are loaded on first use, so
``import streamplace`` stays cheap. The layers are in docs/architecture.md; tests/test_layers.py enforces them.

``schedulers`` names two things: the API's catalogue (``sp.schedulers()``, what ``streamplace schedulers`` lists)
and the subpackage ``streamplace.schedulers`` (``create``, ``BaseScheduler``, one module per algorithm). Python
binds a subpackage's name on its package when it is first imported, which would replace the function; so
``streamplace.schedulers`` is one object, :data:`_SCHEDULERS`, whatever was imported before: called, the
catalogue; read, written or imported through, the subpackage.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from streamplace._version import __version__ as __version__

__all__ = ["AutoscaleHandle", "Engine", "Instance", "Prediction", "Spec", "autoscale", "compare", "engine_settings",
           "evaluate", "load_cluster", "load_instance", "load_profile", "load_topology", "plan", "predict", "recommend",
           "run", "schedulers", "storm_over_time"]

if TYPE_CHECKING:  # a type checker sees the function too, not the subpackage of the same name
    from streamplace import api as _api

    schedulers = _api.schedulers

#: the subpackage that shares its name with the API's catalogue
_SUBPACKAGE = f"{__name__}.schedulers"


def __getattr__(name: str) -> Any:
    if name in __all__:
        # lazy: import streamplace (the API loads on first use)
        from streamplace import api

        return getattr(api, name)
    raise AttributeError(f"module 'streamplace' has no attribute {name!r}")


class _Schedulers:
    """``streamplace.schedulers``: called, the API's catalogue of schedulers (:func:`streamplace.api.schedulers`:
    every registered scheduler with its summary and parameters); its attributes are the subpackage's
    (``streamplace.schedulers.create``, ``.rstorm``, …), read and set there. ``from streamplace.schedulers import
    create`` and ``import streamplace.schedulers.rstorm as rstorm`` import the subpackage as ever."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # lazy: import streamplace (the API loads on first use)
        from streamplace import api

        return api.schedulers(*args, **kwargs)

    @property
    def __wrapped__(self) -> Any:  # inspect.signature and help() describe the function
        # lazy: import streamplace (the API loads on first use)
        from streamplace import api

        return api.schedulers

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module(_SUBPACKAGE), name)

    def __setattr__(self, name: str, value: Any) -> None:  # e.g. a test's monkeypatch of the subpackage
        setattr(importlib.import_module(_SUBPACKAGE), name, value)

    def __delattr__(self, name: str) -> None:
        delattr(importlib.import_module(_SUBPACKAGE), name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(importlib.import_module(_SUBPACKAGE))) | {"__call__"})

    def __repr__(self) -> str:
        return "<streamplace.schedulers: call it for the catalogue of schedulers (streamplace.api.schedulers); " \
               "its attributes are the subpackage streamplace.schedulers'>"


_SCHEDULERS = _Schedulers()


class _Package(types.ModuleType):
    """The ``streamplace`` package's module: ``schedulers`` stays :data:`_SCHEDULERS` when the import system binds
    the subpackage of that name on it (the subpackage stays in ``sys.modules`` and the package's ``__dict__``)."""

    @property
    def schedulers(self) -> _Schedulers:
        return _SCHEDULERS

    @schedulers.setter
    def schedulers(self, module: Any) -> None:
        self.__dict__["schedulers"] = module


sys.modules[__name__].__class__ = _Package
