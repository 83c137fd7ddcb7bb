"""Every scheduler on random valid instances: plans that break a hard constraint, crashes, time-limit overruns.

    python benchmarks/fuzz_schedulers.py [--instances 320] [--time-limit 5] [--schedulers a,b,...] [--seed 0]

Instances come from ``streamplace.bench.random_instances`` (seed, seed+1, …). Each plan
whose status is ``ok`` or ``timeout`` is checked here, independently of the
schedulers' own code, for the hard constraints: every replica on a known node its
operator may run on (pinning), no node's memory exceeded, every operator placed,
the requested replica counts where the scheduler keeps them, and the declared CPU
points where the scheduler treats them as hard (ffd, r-storm with cpu=hard).
An overclaim is a plan whose scheduler chose the source rates (hetero, optimal,
exhaustive) while the model's evaluation of that plan sustains less than them.
A refusal is a streamplace error with its reason (exhaustive refuses a search
space above its ``max_candidates``); a crash is any other exception out of
``plan``; an overrun is a plan that took longer than its time limit plus one
second. Goal (issue 21): 0 violations, 0 crashes, 0 overruns. Prints one row
per scheduler and the first few failures with their seed.
"""

from __future__ import annotations

import argparse
import time
import traceback
from collections import Counter, defaultdict

from streamplace.bench.random_instances import random_instance
from streamplace.errors import StreamplaceError
from streamplace.model.cluster import Cluster
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.schedulers import create, scheduler_names
from streamplace.schedulers.base import offered_rates

#: parameters a scheduler cannot run without (ODRP's normalization bounds: the paper's Table 2)
EXTRA_PARAMS = {"odrp": {"preset": "debs2015"}, "odp": {"preset": "debs2015"}}


def hard_violations(plan: Plan, topology: Topology, cluster: Cluster, keeps_counts: bool, cpu_hard: bool) -> list[str]:
    """The hard constraints ``plan`` breaks, computed from its replica map alone."""
    out = []
    nodes = {n.id: n for n in cluster.nodes}
    memory: defaultdict[str, float] = defaultdict(float)
    cpu: defaultdict[str, float] = defaultdict(float)
    for op in topology.operators:
        per = plan.replicas.get(op.id, {})
        total = sum(per.values())
        if total < 1:
            out.append(f"{op.id} has no replica")
        if keeps_counts and total != op.replicas:
            out.append(f"{op.id} has {total} replicas, {op.replicas} requested")
        for node, count in per.items():
            if node not in nodes:
                out.append(f"{op.id} on unknown node {node}")
            elif op.pinned is not None and node not in op.pinned:
                out.append(f"{op.id} on {node}, pinned to {list(op.pinned)}")
            memory[node] += count * op.memory_mb
            cpu[node] += count * op.cpu
    for node, used in memory.items():
        if node in nodes and used > nodes[node].memory_mb + 1e-6:
            out.append(f"{node}: {used:.0f} MB placed, {nodes[node].memory_mb:.0f} MB available")
    if cpu_hard:
        for node, used in cpu.items():
            if node in nodes and used > nodes[node].cpu + 1e-6:
                out.append(f"{node}: {used:.0f} CPU points placed, {nodes[node].cpu:.0f} available")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=320)
    ap.add_argument("--time-limit", type=float, default=5.0)
    ap.add_argument("--schedulers", default=",".join(scheduler_names()))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    names = [s.strip() for s in args.schedulers.split(",") if s.strip()]
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    failures: list[str] = []
    refusals: dict[str, str] = {}
    started = time.perf_counter()
    for seed in range(args.seed, args.seed + args.instances):
        topology, cluster = random_instance(seed)
        for name in names:
            scheduler = create(name, {"time_limit_s": args.time_limit} | EXTRA_PARAMS.get(name, {}))
            row = stats[name]
            row["runs"] += 1
            t0 = time.perf_counter()
            try:
                plan = scheduler.plan(topology, cluster)
            except StreamplaceError as exc:  # a refusal with its reason (exhaustive: a search too large to run)
                row["refused"] += 1
                refusals[name] = f"{type(exc).__name__}: {exc}"
                continue
            except Exception as exc:  # a crash is what this benchmark counts
                row["crashes"] += 1
                failures.append(f"{name} seed {seed}: crash {type(exc).__name__}: {exc}\n"
                                + "".join(traceback.format_exc(limit=-3)))
                continue
            wall = time.perf_counter() - t0
            row["max_ms"] = max(row["max_ms"], round(wall * 1000))
            if wall > args.time_limit + 1.0:
                row["overruns"] += 1
                failures.append(f"{name} seed {seed}: {wall:.1f} s with a {args.time_limit:g} s limit")
            row[plan.status] += 1
            if plan.status == "infeasible":
                continue
            row["checked"] += 1
            cpu_hard = bool(scheduler.cpu_hard)  # a property of R-Storm (its cpu parameter)
            broken = hard_violations(plan, topology, cluster, not type(scheduler).chooses_parallelism, cpu_hard)
            if broken:
                row["violations"] += 1
                failures.append(f"{name} seed {seed}: {plan.status} but {'; '.join(broken[:3])}")
            scale = plan.predicted.get("sustainable_scale")
            if dict(plan.source_rates) != offered_rates(topology) and scale is not None and scale < 1 - 1e-6:
                row["overclaims"] += 1
                failures.append(f"{name} seed {seed}: claims source rates its plan sustains {scale:.3f}× of")
    total: Counter[str] = Counter()
    print(f"{args.instances} random instances (seeds {args.seed}..{args.seed + args.instances - 1}), time limit "
          f"{args.time_limit:g} s, {time.perf_counter() - started:.0f} s in all")
    print(f"{'scheduler':<14} {'runs':>5} {'ok':>5} {'timeout':>7} {'infeas.':>7} {'refused':>7} {'checked':>7} "
          f"{'violations':>10} {'overclaims':>10} {'crashes':>7} {'overruns':>8} {'slowest':>10}")
    for name in names:
        r = stats[name]
        total.update({k: v for k, v in r.items() if k != "max_ms"})
        print(f"{name:<14} {r['runs']:>5} {r['ok']:>5} {r['timeout']:>7} {r['infeasible']:>7} {r['refused']:>7} "
              f"{r['checked']:>7} {r['violations']:>10} {r['overclaims']:>10} {r['crashes']:>7} {r['overruns']:>8} "
              f"{r['max_ms']:>7} ms")
    print(f"{'all':<14} {total['runs']:>5} {total['ok']:>5} {total['timeout']:>7} {total['infeasible']:>7} "
          f"{total['refused']:>7} {total['checked']:>7} {total['violations']:>10} {total['overclaims']:>10} "
          f"{total['crashes']:>7} "
          f"{total['overruns']:>8}")
    for name, reason in refusals.items():
        print(f"refused by {name}, e.g.: {reason[:160]}")
    for what in ("violations", "overclaims", "crashes", "overruns"):
        print(f"{what}: {total[what]} — goal 0: {'met' if total[what] == 0 else 'NOT met'}")
    for line in failures[:15]:
        print("  " + line)


if __name__ == "__main__":
    main()
