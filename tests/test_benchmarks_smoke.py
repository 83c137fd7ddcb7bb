"""Every script in benchmarks/ runs its smallest case end to end, so that a refactor cannot silently break one.

Each case runs the script as a user does (``python benchmarks/NAME.py ARGS``, in its own process, in a scratch
directory) with the smallest arguments that still take its real path: the same functions, on a tiny instance,
a short warm-up and window, one repetition. The test checks the exit code and that the figure lines or tables
the script exists to print are there — never their values, and never a time.

The Spark cases start a local session or a standalone cluster (``cluster up``, without the JVM class archives,
which would take a minute or two of priming); they are marked slow (``make test`` still runs them). A new
script in benchmarks/ fails ``test_every_benchmark_script_has_a_smoke_case`` until it has a case here.
"""

from __future__ import annotations

import importlib.util
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
#: modules the scripts import (``from markdown_out import write_markdown``, ``import verdicts as V``, ``from
#: spark_lock import held``); never run on their own
HELPERS = frozenset({"markdown_out.py", "verdicts.py", "spark_lock.py", "cpu_meters.py"})
#: the smallest topology the profiler can measure: a source and a sink (every operator it profiles costs ~40 s)
PAIR = """\
name: pair
operators:
  - {id: src, kind: source, rate: 100, cost_ms: 1.0, logic: {name: busy}}
  - {id: sink, kind: sink, cost_ms: 1.0, logic: {name: busy}}
streams:
  - {from: src, to: sink}
"""


@dataclass(frozen=True)
class Case:
    """One script's smallest run: its arguments (``{tmp}``: the test's scratch directory), the regular expressions
    every one of which must match a line of its output, the files (under ``{tmp}``) it must have written, and the
    inputs (name, text) written to its working directory before it starts."""

    args: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()
    spark: bool = False  # starts Spark: a local session, or a standalone cluster (cluster up)
    cgroups: bool = False  # needs writable cgroups (per-node CPU quotas)
    slow: bool = False
    timeout_s: float = 300.0
    #: the script exits 1 when a wall-clock goal is missed (a loaded machine may miss it): then only with MISSES said
    timing_exit: bool = False


CASES: dict[str, Case] = {
    "autoscale.py": Case(
        ("--smoke", "--markdown", "{tmp}/autoscale.md"),
        (r"^cluster at spark://127\.0\.0\.1:\d+; 1\.5 min per run",
         r"^  streamplace: \d+ batches, [\d.]+ % within target.*, other load [\d.]+ cores$",
         r"^\| step \| streamplace \| \d+ \| .* \| [\d.]+ \|$",
         r"^step: within target [\d.]+ % \(goal ≥ 95 %\)"),
        files=("autoscale.md",), spark=True, slow=True, timeout_s=900.0),
    "batch_cost.py": Case(
        ("--duration", "4", "--warmup", "4"),
        # 8 s on a loaded machine may leave no batch after the 3 start-up ones: the script says not measured
        (r"^fused \(1 stage\), 1 s trigger +(\d+ ms per batch \(walCommit|not measured — )",
         r"^unfused \(4 stages\), 2 s trigger +(\d+ ms per batch|not measured — )",
         r"^Spark alone \(no Python\), 1 s +(\d+ ms per batch|not measured — )",
         r"^fixed cost per batch, 4 operators fused: (\d+ ms — goal ≤ 200 ms: (met|NOT met)|not measured — .*goal ≤ "
         r"200 ms: not measured)"),
        spark=True, slow=True),
    "cpu_prediction.py": Case(
        ("--nodes", "pentium-1", "--steps", "2", "--top", "0.5", "--prime", "3", "--idle", "1", "--warmup", "2",
         "--duration", "3", "--chunk", "1", "--state-dir", "{tmp}/state", "--no-jvm-archives",
         "--markdown", "{tmp}/cpu.md", "--json", "{tmp}/cpu.json"),
        (r"^cluster hetero-3 up in \d+ s; CPU quotas: scale",
         r"^idle CPU per node \(real cores, no query\): pentium-1 \d",
         r"^ +\d+\.\d t/s offered: IR +\d",
         r"^  node \(cgroup\) +e = +-?\d",
         r"^nasiri-linear +pentium +2 +",
         r"^overall +\d+ ",
         r"^Fig\. 10 \(Linear\) +pentium \(\d\); not core-i3, core-i5 +92% "),
        files=("cpu.md", "cpu.json"), spark=True, cgroups=True, slow=True, timeout_s=600.0),
    "cpu_prediction_real.py": Case(
        ("--operators", "hash", "--nodes", "pentium-1,core-i5-1", "--steps", "2", "--top", "0.5", "--prime", "3",
         "--idle", "1", "--warmup", "2", "--duration", "3", "--chunk", "1", "--state-dir", "{tmp}/state",
         "--no-jvm-archives", "--markdown", "{tmp}/cpu-real.md", "--json", "{tmp}/cpu-real.json"),
        (r"^cluster hetero-3 up; scale [\d.]+ real cores per spec core",
         r"^ +\d+\.\d t/s offered: IR +\d",
         r"^  profile \(pentium, paper\): e = -?[\d.]+ real ms/tuple, MET = [\d.]+",
         r"^hash +pentium \(profiled\) +2 ",
         r"^hash +core-i5 +2 ",
         r"^hash +predicted types +\d+ "),
        files=("cpu-real.md", "cpu-real.json"), spark=True, cgroups=True, slow=True, timeout_s=600.0),
    "elastic_repro.py": Case(
        ("--seeds", "1", "--minutes", "10", "--out", "{tmp}/elastic", "--markdown", "{tmp}/elastic.md"),
        (r"The paper's claims, BTU60 against the threshold baseline",
         r"^│ random-walk-2 +│ near real-time %",
         r"^24 runs of 10 simulated minutes in"),
        files=("elastic.md", "elastic/stepwise.csv", "elastic/random-walk-2.png")),
    "engine_accuracy.py": Case(
        ("--only", "chain2", "--loads", "0.5", "--warmup", "3", "--duration", "4", "--trigger", "1",
         "--json", "{tmp}/accuracy.json"),
        (r"^spark engine on local\[2\], trigger 1 s; constants:",
         r"^chain2 +×0\.5 +rate +\d+ trigger +1 s +throughput +\d",
         # on a loaded machine the 4 s window may hold no micro-batch (no throughput) or no tuple at a sink (no
         # latency): the script says not measured instead of 0 t/s as -100 % or leaving the latency line out
         r"^throughput \|error\|: (median \d|not measured — )",
         r"^latency \|error\| \(half load\): (median \d|not measured — )"),
        files=("accuracy.json",), spark=True, slow=True),
    "evaluate_speed.py": Case(
        ("--repeat", "1"),
        (r"^plan: 10000 replicas in \d+ \(operator, node\) cells on 1000 nodes",
         r"^evaluate: median [\d.]+ ms, .* over 1 runs \(target < 50 ms: (meets|MISSES)\)",
         r"^predicted: throughput [\d,]+ t/s")),
    "faults.py": Case(
        ("--smoke", "--markdown", "{tmp}/faults.md"),
        (r"^stall: stall the sources for 10 s$",
         r"^  rows \d+, lost \d+ \(goal 0\), duplicated \d+ \(goal 0\), recovery ([\d.]+ s|–), dip to ([\d.]+ %|–)",
         r"^\| fault \| injected \| rows \| lost \(goal 0\) \| duplicated \(goal 0\) \|",
         r"^\| stall \| stall the sources for 10 s \| \d+ \| \d+ \| \d+ \|"),
        files=("faults.md",), spark=True, slow=True, timeout_s=600.0),
    "fusion_prefer.py": Case(
        (),
        (r"^linear-cpu +rstorm-12 +round-robin +\d+ → \d+",
         r"^plans with fewer stages under prefer: \d+ of \d+")),
    "fuzz_schedulers.py": Case(
        ("--instances", "2", "--time-limit", "1"),
        (r"^2 random instances \(seeds 0\.\.1\), time limit 1 s",
         r"^max-throughput +2 ",
         r"^all +\d+ ",
         r"^violations: \d+ — goal 0: (met|NOT met)",
         r"^crashes: \d+ — goal 0: (met|NOT met)")),
    "hetero_speed.py": Case(
        ("--repeat", "1"),
        (r"^hetero on 100 operators × 200 nodes: median [\d.]+ s",
         r"^status \w+; \d+ replicas on \d+ nodes; sustained")),
    "max_throughput_gap.py": Case(
        ("--only", "hetero-3", "--topologies", "nasiri-linear", "--time-limit", "5"),
        (r"^hetero-3 +nasiri-linear +10 +[\d.]+ +\w+ +[\d.]+ +[\d.]+%",
         r"^max-throughput on 1 instances \(machine cap\), a fresh CLI process each: worst gap",
         r"^beside 2 CPU burners: \d of 1 plans the same",
         r"^misses: ")),
    "netcoord_accuracy.py": Case(
        ("--seeds", "1"),
        (r"median rel\. error \(1 seed\)",
         r"^ +0\.2 +50% spring +[\d.]+",
         r"^ +0\.2 +50% vivaldi +[\d.]+")),
    "odrp_scaling.py": Case(
        ("--sizes", "8x6", "--time-limit", "10"),
        (r"^ +8 operators × +6 nodes: +[\d.]+ s +\w+ +gap",
         r"^largest proven optimal within 10 s: ")),
    "optimal_scaling.py": Case(
        ("--micro", "nasiri-linear", "--sizes", "3x3", "--time-limit", "5"),
        (r"^  nasiri-linear +[\d.]+ s +\w+ +gap .* throughput [\d,.]+ t/s",
         r"^ +3 operators × +3 nodes: +[\d.]+ s",
         r"^largest instance proven optimal \(gap ≤ 0\.1 %\) within 5 s: ")),
    "overload.py": Case(
        ("--only", "chain4-busy", "--warmup", "3", "--duration", "4"),
        # an overloaded batch on a loaded machine may outlast the 4 s window: the script says not measured
        (r"^chain4-busy: offered [\d,]+ t/s \(6× capacity\), trigger [\d.]+ s, admits [\d,]+ t/s; throughput "
         r"predicted [\d,]+, measured( [\d,]+|: not measured — )",
         r"^\| chain4-busy \| [\d,]+ \(×6\) \|"),
        spark=True, slow=True),
    "placed_build.py": Case(
        ("--local", "--runs", "1", "--repeats", "1", "--sizes", "2,4,8"),
        (r"^T-R7 on continuum-11, round robin: \d+ routed inputs; model F [\d.]+ s",
         r"^session: local\[2\]",
         r"^run 1: build per chain length \(median of 1\) 2: \d+ ms .*; per routed input [\d.]+ ms",
         r"^per routed input over 1 runs: median [\d.]+ ms .*goal ≤ 1 s: (met|NOT met)"),
        spark=True, slow=True),
    "placed_fixed_cost.py": Case(
        ("--only", "diamond-cpu", "--time-limit", "1"),
        (r"^constants: .*; goal: F ≤ 0\.6 s",
         r"^diamond-cpu +hetero-12 +max-throughput +\d+ +\d+ +\d+ +[\d.]+",
         r"^diamond-cpu: largest F [\d.]+ s \(")),
    "profile_accuracy.py": Case(
        ("--topologies", "pair.yaml", "--batches", "1"),
        (r"^pair\.yaml: profiled 2 operators in \d+ s; batch time",
         r"^summary \(sustainable throughput into sinks, tuples/s\)",
         # one batch per size on a loaded machine may not grow with the size: the script says not measured
         r"^  pair\.yaml +predicted +[\d.]+ +measured +(-?[\d.]+ +error|not measured — )"),
        inputs=(("pair.yaml", PAIR),), spark=True, slow=True),
    "repro_ecker_figs.py": Case(
        ("--topologies", "t-m3", "--orders", "2", "--markdown", "{tmp}/figs.md"),
        (r"^\| t-m3 \| storm-ras \| 1 \| 150–150 \|",
         r"^\| t-m3 \| default, 11 workers \| \d+ \| 660–660 \|",
         r"^#### Table 2 the paper's way",
         r"^\| t-m3 \| [\d.]+ \(7\.24\) (reproduced \(within 10 %\)|direction only|not reproduced) \|",
         r"^\| all four \(of 4\) \| \d+ \| \d+ \| \d+ \|",
         r"^#### Table 3 the paper's way: the paper's value, ours, verdict",
         r"^\| t-m3 \| (not reproduced|direction only|reproduced \(within 10 %\)|— \(the paper has)",
         r"^Of the \d+ cells where the paper has a value: "),
        files=("figs.md",)),
    "repro_latency.py": Case(
        ("--topologies", "t-m3,t-r2", "--repeats", "1", "--markdown", "{tmp}/ecker.md"),
        (r"^t-m3 +3 +3 \| +[\d.]+",
         r"^Table 2 \(ideal model\)",
         r"^Table 3 \(ideal model\)",
         r"^\| t-r2 \| [\d.]+ ± [\d.]+ \[\d+\]",
         r"^\| t-m3 × 80 \| \d+, [\d.]+, \d+ \|",
         r"^\| t-r2 \| yes, no, 7, 12 \| yes, no, 7, 12 \| reproduced \|",
         r"^\| t-r2 \| 12 \| 65 / 131 / 197 / 20 \| [\d,]+ / [\d,]+ / [\d,]+ \|",
         r"^\| t-r2, machine-dependent \| [\d.,]+ ± [\d.,]+ \(65\) \|",
         r"^\| the ant system scales better than hill climbing"),
        files=("ecker.md",)),
    "repro_nasiri.py": Case(
        ("--max-nodes", "200", "--time-limit", "5", "--markdown", "{tmp}/nasiri.md"),
        (r"^  nasiri-linear +[\d,]+ +[\d,]+ +[\d,]+ +[\d,]+ +[+-]\d+%",
         r"^  rollingcount +hetero ⟨\d+,\d+⟩ optimal ⟨\d+,\d+⟩",
         r"^  nasiri-large +nasiri-star +[+-]\d+%"),
        files=("nasiri.md",)),
    "repro_odrp.py": Case(
        ("--runs", "1", "--markdown", "{tmp}/odrp.md"),
        (r"^Table 3 — S-ODRP_R replicas per operator",
         r"^total replicas +\d+ \(\d+\)",
         r"^Figure 6 — 1 runs at 100 t/s",
         r"^all 0\.25 +[\d.]+ \[",
         r"^solve times over \d+ solves: median"),
        files=("odrp.md",)),
    "repro_rstorm.py": Case(
        ("--markdown", "{tmp}/rstorm.md"),
        (r"^  linear-net +ideal +default +[\d,]+ +R-Storm +[\d,]+ +gain",
         r"^  cpu st/p10 +pageload-cpu: default",
         r"^  paper: PageLoad 2,550 t/s"),
        files=("rstorm.md",)),
    "repro_rstorm_time.py": Case(
        ("--smoke", "--markdown", "{tmp}/rstorm_time.md"),
        (r"^  linear-net +defaults +default +[\d,]+ \( *[\d,]+\) +R-Storm +[\d,]+ \( *[\d,]+\) +gain",
         r"^      starving \(default / R-Storm\): PageLoad (yes|no), Processing (yes|no) / ",
         r"^  Paper \(§6\.5\): PageLoad 2,550 tuples/s"),
        files=("rstorm_time.md",)),
    "run_start.py": Case(
        ("--runs", "1", "--settle", "0", "--duration", "2", "--warmup", "2", "--no-jvm-archives"),
        (r"^cluster hetero-3 up in [\d.]+ s at spark://",
         # on a loaded machine no micro-batch with rows may end within the run's 4 s: its start is not measured
         r"^run 1: before Spark [\d.]+ s, driver [\d.]+ s, executors [\d.]+ s, query → 1st batch ([\d.]+ s, "
         r"total [\d.]+ s|not measured, total not measured — )",
         r"^median +[\d.]+ +[\d.]+",
         r"^slowest start( [\d.]+ s: (within|outside) the goal of 20 s|: not measured — .*the goal of 20 s: not "
         r"measured)"),
        spark=True, slow=True, timeout_s=600.0),
    "run_vs_predicted.py": Case(
        ("--schedulers", "hetero", "--duration", "2", "--warmup", "2", "--no-jvm-archives"),
        (r"^cluster hetero-3 up in \d+ s at spark://",
         # a 2 s window on a loaded machine may hold no tuple (run exits 1): the script says not measured
         r"^  hetero: (exit 0, (?=.*measured [\d,.]+;)|exit 1, (?=.*measured: not measured — ))trigger [\d.]+ s, "
         r"offered [\d,.]+ t/s, admits ≤ [\d,.]+; throughput predicted [\d,.]+, measured",
         r"^\| hetero \| planned \| [\d,.]+ \| [\d.]+ s \| [\d,.]+ \| [\d,.]+ \| ([\d,.]+|not measured) \|",
         r"^measured / admitted within 10%: \d of 1 runs",
         r"^ranking predicted: hetero; measured: (hetero \(same\)|not measured — no throughput for hetero)"),
        spark=True, slow=True, timeout_s=600.0),
    "scale.py": Case(
        ("--only", "1k"),
        (r"^1k: 1,000 nodes in 25 racks, 45 operators, 4,710 replicas",
         r"^  r-storm +library: scheduling and prediction [\d.]+ s",
         r"^  ffd +json +end to end +[\d.]+ s, peak +\d+ MB",
         r"^  r-storm +same placement from the 3 cluster files: yes",
         r"^  ffd +same placement from the 3 cluster files: yes",
         r"^  max-throughput +groups +end to end +[\d.]+ s, peak +\d+ MB.*\(goal < 0\.5 s and < 1\.5 GB: "),
        timing_exit=True),
    "sim_speed.py": Case(
        ("--repeat", "1"),
        (r"^btu +BTU10 +stepwise +120 min \(7,200 steps\): median [\d.]+ s",
         r"^threshold BTU10 +random-walk-1 +120 min .*; peak \d+ instances")),
    "spark_ceiling.py": Case(
        ("--duration", "3", "--warmup", "1", "--lengths", "2", "3", "--batch-rows", "20000",
         "--batch-work-s", "0.2"),
        (r"^pass-through, 2 operators, fused: +[\d,]+ tuples/s sustained",
         r"^pass-through, 3 operators, unfused: +[\d,]+ tuples/s sustained",
         # on a loaded machine a 3 s window may hold no unfused batch: the script says so instead of dividing by 0
         r"^cost of the hop to operator 3 \(unfused\): (-?[\d.]+ core-µs per tuple|not measured — )",
         r"^goal ≥ 700,000 tuples/s for the fused 3-operator chain on 2 cores: (met|NOT met|not measured — )",
         r"^busy chain 3 × 0\.2 ms, batches of 0\.2 s of calibrated work: ceiling [\d,]+ tuples/s, measured"),
        spark=True, slow=True),
    "standalone_hetero.py": Case(
        ("--clusters", "hetero-3", "--plans", "hetero", "--placements", "plan", "--warmup", "3", "--duration", "3",
         "--no-jvm-archives"),
        (r"^cluster hetero-3 up in [\d.]+ s at spark://",
         # on a loaded machine the 3 s window may hold no micro-batch with rows: the capacity, its ratio and the
         # ranking say not measured (and where tuples ran, if none ran at all)
         r"^  hetero: predicted [\d.]+ t/s, measured( [\d.]+ t/s over \d+ batches .* every tuple on plan: True|: "
         r"not measured — .* every tuple on plan: (True|not measured))",
         r"^nasiri-linear on hetero-3, batches of \d+ rows back to back, 3 s measured after 3 s",
         r"^hetero +\d+ +[\d.]+ +([\d.]+ +[\d.]+|not measured +–)",
         r"^ranking measured: +(hetero +\(same\)|not measured — )"),
        spark=True, slow=True, timeout_s=600.0),
    "storm_repro.py": Case(
        (),
        (r"^linear-net +ideal +[\d,]+ +[\d,]+ +[+-]\d+%",
         r"^t-r7 +storm, pending 10 +[\d.]+ +[\d.]+ +[\d.]+")),
    "sweep_speed.py": Case(
        ("--scales", "2"),
        (r"^500 instances on local\[2\] in \d+ tasks: [\d.]+ s",
         r"^statuses: ",
         r"^median planning ms: .*hetero [\d.]+",
         r"^report on 500 rows: "),
        spark=True, slow=True),
}


def _scripts() -> set[str]:
    return {p.name for p in BENCHMARKS.glob("*.py")}


def _runs_as_script(name: str) -> bool:
    return re.search(r'^if __name__ == "__main__":', (BENCHMARKS / name).read_text(), re.MULTILINE) is not None


def test_every_benchmark_script_has_a_smoke_case() -> None:
    """A script added to benchmarks/ needs a case in CASES (a helper it imports goes in HELPERS), and a case
    whose script is gone is stale."""
    scripts = _scripts() - HELPERS
    without = sorted(scripts - CASES.keys())
    assert not without, f"benchmark scripts without a smoke case (add one to CASES in {Path(__file__).name}): " \
        f"{', '.join(without)}"
    stale = sorted(CASES.keys() - scripts)
    assert not stale, f"smoke cases for scripts that are gone: {', '.join(stale)}"


def test_helpers_are_imported_not_run() -> None:
    for name in HELPERS:
        assert (BENCHMARKS / name).exists(), name
        assert not _runs_as_script(name), f"{name} runs as a script: give it a smoke case instead"
    for name in CASES:
        if (BENCHMARKS / name).exists():
            assert _runs_as_script(name), f"{name} has no __main__ block: a helper, not a benchmark?"


def _spark_available() -> str | None:
    """Why the Spark cases cannot run here (None: they can)."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (the spark extra)"
    return None


def _cgroups_writable() -> str | None:
    from streamplace.spark.cluster.cpu_quota import detect

    backend = detect()
    return backend if isinstance(backend, str) else None


def _params() -> list[Any]:
    out = []
    for name, case in sorted(CASES.items()):
        marks = [pytest.mark.slow] if case.slow else []
        out.append(pytest.param(name, case, marks=marks, id=name.removesuffix(".py")))
    return out


def _run(cmd: list[str], cwd: Path, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """``cmd`` to its end; past ``timeout_s`` it is interrupted (SIGINT: a script's ``finally`` stops the cluster it
    started, where a kill would leave its JVMs running) and the test fails saying so."""
    with subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            try:
                out, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            pytest.fail(f"{' '.join(cmd[1:])} ran over {timeout_s:g} s\n--- stdout\n{out[-4000:]}\n--- stderr\n"
                        f"{err[-4000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


@pytest.mark.parametrize(("script", "case"), _params())
def test_benchmark_smallest_case_runs(script: str, case: Case, tmp_path: Path) -> None:
    if case.spark and (why := _spark_available()):
        pytest.skip(why)
    if case.cgroups and (why := _cgroups_writable()):
        pytest.skip(f"needs per-node CPU quotas: {why}")
    args = [a.replace("{tmp}", str(tmp_path)) for a in case.args]
    work = tmp_path / "cwd"  # whatever a script leaves in its working directory stays in the scratch directory
    work.mkdir()
    for name, text in case.inputs:
        (work / name).write_text(text)
    done = _run([sys.executable, str(BENCHMARKS / script), *args], work, case.timeout_s)
    said = f"$ {script} {' '.join(args)}\n--- stdout\n{done.stdout[-6000:]}\n--- stderr\n{done.stderr[-4000:]}"
    if case.timing_exit and done.returncode == 1:
        assert "MISSES" in done.stdout, said  # a wall-clock goal missed on a loaded machine: the run still worked
    else:
        assert done.returncode == 0, said
    lines = done.stdout.splitlines()
    missing = [p for p in case.lines if not any(re.search(p, line) for line in lines)]
    assert not missing, f"no line matches {missing}\n{said}"
    absent = [f for f in case.files if not (tmp_path / f).is_file() or (tmp_path / f).stat().st_size == 0]
    assert not absent, f"not written: {absent}\n{said}"
