"""``serial-array``: B. Kim, J. Kim, S. H. Noh, "Managing Array of SSDs When
the Storage Device is No Longer the Performance Bottleneck", HotStorage 2017
(/work/shared/papers/serial-ssd-array.md), re-made from ``flashsched.run_array``
runs at the paper's operating point (docs/arrays.md has the model and the
capacity scaling).

Operating point (§3.1): 4 SSDs; the fio workload ages with random 256 KiB
writes (QD 32) over 75 % of the SSDs' logical space (1200 of 1600 GB) for 15
paper minutes, then writes 64 KiB randomly (QD 32) over 1/6 of that span
(200 GB) for 30 paper minutes (time-based, as fio ran it). SSDs:
``flashsched.array.PAPER_SSD``, the Intel 750's 900 MB/s and the paper's
block size (256 pages of 16 KiB), capacity scaled by fewer blocks (4 GiB raw,
≈ 1/100 of 400 GB), so one paper second ≈ 10 ms simulated and statistics use
10 ms bins. Both layouts offer the same usable capacity, 80 % of the SSDs'
logical space (``volume=0.8``; the serial array needs spare room for xGC,
and RAID-0 gets the same 20 % as unused space). The serial array runs the
paper's xGC (``victim=retired``: the front-end that just retired is cleaned,
Fig. 5(b)) with copies to 2 destinations at once.

Experiments (array runs, cached by parameter hash in ``OUT/array_runs``):

1. ``fio`` (§3.3, Figs. 3 and 7): RAID-0 (64 KiB chunks, the paper's LVM
   setting) and serial, locally attached, behind 10 GbE at the practical
   peak (``10gbe,practical``: 900 MB/s of data, the paper's §3.2 number)
   and behind 10 GbE at line rate; 5 seeds (the paper averages 5 runs).
2. ``capacity``: the same behind practical 10 GbE at capacity use 0.30,
   0.50, 0.60, 0.75 (one seed): where the serial array stops holding the
   link and why (xGC valid fraction, copy rate, stalls).
3. ``policy``: the serial array at the operating point, local, with each
   xGC victim policy (``retired``, ``fifo`` = oldest back-end, ``greedy``)
   and 1 or 2 destinations; one run with per-SSD speed factors (commercial
   SSDs differ: Fig. 7's steps between front-ends); one seed.
4. ``network`` (§3.2, Fig. 6): 10 clients each writing its own file
   sequentially in 1 MiB requests (QD 4 each) over 6.25 % of the SSDs'
   logical space (the paper's 10 × 10 GB of 1.6 TB), RAID-0 vs serial behind
   practical 10 GbE, 10 GbE at line rate, 25 and 40 GbE, and no link.

``--quick`` halves the paper minutes, runs one seed, and drops the line-rate
fio runs, the capacity points 0.50/0.60 and the policy experiment's variants
except ``fifo``.

How each published number is measured (MB/s of completed client writes per
bin; "full bins" lie entirely inside one workload phase, up to the last
client completion):

* ``raid0_peak``: RAID-0, local, mean over the aging phase's full bins before
  the first internal GC in any SSD.
* ``raid0_ideal``: 4 × one SSD's sequential write bandwidth, measured as the
  serial array's mean (local) before its first front-end rotation.
* ``raid0_floor``: RAID-0, local, p1 of the full bins after internal GC has
  started (the paper: the dip goes below the 1.25 GB/s 10 GbE line).
* ``raid0_net`` / ``serial_net``: FTP workload behind practical 10 GbE, mean
  over the run's full bins. The link's efficiency is calibrated to the
  paper's 900 MB/s, so ``raid0_net`` checks the calibration, not the model.
* ``serial_steady``: the serial array behind practical 10 GbE at the
  operating point: p1 / mean of the measurement bins (Fig. 7 is flat: 1).
* ``raid0_dips_net``: RAID-0 behind practical 10 GbE at the operating point:
  p1 / mean of the measurement bins (the paper's motivation: GC makes the
  array dip below the network).
* ``serial_internal_gc``: internal GC invocations summed over every SSD of
  every serial run (the runs tables also have ``front_gc_violations``).
* ``mapping_pct``: the serial layout's mapping memory over the SSDs'
  logical capacity, for the paper's 4 KiB mapping unit.

Every runs table has the array-level accounting: user and flash bytes
written, internal-GC and xGC bytes, array WAF, erases, usable capacity,
stalls (periods and time writes waited for xGC) and the xGC keep-up check
(v/(1−v) ≤ copy rate / fill rate per job); ``accounting.csv`` puts them
next to each layout's bandwidth mean/p1/p99.

The operating point (layouts, links, seeds, the scaled SSD) is in
``serial_array_setup.py``, the published claims in
``serial_array_claims.py``, the figures in ``serial_array_figures.py``;
this module runs the arrays and measures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from flashsched.reproduce import array_runs as AR
from flashsched.reproduce import serial_array_figures as SF
from flashsched.reproduce.base import (
    Context,
    Feature,
    Figure,
    Measured,
    Reproduction,
    Results,
)
from flashsched.reproduce.serial_array_claims import CLAIMS
from flashsched.reproduce.serial_array_setup import (
    CAPACITY_POINTS,
    CAPACITY_USE,
    FIO_LINKS,
    FULL_SEEDS,
    LAYOUTS,
    MB_PER_MIB,
    MIB,
    NET10,
    NET_LINKS,
    POLICIES,
    PRACTICAL,
    QUICK_CAPACITY_POINTS,
    QUICK_FIO_LINKS,
    QUICK_NET_LINKS,
    QUICK_POLICIES,
    QUICK_SEEDS,
    SPEEDS,
    VOLUME,
    bin_ms,
    device,
    link_name,
    probe,
    res_bin,
)
from flashsched.sweep.store import atomic_write_text


def _arrays_available() -> bool:
    import flashsched

    return callable(getattr(flashsched, "run_array", None))


def _minutes(ctx: Context) -> tuple[float, float]:
    return (7.5, 15.0) if ctx.quick else (15.0, 30.0)


def runs(ctx: Context) -> dict[str, list[AR.ArrayRun]]:
    """Every array run of every experiment."""
    from flashsched.array import ftp_writers, timed_fio_phases

    ov = tuple(device(ctx))
    logical = probe(list(ov))["ssd_logical_bytes"]
    aging, measure = _minutes(ctx)

    def phases(use: float) -> tuple[str, ...]:
        return tuple(timed_fio_phases(logical, 4, use, aging, measure))

    writers = ftp_writers(logical, 4)
    seeds = QUICK_SEEDS if ctx.quick else FULL_SEEDS
    b = bin_ms(ctx)

    def mk(
        name: str, layout: str, link: str | None, seed: int, extra: tuple = (), **wl: Any
    ) -> AR.ArrayRun:
        labels = (("layout", name), ("link", link_name(link)), ("seed", seed), *extra)
        return AR.ArrayRun(layout, ov, link=link, bin_ms=b, seed=seed, labels=labels, **wl)

    fio_links = QUICK_FIO_LINKS if ctx.quick else FIO_LINKS
    net_links = QUICK_NET_LINKS if ctx.quick else NET_LINKS
    points = QUICK_CAPACITY_POINTS if ctx.quick else CAPACITY_POINTS
    pols = {k: v for k, v in POLICIES.items() if not ctx.quick or k in QUICK_POLICIES}
    use = (("capacity_use", CAPACITY_USE),)
    policy = [
        mk(
            "serial",
            f"{lay},volume={VOLUME}",
            None,
            42,
            (("policy", name), *use),
            phases=phases(CAPACITY_USE),
        )
        for name, lay in pols.items()
    ]
    policy.append(
        AR.ArrayRun(
            LAYOUTS["serial"],
            ov,
            bin_ms=b,
            seed=42,
            phases=phases(CAPACITY_USE),
            ssd_speeds=SPEEDS,
            labels=(
                ("layout", "serial"),
                ("link", "local"),
                ("seed", 42),
                ("policy", "retired, 2 dests, SSD speeds " + " ".join(f"{x:g}" for x in SPEEDS)),
                *use,
            ),
        )
    )
    return {
        "fio": [
            mk(lay, LAYOUTS[lay], link, s, use, phases=phases(CAPACITY_USE))
            for link in fio_links
            for lay in LAYOUTS
            for s in seeds
        ],
        "capacity": [
            mk(lay, LAYOUTS[lay], PRACTICAL, 42, (("capacity_use", u),), phases=phases(u))
            for u in points
            for lay in LAYOUTS
        ],
        "policy": policy,
        "network": [
            mk(lay, LAYOUTS[lay], link, s, writers=writers)
            for link in net_links
            for lay in LAYOUTS
            for s in seeds
        ],
    }


# ---- per-run statistics ---------------------------------------------------


def full_bins(o: AR.RunOutput) -> pd.Series:
    """Phase index of each bin lying entirely inside one phase (while clients
    are active), else -1."""
    t = o.bandwidth["time_s"].to_numpy()
    starts = list(o.summary.get("phase_starts_s") or [0.0])
    ends = [*starts[1:], o.summary["simulated_s"]]
    out = np.full(len(t), -1)
    for i, (a, e) in enumerate(zip(starts, ends)):
        out[(t >= a) & (t + o.bin_s <= e)] = i
    return pd.Series(out, index=o.bandwidth.index)


def first_gc_bin(o: AR.RunOutput) -> int | None:
    per_bin = o.gc.groupby("time_s")["gc_in_bin"].sum().to_numpy()
    hit = np.flatnonzero(per_bin > 0)
    return int(hit[0]) if len(hit) else None


def first_rotation_bin(o: AR.RunOutput) -> int | None:
    front = o.bandwidth["front"].to_numpy()
    hit = np.flatnonzero(front != front[0])
    return int(hit[0]) if len(hit) else None


def _q(v: pd.Series, q: float) -> float:
    return float(v.quantile(q)) if len(v) else float("nan")


def accounting_row(s: dict[str, Any]) -> dict[str, Any]:
    """The array-level accounting of one run's summary, in table units."""
    a = s["accounting"]
    gib = float(1 << 30)
    row = {
        "usable_gib": a["usable_bytes"] / gib,
        "usable_fraction": a["usable_fraction"],
        "user_gib": a["user_bytes"] / gib,
        "flash_gib": a["flash_bytes_written"] / gib,
        "internal_gc_gib": a["internal_gc_bytes"] / gib,
        "xgc_gib": a["xgc_bytes"] / gib,
        "array_waf": a["array_waf"],
        "erases": a["erases"],
        "internal_gc": a["internal_gc_invocations"],
        "gc_pages_moved": sum(x["gc_pages_moved"] for x in s["per_ssd"]),
        "stall_events": a["stall_events"],
        "stall_ms": a["stall_ms"],
        "warnings": " | ".join(s.get("warnings") or []),
    }
    if ser := s.get("serial"):
        k = ser["keep_up"]
        row |= {
            "xgc_jobs": k["jobs"],
            "xgc_jobs_behind": k["jobs_behind"],
            "xgc_max_valid": k["max_valid_fraction"],
            "xgc_needed_ratio": k["max_needed_ratio"],
            "xgc_copy_mib_s": k["copy_units_per_s"] * ser["unit_bytes"] / MIB,
            "front_fill_mib_s": k["fill_units_per_s"] * ser["unit_bytes"] / MIB,
        }
    return row


def run_row(exp: str, o: AR.RunOutput) -> dict[str, Any]:
    """One row of an experiment's runs table."""
    bw, s = o.bandwidth, o.summary
    ph = full_bins(o)
    last = bw.loc[ph == ph.max(), "array_mib_s"] if (ph >= 0).any() else bw["array_mib_s"][:0]
    ssd_w = bw[[c for c in bw if c.endswith("_write_mib_s")]].sum(axis=1)
    row: dict[str, Any] = dict(o.run.labels) | {
        "key": o.key,
        "cached": o.cached,
        "mean_mib_s": float(last.mean()),
        "p1_mib_s": _q(last, 0.01),
        "p99_mib_s": _q(last, 0.99),
        "storage_mean_mib_s": float(ssd_w[last.index].mean()),
        "gc_per_ssd": " ".join(str(x["gc_invocations"]) for x in s["per_ssd"]),
        "front_gc_violations": int(s.get("front_gc_violations") or 0),
        "simulated_s": float(s["simulated_s"]),
    }
    row |= accounting_row(s)
    g = first_gc_bin(o)
    row["first_gc_s"] = None if g is None else g * o.bin_s
    if exp != "network":
        aging = bw.loc[(ph == 0) & (bw.index < (g if g is not None else len(bw))), "array_mib_s"]
        row["clean_mean_mib_s"] = float(aging.mean()) if len(aging) else float("nan")
        after = bw.loc[(ph >= 0) & (bw.index > (g if g is not None else len(bw))), "array_mib_s"]
        row["after_gc_p1_mib_s"] = _q(after, 0.01)
    if ser := s.get("serial"):
        r = first_rotation_bin(o)
        one = bw.loc[(ph == 0) & (bw.index < (r if r is not None else len(bw))), "array_mib_s"]
        row |= {
            "one_ssd_mib_s": float(one.mean()) if len(one) else float("nan"),
            "rotations": ser["rotations"],
            "xgc_units_copied": ser["xgc_units_copied"],
            "trims": ser["trims"],
            "mapping_pct": 100 * ser["mapping_fraction"],
            "max_valid_pages_after_trim": s.get("max_valid_pages_after_trim"),
        }
    return row


def outputs(ctx: Context) -> dict[str, list[AR.RunOutput]]:
    """The (cached) outputs of every run; raises if a run has not finished."""
    return {exp: [AR.load(ctx.out, r) for r in rs] for exp, rs in runs(ctx).items()}


def run(ctx: Context, workers: int | None) -> dict[str, pd.DataFrame]:
    """The framework's ``run`` hook: simulate (or load) every array run and
    write one runs table per experiment (``EXP/runs.csv``)."""
    outs = AR.run_all(runs(ctx), ctx.out, workers)
    tables = {}
    for exp, os_ in outs.items():
        df = pd.DataFrame([run_row(exp, o) for o in os_])
        atomic_write_text(ctx.out / exp / "runs.csv", df.to_csv(index=False))
        tables[exp] = df
    return tables


# ---- our number for each claim ---------------------------------------------


def _sel(df: pd.DataFrame, layout: str, link: str) -> pd.DataFrame:
    return df[(df["layout"] == layout) & (df["link"] == link)]


def _mean(df: pd.DataFrame, col: str) -> float:
    v = df[col].dropna()
    return float(v.mean()) if len(v) else float("nan")


def _seeds(df: pd.DataFrame) -> str:
    return f"{len(df)} seed{'s' if len(df) != 1 else ''}"


def _fio_wl(ctx: Context, link: str) -> str:
    aging, measure = _minutes(ctx)
    return (
        f"fio at 75 % capacity use, {aging:g} + {measure:g} paper min, 4 × scaled Intel 750 "
        f"(4 MiB blocks), usable {VOLUME:g} for both layouts, {link}"
    )


def _mb(df: pd.DataFrame, col: str) -> float:
    """Mean over seeds of a MiB/s column, in the paper's decimal MB/s."""
    return _mean(df, col) * MB_PER_MIB


def _ratio(df: pd.DataFrame) -> float:
    return _mean(df, "p1_mib_s") / _mean(df, "mean_mib_s")


def measure(res: Results, ctx: Context) -> dict[str, Measured]:
    fio, net = res.table("fio"), res.table("network")
    out: dict[str, Measured] = {}
    r0 = _sel(fio, "RAID-0", "local")
    v = _mb(r0, "clean_mean_mib_s") / 1000
    out["raid0_peak"] = Measured(
        v,
        _fio_wl(ctx, "local"),
        f"mean of aging bins before the first internal GC, {_seeds(r0)}"
        if not np.isnan(v)
        else "unmeasured: RAID-0 ran internal GC from the first bin",
    )
    one = _sel(fio, "serial", "local")
    v = 4 * _mb(one, "one_ssd_mib_s") / 1000
    out["raid0_ideal"] = Measured(
        v,
        "4 × one scaled SSD writing sequentially (serial array before its first rotation)",
        f"one SSD: {_mb(one, 'one_ssd_mib_s'):.0f} MB/s, {_seeds(one)}"
        if not np.isnan(v)
        else "unmeasured: the serial front-end rotated in the first bin",
    )
    v = _mb(r0, "after_gc_p1_mib_s") / 1000
    low = r0["after_gc_p1_mib_s"].min() * MB_PER_MIB / 1000
    out["raid0_floor"] = Measured(
        v,
        _fio_wl(ctx, "local"),
        f"p1 of bins after internal GC started; min {low:.2f} GB/s; mean in measurement "
        f"{_mb(r0, 'mean_mib_s') / 1000:.2f} GB/s; array WAF {_mean(r0, 'array_waf'):.2f}"
        if not np.isnan(v)
        else "unmeasured: RAID-0 ran no internal GC in this run",
    )
    for cid, lay in (("raid0_net", "RAID-0"), ("serial_net", "serial")):
        sel = _sel(net, lay, NET10)
        line = _sel(net, lay, "10 GbE line")
        at_line = f"; at line rate {_mb(line, 'mean_mib_s'):.0f} MB/s" if len(line) else ""
        out[cid] = Measured(
            _mb(sel, "mean_mib_s"),
            "10 clients × sequential 1 MiB writes (QD 4 each) over 6.25 % of capacity, "
            "behind 10 GbE at the practical peak (900 MB/s of data)",
            f"p1 {_mb(sel, 'p1_mib_s'):.0f}, p99 {_mb(sel, 'p99_mib_s'):.0f} MB/s per "
            f"{res_bin(ctx)} bin, {_seeds(sel)}{at_line}"
            + ("; the link efficiency is calibrated to this number" if lay == "RAID-0" else ""),
        )
    for cid, lay in (("serial_steady", "serial"), ("raid0_dips_net", "RAID-0")):
        sel = _sel(fio, lay, NET10)
        out[cid] = Measured(
            _ratio(sel),
            _fio_wl(ctx, "behind 10 GbE (practical, 900 MB/s)"),
            f"mean {_mb(sel, 'mean_mib_s'):.0f}, p1 {_mb(sel, 'p1_mib_s'):.0f} MB/s; array WAF "
            f"{_mean(sel, 'array_waf'):.2f}; stalls {_mean(sel, 'stall_events'):.1f} "
            f"({_mean(sel, 'stall_ms'):.0f} ms); internal GC {_mean(sel, 'internal_gc'):.0f}; "
            f"{_seeds(sel)}"
            + (f"; {_where_it_stops(res.table('capacity'))}" if lay == "serial" else ""),
        )
    ser = pd.concat([res.table(e)[res.table(e)["layout"] == "serial"] for e in res.tables])
    out["serial_internal_gc"] = Measured(
        float(ser["internal_gc"].sum()),
        f"all {len(ser)} serial runs (every experiment)",
        f"front-end GC {int(ser['front_gc_violations'].sum())}; RAID-0 on the fio "
        f"runs: {int(fio.loc[fio['layout'] == 'RAID-0', 'internal_gc'].mean())} per run",
    )
    m4 = probe(device(ctx, page_size=4096), LAYOUTS["serial"])["serial"]
    out["mapping_pct"] = Measured(
        100 * m4["mapping_fraction"],
        "serial layout, 4 KiB unit (4 KiB-page SSDs), over the SSDs' logical capacity",
        f"{m4['mapping_bytes'] / 2**20:.1f} MiB: 4-byte forward map over the volume "
        f"({VOLUME:g} of the SSDs' logical space), 4-byte inverse map over every slot, "
        f"segment counts; with the scaled SSD's 16 KiB unit "
        f"{_mean(fio[fio['layout'] == 'serial'], 'mapping_pct'):.3f} %",
    )
    return out


def _where_it_stops(cap: pd.DataFrame) -> str:
    """The capacity experiment in words: up to which capacity use the serial
    array holds the link (p1 ≥ 0.9 × mean) and why it stops (xGC numbers)."""
    ser = cap[cap["layout"] == "serial"].sort_values("capacity_use")
    held = ser[ser["p1_mib_s"] >= 0.9 * ser["mean_mib_s"]]
    lost = ser[ser["p1_mib_s"] < 0.9 * ser["mean_mib_s"]]
    if not len(lost):
        return f"holds the link at every capacity use tried (up to {ser['capacity_use'].max():g})"
    r = lost.iloc[0]
    upto = f"up to {held['capacity_use'].max():g}" if len(held) else "at none"
    return (
        f"capacity experiment: holds the link {upto}, not at {r['capacity_use']:g}: xGC victims "
        f"up to {100 * r['xgc_max_valid']:.0f} % valid need copy/fill ≥ "
        f"{r['xgc_needed_ratio']:.1f}, xGC copies {r['xgc_copy_mib_s']:.0f} MiB/s vs the "
        f"front-end's {r['front_fill_mib_s']:.0f}; writes waited {r['stall_events']:.0f} times "
        f"({r['stall_ms'] / 1000:.1f} s)"
    )


def _blank(v: Any) -> Any:
    """A key cell: missing (an experiment without that key) as ''."""
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else v


INT_COLS = ("erases", "internal_gc", "stall_events", "xgc_jobs", "xgc_jobs_behind")
ACCOUNTING_COLS = [
    "mean_mb_s",
    "p1_mb_s",
    "p99_mb_s",
    "usable_gib",
    "user_gib",
    "flash_gib",
    "internal_gc_gib",
    "xgc_gib",
    "array_waf",
    "erases",
    "internal_gc",
    "stall_events",
    "stall_ms",
]


def tables(res: Results, ctx: Context) -> dict[str, pd.DataFrame]:
    """``accounting``: every layout × experiment × link (× capacity use,
    policy) with bandwidth in MB/s and the array-level accounting, mean over
    seeds; ``keep_up``: the serial runs' xGC keep-up check."""
    rows = []
    keep = []
    for exp in res.tables:
        df = res.table(exp).copy()
        for c in ("mean", "p1", "p99"):
            df[f"{c}_mb_s"] = df[f"{c}_mib_s"] * MB_PER_MIB
        keys = [k for k in ("layout", "link", "capacity_use", "policy") if k in df]
        for k in keys:
            df[k] = [_blank(v) for v in df[k]]
        g = df.groupby(keys, sort=False)
        acc = g[ACCOUNTING_COLS].mean().reset_index()
        acc.insert(0, "experiment", exp)
        rows.append(acc)
        ser = df[df["layout"] == "serial"]
        if len(ser) and "xgc_jobs" in ser:
            k = ser.groupby(keys, sort=False)[
                [
                    "xgc_jobs",
                    "xgc_jobs_behind",
                    "xgc_max_valid",
                    "xgc_needed_ratio",
                    "xgc_copy_mib_s",
                    "front_fill_mib_s",
                    "stall_events",
                    "stall_ms",
                ]
            ].mean()
            k = k.reset_index()
            k.insert(0, "experiment", exp)
            keep.append(k)

    def tidy(parts: list[pd.DataFrame]) -> pd.DataFrame:
        df = pd.concat(parts, ignore_index=True).round(3)
        first = ["experiment", "layout", "link", "capacity_use", "policy"]
        df = df[[c for c in first if c in df] + [c for c in df if c not in first]]
        whole = [c for c in df if c.endswith(("_mb_s", "_mib_s", "_ms")) or c in INT_COLS]
        df[whole] = df[whole].round(0).astype("Int64")
        for k in ("policy", "capacity_use"):
            if k in df:
                df[k] = [_blank(v) for v in df[k]]
        return df

    out = {"accounting": tidy(rows)}
    if keep:
        out["keep_up"] = tidy(keep)
    return out


def make_figures(res: Results, ctx: Context) -> list[Figure]:
    """The figures, from the tables and the runs' outputs."""
    return SF.figures(res, ctx, outputs(ctx))


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    """No sweeps: the array runs come from :func:`run`."""
    return {}


REPRODUCTION = Reproduction(
    name="serial-array",
    title="Serial SSD array with external GC (Kim, Kim, Noh, HotStorage 2017)",
    citation="B. Kim, J. Kim, S. H. Noh, 'Managing Array of SSDs When the Storage Device is "
    "No Longer the Performance Bottleneck', HotStorage 2017",
    claims=CLAIMS,
    experiments=experiments,
    measure=measure,
    figures=make_figures,
    tables=tables,
    features=(
        Feature(
            "SSD arrays in the Python API (flashsched.run_array: RAID-0, serial + "
            "xGC, network link)",
            _arrays_available,
        ),
    ),
    notes=__doc__ or "",
    runtime="(measured below)",
    run=run,
    uses_traces=False,
)
