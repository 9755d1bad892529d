"""The serial-array reproduction's operating point (``serial_array.py``
runs it): layouts, links, capacity points, xGC policies, seeds, the
paper's SSD scaled by capacity, and the simulated length of a paper
second."""

from __future__ import annotations

import json
from typing import Any

from flashsched.reproduce.base import Context

VOLUME = 0.8  # usable capacity of both layouts / the SSDs' logical space
LAYOUTS = {
    "RAID-0": f"raid0,chunk=64k,volume={VOLUME}",
    "serial": f"serial,front=1,victim=retired,dests=2,volume={VOLUME}",
}
PRACTICAL = "10gbe,practical"
NET10 = "10 GbE practical"
LINK_NAMES = {PRACTICAL: NET10, "10gbe": "10 GbE line", "25gbe": "25 GbE", "40gbe": "40 GbE"}
LINK_MB_S = {PRACTICAL: 900.0, "10gbe": 1250.0, "25gbe": 3125.0, "40gbe": 5000.0}
FIO_LINKS: tuple[str | None, ...] = (None, PRACTICAL, "10gbe")
QUICK_FIO_LINKS: tuple[str | None, ...] = (None, PRACTICAL)
NET_LINKS: tuple[str | None, ...] = (PRACTICAL, "10gbe", "25gbe", "40gbe", None)
QUICK_NET_LINKS: tuple[str | None, ...] = (PRACTICAL, None)
MIB = float(1 << 20)
MB_PER_MIB = MIB / 1e6  # the paper's numbers are in decimal MB/s and GB/s
PRACTICAL_MIB_S = LINK_MB_S[PRACTICAL] / MB_PER_MIB  # 858 MiB/s
LINE_10GBE_MIB_S = LINK_MB_S["10gbe"] / MB_PER_MIB  # 1192 MiB/s
CAPACITY_USE = 0.75  # the paper's 1200 of 1600 GB
CAPACITY_POINTS = (0.30, 0.50, 0.60, 0.75)
QUICK_CAPACITY_POINTS = (0.30, 0.75)
POLICIES = {
    "retired, 2 dests": "serial,front=1,victim=retired,dests=2",
    "retired, 1 dest": "serial,front=1,victim=retired,dests=1",
    "fifo, 2 dests": "serial,front=1,victim=fifo,dests=2",
    "greedy, 2 dests": "serial,front=1,victim=greedy,dests=2",
}
QUICK_POLICIES = ("fifo, 2 dests",)
SPEEDS = (1.0, 0.95, 1.04, 0.98)  # per-SSD write speed factors (Fig. 7 steps)
FULL_SEEDS = (42, 43, 44, 45, 46)
QUICK_SEEDS = (42,)
SMOOTH = 10  # bins averaged in figures' right-axis activity series


def device(ctx: Context, page_size: int | None = None) -> list[str]:
    """The paper's SSD scaled by capacity (``flashsched.array.PAPER_SSD``)."""
    from flashsched.array import PAPER_SSD

    return [*PAPER_SSD] + ([f"geometry.page_size={page_size}"] if page_size else [])


def probe(overrides: list[str], layout: str = "raid0") -> dict[str, Any]:
    """An array's summary before any request (capacities, mapping size)."""
    from flashsched import _core

    sim = _core.ArraySimulation(
        layout=layout, ssds=4, device="default", overrides=overrides, phases=["n=1"]
    )
    return json.loads(sim.summary_json())


def bin_ms(ctx: Context) -> float:
    """One paper second in simulated time: times scale with capacity."""
    from flashsched.array import paper_seconds

    logical = probe(device(ctx))["ssd_logical_bytes"]
    return round(1000.0 * paper_seconds(logical) * 2) / 2  # to 0.5 ms


def link_name(link: str | None) -> str:
    """A link's name in tables and figures (no link: local)."""
    return LINK_NAMES.get(link or "", "local")


def res_bin(ctx: Context) -> str:
    """A result bin's length, in words."""
    return f"{bin_ms(ctx):g} ms (1 paper-second)"
