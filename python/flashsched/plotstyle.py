"""One look for every figure flashsched draws (CLI commands, reports,
reproductions).

* :func:`pyplot` loads matplotlib (headless) on first use with the shared
  rcParams, so importing flashsched never loads it.
* :func:`style` gives each scheduler (and array layout, GC policy) one
  colour and marker in every figure; unknown names get a stable one.
* :func:`label` turns a metric or config key into words with units
  (``read_latency_us.mean`` -> "mean read latency (µs)"); :func:`display`
  names a scheduler as the papers do (``noop`` -> "NOOP").
* :func:`log_axis` puts readable ticks on a log axis (10, 20, 50, 100 ...,
  never "2×10²"); :func:`legend_outside` keeps the legend off the data;
  :func:`clip_outliers` annotates a bar that dwarfs the rest instead of
  letting it flatten them.
* :func:`save` writes PNG + SVG with permissions from the umask, after
  checking that no axis label is a raw key (:func:`raw_labels`).
"""

from __future__ import annotations

import functools
import math
import re
import warnings
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# --- matplotlib ----------------------------------------------------------

RC: dict[str, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 130,
    "savefig.bbox": "tight",
    # room for titles, labels and outside legends without overlaps
    "figure.constrained_layout.use": True,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "svg.fonttype": "none",
}


@functools.cache
def pyplot() -> Any:
    """``matplotlib.pyplot`` with the Agg backend and the shared style."""
    import matplotlib
    import matplotlib.style

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.style.use(RC)
    # a reproduction draws all its figures before saving them
    plt.rcParams["figure.max_open_warning"] = 0
    return plt


class _LazyPyplot:
    def __getattr__(self, name: str) -> Any:
        return getattr(pyplot(), name)


plt = _LazyPyplot()
"""``pyplot`` loaded on first attribute access."""

# --- colours and markers -------------------------------------------------

# Colour-blind-safe (Okabe-Ito, then Tol's muted) colours.
PALETTE = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#882255",
    "#44AA99",
    "#999933",
    "#AA4499",
    "#661100",
]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p"]

# Fixed slots: a scheduler looks the same in every figure. Host and device
# schedulers are distinct so a host x device figure never repeats a colour;
# array layouts and GC victim policies reuse the first slots (they never
# share a figure with schedulers).
_FIXED: dict[str, int] = {
    # host schedulers
    "noop": 6,
    "deadline": 1,
    "cfq": 2,
    "pardispatcher": 3,
    "kyber": 4,
    "bfq": 5,
    "amphibian": 0,
    # device (flash transaction) schedulers
    "fifo": 6,
    # the reproductions' label for `fifo` beside SSDsim's FCFS: fifo's colour
    "per-die FIFO": 6,
    "piq": 7,
    "pe-suspend": 8,
    "aos": 9,
    "vios": 0,
    "mqsim-priority": 10,
    "ssdsim-fcfs": 11,
    # array layouts
    "raid0": 1,
    "raid5": 4,
    "serial": 0,
    "RAID-0": 1,
    "RAID-5": 4,
    # GC victim policies
    "greedy": 0,
    "cost-benefit": 1,
    "random": 2,
    "d-choice": 3,
}

_DISPLAY = {
    "noop": "NOOP",
    "fifo": "FIFO",
    "cfq": "CFQ",
    "bfq": "BFQ",
    "piq": "PIQ",
    "aos": "AOS",
    "vios": "VIOS",
    "deadline": "Deadline",
    "kyber": "Kyber",
    "amphibian": "Amphibian",
    "pardispatcher": "ParDispatcher",
    "pe-suspend": "P/E suspend",
    "mqsim-priority": "MQSim priority",
    "ssdsim-fcfs": "SSDsim FCFS",
    "raid0": "RAID-0",
    "raid5": "RAID-5",
    "serial": "serial array",
}


def _slot(name: str) -> int:
    if name in _FIXED:
        return _FIXED[name]
    # crc32, not hash(): the same in every process
    return zlib.crc32(name.encode()) % len(PALETTE)


def style(name: Any) -> dict[str, Any]:
    """``color`` and ``marker`` for a series named ``name`` (a scheduler,
    layout, policy or any label): the same in every figure. A variant such
    as ``amphibian:size_ordering=false`` gets its own stable colour and a
    dashed line."""
    n = str(name)
    i = _slot(n)
    out: dict[str, Any] = {"color": PALETTE[i], "marker": MARKERS[i % len(MARKERS)]}
    if ":" in n:
        out["linestyle"] = "--"
    return out


def styles(names: Iterable[Any]) -> dict[Any, dict[str, Any]]:
    """:func:`style` for every series of one figure, with no two alike:
    known names keep their fixed slot; another name whose hashed slot is
    taken in this figure moves to the next free one (so an ablation variant
    never looks like the baseline)."""
    names = list(dict.fromkeys(names))
    out: dict[Any, dict[str, Any]] = {}
    used = {_FIXED[str(n)] for n in names if str(n) in _FIXED}
    for n in names:
        st = style(n)
        if str(n) not in _FIXED:
            i = _slot(str(n))
            for k in range(len(PALETTE)):
                if (i + k) % len(PALETTE) not in used:
                    i = (i + k) % len(PALETTE)
                    break
            used.add(i)
            st.update(color=PALETTE[i], marker=MARKERS[i % len(MARKERS)])
        out[n] = st
    return out


def display(name: Any) -> str:
    """A scheduler or layout as the papers write it (``noop`` -> NOOP);
    variants keep their options (``Amphibian (size_ordering=false)``)."""
    n = str(name)
    base, _, opts = n.partition(":")
    shown = _DISPLAY.get(base, base)
    return f"{shown} ({opts.replace(':', ', ')})" if opts else shown


# --- words and units -----------------------------------------------------

_STAT = {
    "mean": "mean",
    "p50": "median",
    "p90": "90th-percentile",
    "p99": "99th-percentile",
    "p999": "99.9th-percentile",
    "max": "maximum",
    "count": "number of",
}
_LATENCY = {
    "latency_us": "latency",
    "read_latency_us": "read latency",
    "write_latency_us": "write latency",
}
LABELS = {
    "iops": "IOPS",
    "bandwidth_mib_s": "bandwidth (MiB/s)",
    "mib_s": "bandwidth (MiB/s)",
    "waf": "write amplification",
    "gc.invocations": "GC invocations",
    "gc.pages_moved": "pages moved by GC",
    "gc.erases": "block erases",
    "queue_depth": "queue depth",
    "host_sched": "host scheduler",
    "device_sched": "device scheduler",
    "device": "device",
    "workload": "workload",
    "seed": "seed",
    "simulated_s": "simulated time (s)",
    "time_s": "simulated time (s)",
    "tx_s": "transactions per second",
    "flash.conflict_ratio_pct": "requests in conflict (%)",
    "flash.mean_chip_utilization": "mean chip utilisation",
    "flash.interfered_reads": "reads behind a program/erase",
    "flash.flp": "flash-level parallelism (busy dies per busy chip)",
    "flash.slp_chips": "system-level parallelism (busy chips)",
    "flash.slp_channels": "system-level parallelism (busy channels)",
    "flash.channel_conflicts": "channel conflicts",
    "flash.suspensions": "program/erase suspensions",
    "flash.reads": "flash page reads",
    "flash.programs": "flash page programs",
    "flash.mean_interference_wait_us": "mean wait behind a program/erase (µs)",
    "ftl.gc_policy": "GC victim policy",
    "ftl.overprovisioning": "over-provisioning (fraction of physical pages)",
    "ftl.precondition_fill": "precondition fill (fraction)",
    "ftl.gc_threshold": "GC threshold (free-block fraction)",
    "geometry.channels": "channels",
    "geometry.chips_per_channel": "chips per channel",
    "timing.read_us": "page read time (µs)",
    "timing.program_us": "page program time (µs)",
    "timing.erase_us": "block erase time (µs)",
    "variation.wear_pe": "wear (P/E cycles)",
    "host.queue_depth": "queue depth",
    "cache.mib": "DRAM cache (MiB)",
}
_UNITS = [
    ("_mib_s", "MiB/s"),
    ("_mb_s", "MB/s"),
    ("_us", "µs"),
    ("_ns", "ns"),
    ("_ms", "ms"),
    ("_pct", "%"),
    ("_mib", "MiB"),
    ("_s", "s"),
]


def _words(key: str) -> str:
    """A key not in :data:`LABELS` in words: the last dotted part, its unit
    suffix as a unit in brackets, underscores as spaces."""
    last = key.rsplit(".", 1)[-1]
    for suffix, unit in _UNITS:
        if last.endswith(suffix) and len(last) > len(suffix):
            return f"{last[: -len(suffix)].replace('_', ' ')} ({unit})"
    return last.replace("_", " ")


def label(key: str) -> str:
    """A metric, parameter or config key in words with its unit."""
    if key in LABELS:
        return LABELS[key]
    head, _, stat = key.rpartition(".")
    if head in _LATENCY and stat in _STAT:
        return f"{_STAT[stat]} {_LATENCY[head]} (µs)"
    return _words(key)


def quantity(key: str) -> str:
    """:func:`label` without its unit ("mean read latency")."""
    return re.sub(r"\s*\([^)]*\)$", "", label(key))


def normalised(key: str, baseline: Any) -> str:
    """Axis label of ``key`` divided by the ``baseline`` series' value."""
    return f"{quantity(key)}, normalised to {display(baseline)}"


# --- axes ----------------------------------------------------------------


def _plain(v: float, _pos: Any = None) -> str:
    """1, 20, 500, 2,000, 0.05: a log tick as a plain number."""
    if v <= 0 or not math.isfinite(v):
        return ""
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:.6g}"


def log_axis(ax: Any, which: str = "x") -> None:
    """Log scale on ``which`` ("x", "y") with plain-number ticks: 1-2-5 steps
    over up to two decades, 1-3 up to four, one per decade beyond; no minor
    labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    decades = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
    subs = (1.0, 2.0, 5.0) if decades <= 2 else (1.0, 3.0) if decades <= 4 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


def legend_outside(
    ax: Any, title: str | None = None, where: str = "right", gap: float = 0.01, **kw: Any
) -> Any:
    """The legend beside (``right``; ``gap`` in axes widths, larger when a
    twin axis has labels there) or below (``below``) the axes, never over
    the data; None when nothing is labelled."""
    handles, labels = kw.pop("handles", None), kw.pop("labels", None)
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if where == "below":
        ncol = kw.pop("ncol", min(4, len(handles)))
        return ax.legend(
            handles,
            labels,
            title=title,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.2),
            ncol=ncol,
            **kw,
        )
    return ax.legend(
        handles, labels, title=title, loc="upper left", bbox_to_anchor=(1 + gap, 1.0), **kw
    )


OUTLIER_FACTOR = 5.0


def clip_outliers(
    ax: Any,
    values: Iterable[float],
    xs: Sequence[float],
    fmt: str = "{:.3g}",
    floor: float = 0.0,
) -> bool:
    """When a few bars (at most a quarter, at least one) are more than
    :data:`OUTLIER_FACTOR` times the next largest, cut the y axis above the
    others (and above ``floor``, e.g. a reference line at 1) and write each
    cut bar's value at the top, so the small bars stay readable. Returns
    whether the axis was cut."""
    vals = [float(v) for v in values]
    finite = sorted(v for v in vals if math.isfinite(v) and v > 0)
    if len(finite) < 3:
        return False
    most = max(1, len(finite) // 4)
    cut = None
    for k in range(len(finite) - 1, len(finite) - 1 - most, -1):
        if finite[k] >= OUTLIER_FACTOR * finite[k - 1]:
            cut = finite[k - 1]
    if cut is None:
        return False
    cap = max(cut, floor) * 1.6
    ax.set_ylim(0, cap)
    for x, v in zip(xs, vals):
        if math.isfinite(v) and v > cap:
            ax.annotate(
                "⇡ " + fmt.format(v),
                (x, cap),
                xytext=(0, -2),
                textcoords="offset points",
                ha="center",
                va="top",
                fontsize=7,
                fontweight="bold",
                clip_on=False,
            )
    return True


# --- saving --------------------------------------------------------------

# A dotted key (latency_us.mean) or a snake_case identifier (read_latency),
# or a division by a lower-case name ("/ fifo"): not words.
_RAW = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z_]+\.[a-z_]+\b|/ [a-z]")


class RawLabelWarning(UserWarning):
    """A figure has an axis label that is a raw key, not words."""


def raw_labels(fig: Any) -> list[str]:
    """Axis labels of ``fig`` that look like raw keys (see :data:`_RAW`)."""
    bad = []
    for ax in fig.get_axes():
        for text in (ax.get_xlabel(), ax.get_ylabel()):
            if text and _RAW.search(text):
                bad.append(text)
    return bad


_UNREADABLE_TICK = re.compile(r"×|\$|\^|e[+-]\d")
_NORMALISED_TO = re.compile(r"normalised to (\S+)")


def problems(fig: Any) -> list[str]:
    """What keeps ``fig`` from being fit for a paper (the test suite checks
    every figure it makes): raw keys as axis labels, tick labels in
    scientific notation, a legend over an axes' data area, a title and a y
    axis normalised to different baselines."""
    out = [f"raw key as axis label: {t!r}" for t in raw_labels(fig)]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.get_axes():
        if not ax.get_visible():
            continue
        for tick in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
            if _UNREADABLE_TICK.search(tick.get_text()):
                out.append(f"unreadable tick label {tick.get_text()!r}")
        leg = ax.get_legend()
        if leg is not None:
            box, area = leg.get_window_extent(renderer), ax.get_window_extent(renderer)
            w = min(box.x1, area.x1) - max(box.x0, area.x0)
            h = min(box.y1, area.y1) - max(box.y0, area.y0)
            if w > 2 and h > 2:
                out.append(f"legend over the data of {ax.get_title()!r}")
        t, y = _NORMALISED_TO.search(ax.get_title()), _NORMALISED_TO.search(ax.get_ylabel())
        if t and y and t.group(1).strip(",") != y.group(1).strip(","):
            out.append(f"title normalised to {t.group(1)} but y axis to {y.group(1)}")
    return out


def save(fig: Any, stem: str | Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write ``stem.png`` / ``stem.svg`` and close ``fig``; warns
    (:class:`RawLabelWarning`) on a raw-key axis label."""
    bad = raw_labels(fig)
    if bad:
        warnings.warn(f"raw keys as axis labels: {bad}", RawLabelWarning, stacklevel=2)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in formats:
        p = stem.with_name(f"{stem.name}.{ext}")
        fig.savefig(p)
        paths.append(p)
    pyplot().close(fig)
    return paths


def png_bytes(fig: Any) -> bytes:
    """``fig`` as PNG bytes (for HTML reports); closes it."""
    import io

    bad = raw_labels(fig)
    if bad:
        warnings.warn(f"raw keys as axis labels: {bad}", RawLabelWarning, stacklevel=2)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    pyplot().close(fig)
    return buf.getvalue()
