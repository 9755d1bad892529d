"""``flashsched compare``: run one workload under several schedulers (host x
device, optionally on several devices) and tabulate mean/p99 latency and
throughput, normalised to the first scheduler combination of each
(workload, device) group; optionally plot latency CDFs.

Workloads: ``--trace`` (repeatable), ``--synthetic SPEC``, ``--profile
NAMES`` (Amphibian Table III synthetic profiles, comma list or ``all``) with
``--profile-args``, or ``--postmark SPEC`` (closed loop; throughput is also
given in transactions per second).

``--real TARGET`` also replays every workload with every host scheduler on a
real file or block device (``flashsched replay``, the host section of the
first ``--device``), as rows of kind ``real``, and prints simulated and real
side by side (``sim_vs_real``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched import api, realdev
from flashsched.exceptions import ConfigError
from flashsched.results import RunResult

PROFILES = ["fin1", "fin2", "web1", "web2", "web3", "proj_2", "prxy_1", "usr_1"]


@dataclass(frozen=True)
class Workload:
    """One workload to compare on: a label plus the run() keyword arguments."""

    label: str
    trace: str | None = None
    synthetic: str | None = None


@dataclass(frozen=True)
class RealTarget:
    """A real file or block device each workload is also replayed on;
    ``options`` are :func:`flashsched.replay` keywords (offset, size,
    allow_write, verify, prefill, backend)."""

    path: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        return f"real:{self.path}"


# run() keywords a replay takes as well (the rest only make sense simulated).
_REPLAY_KWARGS = {"overrides", "queue_depth", "format", "intensity", "limit", "seed"}
_REPLAY_KWARGS |= {"skip_bad", "time_order"}
# What real_options may set (the target's side of flashsched.replay).
REAL_OPTIONS = {"offset", "size", "allow_write", "verify", "prefill", "align", "backend"}
FIRMWARE = "device firmware"


def _split(s: str | Sequence[str] | None) -> list[str]:
    if s is None:
        return []
    items = [s] if isinstance(s, str) else list(s)
    return [x.strip() for item in items for x in item.split(",") if x.strip()]


def workloads(
    trace: str | Sequence[str] | None = None,
    synthetic: str | None = None,
    profile: str | Sequence[str] | None = None,
    profile_args: str = "",
    postmark: str | None = None,
) -> list[Workload]:
    """Expand the workload options into a list of workloads."""
    out = [
        Workload(Path(t).name, trace=str(t))
        for t in ([trace] if isinstance(trace, str) else trace or [])
    ]
    if synthetic:
        out.append(Workload(synthetic, synthetic=synthetic))
    names = _split(profile)
    if names == ["all"]:
        names = PROFILES
    for n in names:
        spec = f"profile:{n}" + (f",{profile_args}" if profile_args else "")
        out.append(Workload(n, synthetic=spec))
    if postmark is not None:
        out.append(Workload("postmark", synthetic=f"postmark:{postmark}"))
    if not out:
        raise ValueError("give a workload: trace, synthetic, profile or postmark")
    return out


def _variant(hs: str) -> tuple[str, list[str]]:
    """``amphibian:gc_aware=false:size_ordering=false`` -> the scheduler name
    and overrides of its ``[host.<name>]`` section (ablation variants)."""
    name, *kvs = hs.split(":")
    return name, [f"host.{name}.{kv}" for kv in kvs if kv]


def _transactions(summary: dict[str, Any]) -> float | None:
    m = re.search(r"transactions=(\d+)", str(summary.get("workload", "")))
    return float(m.group(1)) if m else None


def _row(wl: Workload, device: str, hs: str, ds: str, s: dict[str, Any]) -> dict[str, Any]:
    sim_s = s["simulated_s"]
    tx = _transactions(s)
    return {
        "kind": "real" if "replay" in s else "sim",
        "workload": wl.label,
        "device": device,
        "host_sched": hs,
        "device_sched": ds,
        "requests": s["requests"],
        "mean_us": s["latency_us"]["mean"],
        "p99_us": s["latency_us"]["p99"],
        "read_mean_us": s["read_latency_us"]["mean"],
        "write_mean_us": s["write_latency_us"]["mean"],
        "iops": s["iops"],
        "mb_s": s["bandwidth_mib_s"] * 1.048576,
        "tx_s": tx / sim_s if tx and sim_s > 0 else np.nan,
        # GC is not observable on a real device.
        "gc": s["gc"]["invocations"] if s.get("gc") else np.nan,
    }


def _normalise(df: pd.DataFrame) -> pd.DataFrame:
    keys = ["workload", "device"]
    for col, src in [("norm_mean", "mean_us"), ("norm_p99", "p99_us"), ("norm_tput", "mb_s")]:
        df[col] = df[src] / df.groupby(keys, sort=False)[src].transform("first")
    return df


def run_compare(
    wls: list[Workload],
    host_scheds: Sequence[str],
    device_scheds: Sequence[str | None],
    devices: Sequence[str],
    *,
    keep_latencies: bool = False,
    real: Sequence[RealTarget] = (),
    **run_kwargs: Any,
) -> tuple[pd.DataFrame, dict[tuple[str, str, str, str], np.ndarray]]:
    """Run the cross product (and each workload x host scheduler on every
    ``real`` target); returns the table and (optionally) latencies."""
    rows: list[dict[str, Any]] = []
    lats: dict[tuple[str, str, str, str], np.ndarray] = {}

    def keep(key: tuple[str, str, str, str], res: RunResult) -> None:
        if keep_latencies:
            req = res.requests
            lats[key] = req.loc[req["op"] != "trim", "latency_us"].to_numpy()

    for wl in wls:
        for dev in devices:
            for ds in device_scheds:
                for hs in host_scheds:
                    name, extra = _variant(hs)
                    kw = dict(run_kwargs)
                    kw["overrides"] = list(kw.get("overrides") or []) + extra
                    res = api.run(
                        trace=wl.trace,
                        synthetic=wl.synthetic,
                        device=dev,
                        host_sched=name,
                        device_sched=ds,
                        keep_records=keep_latencies,
                        **kw,
                    )
                    dsn = ds or res.summary["device_scheduler"]
                    rows.append(_row(wl, dev, hs, dsn, res.summary))
                    keep((wl.label, dev, hs, dsn), res)
        for tgt in real:
            for hs in host_scheds:
                name, extra = _variant(hs)
                kw = {k: v for k, v in run_kwargs.items() if k in _REPLAY_KWARGS}
                kw["overrides"] = list(kw.get("overrides") or []) + extra
                kw.update(tgt.options)
                res = realdev.replay(
                    target=tgt.path,
                    trace=wl.trace,
                    synthetic=wl.synthetic,
                    device=devices[0],
                    host_sched=name,
                    keep_records=keep_latencies,
                    **kw,
                )
                rows.append(_row(wl, tgt.label, hs, FIRMWARE, res.summary))
                keep((wl.label, tgt.label, hs, FIRMWARE), res)
    return _normalise(pd.DataFrame(rows)), lats


def sim_vs_real(df: pd.DataFrame) -> pd.DataFrame:
    """Simulated and real rows of the same workload and host scheduler side
    by side, with real/simulated ratios (empty without real rows)."""
    sim, real = df[df["kind"] == "sim"], df[df["kind"] == "real"]
    keys = ["workload", "host_sched"]
    cols = ["device", "device_sched", "mean_us", "p99_us", "iops"]
    m = sim[keys + cols].merge(real[keys + cols], on=keys, suffixes=("_sim", "_real"))
    for c in ("mean_us", "p99_us", "iops"):
        m[f"{c}_real/sim"] = m[f"{c}_real"] / m[f"{c}_sim"]
    return m.drop(columns=["device_sched_real"])


def compare(
    *,
    trace: str | Sequence[str] | None = None,
    synthetic: str | None = None,
    profile: str | Sequence[str] | None = None,
    profile_args: str = "",
    postmark: str | None = None,
    host_sched: str | Sequence[str] = "noop",
    device_sched: str | Sequence[str] | None = None,
    device: str | Sequence[str] = "default",
    real: str | Sequence[str] | None = None,
    real_options: dict[str, Any] | None = None,
    **run_kwargs: Any,
) -> pd.DataFrame:
    """Compare schedulers; one row per (workload, device, device_sched,
    host_sched) with latency (us), throughput and values normalised to the
    first combination of each (workload, device). ``run_kwargs`` go to
    :func:`flashsched.run` (overrides, queue_depth, intensity, limit, seed, format).

    ``real`` (a path or several) also replays each workload with each host
    scheduler on that file or block device (rows of ``kind`` ``real``,
    device ``real:PATH``); ``real_options`` are :func:`flashsched.replay`
    keywords such as ``size``, ``offset``, ``allow_write``, ``verify``.
    :func:`sim_vs_real` puts the two kinds side by side."""
    wls = workloads(trace, synthetic, profile, profile_args, postmark)
    ds: list[str | None] = list(_split(device_sched)) or [None]
    targets = _real_targets(real, real_options)
    df, _ = run_compare(wls, _split(host_sched), ds, _split(device), real=targets, **run_kwargs)
    return df


def _real_targets(
    paths: str | Sequence[str] | None, options: dict[str, Any] | None
) -> list[RealTarget]:
    items = [paths] if isinstance(paths, str) else list(paths or [])
    bad = sorted(set(options or {}) - REAL_OPTIONS)
    if bad:
        raise ConfigError(f"real_options: unknown {bad} (known: {', '.join(sorted(REAL_OPTIONS))})")
    opts = tuple(sorted((options or {}).items()))
    return [RealTarget(str(p), opts) for p in items]


def plot_cdf(lats: dict[tuple[str, str, str, str], np.ndarray], out: str | Path) -> Path:
    """One CDF panel per (workload, device), one line per scheduler combination."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = sorted(
        {(k[0], k[1]) for k in lats},
        key=lambda g: list(lats).index(next(k for k in lats if k[:2] == g)),
    )
    cols = min(4, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, g in zip(axes.flat, groups):
        for key, v in lats.items():
            if key[:2] != g or len(v) == 0:
                continue
            x = np.sort(v)
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{key[2]}/{key[3]}")
        ax.set_xscale("log")
        ax.set_title(f"{g[0]} on {g[1]}", fontsize=9)
        ax.set_xlabel("response time (us)")
        ax.set_ylabel("fraction of requests")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(groups) :]:
        ax.set_visible(False)
    fig.tight_layout()
    path = Path(out)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _fmt(df: pd.DataFrame) -> str:
    cols = [
        "kind",
        "workload",
        "device",
        "host_sched",
        "device_sched",
        "requests",
        "mean_us",
        "p99_us",
        "iops",
        "mb_s",
        "tx_s",
        "norm_mean",
        "norm_p99",
        "norm_tput",
    ]
    if df["tx_s"].isna().all():
        cols.remove("tx_s")
    if (df["kind"] == "sim").all():
        cols.remove("kind")
    return _table(df[cols])


def _table(df: pd.DataFrame) -> str:
    return df.to_string(
        index=False, float_format=lambda v: f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
    )


def cmd_compare(args: argparse.Namespace) -> int:
    wls = workloads(args.trace, args.synthetic, args.profile, args.profile_args, args.postmark)
    ds: list[str | None] = list(_split(args.device_sched)) or [None]
    df, lats = run_compare(
        wls,
        _split(args.host_sched),
        ds,
        _split(args.device),
        keep_latencies=bool(args.plot),
        overrides=args.overrides,
        queue_depth=args.queue_depth,
        format=args.format,
        intensity=args.intensity,
        limit=args.limit,
        seed=args.seed,
        real=_real_targets(
            args.real,
            {
                "offset": args.real_offset,
                "size": args.real_size,
                "allow_write": args.allow_write,
                "verify": args.verify,
                "backend": args.real_backend,
            },
        ),
    )
    print(_fmt(df))
    if args.real:
        print("\nsimulated vs real (same workload and host scheduler):")
        print(_table(sim_vs_real(df)))
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.plot:
        print(f"CDF plot written to {plot_cdf(lats, args.plot)}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` sub-command."""
    p = sub.add_parser("compare", help="compare host/device schedulers on a workload")
    p.add_argument("--trace", action="append", help="trace file (repeatable)")
    p.add_argument("--synthetic", metavar="SPEC", help="synthetic workload spec")
    p.add_argument(
        "--profile", metavar="NAMES", help="Table III profiles: comma list or 'all' (synthetic)"
    )
    p.add_argument(
        "--profile-args", default="", metavar="K=V,...", help="e.g. scale=10,burst=4,n=50000"
    )
    p.add_argument(
        "--postmark", metavar="SPEC", help="Postmark-like closed loop, e.g. tx=2000,qd=16"
    )
    p.add_argument("--format", default="auto", help="trace format")
    p.add_argument(
        "--intensity", type=float, default=1.0, help="arrival-rate multiplier for traces"
    )
    p.add_argument("--limit", type=int, help="stop each run after N requests")
    p.add_argument("--device", default="default", help="preset(s) or TOML file(s), comma list")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument(
        "--host-sched",
        default="noop",
        help="comma list, the first is the baseline; "
        "NAME:key=value:... sets [host.NAME] keys (ablations)",
    )
    p.add_argument("--device-sched", help="comma list of flash transaction schedulers")
    p.add_argument("--queue-depth", type=int, help="device queue depth")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--csv", metavar="OUT", help="also write the table as CSV")
    r = p.add_argument_group("real device (flashsched replay; see docs/replay.md)")
    r.add_argument(
        "--real", action="append", metavar="TARGET", help="also replay on this file/block device"
    )
    r.add_argument("--real-offset", default="0", help="first byte of the window on TARGET")
    r.add_argument("--real-size", default="0", help="window size (needed to create a file)")
    r.add_argument("--allow-write", action="store_true", help="permit writes on TARGET")
    r.add_argument("--verify", action="store_true", help="check every real read (needs writes)")
    r.add_argument("--real-backend", choices=["auto", "uring", "threads"], default="auto")
    p.add_argument("--plot", metavar="OUT.png", help="write latency CDFs (matplotlib)")
    p.set_defaults(func=cmd_compare)
