"""Why Amphibian's GC-aware module hurts even with perfect GC flags
(docs/amphibian.md, "Why the oracle hurts"): the eight synthetic Table III
profiles (scale 10, burst 4, 50,000 requests, 90 % filled, queue depth 16)
on the three Intel presets, Amphibian without the module (A-noGC), with the
oracle holding every request to a chip in GC (A-oracle, §III-E's "all the
requests"), and with the oracle holding reads only (A-oracle-rd). Per run:
mean response time of reads and writes, their mean time held in the host
queue, and the same for small (≤ 8 KiB) and large reads.

    python scripts/amphibian_oracle_hold.py > docs/amphibian-data/oracle-hold.csv
"""

from __future__ import annotations

import sys

import flashsched
import pandas as pd

PROFILES = ["fin1", "fin2", "web1", "web2", "web3", "proj_2", "prxy_1", "usr_1"]
DEVICES = ["intel-x25e", "intel-dc-s3700", "intel-750"]
ORACLE = ["host.amphibian.gc_detect=oracle", "host.amphibian.zones=chip"]
VARIANTS = {
    "A-noGC": ["host.amphibian.gc_aware=false"],
    "A-oracle": ORACLE,
    "A-oracle-rd": [*ORACLE, "host.amphibian.hold_writes=false"],
}


def one(device: str, profile: str, overrides: list[str], n: int) -> dict[str, float]:
    r = flashsched.run(
        synthetic=f"profile:{profile},scale=10,burst=4,n={n}",
        device=device,
        host_sched="amphibian",
        overrides=["ftl.precondition_fill=0.9", *overrides],
        queue_depth=16,
    )
    q = r.requests
    rd, wr = q[q["op"] == "read"], q[q["op"] != "read"]
    small, large = rd[rd["size"] <= 8192], rd[rd["size"] > 8192]
    return {
        "mean_us": q["latency_us"].mean(),
        "read_us": rd["latency_us"].mean(),
        "write_us": wr["latency_us"].mean(),
        "read_held_us": rd["wait_us"].mean(),
        "write_held_us": wr["wait_us"].mean(),
        "small_read_held_us": small["wait_us"].mean(),
        "large_read_held_us": large["wait_us"].mean(),
        "gc_jobs": r.summary["gc"]["invocations"],
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    rows = [
        {"device": d, "profile": p, "variant": v, **one(d, p, ov, n)}
        for d in DEVICES
        for p in PROFILES
        for v, ov in VARIANTS.items()
    ]
    pd.DataFrame(rows).round(1).to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main()
