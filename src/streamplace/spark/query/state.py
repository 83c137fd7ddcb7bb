"""Operator state across micro-batches, one versioned file per (operator, partition, batch).

A stateful task of batch b reads the newest version written by a batch before b
and writes version b (atomically: a temporary file, then a rename). A batch
replayed after a crash therefore starts from the same state and rewrites the
same version — the state is exactly once, like the Parquet sink. Versions older
than the previous one are deleted. The directory lives under the query's
checkpoint, on a file system every worker reaches (local disk on one machine).

Key grouping sends a key to partition hash(key) mod n, so the state of a
partition belongs to its keys; changing an operator's parallelism re-hashes the
keys, and its state then restarts empty (said in docs/spark.md).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

_VERSION = re.compile(r"^(\d+)\.parquet$")


class StateStore:
    def __init__(self, root: str | Path, op_id: str, partition: int, parallelism: int):
        self.dir = Path(root) / op_id / f"n{parallelism}" / f"p{partition}"

    def _versions(self) -> list[int]:
        if not self.dir.is_dir():
            return []
        return sorted(int(m.group(1)) for f in os.listdir(self.dir) if (m := _VERSION.match(f)))

    def load(self, batch_id: int) -> pd.DataFrame | None:
        older = [v for v in self._versions() if v < batch_id]
        return pd.read_parquet(self.dir / f"{older[-1]}.parquet") if older else None

    def save(self, batch_id: int, state: pd.DataFrame | None) -> None:
        if state is None:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / f".{batch_id}.{os.getpid()}.tmp"
        state.reset_index(drop=True).to_parquet(tmp, index=False)
        os.replace(tmp, self.dir / f"{batch_id}.parquet")
        for v in self._versions():
            if v < batch_id - 1:
                (self.dir / f"{v}.parquet").unlink(missing_ok=True)
