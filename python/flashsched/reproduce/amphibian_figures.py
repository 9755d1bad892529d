"""The Amphibian reproduction's figures, and its GC detector measured as a
detector (``amphibian.py`` runs the experiments and measures the claims)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from flashsched import plotstyle as ps
from flashsched.reproduce import figures as F
from flashsched.reproduce.amphibian_claims import CLAIMS, FIGS
from flashsched.reproduce.amphibian_setup import (
    ABLATION,
    MAIN,
    SSD_NAMES,
    SSDS,
    THINK_MS,
    TRACES,
    VARIANTS,
    table,
)
from flashsched.reproduce.base import Context, Figure, Measured, Results


def _latency_bars(df: pd.DataFrame, exp: str, variants: list[str], tag: str) -> list[Figure]:
    figs = []
    what = {"profiles": "synthetic Table III profiles", "samples": "real trace samples ×10"}[exp]
    for ssd, d in df[df["label"].isin(variants)].groupby("ssd", sort=False):
        figs.append(
            F.normalized_bars(
                d,
                name=f"{tag}_{exp}_{ssd}",
                title=f"{SSD_NAMES.get(ssd, ssd)}: mean response time, {what} (cf. {FIGS[ssd]})",
                metric="latency_us.mean",
                series="label",
                baseline="noop",
                ylabel="mean response time, normalised to NOOP",
            )
        )
    return figs


def _postmark_bars(df: pd.DataFrame) -> Figure:
    wide = df.groupby(["ssd", "label"], sort=False)["tx_s"].mean().unstack("label")
    norm = wide.div(wide["noop"], axis=0)
    norm.index = [SSD_NAMES.get(i, i) for i in norm.index]
    return F.grouped_bars(
        norm[[c for c in VARIANTS if c in norm]],
        name="postmark",
        title=f"Postmark throughput, queue length 16, think {THINK_MS} ms (cf. Fig. 8)",
        ylabel="transactions per second, normalised to NOOP",
        caption="NOOP's transactions per second: "
        + ", ".join(f"{SSD_NAMES.get(k, k)} {v:.1f}" for k, v in wide["noop"].items()),
        hlines=[("NOOP = 1", 1.0)],
    )


def _band_figure(ssd: str, measured: dict[str, Measured]) -> Figure | None:
    """Amphibian vs noop per profile: the published reduction, ours at the
    chosen settings, and the band over the burst and detector sweeps (a
    symmetric-log axis: the GC module's losses reach thousands of %)."""
    pub = {c.id: c.published for c in CLAIMS}
    ids = [f"noop_{ssd}_{t.lower()}" for t in TRACES]
    ids += [f"noop_{ssd}_avg", f"noop_{ssd}_avg_samples"]
    ids = [i for i in ids if i in measured and not math.isnan(measured[i].value)]
    if not ids:
        return None
    names = [i.split(f"noop_{ssd}_", 1)[1].replace("avg_samples", "samples avg") for i in ids]
    fig, ax = F.plt.subplots(figsize=(7, 3.4))
    x = np.arange(len(ids))
    lo = [(measured[i].band or (math.nan, math.nan))[0] for i in ids]
    hi = [(measured[i].band or (math.nan, math.nan))[1] for i in ids]
    ax.vlines(x, lo, hi, color="grey", lw=4, alpha=0.5, label="band over the sweeps")
    ax.plot(x, [measured[i].value for i in ids], "o", color="C0", label="ours (burst 4)")
    ax.plot(x, [pub[i] for i in ids], "x", color="k", ms=8, label="paper")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_yscale("symlog", linthresh=50)
    ax.yaxis.set_major_formatter(F.plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylabel("reduction of mean response time (%)")
    title = f"{SSD_NAMES[ssd]}: Amphibian vs NOOP, band over burst and detector settings"
    ax.set_title(title, fontsize=9)
    ps.legend_outside(ax)
    return Figure(
        f"band_{ssd}",
        title,
        "Grey: min-max over burst 1/4/16/64 (profiles) and the D-* detector settings; "
        "dots: calibrated burst 4 and default detector; crosses: the paper (Figs. 10-12).",
        fig,
    )


def figures(res: Results, measured: dict[str, Measured]) -> list[Figure]:
    """Every figure of the reproduction (``measured``: its claims as
    measured, for the band figures)."""
    figs: list[Figure] = []
    for ssd in SSDS:
        if (bf := _band_figure(ssd, measured)) is not None:
            figs.append(bf)
    for exp in ("profiles", "samples"):
        df = table(res, exp)
        if df is None:
            continue
        figs += _latency_bars(df, exp, MAIN, "latency")
        figs += _latency_bars(df, exp, ABLATION, "ablation")
        first = df["workload"].iloc[0]
        for ssd, d in df[(df["workload"] == first) & df["label"].isin(MAIN)].groupby("ssd"):
            figs.append(
                F.cdf_plot(
                    res,
                    exp,
                    d,
                    name=f"cdf_{exp}_{ssd}",
                    title=f"Response-time CDF, {first}, {SSD_NAMES.get(ssd, ssd)} "
                    "(cf. Figs. 13-15)",
                    label=lambda r: r["label"],
                )
            )
    if (pm := table(res, "postmark")) is not None:
        figs.append(_postmark_bars(pm))
    if (qd := table(res, "postmark_qd")) is not None:
        for ssd, d in qd.groupby("ssd", sort=False):
            figs.append(
                F.sensitivity(
                    d,
                    name=f"qd_{ssd}",
                    title=f"Postmark throughput vs queue length, {SSD_NAMES.get(ssd, ssd)} "
                    "(cf. Fig. 9)",
                    x="queue_depth",
                    y="tx_s",
                    series="label",
                    xlabel="queue length",
                    ylabel="transactions per second",
                )
            )
            figs.append(
                F.sensitivity(
                    d,
                    name=f"qdlat_{ssd}",
                    title=f"Postmark read response time vs queue length, {SSD_NAMES.get(ssd, ssd)}",
                    x="queue_depth",
                    y="read_latency_us.mean",
                    series="label",
                    xlabel="queue length",
                    ylabel="mean read response time (µs)",
                    logy=True,
                    caption="Reads are what a Postmark transaction waits for; "
                    "its writes are written behind.",
                )
            )
    return figs


DETECTOR_COLS = {
    "gc_detection.zone_kind": "zones",
    "gc_detection.flags": "flags",
    "gc_detection.flags_in_gc": "flags_in_gc",
    "gc_detection.probes": "probes",
    "gc_detection.held_zone_s": "held_zone_s",
    "gc_detection.gc_zone_s": "gc_zone_s",
    "gc_detection.precision": "precision",
    "gc_detection.recall": "recall",
    "gc_detection.gc_episodes": "gc_episodes",
    "gc_detection.episodes_detected": "episodes_detected",
}


def detector_tables(res: Results, ctx: Context) -> dict[str, pd.DataFrame]:
    """The GC-aware module measured as a detector (§III-E) against the
    device's GC periods: one row per run of a GC-aware variant, and its
    totals per SSD and variant (precision and recall over zone-time)."""
    rows = []
    for exp in ("profiles", "samples", "gcmode", "postmark"):
        df = table(res, exp)
        if df is None or "gc_detection.flags" not in df:
            continue
        d = df[df["gc_detection.flags"].notna()]
        keep = {
            "ssd": "ssd",
            "workload": "workload",
            "label": "variant",
            "latency_us.mean": "mean_latency_us",
            **DETECTOR_COLS,
        }
        rows.append(d[list(keep)].rename(columns=keep).assign(experiment=exp))
    if not rows:
        return {}
    runs = pd.concat(rows, ignore_index=True)
    num = [c for c in runs if c not in ("ssd", "workload", "variant", "zones", "experiment")]
    runs[num] = runs[num].astype(float)
    g = runs.groupby(["experiment", "ssd", "variant"], sort=False)
    counts = ["flags", "flags_in_gc", "probes", "held_zone_s", "gc_zone_s"]
    tot = g[[*counts, "gc_episodes", "episodes_detected"]].sum()
    overlap = (
        (runs["precision"].fillna(0) * runs["held_zone_s"])
        .groupby([runs["experiment"], runs["ssd"], runs["variant"]], sort=False)
        .sum()
    )
    ints = ["flags", "flags_in_gc", "probes", "gc_episodes", "episodes_detected"]
    runs[ints] = runs[ints].astype(int)
    tot[ints] = tot[ints].astype(int)
    held = tot["held_zone_s"].where(tot["held_zone_s"] > 0)
    in_gc = tot["gc_zone_s"].where(tot["gc_zone_s"] > 0)
    tot["precision"] = overlap / held
    tot["recall"] = overlap / in_gc
    return {"detector_runs": runs, "detector": tot.reset_index()}
