"""Write a simulation's per-minute time series to CSV or Parquet (chosen by the file suffix)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def write_series(series: Mapping[str, np.ndarray | Sequence[Any]], path: str | Path) -> Path:
    """One row per step (a simulated minute, a micro-batch), one column per series: ``.parquet`` as Parquet
    (pyarrow), anything else as CSV (pandas writes both)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame({c: np.asarray(v) for c, v in series.items()})
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path
