"""Faults survived, measured (issue 55, item 1): one fault per `streamplace live` run on the emulated cluster.

Each run starts a three-node cluster (``cluster up``: a Spark worker per node under its CPU quota, loopback hosts
127.0.0.x), runs a chain src → mid ×2 → sink at 100 tuples/s under the ``hold`` policy (mid's replicas on b and c),
injects one fault at ``--at`` seconds, and reads the Parquet sink back: every tuple carries its source id
(``value``, 0, 1, 2, … from the source), so

* lost = the ids missing below the highest delivered, duplicated = rows − distinct ids (goal: 0 and 0);
* recovery = from the fault to the first batch published after the fault ended whose newest tuple was at most
  ``pre-fault lag + one trigger`` old — the pipeline back at the offered rate with its backlog drained;
* dip = the lowest sink rate over a 5 s window between the fault and the recovery, in % of the offered rate;
* what `live` said: its exit, the faults and plans in its JSON result, its error's last line, and the live
  page's log lines after the fault.

The faults: ``worker`` (its node's worker and executors SIGKILLed: `live --kill`), ``executor`` (the node's executor
JVMs SIGKILLed, the worker stays: `--fault executor:`), ``driver`` (the `live` process group SIGKILLed, then `live`
restarted on the same output directory: its checkpoint), ``straggler`` (a node's CPU quota cut to a tenth for 60 s:
`--fault slow:`), ``partition`` (every process of a node SIGSTOPped for 30 s: `--fault freeze:`, the node cut off on
all its links), ``link`` (one link between two emulated hosts delayed or cut for 30 s: checked, and said not
injectable where the machine cannot), ``disk-full`` (the output and checkpoint directory on a small tmpfs, filled
for 30 s; `live` restarted after it if it stopped), ``stall`` (the sources admit nothing for 30 s: `--fault stall`),
``run-driver`` (the driver fault for `streamplace run`: its process group SIGKILLed, `run` started again on the
same ``--out``), ``remove`` (executors released by the autoscaler while micro-batches run: a plain PySpark query
under ``streamplace.autoscale`` — examples/autoscale_query.py, ids 0, 1, 2, … from its pattern source into Spark's
Parquet file sink — on examples/autoscale-cluster.yaml; its load and options make it release executors; every
removal is checked against the batch that ran then and the tasks that failed on the executor).

Every run holds ``--lock`` (an flock, as benchmarks/autoscale.py) for its cluster's life. ``--smoke``: the smallest
case, one short ``stall`` run. Exit 1 when a measured run lost or duplicated a tuple.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import autoscale as scaling
from markdown_out import write_markdown
from spark_lock import held

CLUSTER = """\
name: three
nodes:
  - {id: a, cpu: 200, memory_mb: 4096, slots: 2}
  - {id: b, cpu: 200, memory_mb: 4096, slots: 2}
  - {id: c, cpu: 200, memory_mb: 4096, slots: 2}
"""
TOPOLOGY = """\
name: fail-chain
operators:
  - {id: src, kind: source, rate: 100, cost_ms: 0.1, replicas: 1}
  - {id: mid, cost_ms: 2.0, replicas: 2}
  - {id: sink, kind: sink, cost_ms: 0.1, replicas: 1}
streams:
  - {from: src, to: mid}
  - {from: mid, to: sink}
"""
PLAN = {"scheduler": "manual", "status": "ok", "topology": "fail-chain", "cluster": "three",
        "replicas": {"src": {"a": 1}, "mid": {"b": 1, "c": 1}, "sink": {"a": 1}}, "source_rates": {"src": 100}}
RATE = 100.0
TRIGGER_S = 1.0
FAULTS = ("executor", "driver", "run-driver", "straggler", "stall", "disk-full", "partition", "worker", "link",
          "remove")
#: the removal run (``remove``): the query's arrivals (from second: rows/s) — low, so that the autoscaler releases
#: executors of the four the application starts with, then a step up (it adds some) and down (it releases again)
REMOVE_LEVELS = "0:100,150:400,240:100"
REMOVE_SECONDS = 330.0
REMOVE_TRIGGER_S = 1.0
#: the autoscaler's options for it: a target batch time far above the batches (back to back at a 1 s trigger, so
#: every release lands in a running batch), a fit from 3 settled batches, no scale-down window, per-minute billing
#: units whose every executor is releasable (horizon = the unit), 5 s of stabilization
REMOVE_OPTIONS = ("target_batch_s=20", "stabilization_s=5", "scale_down_window_s=0", "warmup_batches=1",
                  "min_points=3", 'worker_types={"default": {"unit_s": 60}}', "release_horizon_s=60")
#: how long a fault lasts (s): the ones that end by themselves
LASTS = {"straggler": 60.0, "partition": 30.0, "disk-full": 30.0, "stall": 30.0, "link": 30.0}
TMPFS_MB = 64


@dataclass
class Batch:
    batch_id: int
    published: float  # epoch s: the newest file of the batch
    rows: int
    newest_ts: float | None  # epoch s of the batch's newest tuple


@dataclass
class Outcome:
    fault: str
    injected: str = ""  # how, or why not
    rows: int = 0
    lost: int | None = None
    duplicated: int | None = None
    recover_s: float | None = None
    dip_pct: float | None = None
    said: list[str] = field(default_factory=list)
    measured: bool = False


# ------------------------------------------------------------------ reading the sink
def read_sink(sink: Path) -> tuple[list[Batch], list[int]]:
    """Every published batch of the sink (``batch_id=N`` directories; staging ones are hidden) and all ids."""
    import pyarrow.parquet as pq

    batches, ids = [], []
    for d in sorted(sink.glob("batch_id=*"), key=lambda p: int(p.name.split("=")[1])):
        files = list(d.glob("*.parquet"))
        if not files:
            continue
        table = pq.read_table(d)
        values = table.column("value").to_pylist()
        ids += values
        ts = table.column("ts").to_pylist() if "ts" in table.column_names else []
        newest = max((t.timestamp() for t in ts if t is not None), default=None)
        batches.append(Batch(int(d.name.split("=")[1]), max(f.stat().st_mtime for f in files), len(values), newest))
    return batches, ids


def lost_and_duplicated(ids: list[int]) -> tuple[int, int]:
    """Ids missing below the highest delivered (from 0), and rows beyond the distinct ids."""
    distinct = set(ids)
    return (max(distinct) + 1 - len(distinct) if distinct else 0), len(ids) - len(distinct)


def recovery(batches: list[Batch], fault_at: float, fault_end: float, rate: float, trigger_s: float
             ) -> tuple[float | None, float | None]:
    """Seconds from ``fault_at`` until the pipeline is back at the offered rate — the first batch, published after
    ``fault_end`` and after the first late one, that starts three on time in a row (on time: its newest tuple at
    most the pre-fault median lag + one trigger old; 0 when no batch after the fault was late) — and the lowest
    5 s sink rate in between (% of ``rate``)."""
    lag = [b.published - b.newest_ts for b in batches
           if b.newest_ts is not None and fault_at - 30 <= b.published < fault_at]
    if not lag:
        return None, None
    bound = statistics.median(lag) + trigger_s
    after = sorted((b for b in batches if b.published > fault_at and b.newest_ts is not None),
                   key=lambda b: b.published)
    on_time = [b.published - (b.newest_ts or 0.0) <= bound for b in after]
    late = next((i for i, ok in enumerate(on_time) if not ok), None)
    if late is None and fault_end <= fault_at:
        return 0.0, 100.0 * min(_rates(batches, fault_at, fault_at + 5.0)) / rate
    back = next((after[i].published for i in range(late or 0, len(after))
                 if after[i].published > fault_end and all(on_time[i:i + 3])), None)
    if back is None:
        return None, None
    lows = _rates(batches, fault_at, max(back, fault_at + 5.0))
    return back - fault_at, (100.0 * min(lows) / rate if lows else None)


def _rates(batches: list[Batch], start: float, end: float, window: float = 5.0) -> list[float]:
    """The sink's rate (tuples/s by publish time) over each ``window`` s from ``start`` to ``end``, a second apart."""
    out, t = [], start
    while t + window <= end + 1e-9:
        out.append(sum(b.rows for b in batches if t <= b.published < t + window) / window)
        t += 1.0
    return out


def page_log(page: Path, after_s: float) -> list[str]:
    """The live page's log lines from ``after_s`` seconds on (the page embeds its state as JSON)."""
    if not page.exists():
        return []
    text = page.read_text(errors="replace")
    found = []
    for m in re.finditer(r'"at_s":\s*([\d.]+),\s*"kind":\s*"([\w-]+)",\s*"(?:what|detail|text)":\s*"([^"]*)"', text):
        if float(m.group(1)) >= after_s:
            found.append(f"{float(m.group(1)):.0f} s {m.group(2)}: {m.group(3)}")
    return found


# ------------------------------------------------------------------ running
def streamplace(*args: str, env: dict[str, str], timeout: float = 600.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "streamplace", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def live_cmd(work: Path, master: str, duration: float, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "streamplace", "live", str(work / "chain.yaml"), str(work / "three.yaml"),
            "--policy", "hold", "--plan", str(work / "plan.json"), "--master", master, "--duration", f"{duration:g}",
            "--interval", "10", "--trigger", f"{TRIGGER_S:g}", "--out", str(work / "out"), "--json", *extra]


def run_cmd(work: Path, master: str, duration: float, extra: list[str]) -> list[str]:
    """`streamplace run` of the same chain and plan (``duration`` s in all: a 5 s warm-up, then measured)."""
    return [sys.executable, "-m", "streamplace", "run", str(work / "chain.yaml"), str(work / "three.yaml"),
            "--plan", str(work / "plan.json"), "--master", master, "--warmup", "5",
            "--duration", f"{max(1.0, duration - 5):g}", "--trigger", f"{TRIGGER_S:g}", "--out", str(work / "out"),
            "--json", *extra]


def link_check() -> str:
    """Can one link between two emulated hosts be delayed or cut here? Tried in a throwaway network namespace."""
    name = f"sp-faults-{os.getpid()}"
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "no `ip`/`tc` on this machine"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode:
        return f"network namespaces unavailable ({made.stderr.strip()})"
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], capture_output=True)
        netem = subprocess.run(["ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", "lo", "root", "netem",
                                "delay", "10ms"], capture_output=True, text=True)
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)
    filters = [t for t in ("iptables", "nft") if shutil.which(t)]
    if netem.returncode:
        return (f"network namespaces work, but netem does not (`tc qdisc … netem`: {netem.stderr.strip()[:80]}), "
                f"no packet filter ({', '.join(filters) or 'no iptables, no nft'}), and `cluster up` binds every "
                "emulated host to 127.0.0.x in one namespace: one link between two hosts cannot be delayed or cut")
    return "netem works in a namespace, but `cluster up` puts every emulated host in one: not injected"


def run_fault(fault: str, work: Path, args: argparse.Namespace, env: dict[str, str]) -> Outcome:
    """Start the cluster, run `live` with ``fault`` at ``args.at``, stop the cluster; the sink read back."""
    got = Outcome(fault)
    if fault == "link":
        got.injected = link_check()
        return got
    if fault == "remove":
        with held(args.lock):
            return run_removal(work, env, args.keep)
    lasts = LASTS.get(fault, 0.0)
    at = args.at
    duration = at + lasts + args.after
    if fault in ("driver", "run-driver", "disk-full"):  # ``at`` after the first output (20-60 s after the start)
        duration += 90.0
    mount = None
    if fault == "disk-full":
        (work / "out").mkdir(parents=True, exist_ok=True)
        m = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs", str(work / "out")],
                           capture_output=True, text=True)
        if m.returncode:
            got.injected = f"not injected: a tmpfs cannot be mounted here ({m.stderr.strip()})"
            return got
        mount = work / "out"
    extra = {"executor": ["--fault", f"executor:c@{at:g}"], "worker": ["--kill", f"c@{at:g}"],
             "straggler": ["--fault", f"slow:b@{at:g}+{lasts:g}"],
             "partition": ["--fault", f"freeze:c@{at:g}+{lasts:g}"],
             "stall": ["--fault", f"stall@{at:g}+{lasts:g}"]}.get(fault, [])
    try:
        with held(args.lock):
            up = streamplace("cluster", "up", str(work / "three.yaml"), "--no-jvm-archives", env=env, timeout=240)
            if up.returncode:
                got.injected = f"cluster up failed: {up.stderr.strip()[-300:]}"
                return got
            master = up.stdout.strip().splitlines()[-1]
            try:
                got = _drive(fault, work, master, at, lasts, duration, extra, env, got)
            finally:
                streamplace("cluster", "down", "--state-dir", str(work / "home" / "clusters" / "three"), env=env,
                            timeout=180)
    finally:
        if mount is not None:
            shutil.copytree(mount, work / "out-kept")
            subprocess.run(["umount", str(mount)], capture_output=True)
            shutil.rmtree(mount, ignore_errors=True)
            (work / "out-kept").rename(mount)
    batches, ids = read_sink(work / "out" / "sink")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        (args.keep / f"{fault}.json").write_text(json.dumps(
            {"said": got.said, "injected": got.injected, "batches": [vars(b) for b in batches]}, indent=1))
    got.rows = len(ids)
    got.lost, got.duplicated = lost_and_duplicated(ids)
    if got.measured:
        at_epoch = float(got.said.pop(0))
        got.recover_s, got.dip_pct = recovery(batches, at_epoch, at_epoch + lasts, RATE, TRIGGER_S)
    return got


def _drive(fault: str, work: Path, master: str, at: float, lasts: float, duration: float, extra: list[str],
           env: dict[str, str], got: Outcome) -> Outcome:
    """Run `live` (twice for the driver's and the full disk's restart) and note what it said; ``got.said[0]`` is
    the fault's time (epoch s) for run_fault."""
    said: list[str] = []
    command = run_cmd if fault == "run-driver" else live_cmd
    if fault in ("driver", "run-driver", "disk-full"):
        proc = subprocess.Popen(command(work, master, duration, extra), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        first_out = _first_output(work / "out" / "sink", proc, timeout_s=240)
        if first_out is None:
            proc.kill()
            got.injected = f"no output before the fault: {proc.communicate()[1].strip()[-300:]}"
            return got
        time.sleep(at)
        fault_at = time.time()
        if fault in ("driver", "run-driver"):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            name = "run" if fault == "run-driver" else "live"
            got.injected = f"`{name}`'s process group SIGKILLed {at:g} s after its first output; `{name}` restarted"
            said.append("first run: killed (no result)")
        else:
            filler = work / "out" / "filler"
            with contextlib.suppress(OSError), filler.open("wb") as f:
                while True:
                    f.write(b"\0" * (1 << 20))
            free = shutil.disk_usage(work / "out").free
            got.injected = f"{TMPFS_MB} MB tmpfs filled ({free} B free) for {lasts:g} s"
            try:
                out, err = proc.communicate(timeout=lasts)
                said.append(f"first run: exit {proc.returncode}: {_last_error(err)}")
            except subprocess.TimeoutExpired:
                out = ""
            filler.unlink()
            if proc.returncode is None:
                out, err = proc.communicate(timeout=duration + 300)
                said.append(f"first run: exit {proc.returncode} (survived: {_said(out)})"
                            if proc.returncode == 0 else f"first run: exit {proc.returncode}: {_last_error(err)}")
                said.insert(0, repr(fault_at))
                got.said, got.measured = said, True
                return got
        second = subprocess.run(command(work, master, at + lasts + 60, []), capture_output=True, text=True,
                                env=env, timeout=duration + 600)
        (work / "restarted.out").write_text(second.stdout + "\n--- stderr\n" + second.stderr)
        said.append(f"restarted: exit {second.returncode}: "
                    + (_said(second.stdout) if second.returncode == 0 else _last_error(second.stderr)))
    else:
        ran = subprocess.run(live_cmd(work, master, duration, extra), capture_output=True, text=True, env=env,
                             timeout=duration + 600)
        if ran.returncode:
            got.injected = f"live failed: {_last_error(ran.stderr)}"
            said.append(f"exit {ran.returncode}: {_last_error(ran.stderr)}")
            got.said = said
            return got
        result = json.loads(ran.stdout)
        faults = [f for f in result.get("faults", []) if "error" not in f]
        if not faults:
            got.injected = "not injected: " + "; ".join(f.get("error", "") for f in result.get("faults", []))
            return got
        fault_at = result["started_at"] + faults[0]["at_s"]
        got.injected = "; ".join(f["what"] for f in result["faults"])
        said.append(_said(ran.stdout))
        said += page_log(work / "out" / "live-page.html", faults[0]["at_s"] - 1.5)[:6]  # the page logs it as it acts
    said.insert(0, repr(fault_at))
    got.said, got.measured = said, True
    return got


def _first_output(sink: Path, proc: subprocess.Popen[str], timeout_s: float) -> float | None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if any(sink.glob("batch_id=*/*.parquet")):
            return time.time()
        time.sleep(0.5)
    return None


def _last_error(err: str) -> str:
    lines = [ln.strip() for ln in err.splitlines() if ln.strip() and not ln.startswith((" ", "\t"))]
    return (lines[-1] if lines else "(nothing)")[:200]


def _said(stdout: str) -> str:
    """The JSON result of `live` in a few words: its events beyond the start (`run`'s: what it measured)."""
    try:
        result = json.loads(stdout)
    except ValueError:
        return stdout.strip()[-200:]
    if "events" not in result and isinstance(result.get("measured"), dict):
        m = result["measured"]
        return (f"measured {m.get('throughput', 0):.1f} t/s over {len(m.get('window_batches') or [])} batches"
                + (f", backlog {m['backlog_rows']:,.0f} rows" if m.get("backlog_rows") is not None else ""))
    events = [f"{e['kind']} at {e['at_s']:.0f} s: {e['detail']}" + (f" (pause {e['pause_s']:.1f} s)"
                                                                      if e.get("pause_s") else "")
              for e in result.get("events", []) if e["kind"] != "start"]
    return "; ".join(events) or "no plan change"


# ------------------------------------------------------------------ executors removed by the autoscaler
def read_file_sink(sink: Path, arrived: Callable[[int], float]) -> tuple[list[Batch], list[int], int]:
    """Spark's Parquet file sink as its readers see it — the files its log (``_spark_metadata``) committed, batch
    by batch, each batch published when its log entry was written and its newest tuple arrived at
    ``arrived(id)`` — and the number of Parquet files in the directory that no batch committed (written by task
    attempts that failed or were cut short: readers skip them)."""
    import pyarrow.parquet as pq

    logs = sorted((int(f.name.split(".")[0]), f) for f in (sink / "_spark_metadata").iterdir()
                  if f.name.split(".")[0].isdigit())
    seen: set[Path] = set()
    batches, ids = [], []
    for n, log in logs:  # a compacted entry (N.compact) repeats every earlier batch's files: only the new count
        entries = [json.loads(x) for x in log.read_text().splitlines()[1:] if x.strip()]
        files = [Path(unquote(urlparse(e["path"]).path)) for e in entries if e.get("action", "add") == "add"]
        new = [f for f in files if f not in seen]
        seen.update(new)
        values = [v for f in new for v in pq.read_table(f, columns=["id"]).column("id").to_pylist()]
        ids += values
        batches.append(Batch(n, log.stat().st_mtime, len(values), arrived(max(values)) if values else None))
    orphans = sum(1 for f in sink.glob("*.parquet") if f not in seen)
    return batches, ids, orphans


def removals(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Every executor that went while the query ran (not at its end), with the batch that was running then (its
    progress report: from its trigger's timestamp for its triggerExecution) and the query's tasks that failed on
    it as the executor was lost."""
    spans = [(p["batchId"], scaling.epoch(p["timestamp"]),
              scaling.epoch(p["timestamp"]) + p["durationMs"]["triggerExecution"] / 1000.0) for p in run["progress"]]
    found = run.get("lost_tasks")
    lost: list[dict[str, Any]] = found if isinstance(found, list) else []
    out = []
    for e in run["executors"]:
        at = e["removed"]
        if at is None:
            continue
        batch = next(((b, a, z) for b, a, z in spans if a <= at <= z), None)
        out.append({"executor": e["id"], "host": e["host"], "removed": at, "batch": batch,
                    "tasks": [t for t in lost if t["executor"] == e["id"]]})
    return sorted(out, key=lambda r: r["removed"])


def decisions_said(path: Path) -> list[str]:
    """The autoscaler's actions (its decisions other than keep) from its log, each with its batch and reason."""
    if not path.exists():
        return ["no decision log"]
    said = []
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if d.get("action") != "keep":
            said.append(f"batch {d['batch']['id']}: {d['action']} {d.get('executors')} → {d.get('target_executors')}"
                        f" ({', '.join(d.get('release') or d.get('add') or [])}): {d['reason'][:160]}")
    return said or ["kept every executor"]


def delivered(batches: list[Batch], at: float, arrived: Callable[[float], float], share: float = 0.9
              ) -> tuple[float | None, float | None]:
    """Recovery and dip by batch interval, for a fault that changes capacity on purpose (a release: the lag
    settles at the new capacity's batch time, so the pre-fault lag rule of ``recovery`` need not be met again):
    each batch published after ``at`` delivers its rows over the time since the previous batch's publish, against
    what arrived meanwhile (``arrived(t)``: rows arrived by epoch ``t``). Recovery: seconds from ``at`` to the first
    batch that starts three in a row delivering at least ``share`` of the arrivals; dip: the lowest batch's
    delivery until then, in % of its arrivals."""
    ordered = sorted(batches, key=lambda b: b.published)
    shares: list[tuple[float, float]] = []
    for prev, b in itertools.pairwise(ordered):
        if b.published > at:
            came = arrived(b.published) - arrived(prev.published)
            shares.append((b.published, b.rows / came if came > 0 else 1.0))
    back = next((i for i in range(len(shares)) if all(x >= share for _, x in shares[i:i + 3])
                 and len(shares[i:i + 3]) == 3), None)
    if back is None:
        return None, None
    return shares[back][0] - at, 100.0 * min(x for _, x in shares[:back + 1])


def run_removal(work: Path, env: dict[str, str], keep: Path | None, levels_text: str = REMOVE_LEVELS,
                seconds: float = REMOVE_SECONDS) -> Outcome:
    """The autoscaler's query on its four-worker cluster with ``levels_text`` for ``seconds`` and REMOVE_OPTIONS;
    the committed sink read back, each removal set against the batch it fell in, recovery and dip from the first
    removal that fell in a running batch (``measured``: there was one)."""
    got = Outcome("remove")
    state = work / "home" / "clusters" / "autoscale-4"
    master = scaling.start_cluster(env, state, archives=False)
    out = work / "query"
    cmd = [sys.executable, str(scaling.QUERY), "--master", master, "--secret-file", str(state / "secret"),
           "--mode", "autoscale", "--levels", levels_text, "--trigger", f"{REMOVE_TRIGGER_S:g}",
           "--duration", f"{seconds:g}", "--sink", "parquet", "--out", str(out), "--record"]
    for pair in REMOVE_OPTIONS:
        cmd += ["--option", pair]
    try:
        ran = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=seconds + 600)
    finally:
        streamplace("cluster", "down", "--state-dir", str(state), env=env, timeout=180)
    if ran.returncode:
        got.injected = f"the query failed: {_last_error(ran.stderr)}"
        return got
    if keep is not None:  # the query's whole output (sink, checkpoint, decisions, run.json), before reading it
        shutil.copytree(out, keep / "remove-query", dirs_exist_ok=True)
    run = json.loads((out / "run.json").read_text())
    levels, start = scaling.parse_levels(run["levels"]), run["start"]
    batches, ids, orphans = read_file_sink(out / "rows", lambda i: start + scaling.arrival_time(levels, i + 1))
    gone = removals(run)
    if keep is not None:
        (keep / "remove.json").write_text(json.dumps({"removals": gone, "batches": [vars(b) for b in batches],
                                                      "orphans": orphans}, indent=1))
    got.rows = len(ids)
    got.lost, got.duplicated = lost_and_duplicated(ids)
    during = [g for g in gone if g["batch"] is not None]
    got.injected = (f"{len(gone)} executor(s) released by the autoscaler, {len(during)} while a batch ran, "
                    f"{sum(len(g['tasks']) for g in gone)} task(s) lost with them; {orphans} uncommitted file(s)")
    got.said = [f"executor {g['executor']} ({g['host']}) removed at {g['removed'] - start:.1f} s"
                + (f", in batch {g['batch'][0]} ({g['batch'][1] - start:.1f}–{g['batch'][2] - start:.1f} s)"
                   if g["batch"] else ", between batches")
                + (f", {len(g['tasks'])} of its tasks lost: {g['tasks'][0]['error'][:120]}" if g["tasks"] else "")
                for g in gone]
    if isinstance(run.get("lost_tasks"), str):
        got.said.append(f"tasks not read: {run['lost_tasks']}")
    got.said += [f"autoscaler: {d}" for d in decisions_said(out / "decisions.jsonl")]
    if during:
        at = during[0]["removed"]
        rate = scaling.level_at(levels, at - start)
        got.recover_s, got.dip_pct = delivered(batches, at, lambda t: scaling.rows_by(levels, t - start))
        by_lag, lowest = recovery(batches, at, at, rate, REMOVE_TRIGGER_S)
        lags = [f"{b.batch_id}: {b.published - b.newest_ts:.1f}" for b in batches
                if b.newest_ts is not None and at - 30 <= b.published <= at + 60]
        before = _rates(batches, at - 30.0, at)
        got.said.insert(0, f"lag at publish (s) by batch, 30 s before to 60 s after the first removal: "
                           f"{', '.join(lags)}; by the other rows' rule (pre-fault lag + 1 trigger) recovery "
                           f"{fmt(by_lag, ' s')}, dip {fmt(lowest, ' %')}; lowest 5 s sink rate in the 30 s "
                           f"before the removal: {fmt(100.0 * min(before) / rate if before else None, ' %')}")
        got.measured = True
    return got


# ------------------------------------------------------------------ reporting
def fmt(v: float | None, unit: str = "") -> str:
    return "–" if v is None else f"{v:.1f}{unit}"


def table(outcomes: list[Outcome]) -> str:
    head = ("| fault | injected | rows | lost (goal 0) | duplicated (goal 0) | recovery (s) "
            "| dip: lowest 5 s sink rate (% of offered) | what live said |\n|---|---|---|---|---|---|---|---|\n")
    rows = []
    for o in outcomes:
        if not o.measured:
            rows.append(f"| {o.fault} | {o.injected} | – | – | – | – | – | – |")
            continue
        rows.append(f"| {o.fault} | {o.injected} | {o.rows} | {o.lost} | {o.duplicated} | {fmt(o.recover_s)} "
                    f"| {fmt(o.dip_pct)} | {'; '.join(o.said)[:400].replace('|', '/')} |")
    return head + "\n".join(rows) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated, of {', '.join(FAULTS)}")
    ap.add_argument("--at", type=float, default=45.0, help="seconds after the start (the first output) to inject")
    ap.add_argument("--after", type=float, default=50.0, help="seconds to run after the fault ends")
    ap.add_argument("--lock", type=Path, default=None, help="flock this file around each run (e.g. /tmp/spark.lock)")
    ap.add_argument("--markdown", type=Path, default=None)
    ap.add_argument("--keep", type=Path, default=None, help="write each run's batches and what was said here")
    ap.add_argument("--smoke", action="store_true", help="the smallest case: one short stall")
    args = ap.parse_args()
    faults = [f for f in args.faults.split(",") if f]
    if args.smoke:
        faults, args.at, args.after = ["stall"], 35.0, 25.0
        LASTS["stall"] = 10.0
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        ap.error(f"unknown fault(s) {', '.join(unknown)}; use {', '.join(FAULTS)}")
    outcomes = []
    for fault in faults:
        with tempfile.TemporaryDirectory(prefix=f"sp-fault-{fault}-") as tmp:
            work = Path(tmp)
            (work / "three.yaml").write_text(CLUSTER)
            (work / "chain.yaml").write_text(TOPOLOGY)
            (work / "plan.json").write_text(json.dumps(PLAN))
            env = dict(os.environ, STREAMPLACE_HOME=str(work / "home"))
            started = time.monotonic()
            got = run_fault(fault, work, args, env)
            outcomes.append(got)
            print(f"{fault}: {got.injected}")
            if got.measured:
                print(f"  rows {got.rows}, lost {got.lost} (goal 0), duplicated {got.duplicated} (goal 0), "
                      f"recovery {fmt(got.recover_s, ' s')}, dip to {fmt(got.dip_pct, ' %')} of the offered rate "
                      f"({time.monotonic() - started:.0f} s)")
                for line in got.said:
                    print(f"  said: {line}")
            sys.stdout.flush()
    text = table(outcomes)
    print(text)
    if args.markdown is not None:
        write_markdown(args.markdown, text)
    bad = [o.fault for o in outcomes if o.measured and (o.lost or o.duplicated)]
    if bad:
        print(f"lost or duplicated tuples: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
