"""Results of one run: the summary dict plus pandas DataFrames, and exports
(Parquet for per-request rows, JSON/CSV for the rest)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched import _core

OPS = np.array(["read", "write", "trim"])


def _us_since(t_ns: np.ndarray, start_ns: np.ndarray) -> np.ndarray:
    """(t - start) in microseconds, computed in place in one float buffer."""
    out = np.subtract(t_ns, start_ns, dtype=np.float64)
    out *= 1e-3
    return out


@dataclass
class RunResult:
    """Everything a run produced. ``summary`` holds the JSON summary keys."""

    summary: dict[str, Any]
    config_toml: str
    _records: dict[str, tuple[str, bytearray]] = field(repr=False)
    _timeseries: dict[str, list[float]] = field(repr=False)
    erase_counts: list[int] = field(repr=False, default_factory=list)

    @classmethod
    def from_sim(cls, sim: _core.Simulation) -> RunResult:
        return cls(
            summary=json.loads(sim.summary_json()),
            config_toml=sim.config_toml(),
            _records=sim.records(),
            _timeseries=sim.timeseries(),
            erase_counts=sim.erase_counts(),
        )

    @cached_property
    def requests(self) -> pd.DataFrame:
        """One row per completed request (empty if records were not kept).

        Built once, on first access, as views of the buffers the core filled
        (no copy); later accesses return the same DataFrame.
        """
        cols = {name: np.frombuffer(buf, dtype=dt) for name, (dt, buf) in self._records.items()}
        op = cols.pop("op")
        df = pd.DataFrame(cols, copy=False)
        # Op codes index OPS directly (no per-row strings to factorise).
        df.insert(3, "op", pd.Categorical.from_codes(op, categories=list(OPS)))
        arrival = cols["arrival_ns"]
        df["latency_us"] = _us_since(cols["complete_ns"], arrival)
        df["wait_us"] = _us_since(cols["dispatch_ns"], arrival)
        return df

    @property
    def timeseries(self) -> pd.DataFrame:
        """Per-second IOPS, MB/s and latency (by completion second)."""
        df = pd.DataFrame(self._timeseries)
        df["iops"] = df["ios"]
        df["mb_s"] = df["bytes"] / 1e6
        return df

    def latency(self, kind: str = "all") -> dict[str, float]:
        """Latency statistics in microseconds: kind is all, read or write."""
        key = {"all": "latency_us", "read": "read_latency_us", "write": "write_latency_us"}[kind]
        return dict(self.summary[key])

    def save(self, out: str | Path) -> Path:
        """Write summary.json, timeseries.csv, config.toml and requests.parquet."""
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2))
        (d / "config.toml").write_text(self.config_toml)
        self.timeseries.to_csv(d / "timeseries.csv", index=False)
        if self._records and len(next(iter(self._records.values()))[1]) > 0:
            self.requests.to_parquet(d / "requests.parquet", index=False)
        return d
