"""Report sections for the outputs of ``run --out``, ``array-compare`` and
``compare``: a summary table, figures drawn from the saved series, and the
config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched.report import html as H


def _summary_rows(s: dict[str, Any]) -> pd.DataFrame:
    rows = [
        ("device", s.get("device")),
        ("host scheduler", s.get("host_sched", s.get("host_scheduler"))),
        ("device scheduler", s.get("device_sched", s.get("device_scheduler"))),
        ("workload", s.get("workload")),
        ("seed", s.get("seed")),
        ("requests", f"{s['requests']:,}"),
        ("simulated time", f"{s['simulated_s']:.3f} s"),
        ("IOPS", f"{s['iops']:,.0f}"),
        ("bandwidth", f"{s['bandwidth_mib_s']:,.1f} MiB/s"),
        ("write amplification", f"{s['waf']:.3f}"),
        ("GC invocations / pages moved / erases", _gc(s.get("gc", {}))),
    ]
    c = s.get("check", {})
    rows.append(
        (
            "check",
            f"on: {c['page_reads_verified']:,} page reads verified, "
            f"{c['pages_audited']:,} pages audited"
            if c.get("enabled")
            else "off",
        )
    )
    return pd.DataFrame(rows, columns=["", "value"]).astype(str)


def _gc(g: dict[str, Any]) -> str:
    return " / ".join(f"{g.get(k, 0):,}" for k in ("invocations", "pages_moved", "erases"))


def latency_table(s: dict[str, Any]) -> pd.DataFrame:
    """Latency statistics (µs) of all requests, reads and writes."""
    rows = []
    for name, key in (
        ("all", "latency_us"),
        ("read", "read_latency_us"),
        ("write", "write_latency_us"),
    ):
        lat = s[key]
        rows.append(
            {"requests": name, **{f"{k} (µs)" if k != "count" else k: v for k, v in lat.items()}}
        )
    return pd.DataFrame(rows)


def timeseries_figure(ts: pd.DataFrame) -> Any:
    """IOPS and bandwidth, and mean / p99 latency, over simulated time."""
    from flashsched import plotstyle as ps

    t = ts["time_s"]
    bw = ts["mib_s"] if "mib_s" in ts else ts["bytes"] / float(1 << 20)
    fig, (a1, a2) = ps.plt.subplots(2, 1, figsize=(7.5, 4.6), sharex=True)
    a1.plot(t, bw, color=ps.PALETTE[0], label="bandwidth")
    a1.set_ylabel("bandwidth (MiB/s)")
    a1.set_ylim(bottom=0)
    a2.plot(t, ts["mean_latency_us"], color=ps.PALETTE[0], label="mean")
    a2.plot(t, ts["p99_latency_us"], color=ps.PALETTE[1], label="99th percentile")
    a2.set_ylabel("latency (µs)")
    a2.set_xlabel("simulated time (s)")
    lat = pd.concat([ts["mean_latency_us"], ts["p99_latency_us"]]).dropna()
    lat = lat[lat > 0]
    if len(lat) and lat.max() / lat.min() > 20:
        ps.log_axis(a2, "y")
    ps.legend_outside(a2)
    return fig


def cdf_figure(req: pd.DataFrame) -> Any:
    """Read and write latency CDFs from per-request rows."""
    from flashsched import plotstyle as ps

    fig, ax = ps.plt.subplots(figsize=(6, 3.3))
    for op, color in (("read", ps.PALETTE[0]), ("write", ps.PALETTE[1])):
        v = np.sort(req.loc[req["op"] == op, "latency_us"].to_numpy())
        if len(v):
            ax.plot(v, np.arange(1, len(v) + 1) / len(v), color=color, label=f"{op}s")
    if not ax.get_lines():
        ps.plt.close(fig)
        return None
    ps.log_axis(ax, "x")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("fraction of requests ≤ x")
    ps.legend_outside(ax)
    return fig


def run_section(d: Path) -> str:
    """The directory ``flashsched run --out`` wrote."""
    from flashsched import plotstyle as ps
    from flashsched.textsummary import render

    s = json.loads((d / "summary.json").read_text())
    parts = [H.table_html(_summary_rows(s)), "<h2>Latency</h2>", H.table_html(latency_table(s))]
    figs = []
    if (d / "timeseries.csv").exists():
        ts = pd.read_csv(d / "timeseries.csv")
        if "time_s" not in ts and "second" in ts:  # written by an older version
            ts = ts.rename(columns={"second": "time_s"})
        if len(ts):
            figs.append(H.figure(ps.png_bytes(timeseries_figure(ts)), "Over time", "", True))
    if (d / "requests.parquet").exists():
        fig = cdf_figure(pd.read_parquet(d / "requests.parquet", columns=["op", "latency_us"]))
        if fig is not None:
            figs.append(H.figure(ps.png_bytes(fig), "Latency CDFs", "From per-request rows."))
    if figs:
        parts += ["<h2>Figures</h2>", *figs]
    parts.append(H.details("Text summary", H.pre(render(s))))
    if (d / "config.toml").exists():
        parts.append(H.details("Device config", H.pre((d / "config.toml").read_text())))
    return "\n".join(parts)


def is_array_dir(d: Path) -> bool:
    s = d / "summary.json"
    return s.exists() and "layout" in json.loads(s.read_text())


def array_section(d: Path, layouts: list[Path]) -> str:
    """``array-compare`` output: one summary row per layout, its figure, and
    the per-SSD tables."""
    from flashsched import plotstyle as ps

    rows, per_ssd = [], []
    for sub in layouts:
        s = json.loads((sub / "summary.json").read_text())
        rows.append(
            {
                "layout": ps.display(sub.name),
                "SSDs": s["ssds"],
                "requests": s["requests"],
                "simulated (s)": s["simulated_s"],
                "bandwidth (MiB/s)": s.get("bandwidth_mib_s", np.nan),
                "mean latency (µs)": s["latency_us"]["mean"],
                "p99 latency (µs)": s["latency_us"]["p99"],
                "internal GC": s["gc_invocations"],
                "link": (s.get("link") or {}).get("gbit_s", "none"),
            }
        )
        ssd = pd.DataFrame(s["per_ssd"])
        per_ssd.append(H.details(f"Per SSD: {sub.name}", H.table_html(ssd)))
    parts = [H.table_html(pd.DataFrame(rows))]
    png = d / "array_compare.png"
    if png.exists():
        parts.append(
            f"<figure class='wide'>{H.img(png, 'array bandwidth')}<figcaption><b>Bandwidth "
            "over time</b> Array and per-SSD write bandwidth, with internal GC (RAID-0) "
            "or xGC copies (serial) on the right axis.</figcaption></figure>"
        )
    return "\n".join(parts + per_ssd)


def compare_section(d: Path) -> str:
    """``compare`` output: the table and its figures (the sweep follows)."""
    df = pd.read_csv(d / "compare.csv")
    parts = [
        "<h2 id='comparison'>Comparison</h2><p class='meta'>Normalised columns (norm_*) are "
        "relative to the first scheduler combination of each workload and device.</p>",
        H.table_html(df.drop(columns=["key"], errors="ignore")),
    ]
    for name, title in (("normalised", "Normalised latency"), ("latency_cdf", "Latency CDFs")):
        png = d / "figures" / f"{name}.png"
        if png.exists():
            parts.append(
                f"<figure class='wide'>{H.img(png, title)}<figcaption><b>{title}</b>"
                "</figcaption></figure>"
            )
    return "\n".join(parts)
