"""SSD arrays from Python: ``flashsched.run_array(...)`` and its result.

The array layer (RAID-0, RAID-5, the serial array with external GC) and the
network link are simulated in the Rust core; see docs/arrays.md.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashsched import _core
from flashsched import arguments as A
from flashsched import summary as summaries
from flashsched.api import Overrides, device_arg, drive
from flashsched.results import MAX_DENSE_BINS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

KIB = 1024
MIB = float(1 << 20)

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
"""A scaled NVMe SSD with small blocks (32 pages): 4 GiB raw (32 dies, 256
blocks of 512 KiB per plane), ~1.5 GB/s sequential write (faster than 10 GbE,
as §2.1 of the serial-array paper assumes), the default preset's OP and GC
ratios. Small blocks change GC behaviour (a victim's valid share and how
often GC runs); the paper's experiments use :data:`PAPER_SSD`."""

PAPER_BLOCK_PAGES = 256
"""Pages per block of the paper's SSDs (Intel 750 400 GB, 20 nm MLC NAND:
16 KiB pages, 256-page = 4 MiB blocks; the paper gives no block size, this
is the NAND generation's)."""

PAPER_SSD = [
    "geometry.channels=4",
    "geometry.chips_per_channel=4",
    "geometry.dies_per_chip=2",
    "geometry.planes_per_die=1",
    "geometry.blocks_per_plane=32",
    f"geometry.pages_per_block={PAPER_BLOCK_PAGES}",
    "geometry.page_size=16384",
    "timing.program_us=580",
    "ftl.overprovisioning=0.07",
    "ftl.gc_threshold=0.05",
]
"""The serial-array paper's SSD (Intel 750 400 GB: 900 MB/s sequential
write) scaled by capacity only: the paper's block size (256 pages of 16 KiB)
with fewer blocks, 32 per plane of 32 dies, 4 GiB raw (≈ 1/100 of 400 GB);
32 dies × 16 KiB / 580 µs ≈ 904 MB/s. OP 7 % and the GC threshold 5 % are
the default preset's ratios (the paper gives none); with 32 blocks a plane
they round to 2.24 spare blocks and GC below 2 free blocks."""

PAPER_SSD_BYTES = 400e9
"""Capacity of one of the paper's SSDs, bytes."""


def paper_seconds(ssd_logical: int) -> float:
    """Simulated seconds per paper second for SSDs of ``ssd_logical`` bytes:
    bandwidths are the paper's, so times scale with capacity."""
    return ssd_logical / PAPER_SSD_BYTES


def timed_fio_phases(
    ssd_logical: int,
    ssds: int,
    capacity_use: float,
    aging_min: float = 15.0,
    measure_min: float = 30.0,
) -> list[str]:
    """The paper's fio workload (§3.1), time-based as fio ran it: aging with
    random 256 KiB writes (QD 32) over ``capacity_use`` of the SSDs' logical
    space for ``aging_min`` paper minutes, then random 64 KiB writes (QD 32)
    on 1/6 of that span (200 of 1200 GB) for ``measure_min`` paper minutes;
    minutes scale with capacity (:func:`paper_seconds`)."""
    span = int(capacity_use * ssds * ssd_logical) // (256 * KIB) * (256 * KIB)
    hot = span // 6 // (64 * KIB) * (64 * KIB)
    scale = paper_seconds(ssd_logical)
    aging_ms = max(1.0, aging_min * 60_000 * scale)
    measure_ms = max(1.0, measure_min * 60_000 * scale)
    return [
        f"read=0,bs=256k,qd=32,align=256k,span={span},time={aging_ms:.0f}ms",
        f"read=0,bs=64k,qd=32,align=64k,span={hot},time={measure_ms:.0f}ms",
    ]


def aged_fio_phases(ssd_logical: int, ssds: int, footprint: float, aging_x: float) -> list[str]:
    """Aging (random 256 KiB writes over the footprint, ``aging_x`` times its
    size) then measurement (random 64 KiB writes, QD 32, on 1/6 of it,
    1.4 × the raw capacity): the serial-array paper's 1200 GB / 200 GB /
    15 + 30 min, scaled to the simulated SSDs."""
    span = int(footprint * ssds * ssd_logical) // (256 * KIB) * (256 * KIB)
    hot = span // 6 // (64 * KIB) * (64 * KIB)
    aging = f"read=0,bs=256k,qd=32,align=256k,span={span},n={int(aging_x * span) // (256 * KIB)}"
    measure = (
        f"read=0,bs=64k,qd=32,align=64k,span={hot},n={int(1.4 * ssds * ssd_logical) // (64 * KIB)}"
    )
    return [aging, measure]


FTP_FOOTPRINT = 100e9 / 1.6e12
"""The paper's FTP upload (10 × 10 GB) over its 1.6 TB array: 6.25 %."""


def ftp_writers(
    ssd_logical: int, ssds: int, footprint: float = FTP_FOOTPRINT
) -> tuple[int, int, int, int]:
    """The serial-array paper's 10 threads × 10 GB FTP upload (§3.2),
    scaled: 10 clients, each writing its own file of footprint / 10 (of the
    SSDs' logical space; the paper's 6.25 % by default) sequentially in
    1 MiB requests, 4 outstanding per client."""
    file = int(footprint * ssds * ssd_logical) // 10 // (1 << 20) * (1 << 20)
    return (10, file, 1 << 20, 4)


@dataclass(repr=False)
class ArrayResult:
    """Summary dict plus per-bin DataFrames of one array run."""

    summary: dict[str, Any]
    _series: dict[str, Any] = field(repr=False)

    @classmethod
    def from_sim(cls, sim: _core.ArraySimulation) -> ArrayResult:
        return cls(summary=summaries.from_sim(sim), _series=sim.series())

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<ArrayResult {s['layout']} x{s['ssds']}: {s['requests']:,} requests, "
            f"{s['bandwidth_mib_s']:.1f} MiB/s, {s['gc_invocations']} internal GC, "
            f"array WAF {s['accounting']['array_waf']:.2f}>"
        )

    @property
    def warnings(self) -> list[str]:
        """What the run must not hide: xGC falling behind, writes stalled."""
        return list(self.summary.get("warnings") or [])

    def _repr_html_(self) -> str:
        from flashsched.results import _html_table

        s = self.summary
        rows = [
            ("layout", f"{s['layout']} × {s['ssds']} SSDs ({s['device']})"),
            ("workload", str(s["workload"])),
            ("requests", f"{s['requests']:,}"),
            ("simulated", f"{s['simulated_s']:.3f} s"),
            ("bandwidth", f"{s['bandwidth_mib_s']:,.1f} MiB/s"),
            (
                "latency mean / p99",
                f"{s['latency_us']['mean']:,.1f} / {s['latency_us']['p99']:,.1f} µs",
            ),
            ("internal GC invocations", f"{s['gc_invocations']:,}"),
            ("array WAF", f"{s['accounting']['array_waf']:.3f}"),
            ("usable capacity", f"{s['accounting']['usable_bytes'] / 2**30:,.2f} GiB"),
            ("stalls", f"{s['accounting']['stall_events']} ({s['accounting']['stall_ms']:.1f} ms)"),
            ("check", "on" if s.get("check", {}).get("enabled") else "off"),
        ]
        return _html_table("ArrayResult", rows)

    @property
    def bin_s(self) -> float:
        return float(self._series["bin_s"])

    def _spread(self) -> tuple[np.ndarray, Callable[[Any], np.ndarray], Callable[..., np.ndarray]]:
        """The bins the DataFrames list and how to put the core's columns on
        them. The core lists only bins in which anything happened (bytes
        moved, an xGC copy, a GC invocation, a front-end change); here idle
        bins are rows too (no bytes; GC count and front-end those of the bin
        before), as in :attr:`flashsched.RunResult.timeseries`, unless the
        run spans more than 10 million bins: then only the listed bins."""
        import numpy as np

        listed = np.asarray(self._series["bin"], dtype=np.int64)
        if len(listed) == 0 or listed[-1] >= MAX_DENSE_BINS or listed[-1] + 1 == len(listed):
            return (
                listed,
                lambda v: np.asarray(v, dtype=np.float64),
                lambda v, first: np.asarray(v, dtype=np.int64),
            )
        bins = np.arange(listed[-1] + 1)
        prev = np.searchsorted(listed, bins, side="right") - 1

        def counts(v: Any) -> np.ndarray:
            out = np.zeros(len(bins))
            out[listed] = v
            return out

        def carried(v: Any, first: int) -> np.ndarray:
            vals = np.asarray(v, dtype=np.int64)
            return np.where(prev >= 0, vals[np.maximum(prev, 0)], first)

        return bins, counts, carried

    @property
    def bandwidth(self) -> pd.DataFrame:
        """Per bin (MiB/s): time_s, array_mib_s (completed client bytes),
        wire_in_mib_s, wire_out_mib_s, xgc_units, front (the first front-end
        SSD, -1 none), front_mask (bit i set: SSD i < 64 is a front-end), and
        ssd<i>_write_mib_s / ssd<i>_read_mib_s. Idle bins are rows of zero
        rates unless the run spans more than 10 million bins; then only the
        bins in which anything happened are listed (a bin without a row was
        idle: rates 0, GC count and front-end those of the row before)."""
        import pandas as pd

        s = self._series
        bins, counts, carried = self._spread()
        scale = MIB * self.bin_s
        cols: dict[str, Any] = {"time_s": bins * self.bin_s}
        cols["array_mib_s"] = counts(s["array_bytes"]) / scale
        cols["wire_in_mib_s"] = counts(s["wire_in"]) / scale
        cols["wire_out_mib_s"] = counts(s["wire_out"]) / scale
        cols["xgc_units"] = counts(s["xgc_units"]).astype("int64")
        cols["front"] = carried(s["front"], -1)
        if "front_mask" in s:
            cols["front_mask"] = carried(s["front_mask"], 0)
        for i, (w, r) in enumerate(zip(s["ssd_written"], s["ssd_read"])):
            cols[f"ssd{i}_write_mib_s"] = counts(w) / scale
            cols[f"ssd{i}_read_mib_s"] = counts(r) / scale
        return pd.DataFrame(cols)

    @property
    def gc(self) -> pd.DataFrame:
        """Per bin of :attr:`bandwidth` and SSD: cumulative internal GC
        invocations and pages moved, and those in the bin (GC happens only
        in listed bins)."""
        import pandas as pd

        bins, _, carried = self._spread()
        rows = []
        moved_all = self._series.get("gc_moved_cumulative") or [
            [0] * len(c) for c in self._series["gc_cumulative"]
        ]
        for i, (cum, mv) in enumerate(zip(self._series["gc_cumulative"], moved_all)):
            prev = prev_m = 0
            for b, c, m in zip(bins.tolist(), carried(cum, 0).tolist(), carried(mv, 0).tolist()):
                rows.append((b * self.bin_s, i, c, c - prev, m, m - prev_m))
                prev, prev_m = c, m
        return pd.DataFrame(
            rows,
            columns=[
                "time_s",
                "ssd",
                "gc_cumulative",
                "gc_in_bin",
                "gc_moved_cumulative",
                "gc_moved_in_bin",
            ],
        )

    @property
    def per_ssd(self) -> pd.DataFrame:
        """One row per SSD: role, GC invocations, pages moved, erases, bytes."""
        import pandas as pd

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
    overrides: Overrides = None,
    link: str | None = None,
    queue_depth: int = 256,
    bin_ms: float = 1000.0,
    phases: Sequence[str] | None = None,
    writers: tuple[int, int, int, int] | None = None,
    seed: int = 42,
    progress: bool | None = False,
    check: bool = False,
    max_memory: int | str | None = None,
    ssd_speeds: Sequence[float] | None = None,
    warn: bool = True,
) -> ArrayResult:
    """Simulate an array of ``ssds`` copies of ``device`` (preset or TOML, with
    ``overrides``) laid out as ``layout`` (``raid0[,chunk=64k]``,
    ``raid5[,chunk=64k]``, ``serial[,front=1,victim=fifo|greedy,...]``),
    optionally behind ``link`` (``10gbe``, ``25gbe``, ``40gbe`` or Gbit/s, with
    ``,overhead=2us``). The workload is ``phases`` (synthetic specs run one
    after another) or ``writers`` = (clients, file bytes, block size, qd).
    ``check`` runs every SSD with the version oracle and invariant checks.
    ``max_memory`` bounds the memory of all SSDs together as in
    :func:`flashsched.run`. ``ssd_speeds`` gives SSD *i* ``ssd_speeds[i]``
    × the configured write speed (program time divided by it). With ``warn``
    the summary's ``warnings`` (xGC that cannot keep up, writes that waited
    for it) are also issued as :class:`ArrayWarning`.
    """
    if (phases is None) == (writers is None):
        raise A.ArgumentValueError("give exactly one of `phases` or `writers`")
    if phases is not None:
        phases = A.strings("phases", phases)
    if writers is not None:
        if not isinstance(writers, (tuple, list)) or len(writers) != 4:
            raise A.ArgumentTypeError(
                f"writers: expected (clients, file bytes, block size, qd), got {writers!r}"
            )
        # types here; the core checks the values (naming array.writers)
        writers = (
            A.integer("writers[0] (clients)", writers[0], 0, 2**32 - 1),
            A.integer("writers[1] (file bytes)", writers[1]),
            A.integer("writers[2] (block size)", writers[2], 0, 2**32 - 1),
            A.integer("writers[3] (qd)", writers[3], 0, 2**32 - 1),
        )
    sim = _core.ArraySimulation(
        layout=A.text("layout", layout),
        ssds=A.integer("ssds", ssds, 1, 2**32 - 1),
        device=device_arg(device),
        overrides=A.overrides(overrides),
        link=A.optional_text("link", link),
        queue_depth=A.integer("queue_depth", queue_depth, 1, 2**32 - 1),
        bin_ms=A.number("bin_ms", bin_ms, positive=True),
        phases=phases,
        writers=writers,
        seed=A.integer("seed", seed),
        check=A.flag("check", check),
        max_memory=A.memory_size("max_memory", max_memory),
        ssd_speeds=[A.number(f"ssd_speeds[{i}]", x) for i, x in enumerate(ssd_speeds or [])],
    )
    drive(sim, progress, f"{layout.split(',')[0]} array")
    res = ArrayResult.from_sim(sim)
    if warn:
        for w in res.warnings:
            warnings.warn(f"{layout}: {w}", ArrayWarning, stacklevel=2)
    return res


class ArrayWarning(UserWarning):
    """An array run that completed but did something a reader must know
    about: xGC fell behind the front-end, or writes waited for it."""
