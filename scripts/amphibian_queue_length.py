"""What "queue length" means in Amphibian's Fig. 9 (docs/amphibian.md,
"Fig. 9: two readings of queue length"). §IV-B: "a longer request queue can
hold more user requests, leading to more room for the size-based ordering".
The reproduction's `postmark_qd` reads it as the device's queue (workers =
device queue depth = Q, 16 MiB written behind). This script measures the
other reading: the host's request queue holds Q requests (Q workers and at
most Q write-behind requests of 128 KiB in flight, Linux's nr_requests
pool), while the device queue depth D stays fixed; D is not published, so it
is swept (4, 16, 32 = SATA NCQ). Postmark as in the reproduction (2,000
transactions, think 0, 90 % filled); throughput of Amphibian without its
GC-aware module (A-noGC) and of the full Amphibian relative to noop.

    python scripts/amphibian_queue_length.py > docs/amphibian-data/queue-length.csv
"""

from __future__ import annotations

import re
import sys

import flashsched
import pandas as pd

DEVICES = {"x25e": "intel-x25e", "s3700": "intel-dc-s3700", "750s": "intel-750"}
POSTMARK = "files=500,min=1k,max=4m,io=128k,wb=1,sync=1,think=0"
SCHEMES = {
    "noop": ("noop", []),
    "A-noGC": ("amphibian", ["host.amphibian.gc_aware=false"]),
    "amphibian": ("amphibian", []),
}


def one(device: str, q: int, depth: int, sched: str, ov: list[str], tx: int) -> float:
    r = flashsched.run(
        synthetic=f"postmark:{POSTMARK},tx={tx},qd={q},dirty={q * 128}k",
        device=device,
        host_sched=sched,
        overrides=["ftl.precondition_fill=0.9", *ov],
        queue_depth=depth,
    )
    done = re.search(r"transactions=(\d+)", str(r.summary["workload"]))
    if done is None:
        raise RuntimeError(f"no transaction count in {r.summary['workload']!r}")
    return int(done.group(1)) / float(r.summary["simulated_s"])


def main() -> None:
    tx = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rows = []
    for tag, dev in DEVICES.items():
        for depth in (4, 16, 32):
            for q in (1, 4, 16, 64):
                row: dict[str, object] = {"ssd": tag, "device_depth": depth, "queue_length": q}
                for name, (sched, ov) in SCHEMES.items():
                    row[f"{name}_tx_s"] = round(one(dev, q, depth, sched, ov, tx), 2)
                for name in ("A-noGC", "amphibian"):
                    row[f"{name}_vs_noop"] = round(row[f"{name}_tx_s"] / row["noop_tx_s"], 3)  # type: ignore[operator]
                print(row, file=sys.stderr, flush=True)
                rows.append(row)
    pd.DataFrame(rows).to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main()
