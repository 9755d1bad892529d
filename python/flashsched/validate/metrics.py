"""The metrics compared with the peers, and how each is read from a
flashsched run summary. A peer reports a subset; only the metrics both
sides give are compared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# name -> what it is (the same meaning on both sides)
METRICS: dict[str, str] = {
    "mean_us": "mean latency of all requests (arrival to completion), us",
    "read_mean_us": "mean read latency, us",
    "write_mean_us": "mean write latency, us",
    "read_p99_us": "99th percentile read latency, us",
    "write_p99_us": "99th percentile write latency, us",
    "iops": "requests completed per second of simulated time",
    "flash_reads": "pages read from flash for user data, GC and read-modify-write (not mapping)",
    "flash_programs": "pages programmed (user data and GC)",
    "flash_erases": "blocks erased",
    "flash_commands": "flash commands (a multi-plane command counts once)",
    "gc_count": "GC invocations (victim blocks collected)",
    "gc_pages_moved": "valid pages moved by GC",
    "flash_mapping_reads": "translation-page reads (mapping-cache misses)",
    "flash_update_reads": "reads for read-modify-write of partial pages",
}

# Metrics flashsched does not model; the peer's value is shown, not compared.
NOT_MODELLED: dict[str, str] = {}


def ours(summary: Mapping[str, Any]) -> dict[str, float]:
    """flashsched's value of every metric it models, from a run summary.
    Translation-page reads and programs (mapping cache) are counted apart,
    as the peers count them."""
    flash = summary["flash"]
    gc = summary["gc"]
    mapping = summary.get("mapping") or {}
    map_reads = mapping.get("flash_reads", 0)
    map_programs = mapping.get("flash_programs", 0)
    out = {
        "mean_us": summary["latency_us"]["mean"],
        "read_mean_us": summary["read_latency_us"]["mean"],
        "write_mean_us": summary["write_latency_us"]["mean"],
        "read_p99_us": summary["read_latency_us"]["p99"],
        "write_p99_us": summary["write_latency_us"]["p99"],
        "iops": summary["iops"],
        "flash_reads": flash["reads"] - map_reads,
        "flash_programs": flash["programs"] - map_programs,
        "flash_erases": gc["erases"],
        "flash_commands": flash["commands"] - map_reads - map_programs,
        "flash_mapping_reads": map_reads,
        "flash_update_reads": flash.get("update_reads", 0),
        "gc_count": gc["invocations"],
        "gc_pages_moved": gc["pages_moved"],
    }
    return {k: float(v) for k, v in out.items()}
