"""The engines predictions may be for, by name: a new engine is one module (an EngineModel subclass, base.py)
and one registration — a line below for a built-in one, ``register(MyEngine())`` for one from outside."""

from __future__ import annotations

from streamplace.errors import ModelError, Problem
from streamplace.perf.engines.base import EngineModel
from streamplace.perf.engines.ideal import IdealEngine
from streamplace.perf.engines.spark import SparkEngine
from streamplace.perf.engines.storm import StormEngine

#: every engine by name, in the order help texts and error messages list them
ENGINES: dict[str, EngineModel] = {}
#: the engine of the runtime streamplace enacts its plans on (Spark): a live run, a measured sweep and the demo
#: predict for it whatever the default is
RUNTIME_ENGINE = SparkEngine.name
#: the engine every use case predicts for unless told otherwise, in the API as on the command line: streamplace
#: enacts its plans on Spark
DEFAULT_ENGINE = RUNTIME_ENGINE


def register(model: EngineModel) -> EngineModel:
    """Make ``model`` an engine predictions may be for (``--engine NAME``, ``NAME.KEY=VALUE`` parameters)."""
    if not isinstance(model, EngineModel):
        raise TypeError(f"register: expected an EngineModel, got {type(model).__name__}")
    if model.name in ENGINES:
        raise ValueError(f"register: an engine named {model.name!r} is registered already")
    if "." in model.name or not model.name:
        raise ValueError(f"register: an engine's name is a word without dots (NAME.KEY), got {model.name!r}")
    ENGINES[model.name] = model
    return model


def unregister(name: str) -> None:
    """Take engine ``name`` off the registry (a test's own engine, say)."""
    del ENGINES[name]


def engine_names() -> tuple[str, ...]:
    return tuple(ENGINES)


def engine_model(name: str, where: str = "engine") -> EngineModel:
    """The engine named ``name``; ModelError on ``where`` when none is."""
    model = ENGINES.get(name) if isinstance(name, str) else None
    if model is None:
        raise ModelError([Problem(where, f"unknown engine {name!r}", f"use one of {', '.join(ENGINES)}")])
    return model


for _model in (SparkEngine(), StormEngine(), IdealEngine()):
    register(_model)
