"""Write a simulation's per-minute time series to CSV or Parquet (chosen by the file suffix)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def write_series(series: dict[str, np.ndarray], path: str | Path) -> Path:
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
