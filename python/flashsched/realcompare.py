"""Real runs in a comparison: ``compare(real=PATH)`` / ``compare --real``.

After the simulated sweep, every workload is replayed with every host
scheduler variant on each real target (``flashsched.replay``, the host
section of the first device), one run at a time — replays on one device
must not overlap, and nothing real is cached. The rows have the
comparison table's columns with ``kind = "real"``, ``device = "real:PATH"``,
``device_sched = "device firmware"``, no GC count (a real device does not
expose it) and their own normalisation group; their latency CDFs travel in
``df.attrs["real_cdf"]`` (keyed like the ``key`` column) for the figures.
:func:`sim_vs_real` puts the two kinds side by side.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from flashsched import arguments as A
from flashsched.api import Overrides

# What real_options may set: the target's side of flashsched.replay.
REAL_OPTIONS = {"offset", "size", "allow_write", "verify", "prefill", "align", "backend"}
FIRMWARE = "device firmware"


def targets(
    real: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None,
    options: dict[str, Any] | None,
) -> list[tuple[str, dict[str, Any]]]:
    """(path, replay options) per target, checked."""
    items = [] if real is None else [real] if isinstance(real, (str, os.PathLike)) else real
    if not isinstance(items, (list, tuple)):
        raise A.ArgumentTypeError(f"real: expected a path or a list of paths, got {real!r}")
    opts = dict(options or {})
    bad = sorted(set(opts) - REAL_OPTIONS)
    if bad:
        raise A.ArgumentValueError(
            f"real_options: unknown {bad} (known: {', '.join(sorted(REAL_OPTIONS))})"
        )
    return [(A.path("real", p), opts) for p in items]


def rows(
    wls: Sequence[Any],
    host_scheds: Sequence[str],
    device: str,
    real: Sequence[tuple[str, dict[str, Any]]],
    *,
    overrides: Overrides = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    progress: bool | None = False,
) -> tuple[pd.DataFrame, dict[str, dict[str, Any]]]:
    """Replay every (workload, target, host scheduler variant); returns the
    rows (comparison columns, normalised per (workload, target)) and the
    latency CDF of each row by key."""
    from flashsched.comparison import _transactions, _variant
    from flashsched.realdev import replay
    from flashsched.sweep.runs import latency_cdf

    out: list[dict[str, Any]] = []
    cdfs: dict[str, dict[str, Any]] = {}
    for wl in wls:
        for path, opts in real:
            for hs in host_scheds:
                point = _variant(hs)
                extra = [f"{k}={v}" for k, v in point.items() if k.startswith("host.")]
                res = replay(
                    target=path,
                    trace=wl.trace,
                    synthetic=wl.synthetic,
                    device=device,
                    overrides=A.overrides(overrides) + extra,
                    host_sched=point["host_sched"],
                    queue_depth=queue_depth,
                    format=format,
                    intensity=intensity,
                    limit=limit,
                    seed=seed,
                    keep_records=True,
                    progress=progress,
                    **opts,
                )
                s = res.summary
                key = f"real:{path}:{wl.label}:{hs}"
                tx = _transactions(s.get("workload"))
                out.append(
                    {
                        "workload": wl.label,
                        "device": f"real:{path}",
                        "device_sched": FIRMWARE,
                        "host_sched": hs,
                        "requests": s["requests"],
                        "mean_latency_us": s["latency_us"]["mean"],
                        "p99_latency_us": s["latency_us"]["p99"],
                        "read_mean_latency_us": s["read_latency_us"]["mean"],
                        "write_mean_latency_us": s["write_latency_us"]["mean"],
                        "iops": s["iops"],
                        "mib_s": s["bandwidth_mib_s"],
                        "gc_invocations": np.nan,
                        "tx_s": tx / s["simulated_s"] if tx and s["simulated_s"] > 0 else np.nan,
                        "key": key,
                        "kind": "real",
                    }
                )
                cdfs[key] = latency_cdf(res._records)
    df = pd.DataFrame(out)
    if len(df):
        from flashsched.comparison import NORMALISED

        groups = df.groupby(["workload", "device"], sort=False)
        for col, src in NORMALISED.items():
            df[col] = df[src] / groups[src].transform("first")
    return df, cdfs


def sim_vs_real(df: pd.DataFrame) -> pd.DataFrame:
    """Each simulated row next to the real run of the same workload and host
    scheduler, with real/simulated ratios (empty without real rows)."""
    sim, real = df[df["kind"] == "sim"], df[df["kind"] == "real"]
    keys = ["workload", "host_sched"]
    cols = ["device", "device_sched", "mean_latency_us", "p99_latency_us", "iops"]
    m = sim[keys + cols].merge(real[keys + cols], on=keys, suffixes=("_sim", "_real"))
    for c in ("mean_latency_us", "p99_latency_us", "iops"):
        m[f"{c}_real/sim"] = m[f"{c}_real"] / m[f"{c}_sim"]
    return m.drop(columns=["device_sched_real"])
