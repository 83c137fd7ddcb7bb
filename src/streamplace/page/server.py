"""The live page's server: the page, its state and its picture on localhost while a run lasts.

A standard-library ``ThreadingHTTPServer`` on a daemon thread, bound to 127.0.0.1 (the page shows a run on
this machine; nothing is exposed beyond it). The run's own thread publishes new state as ready bytes
(``publish``); request threads only read the latest bytes, so a slow or hung browser never holds up the run.
At the end (``close``) the page is also written whole as a file that carries its last state (render.static_page).
"""

from __future__ import annotations

import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from streamplace.page.render import live_page, state_json

#: a browser that asked for the state this recently is taken to be watching the page
WATCHING_S = 5.0


class PageServer:
    """Serve ``/`` (the page), ``/state.json`` and ``/picture.svg`` on ``127.0.0.1:port`` (0: any free port)."""

    def __init__(self, title: str, port: int = 0, host: str = "127.0.0.1"):
        self._lock = threading.Lock()
        self._published_at = 0.0  # when the latest state was published (time.monotonic)
        self._fetched_at = 0.0  # when a browser last asked for the state
        self._files: dict[str, tuple[bytes, str]] = {
            "/": (live_page(title).encode("utf-8"), "text/html; charset=utf-8"),
            "/state.json": (b'{"status": "starting", "points": [], "events": [], "predicted": {}, '
                            b'"picture_version": 0, "elapsed_s": 0, "duration_s": 0, "summary": []}',
                            "application/json"),
            "/picture.svg": (b"", "image/svg+xml"),
        }
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                with server._lock:
                    found = server._files.get("/" if path in ("", "/index.html") else path)
                    if path == "/state.json":
                        server._fetched_at = time.monotonic()
                if found is None or not found[0]:
                    self.send_error(HTTPStatus.NOT_FOUND)
                    return
                body, kind = found
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the run's output is the CLI's

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="streamplace-page", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The page's address (the port the server got, where 0 was asked)."""
        host, port = self.httpd.server_address[:2]
        if isinstance(host, bytes | bytearray):  # typed so for AF_UNIX's sake; an AF_INET server's is a str
            host = host.decode()
        return f"http://{host}:{port}/"

    def publish(self, state: dict[str, Any]) -> None:
        """Make ``state`` what ``/state.json`` answers from now on."""
        body = state_json(state)
        with self._lock:
            self._files["/state.json"] = (body, "application/json")
            self._published_at = time.monotonic()

    def picture(self, svg: str) -> None:
        """Make ``svg`` what ``/picture.svg`` answers (publish a state with a new ``picture_version`` after it)."""
        with self._lock:
            self._files["/picture.svg"] = (svg.encode("utf-8"), "image/svg+xml")

    def close(self, linger_s: float = 3.0) -> None:
        """Stop serving (requests in flight finish on their own threads). Where a browser is watching (it asked
        for the state in the last few seconds), first wait up to ``linger_s`` for it to fetch the latest state,
        so an open page shows how the run ended rather than a server that stopped answering."""
        deadline = time.monotonic() + linger_s
        with self._lock:
            watching = self._fetched_at > 0 and time.monotonic() - self._fetched_at < WATCHING_S
        while watching and time.monotonic() < deadline:
            with self._lock:
                if self._fetched_at >= self._published_at:
                    break
            time.sleep(0.05)
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)
