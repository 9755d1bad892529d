"""The serial SSD array paper's published claims (B. Kim, J. Kim, S. H. Noh,
HotStorage 2017: §3.1's bandwidths, Figs. 4-8); ``serial_array.py``
measures them."""

from __future__ import annotations

from flashsched.reproduce.base import Claim

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
    Claim(
        "serial_steady",
        "serial array, aged: consistent bandwidth (Fig. 7 is flat)",
        "p1 / mean of per-second write bandwidth after aging",
        1.0,
        "FIO aging 1200 GB then 64 KiB random writes on 200 GB",
        "Fig. 7, §3.3",
        "ratio",
    ),
    Claim(
        "raid0_dips_net",
        "RAID-0, aged: GC makes bandwidth dip below the network",
        "p1 / mean of per-second write bandwidth after aging, behind 10 GbE",
        0.0,
        "FIO random writes (Fig. 3 shows drops to near 0)",
        "Fig. 3, §1",
        "ratio",
    ),
    Claim(
        "serial_internal_gc",
        "serial array: internal GC invocations in any SSD (internal GC does not occur)",
        "internal GC invocations, all SSDs, all runs",
        0,
        "any workload",
        "§1, §2.1, §4",
        "count",
    ),
    Claim(
        "mapping_pct",
        "serial array: forward + inverse mapping memory / total SSD capacity",
        "mapping memory (%)",
        0.2,
        "4 × 400 GB, 4 KiB mapping unit",
        "§2.3",
        "%",
    ),
]
