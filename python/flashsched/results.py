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


@dataclass
class RunResult:
    """Everything a run produced. ``summary`` holds the JSON summary keys."""

    summary: dict[str, Any]
    config_toml: str
    _records: dict[str, _core.Column] = field(repr=False)
    _timeseries: dict[str, list[float]] = field(repr=False)
    #: erase count of every block (global block order)
    erase_counts: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.uint32))

    @classmethod
    def from_sim(cls, sim: _core.Simulation) -> RunResult:
        return cls(
            summary=json.loads(sim.summary_json()),
            config_toml=sim.config_toml(),
            _records=sim.records(),
            _timeseries=sim.timeseries(),
            erase_counts=np.asarray(sim.erase_counts()),
        )

    @cached_property
    def requests(self) -> pd.DataFrame:
        """One row per completed request (empty if records were not kept).

        Built once, on first access, as read-only views of the columns the
        core filled (no copy); later accesses return the same DataFrame.
        """
        cols = {name: np.asarray(col) for name, col in self._records.items()}
        # Op codes index OPS directly (no per-row strings to factorise).
        op = pd.Categorical.from_codes(cols.pop("op"), categories=list(OPS))
        data: dict[str, Any] = {}
        for name, col in cols.items():
            data[name] = col
            if name == "complete_ns":
                data["op"] = op
        # Derived in the core: (t - arrival) / 1000 in plain memory (numpy
        # would ask for huge pages, slow to touch first on some kernels).
        rec = self._records
        data["latency_us"] = np.asarray(_core.us_since(rec["complete_ns"], rec["arrival_ns"]))
        data["wait_us"] = np.asarray(_core.us_since(rec["dispatch_ns"], rec["arrival_ns"]))
        # All columns at once: adding them one by one copies each.
        df = pd.DataFrame(data, copy=False)
        return df

    @property
    def timeseries(self) -> pd.DataFrame:
        """Per-second IOPS, MB/s and latency (by completion second).

        Rows are the seconds in which some request completed, in time order
        (column ``second``); a second without a row had no completion (IOPS
        0). Idle simulated time therefore costs no rows."""
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
        if self._records and len(next(iter(self._records.values()))) > 0:
            self.requests.to_parquet(d / "requests.parquet", index=False)
        return d
