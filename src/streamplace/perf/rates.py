"""Rate propagation through the topology (docs/architecture.md: fan-out duplicates, output = α·input).

On a DAG one pass in topological order suffices (O(V + E)). With cycles the
rates solve ``(I − G) λ = s`` where ``G[j, i]`` sums α_i over streams i → j;
the solution exists and is non-negative exactly when the spectral radius of
``G`` (the loop gain) is below 1, otherwise rates diverge and we say where.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from streamplace.errors import RateDivergenceError
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology


@dataclass(frozen=True)
class OperatorRates:
    """Per-operator input/output rates and per-stream rates, all in tuples/s.

    ``input_split`` is the part of the input shared among replicas
    (shuffle/key streams, plus a source's own offered rate); ``input_all``
    comes through ``all``-grouped streams and reaches every replica whole.
    """

    input: np.ndarray
    output: np.ndarray
    input_split: np.ndarray
    input_all: np.ndarray
    stream: np.ndarray
    selectivity: np.ndarray

    def scaled(self, s: float) -> OperatorRates:
        return OperatorRates(self.input * s, self.output * s, self.input_split * s, self.input_all * s,
                             self.stream * s, self.selectivity)


def selectivities(topology: Topology, profile: Profile | None = None) -> np.ndarray:
    override = profile.selectivity if profile is not None else {}
    return np.array([override.get(op.id, op.selectivity) for op in topology.operators], dtype=float)


def operator_rates(
    topology: Topology,
    profile: Profile | None = None,
    source_rates: Mapping[str, float] | None = None,
) -> OperatorRates:
    """Propagate the sources' offered rates (or ``source_rates``) through the topology."""
    n = len(topology.operators)
    idx = topology.index
    alpha = selectivities(topology, profile)
    offered = np.zeros(n)
    for op in topology.sources:
        rate = (source_rates or {}).get(op.id, op.rate)
        offered[idx[op.id]] = float(rate or 0.0)
    src = np.array([idx[s.source] for s in topology.streams], dtype=np.intp)
    tgt = np.array([idx[s.target] for s in topology.streams], dtype=np.intp)
    lam: np.ndarray
    if topology.is_acyclic:
        lam = offered.copy()
        incoming: dict[int, list[int]] = {}
        for k, t in enumerate(tgt):
            incoming.setdefault(int(t), []).append(k)
        for op_id in topology.acyclic_order:
            j = idx[op_id]
            for k in incoming.get(j, ()):
                lam[j] += alpha[src[k]] * lam[src[k]]
    else:
        gain = np.zeros((n, n))
        np.add.at(gain, (tgt, src), alpha[src])
        radius = float(np.max(np.abs(np.linalg.eigvals(gain)))) if n else 0.0
        if radius >= 1.0 - 1e-12:
            loops = "; ".join(" → ".join(c) for c in topology.cycles)
            raise RateDivergenceError(
                f"topology {topology.name!r}: rates diverge on the cycle(s) {loops}: the loop gain "
                f"(spectral radius of the selectivity-weighted graph) is {radius:.3g} >= 1 "
                "(fix: lower the selectivity of an operator on the loop so the gain is below 1)"
            )
        lam = np.linalg.solve(np.eye(n) - gain, offered)
        lam = np.maximum(lam, 0.0)
    out = alpha * lam
    stream = out[src] if len(src) else np.zeros(0)
    all_mask = np.array([s.grouping == "all" for s in topology.streams], dtype=bool)
    lam_all = np.zeros(n)
    if all_mask.any():
        np.add.at(lam_all, tgt[all_mask], stream[all_mask])
    return OperatorRates(lam, out, lam - lam_all, lam_all, stream, alpha)
