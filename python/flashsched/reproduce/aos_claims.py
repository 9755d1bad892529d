"""The AOS paper's published claims (P. Li et al., IMECS 2015, §IV-B: Figs.
3-5 and the abstract), each averaged "on average" over EX, FIN1, FIN2 and
MSN; ``aos.py`` measures them."""

from __future__ import annotations

from flashsched.reproduce.base import Claim

ALL = "EX, FIN1, FIN2, MSN (mean)"
RED = "reduction (%)"
CLAIMS = [
    Claim(
        "read_fifo",
        "AOS vs FIFO: read latency",
        f"read latency {RED}",
        51,
        ALL,
        "Fig. 3(a), §IV-B1; abstract",
    ),
    Claim(
        "read_fifo_ex",
        "AOS vs FIFO: read latency, best case",
        f"read latency {RED}",
        87,
        "EX",
        "Fig. 3(a), §IV-B1",
    ),
    Claim(
        "write_fifo",
        "AOS vs FIFO: write latency",
        f"write latency {RED}",
        45,
        ALL,
        "Fig. 3(b), §IV-B1; abstract",
    ),
    Claim(
        "read_pes",
        "AOS vs P/E suspension: read latency",
        f"read latency {RED}",
        8,
        ALL,
        "Fig. 3(a), §IV-B1",
    ),
    Claim(
        "write_pes",
        "AOS vs P/E suspension: write latency",
        f"write latency {RED}",
        22,
        ALL,
        "Fig. 3(b), §IV-B1",
    ),
    Claim(
        "interference",
        "AOS vs FIFO: write-caused interference",
        RED,
        55,
        ALL,
        "Fig. 4(a), §IV-B2; §I",
    ),
    Claim(
        "channel_conflicts",
        "AOS vs FIFO: channel-level access conflicts",
        RED,
        31,
        ALL,
        "Fig. 4(b), §IV-B2",
    ),
    Claim(
        "flp",
        "AOS vs FIFO: flash-level parallelism",
        "gain (×)",
        2.0,
        ALL,
        "Fig. 5(a), §IV-B3",
        "×",
    ),
    Claim(
        "slp_fifo",
        "AOS vs FIFO: system-level parallelism",
        "gain (×)",
        1.3,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
    Claim(
        "slp_pes",
        "AOS vs P/E suspension: system-level parallelism",
        "gain (×)",
        1.2,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
    Claim(
        "slp_piq",
        "AOS vs PIQ: system-level parallelism",
        "gain (×)",
        1.08,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
]
