"""Engine models: what a plan does on the engine that runs it (``--engine spark|storm|ideal``).

* ``ideal`` — the base model (perf/evaluate.py): every replica works
  continuously, tuples free to move between nodes. The papers' schedulers
  optimize this model. By default it is Nasiri et al.'s (2023) model
  (``ideal.replica_cap=machine``): only a machine's CPU caps its replicas (MAC),
  and one replica may use more than one core of a multi-core node;
  ``ideal.replica_cap=thread`` caps a replica at one core (100 points), as a
  thread of a real engine is (ideal.py).
* ``storm`` — the base model plus the CPU a tuple costs to cross nodes and
  flow control by ``max_spout_pending`` (storm.py); an executor is one thread
  (100 points at most).
* ``spark`` — micro-batches as streamplace's Spark runtime builds them: stages,
  fixed costs, the trigger, one batch at a time (spark.py). The default of the
  command line, since streamplace enacts its plans on Spark.

Each engine is an :class:`EngineModel` (base.py: its name, settings, parameters, replica cap and evaluation
hooks) in the registry (registry.py: ``ENGINES``, ``register``, ``engine_names``); a new engine is one module
and one registration. :class:`EngineSettings` (settings.py) is what is passed around as ``engine=``: the chosen
engine's name and every engine's settings.

Parameters come as ``spark.KEY=VALUE`` / ``storm.KEY=VALUE`` / ``ideal.KEY=VALUE`` (``--param``), or from
an ``engine:`` block of the cluster spec; Spark's constants from a calibration
file (``streamplace calibrate``).
"""

from __future__ import annotations

from streamplace.perf.engines.base import EngineFigures, EngineInputs, EngineModel, ReplicaCap
from streamplace.perf.engines.ideal import IdealEngine, IdealSettings
from streamplace.perf.engines.registry import (
    DEFAULT_ENGINE,
    ENGINES,
    RUNTIME_ENGINE,
    engine_model,
    engine_names,
    register,
    unregister,
)
from streamplace.perf.engines.settings import (
    EngineSettings,
    engine_or_ideal,
    recorded_params,
    replica_cap_of,
)
from streamplace.perf.engines.spark import SparkConstants, SparkEngine, SparkSettings
from streamplace.perf.engines.storm import StormEngine, StormSettings

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "RUNTIME_ENGINE",
    "EngineFigures",
    "EngineInputs",
    "EngineModel",
    "EngineSettings",
    "IdealEngine",
    "IdealSettings",
    "ReplicaCap",
    "SparkConstants",
    "SparkEngine",
    "SparkSettings",
    "StormEngine",
    "StormSettings",
    "engine_model",
    "engine_names",
    "engine_or_ideal",
    "recorded_params",
    "register",
    "replica_cap_of",
    "unregister",
]
