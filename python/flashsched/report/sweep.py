"""The report section of one sweep: figures split by the swept axes, the
full results table, workloads, spec, resolved device configs and versions.

Figures: the swept parameters are found from the table (columns that vary,
minus seeds, which are averaged with min-max error bars). One becomes the x
axis (a numeric one as lines, else bars), the next the series (colour, one
per value, with the shared scheduler/policy colours), the rest panels. So
``ftl.gc_policy = ["greedy", "cost-benefit"]`` crossed with queue depths and
workloads shows both policies side by side in every panel.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched.report import html as H
from flashsched.sweep.store import MANIFEST, SPEC_COPY, TABLE, ResultStore

PARAMS = ["workload", "device", "host_sched", "device_sched", "queue_depth"]
CONFIG_SECTIONS = (
    "geometry",
    "timing",
    "ftl",
    "host",
    "controller",
    "interface",
    "cache",
    "variation",
    "array",
)
SHOWN = [
    "label",
    "workload",
    "device",
    "host_sched",
    "device_sched",
    "queue_depth",
    "seed",
    "requests",
    "iops",
    "bandwidth_mib_s",
    "latency_us.mean",
    "latency_us.p99",
    "read_latency_us.mean",
    "write_latency_us.mean",
    "waf",
    "gc.invocations",
]
METRICS = ["latency_us.mean", "latency_us.p99", "bandwidth_mib_s", "waf"]
MAX_PANELS = 12
MAX_LINES = 12


def override_axes(df: pd.DataFrame) -> list[str]:
    """Config keys given per run (``ftl.gc_policy``) that vary."""
    return [
        c
        for c in df.columns
        if "." in c and c.split(".")[0] in CONFIG_SECTIONS and df[c].nunique(dropna=False) > 1
    ]


def swept_axes(df: pd.DataFrame) -> list[str]:
    """The parameters that distinguish runs (seeds excluded): named axes,
    then config keys, then labels; an axis that only renames combinations
    of earlier ones (a label per point, say) is left out."""
    cands = [c for c in PARAMS if c in df and df[c].nunique(dropna=False) > 1]
    cands += override_axes(df)
    if "label" in df and df["label"].nunique(dropna=False) > 1:
        cands.append("label")
    kept: list[str] = []
    combos = 1
    for c in cands:
        n = len(df[[*kept, c]].astype(str).drop_duplicates())
        if n > combos:
            kept.append(c)
            combos = n
    return kept


def _numeric(s: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(s)) and s.nunique() > 2


def layout(df: pd.DataFrame, axes: list[str]) -> tuple[str | None, str | None, list[str]]:
    """(x, series, panel axes) for the swept ``axes``."""
    if not axes:
        return None, None, []
    numeric = [a for a in axes if _numeric(df[a])]
    x = max(numeric or axes, key=lambda a: df[a].nunique())
    rest = [a for a in axes if a != x]
    series = None
    if rest:
        cats = [a for a in rest if not _numeric(df[a])] or rest
        series = min(cats, key=lambda a: (df[a].nunique(), rest.index(a)))
        rest.remove(series)
    return x, series, rest


def _title(keys: list[str], values: tuple[Any, ...]) -> str:
    from flashsched import plotstyle as ps

    return ", ".join(f"{ps.label(k)}: {v}" for k, v in zip(keys, values))


def metric_figure(df: pd.DataFrame, metric: str, axes: list[str]) -> tuple[Any, str]:
    """``metric`` (mean over seeds, min-max bars) against the swept axes."""
    from flashsched import plotstyle as ps

    x, series, panels = layout(df, axes)
    assert x is not None
    groups = [((), df)] if not panels else list(df.groupby(panels, sort=False, dropna=False))
    caption = ""
    if len(groups) > MAX_PANELS:
        caption = f"First {MAX_PANELS} of {len(groups)} panels."
        groups = groups[:MAX_PANELS]
    cols = min(3, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig, axs = ps.plt.subplots(
        rows, cols, figsize=(3.8 * cols + 1.6, 2.9 * rows), squeeze=False, sharey=True
    )
    svals = list(dict.fromkeys(df[series])) if series else [None]
    xvals = sorted(df[x].dropna().unique()) if _numeric(df[x]) else list(dict.fromkeys(df[x]))
    for ax, (key, g) in zip(axs.flat, groups):
        key = key if isinstance(key, tuple) else (key,)
        for i, sv in enumerate(svals):
            sel = g if sv is None else g[g[series] == sv]
            st = sel.groupby(x, sort=False)[metric].agg(["mean", "min", "max"])
            st = st.reindex(xvals)
            name = ps.display(sv) if sv is not None else ps.quantity(metric)
            style = ps.style(sv if sv is not None else metric)
            err = np.vstack([st["mean"] - st["min"], st["max"] - st["mean"]])
            if _numeric(df[x]):
                ax.errorbar(
                    st.index.astype(float), st["mean"], yerr=err, capsize=2, label=name, **style
                )
            else:
                w = 0.8 / len(svals)
                pos = np.arange(len(xvals)) + (i - (len(svals) - 1) / 2) * w
                ax.bar(pos, st["mean"], w, yerr=err, capsize=2, color=style["color"], label=name)
        if not _numeric(df[x]):
            ax.set_xticks(np.arange(len(xvals)), [ps.display(v) for v in xvals], rotation=20)
        if panels:
            ax.set_title(_title(panels, key), fontsize=8)
        ax.set_xlabel(ps.label(x))
    for ax in list(axs.flat)[len(groups) :]:
        ax.set_visible(False)
    lo, hi = df[metric].min(), df[metric].max()
    for ax in axs[:, 0]:
        ax.set_ylabel(ps.label(metric))
    if lo > 0 and hi / lo > 20:
        ps.log_axis(axs.flat[0], "y")
    elif not _numeric(df[x]) or lo >= 0:
        axs.flat[0].set_ylim(bottom=0)
    if series:
        ps.legend_outside(axs.flat[cols - 1], title=ps.label(series))
    seeds = df["seed"].nunique() if "seed" in df else 1
    if seeds > 1:
        caption = f"Mean over {seeds} seeds; bars span min to max. " + caption
    return fig, caption


def cdf_figure(d: Path, df: pd.DataFrame, axes: list[str]) -> tuple[Any, str] | None:
    """Latency CDFs of the first seed's runs (up to :data:`MAX_LINES`)."""
    from flashsched import plotstyle as ps

    store = ResultStore(d)
    first = df[df["seed"] == df["seed"].min()] if "seed" in df else df
    fig, ax = ps.plt.subplots(figsize=(6.5, 3.4))
    drawn = 0
    for _, r in first.iterrows():
        if drawn >= MAX_LINES:
            break
        cdf = store.load_run(r["key"]).get("latency_cdf") or {}
        if not cdf.get("all"):
            continue
        name = ", ".join(str(ps.display(r[a])) for a in axes) or str(r["key"])
        ax.plot(cdf["all"], cdf["p"], lw=1.1, label=name)
        drawn += 1
    if not drawn:
        ps.plt.close(fig)
        return None
    ps.log_axis(ax, "x")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("fraction of requests ≤ x")
    ps.legend_outside(ax, title=", ".join(ps.label(a) for a in axes) or None, fontsize=7)
    more = f" (first {drawn} of {len(first)} runs)" if len(first) > drawn else ""
    seed = f" of seed {df['seed'].min()}" if "seed" in df and df["seed"].nunique() > 1 else ""
    return fig, f"One line per run{seed}{more}."


def figures_html(d: Path, df: pd.DataFrame) -> str:
    from flashsched import plotstyle as ps

    if not len(df) or "latency_us.mean" not in df:
        return ""
    axes = swept_axes(df)
    parts = []
    if axes:
        for m in METRICS:
            if m in df and df[m].nunique() > 1:
                fig, cap = metric_figure(df, m, axes)
                x, _, _ = layout(df, axes)
                title = f"{ps.quantity(m).capitalize()} vs {ps.label(x or axes[0])}"
                parts.append(H.figure(ps.png_bytes(fig), title, cap, wide=True))
    got = cdf_figure(d, df, axes)
    if got:
        parts.append(H.figure(ps.png_bytes(got[0]), "Latency CDFs", got[1], wide=True))
    return "\n".join(parts)


def table(df: pd.DataFrame) -> pd.DataFrame:
    """The columns shown: parameters, swept config keys, headline metrics."""
    cols = [c for c in SHOWN if c in df.columns]
    return df[["key", *cols[:7], *override_axes(df), *cols[7:]]]


def section(d: Path, level: int = 2, figures: bool = False, title: bool = True) -> str:
    """The HTML section for one sweep directory (``title`` False when the
    page's own heading already names the sweep)."""
    man = json.loads((d / MANIFEST).read_text())
    store = ResultStore(d)
    df = store.read_table() if (d / TABLE).exists() else pd.DataFrame()
    h = f"h{level}"
    out = []
    if title:
        out.append(f"<{h} id='sweep-{H.esc(man['name'])}'>Sweep: {H.esc(man['name'])}</{h}>")
    if man.get("description"):
        out.append(f"<p>{H.esc(man['description'])}</p>")
    out.append(
        f"<p class='meta'>{len(df)} of {len(man['keys'])} runs finished; seeds "
        f"{H.esc(man.get('seeds'))}; results: {H.esc(d / TABLE)}</p>"
    )
    if figures:
        out.append(figures_html(d, df))
    if len(df):
        out.append(H.details(f"Results table ({len(df)} runs)", H.table_html(table(df)), True))
    wl = pd.DataFrame([{"name": n, **w} for n, w in man.get("workloads", {}).items()])
    if len(wl):
        out.append(H.details("Workloads", H.table_html(wl.astype(str))))
    if (d / SPEC_COPY).exists():
        out.append(H.details("Spec", H.pre((d / SPEC_COPY).read_text())))
    configs: dict[str, list[str]] = {}
    for key in df.get("key", []):
        configs.setdefault(store.load_run(key)["device_toml"], []).append(key)
    for i, (toml, keys) in enumerate(configs.items()):
        if i >= 20:
            out.append(f"<p class='meta'>… {len(configs) - 20} more device configs</p>")
            break
        more = " …" if len(keys) > 6 else ""
        out.append(
            H.details(f"Device config {i + 1} (runs {', '.join(keys[:6])}{more})", H.pre(toml))
        )
    out.append(H.versions(man.get("versions", {})))
    return "\n".join(out)
