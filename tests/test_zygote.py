"""The node zygote (spark/cluster/zygote.py): an executor's Python daemon forked from it, on the executor's own pipes.

The test stands in for the executor JVM as PySpark's PythonWorkerFactory does: it starts the daemon module with
pipes, reads the port the daemon writes to stdout, and stops it by closing stdin or with SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from streamplace.spark.cluster import zygote
from streamplace.spark.daemons.zygote_client import SOCKET_ENV


def _wait(cond, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def _listening(name: str) -> bool:
    return name[1:] in Path("/proc/net/unix").read_text()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, psutil.Process]]:
    name = zygote.socket_name(tmp_path, f"test_{os.getpid()}")
    proc = subprocess.Popen(zygote.command(name), env=zygote.environment(dict(os.environ)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait(lambda: _listening(name) or proc.poll() is not None)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        yield name, psutil.Process(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)


def _daemon(name: str | None, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHON_WORKER_FACTORY_SECRET": "s", "PYTHONHASHSEED": "0", **(env or {})}
    env.pop(SOCKET_ENV, None)
    if name:
        env[SOCKET_ENV] = name
    return subprocess.Popen([sys.executable, "-m", "streamplace.spark.daemons.worker_daemon"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _port_owner(proc: subprocess.Popen[bytes]) -> tuple[psutil.Process, int]:
    """The process listening on the port the daemon reported on its stdout (the real daemon), and the port."""
    assert proc.stdout is not None
    (port,) = struct.unpack("!i", proc.stdout.read(4))
    for conn in psutil.net_connections("tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN:
            return psutil.Process(conn.pid), port
    raise AssertionError(f"nothing listens on {port}")


def _authenticate(port: int, secret: str) -> bytes:
    """A worker's first exchange with the JVM: its pid, then the JVM's secret checked against the worker's
    PYTHON_WORKER_FACTORY_SECRET (the executor's environment)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock, sock.makefile("rwb") as f:
        f.read(4)  # the forked worker's pid
        f.write(struct.pack("!i", len(secret)) + secret.encode())
        f.flush()
        (n,) = struct.unpack("!i", f.read(4))
        return f.read(n)


def test_daemon_is_forked_by_the_zygote_and_ends_with_the_executors_pipe(served) -> None:
    name, zyg = served
    client = _daemon(name)
    daemon, port = _port_owner(client)
    # the listening daemon is the zygote's child, not the process the "executor" started
    assert daemon.ppid() == zyg.pid and daemon.pid != client.pid
    assert _authenticate(port, "s") == b"ok"  # its worker has the executor's environment, not the zygote's
    assert sum(psutil.Process(client.pid).cpu_times()[:2]) < 0.3  # the stand-in imported nothing heavy (~0.7 s)
    assert client.stdin is not None
    client.stdin.close()  # the executor exits: the daemon sees EOF, and the stand-in follows it
    assert client.wait(30) == 0
    _wait(lambda: not daemon.is_running() or daemon.status() == psutil.STATUS_ZOMBIE)


def test_sigterm_to_the_stand_in_stops_the_daemon(served) -> None:
    name, _ = served
    client = _daemon(name)
    daemon, _ = _port_owner(client)
    client.send_signal(signal.SIGTERM)  # PythonWorkerFactory.stop: daemon.destroy()
    client.wait(30)
    _wait(lambda: not daemon.is_running() or daemon.status() == psutil.STATUS_ZOMBIE)


def test_refused_or_missing_zygote_leaves_the_daemon_to_import_itself(served) -> None:
    name, _ = served
    # another hash seed than the zygote's interpreter started with (refused), and no zygote at all
    for env_name, env in ((name, {"PYTHONHASHSEED": "1"}), ("@streamplace-zygote-nobody", {})):
        client = _daemon(env_name, env)
        daemon, port = _port_owner(client)
        assert daemon.pid == client.pid
        assert _authenticate(port, "s") == b"ok"
        assert client.stdin is not None
        client.stdin.close()
        client.wait(30)  # (PySpark's daemon exits 1 when its stdin closes)
        if env:
            assert client.stderr is not None and b"PYTHONHASHSEED" in client.stderr.read()


def test_refusal_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in zygote.environment({}).items():  # as in a zygote's own process
        monkeypatch.setenv(key, value)
    module = tmp_path / "m.py"
    module.write_text("x = 1\n")
    st = module.stat()
    files = {str(module): (st.st_mtime_ns, st.st_size)}
    env = {"PYTHONHASHSEED": "0"}  # what PySpark gives its workers
    ok = {"executable": sys.executable, "env": env}
    assert zygote.refusal(ok, files) is None
    assert "runs" in str(zygote.refusal({**ok, "executable": "/usr/bin/python9"}, files))
    assert "PYTHONHASHSEED" in str(zygote.refusal({**ok, "env": {**env, "PYTHONHASHSEED": "7"}}, files))
    module.write_text("x = 22\n")
    assert "changed" in str(zygote.refusal(ok, files))


def test_a_malformed_request_leaves_the_zygote_serving(served) -> None:
    name, zyg = served
    for junk in (b"x", b"\x00\x00\x00\x05{not json"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect("\0" + name[1:])
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            assert b"refused" in sock.recv(4096)
    client = _daemon(name)
    daemon, _ = _port_owner(client)
    assert daemon.ppid() == zyg.pid  # still forking
    assert client.stdin is not None
    client.stdin.close()
    client.wait(30)
