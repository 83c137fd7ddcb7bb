"""`streamplace run --master` on the emulated cluster, as a user runs it, beside its prediction (issue 36 item 4).

Starts ``cluster up CLUSTER`` (CPU quotas as usual) unless ``--master`` names one that is up, plans
``--topology`` (default ``linear-cpu``: a source and three operators, held out of standalone_hetero.py's
topology) with each of ``--schedulers`` — each plan at the source rates it was planned for — and launches
``streamplace run TOPOLOGY CLUSTER --plan FILE --master URL --duration D --warmup W --sink noop --json``
once per plan, one after the other, each with a fresh output directory. From each run's JSON: the sinks'
throughput and the mean latency measured over the window of whole micro-batches beside the prediction
(the spark engine at the rates the bounded sources admit), the sources' admitted and offered rates and the
backlog. Goals (issue 36): every plan within 25 % of its predicted throughput, and the measured ranking of
the plans the predicted one.

It exits non-zero when a plan or a run failed (no result, or no tuple reached a sink at all), after the table of
the others. A run whose window held no tuple (a short window on a loaded machine) is not a failure: its throughput
is said to be not measured, and so is the measured ranking.

Before the runtime carried its plans (issue 36, hetero-3, 40 s): hetero 0 t/s measured vs 170 predicted (exit
0), round robin 97 vs 118, R-Storm 15 vs 42.

    .venv/bin/python benchmarks/run_vs_predicted.py [--cluster hetero-3] [--duration 40] [--warmup 20]
        [--schedulers hetero,round-robin,r-storm] [--no-jvm-archives]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", default="hetero-3")
    parser.add_argument("--topology", default="linear-cpu")
    parser.add_argument("--schedulers", default="hetero,round-robin,r-storm")
    parser.add_argument("--duration", type=float, default=40.0)
    parser.add_argument("--warmup", type=float, default=20.0)
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
            for name in args.schedulers.split(","):
                plan_file = home / f"{name}.json"
                made = cli("plan", args.topology, args.cluster, "-s", name, "-o", str(plan_file))
                if made.returncode != 0:
                    print(f"  {name}: plan failed: {made.stderr[-500:]}")
                    failed.append(f"{name}: plan failed")
                    continue
                ran = cli("run", args.topology, args.cluster, "--plan", str(plan_file), "--master", master,
                          *state_args, "--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}",
                          "--sink", "noop", "--out", str(home / f"out-{name}"), "--json",
                          *[x for kv in args.param for x in ("-p", kv)])
                doc = run_document(ran.stdout)
                why_failed = failure(ran, doc)
                if why_failed is not None or doc is None:
                    print(f"  {name}: {why_failed}", flush=True)
                    failed.append(f"{name}: run failed (exit {ran.returncode})")
                    continue
                m, p, adm = doc["measured"], doc["predicted"], doc.get("admission", {})
                unmeasured = unmeasured_why(doc, args.duration)
                row = {"plan": name, "exit": ran.returncode, "predicted": p.get("delivered_throughput") or 0.0,
                       "measured": None if unmeasured else m["throughput"], "unmeasured": unmeasured,
                       "lat_pred": p.get("latency_mean_ms"), "lat_meas": m.get("latency_ms"),
                       "offered": adm.get("offered_rate"), "admitted": adm.get("max_rate"),
                       "trigger": adm.get("trigger_s"), "backlog": m.get("backlog_rows"),
                       "growth": m.get("backlog_growth_per_s")}
                rows.append(row)
                said = (f"measured {row['measured']:,.1f}; latency predicted {(row['lat_pred'] or 0) / 1000:.2f} s, "
                        f"measured {(row['lat_meas'] or 0) / 1000:.2f} s" if unmeasured is None
                        else f"measured: not measured — {unmeasured}")
                print(f"  {name}: exit {ran.returncode}, trigger {figure(row['trigger'], 'g')} s, offered "
                      f"{figure(row['offered'])} t/s, admits ≤ {figure(row['admitted'])}; throughput predicted "
                      f"{row['predicted']:,.1f}, {said}; backlog {row['backlog'] or 0:,.0f} rows "
                      f"({row['growth'] or 0:+,.1f}/s)", flush=True)
        finally:
            if args.master is None:
                cli("cluster", "down", "--state-dir", str(home / "cluster"))
    print(f"\n{args.topology} on {args.cluster}, `run --master` for {args.duration:g} s after {args.warmup:g} s"
          f"{' with ' + ' '.join(args.param) if args.param else ''}; "
          f"goal: within {GOAL:.0%} of the prediction, ranking as predicted")
    print("| plan | offered t/s | trigger | predicted t/s | measured t/s | measured / predicted "
          "| latency pred. / meas. |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        if r["measured"] is None:
            measured, ratio = "not measured", "–"
        elif r["predicted"]:
            x = r["measured"] / r["predicted"]
            measured, ratio = f"{r['measured']:,.1f}", f"{x:.2f}{'' if abs(x - 1) <= GOAL else ' (outside)'}"
        else:
            measured, ratio = f"{r['measured']:,.1f}", "– (0 predicted)"
        latency = (f"{(r['lat_pred'] or 0) / 1000:.2f} s / {(r['lat_meas'] or 0) / 1000:.2f} s"
                   if r["measured"] is not None else f"{(r['lat_pred'] or 0) / 1000:.2f} s / –")
        print(f"| {r['plan']} | {figure(r['offered'])} | {figure(r['trigger'], 'g')} s | {r['predicted']:,.1f} "
              f"| {measured} | {ratio} | {latency} |")
    pred = [r["plan"] for r in sorted(rows, key=lambda r: -r["predicted"])]
    missing = [r["plan"] for r in rows if r["measured"] is None]
    if not rows:
        print("ranking: not measured — no plan ran")
    elif missing:  # a ranking without them would compare other plans than the predicted one
        print(f"ranking predicted: {' > '.join(pred)}; measured: not measured — no throughput for "
              f"{', '.join(missing)}")
    else:
        meas = [r["plan"] for r in sorted(rows, key=lambda r: -r["measured"])]
        print(f"ranking predicted: {' > '.join(pred)}; measured: {' > '.join(meas)} "
              f"({'same' if pred == meas else 'differs'})")
    if failed:  # the table holds only the plans that ran: a failed one must not pass for a finished benchmark
        sys.exit(f"{len(failed)} of {len(args.schedulers.split(','))} plans failed: {'; '.join(failed)}")


if __name__ == "__main__":
    main()
