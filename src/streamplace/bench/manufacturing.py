"""Hochreiner et al.'s (2017) manufacturing topology (CREMA, Fig. 1, Tables 1–2) and its VM type.

S1 availability sensor → O2 Filter Availability → O8 Inform User;
S2 production data → O1 Parse & Distribute → O3 / O4 / O5 (performance, availability, quality)
→ O7 Calculate OEE → O9 Generate Report → O8; S3 temperature → O6 Monitor Temperature → O8.

Rates are per manufacturing machine: Table 1's emissions per real-time minute happen every 480 ms in
the paper's runs (S1 5, S2 1, S3 10 items per 480 ms). Processing durations (ms), memory (MB) and
outgoing ratios are Table 2's (a ratio n:m is a selectivity of m/n; O1's 1:3 sends one item to each of
O3–O5, which the fan-out already does); CPU shares become CPU points at 1024 shares per core
(assumed). The VM: 4 vCPU, 7 GB (reference-data.md), priced 1 per 10 minutes.
"""

from __future__ import annotations

from streamplace.model.cluster import Cluster, Node
from streamplace.model.topology import Operator, Stream, Topology

CYCLE_S = 0.48
SENSORS = {"S1": 5, "S2": 1, "S3": 10}  # items per emission cycle per machine (Table 1)
SENSOR_BYTES = {"S1": 95, "S2": 12_500, "S3": 90}
#: id: (name, processing ms, CPU shares, memory MB, selectivity)
OPERATORS = {
    "O1": ("Parse and Distribute Data", 1500, 660, 452, 1.0),
    "O2": ("Filter Availability", 600, 131, 524, 1 / 50),
    "O3": ("Calculate Performance", 750, 100, 430, 1.0),
    "O4": ("Calculate Availability", 750, 83, 502, 1.0),
    "O5": ("Calculate Quality", 750, 77, 527, 1.0),
    "O6": ("Monitor Temperature", 600, 65, 440, 1 / 100),
    "O7": ("Calculate OEE", 700, 46, 464, 1 / 3),
    "O8": ("Inform User", 500, 74, 466, 0.0),
    "O9": ("Generate Report", 1300, 47, 452, 1 / 300),
}
EDGES = [("S1", "O2"), ("O2", "O8"), ("S2", "O1"), ("O1", "O3"), ("O1", "O4"), ("O1", "O5"), ("O3", "O7"),
         ("O4", "O7"), ("O5", "O7"), ("O7", "O9"), ("O9", "O8"), ("S3", "O6"), ("O6", "O8")]
VM_CPU, VM_MEMORY, PRICE_PER_10_MIN = 400.0, 7168.0, 1.0


def manufacturing(machines: float = 1.0) -> Topology:
    ops = [Operator(s, "source", rate=n * machines / CYCLE_S, cost_ms=0.0, memory_mb=64,
                    bytes_per_tuple=SENSOR_BYTES[s], logic={"name": "sensor", "sensor": s})
           for s, n in SENSORS.items()]
    for oid, (name, ms, shares, mem, alpha) in OPERATORS.items():
        ops.append(Operator(oid, "sink" if oid == "O8" else "operator", cost_ms=float(ms),
                            cpu=round(shares / 1024 * 100, 1), memory_mb=float(mem), selectivity=alpha,
                            logic={"name": "oee", "operator": name}))
    # O7 joins the three results of a production cycle, so they are key-grouped by the cycle id
    streams = tuple(Stream(a, b, "key", "value") if b == "O7" else Stream(a, b) for a, b in EDGES)
    return Topology("manufacturing", tuple(ops), streams)


def visp_vm(count: int = 1) -> Cluster:
    """``count`` VMs of Hochreiner et al.'s (2017) type (4 vCPU, 7 GB); the simulator leases more of the same."""
    nodes = tuple(Node(f"vm-{k + 1}", cpu=VM_CPU, memory_mb=VM_MEMORY, type="visp-4vcpu-7gb",
                       cost_per_hour=PRICE_PER_10_MIN * 6, slots=4) for k in range(count))
    return Cluster("visp-vm", nodes)
