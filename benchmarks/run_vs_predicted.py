"""`streamplace run --master` on the emulated cluster, as a user runs it, beside its prediction (issue 36 item 4).

Starts ``cluster up CLUSTER`` (CPU quotas as usual) unless ``--master`` names one that is up, plans
``--topology`` (default ``linear-cpu``: a source and three operators, held out of standalone_hetero.py's
topology) with each of ``--schedulers`` — each plan at the source rates it was planned for — and launches
``streamplace run TOPOLOGY CLUSTER --plan FILE --master URL --duration D --warmup W --sink noop --json``
once per plan, one after the other, each with a fresh output directory. From each run's JSON: the sinks'
throughput and the mean latency measured over the window of whole micro-batches beside the prediction
(the spark engine at the rates the bounded sources admit), the sources' admitted and offered rates and the
backlog. Goals (issue 36): every plan within 25 % of its predicted throughput, and the measured ranking of
the plans the predicted one; issue 54 item 8: measured within 10 % of what the run admits (and predicts), for
every scheduler's plan, offered above and below capacity.

``--schedulers all`` plans with every registered scheduler; plans that place the same replicas on the same nodes
run once, under all their schedulers' names. ``--both-sides`` runs each plan a second time on the other side of
its capacity: a plan the first run found overloaded at half the rate it admitted, one that kept up at twice
the most its bound admits (the plan file's source rates scaled, nothing else changed).

It exits non-zero when a plan or a run failed (no result, or no tuple reached a sink at all), after the table of
the others. A run whose window held no tuple (a short window on a loaded machine) is not a failure: its throughput
is said to be not measured, and so is the measured ranking.

Before the runtime carried its plans (issue 36, hetero-3, 40 s): hetero 0 t/s measured vs 170 predicted (exit
0), round robin 97 vs 118, R-Storm 15 vs 42.

    .venv/bin/python benchmarks/run_vs_predicted.py [--cluster hetero-3] [--duration 40] [--warmup 20]
        [--schedulers hetero,round-robin,r-storm|all] [--both-sides] [--no-jvm-archives]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL = 0.25
#: issue 54 item 8: measured within this share of what the run admits (its predicted throughput)
ADMITTED_GOAL = 0.10


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "streamplace"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)


def run_document(stdout: str) -> dict[str, Any] | None:
    """The JSON `run --json` printed (None: it printed none, or something else — the run failed before it)."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and "measured" in doc else None


def failure(ran: subprocess.CompletedProcess[str], doc: dict[str, Any] | None) -> str | None:
    """Why the run failed (None: it ran). A run fails when it printed no result, or exited non-zero for another
    reason than a window too short to hold a tuple: no tuple reaching a sink at all is the pipeline's failure
    (issue 36: hetero measured 0 t/s and exited 0)."""
    if doc is None:
        return f"run failed (exit {ran.returncode}), no result: {ran.stderr[-1500:]}"
    if ran.returncode == 0:
        return None
    if not doc["measured"].get("sink_tuples_total"):
        return f"run failed (exit {ran.returncode}): no tuple reached a sink: {ran.stderr[-1500:]}"
    if doc["measured"].get("throughput"):
        return f"run failed (exit {ran.returncode}): {ran.stderr[-1500:]}"
    return None  # tuples reached the sinks only outside the window: not measured (unmeasured_why says so)


def unmeasured_why(doc: dict[str, Any], duration: float) -> str | None:
    """Why the run's throughput is not measured (None: it is): on a loaded machine the window (from one batch's end
    to another's) can hold no micro-batch that brought a tuple to a sink, and a throughput of 0 would then be read
    as the plan's."""
    m = doc["measured"]
    if m.get("throughput"):
        return None
    return (f"no tuple reached a sink in the {m.get('window_s') or duration:.1f} s window "
            f"({len(m.get('window_batches') or [])} micro-batches ended in it); raise --duration")


def figure(x: Any, spec: str = ",.1f") -> str:
    """A figure the run reported, or "–" where it reported none."""
    return format(x, spec) if isinstance(x, int | float) else "–"


def distinct_plans(args: argparse.Namespace, home: Path) -> list[tuple[list[str], Path]]:
    """Each distinct plan of ``--schedulers`` (``all``: every registered one) and the schedulers that made it: plans
    placing the same replicas on the same nodes run once. A scheduler that fails to plan is said and skipped."""
    names = args.schedulers.split(",")
    if names == ["all"]:
        from streamplace.schedulers import REGISTRY

        names = sorted(REGISTRY)
    found: dict[str, tuple[list[str], Path]] = {}
    for name in names:
        plan_file = home / f"{name}.json"
        made = cli("plan", args.topology, args.cluster, "-s", name, "-o", str(plan_file))
        if made.returncode != 0:
            print(f"  {name}: plan failed: {made.stderr[-500:]}")
            continue
        key = json.dumps(json.loads(plan_file.read_text())["replicas"], sort_keys=True)
        found.setdefault(key, ([], plan_file))[0].append(name)
    return list(found.values())


def other_side(row: dict[str, Any], plan_file: Path, out: Path) -> tuple[str, Path] | None:
    """The plan at a rate on the other side of its capacity (see the module's docstring): ("below" or "above", its
    file), None where the first run admitted no finite rate."""
    admitted, offered = row.get("admitted"), row.get("offered")
    if not isinstance(admitted, int | float) or not isinstance(offered, int | float) or not 0 < admitted < 1e12:
        return None
    side, target = ("below", 0.5 * admitted) if row["overloaded"] else ("above", 2.0 * admitted)
    doc = json.loads(plan_file.read_text())
    total = sum(doc["source_rates"].values())
    doc["source_rates"] = {k: v * target / total for k, v in doc["source_rates"].items()}
    out.write_text(json.dumps(doc))
    return side, out


def run_once(args: argparse.Namespace, master: str, state_args: list[str], home: Path, name: str, side: str,
             plan_file: Path, failed: list[str]) -> dict[str, Any] | None:
    """One `run` of ``plan_file`` and its row (None: it failed, said and added to ``failed``)."""
    ran = cli("run", args.topology, args.cluster, "--plan", str(plan_file), "--master", master,
              *state_args, "--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}",
              "--sink", "noop", "--out", str(home / f"out-{plan_file.stem}-{side}"), "--json",
              *[x for kv in args.param for x in ("-p", kv)])
    doc = run_document(ran.stdout)
    why_failed = failure(ran, doc)
    if why_failed is not None or doc is None:
        print(f"  {name} ({side}): {why_failed}", flush=True)
        failed.append(f"{name} ({side}): run failed (exit {ran.returncode})")
        return None
    m, p, adm = doc["measured"], doc["predicted"], doc.get("admission", {})
    unmeasured = unmeasured_why(doc, args.duration)
    row = {"plan": name, "side": side, "exit": ran.returncode, "predicted": p.get("delivered_throughput") or 0.0,
           "measured": None if unmeasured else m["throughput"], "unmeasured": unmeasured,
           "lat_pred": p.get("latency_mean_ms"), "lat_meas": m.get("latency_ms"),
           "offered": adm.get("offered_rate"), "admitted": adm.get("max_rate"),
           "admitted_rate": p.get("source_rate"), "overloaded": bool(adm.get("overloaded")),
           "trigger": adm.get("trigger_s"), "backlog": m.get("backlog_rows"),
           "growth": m.get("backlog_growth_per_s")}
    said = (f"measured {row['measured']:,.1f}; latency predicted {(row['lat_pred'] or 0) / 1000:.2f} s, "
            f"measured {(row['lat_meas'] or 0) / 1000:.2f} s" if unmeasured is None
            else f"measured: not measured — {unmeasured}")
    print(f"  {name}: exit {ran.returncode}, trigger {figure(row['trigger'], 'g')} s, offered "
          f"{figure(row['offered'])} t/s, admits ≤ {figure(row['admitted'])}; throughput predicted "
          f"{row['predicted']:,.1f}, {said}; backlog {row['backlog'] or 0:,.0f} rows "
          f"({row['growth'] or 0:+,.1f}/s)", flush=True)
    return row


def table_row(r: dict[str, Any]) -> str:
    """One run's row of the table: its figures beside the prediction and the admitted rate, each ratio beside its
    goal."""
    admitted = r["admitted_rate"] if isinstance(r["admitted_rate"], int | float) else None
    if r["measured"] is None:
        measured, ratio, to_admitted = "not measured", "–", "–"
    else:
        measured = f"{r['measured']:,.1f}"
        x = r["measured"] / r["predicted"] if r["predicted"] else None
        ratio = "– (0 predicted)" if x is None else f"{x:.2f}{'' if abs(x - 1) <= GOAL else ' (outside)'}"
        y = r["measured"] / admitted if admitted else None
        to_admitted = "–" if y is None else f"{y:.2f}{'' if abs(y - 1) <= ADMITTED_GOAL else ' (outside)'}"
    latency = (f"{(r['lat_pred'] or 0) / 1000:.2f} s / {(r['lat_meas'] or 0) / 1000:.2f} s"
               if r["measured"] is not None else f"{(r['lat_pred'] or 0) / 1000:.2f} s / –")
    return (f"| {r['plan']} | {r['side']} | {figure(r['offered'])} | {figure(r['trigger'], 'g')} s "
            f"| {figure(admitted)} | {r['predicted']:,.1f} | {measured} | {ratio} | {to_admitted} | {latency} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", default="hetero-3")
    parser.add_argument("--topology", default="linear-cpu")
    parser.add_argument("--schedulers", default="hetero,round-robin,r-storm")
    parser.add_argument("--duration", type=float, default=40.0)
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--both-sides", action="store_true",
                        help="run each plan also on the other side of its capacity (below when overloaded, else above)")
    parser.add_argument("--master", default=None, help="a cluster `streamplace cluster up` started (else one is)")
    parser.add_argument("--no-jvm-archives", action="store_true",
                        help="cluster up without the JVM class archives (no minute or two of priming; JVMs start "
                             "slower)")
    parser.add_argument("-p", "--param", action="append", default=[],
                        help="engine parameter for run, spark.KEY=VALUE (e.g. standalone_hetero.py --fixed's fit)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sp-runvs-") as tmp:
        home = Path(tmp)
        state_args: list[str] = []
        master = args.master
        if master is None:
            started = time.perf_counter()
            up = cli("cluster", "up", args.cluster, "--state-dir", str(home / "cluster"), "--json",
                     *(["--no-jvm-archives"] if args.no_jvm_archives else []))
            if up.returncode != 0:
                sys.exit(f"cluster up failed: {up.stderr[-2000:]}")
            master = json.loads(up.stdout)["master_url"]
            state_args = ["--state-dir", str(home / "cluster")]
            print(f"cluster {args.cluster} up in {time.perf_counter() - started:.0f} s at {master}", flush=True)
        rows: list[dict[str, Any]] = []
        failed: list[str] = []
        try:
            for names, plan_file in distinct_plans(args, home):
                name = "/".join(names)
                runs = [("planned", plan_file)]
                for side, run_file in runs:
                    row = run_once(args, master, state_args, home, name, side, run_file, failed)
                    if row is None:
                        continue
                    rows.append(row)
                    if args.both_sides and side == "planned":
                        other = other_side(row, plan_file, home / f"{names[0]}-other.json")
                        if other is not None:
                            runs.append(other)
        finally:
            if args.master is None:
                cli("cluster", "down", "--state-dir", str(home / "cluster"))
    print(f"\n{args.topology} on {args.cluster}, `run --master` for {args.duration:g} s after {args.warmup:g} s"
          f"{' with ' + ' '.join(args.param) if args.param else ''}; "
          f"goal: within {GOAL:.0%} of the prediction, ranking as predicted")
    print(f"item 8's goal: measured within {ADMITTED_GOAL:.0%} of what the run admits")
    print("| plan | side | offered t/s | trigger | admitted t/s | predicted t/s | measured t/s | measured / predicted "
          "| measured / admitted | latency pred. / meas. |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(table_row(r))
    planned = [r for r in rows if r["side"] == "planned"]
    off = [r for r in rows if r["measured"] is not None and isinstance(r["admitted_rate"], int | float)
           and r["admitted_rate"] > 0 and abs(r["measured"] / r["admitted_rate"] - 1) > ADMITTED_GOAL]
    print(f"measured / admitted within {ADMITTED_GOAL:.0%}: {len(rows) - len(off)} of {len(rows)} runs"
          + (f" (outside: {', '.join(r['plan'] + ' ' + r['side'] for r in off)})" if off else ""))
    pred = [r["plan"] for r in sorted(planned, key=lambda r: -r["predicted"])]
    missing = [r["plan"] for r in planned if r["measured"] is None]
    if not planned:
        print("ranking: not measured — no plan ran")
    elif missing:  # a ranking without them would compare other plans than the predicted one
        print(f"ranking predicted: {' > '.join(pred)}; measured: not measured — no throughput for "
              f"{', '.join(missing)}")
    else:
        meas = [r["plan"] for r in sorted(planned, key=lambda r: -r["measured"])]
        print(f"ranking predicted: {' > '.join(pred)}; measured: {' > '.join(meas)} "
              f"({'same' if pred == meas else 'differs'})")
    if failed:  # the table holds only the plans that ran: a failed one must not pass for a finished benchmark
        sys.exit(f"{len(failed)} of {len(args.schedulers.split(','))} plans failed: {'; '.join(failed)}")


if __name__ == "__main__":
    main()
