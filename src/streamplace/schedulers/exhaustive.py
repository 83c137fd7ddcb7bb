"""``exhaustive``: Nasiri et al.'s (2023) brute-force optimum over replica counts and placements, for small instances.

Every operator i ranges over all count vectors c_i ∈ ℕ^nodes on its allowed
nodes with 1 ≤ Σ c_i ≤ k_i (and, if set, at most ``tasks_per_node``
replicas per node); every combination is evaluated with the closed-form
sustainable scale of the model (even split) and the best throughput wins
(ties: fewer replicas). The inner operators are evaluated as one numpy
batch, the outer ones in a loop.

A size guard refuses, with a clear error, instances with more than
``max_candidates`` combinations. :func:`replica_vectors` counts what the
paper counts: replica vectors x with x_i ≥ 1 and Σ x_i ≤ Σ_j k_j, i.e.
C(Σ_j k_j, n) — 27,405 for 4 bolts on 3 machines with k_j = 10.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from streamplace.errors import StreamplaceError
from streamplace.model.allowed import allowed_mask
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.profile import Profile
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, replica_cap_of
from streamplace.perf.throughput import ThroughputModel
from streamplace.schedulers.base import BaseScheduler, Deadline, Placement, register
from streamplace.schedulers.capacity import sustained_rates

INNER_BATCH = 200_000


class SearchTooLargeError(StreamplaceError):
    """An exhaustive search would take too long; the message says how big it is and what to do."""


def replica_vectors(n_components: int, total_slots: int) -> int:
    """The paper's candidate count: x_1 + … + x_n ≤ Σ_j k_j with every x_i ≥ 1, i.e. C(Σ k_j, n)."""
    return math.comb(total_slots, n_components)


def placements_of(allowed: np.ndarray, k: int, per_node: int | None) -> np.ndarray:
    """All count vectors over the allowed nodes with 1 ≤ total ≤ k (rows), as a (P, nodes) array."""
    nodes = np.flatnonzero(allowed)
    top = min(k, per_node) if per_node is not None else k
    rows = []
    for combo in itertools.product(range(top + 1), repeat=len(nodes)):
        total = sum(combo)
        if 1 <= total <= k:
            row = np.zeros(len(allowed), dtype=np.int64)
            row[nodes] = combo
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1, len(allowed))


def count_placements(n_allowed: int, k: int) -> int:
    """Count vectors over n nodes with total in 1..k: C(n + k, n) − 1 (stars and bars)."""
    return math.comb(n_allowed + k, n_allowed) - 1


@register
@dataclass(frozen=True)
class Exhaustive(BaseScheduler):
    """Brute force over every replica count and placement (small instances only)."""

    name = "exhaustive"
    summary = "brute-force optimum over replica counts and placements (Nasiri et al.'s (2023) baseline), size-guarded"
    chooses_parallelism = True

    max_replicas: int = 4  # k_i where the operator sets no max_replicas
    tasks_per_node: int | None = None
    max_candidates: int = 2_000_000

    def requested_counts(self, topology: Topology) -> dict[str, int]:
        return {op.id: 1 for op in topology.operators}

    def caps(self, topology: Topology) -> list[int]:
        return [op.max_replicas or self.max_replicas for op in topology.operators]

    def candidate_count(self, topology: Topology, cluster: Cluster) -> int:
        mask = allowed_mask(topology, cluster)
        total = 1
        for i, k in enumerate(self.caps(topology)):
            total *= count_placements(int(mask[i].sum()), k)
        return total

    def _place_for(self, engine: EngineSettings | None, topology: Topology, cluster: Cluster,
                   profile: Profile | None, deadline: Deadline, current: Plan | None) -> Placement:
        return self._place(topology, cluster, profile, deadline, current, replica_cap_of(engine))

    def _place(self, topology: Topology, cluster: Cluster, profile: Profile | None, deadline: Deadline,
               current: Plan | None, cap: str | None = None) -> Placement:
        estimate = self.candidate_count(topology, cluster)
        if estimate > self.max_candidates:
            raise SearchTooLargeError(
                f"exhaustive would evaluate {estimate:,} placements of {topology.name!r} on {cluster.name!r} "
                f"(limit max_candidates={self.max_candidates:,}; about {estimate / 2e6:,.0f} s at 2 M/s) "
                "(fix: use the optimal scheduler, lower max_replicas, or raise max_candidates)")
        model = ThroughputModel.build(topology, cluster, profile, replica_cap=cap or replica_cap_of(None),
                                      tasks_per_node=self.tasks_per_node)
        options = [placements_of(model.allowed[i], k, self.tasks_per_node)
                   for i, k in enumerate(self.caps(topology))]
        best = search(model, options, self.tasks_per_node, deadline)
        if best is None:
            return Placement(None, "infeasible", [
                "no combination of replica counts and placements fits memory"
                + (f" and {self.tasks_per_node} replicas per node" if self.tasks_per_node else "")
                + " with every operator's fixed overhead (MET) under its node's CPU"])
        counts, scale, evaluated, timed_out = best
        placement = Placement(counts)
        placement.source_rates = sustained_rates(topology, scale)
        placement.warnings.append(f"exhaustive: {evaluated:,} candidates evaluated")
        if timed_out:
            placement.status = "timeout"
            placement.explanation.append(f"time limit {self.time_limit_s} s: best of {evaluated:,} candidates")
        return placement


def search(model: ThroughputModel, options: list[np.ndarray], per_node: int | None,
           deadline: Deadline) -> tuple[np.ndarray, float, int, bool] | None:
    """Best (counts, scale) over the product of per-operator options, or None if nothing fits."""
    n_ops = len(options)
    # choose the inner operators (last ones) so one batch stays below INNER_BATCH
    inner: list[int] = []
    size = 1
    for i in reversed(range(n_ops)):
        if size * len(options[i]) > INNER_BATCH and inner:
            break
        inner.insert(0, i)
        size *= len(options[i])
    outer = [i for i in range(n_ops) if i not in inner]
    inner_grid = np.array(list(itertools.product(*[range(len(options[i])) for i in inner])), dtype=np.int64)
    inner_counts = np.zeros((len(inner_grid), n_ops, model.e.shape[1]), dtype=np.int64)
    for col, i in enumerate(inner):
        inner_counts[:, i, :] = options[i][inner_grid[:, col]]
    best: tuple[float, int, np.ndarray] | None = None
    evaluated = 0
    for outer_choice in itertools.product(*[range(len(options[i])) for i in outer]):
        if deadline.expired():
            break
        batch = inner_counts.copy()
        for col, i in enumerate(outer):
            batch[:, i, :] = options[i][outer_choice[col]]
        evaluated += len(batch)
        mem_ok = ((batch * model.memory[None, :, None]).sum(axis=1) <= model.node_memory[None] + 1e-9).all(axis=1)
        mem_ok &= ((batch * model.met[None]).sum(axis=1) <= model.cap[None] + 1e-9).all(axis=1)  # overheads fit
        if per_node is not None:
            mem_ok &= (batch.sum(axis=1) <= per_node).all(axis=1)
        if not mem_ok.any():
            continue
        scales = model.max_scale_batch(batch[mem_ok])
        replicas = batch[mem_ok].sum(axis=(1, 2))
        # best scale, then fewest replicas
        order = np.lexsort((replicas, -scales))
        j = int(order[0])
        cand = (float(scales[j]), int(replicas[j]))
        if best is None or cand[0] > best[0] * (1 + 1e-12) or (
                abs(cand[0] - best[0]) <= 1e-12 * max(1.0, best[0]) and cand[1] < best[1]):
            best = (cand[0], cand[1], batch[mem_ok][j].copy())
    if best is None:
        return None
    return best[2], best[0], evaluated, deadline.expired()
