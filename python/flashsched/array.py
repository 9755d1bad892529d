"""SSD arrays from Python: ``flashsched.run_array(...)`` and its result.

The array layer (RAID-0, RAID-5, the serial array with external GC) and the
network link are simulated in the Rust core; see docs/arrays.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import _core
from flashsched.api import drive, memory_limit

SCALED_SSD = [
    "geometry.channels=4",
    "geometry.chips_per_channel=4",
    "geometry.dies_per_chip=2",
    "geometry.planes_per_die=1",
    "geometry.blocks_per_plane=256",
    "geometry.pages_per_block=32",
    "geometry.page_size=16384",
    "timing.program_us=350",
    "ftl.overprovisioning=0.07",
    "ftl.gc_threshold=0.05",
]
"""A scaled NVMe SSD for array experiments: 4 GiB raw (32 dies, 256 blocks of
512 KiB per plane), ~1.5 GB/s sequential write (faster than 10 GbE, as §2.1
of the serial-array paper assumes), the default preset's OP and GC ratios."""


@dataclass
class ArrayResult:
    """Summary dict plus per-bin DataFrames of one array run."""

    summary: dict[str, Any]
    _series: dict[str, Any] = field(repr=False)

    @classmethod
    def from_sim(cls, sim: _core.ArraySimulation) -> ArrayResult:
        return cls(summary=json.loads(sim.summary_json()), _series=sim.series())

    @property
    def bin_s(self) -> float:
        return float(self._series["bin_s"])

    @property
    def bandwidth(self) -> pd.DataFrame:
        """Per bin: time_s, array_mb_s (completed client bytes), wire_in_mb_s,
        wire_out_mb_s, xgc_units, front, and ssd<i>_write_mb_s / ssd<i>_read_mb_s.

        Rows are the bins in which anything happened (bytes moved, an xGC
        copy, a GC invocation, a front-end change), in time order; a bin
        without a row was idle (all rates 0, GC count and front-end those of
        the row before). Idle simulated time therefore costs no rows."""
        s = self._series
        scale = 1e6 * self.bin_s
        df = pd.DataFrame({"time_s": [b * self.bin_s for b in s["bin"]]})
        df["array_mb_s"] = pd.Series(s["array_bytes"], dtype="float64") / scale
        df["wire_in_mb_s"] = pd.Series(s["wire_in"], dtype="float64") / scale
        df["wire_out_mb_s"] = pd.Series(s["wire_out"], dtype="float64") / scale
        df["xgc_units"] = pd.Series(s["xgc_units"], dtype="int64")
        df["front"] = pd.Series(s["front"], dtype="int64")
        for i, (w, r) in enumerate(zip(s["ssd_written"], s["ssd_read"])):
            df[f"ssd{i}_write_mb_s"] = pd.Series(w, dtype="float64") / scale
            df[f"ssd{i}_read_mb_s"] = pd.Series(r, dtype="float64") / scale
        return df

    @property
    def gc(self) -> pd.DataFrame:
        """Per listed bin (see :attr:`bandwidth`) and SSD: cumulative internal
        GC invocations and those in the bin (GC happens only in listed bins)."""
        rows = []
        bins = self._series["bin"]
        for i, cum in enumerate(self._series["gc_cumulative"]):
            prev = 0
            for b, c in zip(bins, cum):
                rows.append((b * self.bin_s, i, c, c - prev))
                prev = c
        return pd.DataFrame(rows, columns=["time_s", "ssd", "gc_cumulative", "gc_in_bin"])

    @property
    def per_ssd(self) -> pd.DataFrame:
        """One row per SSD: role, GC invocations, pages moved, erases, bytes."""
        return pd.DataFrame(self.summary["per_ssd"])

    def save(self, out: str | Path) -> Path:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2))
        self.bandwidth.to_csv(d / "bandwidth.csv", index=False)
        self.gc.to_csv(d / "gc.csv", index=False)
        return d


def run_array(
    *,
    layout: str = "raid0",
    ssds: int = 4,
    device: str = "default",
    overrides: Sequence[str] | None = None,
    link: str | None = None,
    queue_depth: int = 256,
    bin_ms: float = 1000.0,
    phases: Sequence[str] | None = None,
    writers: tuple[int, int, int, int] | None = None,
    seed: int = 42,
    progress: bool | None = False,
    check: bool = False,
    max_memory: int | str | None = None,
) -> ArrayResult:
    """Simulate an array of ``ssds`` copies of ``device`` (preset or TOML, with
    ``overrides``) laid out as ``layout`` (``raid0[,chunk=64k]``,
    ``raid5[,chunk=64k]``, ``serial[,front=1,victim=fifo|greedy,...]``),
    optionally behind ``link`` (``10gbe``, ``25gbe``, ``40gbe`` or Gbit/s, with
    ``,overhead=2us``). The workload is ``phases`` (synthetic specs run one
    after another) or ``writers`` = (clients, file bytes, block size, qd).
    ``check`` runs every SSD with the version oracle and invariant checks.
    ``max_memory`` bounds the memory of all SSDs together as in
    :func:`flashsched.run`.
    """
    sim = _core.ArraySimulation(
        layout=layout,
        ssds=ssds,
        device=str(device),
        overrides=list(overrides or []),
        link=link,
        queue_depth=queue_depth,
        bin_ms=bin_ms,
        phases=None if phases is None else list(phases),
        writers=writers,
        seed=seed,
        check=check,
        max_memory=memory_limit(max_memory),
    )
    drive(sim, progress, f"{layout.split(',')[0]} array")
    return ArrayResult.from_sim(sim)
