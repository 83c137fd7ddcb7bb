"""The ``ideal`` engine: the papers' base model (perf/evaluate.py) as it is, every replica working continuously
and tuples free to move between nodes; the papers' schedulers optimize it.

By default it is Nasiri et al.'s (2023) model (``ideal.replica_cap=machine``): only a machine's CPU caps its
replicas (MAC), and one replica may use more than one core of a multi-core node; ``ideal.replica_cap=thread``
caps a replica at one core (100 points), as a thread of a real engine is. ``engine=None`` is this engine with
its defaults.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from streamplace.errors import ModelError, Problem
from streamplace.perf.engines.base import EngineModel, ReplicaCap


@dataclass(frozen=True)
class IdealSettings:
    """The papers' base model: ``replica_cap`` is what caps one replica's CPU — ``machine`` (only its node's
    capacity, as Nasiri et al.'s MAC: the default) or ``thread`` (one core, 100 points, as on a real engine)."""

    replica_cap: ReplicaCap = "machine"


class IdealEngine(EngineModel):
    name = "ideal"
    description = "the papers' model"
    settings_type = IdealSettings
    records_params = False

    def parse_value(self, key: str, value: Any, where: str) -> Any:
        choices = typing.get_args(ReplicaCap)
        if value not in choices:
            raise ModelError([Problem(where, f"ideal.{key} must be one of {', '.join(choices)}, got {value!r}",
                                      "give machine (the papers' model) or thread (one core per replica)")])
        return value

    def replica_cap(self, settings: IdealSettings) -> ReplicaCap:
        return settings.replica_cap
