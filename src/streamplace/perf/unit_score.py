"""Ecker et al.'s (2025) cost function on placements of individual replicas, batched.

A placement gives each replica ("unit") a node. The score is Eq. 1,
s = w1·s_lat + w2·s_sup + w3·s_co + w4·s_event (see perf/score.py for the
terms), and the constraints are counted as violations: every node whose
CPU use at the offered rate exceeds the utilization limit (95 % in the
paper) and every node whose memory is exceeded. Search heuristics compare
(violations, score) lexicographically, or combine them as
score + 10,000 · violations (the ant system's S_k).

``score_batch`` evaluates B placements at once with numpy — O(B·(units +
streams·nodes²)) — which is what makes hill climbing and the ant system
fast enough for online use.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.cells import cost_tables
from streamplace.perf.latency import instance_links_ms
from streamplace.perf.rates import operator_rates
from streamplace.perf.score import PAPER_WEIGHTS

VIOLATION_WEIGHT = 10_000.0


@dataclass(frozen=True)
class UnitScorer:
    unit_op: np.ndarray  # (U,) operator of each replica
    cpu: np.ndarray  # (ops, nodes) points one replica uses on each node at the offered rate
    memory: np.ndarray  # (ops,) MB per replica
    cpu_cap: np.ndarray  # (nodes,) limit × cpu
    mem_cap: np.ndarray
    n: np.ndarray  # (ops,) replicas per operator
    src: np.ndarray  # (streams,)
    tgt: np.ndarray
    tuples: np.ndarray  # (streams,) tuple rate
    latency: np.ndarray  # (nodes, nodes) ms
    order: tuple[int, ...]  # operators in (cyclic-safe) topological order
    forward: np.ndarray  # (streams,) bool: used for the latency path
    sources: np.ndarray
    sinks: np.ndarray
    allowed: np.ndarray  # (ops, nodes) pinning
    weights: tuple[float, float, float, float] = PAPER_WEIGHTS
    #: what a node over its memory counts as among the violations: 1 in the paper (as a node over its CPU
    #: limit); more than the number of nodes makes memory come first (a search that never accepts more
    #: violations then never trades a memory overrun for a CPU one)
    memory_weight: float = 1.0

    @classmethod
    def build(cls, topology: Topology, cluster: Cluster, profile: Profile | None = None,
              utilization_limit: float = 0.95,
              weights: tuple[float, float, float, float] = PAPER_WEIGHTS, memory_weight: float = 1.0) -> UnitScorer:
        rates = operator_rates(topology, profile)
        e, met = cost_tables(topology, cluster, profile)
        n = np.array([op.replicas for op in topology.operators], dtype=float)
        per = rates.input_split / n + rates.input_all
        idx = topology.index
        fwd = topology.forward_graph
        return cls(
            unit_op=np.repeat(np.arange(len(topology.operators)), n.astype(int)),
            cpu=per[:, None] * e / 10.0 + met,
            memory=np.array([op.memory_mb for op in topology.operators], dtype=float),
            cpu_cap=cluster.cpu * utilization_limit, mem_cap=cluster.memory.astype(float), n=n,
            src=np.array([idx[s.source] for s in topology.streams], dtype=np.intp),
            tgt=np.array([idx[s.target] for s in topology.streams], dtype=np.intp),
            tuples=rates.stream.astype(float), latency=np.asarray(cluster.latency, dtype=float),
            order=tuple(idx[o] for o in topology.acyclic_order),
            forward=np.array([fwd.has_edge(s.source, s.target) for s in topology.streams], dtype=bool),
            sources=np.array([idx[o.id] for o in topology.sources], dtype=np.intp),
            sinks=np.array([idx[o.id] for o in topology.sinks], dtype=np.intp),
            allowed=allowed_mask(topology, cluster), weights=weights, memory_weight=memory_weight,
        )

    @property
    def n_units(self) -> int:
        return len(self.unit_op)

    @property
    def n_nodes(self) -> int:
        return len(self.cpu_cap)

    def counts(self, placements: np.ndarray) -> np.ndarray:
        """(B, ops, nodes) replica counts of a batch of placements (B, units)."""
        b = placements.shape[0]
        n_ops = len(self.n)
        flat = (np.arange(b)[:, None] * n_ops + self.unit_op[None, :]) * self.n_nodes + placements
        c = np.bincount(flat.ravel(), minlength=b * n_ops * self.n_nodes)
        return c.reshape(b, n_ops, self.n_nodes)

    def score_batch(self, placements: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(score, violations) for each placement of a batch (B, units)."""
        cheap, violations, present = self.score_parts(placements)
        return cheap + self.weights[0] * self.latency_term(present), violations

    def score_parts(self, placements: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Everything but the latency term: (w2·s_sup + w3·s_co + w4·s_event, violations, presence (B, ops, nodes))."""
        placements = np.atleast_2d(placements)
        c = self.counts(placements).astype(float)
        cpu = (c * self.cpu[None]).sum(axis=1)
        mem = self.memory @ c  # (B, nodes)
        violations = ((cpu > self.cpu_cap[None] + 1e-9).sum(axis=1)
                      + self.memory_weight * (mem > self.mem_cap[None] + 1e-9).sum(axis=1))
        used = c.sum(axis=1) > 0
        s_sup = used.sum(axis=1) / self.n_nodes
        share = c / self.n[None, :, None]
        if len(self.src):
            local = (share[:, self.src, :] * share[:, self.tgt, :]).sum(axis=2)  # (B, streams)
            remote = 1.0 - local
            edges = self.n[self.src] * self.n[self.tgt]  # replica-to-replica edges per stream (perf/score.py)
            s_co = (remote * edges[None]).sum(axis=1) / edges.sum()
            total = self.tuples.sum()
            s_event = (remote * self.tuples[None]).sum(axis=1) / total if total > 0 else np.zeros(len(c))
        else:
            s_co = s_event = np.zeros(len(c))
        _, w2, w3, w4 = self.weights
        return w2 * s_sup + w3 * s_co + w4 * s_event, violations, c > 0

    def latency_term(self, present: np.ndarray) -> np.ndarray:
        """s_lat for a batch of presence matrices (B, ops, nodes)."""
        if not len(self.src):
            return np.zeros(len(present))
        return self._latency(present)

    def _latency(self, present: np.ndarray) -> np.ndarray:
        """s_lat: the largest link latency accumulated along an instance path from a source to a sink
        (perf/latency.py ``instance_links_ms``)."""
        return instance_links_ms(present, self.latency, self._inputs, self.sources, self.sinks)

    @functools.cached_property
    def _inputs(self) -> list[tuple[int, np.ndarray]]:
        """Per operator in topological order: the upstream operators of its forward input streams."""
        out = []
        for j in self.order:
            streams = np.flatnonzero(self.forward & (self.tgt == j))
            if len(streams):
                out.append((j, np.unique(self.src[streams])))
        return out

    def combined(self, placements: np.ndarray) -> np.ndarray:
        """S = score + 10,000 · violations (Ecker et al. 2025, ant system)."""
        s, v = self.score_batch(placements)
        return s + VIOLATION_WEIGHT * v
