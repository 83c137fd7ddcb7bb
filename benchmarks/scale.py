"""Planning at Storm's large-cluster scale and at ten times it, end to end through the CLI.

Two instances of Storm's large-cluster test shape (bench.topologies.storm_large):

* 1 k: 1,000 nodes in 25 racks, 5 spouts × 30 and 40 bolts × 114 tasks (4,710
  replicas). Goal: scheduling plus the model's prediction in the library under
  2 s each (Storm's Resource Aware Scheduler needed about 7 s per such topology
  after its optimization work).
* 10 k: 10,000 nodes in 100 racks, 5 spouts × 100 and 40 bolts × 1,250 tasks
  (50,500 replicas). Goal: under 3 s and 1.5 GB each, end to end through the CLI.

For each, the spec files are written to a temporary directory — the topology as
YAML, the cluster three ways: node groups (``count``, one entry per rack), a
JSON listing of every node, a YAML listing of every node — and ``streamplace
plan TOPO CLUSTER -s SCHEDULER --json`` runs in its own process, timed from
process start to the JSON on stdout, its peak resident memory read from the
kernel (getrusage of a waiting parent). The plans from the three cluster files
must place every replica on the same node (by rack and position); the script
fails otherwise. The YAML listing is printed for comparison only: parsing
10,000 YAML mappings takes libyaml's C parser and PyYAML's constructor about
3 s on 2 cores, so large clusters are written as node groups or JSON.

Run: .venv/bin/python benchmarks/scale.py [--only 1k|10k] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import yaml

from streamplace.bench.clusters import racks
from streamplace.bench.topologies import storm_large
from streamplace.spec.loader import cluster_to_doc, topology_to_doc

SHAPES = {
    # name: (racks, nodes per rack, spout tasks, bolt tasks, goal seconds, goal measured in the library or the CLI)
    "1k": (25, 40, 30, 114, 2.0, "library"),
    "10k": (100, 100, 100, 1250, 3.0, "cli"),
}
MEMORY_GOAL_MB = 1536.0
SCHEDULERS = ("r-storm", "ffd")

#: runs the CLI in a child and prints the child's wall time and peak RSS (KiB on Linux) as JSON
_MEASURE = textwrap.dedent("""\
    import json, resource, subprocess, sys, time
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"rc": done.returncode, "wall_s": wall, "rss_kb": peak, "stdout": done.stdout,
                      "stderr": done.stderr[-2000:]}))
    """)


def write_specs(directory: Path, n_racks: int, per_rack: int, spout_tasks: int, bolt_tasks: int) -> dict[str, Path]:
    cluster = racks(n_racks, per_rack)
    topology = storm_large(5, spout_tasks, 40, bolt_tasks)
    files = {"topology": directory / "topology.yaml", "groups": directory / "cluster-groups.yaml",
             "json": directory / "cluster.json", "yaml": directory / "cluster.yaml"}
    files["topology"].write_text(yaml.safe_dump(topology_to_doc(topology), sort_keys=False))
    doc = cluster_to_doc(cluster)
    files["json"].write_text(json.dumps(doc))
    files["yaml"].write_text(yaml.safe_dump(doc, sort_keys=False))
    node = cluster.nodes[0]
    groups = [{"id": f"r{r + 1:03d}", "count": per_rack, "rack": f"rack{r + 1:02d}", "type": node.type,
               "cpu": node.cpu, "memory_mb": node.memory_mb, "bandwidth_mbps": node.bandwidth_mbps,
               "slots": node.slots, "cost_per_hour": node.cost_per_hour} for r in range(n_racks)]
    files["groups"].write_text(yaml.safe_dump({"name": cluster.name, "links": doc["links"], "nodes": groups},
                                              sort_keys=False))
    return files


def plan_cli(topology: Path, cluster: Path, scheduler: str) -> dict:
    exe = str(Path(sys.executable).with_name("streamplace"))
    done = subprocess.run([sys.executable, "-c", _MEASURE, exe, "plan", str(topology), str(cluster), "-s", scheduler,
                           "--json"], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise SystemExit(f"streamplace plan failed on {cluster.name}: {result['stderr']}")
    result["plan"] = json.loads(result.pop("stdout"))
    return result


def library_seconds(n_racks: int, per_rack: int, spout_tasks: int, bolt_tasks: int, scheduler: str,
                    repeat: int) -> float:
    """Median wall seconds of ``create(scheduler).plan`` with the spark engine's prediction, in this process."""
    import time

    from streamplace.perf.engines import EngineSettings
    from streamplace.schedulers import create

    cluster, topology = racks(n_racks, per_rack), storm_large(5, spout_tasks, 40, bolt_tasks)
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        create(scheduler).plan(topology, cluster, engine=EngineSettings("spark"))
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def placement(plan: dict, cluster_ids: list[str]) -> dict[str, dict[int, int]]:
    """The plan by node position (the three cluster files name the same nodes differently)."""
    at = {node_id: k for k, node_id in enumerate(cluster_ids)}
    return {op: {at[n]: c for n, c in per.items()} for op, per in plan["replicas"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SHAPES), help="one instance only")
    parser.add_argument("--repeat", type=int, default=1, help="runs per file and scheduler (median reported)")
    args = parser.parse_args()
    failed = False
    from streamplace.spec.loader import load_cluster

    for name, (n_racks, per_rack, spout_tasks, bolt_tasks, goal, where) in SHAPES.items():
        if args.only and name != args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            files = write_specs(Path(tmp), n_racks, per_rack, spout_tasks, bolt_tasks)
            replicas = 5 * spout_tasks + 40 * bolt_tasks
            sizes = {k: files[k].stat().st_size // 1024 for k in ("groups", "json", "yaml")}
            print(f"{name}: {n_racks * per_rack:,} nodes in {n_racks} racks, 45 operators, {replicas:,} replicas; "
                  f"cluster files: node groups {sizes['groups']} KiB, JSON listing {sizes['json']} KiB, "
                  f"YAML listing {sizes['yaml']} KiB")
            ids = {k: list(load_cluster(files[k]).ids) for k in ("groups", "json", "yaml")}
            for scheduler in SCHEDULERS:
                lib_s = library_seconds(n_racks, per_rack, spout_tasks, bolt_tasks, scheduler, args.repeat)
                if where == "library":
                    ok = lib_s < goal
                    failed |= not ok
                    print(f"  {scheduler:8s} library: scheduling and prediction {lib_s:.2f} s (goal < {goal:g} s: "
                          f"{'meets' if ok else 'MISSES'})")
                else:
                    print(f"  {scheduler:8s} library: scheduling and prediction {lib_s:.2f} s")
                placements = {}
                for kind in ("groups", "json", "yaml"):
                    runs = [plan_cli(files["topology"], files[kind], scheduler) for _ in range(args.repeat)]
                    wall = statistics.median(r["wall_s"] for r in runs)
                    rss_mb = max(r["rss_kb"] for r in runs) / 1024
                    plan = runs[0]["plan"]
                    placements[kind] = placement(plan, ids[kind])
                    if kind == "yaml" or where != "cli":
                        verdict = "no goal" if kind != "yaml" else "for comparison, no goal"
                    else:
                        ok = wall < goal and rss_mb < MEMORY_GOAL_MB
                        failed |= not ok
                        verdict = (f"goal < {goal:g} s and < {MEMORY_GOAL_MB / 1024:g} GB: "
                                   f"{'meets' if ok else 'MISSES'}")
                    print(f"  {scheduler:8s} {kind:6s} end to end {wall:5.2f} s, peak {rss_mb:6.0f} MB, scheduling "
                          f"{plan['planning_ms'] / 1000:.2f} s, {plan['status']}, nodes used "
                          f"{plan['predicted'].get('nodes_used')} ({verdict})")
                same = placements["groups"] == placements["json"] == placements["yaml"]
                failed |= not same
                print(f"  {scheduler:8s} same placement from the three cluster files: {'yes' if same else 'NO'}")
    if not args.only:
        failed |= not wide_topology_load()
    if failed:
        raise SystemExit(1)


def wide_topology_load(n: int = 8000, goal_s: float = 2.0) -> bool:
    """Load a YAML topology of ``n`` operators (a chain plus a random stream into every third one): goal < 2 s
    (issue 21: 8,000 operators took 28 s, a 20 MB spec never finished — quadratic scans in cycle and kind
    checks)."""
    import random

    from streamplace.spec.loader import load_topology

    rng = random.Random(1)
    ops = [{"id": "o0", "kind": "source", "rate": 10}] + [{"id": f"o{i}"} for i in range(1, n)]
    streams = [{"from": f"o{i - 1}", "to": f"o{i}"} for i in range(1, n)]
    streams += [{"from": f"o{rng.randrange(i)}", "to": f"o{i}"} for i in range(2, n, 3)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wide.yaml"
        path.write_text(yaml.safe_dump({"name": "wide", "operators": ops, "streams": streams}), encoding="utf-8")
        started = time.perf_counter()
        topology = load_topology(path)
        topology.cycle_warnings()
        wall = time.perf_counter() - started
        size = path.stat().st_size // 1024
    ok = wall < goal_s
    print(f"topology of {len(topology.operators):,} operators and {len(streams):,} streams ({size} KiB YAML): loaded "
          f"and checked in {wall:.2f} s (goal < {goal_s:g} s: {'meets' if ok else 'MISSES'})")
    return ok


if __name__ == "__main__":
    main()
