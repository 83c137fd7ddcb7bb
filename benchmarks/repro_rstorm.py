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

The verdict table (``--verdicts --markdown FILE``: the paper's value, ours, a verdict by verdicts.py's rule) is
under the storm engine with Storm's defaults; it also says how much of the Yahoo topologies' traffic crosses
the racks' link.

    .venv/bin/python benchmarks/repro_rstorm.py [--verdicts] [--markdown FILE]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import verdicts as V
from markdown_out import write_markdown

from streamplace.bench import resolve_cluster, resolve_topology
from streamplace.model.plan import Plan
from streamplace.model.topology import Topology
from streamplace.perf.engines import EngineSettings, StormSettings
from streamplace.perf.evaluate import Evaluation, evaluate
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


#: §6.3.2 as the paper states it: machines R-Storm used (None: not stated), CPU-utilization gain, and what Fig. 9
#: says of throughput (0: "as well as" the default; None: higher, by an amount not given)
CPU_STATED = {"linear-cpu": (None, 0.69, 0.0), "diamond-cpu": (7, 0.91, 0.0), "star-cpu": (6, 3.50, None)}
#: §6.5: PageLoad 25,496 and 16,695 tuples per 10 s (R-Storm, default); Processing 67,115 per 10 s and 10 t/s
PAGELOAD_65, PROCESSING_65 = (1669.5, 2549.6), (10.0, 6711.5)


def cross_rack(ev: Evaluation) -> float:
    """The share of a plan's inter-node bytes that cross between racks."""
    return float(ev.streams.rack_out.sum() / ev.streams.inter_node_bytes.sum())


def verdict_table(net: dict[str, tuple[Evaluation, Evaluation]], cpu_bound: dict[str, tuple[Evaluation, Evaluation]],
                  yahoo: dict[str, tuple[Evaluation, Evaluation]],
                  sec65: dict[str, tuple[dict[str, float], dict[str, float]]]) -> list[str]:
    """§6.3–6.5 under the storm engine with Storm's defaults: the paper's value, ours, a verdict (verdicts.py)."""
    out = ["#### §6.3–6.5: the paper's value, ours (storm engine, Storm's defaults), verdict", "",
           "Gains are R-Storm's over the default (round robin); a gain is reproduced when 1 + gain is within 10 % of "
           "the paper's, direction only when it has the paper's sign.", "",
           "| figure | what | paper | ours | verdict |", "| --- | --- | --- | --- | --- |"]
    figs = {"linear": "Fig. 8a", "diamond": "Fig. 8b", "star": "Fig. 8c"}
    for topo, (rr, rs) in net.items():
        g = rs.throughput / rr.throughput - 1
        paper = float(NET_PAPER[topo].strip("+%")) / 100
        out.append(f"| §6.3.1 {figs[topo.split('-')[0]]} ({topo}) | throughput gain | {V.pct(paper)} | {V.pct(g)} "
                   f"({rr.throughput:,.0f} → {rs.throughput:,.0f} t/s) | {V.gain(g, paper)} |")
    for topo, (rr, rs) in cpu_bound.items():
        machines, cpu_paper, thr_paper = CPU_STATED[topo]
        used = len(rs.nodes_used)
        out.append(f"| §6.3.2 ({topo}) | machines R-Storm uses, of {len(rr.nodes_used)} | "
                   f"{'not stated' if machines is None else machines} | {used} | "
                   f"{'—' if machines is None else V.exact(used, machines)} |")
        g = rs.mean_utilization / rr.mean_utilization - 1
        out.append(f"| §6.3.2 Fig. 10 ({topo}) | CPU utilization of the machines used, gain | {V.pct(cpu_paper)} | "
                   f"{V.pct(g)} ({rr.mean_utilization:.1%} → {rs.mean_utilization:.1%}) | {V.gain(g, cpu_paper)} |")
        d = rs.delivered_throughput / rr.delivered_throughput - 1
        if thr_paper is None:
            said, v = "higher (not given)", V.DIRECTION if d > 0.005 else V.NOT
        else:
            said, v = "as well (equal)", "reproduced" if abs(d) <= 0.005 else V.NOT
        out.append(f"| §6.3.2 Fig. 9 ({topo}) | throughput at the offered rate, gain | {said} | {V.pct(d)} "
                   f"({rr.delivered_throughput:,.0f} → {rs.delivered_throughput:,.0f} t/s; headroom "
                   f"{V.pct(rs.throughput / rr.throughput - 1)}) | {v} |")
    for topo, (rr, rs) in yahoo.items():
        g = rs.throughput / rr.throughput - 1
        paper = float(YAHOO_PAPER[topo.split("-")[0]].strip("+%")) / 100
        out.append(f"| §6.4 Fig. 12 ({topo}) | throughput gain | {V.pct(paper)} | {V.pct(g)} "
                   f"({rr.throughput:,.0f} → {rs.throughput:,.0f} t/s) | {V.gain(g, paper)} |")
    for variant, (by_default, by_rstorm) in sec65.items():
        (pl_rr, pl_rs), (pr_rr, pr_rs) = PAGELOAD_65, PROCESSING_65
        ours = [by_default["pageload-" + variant], by_rstorm["pageload-" + variant]]
        g = ours[1] / ours[0] - 1
        out.append(f"| §6.5 Fig. 13 ({variant}) | PageLoad, throughput gain | {V.pct(pl_rs / pl_rr - 1)} | {V.pct(g)} "
                   f"| {V.gain(g, pl_rs / pl_rr - 1)} |")
        out.append(f"| §6.5 Fig. 13 ({variant}) | PageLoad, default → R-Storm (t/s) | {pl_rr:,.0f} → {pl_rs:,.0f} | "
                   f"{ours[0]:,.0f} → {ours[1]:,.0f} | default {V.value(ours[0], pl_rr)}, R-Storm "
                   f"{V.value(ours[1], pl_rs)} |")
        proc = [by_default["processing-" + variant], by_rstorm["processing-" + variant]]
        out.append(f"| §6.5 Fig. 13 ({variant}) | Processing, default → R-Storm (t/s) | {pr_rr:,.0f} (near a halt) → "
                   f"{pr_rs:,.0f} | {proc[0]:,.0f} → {proc[1]:,.0f} | default {V.NOT} (a steady-state model cannot "
                   f"starve a topology), R-Storm {V.value(proc[1], pr_rs)} |")
    pl, pr = yahoo["pageload-net"], yahoo["processing-net"]
    out += ["", f"Across the racks' link (§6.4, network-bound): {cross_rack(pl[1]) * 100:.0f} % of PageLoad's "
            f"inter-node bytes under R-Storm, {cross_rack(pl[0]) * 100:.0f} % under round robin; Processing "
            f"{cross_rack(pr[1]) * 100:.0f} % against {cross_rack(pr[0]) * 100:.0f} %."]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", type=Path, help="also write the tables, ours beside the paper's, as Markdown")
    ap.add_argument("--verdicts", action="store_true",
                    help="the Markdown is the verdict table (the paper's value, ours, verdict) instead of the tables")
    args = ap.parse_args()
    net: dict[str, tuple[Evaluation, Evaluation]] = {}
    cpu_bound: dict[str, tuple[Evaluation, Evaluation]] = {}
    yahoo: dict[str, tuple[Evaluation, Evaluation]] = {}
    sec65: dict[str, tuple[dict[str, float], dict[str, float]]] = {}
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
            if label == "storm":
                net[topo] = (rr, rs)
    md += ["", "#### §6.3.2 computation-bound, rstorm-12: machines used and their mean CPU utilization", "",
           "| topology | model | default: machines, CPU | R-Storm: machines, CPU | CPU gain "
           "| throughput at the offered rate: default, R-Storm | headroom: sustainable throughput, R-Storm against "
           "the default | paper |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    print("\n§6.3.2 computation-bound, rstorm-12: machines used, mean CPU utilization of those machines")
    for topo, paper in CPU_PAPER.items():
        for label, eng in ENGINES:
            rs, rr = both(topo, "rstorm-12", eng)
            cpu = rs.mean_utilization / rr.mean_utilization - 1
            thr = rs.throughput / rr.throughput - 1
            print(f"  {topo:12s} {label:6s} default {len(rr.nodes_used):2d} machines, CPU {rr.mean_utilization:5.1%}; "
                  f"R-Storm {len(rs.nodes_used):2d}, CPU {rs.mean_utilization:5.1%} "
                  f"({cpu:+5.0%}); delivered {rr.delivered_throughput:,.0f} / {rs.delivered_throughput:,.0f} t/s; "
                  f"headroom {thr:+5.0%}  (paper {paper})")
            md.append(f"| {topo} | {label} | {len(rr.nodes_used)}, {rr.mean_utilization:.1%} | "
                      f"{len(rs.nodes_used)}, {rs.mean_utilization:.1%} | {cpu:+.0%} | "
                      f"{rr.delivered_throughput:,.0f}, {rs.delivered_throughput:,.0f} | {thr:+.0%} | {paper} |")
            if label == "storm":
                cpu_bound[topo] = (rr, rs)
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
                if label == "storm":
                    yahoo[f"{name}-{variant}"] = (rr, rs)
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
            if label == "storm":
                sec65[variant] = (rr, rs)
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
        text = verdict_table(net, cpu_bound, yahoo, sec65) if args.verdicts else md
        write_markdown(args.markdown, "\n".join(text) + "\n")


if __name__ == "__main__":
    main()
