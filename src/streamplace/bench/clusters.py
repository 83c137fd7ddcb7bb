"""Built-in clusters.

* ``rstorm-12`` — R-Storm's testbed (Peng et al. 2015 §6.1): 12 workers in 2 racks of
  6, one 3 GHz core (100 points), 2 GB RAM, 100 Mbit/s NICs, 4 ms inter-rack
  round trip (2 ms one way); 0.1 ms within a rack (assumed). The racks are the
  paper's two Emulab VLANs; the link joining them is assumed to be 100 Mbit/s
  like every other link of the testbed (``links.rack_uplink_mbps``; the paper
  gives only its latency), shared by all cross-rack traffic.
* ``rstorm-24`` — the multi-topology testbed (§6.5): 24 machines in two
  sub-clusters of 12.
* ``hetero-3``, ``hetero-6`` and ``hetero-12`` — Nasiri et al.'s (2023) heterogeneous machine types.
  Its Table 2 was lost; we assume (and say so): Pentium — 2 cores (200
  points), speed-up 1.0, 4 GB; Core i3 — 2 cores / 4 threads (400 points),
  speed-up 1.5, 4 GB; Core i5 — 4 cores (400 points), speed-up 2.2, 8 GB;
  1 Gbit/s switch. Speed-ups are single-thread ratios typical of those
  generations. ``hetero-3`` has one worker of each type (the paper's three
  workers); ``hetero-6`` two and ``hetero-12`` four of each in two racks.
* ``nasiri-small``, ``nasiri-medium``, ``nasiri-large`` — Nasiri et al.'s (2023) Table 4
  scenarios, whose sizes did not survive: we use 2, 4 and 8 machines of each
  type (6, 12 and 24 nodes).
* ``racks-RxN`` — a generator: R racks of N identical nodes (4 cores,
  16 GB, 1 Gbit/s), e.g. ``racks-25x40`` for Storm's 1,000-node test shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from streamplace.bench import nasiri_authors
from streamplace.bench.continuum import continuum11
from streamplace.bench.manufacturing import visp_vm
from streamplace.model.cluster import Cluster, Links, Node

HETERO_TYPES = {
    # machine type: (cpu points, memory MB, speed-up, cost per hour)
    "pentium": (200.0, 4096.0, 1.0, 0.02),
    "core-i3": (400.0, 4096.0, 1.5, 0.04),
    "core-i5": (400.0, 8192.0, 2.2, 0.08),
}


def rstorm(n_racks: int = 2, per_rack: int = 6, name: str | None = None) -> Cluster:
    nodes = tuple(
        Node(id=f"w{r * per_rack + k + 1:02d}", cpu=100.0, memory_mb=2048.0, type="emulab-3ghz",
             rack=f"rack{r + 1}", bandwidth_mbps=100.0, slots=4)
        for r in range(n_racks) for k in range(per_rack)
    )
    return Cluster(name or f"rstorm-{n_racks * per_rack}", nodes,
                   Links(same_rack_ms=0.1, cross_rack_ms=2.0, rack_uplink_mbps=100.0))


def hetero(per_type: int = 1, racks: int = 1, name: str | None = None) -> Cluster:
    nodes = []
    k = 0
    for t, (cpu, mem, speed, cost) in HETERO_TYPES.items():
        for j in range(per_type):
            nodes.append(Node(id=f"{t}-{j + 1}", cpu=cpu, memory_mb=mem, type=t, rack=f"rack{k % racks + 1}",
                              speedup=speed, cost_per_hour=cost, bandwidth_mbps=1000.0, slots=4))
            k += 1
    return Cluster(name or f"hetero-{len(nodes)}", tuple(nodes), Links(same_rack_ms=0.1, cross_rack_ms=0.5))


def debs(availability_split: bool = False, seed: int = 2016) -> Cluster:
    """Cardellini et al.'s (2017) testbed: 6 workers × 2 slots × 4 executors (8 replicas each), 8 cores, 16 GB.

    WAN delays between nodes: a Gaussian mean drawn in [12, 32] ms per pair (seeded; the per-packet
    standard deviation of 1–3 ms does not change a mean). ``availability_split``: nodes w4–w6 are
    99 % available (the Fig. 6 experiment), the others 100 %.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    ids = [f"w{k + 1}" for k in range(6)]
    nodes = tuple(Node(id=n, cpu=800.0, memory_mb=16384.0, type="xeon-e5504", rack=f"site{k + 1}", slots=2,
                       availability=0.99 if availability_split and k >= 3 else 1.0)
                  for k, n in enumerate(ids))
    delays = {a: {b: round(float(rng.uniform(12.0, 32.0)), 2) for b in ids[k + 1:]} for k, a in enumerate(ids)}
    name = "debs-6-avail" if availability_split else "debs-6"
    return Cluster(name, nodes, Links(same_rack_ms=0.0, cross_rack_ms=22.0, latency_ms=delays))


def racks(n_racks: int, per_rack: int) -> Cluster:
    nodes = tuple(
        Node(id=f"r{r + 1:02d}n{k + 1:03d}", cpu=400.0, memory_mb=16384.0, type="standard",
             rack=f"rack{r + 1:02d}", bandwidth_mbps=1000.0, slots=4, cost_per_hour=0.1)
        for r in range(n_racks) for k in range(per_rack)
    )
    return Cluster(f"racks-{n_racks}x{per_rack}", nodes, Links(same_rack_ms=0.1, cross_rack_ms=1.0))


BUILTIN_CLUSTERS: dict[str, tuple[Callable[[], Cluster], str]] = {
    "rstorm-12": (lambda: rstorm(2, 6), "R-Storm testbed: 12 × (1 core, 2 GB, 100 Mbit/s) in 2 racks"),
    "rstorm-24": (lambda: rstorm(2, 12), "R-Storm multi-topology testbed: 24 nodes in 2 racks of 12"),
    "hetero-3": (lambda: hetero(1, 1), "Nasiri et al. 2023: one Pentium, one Core i3, one Core i5"),
    "hetero-6": (lambda: hetero(2, 2), "Nasiri et al. 2023 types, two of each, in 2 racks"),
    "hetero-12": (lambda: hetero(4, 2), "Nasiri et al. 2023 types, four of each, in 2 racks"),
    "debs-6": (lambda: debs(False), "Cardellini et al. 2017: 6 workers × 8 replicas, WAN delays 12–32 ms (seeded)"),
    "debs-6-avail": (lambda: debs(True), "Cardellini et al. 2017 Fig. 6: debs-6 with w4–w6 at 99 % availability"),
    "visp-vm": (visp_vm, "Hochreiner et al. 2017: one VM of 4 vCPU / 7 GB (the simulator leases more)"),
    "continuum-11": (continuum11, "Ecker et al. 2025: 11 workers (1.5 / 1 / 0.3 cores), switch tree, 95 %"),
    # Nasiri et al. 2023 Table 4 scenarios (its sizes were lost; ours: 2, 4 and 8 machines of each type)
    "nasiri-small": (lambda: hetero(2, 1, "nasiri-small"), "Nasiri et al. 2023 scenario 1: 2 machines of each type"),
    "nasiri-medium": (lambda: hetero(4, 2, "nasiri-medium"), "Nasiri et al. 2023 scenario 2: 4 machines of each type"),
    "nasiri-large": (lambda: hetero(8, 4, "nasiri-large"), "Nasiri et al. 2023 scenario 3: 8 machines of each type"),
}

for _scenario, (_bench, _layout, _called) in nasiri_authors.SCENARIOS.items():
    BUILTIN_CLUSTERS[f"nasiri-authors-{_scenario}"] = (
        partial(nasiri_authors.cluster, _scenario),
        f"Nasiri et al.'s simulator, '{_called}': {len(_layout)} one-core machines of types {_layout} "
        f"(its profile: nasiri-authors-{_bench})")


RACKS_PATTERN = re.compile(r"^racks-(\d+)x(\d+)$")


def parametric_cluster(name: str) -> Cluster | None:
    m = RACKS_PATTERN.match(name)
    if m:
        r, n = int(m.group(1)), int(m.group(2))
        if r >= 1 and n >= 1 and r * n <= 100_000:
            return racks(r, n)
    return None
