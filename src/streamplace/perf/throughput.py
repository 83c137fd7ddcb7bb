"""The CPU-usage model of Nasiri et al. 2023 on replica-count matrices, for schedulers that choose parallelism.

TCU_ij = e_ij · IR_i + MET_ij (Eq. 5) in CPU points with e in ms (so
``IR · e / 10``), rates through α (Eq. 6), even split over replicas (Storm's
shuffle) of the shuffle- and key-grouped input, while an ``all``-grouped stream
reaches every replica whole — as the evaluation (perf/evaluate.py) counts it, so
a scheduler's claimed rate is one its plan sustains. For a count matrix C (operators × nodes) every node load is affine
in the scale s of the source rates, so the largest sustainable s has a
closed form: the minimum over nodes of (L·cpu_u − B_u)/A_u and over replicas
of the one-thread cap. Batched over many count matrices for exhaustive search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.cells import cost_tables
from streamplace.perf.rates import operator_rates


@dataclass(frozen=True)
class ThroughputModel:
    """Everything about an instance that does not depend on the plan."""

    lam: np.ndarray  # per-operator input rate at scale 1 shared among its replicas (tuples/s)
    e: np.ndarray  # (ops, nodes) ms per tuple
    met: np.ndarray  # (ops, nodes) fixed points per replica
    cap: np.ndarray  # (nodes,) CPU points allowed (limit × cpu)
    memory: np.ndarray  # (ops,) MB per replica
    node_memory: np.ndarray  # (nodes,)
    allowed: np.ndarray  # (ops, nodes) bool
    sink_rate: float  # sinks' input rate at scale 1
    rate_cost: np.ndarray  # (ops, nodes) CPU points per tuple/s of one replica: e / 10
    lam_all: np.ndarray  # (ops,) input at scale 1 that every replica receives whole (all grouping)

    @classmethod
    def build(cls, topology: Topology, cluster: Cluster, profile: Profile | None = None,
              source_rates: dict[str, float] | None = None) -> ThroughputModel:
        rates = operator_rates(topology, profile, source_rates)
        e, met = cost_tables(topology, cluster, profile)
        sinks = [topology.index[o.id] for o in topology.sinks]
        return cls(
            lam=rates.input_split, e=e, met=met, cap=cluster.cpu * cluster.utilization_limit,
            memory=np.array([o.memory_mb for o in topology.operators], dtype=float),
            node_memory=cluster.memory.astype(float), allowed=allowed_mask(topology, cluster),
            sink_rate=float(rates.input[sinks].sum()) if sinks else 0.0,
            rate_cost=e / 10.0, lam_all=rates.input_all,
        )

    def per_replica(self, n: np.ndarray) -> np.ndarray:
        """Tuples/s one replica of each operator receives at scale 1 when operator i has n[..., i] replicas (0
        where it has none): its share of the split input plus the whole all-grouped input."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n > 0, self.lam / np.where(n > 0, n, 1) + self.lam_all, 0.0)

    @property
    def lam_one(self) -> np.ndarray:
        """Tuples/s of an operator's single replica (all of its input) at scale 1."""
        return self.lam + self.lam_all

    def task_cpu(self, counts: np.ndarray, scale: float) -> np.ndarray:
        """TCU of one replica of i on u (points) at the given scale, shape (ops, nodes)."""
        per = self.per_replica(counts.sum(axis=1)) * scale
        return per[:, None] * self.rate_cost + self.met

    def node_cpu(self, counts: np.ndarray, scale: float) -> np.ndarray:
        return (counts * self.task_cpu(counts, scale)).sum(axis=0)

    def max_scale(self, counts: np.ndarray) -> float:
        """Largest sustainable scale for one count matrix (0 if even the overheads do not fit)."""
        return float(self.max_scale_batch(counts[None])[0])

    def max_scale_batch(self, counts: np.ndarray) -> np.ndarray:
        """Largest sustainable scale for a batch of count matrices, shape (batch, ops, nodes)."""
        n = counts.sum(axis=2)  # (b, ops)
        per = self.per_replica(n)  # rate per replica at s=1
        a = (counts * (per[:, :, None] * self.rate_cost[None])).sum(axis=1)  # (b, nodes)
        b = (counts * self.met[None]).sum(axis=1)
        budget = self.cap[None] - b
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            node_s = np.where(a > 0, budget / a, np.where(budget < -1e-9, 0.0, np.inf))
            thread = per[:, :, None] * self.rate_cost[None]
            thread_s = np.where((counts > 0) & (thread > 0), (100.0 - self.met[None]) / thread, np.inf)
        s = np.minimum(node_s.min(axis=1), thread_s.reshape(len(counts), -1).min(axis=1))
        return np.maximum(s, 0.0)

    def memory_ok(self, counts: np.ndarray) -> bool:
        return bool(((counts * self.memory[:, None]).sum(axis=0) <= self.node_memory + 1e-9).all())
