"""Peng et al. 2015 (R-Storm) §6.3–6.5 in the model: R-Storm against Storm's default, with the paper's figures beside.

* §6.3.1 network-bound micro-benchmarks (Linear, Diamond, Star; 1,000-byte tuples) on
  rstorm-12 (12 single-core nodes, 2 racks, 100 Mbit/s): throughput gain. Paper: +50, +30, +47 %.
* §6.3.2 computation-bound ones (CPU points as declared, 10 tuples/s per spout task):
  machines used and mean CPU utilization of the machines used. Paper: Linear 6 of 12 machines?
  (not stated) and +69 % CPU utilization; Diamond 7 of 12 machines, +91 %; Star half the
  machines, +350 %.
* §6.4 Yahoo PageLoad and Processing on rstorm-12: throughput gain. Paper: +50 % and +47 %.
* §6.5 both Yahoo topologies on rstorm-24 (two 12-node sub-clusters), scheduled one after the
  other by R-Storm (each sees what the first left) and by Storm's default (each round robin
  over all 24 nodes), evaluated together: each node's CPU and NIC are shared by both. Paper:
  PageLoad 25,496 tuples/10 s with R-Storm, about 53 % above the default; Processing near zero
  under the default.

Each under the papers' ideal model, under the ``storm`` engine with Storm's defaults (no flow
control; serialization per tuple and KB) and with flow control at 30 and 10 pending tuples per
spout task (``st/p30``, ``st/p10``; the paper does not give its setting — docs/papers.md, "The papers'
Storm results"). The model scales all sources of an evaluation by
one factor, so in §6.5 both topologies slow down together when a shared node saturates; a
topology cannot starve alone as Processing did in the paper.

    .venv/bin/python benchmarks/repro_rstorm.py [--markdown FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from markdown_out import write_markdown

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, StormSettings
from streamplace.perf.evaluate import evaluate
from streamplace.perf.together import evaluate_together
from streamplace.schedulers import create
from streamplace.schedulers.rstorm import RStorm

ENGINES: list[tuple[str, EngineSettings | None]] = [
    ("ideal", None), ("storm", EngineSettings("storm", storm=StormSettings(max_spout_pending=None))),
    ("st/p30", EngineSettings("storm", storm=StormSettings(max_spout_pending=30))),
    ("st/p10", EngineSettings("storm", storm=StormSettings(max_spout_pending=10)))]
NET_PAPER = {"linear-net": "+50%", "diamond-net": "+30%", "star-net": "+47%"}
CPU_PAPER = {"linear-cpu": "CPU +69%", "diamond-cpu": "7 of 12 machines, CPU +91%",
             "star-cpu": "half the machines, CPU +350%"}
YAHOO_PAPER = {"pageload": "+50%", "processing": "+47%"}


def both(topology: str, cluster: str, engine: EngineSettings | None):
    t, c = resolve_topology(topology), resolve_cluster(cluster)
    rs = evaluate(t, c, create("r-storm").plan(t, c), engine=engine)
    rr = evaluate(t, c, create("round-robin").plan(t, c), engine=engine)
    return rs, rr


def together(topologies: list[Topology], plans: list[Plan], cluster, engine):
    """Each topology's sink rate when both share the cluster, each at its own max-min fair scale."""
    shared = evaluate_together(topologies, plans, cluster, engine=engine)
    used = {u for ev in shared.alone for u in ev.nodes_used}
    return dict(zip([t.name for t in topologies], shared.throughputs, strict=True)), shared, len(used)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", type=Path, help="also write the tables, ours beside the paper's, as Markdown")
    args = ap.parse_args()
    md: list[str] = ["#### §6.3.1 network-bound, rstorm-12: throughput (tuples/s), R-Storm against the default", "",
                     "| topology | model | default | R-Storm | gain | paper |", "| --- | --- | --- | --- | --- | --- |"]
    print("§6.3.1 network-bound, rstorm-12: throughput (t/s) R-Storm vs default")
    for topo, paper in NET_PAPER.items():
        for label, eng in ENGINES:
            rs, rr = both(topo, "rstorm-12", eng)
            gain = rs.throughput / rr.throughput - 1
            print(f"  {topo:12s} {label:6s} default {rr.throughput:9,.0f}  R-Storm {rs.throughput:9,.0f}  "
                  f"gain {gain:+6.0%}  (paper {paper})")
            md.append(f"| {topo} | {label} | {rr.throughput:,.0f} | {rs.throughput:,.0f} | {gain:+.0%} | {paper} |")
    md += ["", "#### §6.3.2 computation-bound, rstorm-12: machines used and their mean CPU utilization", "",
           "| topology | model | default: machines, CPU | R-Storm: machines, CPU | CPU gain | throughput gain "
           "| paper |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    print("\n§6.3.2 computation-bound, rstorm-12: machines used, mean CPU utilization of those machines")
    for topo, paper in CPU_PAPER.items():
        for label, eng in ENGINES:
            rs, rr = both(topo, "rstorm-12", eng)
            cpu = rs.mean_utilization / rr.mean_utilization - 1
            thr = rs.throughput / rr.throughput - 1
            print(f"  {topo:12s} {label:6s} default {len(rr.nodes_used):2d} machines, CPU {rr.mean_utilization:5.1%}; "
                  f"R-Storm {len(rs.nodes_used):2d}, CPU {rs.mean_utilization:5.1%} "
                  f"({cpu:+5.0%}); throughput {thr:+5.0%}  (paper {paper})")
            md.append(f"| {topo} | {label} | {len(rr.nodes_used)}, {rr.mean_utilization:.1%} | "
                      f"{len(rs.nodes_used)}, {rs.mean_utilization:.1%} | {cpu:+.0%} | {thr:+.0%} | {paper} |")
    md += ["", "#### §6.4 Yahoo topologies, rstorm-12: throughput (tuples/s)", "",
           "| topology | model | default | R-Storm | gain | paper |", "| --- | --- | --- | --- | --- | --- |"]
    print("\n§6.4 Yahoo topologies, rstorm-12: throughput gain of R-Storm over the default")
    for name, paper in YAHOO_PAPER.items():
        for variant in ("net", "cpu"):
            for label, eng in ENGINES:
                rs, rr = both(f"{name}-{variant}", "rstorm-12", eng)
                gain = rs.throughput / rr.throughput - 1
                print(f"  {name}-{variant:3s} {label:6s} default {rr.throughput:9,.0f}  R-Storm {rs.throughput:9,.0f}  "
                      f"gain {gain:+6.0%}  (paper {paper})")
                md.append(f"| {name}-{variant} | {label} | {rr.throughput:,.0f} | {rs.throughput:,.0f} | {gain:+.0%} "
                          f"| {paper} |")
    md += ["", "#### §6.5 PageLoad and Processing together on rstorm-24: each topology's throughput (tuples/s)", "",
           "| variant | model | PageLoad: default, R-Storm | Processing: default, R-Storm "
           "| machines (default / R-Storm) | bound by (default / R-Storm) |",
           "| --- | --- | --- | --- | --- | --- |"]
    print("\n§6.5 PageLoad and Processing together on rstorm-24: each topology's throughput (t/s)")
    cluster = resolve_cluster("rstorm-24")
    for variant in ("net", "cpu"):
        topos = [resolve_topology(f"pageload-{variant}"), resolve_topology(f"processing-{variant}")]
        rstorm_plans = RStorm().plan_many(topos, cluster)
        default_plans = [create("round-robin").plan(t, cluster) for t in topos]
        for label, eng in ENGINES:
            rs, rs_shared, rs_used = together(topos, rstorm_plans, cluster, eng)
            rr, rr_shared, rr_used = together(topos, default_plans, cluster, eng)
            cells = "  ".join(f"{t.name}: default {rr[t.name]:9,.0f}, R-Storm {rs[t.name]:9,.0f} "
                              f"({rs[t.name] / rr[t.name] - 1:+5.0%})" for t in topos)
            print(f"  {variant} {label:6s} {cells}  | machines {rr_used} / {rs_used}")
            print(f"      bound by: default {'; '.join(rr_shared.bound_by)} | R-Storm {'; '.join(rs_shared.bound_by)}")
            md.append(f"| {variant} | {label} | " + " | ".join(
                f"{rr[t.name]:,.0f}, {rs[t.name]:,.0f} ({rs[t.name] / rr[t.name] - 1:+.0%})" for t in topos)
                + f" | {rr_used} / {rs_used} | {', '.join(rr_shared.bound_by)} / {', '.join(rs_shared.bound_by)} |")
    print("  paper: PageLoad 2,550 t/s with R-Storm (25,496 tuples/10 s), ~+53 % over the default; Processing "
          "near zero under the default")
    md += ["", "Paper (§6.5): PageLoad 2,550 tuples/s with R-Storm (25,496 tuples per 10 s), about +53 % over the "
           "default; Processing near zero under the default."]
    if args.markdown:
        write_markdown(args.markdown, "\n".join(md) + "\n")


if __name__ == "__main__":
    main()
