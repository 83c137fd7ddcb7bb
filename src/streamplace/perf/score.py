"""The latency-aware placement score of Ecker et al. 2025, Eq. 1.

s(x) = w1·s_lat + w2·s_sup + w3·s_co + w4·s_event, with w1 = 1e-6 and
w2 = w3 = w4 = 1 by default (the paper's weights). s_lat is the largest link
latency accumulated from a source to a sink (ms), s_sup the fraction of
nodes used, s_co the fraction of edges not co-located and s_event the
fraction of events sent over non-co-located edges. The paper's operators are
instances (its Table 1 counts them), so its edges are replica-to-replica: a
stream between operators of n_i and n_j replicas is n_i·n_j edges, of which
n_i·n_j − Σ_u c_iu·c_ju cross nodes; s_co counts those. Each edge carries
the same share of the stream (the even split), so s_event is the stream's
traffic-weighted fraction of remote edges. Violations count nodes over the utilization limit (CPU, 95 %
by default in that paper) or over their memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PAPER_WEIGHTS = (1e-6, 1.0, 1.0, 1.0)


@dataclass(frozen=True)
class LatencyScore:
    s_lat: float
    s_sup: float
    s_co: float
    s_event: float
    violations: int
    score: float

    def as_dict(self) -> dict[str, float]:
        return {"s_lat": self.s_lat, "s_sup": self.s_sup, "s_co": self.s_co, "s_event": self.s_event,
                "violations": self.violations, "score": self.score}


def latency_score(
    s_lat_ms: float,
    nodes_used: int,
    nodes_total: int,
    local_fraction: np.ndarray,
    stream_tuples: np.ndarray,
    cpu_utilization: np.ndarray,
    memory_used: np.ndarray,
    memory_capacity: np.ndarray,
    utilization_limit: float = 0.95,
    weights: tuple[float, float, float, float] = PAPER_WEIGHTS,
    edges: np.ndarray | None = None,
) -> LatencyScore:
    """``edges``: replica-to-replica edges per stream (n_i·n_j); None counts every stream once (one replica each)."""
    s_sup = nodes_used / nodes_total if nodes_total else 0.0
    remote = 1.0 - local_fraction
    weight = np.ones_like(remote) if edges is None else np.asarray(edges, dtype=float)
    s_co = float((remote * weight).sum() / weight.sum()) if remote.size and weight.sum() > 0 else 0.0
    total = float(stream_tuples.sum())
    s_event = float((remote * stream_tuples).sum() / total) if total > 0 else 0.0
    violations = int((cpu_utilization > utilization_limit + 1e-12).sum()
                     + (memory_used > memory_capacity + 1e-9).sum())
    w1, w2, w3, w4 = weights
    score = w1 * s_lat_ms + w2 * s_sup + w3 * s_co + w4 * s_event
    return LatencyScore(s_lat_ms, s_sup, s_co, s_event, violations, score)
