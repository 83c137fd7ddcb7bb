"""The CPU-usage model of Nasiri et al. 2023 on replica-count matrices, for schedulers that choose parallelism.

TCU_ij = e_ij · IR_i + MET_ij (Eq. 5) in CPU points with e in ms (so
``IR · e / 10``), rates through α (Eq. 6), even split over replicas (Storm's
shuffle) of the shuffle- and key-grouped input, while an ``all``-grouped stream
reaches every replica whole — as the evaluation (perf/evaluate.py) counts it, so
a scheduler's claimed rate is one its plan sustains. For a count matrix C (operators × nodes) every node load is affine
in the scale s of the source rates, so the largest sustainable s has a
closed form: the minimum over nodes of (L·cpu_u − B_u)/A_u and over replicas
of the one-thread cap — where there is one: Storm and Spark run a replica on
one thread (``replica_cap="thread"``); the ideal model by default caps only
the machine, as Nasiri et al.'s own model (MAC: ``replica_cap="machine"``). Batched over many count matrices
for exhaustive search.

Under the ``storm`` engine (``build(..., engine=...)``) a node also spends CPU
serializing the tuples it sends to other nodes and deserializing those it
receives (perf/engines/storm.py): for stream k with producer shares p(u) and
consumer shares q(u) that is λ_k·(p(u)(1 − q(u))·ser_k + q(u)(1 − p(u))·deser_k)
per unit of scale — still affine in the scale, so the closed form holds with
A_u grown by it (``RemoteCost``). Storm's flow control (max spout pending) is
not in this model: it bounds the rate through the latency, a fixed point the
engine's prediction solves afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.cells import cost_tables
from streamplace.perf.engines import EngineSettings, replica_cap_of
from streamplace.perf.network import stream_bytes
from streamplace.perf.rates import operator_rates


@dataclass(frozen=True)
class RemoteCost:
    """The storm engine's serialization CPU for count matrices: per stream its producer and consumer, whether it
    is all-grouped (every consumer replica gets every tuple), its tuples/s at scale 1 and the ms of CPU per remote
    tuple on the sending and on the receiving node (storm.remote_cpu_per_scale, for the even split)."""

    src: np.ndarray  # (streams,) operator index
    tgt: np.ndarray
    is_all: np.ndarray  # (streams,) bool
    rate: np.ndarray  # (streams,) tuples/s at scale 1 (per consumer replica for all-grouping)
    ser_ms: np.ndarray  # (streams,)
    deser_ms: np.ndarray

    @classmethod
    def build(cls, topology: Topology, rates, engine: EngineSettings) -> RemoteCost:
        st = engine.storm
        kb = stream_bytes(topology) / 1000.0
        idx = topology.index
        return cls(np.array([idx[s.source] for s in topology.streams], dtype=np.intp),
                   np.array([idx[s.target] for s in topology.streams], dtype=np.intp),
                   np.array([s.grouping == "all" for s in topology.streams], dtype=bool),
                   np.asarray(rates.stream, dtype=float),
                   (st.ser_us + st.ser_us_per_kb * kb) / 1000.0, (st.deser_us + st.deser_us_per_kb * kb) / 1000.0)

    def points(self, counts: np.ndarray) -> np.ndarray:
        """CPU points per unit of scale per node, shape (batch, nodes), for a batch of count matrices
        (batch, ops, nodes). O(batch · streams · nodes)."""
        if not len(self.src):
            return np.zeros((counts.shape[0], counts.shape[2]))
        n = counts.sum(axis=2).astype(float)  # (b, ops)
        share = np.divide(counts, n[:, :, None], out=np.zeros(counts.shape), where=n[:, :, None] > 0)
        p, q = share[:, self.src], share[:, self.tgt]  # (b, streams, nodes)
        tuples = self.rate[None] * np.where(self.is_all[None], n[:, self.tgt], 1.0)  # (b, streams)
        sent = tuples[:, :, None] * p * (1.0 - q)
        received = tuples[:, :, None] * q * (1.0 - p)
        return ((sent * self.ser_ms[None, :, None]).sum(axis=1)
                + (received * self.deser_ms[None, :, None]).sum(axis=1)) / 10.0


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
    remote: RemoteCost | None = None  # the storm engine's serialization CPU; None under the ideal model
    #: (nodes,) most CPU points one replica may use: 100 (one thread) or inf (only its machine caps it, as Nasiri
    #: et al.'s MAC); None: one thread everywhere
    replica_points: np.ndarray | None = None
    #: (nodes,) most replicas a node runs (Nasiri et al.'s k_j: "each machine can execute at most k_j tasks
    #: simultaneously"); None: no such cap
    node_slots: np.ndarray | None = None

    @classmethod
    def build(cls, topology: Topology, cluster: Cluster, profile: Profile | None = None,
              source_rates: dict[str, float] | None = None, engine: EngineSettings | None = None,
              replica_cap: str | None = None, tasks_per_node: int | None = None) -> ThroughputModel:
        """The model of ``engine`` where it is ``storm`` (serialization added), else the papers' ideal one.
        ``replica_cap`` (``machine`` or ``thread``) overrides what the engine says caps one replica's CPU
        (ideal: its ``ideal.replica_cap``, the machine by default; storm and spark: a thread)."""
        cap = replica_cap or replica_cap_of(engine)
        if cap not in ("machine", "thread"):
            raise ValueError(f"replica_cap must be machine or thread, got {cap!r}")
        rates = operator_rates(topology, profile, source_rates)
        e, met = cost_tables(topology, cluster, profile)
        sinks = [topology.index[o.id] for o in topology.sinks]
        return cls(
            lam=rates.input_split, e=e, met=met, cap=cluster.cpu * cluster.utilization_limit,
            memory=np.array([o.memory_mb for o in topology.operators], dtype=float),
            node_memory=cluster.memory.astype(float), allowed=allowed_mask(topology, cluster),
            sink_rate=float(rates.input[sinks].sum()) if sinks else 0.0,
            rate_cost=e / 10.0, lam_all=rates.input_all,
            remote=RemoteCost.build(topology, rates, engine)
            if engine is not None and engine.model.remote_tuple_cpu else None,
            replica_points=np.full(len(cluster), np.inf if cap == "machine" else 100.0),
            node_slots=None if tasks_per_node is None else np.full(len(cluster), float(tasks_per_node)),
        )

    @property
    def slots(self) -> np.ndarray:
        """(nodes,) most replicas each node may run (inf where there is no k_j)."""
        return self.node_slots if self.node_slots is not None else np.full(self.e.shape[1], np.inf)

    @property
    def thread_points(self) -> np.ndarray:
        """(nodes,) most CPU points one replica may use (100 where a replica is one thread, inf where only its
        machine caps it)."""
        return self.replica_points if self.replica_points is not None else np.full(self.e.shape[1], 100.0)

    @property
    def replica_cap(self) -> str:
        return "machine" if np.isinf(self.thread_points).all() else "thread"

    def remote_points(self, counts: np.ndarray) -> np.ndarray | float:
        """Serialization points per unit scale per node for a batch (batch, nodes); 0 under the ideal model."""
        return 0.0 if self.remote is None else self.remote.points(counts)

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
        """Largest sustainable scale for a batch of count matrices, shape (batch, ops, nodes). Under the ideal
        model from the cells holding a replica (``_max_scale_cells``); with serialization CPU over the whole
        table."""
        if self.remote is None:
            return self._max_scale_cells(counts)
        n = counts.sum(axis=2)  # (b, ops)
        per = self.per_replica(n)  # rate per replica at s=1
        a = (counts * (per[:, :, None] * self.rate_cost[None])).sum(axis=1) + self.remote_points(counts)  # (b, nodes)
        b = (counts * self.met[None]).sum(axis=1)
        budget = self.cap[None] - b
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            node_s = np.where(a > 0, budget / a, np.where(budget < -1e-9, 0.0, np.inf))
            thread = per[:, :, None] * self.rate_cost[None]
            thread_s = np.where((counts > 0) & (thread > 0), (self.thread_points - self.met)[None] / thread, np.inf)
        s = np.minimum(node_s.min(axis=1), thread_s.reshape(len(counts), -1).min(axis=1))
        return np.maximum(s, 0.0)

    def _max_scale_cells(self, counts: np.ndarray) -> np.ndarray:
        """``max_scale_batch`` without serialization CPU, computed on the cells that hold a replica: the same
        sums in the same (operator) order, so the same scales to the last bit, in O(batch·ops·nodes) for
        finding the cells (one comparison each) and O(cells + batch·nodes) else — where the whole table took
        a dozen (batch, ops, nodes) passes."""
        n_b, _, n_nodes = counts.shape
        per = self.per_replica(counts.sum(axis=2))  # (b, ops): rate per replica at s=1
        bb, ii, uu = np.nonzero(counts)
        held = counts[bb, ii, uu]
        thread = per[bb, ii] * self.rate_cost[ii, uu]
        a, b = np.zeros((n_b, n_nodes)), np.zeros((n_b, n_nodes))
        np.add.at(a, (bb, uu), held * thread)
        np.add.at(b, (bb, uu), held * self.met[ii, uu])
        budget = self.cap[None] - b
        thread_s = np.full(n_b, np.inf)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            node_s = np.where(a > 0, budget / a, np.where(budget < -1e-9, 0.0, np.inf))
            cell_s = np.where((thread > 0) & (held > 0), (self.thread_points[uu] - self.met[ii, uu]) / thread, np.inf)
            np.minimum.at(thread_s, bb, cell_s)
        return np.maximum(np.minimum(node_s.min(axis=1), thread_s), 0.0)

    def fits_batch(self, counts: np.ndarray) -> np.ndarray:
        """Per count matrix of a batch (batch, ops, nodes): within every node's memory and, where the model has
        one, its replica cap k_j."""
        memory = ((counts * self.memory[None, :, None]).sum(axis=1) <= self.node_memory[None] + 1e-9).all(axis=1)
        return memory & (counts.sum(axis=1) <= self.slots[None]).all(axis=1)

    def fits(self, counts: np.ndarray) -> bool:
        """One count matrix within every node's memory and replica cap (``fits_batch``)."""
        return bool(self.fits_batch(counts[None])[0])
