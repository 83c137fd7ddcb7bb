"""The executor's side of a node's zygote (spark/cluster/zygote.py): ask it for a Python worker daemon.

The worker daemon (worker_daemon.py) runs this on every executor; a cluster `cluster up` started gives its
workers the zygote's socket (``STREAMPLACE_ZYGOTE``), local Spark none, and then the daemon imports for itself.
Kept in the runtime so that the daemon module Spark is configured with (session.py) needs nothing of the cluster
manager.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import struct
import sys
from typing import Any

#: the worker's environment variable naming its node's zygote socket (set by `cluster up`)
SOCKET_ENV = "STREAMPLACE_ZYGOTE"


HEADER = struct.Struct("!I")


def socket_address(name: str) -> str:
    return "\0" + name[1:] if name.startswith("@") else name


def fork_daemon(path: str, argv: list[str], timeout_s: float = 5.0) -> bool:
    """Ask the zygote at ``path`` for a daemon on this process's standard streams; on success wait for it to exit
    (passing on SIGTERM/SIGINT/SIGHUP) and return True; False when there is no zygote or it refused, having
    touched nothing (the caller then starts the daemon itself)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            sock.connect(socket_address(path))
            body = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                               "executable": sys.executable}).encode()
            socket.send_fds(sock, [HEADER.pack(len(body))], [0, 1, 2])
            sock.sendall(body)
            reply = json.loads(_read_line(sock))
    except (OSError, ValueError):
        return False
    if "pid" not in reply:
        print(f"streamplace zygote at {path} refused: {reply.get('refused', reply)}; importing here",
              file=sys.stderr, flush=True)
        return False
    _wait_for(int(reply["pid"]))
    return True


def _read_line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            raise ValueError("the zygote closed the connection")
        data += chunk
    return data


def _wait_for(pid: int) -> None:
    """Stand in for the daemon: the executor holds this process, stops it with SIGTERM and reads its stdout."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:  # it ran and exited already
        return
    def stop(_signum: int, _frame: Any) -> None:
        with contextlib.suppress(ProcessLookupError):  # it has exited already
            signal.pidfd_send_signal(pidfd, signal.SIGTERM)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    # the daemon has the executor's pipes now: this process keeps none open (stderr stays for messages)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    while True:
        with contextlib.suppress(InterruptedError):
            if select.select([pidfd], [], [])[0]:
                return
