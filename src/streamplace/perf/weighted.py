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
    n_types = len(cluster.types)
    inv = np.zeros((e.shape[0], n_types))
    for t in range(n_types):
        cols = np.flatnonzero(cluster.type_index == t)
        col = e[:, cols[0]]
        positive = col > 1e-12  # below that an operator is free (and 1/e would overflow)
        inv[:, t] = np.where(positive, 1.0 / np.where(positive, col, 1.0), 0.0)
    rows = inv.sum(axis=1)
    share = np.divide(inv, rows[:, None], out=np.zeros_like(inv), where=rows[:, None] > 0)
    counted = int((rows > 0).sum())
    return share.sum(axis=0) / counted if counted else np.full(n_types, 1.0 / n_types)


def weighted_utilization(node_utilization: np.ndarray, e: np.ndarray, cluster: Cluster) -> float:
    """U = Σ_t x_t ū_t (Eq. 7) for per-node utilizations (fractions of CPU)."""
    weights = type_weights(e, cluster)
    means = np.array([node_utilization[cluster.type_index == t].mean() for t in range(len(cluster.types))])
    return float((weights * means).sum())
