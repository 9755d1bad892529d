"""A short tour of sweeps, reproductions and reports from Python.

Run from the repository root:  python examples/sweep_tutorial.py
(about 15 s on 2 cores; writes results/tutorial/ and results/reproduce/foundation/).
"""

from __future__ import annotations

import flashsched

# 1. A sweep is a dict (or a TOML file, see experiments/example-sweep.toml and
#    docs/sweeps.md): workloads x a grid of axes. Any device config key is an axis.
spec = {
    "name": "tutorial",
    "base": {"device": "ssdsim-default", "set": ["ftl.precondition_fill=0.9"]},
    "workloads": {
        "oltp": {"synthetic": "read=0.7,bs=4k-16k,iops=3000,n=5000"},
        "backup": {"synthetic": "read=0.1,bs=64k,pattern=seq,iops=500,n=2000"},
    },
    "grid": {
        "ftl.gc_policy": ["greedy", "cost-benefit", "random"],
        "queue_depth": [1, 16],
        "seed": [1, 2],
    },
}

# One row per run, every parameter and every summary metric as a column.
# Re-running skips finished runs (results/tutorial/runs/KEY.json).
df = flashsched.sweep(spec, out="results/tutorial", workers=2)
print(df.attrs["executed"].__len__(), "runs executed,", len(df.attrs["skipped"]), "skipped")
print(
    df.groupby(["workload", "ftl.gc_policy", "queue_depth"])[["latency_us.mean", "waf"]]
    .mean()
    .round(2)
)

# 2. An HTML report of the sweep (tables, configs, versions, seeds).
print("report:", flashsched.report("results/tutorial"))

# 3. A paper reproduction: published numbers vs ours, figures, report.html.
table = flashsched.reproduce("foundation", quick=True, workers=2)
print(table[["claim", "published", "ours", "ratio"]].to_string(index=False))
print("figures and report in", table.attrs["out"])
