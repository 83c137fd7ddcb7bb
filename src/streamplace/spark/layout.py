"""How a cluster spec becomes Spark standalone workers, and a plan becomes resource requests (pure).

Every node of the spec is one standalone worker. A worker advertises two custom
resources through discovery scripts:

* ``sp_<node>`` with one address: the node's identity. An application pins an
  operator's replicas on node u by running them in a stage whose ResourceProfile
  asks each executor for ``sp_<u>`` = 1 and each task for 1/k of it, with k =
  ``replica_slots(u)`` executor cores: only u's worker has that resource, so those
  executors — and the up to k tasks each runs at once — can only start there. One
  executor per node then serves every operator placed on that node, and since k
  does not depend on the plan, every plan and re-plan shares that profile and
  keeps the running executors.
* ``spare`` with one address: what executors of the default profile (stages that
  are not an operator's, e.g. reading a rate source) ask for, so they can never
  take the cores an operator's executor needs.

The cores rule (no stage waits forever for executors): worker u has
``replica_slots(u) + 1`` cores — room for the pinned executor's k, plus one for
the spare executor. Executors that hold shuffle data stay alive under shuffle tracking,
but each holds its own node's or the spare address, so a stage's executor never
competes with another stage's for the same cores. A plan that puts more replicas
of one operator on u than ``replica_slots(u)`` is refused before it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology

SPARE = "spare"
EXECUTOR_MEMORY_MB = 768  # one pinned executor per node (all its operators' tasks)
SPARE_MEMORY_MB = 512


def resource_name(node_id: str) -> str:
    """The custom resource that identifies a node's worker (Spark resource names are config-key parts)."""
    return "sp_" + re.sub(r"[^A-Za-z0-9]", "_", node_id)


@dataclass(frozen=True)
class WorkerLayout:
    node: str
    resource: str
    replica_slots: int  # the most replicas of one operator this worker runs at once
    speedup: float

    @property
    def cores(self) -> int:
        return self.replica_slots + 1

    @property
    def memory_mb(self) -> int:
        # the pinned executor with room for a second (one profile per node, so a re-plan reuses it) and the spare
        return 2 * EXECUTOR_MEMORY_MB + SPARE_MEMORY_MB


def worker_layout(cluster: Cluster, replica_slots: int | None = None) -> list[WorkerLayout]:
    """One worker per node; ``replica_slots`` defaults to the node's cores (cpu / 100, at least its slots)."""
    names: dict[str, str] = {}
    out = []
    for node in cluster.nodes:
        name = resource_name(node.id)
        if name in names:
            raise ModelError([Problem(f"nodes.{node.id}.id", f"{node.id!r} and {names[name]!r} map to the same "
                                      f"Spark resource name {name!r}", "rename one of them")])
        names[name] = node.id
        slots = replica_slots or max(node.slots, int(-(-node.cpu // 100)))
        out.append(WorkerLayout(node.id, name, int(slots), float(node.speedup)))
    return out


@dataclass(frozen=True)
class Branch:
    """The replicas of one operator on one node: global replica indices [offset, offset + count)."""

    node: str
    resource: str
    offset: int
    count: int


def branches(plan: Plan, op_id: str, workers: list[WorkerLayout]) -> list[Branch]:
    """An operator's replicas split by node, in the cluster's node order (so replica indices are stable)."""
    counts = plan.replicas.get(op_id, {})
    out, offset = [], 0
    for w in workers:
        c = int(counts.get(w.node, 0))
        if c > 0:
            out.append(Branch(w.node, w.resource, offset, c))
            offset += c
    return out


def reread_stages(topology: Topology, plan: Plan) -> int:
    """Exchange stages per micro-batch that re-read an operator's cached output for one more node: a chain's
    output on each of its nodes is read by one exchange per downstream stage (one per node a successor is placed
    on) — the first computes it, every other one is a stage of its own on that node reading the cached part (a
    stage cannot read a subset of another shuffle's partitions). The spark engine does not count them. Chains as
    the pinned runtime fuses them (model/fusion.py; dead-letter outputs are not known here). O(operators +
    streams)."""
    from streamplace.model.fusion import fused_chains

    readers = stage_readers(topology, plan)
    return sum(_nodes(plan, chain[-1]) * max(readers[chain[-1]] - 1, 0)
               for chain in fused_chains(topology, plan.replicas))


def stage_readers(topology: Topology, plan: Plan) -> dict[str, int]:
    """Per operator, the pinned stages that read its output: one per node each successor is placed on (the
    runtime persists an output read more than once)."""
    return {op.id: sum(_nodes(plan, t) for t in topology.successors(op.id)) for op in topology.operators}


def _nodes(plan: Plan, op_id: str) -> int:
    """The nodes an operator has replicas on: one pinned stage each."""
    return sum(1 for c in plan.replicas.get(op_id, {}).values() if c > 0)


def check_enactable(topology: Topology, plan: Plan, workers: list[WorkerLayout], where: str = "plan") -> None:
    """Refuse a plan the workers cannot run: unknown nodes, or more replicas of one operator than a worker's slots."""
    by_node = {w.node: w for w in workers}
    problems = []
    for op in topology.operators:
        placed = plan.replicas.get(op.id, {})
        if not any(c > 0 for c in placed.values()):
            problems.append(Problem(f"replicas.{op.id}", "the plan places no replica of this operator",
                                    "plan again with a scheduler that places every operator"))
        for node, c in placed.items():
            if node not in by_node:
                known = ", ".join(by_node)
                problems.append(Problem(f"replicas.{op.id}.{node}", f"no worker for node {node!r}",
                                        f"start the cluster from the spec the plan was made for ({known})"))
            elif c > by_node[node].replica_slots:
                problems.append(Problem(f"replicas.{op.id}.{node}",
                                        f"{c} replicas, but the worker runs at most {by_node[node].replica_slots} "
                                        "of one operator at once",
                                        "restart the cluster with a larger --replica-slots, or re-plan"))
    if problems:
        raise ModelError(problems, where)


def link_latencies(cluster: Cluster) -> dict[str, dict[str, float]]:
    """Every ordered pair of distinct nodes' one-way latency (ms), as PipelineConfig.link_latency_ms takes it."""
    lat = cluster.latency
    ids = cluster.ids
    return {a: {b: float(lat[i, j]) for j, b in enumerate(ids) if j != i} for i, a in enumerate(ids)}
