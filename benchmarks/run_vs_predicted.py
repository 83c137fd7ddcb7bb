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

GOAL = 0.25


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "streamplace"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)


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
        rows = []
        try:
            for name in args.schedulers.split(","):
                plan_file = home / f"{name}.json"
                made = cli("plan", args.topology, args.cluster, "-s", name, "-o", str(plan_file))
                if made.returncode != 0:
                    print(f"  {name}: plan failed: {made.stderr[-500:]}")
                    continue
                ran = cli("run", args.topology, args.cluster, "--plan", str(plan_file), "--master", master,
                          *state_args, "--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}",
                          "--sink", "noop", "--out", str(home / f"out-{name}"), "--json",
                          *[x for kv in args.param for x in ("-p", kv)])
                if ran.returncode != 0 and not ran.stdout.strip():
                    print(f"  {name}: run failed (exit {ran.returncode}): {ran.stderr[-1500:]}")
                    continue
                doc = json.loads(ran.stdout)
                m, p, adm = doc["measured"], doc["predicted"], doc.get("admission", {})
                row = {"plan": name, "exit": ran.returncode, "predicted": p.get("delivered_throughput") or 0.0,
                       "measured": m.get("throughput") or 0.0, "lat_pred": p.get("latency_mean_ms"),
                       "lat_meas": m.get("latency_ms"), "offered": adm.get("offered_rate"),
                       "admitted": adm.get("max_rate"), "trigger": adm.get("trigger_s"),
                       "backlog": m.get("backlog_rows"), "growth": m.get("backlog_growth_per_s")}
                rows.append(row)
                print(f"  {name}: exit {ran.returncode}, trigger {row['trigger']:g} s, offered {row['offered']:,.1f} "
                      f"t/s, admits ≤ {row['admitted']:,.1f}; throughput predicted {row['predicted']:,.1f}, "
                      f"measured {row['measured']:,.1f}; latency predicted {(row['lat_pred'] or 0) / 1000:.2f} s, "
                      f"measured {(row['lat_meas'] or 0) / 1000:.2f} s; backlog {row['backlog'] or 0:,.0f} rows "
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
        ratio = r["measured"] / r["predicted"] if r["predicted"] else float("nan")
        print(f"| {r['plan']} | {r['offered']:,.1f} | {r['trigger']:g} s | {r['predicted']:,.1f} "
              f"| {r['measured']:,.1f} "
              f"| {ratio:.2f}{'' if abs(ratio - 1) <= GOAL else ' (outside)'} | {(r['lat_pred'] or 0) / 1000:.2f} s / "
              f"{(r['lat_meas'] or 0) / 1000:.2f} s |")
    pred = [r["plan"] for r in sorted(rows, key=lambda r: -r["predicted"])]
    meas = [r["plan"] for r in sorted(rows, key=lambda r: -r["measured"])]
    print(f"ranking predicted: {' > '.join(pred)}; measured: {' > '.join(meas)} "
          f"({'same' if pred == meas else 'differs'})")


if __name__ == "__main__":
    main()
