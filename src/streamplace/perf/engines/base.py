"""The engine protocol: what one engine model owns (registry.py lists them; EngineSettings carries the choice).

An engine is a subclass of :class:`EngineModel`, registered once (``registry.register``). It owns

* its ``name`` (``--engine NAME``, ``NAME.KEY=VALUE`` parameters) and a one-line ``description``;
* its settings dataclass (``settings_type``: defaults for every field), the parsing of its ``NAME.KEY=VALUE``
  parameters (``parameter_names``, ``parse_value``, ``apply``) and what the plan JSON's
  ``predicted.engine_params`` records (``describe``);
* what caps one replica's CPU (``replica_cap``);
* its hooks in perf/evaluate.py: the CPU it adds to the base model's node loads (``node_loads``), how it revises
  the base model's scale limit, latency and CPU figures (``revise``), the words for a limit of its own
  (``bottleneck``) and the rows of its detail a prediction table shows (``summary_rows``);
* capabilities, named by what they mean, that code above perf/ asks instead of comparing names (the schedulers'
  objective, fusion, triggers, calibration).

The base class is the papers' ideal model throughout: an engine overrides only what it changes.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from streamplace.coerce import coerce_value
from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology
from streamplace.perf.capacity import NodeLoads, ScaleLimit
from streamplace.perf.cells import Cells
from streamplace.perf.network import StreamMetrics
from streamplace.perf.rates import OperatorRates

#: what caps one replica's CPU: only its machine (Nasiri et al.'s MAC) or one core (a thread of a real engine)
ReplicaCap = Literal["machine", "thread"]


@dataclass(frozen=True)
class EngineInputs:
    """What the base model computed for a plan, for an engine's hooks to read."""

    topology: Topology
    cluster: Cluster
    cells: Cells
    rates: OperatorRates
    streams: StreamMetrics
    offered: float  # sink input rate at the plan's source rates


@dataclass(frozen=True)
class EngineFigures:
    """The figures of a prediction an engine may revise (``EngineModel.revise``)."""

    limit: ScaleLimit  # the largest sustainable scale of the source rates, and what sets it
    latency_ms: float  # worst path at the source rates
    latency_mean_ms: float  # same path with rate-weighted means
    cpu_util: np.ndarray  # per node, share of its CPU busy at the source rates
    detail: dict[str, Any]  # the prediction's ``engine_detail``


class EngineModel:
    """One engine's model of a plan (module docstring): the base class of every engine. Subclasses set the class
    attributes and override the hooks where they differ from the papers' ideal model, the default of each."""

    name: ClassVar[str]
    description: ClassVar[str]  # one line, for --engine's help
    settings_type: ClassVar[type]  # a frozen dataclass whose every field has a default

    # capabilities: what code above perf/ may ask about an engine
    #: the plan JSON records ``predicted.engine_params`` (the ideal model's plans record none, as engine=None's)
    records_params: ClassVar[bool] = True
    #: a query runs in micro-batches, one at a time, on a trigger (``spark.trigger_s``): the trigger and the
    #: admitted rate are chosen from batch times, and loads of several queries do not add up
    micro_batches: ClassVar[bool] = False
    #: chains of operators run fused in one stage, so a placement may line replicas up for it (fusion=prefer)
    fuses_operators: ClassVar[bool] = False
    #: capacity is 1 / the per-tuple work W of a Spark micro-batch, which optimal (spark_optimal.py) and
    #: max-throughput (throughput_search.SparkWork) optimize from the ``spark`` settings
    per_tuple_batch_work: ClassVar[bool] = False
    #: a tuple that crosses nodes costs CPU on both (Storm's serialization, from the ``storm`` settings), which
    #: ThroughputModel carries and max-throughput searches
    remote_tuple_cpu: ClassVar[bool] = False
    #: its constants come from ``streamplace calibrate``'s file (the ``spark`` settings' constants)
    reads_calibration: ClassVar[bool] = False

    # ------------------------------------------------------------------ settings and parameters
    def default_settings(self) -> Any:
        return self.settings_type()

    def parameter_names(self) -> tuple[str, ...]:
        """The KEYs of ``NAME.KEY=VALUE`` this engine takes (default: its settings' fields)."""
        return field_names(self.settings_type)

    def parse_value(self, key: str, value: Any, where: str) -> Any:
        """``value`` of parameter ``NAME.key`` as the settings hold it (strings coerced); ModelError on ``where``."""
        return coerce_field(self.settings_type, key, value, where, f"{self.name}.{key}")

    def check_values(self, values: Mapping[str, Any], where: str) -> None:
        """Rules every engine's numeric parameters follow: a number ≥ 0 (or None where the field allows it)."""
        for k, v in values.items():
            if isinstance(v, int | float) and not isinstance(v, bool) and v < 0:
                raise ModelError([Problem(where, f"the {self.name} engine's parameter {self.name}.{k} must be ≥ 0, "
                                                 f"got {v}", f"give {self.name}.{k} a value ≥ 0")])

    def apply(self, settings: Any, values: Mapping[str, Any], where: str) -> Any:
        """``settings`` with the parsed ``values`` set; ModelError on ``where`` where they do not go together."""
        return dataclasses.replace(settings, **values)

    def describe(self, settings: Any) -> dict[str, Any]:
        """What the plan JSON's ``predicted.engine_params`` records."""
        return dataclasses.asdict(settings)

    # ------------------------------------------------------------------ the model
    def replica_cap(self, settings: Any) -> ReplicaCap:
        """What caps one replica's CPU: a thread of a real engine by default."""
        return "thread"

    def node_loads(self, settings: Any, inputs: EngineInputs, loads: NodeLoads) -> tuple[NodeLoads, dict[str, Any]]:
        """The node loads under this engine (the base model's plus what the engine adds), and detail to record."""
        return loads, {}

    def revise(self, settings: Any, inputs: EngineInputs, figures: EngineFigures) -> EngineFigures:
        """The base model's scale limit, latency, CPU figures and detail as this engine changes them."""
        return figures

    def bottleneck(self, limit: ScaleLimit, topology: Topology, cluster: Cluster) -> str | None:
        """Words for a scale limit of this engine's own kind (None: not one of its own)."""
        return None

    def summary_rows(self, detail: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """(label, value) rows of a prediction's ``engine_detail`` that a prediction table shows."""
        return []


def field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def coerce_field(cls: type, name: str, value: Any, where: str, key: str) -> Any:
    """``value`` as field ``name`` of dataclass ``cls`` types it (strings coerced), finite; ModelError on
    ``where`` naming parameter ``key`` otherwise."""
    hint = typing.get_type_hints(cls)[name]
    out = coerce_value(value, hint, key, lambda msg: ModelError([Problem(where, msg, "give a finite number ≥ 0")]))
    if isinstance(out, float) and not math.isfinite(out):
        raise ModelError([Problem(where, f"{key} must be finite, got {value!r}", "give a finite number ≥ 0")])
    return out
