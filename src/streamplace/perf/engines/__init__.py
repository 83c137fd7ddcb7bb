"""Engine models: what a plan does on the engine that runs it (``--engine spark|storm|ideal``).

* ``ideal`` — the base model (perf/evaluate.py): every replica works
  continuously, tuples free to move between nodes. The papers' schedulers
  optimize this model. By default it is Nasiri et al.'s (2023) model
  (``ideal.replica_cap=machine``): only a machine's CPU caps its replicas (MAC),
  and one replica may use more than one core of a multi-core node;
  ``ideal.replica_cap=thread`` caps a replica at one core (100 points), as a
  thread of a real engine is.
* ``storm`` — the base model plus the CPU a tuple costs to cross nodes and
  flow control by ``max_spout_pending`` (storm.py); an executor is one thread
  (100 points at most).
* ``spark`` — micro-batches as streamplace's Spark runtime builds them: stages,
  fixed costs, the trigger, one batch at a time (spark.py). The default of the
  command line, since streamplace enacts its plans on Spark.

Parameters come as ``spark.KEY=VALUE`` / ``storm.KEY=VALUE`` / ``ideal.KEY=VALUE`` (``--param``), or from
an ``engine:`` block of the cluster spec; Spark's constants from a calibration
file (``streamplace calibrate``).
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from streamplace.coerce import coerce_value
from streamplace.errors import ModelError, Problem
from streamplace.perf.engines.spark import SparkConstants, SparkSettings
from streamplace.perf.engines.storm import StormSettings

EngineName = Literal["spark", "storm", "ideal"]
ReplicaCap = Literal["machine", "thread"]
ENGINE_NAMES: tuple[str, ...] = typing.get_args(EngineName)
#: keys of ``spark.*`` that set SparkSettings; the rest set SparkConstants
_SPARK_RUN_KEYS = ("trigger_s", "quantum_s", "lead_s")
#: the longest trigger interval, source quantum or lead a prediction takes (a day): beyond it no stream runs
MAX_INTERVAL_S = 86_400.0


@dataclass(frozen=True)
class IdealSettings:
    """The papers' base model: ``replica_cap`` is what caps one replica's CPU — ``machine`` (only its node's
    capacity, as Nasiri et al.'s MAC: the default) or ``thread`` (one core, 100 points, as on a real engine)."""

    replica_cap: ReplicaCap = "machine"


@dataclass(frozen=True)
class EngineSettings:
    """The engine a prediction is for, and its parameters."""

    name: EngineName = "spark"
    spark: SparkSettings = field(default_factory=SparkSettings)
    storm: StormSettings = field(default_factory=StormSettings)
    ideal: IdealSettings = field(default_factory=IdealSettings)

    def __post_init__(self) -> None:
        if self.name not in ENGINE_NAMES:
            raise ModelError([Problem("engine", f"unknown engine {self.name!r}",
                                      f"use one of {', '.join(ENGINE_NAMES)}")])

    @property
    def replica_cap(self) -> ReplicaCap:
        """What caps one replica's CPU under this engine: a thread on Storm and Spark, the ideal model's setting."""
        return self.ideal.replica_cap if self.name == "ideal" else "thread"

    def with_params(self, params: Mapping[str, Any], where: str = "params") -> EngineSettings:
        """These settings with ``spark.KEY`` / ``storm.KEY`` values applied (strings are coerced)."""
        spark_run: dict[str, Any] = {}
        spark_const: dict[str, Any] = {}
        storm: dict[str, Any] = {}
        ideal: dict[str, Any] = {}
        for key, value in params.items():
            head, _, rest = key.partition(".")
            if head == "ideal" and rest == "replica_cap":
                if value not in typing.get_args(ReplicaCap):
                    raise ModelError([Problem(where, f"ideal.replica_cap must be one of "
                                                     f"{', '.join(typing.get_args(ReplicaCap))}, got {value!r}",
                                              "give machine (the papers' model) or thread (one core per replica)")])
                ideal[rest] = value
            elif head == "spark" and rest in _SPARK_RUN_KEYS:
                spark_run[rest] = _coerce(SparkSettings, rest, value, where, key)
            elif head == "spark" and rest in _names(SparkConstants) and rest != "origin":
                spark_const[rest] = _coerce(SparkConstants, rest, value, where, key)
            elif head == "storm" and rest in _names(StormSettings):
                storm[rest] = _coerce(StormSettings, rest, value, where, key)
            else:
                valid = [f"spark.{k}" for k in (*_SPARK_RUN_KEYS, *_names(SparkConstants)) if k != "origin"]
                valid += [f"storm.{k}" for k in _names(StormSettings)] + ["ideal.replica_cap"]
                raise ModelError([Problem(where, f"no engine parameter {key!r}", f"use one of {', '.join(valid)}")])
        for k, v in {**spark_run, **spark_const, **storm}.items():
            if v is not None and v < 0:
                raise ModelError([Problem(where, f"engine parameter {k} must be ≥ 0, got {v}", "give a value ≥ 0")])
        if spark_run.get("trigger_s", 1.0) <= 0:
            raise ModelError([Problem(where, "spark.trigger_s must be > 0", "give the trigger interval in seconds")])
        for k in ("trigger_s", "quantum_s", "lead_s"):
            if (spark_run.get(k) or 0.0) > MAX_INTERVAL_S:
                raise ModelError([Problem(where, f"spark.{k} must be at most {MAX_INTERVAL_S:,.0f} s (a day), got "
                                          f"{spark_run[k]:g}", "give an interval in seconds, e.g. 1")])
        lead = spark_run.get("lead_s", self.spark.lead_s)
        if lead is not None and lead >= spark_run.get("quantum_s", self.spark.quantum_s) > 0:
            raise ModelError([Problem(where, f"spark.lead_s must be below spark.quantum_s, got {lead}",
                                      "give the seconds from a source second's end to its trigger, e.g. 0.05")])
        consts = self.spark.constants
        if spark_const:
            consts = dataclasses.replace(consts, **spark_const, origin=f"{consts.origin}, with {where} overrides")
        spark = dataclasses.replace(self.spark, **spark_run, constants=consts)
        return dataclasses.replace(self, spark=spark, storm=dataclasses.replace(self.storm, **storm),
                                   ideal=dataclasses.replace(self.ideal, **ideal))

    def describe(self) -> dict[str, Any]:
        """What the plan JSON's ``predicted.engine_params`` records."""
        if self.name == "spark":
            return {"trigger_s": self.spark.trigger_s, "quantum_s": self.spark.quantum_s, "lead_s": self.spark.lead_s,
                    **self.spark.constants.as_dict()}
        if self.name == "storm":
            return dataclasses.asdict(self.storm)
        return dataclasses.asdict(self.ideal)


def replica_cap_of(engine: EngineSettings | None) -> ReplicaCap:
    """What caps one replica's CPU in ``engine``'s model; no engine is the ideal model with its defaults."""
    return engine.replica_cap if engine is not None else IdealSettings().replica_cap


def split_engine_params(params: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(engine parameters ``spark.*``/``storm.*``/``ideal.*``, the rest) of a ``--param`` mapping."""
    engine = {k: v for k, v in params.items() if k.partition(".")[0] in ("spark", "storm", "ideal")}
    return engine, {k: v for k, v in params.items() if k not in engine}


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _coerce(cls: type, name: str, value: Any, where: str, key: str) -> Any:
    hint = typing.get_type_hints(cls)[name]
    out = coerce_value(value, hint, key, lambda msg: ModelError([Problem(where, msg, "give a finite number ≥ 0")]))
    if isinstance(out, float) and not math.isfinite(out):
        raise ModelError([Problem(where, f"{key} must be finite, got {value!r}", "give a finite number ≥ 0")])
    return out


__all__ = ["ENGINE_NAMES", "EngineName", "EngineSettings", "IdealSettings", "ReplicaCap", "SparkConstants",
           "SparkSettings", "StormSettings", "replica_cap_of", "split_engine_params"]
