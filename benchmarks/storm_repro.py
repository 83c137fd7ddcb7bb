"""The papers' Storm results under the ``storm`` engine model: what serialization and flow control change.

* Peng et al. 2015 (R-Storm), network-bound micro-benchmarks (Linear, Diamond, Star,
  1,000-byte tuples, 12 single-core nodes in 2 racks, 100 Mbit/s NICs):
  R-Storm vs Storm's default (round robin). Paper: R-Storm +50 %, +30 %, +47 %.
* Ecker et al. 2025 (latency-aware placement), co-location on the 11-worker continuum:
  hill climbing / hybrid / R-Storm vs the default. Paper: throughput factors
  1.5–8× (Table 2, averaged over CPU reservations).

Each is shown under the ``ideal`` model (no cost for crossing nodes, no flow
control), the ``storm`` engine with Storm's defaults (``max_spout_pending``
null: no flow control; serialization 4 µs + 2 µs/KB each way, our assumption),
and the ``storm`` engine with flow control at several ``max_spout_pending``
values (the papers do not say theirs).

    .venv/bin/python benchmarks/storm_repro.py
"""

from __future__ import annotations

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.perf.engines import EngineSettings, StormSettings
from streamplace.perf.evaluate import evaluate
from streamplace.schedulers import create

PAPER_001 = {"linear-net": 0.50, "diamond-net": 0.30, "star-net": 0.47}
PENDING = (None, 1000, 300, 100, 30, 10)


def engines() -> list[tuple[str, EngineSettings | None]]:
    out: list[tuple[str, EngineSettings | None]] = [("ideal", None)]
    for pending in PENDING:
        label = "storm, defaults" if pending is None else f"storm, pending {pending}"
        out.append((label, EngineSettings("storm", storm=StormSettings(max_spout_pending=pending))))
    return out


def gain(topo: str, cluster: str, better: str, base: str, engine: EngineSettings | None,
         seed: int | None = None) -> tuple[float, float, str]:
    t, c = resolve_topology(topo), resolve_cluster(cluster)
    params = {"seed": str(seed)} if seed is not None else {}
    b = evaluate(t, c, create(base).plan(t, c), engine=engine)
    x = evaluate(t, c, create(better, params).plan(t, c), engine=engine)
    return x.throughput, b.throughput, x.bottleneck


def main() -> None:
    print("Peng et al. 2015: R-Storm vs Storm's default on rstorm-12, network-bound (throughput t/s; gain)")
    print(f"{'topology':12s} {'engine':18s} {'default':>10s} {'R-Storm':>10s} {'gain':>8s} {'paper':>7s}  "
          "R-Storm's bottleneck")
    for topo, paper in PAPER_001.items():
        for label, eng in engines():
            x, b, why = gain(topo, "rstorm-12", "r-storm", "round-robin", eng)
            print(f"{topo:12s} {label:18s} {b:10,.0f} {x:10,.0f} {x / b - 1:+8.0%} {paper:+7.0%}  {why}")
    print("\nEcker et al. 2025: throughput factor over Storm's default on continuum-11 (paper: 1.5–8×)")
    names = ("t-m1", "t-m2", "t-m3", "t-r1", "t-r4", "t-r7")
    print(f"{'topology':9s} {'engine':18s} " + " ".join(f"{s:>14s}" for s in ("hill-climbing", "hybrid", "r-storm")))
    for topo in names:
        for label, eng in engines():
            factors = []
            for sched in ("hill-climbing", "hybrid", "r-storm"):
                x, b, _ = gain(topo, "continuum-11", sched, "round-robin", eng,
                               seed=0 if sched != "r-storm" else None)
                factors.append(x / b if b > 0 else float("inf"))
            print(f"{topo:9s} {label:18s} " + " ".join(f"{f:14.2f}" for f in factors))


if __name__ == "__main__":
    main()
