"""Files written whole or not at all: a temporary file beside the target, renamed over it once complete.

The command line's outputs (plans, pictures, reports) and the live page's file go through here, so a full disk
or an interrupt never leaves half a file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def replace_whole(path: Path, write: Callable[[Path], object]) -> None:
    """Let ``write`` make the file at a temporary path beside ``path`` (same suffix, so a writer that picks its
    format by suffix picks the right one), give it the mode a plain ``open`` would (666 less the umask;
    ``mkstemp`` makes 600), then rename it over ``path``: the file is there whole or not at all (a full disk
    used to leave a truncated plan behind, and an OSError traceback).

    A device or a pipe (``/dev/stdout``, ``/dev/full``, a FIFO) is written in place: a file renamed over it would
    replace the device (``--out /dev/full`` did, as root, and said it had written the plan). An error while
    writing is an OSError naming ``path`` (not the temporary file, nor none: a full disk's error names no file)."""
    if path.exists() and not path.is_file() and not path.is_dir():
        _named(path, lambda: write(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        _named(path, lambda: write(tmp))
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _named(path: Path, write: Callable[[], object]) -> None:
    """``write()``, its OSError re-raised naming ``path`` (the file the caller asked for)."""
    try:
        write()
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (``replace_whole``)."""
    def write(tmp: Path) -> None:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as fh:
            fh.write(text)

    replace_whole(path, write)
