"""How a cluster spec becomes Spark standalone workers, and a plan becomes placed replicas (pure).

Every node of the spec is one standalone worker, a host of its own to Spark's scheduler (on one machine each
binds to its own loopback address, standalone.node_hosts), whose environment names its node (``NODE_ENV``).
A worker also advertises the custom resource ``sp_<node>`` (one address: the node's identity in the master's
list of workers) and ``spare``.

An application gets one executor per worker with all its cores. An operator's replicas are numbered in the
cluster's node order (:func:`branches`); replica l is task l of the operator's stage, and that task prefers
the host of replica l's node (task locality, pipeline.locate): at most ``replica_slots(u)`` replicas of one
operator on node u run at once there.

The cores rule: worker u has ``replica_slots(u) + 1`` cores — room for k replicas of a chain, plus one for the
task that reads a source's micro-batch (it has no preferred node). A plan that puts more replicas of one
operator on u than ``replica_slots(u)`` is refused before it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamplace.errors import ModelError, Problem
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology

SPARE = "spare"
#: the environment variable naming the node a worker serves (`cluster up` and the worker recipe set it): its
#: executor and Python workers inherit it, and a task reports where it really ran by it (operators.py)
NODE_ENV = "STREAMPLACE_NODE"
EXECUTOR_MEMORY_MB = 768  # the application's one executor per node (all its operators' tasks)
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
    #: the host the worker's executor runs on (what a placed task's preferred location names); "" where unknown
    host: str = ""

    @property
    def cores(self) -> int:
        return self.replica_slots + 1

    @property
    def memory_mb(self) -> int:
        # the application's executor, with room for a second application's (calibration, a benchmark beside)
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


def spark_spread(plan: Plan, workers: list[WorkerLayout]) -> Plan:
    """The plan's replica counts as Spark's own scheduler spreads them (placement "spark"): each operator's tasks
    dealt one per worker in turn, in the cluster's order, skipping a worker whose replica slots are full — what
    TaskSchedulerImpl's rounds of one task per executor with free cores give in expectation, on executors that
    are all free (the order of its shuffled offers is chance; this one is fixed, so the prediction is
    reproducible). Operators of equal counts get the same nodes, as the runtime fuses them. O(replicas)."""
    import dataclasses

    replicas: dict[str, dict[str, int]] = {}
    for op, per in plan.replicas.items():
        n = sum(int(c) for c in per.values())
        counts = dict.fromkeys((w.node for w in workers), 0)
        room = sum(w.replica_slots for w in workers)
        while n > 0 and room > 0:
            for w in workers:
                if n > 0 and counts[w.node] < w.replica_slots:
                    counts[w.node] += 1
                    n -= 1
                    room -= 1
        if n > 0:
            raise ModelError([Problem(f"replicas.{op}", f"{n} more replicas than the workers' slots",
                                      "re-plan with fewer replicas")])
        replicas[op] = {node: c for node, c in counts.items() if c}
    return dataclasses.replace(plan, replicas=replicas)


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
                                        "restart the cluster with a larger [[replica_slots]], or re-plan"))
    if problems:
        raise ModelError(problems, where)


def link_latencies(cluster: Cluster) -> dict[str, dict[str, float]]:
    """Every ordered pair of distinct nodes' one-way latency (ms), as PipelineConfig.link_latency_ms takes it."""
    lat = cluster.latency
    ids = cluster.ids
    return {a: {b: float(lat[i, j]) for j, b in enumerate(ids) if j != i} for i, a in enumerate(ids)}
