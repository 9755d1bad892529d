"""The figure kinds the papers use, drawn from sweep tables with matplotlib:
normalised bar charts per trace, latency CDFs, sensitivity curves and
bandwidth timelines. Each returns a :class:`Figure`; :func:`save` writes PNG
and SVG."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched.reproduce.base import Figure, Results


@functools.cache
def _pyplot() -> Any:
    """matplotlib (headless) on first use: importing flashsched stays fast."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    pyplot.rcParams.update(
        {"figure.dpi": 100, "savefig.dpi": 110, "axes.grid": True, "grid.alpha": 0.3}
        | {"font.size": 9}
        # a reproduction draws all its figures before saving them (one per drive
        # and workload set: more than matplotlib's default warning threshold)
        | {"figure.max_open_warning": 0}
    )
    return pyplot


class _LazyPyplot:
    def __getattr__(self, name: str) -> Any:
        return getattr(_pyplot(), name)


plt = _LazyPyplot()


def save(fig: Figure, outdir: Path) -> list[Path]:
    """Write ``NAME.png`` and ``NAME.svg``; closes the matplotlib figure."""
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        p = outdir / f"{fig.name}.{ext}"
        fig.fig.savefig(p, bbox_inches="tight")
        paths.append(p)
    plt.close(fig.fig)
    return paths


def _mean_over_seeds(df: pd.DataFrame, keys: list[str], metric: str) -> pd.DataFrame:
    return df.groupby(keys, sort=False, dropna=False)[metric].mean().reset_index()


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
            f"Left out ({baseline} value 0): " + ", ".join(map(str, zero)) + "."
        )
    norm = wide.div(wide[baseline], axis=0)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(norm) + 2), 3.2))
    cols = [baseline, *[c for c in norm.columns if c != baseline]]
    width = 0.8 / len(cols)
    x = np.arange(len(norm))
    for i, c in enumerate(cols):
        ax.bar(x + (i - (len(cols) - 1) / 2) * width, norm[c], width, label=str(c))
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x, [str(i) for i in norm.index], rotation=20, ha="right")
    ax.set_ylabel(ylabel or f"{metric} / {baseline}")
    ax.set_title(title)
    ax.legend(fontsize=8)
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
    """Latency CDFs (from each run's stored quantiles), one line per row;
    ``theory`` adds (label, xs, cdf) curves as thin black dashes."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for _, row in rows.iterrows():
        cdf = results.run(experiment, row["key"]).get("latency_cdf")
        if not cdf or not cdf.get(op):
            continue
        ax.plot(cdf[op], cdf["p"], label=label(row), lw=1.2)
    for i, (lbl, xs, ps) in enumerate(theory):
        ax.plot(xs, ps, "k--", lw=0.8, label=lbl if i == 0 else None)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(f"{op} latency (µs)")
    ax.set_ylabel("fraction of requests ≤ x")
    ax.set_ylim(0, 1.01)
    ax.set_title(title)
    ax.legend(fontsize=7)
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
    fig, ax = plt.subplots(figsize=(5, 3.4))
    groups = [(None, df)] if series is None else list(df.groupby(series, sort=False))
    for key, g in groups:
        s = g.groupby(x)[y].agg(["mean", "min", "max"]).sort_index()
        err = np.vstack([s["mean"] - s["min"], s["max"] - s["mean"]])
        ax.errorbar(
            s.index.astype(float),
            s["mean"],
            yerr=err,
            marker="o",
            ms=3,
            capsize=2,
            label=str(key) if key is not None else "simulated",
        )
    for lbl, xs, ys in theory:
        ax.plot(xs, ys, linestyle="--", lw=1, label=lbl)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    ax.set_title(title)
    ax.legend(fontsize=7)
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
    """Per-second bandwidth (MB/s) over simulated time, one line per row."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for _, row in rows.iterrows():
        ts = results.run(experiment, row["key"]).get("timeseries")
        if not ts:
            continue
        mb = np.asarray(ts["bytes"], dtype=float) / 1e6
        ax.plot(ts["second"], mb, label=label(row), lw=1.2)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("bandwidth (MB/s)")
    ax.set_title(title)
    ax.legend(fontsize=7)
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
    ylabel: str = "bandwidth (MB/s)",
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
    for label, y in hlines:  # under the data: a series may sit on the line
        ax.axhline(y, color="grey", ls="--", lw=0.8, label=label, zorder=1)
    for x in vlines:
        ax.axvline(x, color="k", ls=":", lw=0.8)
    handles, labels = ax.get_legend_handles_labels()
    if right is not None:
        ax2 = ax.twinx()
        ax2.grid(False)
        for label, xs, ys in right[1]:
            (h,) = ax2.plot(xs, ys, color="tab:purple", ls="--", lw=0.7, label=label)
            handles.append(h)
            labels.append(label)
        ax2.set_ylabel(right[0], color="tab:purple")
        ax2.set_ylim(bottom=0)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4)
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
    width = 0.8 / max(1, len(wide.columns))
    x = np.arange(len(wide))
    for i, c in enumerate(wide.columns):
        bars = ax.bar(x + (i - (len(wide.columns) - 1) / 2) * width, wide[c], width, label=str(c))
        if annotate:
            ax.bar_label(bars, fmt="%.0f", fontsize=6)
    for label, y in hlines:
        ax.axhline(y, color="grey", ls="--", lw=0.8, label=label)
    ax.set_xticks(x, [str(i) for i in wide.index], rotation=15, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return Figure(name, title, caption, fig)
