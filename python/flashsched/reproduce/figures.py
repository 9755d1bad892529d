"""The figure kinds the papers use, drawn from sweep tables in the shared
style (flashsched/plotstyle.py): normalised bar charts per trace, latency
CDFs, sensitivity curves and bandwidth timelines. Each returns a
:class:`Figure`; :func:`save` writes PNG and SVG.

Axis labels default to the metric in words with its unit
(``plotstyle.label``); series keep one colour per scheduler across every
figure; legends sit outside the axes; a bar more than five times the
others is cut and annotated with its value."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched import plotstyle as ps
from flashsched.reproduce.base import Figure, Results

plt = ps.plt
HLINE_STYLES = ["--", ":", "-."]  # reference levels told apart in one figure


def save(fig: Figure, outdir: Path) -> list[Path]:
    """Write ``NAME.png`` and ``NAME.svg``; closes the matplotlib figure."""
    return ps.save(fig.fig, outdir / fig.name)


def _mean_over_seeds(df: pd.DataFrame, keys: list[str], metric: str) -> pd.DataFrame:
    return df.groupby(keys, sort=False, dropna=False)[metric].mean().reset_index()


def _bars(
    ax: Any, wide: pd.DataFrame, cols: Sequence[Any], annotate: bool = False
) -> list[tuple[float, float]]:
    """One bar per column in each row group; returns (x, value) of every bar."""
    width = 0.8 / max(1, len(cols))
    x = np.arange(len(wide))
    placed = []
    st = ps.styles(cols)
    for i, c in enumerate(cols):
        pos = x + (i - (len(cols) - 1) / 2) * width
        bars = ax.bar(pos, wide[c], width, label=ps.display(c), color=st[c]["color"])
        if annotate:
            ax.bar_label(bars, fmt="%.0f", fontsize=6)
        placed += list(zip(pos, wide[c]))
    ax.set_xticks(x, [str(i) for i in wide.index], rotation=20, ha="right")
    return placed


def normalized_bars(
    df: pd.DataFrame,
    *,
    name: str,
    title: str,
    metric: str,
    series: str,
    baseline: str,
    group: str = "workload",
    caption: str = "",
    ylabel: str | None = None,
) -> Figure:
    """One group of bars per ``group`` value (trace), one bar per ``series``
    value (scheduler), each normalised to the ``baseline`` series. Groups
    whose baseline is zero (e.g. a counter FIFO never incremented) have no
    normalised value and are left out; the caption names them."""
    m = _mean_over_seeds(df, [group, series], metric)
    wide = m.pivot(index=group, columns=series, values=metric)
    wide = wide.reindex(list(dict.fromkeys(m[group])))
    zero = wide.index[wide[baseline] == 0]
    if len(zero):
        wide = wide.drop(zero)
        caption = (caption + " " if caption else "") + (
            f"Left out ({ps.display(baseline)} value 0): " + ", ".join(map(str, zero)) + "."
        )
    norm = wide.div(wide[baseline], axis=0)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(norm) + 2), 3.2))
    cols = [baseline, *[c for c in norm.columns if c != baseline]]
    placed = _bars(ax, norm, cols)
    ax.axhline(1.0, color="k", lw=0.8)
    if ps.clip_outliers(ax, [v for _, v in placed], [p for p, _ in placed], floor=1.0):
        caption = (caption + " " if caption else "") + "Bars above the cut are labelled."
    ax.set_ylabel(ylabel or ps.normalised(metric, baseline))
    ax.set_title(title)
    ps.legend_outside(ax)
    return Figure(name, title, caption, fig)


def cdf_plot(
    results: Results,
    experiment: str,
    rows: pd.DataFrame,
    *,
    name: str,
    title: str,
    label: Callable[[pd.Series], str],
    op: str = "all",
    caption: str = "",
    logx: bool = True,
    theory: Sequence[tuple[str, Any, Any]] = (),
) -> Figure:
    """Latency CDFs (from each run's stored quantiles), one line per row
    (coloured by its label's scheduler style); ``theory`` adds (label, xs,
    cdf) curves as thin black dashes."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    st = ps.styles(label(r) for _, r in rows.iterrows())
    for _, row in rows.iterrows():
        cdf = results.run(experiment, row["key"]).get("latency_cdf")
        if not cdf or not cdf.get(op):
            continue
        lbl = label(row)
        ax.plot(cdf[op], cdf["p"], label=ps.display(lbl), color=st[lbl]["color"])
    for i, (lbl, xs, p) in enumerate(theory):
        ax.plot(xs, p, "k--", lw=0.8, label=lbl if i == 0 else None)
    if logx:
        ps.log_axis(ax, "x")
    what = "" if op == "all" else f"{op} "
    ax.set_xlabel(f"{what}latency (µs)")
    ax.set_ylabel("fraction of requests ≤ x")
    ax.set_ylim(0, 1.01)
    ax.set_title(title)
    ps.legend_outside(ax)
    return Figure(name, title, caption, fig)


def sensitivity(
    df: pd.DataFrame,
    *,
    name: str,
    title: str,
    x: str,
    y: str,
    series: str | None = None,
    theory: Sequence[tuple[str, Any, Any]] = (),
    caption: str = "",
    xlabel: str | None = None,
    ylabel: str | None = None,
    logy: bool = False,
) -> Figure:
    """``y`` against ``x`` (mean over seeds, with min-max error bars), one
    line per ``series`` value; ``theory`` adds (label, xs, ys) dashed lines."""
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    groups = [(None, df)] if series is None else list(df.groupby(series, sort=False))
    st = ps.styles(k if k is not None else "simulated" for k, _ in groups)
    for key, g in groups:
        s = g.groupby(x)[y].agg(["mean", "min", "max"]).sort_index()
        err = np.vstack([s["mean"] - s["min"], s["max"] - s["mean"]])
        ax.errorbar(
            s.index.astype(float),
            s["mean"],
            yerr=err,
            capsize=2,
            label=ps.display(key) if key is not None else "simulated",
            **st[key if key is not None else "simulated"],
        )
    names = {str(k).lower(): k for k, _ in groups if k is not None}
    for i, (lbl, xs, ys) in enumerate(theory):
        # a theory curve named after a series ("FIFO theory") takes its colour
        match = names.get(str(lbl).split()[0].lower())
        color = st[match]["color"] if match is not None else "k"
        dash = "--" if match is not None else ["--", ":", "-."][i % 3]
        ax.plot(xs, ys, linestyle=dash, color=color, lw=1, label=lbl)
    if logy:
        ps.log_axis(ax, "y")
    ax.set_xlabel(xlabel or ps.label(x))
    ax.set_ylabel(ylabel or ps.label(y))
    ax.set_title(title)
    ps.legend_outside(ax, title=ps.label(series) if series and series in ps.LABELS else None)
    return Figure(name, title, caption, fig)


def bandwidth_timeline(
    results: Results,
    experiment: str,
    rows: pd.DataFrame,
    *,
    name: str,
    title: str,
    label: Callable[[pd.Series], str],
    caption: str = "",
) -> Figure:
    """Per-second bandwidth (MiB/s) over simulated time, one line per row."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    st = ps.styles(label(r) for _, r in rows.iterrows())
    for _, row in rows.iterrows():
        ts = results.run(experiment, row["key"]).get("timeseries")
        if not ts:
            continue
        mib = np.asarray(ts["bytes"], dtype=float) / float(1 << 20)
        lbl = label(row)
        ax.plot(ts.get("time_s", ts.get("second")), mib, label=ps.display(lbl), **st[lbl])
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("bandwidth (MiB/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ps.legend_outside(ax)
    return Figure(name, title, caption, fig)


def reduction_pct(
    df: pd.DataFrame, metric: str, series: str, ours: str, baseline: str, group: str = "workload"
) -> pd.Series:
    """Per-``group`` reduction of ``metric`` of ``ours`` vs ``baseline`` in %
    (positive = ours is lower), mean over seeds."""
    m = _mean_over_seeds(df, [group, series], metric)
    wide = m.pivot(index=group, columns=series, values=metric)
    return (1.0 - wide[ours] / wide[baseline]) * 100.0


def timeline(
    lines: Sequence[tuple[str, Any, Any, dict[str, Any]]],
    *,
    name: str,
    title: str,
    caption: str = "",
    ylabel: str = "bandwidth (MiB/s)",
    hlines: Sequence[tuple[str, float]] = (),
    vlines: Sequence[float] = (),
    right: tuple[str, Sequence[tuple[str, Any, Any]]] | None = None,
    xlabel: str = "simulated time (s)",
) -> Figure:
    """Series over time from any source (e.g. array runs): ``lines`` are
    (label, xs, ys, matplotlib style); ``hlines`` labelled reference levels
    (grey dashes), ``vlines`` phase boundaries (dotted); ``right`` = (axis
    label, [(label, xs, ys)]) on a second y axis (thin purple dashes). Later
    lines are drawn on top; the legend goes below the axes."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for label, xs, ys, style in lines:
        ax.plot(xs, ys, label=label, **({"lw": 1.0} | style))
    for i, (label, y) in enumerate(hlines):  # under the data: a series may sit on it
        ax.axhline(y, color="grey", ls=HLINE_STYLES[i % 3], lw=0.9, label=label, zorder=1)
    for x in vlines:
        ax.axvline(x, color="k", ls=":", lw=0.8)
    handles, labels = ax.get_legend_handles_labels()
    if right is not None:
        purple = "#7B3294"
        ax2 = ax.twinx()
        ax2.grid(False)
        ax2.spines["right"].set_visible(True)
        for label, xs, ys in right[1]:
            (h,) = ax2.plot(xs, ys, color=purple, ls="--", lw=0.7, label=label)
            handles.append(h)
            labels.append(label)
        ax2.set_ylabel(right[0], color=purple)
        ax2.set_ylim(bottom=0)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ps.legend_outside(ax, where="below", handles=handles, labels=labels)
    return Figure(name, title, caption, fig)


def grouped_bars(
    wide: pd.DataFrame,
    *,
    name: str,
    title: str,
    ylabel: str,
    caption: str = "",
    hlines: Sequence[tuple[str, float]] = (),
    annotate: bool = False,
) -> Figure:
    """One group of bars per row of ``wide`` (its index labels the groups),
    one bar per column; ``annotate`` writes each bar's value above it (so a
    zero bar is visibly zero)."""
    fig, ax = plt.subplots(figsize=(max(4.5, 1.1 * len(wide) + 2), 3.2))
    placed = _bars(ax, wide, list(wide.columns), annotate)
    for i, (label, y) in enumerate(hlines):
        ax.axhline(y, color="grey", ls=HLINE_STYLES[i % 3], lw=0.9, label=label)
    if ps.clip_outliers(ax, [v for _, v in placed], [p for p, _ in placed]):
        caption = (caption + " " if caption else "") + "Bars above the cut are labelled."
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ps.legend_outside(ax)
    return Figure(name, title, caption, fig)
