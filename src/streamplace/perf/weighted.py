"""Weighted cluster utilization of Nasiri et al. 2023, Eq. 7–8.

Machine type t gets the weight x_t = Σ_c (1/e_ct) / Σ_t' (1/e_ct') summed over
the topology's components c (here: its operators); we divide by the number
of components so the weights sum to 1 (the paper's sum runs to C and is
then used as a weighted average, which only makes sense normalized). The
overall utilization is U = Σ_t x_t · ū_t with ū_t the mean CPU utilization of
all machines of type t.
"""

from __future__ import annotations

import numpy as np

from streamplace.model.cluster import Cluster


def type_weights(e: np.ndarray, cluster: Cluster) -> np.ndarray:
    """x_t per machine type from per-(operator, node) e; operators with e = 0 carry no weight."""
    _, first = np.unique(cluster.type_index, return_index=True)
    return type_weights_by_type(e[:, first])


def type_weights_by_type(e_type: np.ndarray) -> np.ndarray:
    """x_t per machine type from e per (operator, type) (perf.cells.type_costs); operators with e = 0 carry no
    weight."""
    n_types = e_type.shape[1]
    inv = np.zeros((e_type.shape[0], n_types))
    for t in range(n_types):
        col = e_type[:, t]
        positive = col > 1e-12  # below that an operator is free (and 1/e would overflow)
        inv[:, t] = np.where(positive, 1.0 / np.where(positive, col, 1.0), 0.0)
    rows = inv.sum(axis=1)
    share = np.divide(inv, rows[:, None], out=np.zeros_like(inv), where=rows[:, None] > 0)
    counted = int((rows > 0).sum())
    return share.sum(axis=0) / counted if counted else np.full(n_types, 1.0 / n_types)


def weighted_utilization(node_utilization: np.ndarray, e: np.ndarray, cluster: Cluster, *,
                         by_type: bool = False) -> float:
    """U = Σ_t x_t ū_t (Eq. 7) for per-node utilizations (fractions of CPU); ``e`` per (operator, node), or per
    (operator, type) with ``by_type`` (perf.cells.type_costs: no operators × nodes table)."""
    weights = type_weights_by_type(e) if by_type else type_weights(e, cluster)
    means = np.array([node_utilization[cluster.type_index == t].mean() for t in range(len(cluster.types))])
    return float((weights * means).sum())
