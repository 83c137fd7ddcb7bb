"""Class-data sharing archives that let a run's JVMs start in less CPU on a cluster `cluster up` started.

A Spark JVM loads and verifies some 10,000 classes as it starts: measured here (2 cores, JDK 17), a driver
spent 7.8 CPU seconds reaching a session and an executor about 4, and a run on hetero-3 starts one driver and
five executors on two cores. The JDK can map the classes a JVM loaded from an archive written when an earlier
JVM exited (AppCDS, ``-XX:ArchiveClassesAtExit`` then ``-XX:SharedArchiveFile``; JDK 13+): with one, a driver
reached its session in 2.2 s instead of 4.3 and an executor's first job took 10.6 s instead of 16.7.

``prime`` writes a cluster's two archives once, at ``cluster up``: a short pinned pipeline runs on the
cluster in a child process whose driver dumps at exit, and whose executors each dump into their own work
directory (a relative path: the JVM has no per-process file name). Each archive is checked with
``-Xshare:on`` against the class path it was made for before it is moved into place: a truncated archive
crashes a JVM that maps it (SIGBUS, seen), and one that does not match is refused. ``run`` and the other
commands on that cluster then start their driver and executors with them (``driver_options`` and
``executor_options``); a JVM whose archive no longer matches (the JDK or Spark changed) ignores it and starts
as before. Workers on other hosts get none (the archive is a file on this machine).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from streamplace.model.plan import Plan
from streamplace.model.topology import Operator, Stream, Topology
from streamplace.spark.cluster.connect import app_conf
from streamplace.spark.cluster.jvm_options import DRIVER_ARCHIVE, EXECUTOR_ARCHIVE, archive_dir
from streamplace.spark.cluster.state import EXECUTOR_JVM_OPTIONS, ClusterState, lift_cpu_quotas
from streamplace.spark.runtime.session import local_session

#: where each executor of the priming application dumps, relative to its own work directory
EXECUTOR_DUMP = "streamplace-executor.jsa"
PRIME_TIMEOUT_S = 240.0


@dataclass(frozen=True)
class PrimeResult:
    """What ``prime`` left: the archives in place (paths), the seconds it took, and why any is missing."""

    archives: tuple[str, ...]
    seconds: float
    note: str

    def describe(self) -> str:
        made = ", ".join(Path(a).name for a in self.archives) or "none"
        return f"JVM class archives: {made} ({self.seconds:.0f} s){'; ' + self.note if self.note else ''}"


def check_archive(java: str, classpath: str, archive: Path, options: list[str]) -> str | None:
    """None when a JVM with ``classpath`` and ``options`` maps ``archive`` (``-Xshare:on`` fails rather than run
    without it); else why not, from the JVM's own words."""
    try:
        with tempfile.TemporaryDirectory(prefix="jsa-check-") as scratch:  # a crash report (hs_err) lands there
            done = subprocess.run([java, "-Xshare:on", f"-XX:SharedArchiveFile={archive}", *options,
                                   "-XX:-CreateCoredumpOnCrash", "-cp", classpath, "-version"],
                                  capture_output=True, text=True, timeout=60, cwd=scratch)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not check {archive.name}: {exc}"
    if done.returncode == 0:
        return None
    lines = [x for x in (done.stderr + done.stdout).splitlines() if x.strip() and not x.startswith("#")]
    return f"{archive.name} unusable: {lines[-1] if lines else f'exit {done.returncode}'}"


def java_command(cmdline: list[str]) -> tuple[str, str, list[str]]:
    """(java, class path, -XX options) of a JVM's command line."""
    cp = cmdline[cmdline.index("-cp") + 1] if "-cp" in cmdline else ""
    return cmdline[0], cp, [a for a in cmdline if a.startswith("-XX:") and "Archive" not in a]


def prime(state: Any, timeout_s: float = PRIME_TIMEOUT_S) -> PrimeResult:
    """Write the driver's and the executors' archives of the cluster of ``state`` (a ClusterState whose workers
    have registered), replacing older ones only with archives that check. Never raises for a failed priming: the
    cluster works without archives, only its JVMs start slower, and the note says why."""
    started = time.monotonic()
    if any(w.remote for w in state.workers):
        return PrimeResult((), 0.0, "none for workers on other hosts")
    target = archive_dir(state.state_dir)
    if reusable(state.state_dir):
        return PrimeResult((str(target / DRIVER_ARCHIVE), str(target / EXECUTOR_ARCHIVE)),
                           time.monotonic() - started, "kept from the last `cluster up` here (they still check)")
    target.mkdir(parents=True, exist_ok=True)
    boost = lift_cpu_quotas(state)  # JVMs starting under a third of a core take minutes
    notes: list[str] = []
    placed: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="prime-", dir=target) as tmp:
            driver_dump = Path(tmp) / DRIVER_ARCHIVE
            try:
                done = subprocess.run([sys.executable, "-m", "streamplace.spark.cluster.jvm_archive", state.state_dir,
                                       str(driver_dump), tmp], capture_output=True, text=True, timeout=timeout_s)
            except subprocess.TimeoutExpired:
                return PrimeResult((), time.monotonic() - started, f"priming ran over {timeout_s:g} s")
            report = _last_json(done.stdout)
            if done.returncode != 0 or report is None:
                tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
                return PrimeResult((), time.monotonic() - started, f"priming failed: {tail}")
            _wait_gone([report["driver_pid"]], 60.0)  # the driver dumps as its JVM exits, after Python has
            if (why := _place(driver_dump, target / DRIVER_ARCHIVE, *report["driver"])) is not None:
                notes.append(why)
            else:
                placed.append(str(target / DRIVER_ARCHIVE))
            dumps = _executor_dumps(Path(state.state_dir), report["app_id"])
            if not dumps:
                notes.append("no executor wrote an archive")
            else:
                best, cmd = max(dumps, key=lambda d: d[0].stat().st_size)
                java, cp, _ = java_command(cmd)
                why = _place(best, target / EXECUTOR_ARCHIVE, java, cp, EXECUTOR_JVM_OPTIONS.split())
                if why is not None:
                    notes.append(why)
                else:
                    placed.append(str(target / EXECUTOR_ARCHIVE))
                for path, _ in dumps:  # tens of MB each
                    path.unlink(missing_ok=True)
    finally:
        if boost is not None:
            boost()
    return PrimeResult(tuple(placed), time.monotonic() - started, "; ".join(notes))


def _place(dump: Path, final: Path, java: str, classpath: str, options: list[str]) -> str | None:
    """Move a checked ``dump`` to ``final`` atomically, and record what it was checked against (``reusable``);
    None, or why it was not."""
    if not dump.is_file():
        return f"{final.name}: the JVM wrote no archive"
    if (why := check_archive(java, classpath, dump, options)) is not None:
        return why
    os.replace(dump, final)
    record = final.with_suffix(".json")
    tmp = record.with_name(record.name + ".tmp")
    tmp.write_text(json.dumps({"java": java, "classpath": classpath, "options": options}))
    os.replace(tmp, record)
    return None


def reusable(state_dir: str | Path) -> bool:
    """Both archives are in place and still check against the JVM and class path they were made for (a new JDK
    or reinstalled Spark jars fail the check): ``cluster up`` on the same state directory need not prime again."""
    for name in (DRIVER_ARCHIVE, EXECUTOR_ARCHIVE):
        archive = archive_dir(state_dir) / name
        try:
            made = json.loads(archive.with_suffix(".json").read_text())
        except (OSError, ValueError):
            return False
        if not archive.is_file() or check_archive(made["java"], made["classpath"], archive, made["options"]):
            return False
    return True


def _last_json(text: str) -> dict[str, Any] | None:
    for line in reversed(text.splitlines()):
        with contextlib.suppress(ValueError):
            doc = json.loads(line)
            if isinstance(doc, dict):
                return doc
    return None


def _wait_gone(pids: list[int], timeout_s: float) -> None:
    procs = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            procs.append(psutil.Process(pid))
    psutil.wait_procs(procs, timeout=timeout_s)


def _executor_dumps(state_dir: Path, app_id: str) -> list[tuple[Path, list[str]]]:
    """The archives the application's executors wrote as they exited (``_workload`` stopped them and waited),
    each with its JVM's command line; one cut short fails its check in ``_place``."""
    out = []
    for stderr in sorted((state_dir / "work").glob(f"*/{app_id}/*/stderr")):
        dump = stderr.parent / EXECUTOR_DUMP
        cmd = _launch_command(stderr)
        if dump.is_file() and cmd:
            out.append((dump, cmd))
    return out


def _executors_of(app_id: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if "--app-id" in cmd and app_id in cmd:
            found.append(proc)
    return found


def _launch_command(stderr: Path) -> list[str]:
    """The executor's command line, from the first line its worker writes to its stderr file."""
    import shlex

    with contextlib.suppress(OSError, ValueError, IndexError):
        first = stderr.read_text(errors="replace").splitlines()[0]
        if first.startswith("Spark Executor Command:"):
            return shlex.split(first.split(":", 1)[1])
    return []


def _workload(state_dir: str, driver_dump: str, out_dir: str, budget_s: float = 150.0) -> dict[str, Any]:
    """In the child process: a small pinned pipeline (a source and two operators on the first node), run until two
    micro-batches with rows have ended, so the archives hold what a run loads (streaming, shuffles between
    executors, Arrow, Python runners, parquet). Each JVM dumps its archive as it exits. The executors are stopped
    here (SIGTERM) and waited for: stopped by their worker when the application ends, they are killed 10 s later
    (hard-coded in Spark), and on two cores four executors dumping at once all ran out of that time. The driver
    dumps after them, when this process exits and its JVM with it."""
    # lazy: PySpark
    from streamplace.spark.query.build import pipeline_for
    from streamplace.spark.query.pipeline import PipelineConfig

    state = ClusterState.load(Path(state_dir))
    conf = app_conf(state)
    conf["spark.executor.extraJavaOptions"] = f"{EXECUTOR_JVM_OPTIONS} -XX:ArchiveClassesAtExit={EXECUTOR_DUMP}"
    conf["spark.driver.extraJavaOptions"] = f"-XX:ArchiveClassesAtExit={driver_dump}"
    spark = local_session(master=state.master_url, conf=conf, log_to=Path(out_dir) / "spark.log")
    ops = (Operator("src", "source", rate=20.0, cost_ms=0.1, cpu=1, memory_mb=64, logic={"name": "busy"}),
           Operator("a", "operator", cost_ms=0.1, cpu=1, memory_mb=64, logic={"name": "busy"}),
           Operator("b", "sink", cost_ms=0.1, cpu=1, memory_mb=64, logic={"name": "busy"}))
    topo = Topology("prime", ops, (Stream("src", "a"), Stream("a", "b")))
    node = state.workers[0].node
    plan = Plan("prime", topo.name, state.name, {op.id: {node: 1} for op in ops}, {"src": 20.0})
    cfg = PipelineConfig(trigger_s=1.0, sink="parquet", out_dir=Path(out_dir) / "out", workers=state.layout()[:1])
    pipeline = pipeline_for(spark, topo, plan, cfg)
    pipeline.start()
    deadline = time.monotonic() + budget_s
    while time.monotonic() < deadline:
        query = pipeline.query
        if query is None or query.exception() is not None:
            break
        if sum(1 for p in query.recentProgress if p.numInputRows > 0) >= 2:
            break
        time.sleep(0.5)
    pipeline.stop(wait_s=10.0)
    app_id = spark.sparkContext.applicationId
    jvm = _driver_jvm()
    executors = _executors_of(app_id)
    for proc in executors:  # each dumps as it exits: asked here, not by its worker, which kills it 10 s later
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    psutil.wait_procs(executors, timeout=120.0)
    spark.stop()
    return {"app_id": app_id, "driver_pid": jvm.pid, "driver": list(java_command(jvm.cmdline()))}


def _driver_jvm() -> psutil.Process:
    """This process's Spark driver JVM (PySpark starts it as a child through spark-submit)."""
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "org.apache.spark.deploy.SparkSubmit" in child.cmdline():
                return child
    raise RuntimeError("no Spark driver JVM among this process's children")


if __name__ == "__main__":
    print(json.dumps(_workload(sys.argv[1], sys.argv[2], sys.argv[3])), flush=True)
