"""The benchmarks' ``--markdown FILE`` output: written whole, its directory made, and said where it went.

docs/reproduction.md's generated blocks are these files verbatim (scripts/reproduction_docs.py), so every
script writes them the one way.
"""

from __future__ import annotations

from pathlib import Path


def write_markdown(path: Path, text: str, announce: bool = True) -> None:
    """Write ``text`` to ``path`` (creating its directory); print where, unless the caller says it itself."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if announce:
        print(f"Markdown in {path}")
