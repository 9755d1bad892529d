"""End-to-end benchmark: simulated requests per wall-second and peak memory.

The reference workload (issue #2): 1,000,000 random requests, 70 % reads,
4-16 KiB, Poisson arrivals. On ``mqsim-default``: 20k IOPS over a 16 GiB
span. On ``ssdsim-default`` (a 4 GiB device with two 40 MB/s buses that
cannot sustain 20k IOPS of 10 KiB requests): 5k IOPS over the whole device.
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import time
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

CASES: dict[str, str] = {
    "mqsim-default": "read=0.7,bs=4k-16k,iops=20000,span=16g,n={n}",
    "ssdsim-default": "read=0.7,bs=4k-16k,iops=5000,n={n}",
}


def run_case(device: str, n: int, seed: int = 1) -> dict[str, Any]:
    """Run one case in this process; returns timings and the summary."""
    from flashsched import api

    spec = CASES[device].format(n=n)
    t0 = time.perf_counter()
    sim = api.simulation(synthetic=spec, device=device, seed=seed, keep_records=False)
    t_build = time.perf_counter() - t0
    t1 = time.perf_counter()
    sim.run()
    t_run = time.perf_counter() - t1
    s = json.loads(sim.summary_json())
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cfg = tomllib.loads(sim.config_toml())["geometry"]
    raw_gib = (
        cfg["channels"]
        * cfg["chips_per_channel"]
        * cfg["dies_per_chip"]
        * cfg["planes_per_die"]
        * cfg["blocks_per_plane"]
        * cfg["pages_per_block"]
        * cfg["page_size"]
        / 2**30
    )
    return {
        "device": device,
        "workload": spec,
        "requests": s["requests"],
        "build_s": round(t_build, 3),
        "run_s": round(t_run, 3),
        "requests_per_s": round(s["requests"] / t_run),
        "events": s["events"],
        "events_per_s": round(s["events"] / t_run),
        "peak_rss_mib": round(peak_kib / 1024, 1),
        "device_raw_gib": round(raw_gib, 1),
        "model_bytes_per_gib": round(s["memory_bytes"] / raw_gib),
        "mean_latency_us": round(s["latency_us"]["mean"], 2),
    }


def run_isolated(device: str, n: int) -> dict[str, Any]:
    """Run a case in a fresh interpreter so peak memory is its own."""
    code = (
        "import json,sys; from flashsched.bench import run_case; "
        f"print(json.dumps(run_case({device!r}, {n})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(devices: list[str], n: int) -> list[dict[str, Any]]:
    rows = []
    print(f"# flashsched bench ({platform.machine()}, Python {platform.python_version()})")
    for d in devices:
        r = run_isolated(d, n)
        rows.append(r)
        print(
            f"{d:<16} {r['requests']:>9,} req  run {r['run_s']:6.2f} s  "
            f"{r['requests_per_s']:>10,} req/s  {r['events_per_s']:>11,} events/s  "
            f"build {r['build_s']:5.2f} s  peak RSS {r['peak_rss_mib']:7.1f} MiB  "
            f"model {r['model_bytes_per_gib'] / 2**20:.2f} MiB per simulated GiB"
        )
    return rows
