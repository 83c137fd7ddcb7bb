"""Headless Chromium for the tests that check a page as a browser shows it (Debian's chromium package, which
`make test` installs where it can: scripts/ensure-chromium.sh)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

#: flags for a machine with no network beyond loopback and no display (the environment's notes: without the
#: background-networking ones Chromium keeps trying to reach Google's hosts)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")


def chromium() -> str:
    """The Chromium executable, or skip the test saying why and how to get it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    pytest.skip("no Chromium on this machine: `make test` installs Debian's chromium where apt-get and root are "
                "available (scripts/ensure-chromium.sh); install it to run the browser tests")


def _run(args: list[str]) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        res = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                             text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def dom(url: str, budget_ms: int = 4000) -> str:
    """The page's DOM after its scripts ran for ``budget_ms`` of (virtual) time."""
    return _run([f"--virtual-time-budget={budget_ms}", "--dump-dom", url])


def screenshot(url: str, path: Path, size: tuple[int, int] = (1300, 2000), budget_ms: int = 4000) -> Path:
    _run([f"--virtual-time-budget={budget_ms}", f"--window-size={size[0]},{size[1]}", f"--screenshot={path}", url])
    assert path.exists() and path.stat().st_size > 10_000
    return path


def text_of(html: str, element_id: str) -> str:
    """The text of the element with ``element_id`` (a leaf element)."""
    m = re.search(rf'id="{re.escape(element_id)}"[^>]*>([^<]*)<', html)
    assert m, f"no element #{element_id} in the page"
    return m.group(1)


def data_of(html: str, name: str) -> str:
    """The body's ``data-NAME`` attribute, which the page's script sets after rendering."""
    m = re.search(rf'<body[^>]*\sdata-{re.escape(name)}="([^"]*)"', html)
    assert m, f"the page's script did not set data-{name} (it did not run, or failed)"
    return m.group(1)


def js_number(x: float) -> str:
    """A number as the page's script writes it (fmt in templates/live.html.j2: en-US, 0/1/2 decimals by size)."""
    if x == 0:
        return "0"
    digits = 0 if abs(x) >= 100 else 1 if abs(x) >= 10 else 2
    return f"{x:,.{digits}f}"
