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


def _series_rank(df: pd.DataFrame, a: str) -> int:
    """How well axis ``a`` serves as the series (colours) of a figure: the
    things being compared (schedulers, policies) first, workloads last."""
    if a in ("host_sched", "device_sched"):
        return 0
    if "." in a:
        return 1 if not _numeric(df[a]) else 3
    return {"label": 2, "device": 4, "workload": 5}.get(a, 6)


def layout(df: pd.DataFrame, axes: list[str]) -> tuple[str | None, str | None, list[str]]:
    """(x, series, panel axes) for the swept ``axes``: x is the numeric axis
    with most values (else the one least suited as a series, e.g. the
    workload), the series the axis most like a thing being compared (at
    most 10 values), panels the rest."""
    if not axes:
        return None, None, []
    numeric = [a for a in axes if _numeric(df[a])]
    if numeric:
        x = max(numeric, key=lambda a: df[a].nunique())
    else:
        x = max(axes, key=lambda a: (_series_rank(df, a), df[a].nunique()))
    rest = [a for a in axes if a != x]
    cands = sorted(
        (a for a in rest if df[a].nunique() <= 10),
        key=lambda a: (_series_rank(df, a), rest.index(a)),
    )
    series = cands[0] if cands else None
    return x, series, [a for a in rest if a != series]


def _title(keys: list[str], values: tuple[Any, ...]) -> str:
    from flashsched import plotstyle as ps

    return ", ".join(
        str(v) if k == "workload" else f"{ps.quantity(k)} {ps.display(v)}"
        for k, v in zip(keys, values)
    )


def _numeric_x(ax: Any, xvals: list[Any]) -> None:
    """Ticks at the swept values; a log axis when they span 16x or more."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    from flashsched import plotstyle as ps

    vals = [float(v) for v in xvals]
    if min(vals) > 0 and max(vals) / min(vals) >= 16:
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
    if len(vals) <= 8:
        ax.xaxis.set_major_locator(FixedLocator(vals))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    elif ax.get_xscale() == "log":
        ax.xaxis.set_major_formatter(FuncFormatter(ps._plain))


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
    cols = min(3, math.ceil(math.sqrt(len(groups))))
    rows = math.ceil(len(groups) / cols)
    fig, axs = ps.plt.subplots(
        rows, cols, figsize=(3.9 * cols + 1.8, 2.9 * rows), squeeze=False, sharey=True
    )
    svals = list(dict.fromkeys(df[series])) if series else [None]
    styles = ps.styles(sv if sv is not None else "value" for sv in svals)
    xvals = sorted(df[x].dropna().unique()) if _numeric(df[x]) else list(dict.fromkeys(df[x]))
    for ax, (key, g) in zip(axs.flat, groups):
        key = key if isinstance(key, tuple) else (key,)
        for i, sv in enumerate(svals):
            sel = g if sv is None else g[g[series] == sv]
            st = sel.groupby(x, sort=False)[metric].agg(["mean", "min", "max"])
            st = st.reindex(xvals)
            name = ps.display(sv) if sv is not None else ps.quantity(metric)
            style = styles[sv if sv is not None else "value"]
            err = np.vstack([st["mean"] - st["min"], st["max"] - st["mean"]])
            if _numeric(df[x]):
                ax.errorbar(
                    st.index.astype(float), st["mean"], yerr=err, capsize=2, label=name, **style
                )
            else:
                w = 0.8 / len(svals)
                pos = np.arange(len(xvals)) + (i - (len(svals) - 1) / 2) * w
                ax.bar(pos, st["mean"], w, yerr=err, capsize=2, color=style["color"], label=name)
        if _numeric(df[x]):
            _numeric_x(ax, xvals)
        else:
            ax.set_xticks(np.arange(len(xvals)), [ps.display(v) for v in xvals], rotation=20)
        if panels:
            ax.set_title(_title(panels, key), fontsize=8)
    for i, ax in enumerate(axs.flat[: len(groups)]):
        if i + cols >= len(groups):  # the last panel of its column
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


DASHES = ["-", "--", ":", "-."]


def _spread(values: list[Any], n: int) -> list[Any]:
    """Up to ``n`` of ``values``, evenly spaced, first and last included."""
    if len(values) <= n:
        return values
    idx = sorted({round(i * (len(values) - 1) / (n - 1)) for i in range(n)})
    return [values[i] for i in idx]


def cdf_figure(d: Path, df: pd.DataFrame, axes: list[str]) -> tuple[Any, str] | None:
    """Latency CDFs of the first seed's runs, split like the metric figures:
    colour = the series (e.g. GC policy), line style = up to four values of
    the x axis, one panel per combination of the other axes."""
    from matplotlib.lines import Line2D

    from flashsched import plotstyle as ps

    store = ResultStore(d)
    first = df[df["seed"] == df["seed"].min()] if "seed" in df else df
    x, series, panels = layout(df, axes)
    xall = (
        sorted(first[x].unique())
        if x and _numeric(first[x])
        else (list(dict.fromkeys(first[x])) if x else [None])
    )
    xvals = _spread(xall, len(DASHES))
    groups = [((), first)] if not panels else list(first.groupby(panels, sort=False))
    groups = groups[:MAX_PANELS]
    cols = min(3, math.ceil(math.sqrt(len(groups))))
    rows = math.ceil(len(groups) / cols)
    fig, axs = ps.plt.subplots(
        rows, cols, figsize=(3.9 * cols + 2.2, 2.8 * rows), squeeze=False, sharex=True, sharey=True
    )
    drawn = 0
    styles = ps.styles(first[series]) if series else {}
    for ax, (key, g) in zip(axs.flat, groups):
        key = key if isinstance(key, tuple) else (key,)
        for _, r in g.iterrows():
            if x is not None and r[x] not in xvals:
                continue
            cdf = store.load_run(r["key"]).get("latency_cdf") or {}
            if not cdf.get("all"):
                continue
            color = styles[r[series]]["color"] if series else ps.PALETTE[0]
            dash = DASHES[xvals.index(r[x])] if x is not None else "-"
            ax.plot(cdf["all"], cdf["p"], color=color, ls=dash, lw=1.1)
            drawn += 1
        if panels:
            ax.set_title(_title(panels, key), fontsize=8)
        ax.set_ylim(0, 1.01)
    if not drawn:
        ps.plt.close(fig)
        return None
    for ax in list(axs.flat)[len(groups) :]:
        ax.set_visible(False)
    ps.log_axis(axs.flat[0], "x")
    for i, ax in enumerate(axs.flat[: len(groups)]):
        if i + cols >= len(groups):
            ax.set_xlabel("latency (µs)")
    for ax in axs[:, 0]:
        ax.set_ylabel("fraction of requests ≤ x")
    handles = []
    if series:
        for sv in dict.fromkeys(first[series]):
            handles.append(Line2D([], [], color=styles[sv]["color"], label=ps.display(sv)))
    if x is not None and len(xvals) > 1:
        for xv, dash in zip(xvals, DASHES):
            handles.append(Line2D([], [], color="grey", ls=dash, label=f"{ps.quantity(x)} {xv}"))
    title = ps.label(series) if series else None
    ps.legend_outside(
        axs.flat[cols - 1], title=title, handles=handles, labels=[h.get_label() for h in handles]
    )
    shown = (
        f" ({len(xvals)} of {len(xall)} values of {ps.quantity(x)})"
        if x is not None and len(xall) > len(xvals)
        else ""
    )
    seed = f" Seed {df['seed'].min()}." if "seed" in df and df["seed"].nunique() > 1 else ""
    colour = ps.label(series) if series else "run"
    dashes = f"; line style: {ps.quantity(x)}{shown}" if x else ""
    return fig, f"Colour: {colour}{dashes}.{seed}"


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
