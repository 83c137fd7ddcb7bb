"""Where each operator may run: its ``pinned`` nodes, else anywhere (a model fact, used by perf and schedulers)."""

from __future__ import annotations

import numpy as np

from streamplace.model.cluster import Cluster
from streamplace.model.topology import Topology


def allowed_mask(topology: Topology, cluster: Cluster) -> np.ndarray:
    """(n_ops, n_nodes) booleans: where each operator may run (its ``pinned`` list, else anywhere)."""
    mask = np.ones((len(topology.operators), len(cluster)), dtype=bool)
    for i, op in enumerate(topology.operators):
        if op.pinned is not None:
            mask[i] = False
            mask[i, [cluster.index[n] for n in op.pinned if n in cluster.index]] = True
    return mask
