"""Class-data sharing archives (jvm_archive.py), the worker daemon's preload and where a run's start went."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from streamplace.spark.cluster import jvm_archive as ja
from streamplace.spark.cluster import jvm_options as jo


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on PATH")
    return java


def test_an_executors_command_line_gives_java_class_path_and_vm_options() -> None:
    cmd = ["/usr/lib/jvm/bin/java", "-cp", "/conf/:/jars/*", "-Xmx768M", "-XX:TieredStopAtLevel=1",
           "-XX:+UseSerialGC", "-XX:ArchiveClassesAtExit=x.jsa",
           "org.apache.spark.executor.CoarseGrainedExecutorBackend"]
    java, cp, options = ja.java_command(cmd)
    assert java == "/usr/lib/jvm/bin/java" and cp == "/conf/:/jars/*"
    assert options == ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]  # the dump option is not the check's


def test_runs_map_the_archives_only_where_they_are_and_not_for_remote_workers(tmp_path: Path) -> None:
    local = SimpleNamespace(state_dir=str(tmp_path), workers=[SimpleNamespace(remote=False)])
    assert jo.driver_options(local) == "" and jo.executor_options(local) == ""
    jo.archive_dir(tmp_path).mkdir()
    for name in (jo.DRIVER_ARCHIVE, jo.EXECUTOR_ARCHIVE):
        (jo.archive_dir(tmp_path) / name).write_bytes(b"x")
    assert jo.driver_options(local) == f"-XX:SharedArchiveFile={tmp_path / jo.ARCHIVE_DIR / jo.DRIVER_ARCHIVE}"
    assert jo.executor_options(local).endswith(jo.EXECUTOR_ARCHIVE)
    mixed = SimpleNamespace(state_dir=str(tmp_path), workers=[SimpleNamespace(remote=False),
                                                              SimpleNamespace(remote=True)])
    assert jo.executor_options(mixed) == ""  # the file is on this machine, not on the other host


def test_only_an_archive_that_a_jvm_maps_is_placed_and_kept(tmp_path: Path) -> None:
    """A JVM dumps an archive at exit; it is checked with -Xshare:on against its class path before it is moved
    into place (a truncated one crashed a JVM that mapped it), recorded, and found reusable while it checks."""
    java = _java()
    classes = tmp_path / "classes"
    classes.mkdir()
    dump = tmp_path / "dump.jsa"
    subprocess.run([java, f"-XX:ArchiveClassesAtExit={dump}", "-cp", str(classes), "-version"], check=True,
                   capture_output=True, timeout=120)
    assert dump.is_file()
    state_dir = tmp_path / "state"
    target = jo.archive_dir(state_dir)
    target.mkdir(parents=True)
    assert not ja.reusable(state_dir)
    shutil.copy(dump, tmp_path / "copy.jsa")
    assert ja._place(dump, target / jo.DRIVER_ARCHIVE, java, str(classes), []) is None
    assert ja._place(tmp_path / "copy.jsa", target / jo.EXECUTOR_ARCHIVE, java, str(classes), []) is None
    assert (target / jo.DRIVER_ARCHIVE).is_file() and not dump.exists()
    assert ja.reusable(state_dir)

    # a truncated archive, or none: refused with the reason, nothing placed
    bad = tmp_path / "bad.jsa"
    bad.write_bytes((target / jo.DRIVER_ARCHIVE).read_bytes()[:4096])
    assert "unusable" in (ja._place(bad, tmp_path / "placed.jsa", java, str(classes), []) or "")
    assert not (tmp_path / "placed.jsa").exists()
    assert "wrote no archive" in (ja._place(tmp_path / "none.jsa", tmp_path / "p.jsa", java, "", []) or "")
    (target / jo.EXECUTOR_ARCHIVE).write_bytes(bad.read_bytes())
    assert not ja.reusable(state_dir)  # `cluster up` primes again


def test_a_failed_priming_leaves_a_reason_and_no_archive(tmp_path: Path) -> None:
    state = SimpleNamespace(state_dir=str(tmp_path), workers=[SimpleNamespace(remote=True)])
    assert ja.prime(state).describe().endswith("none for workers on other hosts")
    assert not jo.archive_dir(tmp_path).exists()


def test_the_worker_daemon_preloads_without_leaving_a_thread_to_fork_from() -> None:
    """The daemon forks every Python worker: after importing numpy, pandas, pyarrow and the operators it must
    still be single-threaded (OpenBLAS's pool and jemalloc's background thread switched off)."""
    code = ("import os, sys; from streamplace.spark.daemons.threadless import preload; ok = preload(); "
            "print(ok, 'pandas' in sys.modules, os.environ['JE_ARROW_MALLOC_CONF'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["True", "True", "background_thread:false"]


def test_where_a_runs_start_went_counts_from_the_process_launch() -> None:
    from streamplace.workflows.run import launch_figures

    got = launch_figures({"first_batch_end_at": 1_000.0 + 17.5}, session_began_at=1_000.0 + 1.8, launched_at=1_000.0)
    assert got == {"before_spark_s": pytest.approx(1.8), "launch_to_first_batch_s": pytest.approx(17.5)}
    assert launch_figures({}, 1_000.0, 999.0) == {"before_spark_s": pytest.approx(1.0)}  # no batch had rows
