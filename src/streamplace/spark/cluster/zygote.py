"""A node's Python worker daemons forked ready-made: a process per emulated node that has done the imports once.

Each executor starts its Python worker daemon (worker_daemon.py) with a fresh interpreter that imports numpy,
pandas, pyarrow, PySpark's worker and the operators: 0.6–0.9 CPU s, and on hetero-3 five executors start at once
on two cores, so every run's start paid it five times over (measured: the daemon's boot 1.7 s of a pinned
executor's 6.5 s start). ``cluster up`` starts one zygote per node it emulates here, in that node's cgroup; the
zygote does those imports once and then only waits on a Unix socket. An executor's daemon module, given the
zygote's socket by its worker's environment (``STREAMPLACE_ZYGOTE``), sends the zygote its standard streams,
environment, working directory and arguments; the zygote forks, and the child becomes the daemon — PySpark's own
``manager()`` on the executor's pipes — while the process the executor started waits for it and passes on
SIGTERM. The child inherits the zygote's cgroup, which is its node's: the quota still counts its work.

The zygote refuses (and the daemon module then imports for itself, as before) when it could not serve the
executor faithfully: a module it imported has changed on disk since (an upgrade or an edited checkout), the
executor runs another interpreter, or an environment variable that the imports read differs (PYTHONHASHSEED,
which PySpark sets for its workers, cannot change after an interpreter starts). Only processes of the zygote's
own user are served (the peer's uid is checked).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import sys
from pathlib import Path
from typing import Any

from streamplace.spark.daemons.threadless import THREADLESS_ENV, ready_to_fork, with_threadless_defaults
from streamplace.spark.daemons.zygote_client import HEADER, socket_address

#: environment variables the zygote's imports read (PySpark's serializers and worker_util at import, hash
#: randomization at interpreter start): a daemon whose executor sets another value is not forked from it
IMPORT_ENV = ("PYTHONHASHSEED", "PYSPARK_ENABLE_NAMEDTUPLE_PATCH", "SPARK_TESTING", "OPENBLAS_NUM_THREADS",
              "OMP_NUM_THREADS", "JE_ARROW_MALLOC_CONF")
#: what PySpark gives its workers when the driver sets none (pyspark/core/context.py)
HASH_SEED = "0"


def socket_name(state_dir: Path, resource: str) -> str:
    """The zygote socket of one node of the cluster in ``state_dir``: an abstract Unix socket (no file to leave
    behind and no path-length limit; access is checked by uid), written ``@name`` where it must be text."""
    # lazy: numpy (through model/): not before serve()'s preload makes it threadless
    from streamplace.spark.cluster.cpu_quota import group_name

    return f"@streamplace-zygote-{group_name(state_dir)}-{resource}"




# ------------------------------------------------------------------ the zygote
def module_files() -> dict[str, tuple[int, int]]:
    """(mtime ns, size) of every source file of the streamplace and PySpark modules loaded now."""
    out = {}
    for name, module in list(sys.modules.items()):
        if name.split(".", 1)[0] not in ("streamplace", "pyspark"):
            continue
        file = getattr(module, "__file__", None)
        if file:
            with contextlib.suppress(OSError):
                st = os.stat(file)
                out[file] = (st.st_mtime_ns, st.st_size)
    return out


def refusal(request: dict[str, Any], files: dict[str, tuple[int, int]]) -> str | None:
    """Why a request cannot be served by this zygote (its imports), or None."""
    if request.get("executable") != sys.executable:
        return f"the executor runs {request.get('executable')}, the zygote {sys.executable}"

    env = with_threadless_defaults(request.get("env", {}))  # as the executor's own daemon would have them
    for key in IMPORT_ENV:
        if env.get(key) != os.environ.get(key):
            return f"{key} is {env.get(key)!r} for the executor, {os.environ.get(key)!r} for the zygote"
    for file, stamp in files.items():
        try:
            st = os.stat(file)
        except OSError:
            return f"{file} is gone"
        if (st.st_mtime_ns, st.st_size) != stamp:
            return f"{file} changed since the zygote imported it (restart the cluster to use the new code)"
    return None


def serve(path: str) -> None:
    """Import once, then fork a daemon for each request on the Unix socket ``path`` (until SIGTERM)."""
    if not ready_to_fork():
        raise SystemExit(f"zygote {path}: a thread is running after the imports; not forking from it")
    files = module_files()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the daemons are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_address(path))  # abstract: only the uid check below keeps other users out
    listener.listen(64)
    while True:
        conn, _ = listener.accept()
        with conn:
            _handle(conn, listener, files)


def _handle(conn: socket.socket, listener: socket.socket, files: dict[str, tuple[int, int]]) -> None:
    fds: list[int] = []
    try:
        conn.settimeout(10.0)
        peer, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        data, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
        if uid != os.getuid():
            _reply(conn, {"refused": f"uid {uid} is not the zygote's"})
            return
        (size,) = HEADER.unpack(data)
        body = b""
        while len(body) < size:
            chunk = conn.recv(size - len(body))
            if not chunk:
                return
            body += chunk
        request = json.loads(body)
        why = refusal(request, files) if len(fds) == 3 else f"{len(fds)} of 3 standard streams received"
        if why is not None:
            _reply(conn, {"refused": why})
            _log(f"refused pid {peer}: {why}")
            return
        pid = os.fork()
        if pid == 0:
            _become_daemon(conn, listener, fds, request)  # never returns
        _log(f"forked daemon {pid} for pid {peer} in {request.get('cwd')}")
    except Exception as exc:  # a malformed request must not end the zygote (struct.error is no ValueError)
        with contextlib.suppress(OSError):
            _reply(conn, {"refused": f"{type(exc).__name__}: {exc}"})
    finally:
        for fd in fds:
            os.close(fd)


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)  # the zygote's log (cluster up: logs/zygote-NODE.log)


def _reply(conn: socket.socket, doc: dict[str, Any]) -> None:
    conn.sendall(json.dumps(doc).encode() + b"\n")


def _become_daemon(conn: socket.socket, listener: socket.socket, fds: list[int], request: dict[str, Any]) -> None:
    """In the forked child: take the executor's streams, environment, directory and arguments, and run PySpark's
    daemon on them."""
    code = 1
    try:
        listener.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        fds.clear()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)

        os.environ.clear()
        os.environ.update(with_threadless_defaults(request["env"]))
        os.chdir(request["cwd"])
        sys.argv = list(request["argv"])
        # what the interpreter would have put on sys.path from the executor's PYTHONPATH (its later imports)
        extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p and p not in sys.path]
        sys.path[1:1] = extra
        _reply(conn, {"pid": os.getpid()})
        conn.close()
        from pyspark.daemon import manager

        manager()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # a forked child must never return into the zygote's loop
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def command(path: str) -> list[str]:
    """The command line that starts a zygote on ``path``."""
    return [sys.executable, "-m", "streamplace.spark.cluster.zygote", path]


def environment(base: dict[str, str]) -> dict[str, str]:
    """A zygote's environment: ``base`` with the values the executors' daemons get (PYTHONHASHSEED as PySpark
    sets it for workers when the driver has none; the single-thread settings of worker_daemon.py)."""
    return {**base, "PYTHONHASHSEED": HASH_SEED, **THREADLESS_ENV}


if __name__ == "__main__":
    serve(sys.argv[1])
