"""``serial_array``: B. Kim, J. Kim, S. H. Noh, "Managing Array of SSDs When
the Storage Device is No Longer the Performance Bottleneck", HotStorage 2017
(/work/shared/papers/serial-ssd-array.md).

Published numbers: RAID-0 of four 400 GB PCIe SSDs under FIO random writes
peaks near its ideal write bandwidth and then drops below the 10 GbE line
because of GC (Fig. 3); behind a 10 GbE link RAID-0 averages about 900 MB/s
and the serial organisation about 890 MB/s while using one SSD (Fig. 6); the
serial organisation with external GC (xGC) sustains its bandwidth during and
after aging (Fig. 7, no number given).

The experiments need SSD arrays (RAID-0 and the serial layout with xGC,
behind a network link) in the Python API, which the array branch adds; until
then this module holds the published numbers only and ``reproduce`` reports
the missing feature. Planned experiments once arrays land: FIO-like random
writes (QD 32, 256 KiB aging then 64 KiB) on 4 SSDs as RAID-0 (64 KiB chunks)
and serial, with and without a 10 Gb/s link; figures: bandwidth timelines
(Figs. 3, 6, 7).
"""

from __future__ import annotations

from typing import Any

from flashsched.reproduce.base import Claim, Context, Feature, Reproduction

CLAIMS = [
    Claim(
        "raid0_peak",
        "RAID-0 of 4 SSDs: initial write bandwidth",
        "write bandwidth",
        3.5,
        "FIO random writes, clean SSDs",
        "Fig. 3, §1",
        "GB/s",
    ),
    Claim(
        "raid0_ideal",
        "RAID-0 of 4 SSDs: ideal write bandwidth (4 × 900 MB/s)",
        "write bandwidth",
        3.6,
        "datasheet",
        "§1",
        "GB/s",
    ),
    Claim(
        "raid0_floor",
        "RAID-0 after GC starts: drops below the 10 GbE line",
        "write bandwidth (upper bound of the dip)",
        1.25,
        "FIO random writes",
        "Fig. 3, §1",
        "GB/s",
    ),
    Claim(
        "raid0_net",
        "RAID-0 behind 10 GbE: average storage-side throughput",
        "throughput",
        900,
        "10 threads × 10 GB FTP-like writes",
        "Fig. 6, §3.2",
        "MB/s",
    ),
    Claim(
        "serial_net",
        "serial array behind 10 GbE: average throughput (one SSD active)",
        "throughput",
        890,
        "10 threads × 10 GB FTP-like writes",
        "Fig. 6, §3.2",
        "MB/s",
    ),
]


def _arrays_available() -> bool:
    import flashsched

    return hasattr(flashsched, "run_array")


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    return {}


REPRODUCTION = Reproduction(
    name="serial_array",
    title="Serial SSD array with external GC (Kim, Kim, Noh, HotStorage 2017)",
    citation="B. Kim, J. Kim, S. H. Noh, 'Managing Array of SSDs When the Storage Device is "
    "No Longer the Performance Bottleneck', HotStorage 2017",
    claims=CLAIMS,
    experiments=experiments,
    features=(
        Feature(
            "SSD arrays in the Python API (flashsched.run_array: RAID-0, serial + "
            "xGC, network link)",
            _arrays_available,
        ),
    ),
    published_only=True,
    notes=__doc__ or "",
    runtime="not yet runnable (needs the array branch)",
)
