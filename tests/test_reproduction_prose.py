"""docs/reproduction.md's and docs/papers.md's prose quotes what the generated blocks print.

The blocks are checked against their scripts by tests/test_reproduction_docs.py; here every figure the
hand-written text around them states is computed from the block it comes from, formatted as the text has it,
and looked up in the text (whitespace folded). Machine-dependent timings and one-off measurements are not
asserted: the text must say what they are instead.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    return load_script(ROOT / "scripts" / "reproduction_docs.py")


_DOCS = ROOT / "docs"


@dataclass(frozen=True)
class _Page:
    blocks: dict[str, str]  # command → block text
    prose: str  # everything outside the blocks, whitespace folded to single spaces


@functools.cache
def _page(name: str = "reproduction.md") -> _Page:
    tool = _tool()
    lines = (_DOCS / name).read_text().splitlines()
    found = tool.blocks(lines)
    outside, last = [], 0
    for b in found:
        outside += lines[last:b.start - 1]
        last = b.stop + 1
    outside += lines[last:]
    return _Page({b.command: b.text for b in found}, " ".join(" ".join(outside).split()))


def _table(command: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first table after the line starting with ``heading`` in ``command``'s block."""
    lines = _page().blocks[command].splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(heading))
    while not lines[i].startswith("|"):
        i += 1
    header = _cells(lines[i])
    rows = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, _cells(line), strict=True)))
    return rows


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells; a pipe escaped as \\| stays inside its cell."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _row(rows: list[dict[str, str]], **match: str) -> dict[str, str]:
    (hit,) = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return hit


def _nums(cell: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[-−+]?\d[\d,]*(?:\.\d+)?", cell.replace("−", "-"))]


def _says(*phrases: str, page: str = "reproduction.md") -> None:
    prose = _page(page).prose
    missing = [p for p in phrases if p not in prose]
    assert not missing, f"docs/{page} does not say (or no longer says) what its blocks print: {missing}"


def _pct(cell: str) -> str:
    """A block's gain cell (+33% or −3 %) as the prose writes it: +33 or −3."""
    return f"{_nums(cell)[0]:+.0f}".replace("-", "−")


RSTORM = "benchmarks/repro_rstorm.py"
RSTORM_V = "benchmarks/repro_rstorm.py --verdicts"
RSTORM_T = "benchmarks/repro_rstorm_time.py"
PL_GAIN = "PageLoad gain against the paper's"  # the §6.5 over-time table's verdict column


def test_the_rstorm_prose_quotes_its_blocks() -> None:
    v = _table(RSTORM_V, "#### §6.3–6.5")
    gain = {r["figure"].split("(")[1].rstrip(")"): r["ours"] for r in v if r["what"] == "throughput gain"}
    default = {k: _nums(c)[1] for k, c in gain.items() if k.endswith("-net")}
    _says(f"which caps it ({default['linear-net']:,.0f} / {default['diamond-net']:,.0f} / "
          f"{default['star-net']:,.0f} tuples/s)",
          f"Diamond's {_pct(gain['diamond-net'])} % and Star's {_pct(gain['star-net'])} % are near the paper's +30 / "
          f"+47 %; Linear's {_pct(gain['linear-net'])} % is {('four' if _nums(gain['linear-net'])[0] == 200 else '?')}"
          " times the paper's +50 %")
    used = [_nums(r["ours"])[0] for r in v if r["what"].startswith("machines R-Storm uses")]
    _says(f"onto {min(used):.0f}–{max(used):.0f} of the 12 machines")
    cross = _nums(_page().blocks[RSTORM_V].split("Across the racks' link")[1])
    _says(f"{cross[1]:.0f} % of PageLoad's inter-node traffic crosses the link under R-Storm against {cross[2]:.0f} % "
          f"under round robin (Processing: {cross[3]:.0f} % against {cross[4]:.0f} %), and PageLoad comes out "
          f"{-_nums(gain['pageload-net'])[0]:.0f} % behind")
    pl = _row(v, figure="§6.5 Fig. 13 (net)", what="PageLoad, default → R-Storm (t/s)")
    _says(f"(2,550 t/s with R-Storm, 1,670 under the default) is near our default's {pl['ours'].split(' → ')[0]} t/s; "
          f"our R-Storm's {pl['ours'].split(' → ')[1]} is higher")
    # "the gains are the same under the ideal model and at 30 pending": every table of the full block
    for heading in ("#### §6.3.1", "#### §6.4"):
        rows = _table(RSTORM, heading)
        for topo in {r["topology"] for r in rows}:
            assert len({r["gain"] for r in rows if r["topology"] == topo and r["model"] != "st/p10"}) == 1, topo


def test_the_rstorm_over_time_summary_quotes_its_blocks() -> None:
    """The hand-written summary of repro_rstorm_time.py (10 minutes of CPU: its block is not rerun here) against
    that block and the steady-state one."""
    net = _table(RSTORM_T, "#### §6.3.1")
    y = _table(RSTORM_T, "#### §6.4")
    s65 = _table(RSTORM_T, "#### §6.5")

    def g(rows: list[dict[str, str]], topo: str, setting: str) -> str:
        return _pct(_row(rows, topology=topo, setting=setting)["gain"])

    def pair(rows: list[dict[str, str]], topo: str) -> str:
        return f"{g(rows, topo, 'defaults')} / {g(rows, topo, 'P=30')} %"

    _says(f"| {pair(net, 'linear-net')}, {pair(net, 'diamond-net')}, {pair(net, 'star-net')} |",
          f"| {pair(y, 'pageload-net')}, {pair(y, 'processing-net')} |",
          f"| {pair(y, 'pageload-cpu')}, {pair(y, 'processing-cpu')} |")
    steady = _table(RSTORM, "#### §6.4")
    sg = {r["topology"]: _pct(r["gain"]) for r in steady if r["model"] == "storm"}
    _says(f"| {sg['pageload-net']} %, {sg['processing-net']} % |",
          f"| {sg['pageload-cpu']} %, {sg['processing-cpu']} % |")
    d, p30 = _row(s65, variant="net", setting="defaults"), _row(s65, variant="net", setting="P=30")
    dn, pn = _nums(d["PageLoad: default, R-Storm (gain)"]), _nums(p30["PageLoad: default, R-Storm (gain)"])
    _says(f"| {dn[0]:,.0f} → {dn[2]:,.0f} t/s ({dn[4]:+.0f} %) / {pn[0]:,.0f} → {pn[2]:,.0f} ({pn[4]:+.0f} %) |",
          f"default {abs(dn[0] / 1670 - 1):.0%} below the paper's (defaults), {pn[0] / 1670 - 1:.0%} above (P=30)"
          .replace("%", " %"))
    proc_d, proc_p = _nums(d["Processing: default, R-Storm"]), _nums(p30["Processing: default, R-Storm"])
    _says(f"| {proc_d[0]:,.0f} t/s, goodput {proc_d[1]:,.0f} / {proc_p[0]:,.0f}, goodput {proc_p[1]:,.0f} |",
          f"Processing keeps {proc_d[0]:,.0f} t/s under the default")
    fifo = _row(s65, variant="net", setting="FIFO NICs")
    fl, fp = _nums(fifo["PageLoad: default, R-Storm (gain)"]), _nums(fifo["Processing: default, R-Storm"])
    _says(f"Processing halts ({fp[0]:,.0f} t/s)", f"PageLoad halts as well ({fl[0]:,.0f} t/s",
          f"R-Storm's plans nearly ({fl[2]:,.0f} and {fp[2]:,.0f} t/s)")
    pl_rr = {r["setting"]: _nums(r["default: throughput (goodput)"])[0] for r in y if r["topology"] == "pageload-net"}
    pr = _row(y, topology="processing-net", setting="defaults")
    steady_pl = _nums(_row(steady, topology="pageload-net", model="storm")["default"])[0]
    steady_pr = _row(steady, topology="processing-net", model="storm")
    _says(f"PageLoad under round robin {pl_rr['defaults']:,.0f} and {pl_rr['P=30']:,.0f} t/s against "
          f"{steady_pl:,.0f}, Processing {_nums(pr['default: throughput (goodput)'])[0]:,.0f} against "
          f"{steady_pr['default']}",
          f"carries {_nums(pr['R-Storm: throughput (goodput)'])[0]:,.0f} t/s where the engine says "
          f"{steady_pr['R-Storm']}")
    cpu = _nums(_row(y, topology="pageload-cpu", setting="defaults")["R-Storm: throughput (goodput)"])
    _says(f"R-Storm's PageLoad goodput is {cpu[1]:.0f} of {cpu[0]:.0f} t/s")
    # the summary's verdicts are the block's: one per setting where the two settings differ

    def both(rows: list[dict[str, str]], column: str = "verdict", **match: str) -> str:
        a, b = (_row(rows, setting=setting, **match)[column] for setting in ("defaults", "P=30"))
        return a if a == b else f"{a} / {b}"

    _says(f"| Linear {both(net, topology='linear-net')}; Diamond {both(net, topology='diamond-net')}; Star "
          f"{both(net, topology='star-net')} |",
          f"| PageLoad {both(y, topology='pageload-net')}; Processing {both(y, topology='processing-net')} |",
          f"| PageLoad {both(y, topology='pageload-cpu')}; Processing {both(y, topology='processing-cpu')} |",
          f"; gain {both(s65, PL_GAIN, variant='net')} |")


ELASTIC = "benchmarks/elastic_repro.py"
SENSITIVITY = "benchmarks/elastic_repro.py --sensitivity --seeds 1"
PATTERNS = ("stepwise", "two-level", "random-walk-1", "random-walk-2")


def _span(xs: list[float]) -> str:
    return f"{min(xs):.0f}–{max(xs):.0f}" if round(min(xs)) != round(max(xs)) else f"{min(xs):.0f}"


def _elastic() -> dict[str, dict[str, dict[str, tuple[float, float]]]]:
    """pattern → metric → configuration → (ours, paper)."""
    out = {}
    for pattern in PATTERNS:
        rows = _table(ELASTIC, f"**{pattern}**")
        out[pattern] = {r["metric"]: {k: tuple(_nums(c)[:2]) for k, c in r.items() if k != "metric"} for r in rows}
    return out


def _sensitivity(variant: str) -> dict[str, dict[str, list[float]]]:
    """pattern → BTU60 / threshold / cost → the cells' numbers, for the variant whose label starts so."""
    rows = [r for r in _table(SENSITIVITY, "#### Sensitivity") if r["variant"].startswith(variant)]
    return {r["pattern"]: {"BTU60": _nums(r["BTU60"]), "threshold": _nums(r["threshold"]),
                           "cost": _nums(r["cost BTU10 / 30 / 60 vs baseline"])} for r in rows}


def test_the_hochreiner_prose_quotes_its_blocks() -> None:
    e = _elastic()
    nrt, rel, rt, cost = ("Near real-time compliance", "Relaxed compliance", "Real-time compliance", "Resource cost")
    btu60 = [e[p][nrt]["BTU60"] for p in PATTERNS]
    base = [e[p][nrt]["threshold/BTU60"] for p in PATTERNS]
    _says(f"BTU60's near real time is {_span([o for o, _ in btu60])} % against {_span([p for _, p in btu60])} %, "
          f"the baseline's {_span([o for o, _ in base])} % against {_span([p for _, p in base])} %",
          f"{_span([e[p][cost]['BTU60'][0] for p in PATTERNS])} against "
          f"{_span([e[p][cost]['threshold/BTU60'][0] for p in PATTERNS])} —")
    low, dflt = _sensitivity("service_ratio 0.15"), _sensitivity("defaults")
    _says(f"(0.15: {_span([low[p]['BTU60'][2] for p in PATTERNS])} % near real time) but not the baseline "
          f"({_span([low[p]['threshold'][2] for p in PATTERNS])} %), which stays "
          f"{_span([low[p]['threshold'][3] - low[p]['threshold'][2] for p in PATTERNS])} points below the paper's")
    drops = [dflt[p]["BTU60"][2] - _sensitivity(v)[p]["BTU60"][2] for v in ("20 % rule rounded up", "one instance per")
             for p in PATTERNS]
    _says(f"lowers BTU60's near real time by {_span(drops)} points")
    started = _sensitivity("billing of started")
    _says(f"committed billing adds {_span([dflt[p]['cost'][2] - started[p]['cost'][2] for p in PATTERNS])} to "
          "BTU60's cost")
    configs = ("BTU10", "BTU30", "BTU60", "threshold/BTU10")
    ours = [e[p][rel][c][0] - e[p][rt][c][0] for p in PATTERNS for c in configs]
    paper = [e[p][rel][c][1] - e[p][rt][c][1] for p in PATTERNS for c in configs]
    step = [f"{e['stepwise'][m]['BTU60'][0]:.0f}" for m in (rt, nrt, rel)]
    _says(f"now by {_span(ours)} (the paper's: {_span(paper)}; BTU60 stepwise {' / '.join(step)} %, paper 53 / 93 / "
          "95 %)")
    below = {c: [e[p][m][c][1] - e[p][m][c][0] for p in PATTERNS for m in (nrt, rel)]
             for c in ("BTU60", "threshold/BTU60")}
    _says(f"up to {max(below['BTU60'] + below['threshold/BTU60']):.0f} points below the paper's (BTU60 "
          f"{_span(below['BTU60'])}, the baseline {_span(below['threshold/BTU60'])})")
    s = e["stepwise"][cost]
    _says(f"(stepwise {s['BTU10'][0]:.0f} vs {s['threshold/BTU10'][0]:.0f} and {s['BTU30'][0]:.0f} vs "
          f"{s['threshold/BTU30'][0]:.0f}; paper {s['BTU10'][1]:.0f} vs {s['threshold/BTU10'][1]:.0f} and "
          f"{s['BTU30'][1]:.0f} vs {s['threshold/BTU30'][1]:.0f}")
    rt_below = [e[p][rt][c][1] - e[p][rt][c][0] for p in PATTERNS for c in ("BTU60", "threshold/BTU60")]
    _says(f"**Real time is {_span(rt_below)} points below the paper's**",
          f"{e['stepwise'][rt]['BTU60'][0]:.0f} % of items meeting real time")
    two = e["two-level"][nrt]
    _says(f"Two-level: BTU10 {two['BTU10'][0]:.0f} % near real time against BTU30's {two['BTU30'][0]:.0f} %")
    for page in ("reproduction.md", "papers.md"):
        _says(f"stepwise {s['BTU10'][0]:.0f} vs {s['threshold/BTU10'][0]:.0f}" if page == "reproduction.md" else
              f"({s['BTU10'][0]:.0f} vs {s['threshold/BTU10'][0]:.0f} and {s['BTU30'][0]:.0f} vs "
              f"{s['threshold/BTU30'][0]:.0f} on stepwise)", page=page)
    claims = "; ".join(f"{e[p][cost]['BTU60'][0]:.0f} vs {e[p][cost]['threshold/BTU60'][0]:.0f} "
                       f"({e[p][cost]['BTU60'][1]:.0f} vs {e[p][cost]['threshold/BTU60'][1]:.0f})" for p in PATTERNS)
    names = ("stepwise", "two-level", "random walk 1", "random walk 2")
    _says("resource cost " + ", ".join(f"{n} {c}" for n, c in zip(names, claims.split("; "), strict=True)),
          "near real time " + ", ".join(
              f"{e[p][nrt]['BTU60'][0]:.0f} vs {e[p][nrt]['threshold/BTU60'][0]:.0f} % "
              f"({e[p][nrt]['BTU60'][1]:.0f} vs {e[p][nrt]['threshold/BTU60'][1]:.0f} %)" for p in PATTERNS),
          f"stay {_span(below['BTU60'] + below['threshold/BTU60'])} points below it for BTU60 and the baseline",
          f"(0.15 lifts BTU60 to {_span([low[p]['BTU60'][2] for p in PATTERNS])} % near real time, the baseline stays "
          f"{_span([low[p]['threshold'][2] for p in PATTERNS])} %)", page="papers.md")


LATENCY = "benchmarks/repro_latency.py"
T14 = LATENCY + " --tables-1-4 --budget 10"
FIGS = "benchmarks/repro_ecker_figs.py"


def test_the_ecker_prose_quotes_its_blocks() -> None:
    t2 = _table(LATENCY, "#### Table 2 (ideal model)")
    t3 = _table(LATENCY, "#### Table 3 (ideal model)")

    def spans(rows: list[dict[str, str]], cols: tuple[str, ...], which: int) -> str:
        return " / ".join(f"{min(_nums(r[c])[which] for r in rows):.2f}–{max(_nums(r[c])[which] for r in rows):.2f}"
                          for c in cols)

    cols2 = ("hill-climbing", "ant-system", "hybrid", "r-storm")
    cols3 = ("hill-climbing", "ant-system", "hybrid", "round-robin")
    _says(f"| {spans(t2, cols2, 0)} | {spans(t2, cols2, 1)} |", f"| {spans(t3, cols3, 0)} |")
    means = _page().blocks[LATENCY].split("Means over T-R1…T-R7, ours (paper's): Table 2 ")[1]
    storm = _page().blocks[LATENCY + " --engine storm"].split("Means over T-R1…T-R7, ours (paper's): Table 2 ")[1]
    m, ms = _nums(means)[:12:3], _nums(storm)[:12:3]  # each: "1.71 (of 7) (2.09)"
    ours = " / ".join(f"{x:.2f}" for x in m)
    _says(f"| {ours} (storm engine: {' / '.join(f'{x:.2f}' for x in ms)}) | 2.09 / 1.83 / 2.01 / 2.11 |",
          f"hill climbing {m[0]:.2f} (paper 2.09), ant system {m[1]:.2f} (1.83), hybrid {m[2]:.2f} (2.01), R-Storm "
          f"{m[3]:.2f} (2.11); the storm engine changes them by at most "
          f"{max(abs(a - b) for a, b in zip(m, ms, strict=True)):.2f}")
    figs = _table(FIGS, "#### Figs. 6–8")

    def fig(figure: str, who: str) -> str:
        return _row(figs, figure=figure, what=f"{who}: mean factor over the default (Table 2)")["ours"]

    who = ("hill-climbing", "ant-system", "hybrid", "storm-ras")
    _says(f"T-R3 {' / '.join(fig('Fig. 6 (t-r3)', w) for w in who)}; T-R7 "
          f"{' / '.join(fig('Fig. 8 (t-r7)', w) for w in who)}")
    mean = _row(_table(FIGS, "#### Table 2 the paper's way"), topology="mean T-R1…T-R7")
    first = {w: _nums(mean[w])[0] for w in who}
    _says(f"RAS {first['storm-ras']:.2f} > ant {first['ant-system']:.2f} > HC {first['hill-climbing']:.2f} > hybrid "
          f"{first['hybrid']:.2f}", f"(1.32, against the ant system's {first['ant-system']:.2f}, hill climbing's "
          f"{first['hill-climbing']:.2f} and the hybrid's {first['hybrid']:.2f})")
    remote = _row(_table(FIGS + " --remote-us 1000", "#### Table 2 the paper's way"), topology="mean T-R1…T-R7")
    r = {w: _nums(remote[w])[0] for w in who}
    _says(f"HC {r['hill-climbing']:.2f} > ant {r['ant-system']:.2f} > RAS {r['storm-ras']:.2f} > hybrid "
          f"{r['hybrid']:.2f}", f"the T-R means rise to {r['hill-climbing']:.2f} / {r['ant-system']:.2f} / "
          f"{r['hybrid']:.2f} / {r['storm-ras']:.2f}")
    t3way = _nums(_page().blocks[FIGS].split("Means over the T-R topologies with a comparable placement")[1])
    _says(f"| {t3way[0]:.2f} / {t3way[3]:.2f} / {t3way[6]:.2f}, 1–9 placements per filled cell")
    per = {r["topology"]: r for r in _table(LATENCY, "#### Per topology on continuum-11 (ideal model)")}
    s7 = {k: _nums(per["t-r7"][k])[0] for k in ("hybrid", "hill-climbing", "ant-system", "r-storm", "round-robin")}
    _says(f"(e.g. t-r7: hybrid {s7['hybrid']:.3f}, hill climbing {s7['hill-climbing']:.3f}, ant system "
          f"{s7['ant-system']:.3f}, R-Storm {s7['r-storm']:.3f}, round robin {s7['round-robin']:.3f})",
          f"(t-r2: {_nums(per['t-r2']['hybrid'])[0]:.3f} vs {_nums(per['t-r2']['hill-climbing'])[0]:.3f}",
          f"t-r4: {_nums(per['t-r4']['hybrid'])[0]:.3f} vs {_nums(per['t-r4']['hill-climbing'])[0]:.3f})",
          page="papers.md")
    est = {r["topology"]: r for r in _table(LATENCY, "#### The hybrid with latencies estimated")}
    same = [t for t, r in est.items() if r["planned on the true latencies"] == r["on the estimates"]]
    assert all(_nums(est[t]["planned on the true latencies"])[0] == _nums(per[t]["hybrid"])[0] for t in est)
    error = _page().blocks[LATENCY].split("The estimates' median relative error: ")[1].split(";")[0]
    _says(f"(`-p latencies=estimated`, {error.replace('%', ' %')} median error on continuum-11; the block's "
          f"table of them) the hybrid's plans score the same under the true latencies as the true-latency plans "
          f"on {len(same)} of {len(est)} topologies",
          f"better on t-r1 ({est['t-r1']['on the estimates']} vs {est['t-r1']['planned on the true latencies']})",
          f"worse on t-r7 ({est['t-r7']['on the estimates']} vs {est['t-r7']['planned on the true latencies']})")
    assert _nums(est["t-r1"]["on the estimates"])[0] < _nums(est["t-r1"]["planned on the true latencies"])[0]
    assert _nums(est["t-r7"]["on the estimates"])[0] > _nums(est["t-r7"]["planned on the true latencies"])[0]
    # the block's verdicts: the paper's-way means, as the summary table states them
    v = {(r["table"], r["what"]): r for r in _table(LATENCY, "#### Tables 2–3 (ideal model): the paper's value")}
    assert [v["Table 2 the paper's way", f"{s}: mean over T-R1…T-R7"]["ours"] for s in cols2] == \
        [f"{x:.2f}" for x in m]
    # Table 3 by this earlier method gives no verdict of its own: repro_ecker_figs.py's block judges Table 3
    assert all(r["verdict"].startswith("no verdict here") for (table, _), r in v.items()
               if table == "Table 3 the paper's way")
    _says("machine-dependent", page="papers.md")
    # Tables 1 and 4 (their own block): the summary's figures and verdicts, recomputed from it
    t1 = _table(T14, "#### Table 1")
    assert all(r["paper"] == r["ours"] and r["verdict"] == "reproduced" for r in t1)
    _says(f"| equal on {len(t1)} of {len(t1)} (T-R1…T-R9's counts by construction")
    t4 = {r["topology"]: r for r in _table(T14, "#### Table 4: planning cost")}
    r7 = t4["t-r7"]["ours: HC / ant / hybrid"]
    claims = {r["claim"]: r for r in _table(T14, "#### Table 4 (§6.2.2)")}
    PAPER, OURS = "paper (ms)", "ours (placements scored)"
    hc, ant = (claims[f"{who}'s cost from t-m3 to t-r7 (the fewest and most operators): growth"]
               for who in ("hill climbing", "the ant system"))
    (scales,) = [r for k, r in claims.items() if k.startswith("the ant system scales better")]
    (ras,) = [r for k, r in claims.items() if k.startswith("the RAS the cheapest")]
    assert scales["verdict"] == "reproduced" and "; not reproduced on t-m1, t-m3 (" in ras["verdict"]
    cheap = ras[OURS].split(" (")[0]
    _says(f"| {r7}; {hc[OURS]} / {ant[OURS]} (the ant system scales better: reproduced); the RAS scores none "
          f"(cheapest {cheap}: not reproduced on T-M1 and T-M3) | ms: 1029 / 661 / 1020; {hc[PAPER]} / "
          f"{ant[PAPER]}; RAS cheapest {ras[PAPER].split(' (')[0]} |",
          f"(on T-R7 it scores {r7.split(' / ')[1]} placements to hill climbing's {r7.split(' / ')[0]})")


NASIRI = "benchmarks/repro_nasiri.py --replica-cap "
N_THREAD, N_MACHINE, N_MAC = NASIRI + "thread", NASIRI + "machine", NASIRI + "machine --capacity mac"
N_K10 = NASIRI + "machine --scenario-max-replicas 10 --scenarios-only"
MICRO = ("nasiri-linear", "nasiri-diamond", "nasiri-star")
PAIRS = ("rollingcount", "uniquevisitor")


def _f1(xs: list[float]) -> str:
    return " / ".join(f"{x:.1f}" for x in xs)


def _span1(xs: list[float]) -> str:
    return f"{min(xs):.1f}–{max(xs):.1f}"


def _nasiri_gaps(command: str) -> tuple[list[float], list[float]]:
    """hetero below the optimum on Linear, Diamond, Star, RollingCount, UniqueVisitor (%): the text's rules and the
    authors' code rules."""
    figs = {r["topology"]: r for r in _table(command, "#### Figs. 14–16")}
    pairs = {r["topology"]: r for r in _table(command, "#### Fig. 13")}
    text = [_nums(figs[t]["hetero below optimum"])[0] for t in MICRO]
    text += [_nums(pairs[t]["hetero below optimum"])[0] for t in PAIRS]
    code = [_nums(figs[t]["hetero, the authors' code rules: t/s, below optimum"])[1] for t in MICRO]
    code += [_nums(pairs[t]["hetero, the authors' code rules"].split("⟩")[1])[0] for t in PAIRS]
    return text, code


def _verdicts(command: str) -> list[dict[str, str]]:
    return _table(command, "#### Verdicts")


def test_the_nasiri_prose_quotes_its_blocks() -> None:
    """The gaps to the optimum, the gains over Storm 0.9.5's default and Table 5's ratios the prose of the Nasiri
    section quotes, from the three repro_nasiri.py blocks (checked against the script by the slow test above)."""
    thread, thread_code = _nasiri_gaps(N_THREAD)
    machine, machine_code = _nasiri_gaps(N_MACHINE)
    mac, mac_code = _nasiri_gaps(N_MAC)
    _says(f"| hetero-3 × 5 topologies | {_span1(machine)} % below |", f"| hetero-3 × 5 topologies | {_span1(thread)} "
          "% below |", f"hetero-3: {_span1(machine)} % against {_span1(thread)} % under the one-thread cap")
    names = ("Linear", "Diamond", "Star", "RollingCount", "UniqueVisitor")
    over = [f"{n} {g:.1f} %" for n, g in zip(names, thread, strict=True) if g > 4]
    top2 = sorted(zip(machine, names, strict=True))[-2:]
    top2_text = ", ".join(f"{n} {g:.1f} %" for g, n in sorted(top2, key=lambda x: names.index(x[1])))
    _says(f"Ours on hetero-3: {_span1(thread)} % below the optimum under one thread per replica, worse than the "
          f"paper's 4 % on {('two', 'three', 'four')[len(over) - 2]} topologies ({', '.join(over)}); under the "
          f"machine-only cap {_span1(machine)} % ({top2_text})",
          f"hetero is {_f1(machine[:3])} % below the optimum on Linear / Diamond / Star, and "
          f"{_f1(machine[3:])} % below on RollingCount / UniqueVisitor",
          f"with them, hetero is {_f1(machine_code[:3])} % and {_f1(machine_code[3:])} % below",
          f"the code's rules give {_f1(thread_code[:3])} %: within the paper's 4 %",
          f"({_f1(mac[:3])} % with the text's rules, {_f1(mac_code[:3])} % with the code's)",
          f"hetero-3 {_span1(thread)} % → {_span1(thread_code)} %")
    assert max(thread_code[:3]) <= 4
    figs = {r["topology"]: r for r in _table(N_MACHINE, "#### Figs. 14–16")}
    lin, uv = figs["nasiri-linear"], _row(_table(N_MACHINE, "#### Fig. 13"), topology="uniquevisitor")
    lin_code = lin["hetero, the authors' code rules: t/s, below optimum"].split(", ")[0]
    uv_code = _nums(uv["hetero, the authors' code rules"].split("⟩")[1])[0]
    _says(f"(Linear: {lin['hetero']} → {lin_code} t/s)",
          f"(UniqueVisitor: {_nums(uv['hetero below optimum'])[0]:.1f} → {uv_code:.1f} %)")
    rc = _row(_table(N_MACHINE, "#### Fig. 13"), topology="rollingcount")
    _says(f"(RollingCount: hetero {rc['hetero']} against the paper's ⟨5,4⟩; the optimum {rc['optimal']})")
    # the default's node order: Linear's spread, Star's median against round robin (machine-only cap)
    spread = _nums(figs["nasiri-linear"]["hetero over Storm 0.9.5"])
    star = figs["nasiri-star"]
    _says(f"hetero is {spread[1]:+.0f} % to {spread[2]:+.0f} % over the default, depending on the order",
          f"{_nums(star['hetero over round robin'])[0]:+.0f} % over round robin against a median of "
          f"{_nums(star['hetero over Storm 0.9.5'])[0]:+.0f} %")
    # under our hetero-* machines: every throughput gain's median, and its verdict, against the paper's
    gains, papers = [], []
    for command in (N_THREAD, N_MACHINE):
        for r in _verdicts(command):
            if "over Storm's default" in r["figure"] or "throughput gain" in r["figure"]:
                gains += _nums(r["ours"])[:1] if "[" in r["ours"] or "to" not in r["ours"] else _nums(r["ours"])
                papers += _nums(r["paper"])
            if r["figure"].startswith("Fig. 1") and ("Storm's default" in r["figure"] or
                                                     re.search(r"\bgain\b", r["figure"])):
                assert r["verdict"] == "direction only", r
    _says(f"every median throughput gain is {min(gains):+.0f} % to {max(gains):+.0f} %, against the paper's "
          f"{min(papers):+.0f} % to {max(papers):+.0f} % (the first two verdict tables below: direction only "
          "everywhere)")
    # every machine 100 points (the paper's MAC)
    v = _verdicts(N_MAC)
    fig14_16 = [r for r in v if r["figure"].endswith("hetero over Storm's default")]
    fig18_20 = [r for r in v if r["figure"].endswith("throughput gain over Storm's default")]
    tp = [x for r in fig18_20 for x in _nums(r["ours"])]
    pp = [x for r in fig18_20 for x in _nums(r["paper"])]
    verdicts = {r["verdict"].split(" (")[0] for r in fig18_20}
    mac_gains = " / ".join(f"{_nums(r['ours'])[0]:+.0f}" for r in fig14_16)
    _says(f"gives {mac_gains} % on Figs. 14–16 (paper: +44 % on "
          f"Linear, 7–44 % overall; verdicts: {', '.join(r['verdict'].split(' (')[0] for r in fig14_16)})",
          f"On Figs. 18–20 it gives {min(tp):+.0f}–{max(tp):.0f} % (paper: {min(pp):+.0f}–{max(pp):.0f} %; "
          f"{'/'.join(sorted(verdicts))})")
    ratios = [_nums(r["Storm 0.9.5"])[0] for r in _table(N_MAC, "#### Figs. 18–20")]
    _says(f"Table 5's ratios come out at {min(ratios):.2f}–{max(ratios):.2f}")
    for command in (N_THREAD, N_MACHINE, N_MAC):
        assert _row(_verdicts(command), figure="Table 5: ratio of the gains above 1 (values lost)")["ours"] == \
            "above 1 on 9 of 9"
    _says("The ratio is now above 1 on all 9 under both caps and both readings of the machines")
    # Table 5 with hetero's k = 10 (before 2026-11-28): its own block, the ratios over round robin
    k10 = {r["topology"]: _nums(r["ratio: round robin"])[0] for r in _table(N_K10, "#### Figs. 18–20")
           if r["scenario"] == "nasiri-large"}
    _says(f"the ratio (over round robin) came out at {k10['nasiri-linear']:.2f} and {k10['nasiri-star']:.2f}"
          .replace("-", "−"))
    assert k10["nasiri-linear"] < 0 and k10["nasiri-star"] < 0
    # the gaps the one rule admits (verdicts.py: 1 − gap within 10 % of the paper's 1 − 2 % and 1 − 4 %)
    rule = _verdict_rule()
    admits = [1 - 0.9 * (1 - paper) for paper in (0.02, 0.04)]
    for most, paper in zip(admits, (0.02, 0.04), strict=True):
        assert rule.gain(-(most - 0.001), -paper) == rule.REPRODUCED != rule.gain(-(most + 0.001), -paper)
    _says(f"admits gaps up to {admits[0] * 100:.1f} or {admits[1] * 100:.1f} %")


FIGS_R = FIGS + " --remote-us 1000"
PAPER4 = ("hill-climbing", "ant-system", "hybrid", "storm-ras")


def _verdict_rule():
    return load_script(ROOT / "benchmarks" / "verdicts.py")


def test_the_ecker_figures_prose_quotes_its_blocks() -> None:
    """"Figs. 6–8 the paper's way" and the summary rows that come from repro_ecker_figs.py's two blocks (checked
    against the script by the slow test above): each figure recomputed from the block and looked up in the text."""
    from streamplace.perf.engines import StormSettings

    v_rule = _verdict_rule()
    rows = _table(FIGS, "#### Every placement")
    at = {(r["topology"], r["scheduler"]): r for r in rows}

    def tput(topo: str, who: str) -> float:
        return _nums(at[topo, who]["max throughput t/s, median [range]"])[0]

    assert "low phase at 0.6 of the largest node's capacity, raised ×2" in _page().blocks[FIGS]
    _says("the low phase at 60 % of what the topology sustains", "twice that (120 %")
    orders = max(int(r["placements"]) for r in rows if r["scheduler"] == "default, 11 workers")
    _says(f"the supervisors in an order nobody chooses: {orders} seeded orders")
    _says(f"(on T-M3 hill climbing's placements reserve {at['t-m3', 'hill-climbing']['vCPU']} vCPU)")
    rs = at["t-r3", "r-storm"]
    _says(f"{rs['vCPU'].split('–')[0]} vCPU, {tput('t-r3', 'r-storm'):.0f} t/s against the default's "
          f"{tput('t-r3', 'default, 11 workers'):.0f} on all 11", f"fills w1 and then w2 "
          f"({at['t-r3', 'storm-ras']['vCPU'].split('–')[0]} vCPU, the heuristics' own reservation)")
    assert {at["t-r3", w]["vCPU"] for w in PAPER4} == {at["t-r3", "storm-ras"]["vCPU"]}
    t2 = {r["topology"]: r for r in _table(FIGS, "#### Table 2 the paper's way")}
    mean = t2["mean T-R1…T-R7"]
    first = {w: _nums(mean[w])[0] for w in (*PAPER4, "r-storm")}
    assert min(first, key=first.get) == "r-storm"
    paper = sorted((_nums(mean[w])[2] for w in PAPER4), reverse=True)
    _says(f"last again ({first['r-storm']:.2f} on the T-R mean)",
          f"as in the paper ({' / '.join(f'{p:.2f}' for p in paper)})")
    t2_ = {k: {w: _nums(r[w])[0] for w in PAPER4} for k, r in t2.items()}
    assert t2_["t-r2"]["ant-system"] == t2_["t-r2"]["hybrid"] and t2_["t-m3"]["ant-system"] == t2_["t-m3"]["hybrid"]
    m1 = t2_["t-m1"].values()
    _says(f"they come out at {t2_['t-r2']['hybrid']:.2f} (T-R2) and {t2_['t-m3']['hybrid']:.2f} (T-M3)",
          f"T-M1 stays below 1 for every scheduler ({min(m1):.2f}–{max(m1):.2f} for the paper's four, the RAS "
          f"included; `r-storm` {_nums(t2['t-m1']['r-storm'])[0]:.2f})")
    assert max(m1) < 1 and _nums(t2["t-m1"]["r-storm"])[0] < 1
    storm = StormSettings()
    _says(f"when a remote tuple costs {storm.ser_us:g} + {storm.deser_us:g} µs, as the storm engine charges")
    ours = [x for k, r in t2_.items() if k.startswith("t-") for x in r.values()]
    papers = [_nums(t2[k][w])[2] for k in t2 if k.startswith("t-") for w in PAPER4]
    _says(f"Our factors are {min(ours):.1f}–{max(ours):.1f} where the paper's are {min(papers):.1f}–"
          f"{max(papers):.0f}")
    t2r = {r["topology"]: r for r in _table(FIGS_R, "#### Table 2 the paper's way")}
    m3 = [_nums(t2r["t-m3"][w])[0] for w in PAPER4]
    m3p = [_nums(t2r["t-m3"][w])[2] for w in PAPER4]
    _says(f"T-M3 to {min(m3):.1f}–{max(m3):.1f} (paper {min(m3p):.1f}–{max(m3p):.1f})")
    rank = {c: _page().blocks[c].split("Ranking by the mean (default on all 11 supervisors): ")[1].split(".")[0]
            .split(" > ") for c in (FIGS, FIGS_R)}
    assert rank[FIGS_R][0] == "hill-climbing" and rank[FIGS_R][2] == "storm-ras"
    assert rank[FIGS][-1] == rank[FIGS_R][-1] == "hybrid"
    _says("hill climbing then comes first, the RAS third", "*The hybrid.* Last on the T-R mean in both blocks (the "
          "paper: third)")
    hy, hc = at["t-r7", "hybrid"], at["t-r7", "hill-climbing"]
    assert hy["vCPU"] == hc["vCPU"]
    per = {r["topology"]: r for r in _table(LATENCY, "#### Per topology on continuum-11 (ideal model)")}
    _says(f"on Eq. 1 ({_nums(per['t-r7']['hybrid'])[0]:.3f} against {_nums(per['t-r7']['hill-climbing'])[0]:.3f} at "
          f"the topology's own rate", f"reserves the same {hy['vCPU'].split('–')[0]} vCPU, but a 0.3-core worker is "
          f"its bottleneck ({tput('t-r7', 'hybrid'):.0f} t/s) where hill climbing's is w1 "
          f"({tput('t-r7', 'hill-climbing'):.0f} t/s)")
    _says(f"ours keep one reservation on T-R3 ({at['t-r3', 'hill-climbing']['vCPU'].split('–')[0]} vCPU")
    t3 = {r["topology"]: r for r in _table(FIGS, "#### Table 3 the paper's way")}
    _says(f"Table 3's default column ({_nums(t3['t-m1']['default'])[-1]:.2f} on T-M1, "
          f"{_nums(t3['t-m3']['default'])[-1]:.2f} on T-M3 at the RAS's exact vCPU)",
          f"factor {_nums(t3['t-m1']['default'])[0]:.2f} here")
    counts = [int(c) for r in t3.values() for k, cell in r.items() if k not in ("topology", "RAS vCPU")
              for c in re.findall(r"\[(\d+)\]", cell)]
    cells = sum(len(r) - 2 for r in t3.values())
    assert len(counts) > cells / 2  # "most cells filled"
    old = [int(c) for r in _table(LATENCY, "#### Tables 2–3 the paper's way") for k, cell in r.items()
           if k.startswith("T3 ") for c in re.findall(r"\[(\d+)\]", cell)]
    _says(f"(now most cells filled, {min(counts)}–{max(counts)} placements each, where the earlier method had "
          f"{sum(old)} comparable placements in all)")
    # the summary table at the top of the section
    v = _table(FIGS, "#### Figs. 6–8")
    t7, t3v = ({r["what"].split(":")[0]: r["verdict"] for r in v if r["figure"] == fig and "mean factor" in r["what"]}
               for fig in ("Fig. 8 (t-r7)", "Fig. 6 (t-r3)"))
    assert t7["storm-ras"] == v_rule.REPRODUCED and t7["hybrid"] == v_rule.NOT
    assert {t7["hill-climbing"], t7["ant-system"], *t3v.values()} == {v_rule.DIRECTION}
    _says("(RAS on T-R7 within 10 %, the hybrid's there not reproduced, the rest direction only)")
    lat = {_nums(r["ours"])[0] for r in v if r["what"].endswith("latency against RAS's")}
    (only,) = lat
    _says(f"| {only:+.0f} % each (the model's worst path".replace("-", "−"))
    vr = [r for r in _table(FIGS_R, "| Table 2, mean over T-R1…T-R7") if r.get("verdict") == v_rule.REPRODUCED]
    short = {"hill-climbing": "HC", "storm-ras": "RAS", "ant-system": "ant", "hybrid": "hybrid"}
    _says(f"({' and '.join(short[r[next(iter(r))]] for r in vr)} within 10 %)")
    t3m = _nums(_page().blocks[FIGS].split("Means over the T-R topologies with a comparable placement")[1]
                .split("\n")[0])
    ours3, paper3 = t3m[0::3], t3m[2::3]
    judged = [v_rule.value(o, p, pivot=1.0) for o, p in zip(ours3, paper3, strict=True)]
    assert judged == [v_rule.REPRODUCED, v_rule.NOT, v_rule.REPRODUCED], judged
    _says("(HC and hybrid within 10 %; the ant system's on the other side of 1)")
    # Table 3's verdicts in the block: against the paper's means over the topologies ours fills, and per cell
    t3v = {r["Table 3"].split(":")[0] + (" same" if "the same" in r["Table 3"] else ""): r
           for r in _table(FIGS, "#### Table 3 the paper's way: the paper's value")}
    assert [t3v[s]["verdict"] for s in ("hill-climbing", "ant-system", "hybrid")] == judged
    same = {s: t3v[f"{s} same"] for s in ("hill-climbing", "hybrid")}
    n_same = {s: len(same[s]["Table 3"].split("(")[1].split(","))
              for s in same}
    assert same["hill-climbing"]["verdict"] == v_rule.NOT and same["hybrid"]["verdict"] == v_rule.REPRODUCED
    cells = _page().blocks[FIGS].split("Of the ")[1].split("\n")[0]
    n = [x for k, x in enumerate(_nums(cells)) if k != 1]  # without "within 10 %"'s 10
    _says(f"HC not reproduced ({same['hill-climbing']['paper']} over {n_same['hill-climbing']}), hybrid within "
          f"10 % ({same['hybrid']['paper']} over {n_same['hybrid']}); per cell {n[1]:.0f} of {n[0]:.0f} within 10 %, "
          f"{n[2]:.0f} direction only, {n[3]:.0f} not reproduced",
          f"Hill climbing's mean ({same['hill-climbing']['ours']}) is within 10 % of the paper's 1.11",
          f"over the {('two', 'three', 'four', 'five')[n_same['hill-climbing'] - 2]} topologies ours fills, the "
          f"paper's mean is {same['hill-climbing']['paper']} and ours is not reproduced")
    grid = _table(FIGS, "Every cell")
    ones = [(r["topology"], s) for r in _table(FIGS, "#### Table 3 the paper's way: over the RAS") for s in
            ("hill-climbing", "ant-system", "hybrid") if r[s].startswith("1.00 [")]
    assert {t for t, _ in ones} == {"t-m1", "t-m2", "t-m3", "t-r2"} and len(grid) == 10
    # Table 3 the paper's way in repro_latency.py's block: how many of the heuristics' placements compare
    heur_cells = [(r["topology"], k, cell) for r in _table(LATENCY, "#### Tables 2–3 the paper's way")
                  for k, cell in r.items() if k in ("T3 hill-climbing", "T3 ant-system", "T3 hybrid")]
    filled = [(t, k, cell) for t, k, cell in heur_cells if "[" in cell]
    total = sum(int(c) for r in _table(LATENCY, "#### Tables 2–3 the paper's way")
                for k, cell in r.items() if k.startswith("T2 ") and k.split(" ", 1)[1] in PAPER4
                and "all 11" not in k for c in re.findall(r"\[(\d+)\]", cell))
    (cell,) = filled
    _says(f"{sum(old)} of {total} placements comparable (ant system on T-R7: {_nums(cell[2])[0]:.2f})",
          f"{sum(old)} of the {total} heuristic placements (the ant system's on T-R7)")


DIAG = "benchmarks/elastic_repro.py --diagnostics"
LEASE = ("benchmarks/elastic_repro.py --sensitivity --seeds 3 --variant lease_after_scaledown=true --variant "
         "double_threshold=1e9")


def test_the_hochreiner_what_differs_quotes_its_blocks() -> None:
    """"What differs": the single runs (--diagnostics) and the authors' lease_after_scaledown switch over three
    seeds (its own sensitivity block), beside the main block's paper values."""
    runs = {r["run"]: r for r in _table(DIAG, "#### What differs")}
    b10, b60 = runs["BTU10"], runs["BTU60"]
    inst10 = b10["instances: start, peak; from minute 20"].split("; ")[1]
    _says(f"{b10['met by scaling another type down']} of {b10['upscalings']} upscalings were met by scaling another "
          f"type down, {b10['VMs leased']} VMs were leased in all",
          f"held {b10['VMs from minute 20'].split('–')[0]} full VMs ({inst10} instances, 15 per VM)",
          f"({b10['prolongations']} prolongations, {b10['releases']} release)")
    assert len(set(b10["VMs from minute 20"].split("–"))) == 1 and b10["releases"] == "1"
    start, peak = _nums(b60["instances: start, peak; from minute 20"])[:2]
    _says(f"initial one per type ({start:.0f}) to {peak:.0f}")
    warm = _nums(runs["BTU60, initial_utilization=0.8"]["instances: start, peak; from minute 20"])[0]
    _says(f"(`-p initial_utilization=0.8`: {warm:.0f} instances, the single runs' block)")
    _says("one-off run of `benchmarks/elastic_repro.py --sensitivity --seeds 3 --variant initial_utilization=0.8 "
          "--variant service_cv=0.5 --variant service_cv=2`")
    base = _nums(_page().blocks[DIAG].split("The threshold baseline over ")[1])
    _says(f"it holds {base[1]:.0f} instances on {base[2]:.1f} VMs on average ({base[0]:.0f} seeds) and leases "
          f"{base[3]:.0f} VMs a run")
    rows = _table(LEASE, "#### Sensitivity")
    lease = {r["pattern"]: r for r in rows if r["variant"] == "lease_after_scaledown=true"}
    dflt = {r["pattern"]: r for r in rows if r["variant"].startswith("defaults")}

    def costs(r: dict[str, str]) -> list[float]:
        return _nums(r["cost BTU10 / 30 / 60 vs baseline"])  # BTU10, 30, 60, then the baseline's

    def per_pattern(rs: dict[str, dict[str, str]], i: slice, last: str = ", ") -> str:
        each = [" / ".join(f"{x:.0f}" for x in costs(rs[p])[i]) for p in PATTERNS]
        return ", ".join(each[:-1]) + last + each[-1]

    nrt = {k: " / ".join(f"{_nums(r[p]['BTU60'])[2]:.0f}" for p in PATTERNS) for k, r in (("l", lease), ("d", dflt))}
    _says(f"BTU10 / 30 / 60 cost {per_pattern(lease, slice(0, 3), ' and ')} on the four patterns (default "
          f"{per_pattern(dflt, slice(0, 3))})", f"BTU60's near real time rises to {nrt['l']} % ({nrt['d']})")
    e = _elastic()
    cost = "Resource cost"

    def vs(p: str, c: str, i: int) -> str:
        return f"{costs(lease[p])[i]:.0f} vs {costs(lease[p])[i + 3]:.0f}"

    walks, periodic = ("random-walk-1", "random-walk-2"), ("stepwise", "two-level")
    assert all(costs(lease[p])[0] > costs(lease[p])[3] for p in walks)
    assert all(costs(lease[p])[0] < costs(lease[p])[3] for p in periodic)
    assert all(costs(lease[p])[1] < costs(lease[p])[4] for p in PATTERNS)
    _says(f"BTU10 becomes dearer than the baseline on both random walks ({', '.join(vs(p, 'BTU10', 0) for p in walks)}"
          "; paper " + ", ".join(f"{e[p][cost]['BTU10'][1]:.0f} vs {e[p][cost]['threshold/BTU10'][1]:.0f}"
                                 for p in walks) + ")",
          f"on stepwise and two-level it stays cheaper ({', '.join(vs(p, 'BTU10', 0) for p in periodic)})",
          "BTU30 stays cheaper on all four (" + " / ".join(f"{costs(lease[p])[1]:.0f}" for p in PATTERNS)
          + " against " + " / ".join(f"{costs(lease[p])[4]:.0f}" for p in PATTERNS) + "; paper "
          + " / ".join(f"{e[p][cost]['BTU30'][1]:.0f}" for p in PATTERNS) + " against "
          + " / ".join(f"{e[p][cost]['threshold/BTU30'][1]:.0f}" for p in PATTERNS) + ")")
    configs = ("BTU10", "BTU30", "BTU60", "threshold/BTU10", "threshold/BTU30", "threshold/BTU60")
    for p in PATTERNS:  # the defaults' row is the main block's
        assert costs(dflt[p]) == [round(e[p][cost][c][0]) for c in configs], p
    paid = {p: e[p][cost]["BTU30"][1] for p in PATTERNS}
    vms = [costs(lease[p])[1] / 12 for p in PATTERNS]  # BTU30: 4 BTUs a VM in 120 minutes, 3 units each
    paper_vms = [paid[p] / 12 for p in PATTERNS]
    _says(f"BTU30 in the paper pays {' / '.join(f'{paid[p]:.0f}' for p in PATTERNS)}, i.e. "
          f"{min(paper_vms):.1f}–{max(paper_vms):.0f} VMs throughout; ours {min(vms):.1f}–{max(vms):.0f} with the "
          "switch")

    def base10(p: str) -> str:
        return f"{e[p][cost]['threshold/BTU10'][0]:.0f} vs {e[p][cost]['threshold/BTU10'][1]:.0f}"

    _says(f"at BTU10 {base10('stepwise')} (stepwise) and {base10('two-level')} (two-level), but "
          f"{base10(walks[0])} and {base10(walks[1])} on the random walks")


ODRP = "benchmarks/repro_odrp.py --runs 25 --seed 0"


def test_the_odrp_prose_quotes_its_block() -> None:
    """Table 3's counts and R at the paper's counts, Figure 6's ratios and replicas, in reproduction.md and papers.md,
    from repro_odrp.py's block (checked against the script above). Its wall-clock figures are marked instead."""
    t3 = {r[""]: r for r in _table(ODRP, "#### Table 3: replicas per operator")}
    lower = [_nums(t3["ours lower by"][f"{r} t/s"])[0] for r in (80, 100, 120)]
    _says(f"our optimum's R is {lower[0]:.1f} % and {lower[1]:.1f} % below the paper's counts'; at 120 t/s our "
          f"{_nums(t3['total replicas']['120 t/s'])[0]:.0f} replicas' is {lower[2]:.1f} % below its "
          f"{_nums(t3['total replicas']['120 t/s'])[1]:.0f}'s")
    assert all(t3["total replicas"][f"{r} t/s"] == "8 (8)" and t3["nodes used (paper)"][f"{r} t/s"] == "1 (1)"
               for r in (20, 40, 60))
    _says("(20–60 t/s, all 8 on w1)")
    gap = t3["relative MIP gap accepting the paper's counts"]
    _says(f"a relative MIP gap of about 1 % ({gap['80 t/s']} at 80 t/s, {gap['100 t/s']} at 100 t/s")
    ours = [_nums(t3["R, ours (ms)"][f"{r} t/s"])[0] for r in (20, 40, 60)]
    assert [t3["R, paper's counts (ms)"][f"{r} t/s"] for r in (20, 40, 60)] == \
        [t3["R, ours (ms)"][f"{r} t/s"] for r in (20, 40, 60)]
    at_paper = t3["R, paper's counts (ms)"]
    cells = [f"{min(ours):.0f}–{max(ours):.0f} / same"] + [
        f"{t3['R, ours (ms)'][f'{r} t/s']} / {at_paper[f'{r} t/s']}" for r in (80, 100, 120)]
    _says("| R (ms), ours / the paper's counts placed at their best | " + " | ".join(cells) + " |", page="papers.md")
    f6 = {r["objective"]: r for r in _table(ODRP, "#### Figure 6")}
    ratio = {r["ratio of means"]: _nums(r["ours"])[0] for r in _table(ODRP, "| ratio of means")}
    reps = {k: _nums(r["C (replicas)"])[0] for k, r in f6.items()}
    _says(f"C keeps {reps['C']:.0f} replicas", f"R has the lowest R with the most replicas ({reps['R']:.0f}; the "
          f"paper: up to 16) on {_nums(f6['R']['nodes'])[0]:.0f} nodes and T about 2 × T's minimum "
          f"({ratio['T under R / T under T']:.2f})", f"puts T at {ratio['T under A / T under T']:.0f} × T's minimum",
          f"all four at 0.25 gives {reps['all 0.25']:.0f} replicas", f"R under A is "
          f"{ratio['R under A / R under R']:.1f} × R's minimum (paper ≈ 1.6) and R under T "
          f"{ratio['R under T / R under R']:.1f} ×", f"A's {reps['A']:.0f} replicas (one more than the paper's 9",
          f"R under all four is {ratio['R under all / R under R']:.2f} ×")
    assert min(f6, key=lambda k: _nums(f6[k]["R (ms)"])[0]) == "R" and reps["R"] == max(reps.values())
    assert f6["all 0.25"]["A"] == "1.0000 [1.0000–1.0000]"
    _says("The availability under all four is 1.0 in every run (paper 0.99–1, mean 0.996)")
    r_span = _nums(f6["R"]["R (ms)"])
    _says(f"R the lowest R ({r_span[1]:.1f}–{r_span[2]:.1f} ms) with {reps['R']:.0f} replicas on "
          f"{_nums(f6['R']['nodes'])[0]:.0f} nodes and T {ratio['T under R / T under T']:.2f} × its minimum",
          f"C gives {reps['C']:.0f} replicas", page="papers.md")
    v = _table(ODRP, "#### Table 3, Figures 4–7")
    variables = _row(v, figure="Figure 7", what="mean solve time, s (machine-dependent)")["ours"].split(", ")[1]
    slowest = _row(v, figure="Figure 7", what="the slowest single objective")["ours"]
    _says(f"the compact model here has {variables.rstrip(')')}", f"({slowest} the slowest)")
    _says(f"On the DEBS instance that is {variables.split(' variables')[0]} variables", "machine-dependent",
          page="papers.md")


def test_the_moved_verdicts_are_what_the_blocks_say_now() -> None:
    """docs/reproduction.md's closing list of the verdicts that moved under the one rule (benchmarks/verdicts.py):
    each row's "after" and "ours" are what its block prints now, and each row did move."""
    lines = (_DOCS / "reproduction.md").read_text().splitlines()
    i = lines.index("## Verdicts that moved under the one rule")
    while not lines[i].startswith("| block |"):
        i += 1
    header = [c.strip() for c in lines[i].strip("|").split("|")]
    moved = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        moved.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)))
    assert len(moved) >= 5
    for m in moved:
        block = _page().blocks["benchmarks/" + m["block"].strip("`")]
        parts = m["row"].split(", ")
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines() if line.startswith("| ")]
        (hit,) = [r for r in rows if r[:len(parts)] == parts]
        assert hit[-1] == m["after"] != m["before"], (m, hit)
        assert m["ours"] in hit and m["paper"] in hit, (m, hit)


def _manufacturing_load(machines: float) -> dict[str, tuple[float, float]]:
    """Hochreiner et al.'s manufacturing topology at ``machines`` machines: operator → (items/s, instances kept busy
    for the items' whole expected durations, E_i · λ_i)."""
    from streamplace.bench import resolve_topology
    from streamplace.perf.rates import operator_rates

    topo = resolve_topology("manufacturing")
    sources = {s.id for s in topo.sources}
    rates = operator_rates(topo, None, {s.id: float(s.rate or 0.0) * machines for s in topo.sources})
    return {op.id: (lam := float(rates.input[topo.index[op.id]]), lam * op.cost_ms / 1000)
            for op in topo.operators if op.id not in sources}


def test_the_hochreiner_load_and_capacity_figures_are_the_models() -> None:
    """The unloaded levels an item meets without waiting, the derivation of service_ratio (387 items/s, 271 busy
    instances, 70 / 271), O6's share and its busy instances
    at the stepwise pattern's 2 / 5 / 8 machines, and the instances a 7 GB VM carries: from the topology, the
    simulator's defaults and the single runs' block."""
    from streamplace.bench import resolve_cluster, resolve_topology
    from streamplace.sim import SimConfig

    at8 = _manufacturing_load(8)
    items, busy = sum(lam for lam, _ in at8.values()), sum(b for _, b in at8.values())
    ratio = SimConfig().service_ratio
    assert f"{70 / busy:.2f}" == f"{ratio:.2f}"
    _says(f"operators receive {items:.0f} items/s, which keep Σ λ_i·E_i = {busy:.0f} instances busy",
          f"70 / {busy:.0f} = {ratio:.2f} of its expected duration")
    from streamplace.sim.engine import unloaded_within

    cfg = SimConfig()
    met = [float(unloaded_within(level * 1000.0, 1000.0, cfg.service_ratio, cfg.service_cv)) for level in (1, 2, 5)]
    _says(f"U = {1 - ratio:.2f}·E (messaging, constant) + S, with S the instance's service time, gamma-distributed "
          f"with mean {ratio:.2f}·E", f"meets real time with probability 1 − e⁻¹ = {met[0]:.2f}, near real time "
          f"{met[1]:.3f}, relaxed {met[2]:.1f}")
    o6 = [_manufacturing_load(m)["O6"][1] * ratio for m in (2, 5, 8)]
    _says(f"(O6, {at8['O6'][0] / items:.0%} of all items, keeps ".replace("%", " %")
          + ", ".join(f"{b:.1f}" for b in o6[:2]) + f" and {o6[2]:.1f} instances busy at 2, 5 and 8 machines)")
    memory = [op.memory_mb for op in resolve_topology("manufacturing").operators if op.cost_ms > 0]
    (vm,) = resolve_cluster("visp-vm").nodes
    runs = {r["run"]: r for r in _table(DIAG, "#### What differs")}
    inst = runs["BTU10"]["instances: start, peak; from minute 20"].split("; ")[1]
    (vms,) = set(runs["BTU10"]["VMs from minute 20"].split("–"))
    per_vm = [x / int(vms) for x in _nums(inst)]
    assert all(round(x) == 15 for x in per_vm) and vm.memory_mb / max(memory) < 15 < vm.memory_mb / min(memory)
    _says(f"our VMs carry about 15 instances ({inst} on {vms} VMs from minute 20 in the single runs' block; "
          f"memory-bound at {vm.memory_mb / 1024:.0f} GB, {min(memory):.0f}–{max(memory):.0f} MB an instance)")


def test_the_hochreiner_switches_quote_their_blocks() -> None:
    """The authors' guards (their defaults beside them from the first block; the guarded run is a one-off and says so),
    one instance per BTU upscaling (its three seeds in the lease block) and the queue read as RabbitMQ's messages
    (the sensitivity block, 1 seed)."""
    e = _elastic()
    nrt, cost = "Near real-time compliance", "Resource cost"
    default = {m: " / ".join(f"{e[p][m]['BTU60'][0]:.0f}" for p in PATTERNS) for m in (nrt, cost)}
    _says(f"(default {default[nrt]} %), resource cost 80 / 86 / 82 / 78 ({default[cost]}) — the guarded "
          "figures a one-off run of `benchmarks/elastic_repro.py -p cooldown_s=180 -p vm_start_guard_s=180` (3 seeds, "
          "2026-11-29")
    rows = _table(LEASE, "#### Sensitivity")
    one = {r["pattern"]: r for r in rows if r["variant"] == "double_threshold=1e9"}
    dflt = {r["pattern"]: r for r in rows if r["variant"].startswith("defaults")}

    def levels(rs: dict[str, dict[str, str]]) -> str:
        return " / ".join(f"{_nums(rs[p]['BTU60'])[2]:.0f}" for p in PATTERNS)

    def gap(rs: dict[str, dict[str, str]]) -> str:
        return f"{max(_nums(rs[p]['largest gap (points)'])[0] for p in PATTERNS):.0f}"

    _says(f"rows of the block under \"What differs\"): BTU60 near real time {levels(one)} % (default {levels(dflt)} "
          f"%), the largest gap to the paper {gap(one)} points (default {gap(dflt)})")
    sens = [r for r in _table(SENSITIVITY, "#### Sensitivity") if r["variant"].startswith("queue read as")]
    base = [_nums(r["threshold"])[2] for r in sens]
    btu = {r["pattern"]: _nums(r["BTU60"])[2] for r in sens}
    above = [r["pattern"] for r in sens if _nums(r["threshold"])[2] > btu[r["pattern"]]]
    assert sorted(set(PATTERNS) - set(above)) == ["two-level"]
    # both random walks alike: the baseline billed at 60 minutes against BTU60 (BTU10 / 30 / 60, then the baseline's)
    (walk,) = {tuple(_nums(r["cost BTU10 / 30 / 60 vs baseline"])[i] for i in (5, 2))
               for r in sens if r["pattern"].startswith("random-walk")}
    assert walk[0] < walk[1]
    text_base = [_nums(_row(_table(ELASTIC, f"**{p}**"), metric=nrt)["threshold/BTU60"])[0] for p in PATTERNS]
    _says(f"compliance rises to {_span(base)} % (paper 66–70 %), above BTU60's {_span(list(btu.values()))} % on every "
          "pattern but two-level", f"cheaper than BTU60 on the random walks ({walk[0]:.0f} against {walk[1]:.0f})",
          f"(ours {_span(text_base)} % under the text's, {_span(base)} % under the code's)")


def test_the_ecker_exact_optimum_and_reference_figures_are_the_blocks() -> None:
    """Eq. 1 against its exact optimum: how many of the six instances each heuristic reaches (the ant system's one
    miss is in the latency term), and w1's 150 vCPU, where the earlier method's default began."""
    from streamplace.bench import resolve_cluster

    rows = _table(LATENCY, "#### Eq. 1 against its exact optimum")
    optimal = {w: sum(r[w].endswith(": optimal") for r in rows) for w in ("hill-climbing", "ant-system", "hybrid")}
    (miss,) = [r for r in rows if not r["ant-system"].endswith(": optimal")]
    off = miss["ant-system"].split(": ")[1]
    assert off.endswith("(s_lat)") and _nums(miss["ant-system"])[:3] == _nums(miss["optimum"])
    inst = miss["instance"].replace("t-m", "T-M")
    _says(f"| hybrid optimal on {optimal['hybrid']} of {len(rows)}, the ant system on {optimal['ant-system']} "
          f"({inst}: {off.split(' ')[0]}, its latency term); hill climbing on {optimal['hill-climbing']} (a CPU "
          "violation on the others) |",
          f"all but {inst} ({_nums(miss['optimum'])[2]:.0f} nodes as the optimum, its score {off.split(' ')[0][1:]} "
          "above: the latency term)")
    climbs = [r["instance"] for r in rows if not r["hill-climbing"].endswith(": optimal")]
    assert climbs == ["t-m3 × 80", "t-m1 × 30", "t-m1 × 40"]
    _says("(× 80 on T-M3; × 30, × 40 on T-M1) the hybrid reaches it")
    w1 = resolve_cluster("continuum-11").nodes[0]  # the cluster's order: w1 first, its largest supervisor
    assert w1.id == "w1" and w1.cpu == max(n.cpu for n in resolve_cluster("continuum-11").nodes)
    _says(f"w1 first ({w1.cpu:.0f} vCPU), so nothing below {w1.cpu:.0f} vCPU", f"the default on w1 ({w1.cpu:.0f} vCPU")


def test_the_rstorm_yahoo_sizes_and_the_odrp_availability_cost_are_the_models() -> None:
    """The Yahoo topologies' task counts and their CPU against one rack's; ODRP's cost of a 99 %-available node."""
    import math

    from streamplace.bench import resolve_cluster, resolve_topology

    pl, pr = (resolve_topology(f"{n}-net") for n in ("pageload", "processing"))
    tasks = [sum(op.replicas for op in t.operators) for t in (pl, pr)]
    nodes = resolve_cluster("rstorm-12").nodes
    rack = sum(n.cpu for n in nodes if n.rack == nodes[0].rack)
    assert all(sum(op.replicas * op.cpu for op in t.operators) > rack for t in (pl, pr))
    _says(f"Their {tasks[0]} and {tasks[1]} tasks need more CPU points than one rack has")
    _says(f"costs F 0.25 · {math.log(0.99) / math.log(0.95):.3f} (w_a · ln 0.99 / ln 0.95")


def test_papers_storm_table_is_what_storm_repro_prints() -> None:
    """docs/papers.md's R-Storm table under --engine storm and Ecker et al.'s factors below it: recomputed with
    benchmarks/storm_repro.py's own functions (a model result, deterministic; a few seconds)."""
    sr = load_script(ROOT / "benchmarks" / "storm_repro.py")
    engines = sr.engines()
    for topo, name in (("linear-net", "Linear"), ("diamond-net", "Diamond"), ("star-net", "Star")):
        gains = {}
        for label, eng in engines:
            x, b, _ = sr.gain(topo, "rstorm-12", "r-storm", "round-robin", eng)
            gains[label] = f"{x / b - 1:+.0%}".replace("%", " %")
        flow = {gains[f"storm, pending {p}"] for p in (1000, 300, 100, 30)}
        assert gains["ideal"] == gains["storm, defaults"] and len(flow) == 1, gains
        paper = f"{sr.PAPER_001[topo]:+.0%}".replace("%", " %")
        _says(f"| {name} | {gains['ideal']} | {flow.pop()} | {gains['storm, pending 10']} | {paper} |",
              page="papers.md")
    _says("(`benchmarks/storm_repro.py`, model only, a few seconds; a model result, not machine-dependent",
          page="papers.md")
    factors: dict[tuple[str, str, str], float] = {}
    for topo in ("t-m1", "t-m2", "t-m3", "t-r1", "t-r4", "t-r7"):
        for label, eng in engines:
            for sched in ("hill-climbing", "hybrid", "r-storm"):
                x, b, _ = sr.gain(topo, "continuum-11", sched, "round-robin", eng,
                                  seed=0 if sched != "r-storm" else None)
                factors[topo, label, sched] = x / b
    ideal = {s: [f for (t, lab, s2), f in factors.items() if lab == "ideal" and s2 == s]
             for s in ("hill-climbing", "hybrid", "r-storm")}
    spans = [f"{min(ideal[s]):.2f}–{max(ideal[s]):.2f}×" for s in ideal]
    _says(f"hill climbing {spans[0]}, hybrid {spans[1]}, R-Storm {spans[2]} under the ideal model", page="papers.md")
    apart = sorted({(t, lab) for (t, lab, s), f in factors.items() if lab != "ideal"
                    and abs(f - factors[t, "ideal", s]) > 0.02 + 1e-9})
    assert apart == [("t-m2", "storm, pending 10"), ("t-m2", "storm, pending 30"), ("t-r1", "storm, pending 10")]

    def cell(t: str, p: int) -> str:
        return " / ".join(f"{factors[t, f'storm, pending {p}', s]:.2f}" for s in ("hill-climbing", "hybrid", "r-storm"))

    _says(f"except t-m2 at 30 and 10 pending tuples ({cell('t-m2', 30)}, {cell('t-m2', 10)}) and t-r1 at 10 "
          f"({cell('t-r1', 10)})", page="papers.md")


def test_the_nasiri_fig17_prose_quotes_its_blocks() -> None:
    """Fig. 17's paragraph: the default's idle i3 and i5, hetero's lead on the Core i5 and on Star's total, and the
    one optimum that is not the highest, from the three repro_nasiri.py blocks."""
    def span(values: list[float]) -> str:
        lo, hi = min(values), max(values)
        return f"{lo:.0f}" if lo == hi else f"{lo:.0f}–{hi:.0f}"

    def verdict_points(command: str, topology: str, statement: str) -> float:
        rows = _table(command, "#### Verdicts")
        return _nums(_row(rows, figure=f"Fig. 17 ({topology}): {statement}")["ours"])[0]

    default = {c: [_nums(r["Storm 0.9.5 default (median over node orders)"]) for r in _table(c, "#### Fig. 17")]
               for c in (N_THREAD, N_MACHINE, N_MAC)}
    cores = [u for c in (N_THREAD, N_MACHINE) for u in default[c]]
    mac = default[N_MAC]
    _says(f"the i3 and i5 wait at {span([u[1] for u in cores])} % and {span([u[2] for u in cores])} % of theirs "
          f"({span([u[1] for u in mac])} % and {span([u[2] for u in mac])} % with every machine 100 points)")
    assert all(u[0] == 100 for c in default.values() for u in c)  # the Pentium at its limit
    i5 = [verdict_points(c, t, "hetero's Core i5 utilization against the default's") for c in (N_THREAD, N_MACHINE,
          N_MAC) for t in ("nasiri-linear", "nasiri-diamond", "nasiri-star")]
    star = [verdict_points(c, "nasiri-star", "hetero's total CPU against the default's")
            for c in (N_THREAD, N_MACHINE, N_MAC)]
    _says(f"hetero uses the Core i5 more than the default (+{min(i5):.0f} to +{max(i5):.0f} points)",
          f"ours {min(star):.0f} to {max(star):.0f} points more")
    leads = {(c, t): verdict_points(c, t, "the optimum's total CPU the highest") for c in (N_THREAD, N_MACHINE, N_MAC)
             for t in ("nasiri-linear", "nasiri-diamond", "nasiri-star")}
    behind = [k for k, v in leads.items() if v <= 0]
    assert behind == [(N_MAC, "nasiri-diamond")]
    _says(f"where it is {-leads[behind[0]]:.0f} points below hetero's")


def test_the_ecker_sustainable_throughput_prose_quotes_its_blocks() -> None:
    """§6.2.1's maximum sustainable throughput: our factors over the default and the verdicts against the RAS, as
    the bullet before the repro_ecker_figs.py blocks states them, from both blocks."""
    over_default, over_ras = [], {}
    for command in (FIGS, FIGS + " --remote-us 1000"):
        rows = [list(r.values()) for r in _table(command, "| §6.2.1, maximum sustainable throughput over the default")]
        over_default += [float(r[2]) for r in rows if r[0] != "hybrid first"]
        (first,) = [r for r in rows if r[0] == "hybrid first"]
        assert first[3] == "not reproduced"
        for r in _table(command, "| §6.2.1, maximum sustainable throughput over the RAS"):
            name, _, _, verdict = r.values()
            over_ras.setdefault(name, set()).add(verdict)
    _says(f"over the default {min(over_default):.2f} to {max(over_default):.2f}, direction only, and the hybrid not "
          "first", "against the RAS the hybrid's factor is reproduced in both blocks, hill climbing's and the ant "
          "system's are not")
    assert over_ras == {"hybrid": {"reproduced (within 10 %)"}, "hill-climbing": {"not reproduced"},
                        "ant-system": {"not reproduced"}}


def test_the_odrp_fig5b_prose_quotes_its_block() -> None:
    """Fig. 5b's paragraph: ours is twice the paper's 20 %, not reproduced, partialRank's one replica ~1.05 cores."""
    block = _page().blocks["benchmarks/repro_odrp.py --runs 25 --seed 0"]
    line = next(x for x in block.splitlines() if x.startswith("Fig. 5b:"))
    util, cores = _nums(line.split("utilization")[1])[0], _nums(line.split("needs")[1])[0]
    assert round(util / 20) == 2 and abs(cores - 1.05) < 0.05
    (row,) = [x for x in block.splitlines() if x.startswith("| Fig. 5b")]
    assert "not reproduced" in row
    _says("is twice that, not reproduced", "partialRank alone needs the ~1.05 cores")


def test_the_nasiri_table4_row_is_what_the_prose_says() -> None:
    """Table 4 (machines and instances per scenario) is lost: every nasiri block's verdicts give ours in its place,
    assumed, and say so; the prose names the same machine counts and verdict."""
    for command in (N_THREAD, N_MACHINE, N_MAC, N_K10):
        (row,) = [r for r in _verdicts(command) if r["figure"].startswith("Table 4")]
        assert row["verdict"] == "not reproduced (not comparable: values lost, ours assumed)", command
        machines = [f"{scenario} {n} of each of 3 types ({3 * n})" for scenario, n in
                    (("nasiri-small", 2), ("nasiri-medium", 4), ("nasiri-large", 8))]
        assert all(m in row["ours"] for m in machines), row
    _says("Table 4's machine counts and instances (only its caption survives): 2 / 4 / 8 machines of each type",
          "not reproduced (not comparable: values lost, ours assumed)")

def test_the_odrp_figs4_5_prose_quotes_its_block() -> None:
    """The Figures 4–5 paragraph: R against the rate, S-ODP_R's overload and the inter-node traffic, from the verdict
    rows repro_odrp.py prints for them (Fig. 4's transient not attempted, with its reason)."""
    v = _table(ODRP, "#### Table 3, Figures 4–7")
    transient = _row(v, figure="Fig. 4, 80 t/s", what="R in the transient after each placement (at 0 s; at 100 s, "
                     "S-ODRP_R's rescheduling)")
    assert transient["ours"] == "—" and transient["verdict"].startswith("not reproduced (not attempted")
    assert _row(v, figure="Fig. 4, 80 t/s", what="R after the transient, S-ODRP_R and S-ODP_R")["verdict"] == \
        "not reproduced"
    assert _row(v, figure="Fig. 5a, 20–60 t/s")["ours"] == "1.00"
    assert _row(v, figure="Fig. 5c, 20–60 t/s")["ours"] == "0"
    flat = [_nums(_row(v, figure=f"Fig. 5a, {r} t/s", what="S-ODRP_R's R over its R at 80 t/s")["ours"])[0]
            for r in (100, 120)]
    _says(f"S-ODRP_R's R at 100 t/s is {flat[0]:.2f} × its R at 80 t/s", f"at 120 t/s it is {flat[1]:.2f} ×")
    over = [_nums(_row(v, figure=f"Fig. 5a, {r} t/s", what="S-ODP_R's R")["ours"])[0] for r in (100, 120)]
    at80 = _nums(_row(v, figure="Fig. 4, 80 t/s", what="R after the transient, S-ODRP_R and S-ODP_R")["ours"])[-1]
    _says(f"(partialRank offered {at80:.2f} / {over[0]:.2f} / {over[1]:.2f} × one replica's service rate",
          f"an overload that never drains ({at80:.2f} ×)")
    t80, t120 = _row(v, figure="Fig. 5c, 80 t/s"), _row(v, figure="Fig. 5c, 120 t/s")
    _says(f"(its two streams, {_nums(t80['paper'])[-1]:.0f} t/s in our model)", f"({t80['ours'].split(' ')[0]} t/s "
          "in all)", f"At 120 t/s ours is {t120['ours'].split(',')[0]} t/s, {_nums(t120['ours'])[1]:.0f} % of the")


def test_the_cpu_accuracy_table_quotes_its_replayed_blocks() -> None:
    """The compact table of the real-work CPU check's idle runs: each profiled type's accuracy over the predicted
    types, per operator and over all three, from the blocks cpu_prediction_real.py --combine replays."""
    for run, label in (("i5", "| Core i5 (predicting the Pentium and the i3) |"),
                       ("pentium", "| Pentium (predicting the i3 and the i5), idle |")):
        command = ("benchmarks/cpu_prediction_real.py --combine "
                   f"benchmarks/measured/cpu_real_profiled_{run}_2026-11-29.json")
        rows = [r for r in _table(command, "| operator | node type") if r["node type"] == "predicted types"]
        acc = {r["operator"]: r["accuracy"] for r in rows}
        assert set(acc) == {"hash", "regex", "parse", "all"}
        assert all(r["verdict"] == "reproduced (within 10 %)" for r in rows)
        _says(f"{label} {acc['hash']} | {acc['regex']} | {acc['parse']} | **{acc['all']}** |")


def test_the_ecker_latency_summary_and_table2_cells_prose_quotes_its_blocks() -> None:
    """§6's summary of latency against the RAS (average and maximum, hill climbing and the hybrid) and Table 2's
    cells one by one: the verdict rows repro_ecker_figs.py prints for them, as the section's summary table and its
    bullet state them."""
    v_rule = _verdict_rule()
    rows = [r for r in _table(FIGS, "#### Figs. 6–8") if r["figure"] == "§6's summary"]
    every = {(r["what"].split(":")[0], r["what"].split(": ")[1].split(" ")[0]): r for r in rows
             if "every placement" in r["what"]}
    same = {(r["what"].split(":")[0], r["what"].split(": ")[1].split(" ")[0]): r for r in rows
            if "exactly the RAS's vCPU" in r["what"]}
    keys = [(s, m) for m in ("average", "maximum") for s in ("hill-climbing", "hybrid")]
    assert sorted(every) == sorted(keys) == sorted(same)
    assert all("over the 7 T-R topologies (t-r1…t-r7)" in every[k]["what"] for k in keys)
    paper = {k: _nums(every[k]["paper"])[0] for k in keys}
    assert paper == {("hill-climbing", "average"): -2, ("hybrid", "average"): 4, ("hill-climbing", "maximum"): 5,
                     ("hybrid", "maximum"): 7}
    for k in keys:  # the verdict is verdicts.gain's on the printed (rounded) gain, unless at its edge
        assert every[k]["verdict"] == v_rule.gain(_nums(every[k]["ours"])[0] / 100, paper[k] / 100), k
    ours = {k: every[k]["ours"].replace(" %", "") for k in keys}
    short = {v_rule.REPRODUCED: "within 10 %", v_rule.DIRECTION: "direction only", v_rule.NOT: "not reproduced"}
    _says(f"| {ours[keys[0]]} / {ours[keys[1]]} %; {ours[keys[2]]} / {ours[keys[3]]} % ("
          + ", ".join(f"{s.split('-')[0] if s == 'hybrid' else 'HC'} {m} {short[every[s, m]['verdict']]}"
                      for s, m in keys) + ")")
    assert rows == [r for r in _table(FIGS_R, "#### Figs. 6–8") if r["figure"] == "§6's summary"]  # both blocks
    _says(f"every placement against the RAS's, ours is lower in both measures for both heuristics ({ours[keys[0]]} / "
          f"{ours[keys[1]]} % average, {ours[keys[2]]} / {ours[keys[3]]} % maximum): only hill climbing's average is "
          "on the paper's side")
    assert all(_nums(every[k]["ours"])[0] < 0 for k in keys)
    assert [every[k]["verdict"] for k in keys] == [v_rule.DIRECTION] + [v_rule.NOT] * 3
    n_same = {k: _nums(same[k]["what"].split("over the ")[1])[0] for k in keys}
    _says(f"exactly the RAS's vCPU (Table 3's head-to-head: hill climbing on {n_same[keys[0]]:.0f}, the hybrid "
          f"on {n_same[keys[1]]:.0f} of the 7) ours is {' / '.join(same[k]['ours'] for k in keys)}: hill climbing's "
          f"average within 10 % of the paper's −2 % (a ratio of {1 + _nums(same[keys[0]]['ours'])[0] / 100:.2f} "
          "against 0.98), the rest not reproduced")
    assert [same[k]["verdict"] for k in keys] == [v_rule.REPRODUCED] + [v_rule.NOT] * 3
    # Table 2's cells: per scheduler and in all, as the summary table states them
    counts = {r["Table 2 per topology, the paper's cells"].split(" (")[0]: r
              for r in _table(FIGS, "| Table 2 per topology, the paper's cells")}
    kinds = (v_rule.REPRODUCED, v_rule.DIRECTION, v_rule.NOT)
    n = {s: [int(counts[s][k]) for k in kinds] for s in counts}
    grid = _table(FIGS, "#### Table 2 per topology")
    assert len(grid) == 10 and n["all four"] == [sum(x[i] for s, x in n.items() if s != "all four")
                                                 for i in range(3)]
    for r in grid:  # each cell "ours (paper) verdict": verdicts.py's rule, pivot 1
        for s in PAPER4:
            o, p = _nums(r[s])[:2]
            assert r[s].endswith(v_rule.value(o, p, pivot=1.0)), (r["topology"], s)
    remote = {r["Table 2 per topology, the paper's cells"].split(" (")[0]: [int(r[k]) for k in kinds]
              for r in _table(FIGS_R, "| Table 2 per topology, the paper's cells")}["all four"]
    _says(f"within 10 % on {n['all four'][0]}, direction only on {n['all four'][1]}, not reproduced on "
          f"{n['all four'][2]} of {sum(n['all four'])} (" + "; ".join(
              f"{('HC', 'ant', 'hybrid', 'RAS')[i]} {' / '.join(map(str, n[s]))}" for i, s in enumerate(PAPER4))
          + f"); with a remote tuple costing 1 + 1 ms: within 10 % on {remote[0]}, direction only on {remote[1]}, "
          f"not reproduced on {remote[2]} of {sum(remote)}")


CPU_PAPER_WAY = ("benchmarks/cpu_prediction.py --combine " + ",".join(
    f"benchmarks/measured/cpu_paper_way_{t}_2026-11-29.json" for t in ("linear", "diamond", "star")))

CPU_PAPER_WAY_REPEAT = ("benchmarks/cpu_prediction.py --combine "
                        "benchmarks/measured/cpu_paper_way_diamond_pentium_repeat_2026-11-29.json")


def _cpu_node_lines(topology: str, node: str) -> list[str]:
    """The lines of one node's part of the paper's-way CPU block: its table, its fitted lines, its summary."""
    lines = _page().blocks[CPU_PAPER_WAY].splitlines()
    i = next(k for k, x in enumerate(lines) if x.startswith(f"##### {topology}, {node} "))
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("#") or lines[k].startswith("| topology |"))
    return lines[i:j]


def test_the_cpu_paper_way_prose_quotes_its_replayed_block() -> None:
    """Figs. 10-12 the paper's way: the verdict rows, the accuracies per node type, the operator's fitted e, the
    per-batch cost above it and the misses the prose explains, from the block cpu_prediction.py --combine replays."""
    figs = {r["figure"]: r for r in _table(CPU_PAPER_WAY, "#### Figs. 10–12")}
    assert list(figs) == ["Fig. 10 (Linear)", "Fig. 11 (Diamond)", "Fig. 12 (Star)"]
    assert all("not" not in r["node types measured (steps)"] for r in figs.values())
    assert [r["verdict"].split(" (")[0] for r in figs.values()] == ["reproduced", "reproduced", "not reproduced"]
    _says("by this page's rule Linear and Diamond are reproduced (within 10 % of 92) and Star is not")
    ours = [figs[f]["ours"] for f in figs]
    kept = [figs[f]["ours, steps that kept up"].removesuffix(" %") for f in figs]
    _says(f"Fig. 10 (Linear) {ours[0]}, Fig. 11 (Diamond) {ours[1]} and Fig. 12 (Star) {ours[2]} ({kept[0]} / "
          f"{kept[1]} / {kept[2]} % over the steps that kept up)")
    rows = [r for r in _table(CPU_PAPER_WAY, "| topology | node type") if r["topology"] != "overall"]
    per = {(r["topology"], r["node type"]): r["accuracy"].removesuffix(" %") for r in rows}
    for kind, label in (("pentium", "Pentium"), ("core-i3", "Core i3"), ("core-i5", "Core i5")):
        _says(f"{label} {per['nasiri-linear', kind]} / {per['nasiri-diamond', kind]} / {per['nasiri-star', kind]} %")
    under8 = {(r["topology"], r["node type"]) for r in rows if float(r["max diff %node"]) < 8}
    assert under8 == {(t, k) for t in ("nasiri-linear", "nasiri-diamond") for k in ("core-i3", "core-i5")}
    _says("only Linear's Core i3 and i5 and Diamond's i3 and i5 pass")
    logic = [_nums(next(x for x in _cpu_node_lines("nasiri-linear", n) if "operator logic" in x).split("e =")[1])[0]
             for n in ("pentium-1", "core-i3-1", "core-i5-1")]
    _says("e = {:.3f} / {:.3f} / {:.3f} ms per tuple on Linear's Pentium / i3 / i5".format(*logic))
    per_batch = [_nums(x.split("per micro-batch:")[1])[:2] for x in _page().blocks[CPU_PAPER_WAY].splitlines()
                 if "per micro-batch:" in x]
    assert len(per_batch) == 9
    _says(f"{min(lo for lo, _ in per_batch):.0f}–{max(hi for _, hi in per_batch):.0f} real ms per micro-batch")

    def steps(topology: str, node: str) -> list[list[str]]:
        """The node's measured steps' cells (a step no window measured has no difference)."""
        cells = [r.split("|") for r in _cpu_node_lines(topology, node) if r.startswith("| ")]
        return [c for c in cells[1:] if len(c) > 13 and c[7].strip()]

    def diff(c: list[str]) -> float:
        return _nums(c[7])[0]

    every = {(t, n): steps(t, n) for t in ("nasiri-linear", "nasiri-diamond", "nasiri-star")
             for n in ("pentium-1", "core-i3-1", "core-i5-1")}
    assert all(diff(c) > 0 for cs in every.values() for c in cs if abs(diff(c)) > 5)
    _says("every difference above 5 % of the node is an under-prediction")
    _says(f"(the Pentium's first step {diff(every['nasiri-star', 'pentium-1'][0]):+.1f} % of the node)")
    d = [diff(c) for c in every["nasiri-diamond", "pentium-1"][:3]]
    _says(f"{min(d):+.1f} to {max(d):+.1f} % of the node above the prediction on its first three steps")
    _says(f"Linear's Pentium misses most at its lowest step ({diff(every['nasiri-linear', 'pentium-1'][0]):+.1f} %)")
    behind = [abs(diff(c)) for cs in every.values() for c in cs if "behind" in c[13]]
    behind_else = [abs(diff(c)) for k, cs in every.items() if k != ("nasiri-star", "core-i5-1") for c in cs
                   if "behind" in c[13]]
    _says(f"on the steps that fell behind the difference is at most {max(behind):.1f} % of the node either way "
          f"({max(behind_else):.1f} % but for Star's i5)")

    def others(topologies: tuple[str, ...]) -> list[float]:
        return [_nums(c[13])[0] for (t, _), cs in every.items() if t in topologies for c in cs]

    star, rest = others(("nasiri-star",)), others(("nasiri-linear", "nasiri-diamond"))
    _says(f"its nodes run {min(star):.1f}–{max(star):.1f} tasks per batch besides the operator's two, against "
          f"{min(rest):.1f}–{max(rest):.1f} on Linear and Diamond")
    repeat = _page().blocks[CPU_PAPER_WAY_REPEAT]
    (row,) = [r for r in _table(CPU_PAPER_WAY_REPEAT, "#### Figs. 10–12")]
    assert row["node types measured (steps)"].startswith("pentium (") and row["figure"] == "Fig. 11 (Diamond)"
    idle = [_nums(next(x for x in lines if "idle node" in x))[0]
            for lines in (repeat.splitlines(), _cpu_node_lines("nasiri-diamond", "pentium-1"))]
    _says(f"a repeat of Diamond on the Pentium alone right after Star (the second block below) gave {row['ours']}, "
          f"{row['verdict']}, its idle node at {idle[0]:.1f} spec points against {idle[1]:.1f} in the first run")
    assert abs(float(row["ours"].removesuffix(" %")) - float(figs["Fig. 11 (Diamond)"]["ours"].removesuffix(" %"))) > 8
    runs = next(x for x in _page().blocks[CPU_PAPER_WAY].splitlines() if x.startswith("Runs "))
    load = re.search(r"nasiri-diamond, ended [^(]+\(\d+ s, load ([\d.]+ → [\d.]+)\)", runs)
    assert load is not None
    _says(f"which is the run's \"load {load[1]}\"")
