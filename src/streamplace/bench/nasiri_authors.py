"""Nasiri et al.'s (2023) own data: the profiling blocks of the authors' simulator, as built-in instances.

The authors published their simulator (github.com/h-nasiri/Scheduling-Simulator,
``Scheduler_Simulator.py``, Python 2). Each of its data blocks lists, per
(component, machine), the input rate at profiling IR0, the selectivity α, a
slope Y (input tuples/s per CPU percent) and the CPU use at profiling U0, and
predicts CPU = (IR − IR0)/Y + U0 per instance on a machine of capacity 100. That
is the paper's TCU = e·IR + MET with e = 1/Y percent per tuple/s — ``cost_ms`` =
10/Y in streamplace's units — and MET = U0 − IR0/Y.

Transcribed here (reference data, not code): the RollingCount blocks (machine
types ``authors-a``, ``-b``, ``-c``; the authors label ``c`` AMD) and the
UniqueVisitor blocks (``authors-x`` — AMD —, ``-y``, ``-z``), with the machine
layouts of their scenarios. Assumptions, where the file leaves room:

* the first bolt receives the topology's input directly (the simulator gives it
  input degree 0 and does not model the spout): our spout costs nothing;
* machines have capacity 100 (one core) and no memory limit (the file has none);
* scenario 3's block lists machine 0 twice for the first bolt and no machine 3;
  we follow the second bolt's rows, which give machine 3 type ``a``;
* the block the file leaves active (3 tasks on 2 machines, slopes 0.045–0.35)
  is not used: its units differ from every other block (MET would be −2,800)
  and its rows lack the commas Python needs.

Ratios of the most tuples/s one machine sustains at 100 % ((100 − MET)·Y) run
from 3.8 : 1.7 : 1 (RollingCount's split) to 12.7 : 12.4 : 1 (UniqueVisitor's
second bolt), and MET from 6 to 36 % of a machine — where the built-in
``nasiri-*`` instances assume one speed-up per machine and MET 2.
"""

from __future__ import annotations

from streamplace.model.cluster import Cluster, Links, Node
from streamplace.model.profile import Profile, ProfileEntry
from streamplace.model.topology import Operator, Stream, Topology

#: (IR0, α, Y, U0) per bolt and machine type, from the authors' data blocks
RC_TYPES = {
    "authors-a": ((295, 10, 160, 10), (2872, 1, 1586, 10)),
    "authors-b": ((244, 10, 72, 10), (2300, 1, 697, 10)),
    "authors-c": ((277, 10, 60, 40), (1853, 1, 299, 30)),
}
UV_TYPES = {
    "authors-x": ((300, 1, 239, 30), (381, 0.5, 91, 40)),
    "authors-y": ((2806, 1, 680, 10), (2909, 0.5, 774, 10)),
    "authors-z": ((2866, 1, 927, 10), (3013, 0.5, 790, 10)),
}
#: scenario → (benchmark, machine types in the order of the authors' machine ids, what the file calls it)
SCENARIOS = {
    "rc-s2": ("rc", "abcabcabc", "senario 2 Rc"),
    "rc-s3": ("rc", "abcabcbbb", "senario 3 RC"),
    "rc-s5": ("rc", "cbacbacac", "Senario 5 FOR RC"),
    "rc-amd": ("rc", "ccccccccc", "all Machine AMD in RollingCount"),
    "rc-5a": ("rc", "aaaaa", "five machines of the first type"),
    "uv-s5": ("uv", "xyzxyzxzx", "Senario 5 FOR UV"),
    "uv-amd": ("uv", "xxxxxxxxx", "all Machine AMD in UniqueVisitor"),
    "uv-5z": ("uv", "zzzzz", "five machines of the third type"),
}
BOLTS = {"rc": ("split", "count"), "uv": ("view", "unique")}


def topology(bench: str) -> Topology:
    """spout → bolt1 → bolt2 with the authors' selectivities (the costs come from the profile)."""
    types = RC_TYPES if bench == "rc" else UV_TYPES
    first, second = BOLTS[bench]
    alpha1, alpha2 = next(iter(types.values()))[0][1], next(iter(types.values()))[1][1]
    ops = (Operator("spout", "source", rate=100.0, cost_ms=0.0, overhead=0.0, memory_mb=1.0),
           Operator(first, cost_ms=1.0, selectivity=float(alpha1), memory_mb=1.0),
           Operator(second, "sink", cost_ms=1.0, selectivity=float(alpha2), memory_mb=1.0))
    name = "rollingcount-authors" if bench == "rc" else "uniquevisitor-authors"
    return Topology(name, ops, (Stream("spout", first), Stream(first, second)))


def cluster(scenario: str) -> Cluster:
    _, layout, _ = SCENARIOS[scenario]
    nodes = tuple(Node(id=f"m{k}-{t}", cpu=100.0, memory_mb=1e9, type=f"authors-{t}", slots=10)
                  for k, t in enumerate(layout))
    return Cluster(f"nasiri-authors-{scenario}", nodes, Links(same_rack_ms=0.1, cross_rack_ms=0.5))


def profile(bench: str) -> Profile:
    """cost_ms = 10/Y and MET = U0 − IR0/Y per (bolt, machine type)."""
    types = RC_TYPES if bench == "rc" else UV_TYPES
    entries = []
    for node_type, rows in types.items():
        for bolt, (ir0, _alpha, y, u0) in zip(BOLTS[bench], rows, strict=True):
            entries.append(ProfileEntry(bolt, node_type, 10.0 / y, max(0.0, u0 - ir0 / y)))
    return Profile(tuple(entries))
