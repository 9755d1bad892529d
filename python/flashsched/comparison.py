"""Scheduler comparisons on the sweep machinery: ``flashsched.compare(...)``
and ``flashsched compare``.

A comparison is a sweep: one workload axis, devices, device schedulers and
host-scheduler variants (``amphibian:size_ordering=false`` sets
``host.amphibian.size_ordering``). So it runs in parallel, caches every run
by the hash of its resolved config (re-running an identical comparison
simulates nothing), shows a progress bar and can run with ``check``. The
result is one row per (workload, device, device_sched, host_sched) with
latency (µs), throughput (MiB/s) and values normalised to the first
combination of each (workload, device). ``real=PATH`` adds real runs of
the same workloads and host schedulers (flashsched/realcompare.py), after
the sweep, with ``kind = "real"`` (simulated rows have ``kind = "sim"``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import arguments as A
from flashsched.api import Overrides

PROFILES = ["fin1", "fin2", "web1", "web2", "web3", "proj_2", "prxy_1", "usr_1"]
TABLE = "compare"  # compare.{csv,parquet,json} in the output directory

# sweep column -> comparison column
METRICS = {
    "requests": "requests",
    "latency_us.mean": "mean_latency_us",
    "latency_us.p99": "p99_latency_us",
    "read_latency_us.mean": "read_mean_latency_us",
    "write_latency_us.mean": "write_mean_latency_us",
    "iops": "iops",
    "bandwidth_mib_s": "mib_s",
    "gc.invocations": "gc_invocations",
}
# The host's GC detector scored against the device (GC-aware host
# schedulers only; absent columns stay empty).
DETECTION = {
    "gc_detection.flags": "gc_flags",
    "gc_detection.probes": "gc_probes",
    "gc_detection.held_zone_s": "gc_held_zone_s",
    "gc_detection.precision": "gc_precision",
    "gc_detection.recall": "gc_recall",
}
NORMALISED = {
    "norm_mean": "mean_latency_us",
    "norm_p99": "p99_latency_us",
    "norm_mib_s": "mib_s",
}
KEYS = ["workload", "device", "device_sched", "host_sched"]


@dataclass(frozen=True)
class Workload:
    """One workload to compare on: a label plus a trace or synthetic spec."""

    label: str
    trace: str | None = None
    synthetic: str | None = None


def workloads(
    trace: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    synthetic: str | None = None,
    profile: str | Sequence[str] | None = None,
    profile_args: str = "",
    postmark: str | None = None,
) -> list[Workload]:
    """Expand the workload options into a list of uniquely labelled workloads."""
    traces = [] if trace is None else [trace] if isinstance(trace, (str, os.PathLike)) else trace
    if not isinstance(traces, (list, tuple)):
        raise A.ArgumentTypeError(f"trace: expected a path or a list of paths, got {trace!r}")
    out = []
    for t in traces:
        p = A.path("trace", t)
        out.append(Workload(Path(p).name, trace=str(Path(p).resolve())))
    if synthetic is not None:
        out.append(Workload(A.text("synthetic", synthetic), synthetic=synthetic))
    names = A.names("profile", profile)
    if names == ["all"]:
        names = PROFILES
    extra = A.text("profile_args", profile_args)
    for n in names:
        out.append(Workload(n, synthetic=f"profile:{n}" + (f",{extra}" if extra else "")))
    if postmark is not None:
        out.append(Workload("postmark", synthetic=f"postmark:{A.text('postmark', postmark)}"))
    if not out:
        raise A.ArgumentValueError("give a workload: trace, synthetic, profile or postmark")
    seen: dict[str, int] = {}
    unique = []
    for w in out:  # two traces called hm_0.csv in different directories
        seen[w.label] = seen.get(w.label, 0) + 1
        label = w.label if seen[w.label] == 1 else f"{w.label} ({seen[w.label]})"
        unique.append(Workload(label, w.trace, w.synthetic))
    return unique


def _variant(hs: str) -> dict[str, Any]:
    """``amphibian:gc_aware=false`` -> a sweep point: the scheduler, its
    ``[host.<name>]`` overrides and the variant as the label."""
    name, *kvs = hs.split(":")
    point: dict[str, Any] = {"host_sched": name, "label": hs}
    for kv in kvs:
        if "=" not in kv:
            raise A.ArgumentValueError(
                f"host_sched: variant option {kv!r} of {hs!r} is not key=value"
            )
        k, v = kv.split("=", 1)
        point[f"host.{name}.{k.strip()}"] = v.strip()
    return point


def spec(
    wls: list[Workload],
    host_scheds: Sequence[str],
    device_scheds: Sequence[str],
    devices: Sequence[str],
    *,
    overrides: Overrides = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    check: bool = False,
) -> dict[str, Any]:
    """The sweep spec of a comparison."""
    wl_table: dict[str, dict[str, Any]] = {}
    for w in wls:
        if w.trace is not None:
            t: dict[str, Any] = {"trace": w.trace, "format": format, "intensity": intensity}
            if limit is not None:
                t["limit"] = limit
            wl_table[w.label] = t
        else:
            wl_table[w.label] = {"synthetic": w.synthetic}
    base: dict[str, Any] = {"seed": A.integer("seed", seed), "set": A.overrides(overrides)}
    if queue_depth is not None:
        base["queue_depth"] = A.integer("queue_depth", queue_depth, 1)
    grid: dict[str, list[Any]] = {"workload": [w.label for w in wls], "device": list(devices)}
    if device_scheds:
        grid["device_sched"] = list(device_scheds)
    return {
        "name": "compare",
        "description": "flashsched compare",
        "workloads": wl_table,
        "base": base,
        "grid": grid,
        "points": [_variant(h) for h in host_scheds],
        "output": {"cdf": True, "timeseries": False, "check": A.flag("check", check)},
    }


def _transactions(spec: Any) -> float | None:
    m = re.search(r"transactions=(\d+)", str(spec))
    return float(m.group(1)) if m else None


def table(sweep_df: pd.DataFrame) -> pd.DataFrame:
    """The comparison table from the sweep's table (in the sweep's order)."""
    df = pd.DataFrame(
        {
            "workload": sweep_df["workload"],
            "device": sweep_df["device"],
            "device_sched": sweep_df["device_sched"],
            "host_sched": sweep_df["label"],
        }
    )
    for src, dst in METRICS.items():
        df[dst] = sweep_df[src]
    for src, dst in DETECTION.items():
        df[dst] = sweep_df[src].astype(float) if src in sweep_df else float("nan")
    tx = sweep_df["workload_spec"].map(_transactions).astype(float)
    sim_s = sweep_df["simulated_s"].astype(float)
    df["tx_s"] = (tx / sim_s).where(sim_s > 0)
    groups = df.groupby(["workload", "device"], sort=False)
    for col, src in NORMALISED.items():
        df[col] = df[src] / groups[src].transform("first")
    df["key"] = sweep_df["key"]
    df["kind"] = "sim"
    return df.reset_index(drop=True)


def compare(
    *,
    trace: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    synthetic: str | None = None,
    profile: str | Sequence[str] | None = None,
    profile_args: str = "",
    postmark: str | None = None,
    host_sched: str | Sequence[str] = "noop",
    device_sched: str | Sequence[str] | None = None,
    device: str | Sequence[str] = "default",
    overrides: Overrides = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    check: bool = False,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    progress: bool | None = False,
    real: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    real_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Compare schedulers: one row per (workload, device, device_sched,
    host_sched) with latency (µs), IOPS, MiB/s (and transactions/s for
    Postmark) plus ``norm_*`` columns normalised to the first combination
    of each (workload, device).

    ``host_sched``, ``device_sched`` and ``device`` are comma lists or lists
    (the first host scheduler is the baseline; ``NAME:key=value:...`` sets
    ``[host.NAME]`` keys, for ablations). Runs go through the sweep
    machinery: ``workers`` processes, results cached in ``out`` (default: a
    temporary directory, so nothing is kept), ``check`` on every run. The
    table's ``attrs["out"]`` is the sweep directory when ``out`` was given.

    ``real`` (a path or several) also replays each workload with each host
    scheduler variant on that file or block device, one run at a time
    (rows of ``kind`` ``real``, device ``real:PATH``, the host section of
    the first device); ``real_options`` are :func:`flashsched.replay`
    keywords such as ``size``, ``offset``, ``allow_write``, ``verify``.
    :func:`flashsched.realcompare.sim_vs_real` puts the kinds side by side.
    """
    from flashsched import realcompare
    from flashsched.sweep import sweep as run_sweep

    wls = workloads(trace, synthetic, profile, profile_args, postmark)
    hs = A.names("host_sched", host_sched) or ["noop"]
    devices = A.names("device", device) or ["default"]
    targets = realcompare.targets(real, real_options)

    def with_real(df: pd.DataFrame) -> pd.DataFrame:
        if not targets:
            return df
        rdf, cdfs = realcompare.rows(
            wls, hs, devices[0], targets, overrides=overrides, queue_depth=queue_depth,
            format=format, intensity=intensity, limit=limit, seed=seed, progress=progress,
        )  # fmt: skip
        both = pd.concat([df, rdf], ignore_index=True)
        both.attrs.update(df.attrs, real_cdf=cdfs)
        return both

    s = spec(
        wls,
        hs,
        A.names("device_sched", device_sched),
        devices,
        overrides=overrides,
        queue_depth=queue_depth,
        format=A.text("format", format),
        intensity=A.number("intensity", intensity, positive=True),
        limit=A.optional_integer("limit", limit, 1),
        seed=seed,
        check=check,
    )
    if out is None:
        with tempfile.TemporaryDirectory(prefix="flashsched-compare-") as tmp:
            return with_real(table(run_sweep(s, out=tmp, workers=workers, progress=progress)))
    result = run_sweep(s, out=A.path("out", out), workers=workers, progress=progress)
    df = table(result)
    df.attrs.update(out=result.attrs["out"])
    return with_real(df)


def _wrap(text: str, width: int = 24) -> str:
    """A long workload name (a synthetic spec) over several lines."""
    import textwrap

    return "\n".join(textwrap.wrap(text.replace(",", ", "), width)) or text


def plot_cdf(df: pd.DataFrame, out_dir: str | os.PathLike[str], stem: str | Path) -> list[Path]:
    """Latency CDFs: one panel per (workload, device), one line per
    scheduler combination (colour = host scheduler, dashes = device
    scheduler), from each run's stored quantiles."""
    from flashsched import plotstyle as ps
    from flashsched.sweep.store import ResultStore

    store = ResultStore(out_dir)
    real_cdf = df.attrs.get("real_cdf", {})  # real runs are not in the store
    groups = list(dict.fromkeys(zip(df["workload"], df["device"])))
    multi_dev = len({d for _, d in groups}) > 1
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = ps.plt.subplots(rows, cols, figsize=(4.4 * cols + 2.8, 3.2 * rows), squeeze=False)
    dashes = ["-", "--", ":", "-."]
    dscheds = list(dict.fromkeys(df["device_sched"]))
    colors = ps.styles(df["host_sched"])
    for ax, (wl, dev) in zip(axes.flat, groups):
        sel = df[(df["workload"] == wl) & (df["device"] == dev)]
        for _, r in sel.iterrows():
            cdf = real_cdf.get(r["key"]) or store.load_run(r["key"]).get("latency_cdf") or {}
            if not cdf.get("all"):
                continue
            name = ps.display(r["host_sched"])
            if len(dscheds) > 1:
                name += f" / {ps.display(r['device_sched'])}"
            ax.plot(
                cdf["all"],
                cdf["p"],
                color=colors[r["host_sched"]]["color"],
                ls=dashes[dscheds.index(r["device_sched"]) % len(dashes)],
                label=name,
            )
        ps.log_axis(ax, "x")
        ax.set_ylim(0, 1.01)
        ax.set_title(_wrap(f"{wl} on {dev}" if multi_dev else str(wl), 44), fontsize=8)
        ax.set_xlabel("latency (µs)")
        ax.set_ylabel("fraction of requests ≤ x")
    for ax in list(axes.flat)[len(groups) :]:
        ax.set_visible(False)
    title = "host / device scheduler" if len(dscheds) > 1 else "host scheduler"
    ps.legend_outside(axes.flat[min(cols, len(groups)) - 1], title=title)
    return ps.save(fig, stem)


HATCHES = ["", "//", "..", "xx"]


def plot_normalised(df: pd.DataFrame, stem: str | Path) -> list[Path]:
    """Mean and p99 latency of every combination normalised to the baseline
    (the first combination of each workload and device), grouped by
    workload; colour = host scheduler, hatching = device scheduler."""
    import numpy as np

    from flashsched import plotstyle as ps

    combos = list(dict.fromkeys(zip(df["host_sched"], df["device_sched"])))
    dscheds = list(dict.fromkeys(df["device_sched"]))
    groups = list(dict.fromkeys(zip(df["workload"], df["device"])))
    multi_dev = len({d for _, d in groups}) > 1
    names = [_wrap(f"{w} on {d}" if multi_dev else str(w)) for w, d in groups]
    base_h, base_d = combos[0]
    base = ps.display(base_h) + (f" / {ps.display(base_d)}" if len(dscheds) > 1 else "")
    width_in = max(6.0, 0.28 * len(combos) * len(groups) + 1.2 * len(groups) + 3.0)
    fig, axes = ps.plt.subplots(2, 1, figsize=(width_in, 5.4), sharex=True)
    width = 0.8 / max(1, len(combos))
    x = np.arange(len(groups))
    colors = ps.styles(h for h, _ in combos)
    for ax, col, what in zip(axes, ["norm_mean", "norm_p99"], ["mean", "99th-percentile"]):
        placed = []
        for i, (h, d) in enumerate(combos):
            sel = df[(df["host_sched"] == h) & (df["device_sched"] == d)].set_index(
                ["workload", "device"]
            )
            vals = [float(sel[col].get(g, np.nan)) for g in groups]
            pos = x + (i - (len(combos) - 1) / 2) * width
            placed += list(zip(pos, vals))
            label = ps.display(h) + (f" / {ps.display(d)}" if len(dscheds) > 1 else "")
            ax.bar(
                pos,
                vals,
                width,
                label=label,
                color=colors[h]["color"],
                hatch=HATCHES[dscheds.index(d) % len(HATCHES)],
                edgecolor="white",
                linewidth=0.3,
            )
        ax.axhline(1.0, color="k", lw=0.8)
        ps.clip_outliers(ax, [v for _, v in placed], [p for p, _ in placed], floor=1.0)
        ax.set_ylabel(f"{what} latency,\nnormalised to {base}")
    axes[0].set_title(f"Latency normalised to {base} (the first combination of each workload)")
    axes[1].set_xticks(x, names, fontsize=7)
    title = "host / device scheduler" if len(dscheds) > 1 else "host scheduler"
    ps.legend_outside(axes[0], title=title)
    return ps.save(fig, stem)


def write(df: pd.DataFrame, out: str | os.PathLike[str]) -> list[Path]:
    """``compare.csv``, ``compare.parquet`` and ``compare.json`` in ``out``."""
    from flashsched.sweep.store import atomic_write_bytes, atomic_write_text

    d = Path(out)
    paths = [d / f"{TABLE}.csv", d / f"{TABLE}.parquet", d / f"{TABLE}.json"]
    atomic_write_text(paths[0], df.to_csv(index=False))
    atomic_write_bytes(paths[1], df.to_parquet(index=False))
    atomic_write_text(paths[2], df.to_json(orient="records", indent=1))
    return paths
