"""EngineSettings: the engine a prediction is for and every engine's settings, passed around as ``engine=``.

Dispatch is by the registry (registry.py): the chosen engine's model (``.model``) and settings (``.settings``)
answer every question; ``.spark``, ``.storm``, ``.ideal`` (any engine's name) read that engine's settings.
``engine=None`` is the ideal engine with its defaults: ``engine_or_ideal`` makes it one, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from streamplace.errors import ModelError, Problem
from streamplace.perf.engines.base import EngineModel, ReplicaCap
from streamplace.perf.engines.ideal import IdealEngine
from streamplace.perf.engines.registry import ENGINES, engine_model


@dataclass(frozen=True, init=False)
class EngineSettings:
    """The engine a prediction is for (``name``, a registered engine) and every engine's settings: the chosen
    one's are what it predicts with; the others' are kept so that parameters of any engine (a cluster spec's
    ``engine:`` block names several) apply whichever engine is chosen.

    ``EngineSettings("storm", storm=StormSettings(max_spout_pending=10))``: keyword arguments by engine name give
    that engine's settings, as do positional settings objects by their type (``EngineSettings("spark",
    SparkSettings(trigger_s=2))``); the rest are each engine's defaults."""

    name: str
    per_engine: tuple[tuple[str, Any], ...]  # (engine name, its settings) for every engine given or registered

    def __init__(self, name: str = "spark", *given: Any, **settings: Any) -> None:
        engine_model(name)
        for value in given:
            owner = next((n for n, m in ENGINES.items() if isinstance(value, m.settings_type)), None)
            if owner is None or owner in settings:
                raise TypeError(f"EngineSettings: {type(value).__name__} is no engine's settings, or given twice")
            settings[owner] = value
        for key, value in settings.items():
            model = engine_model(key)
            if not isinstance(value, model.settings_type):
                raise TypeError(f"EngineSettings: {key}= expects a {model.settings_type.__name__}, "
                                f"got {type(value).__name__}")
        merged = {n: settings[n] if n in settings else m.default_settings() for n, m in ENGINES.items()}
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "per_engine", tuple(merged.items()))

    def __getattr__(self, attr: str) -> Any:
        """``.spark``, ``.storm``, ``.ideal``: an engine's settings, by its name."""
        if attr.startswith("_") or attr in ("name", "per_engine") or attr not in ENGINES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        return self.settings_for(attr)

    def settings_for(self, name: str) -> Any:
        """Engine ``name``'s settings (its defaults where it was registered after these settings were made)."""
        for n, s in self.per_engine:
            if n == name:
                return s
        return engine_model(name).default_settings()

    @property
    def model(self) -> EngineModel:
        """The chosen engine's model."""
        return engine_model(self.name)

    @property
    def settings(self) -> Any:
        """The chosen engine's settings."""
        return self.settings_for(self.name)

    @property
    def replica_cap(self) -> ReplicaCap:
        """What caps one replica's CPU under this engine: a thread on Storm and Spark, the ideal model's setting."""
        return self.model.replica_cap(self.settings)

    def with_params(self, params: Mapping[str, Any], where: str = "params") -> EngineSettings:
        """These settings with ``NAME.KEY`` values applied (strings are coerced): each engine parses its own
        keys, every engine's numbers are checked ≥ 0, then each engine applies its values. Errors on ``where``."""
        values: dict[str, dict[str, Any]] = {n: {} for n in ENGINES}
        for key, value in params.items():
            head, _, rest = key.partition(".")
            model = ENGINES.get(head)
            if model is None or rest not in model.parameter_names():
                valid = [f"{n}.{k}" for n, m in ENGINES.items() for k in m.parameter_names()]
                raise ModelError([Problem(where, f"no engine parameter {key!r}", f"use one of {', '.join(valid)}")])
            values[head][rest] = model.parse_value(rest, value, where)
        for name, model in ENGINES.items():
            model.check_values(values[name], where)
        merged = dict(self.per_engine)
        for name, model in ENGINES.items():
            merged[name] = model.apply(self.settings_for(name), values[name], where)
        out = EngineSettings.__new__(EngineSettings)
        object.__setattr__(out, "name", self.name)
        object.__setattr__(out, "per_engine", tuple(merged.items()))
        return out

    def describe(self) -> dict[str, Any]:
        """What the plan JSON's ``predicted.engine_params`` records."""
        return self.model.describe(self.settings)


def engine_or_ideal(engine: EngineSettings | None) -> EngineSettings:
    """``engine``, or where it is None the ideal engine with its defaults (the papers' model)."""
    return engine if engine is not None else EngineSettings(IdealEngine.name)


def replica_cap_of(engine: EngineSettings | None) -> ReplicaCap:
    """What caps one replica's CPU in ``engine``'s model; no engine is the ideal model with its defaults."""
    return engine_or_ideal(engine).replica_cap


def recorded_params(engine: EngineSettings | None) -> dict[str, Any]:
    """``{"engine_params": …}`` for a prediction's block where its engine records them, else {} (the ideal
    model and engine=None record none)."""
    eng = engine_or_ideal(engine)
    return {"engine_params": eng.describe()} if eng.model.records_params else {}
