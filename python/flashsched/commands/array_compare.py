"""``flashsched array-compare``: RAID-0 vs the serial array on the same aged
fio-like workload behind a network link (serial-array paper Fig. 3 vs Fig. 7),
at the paper's operating point by default: 75 % of the SSDs' logical space
in use, time-based aging (15 + 30 paper minutes), the paper's block size
with capacity scaled by fewer blocks, and the same usable capacity for both
layouts (docs/arrays.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashsched.commands import args as A

if TYPE_CHECKING:
    from flashsched.array import ArrayResult

MIB = float(1 << 20)


def stats(res: ArrayResult) -> dict[str, float]:
    """Mean, p1, p99 of per-bin array bandwidth (MiB/s) in the measurement
    phase (bins wholly inside it, up to the last client completion)."""
    bw = res.bandwidth
    start = res.summary["phase_starts_s"][-1]
    end = res.summary["simulated_s"]  # last client completion; xGC may run on
    full = (bw["time_s"] >= start) & (bw["time_s"] + res.bin_s <= end)
    m = bw.loc[full, "array_mib_s"]
    return {
        "mean": float(m.mean()),
        "p1": float(m.quantile(0.01)),
        "p99": float(m.quantile(0.99)),
    }


def gc_move_rate(res: ArrayResult) -> tuple[Any, Any]:
    """(time_s, MiB/s) of data internal GC relocated per bin, all SSDs."""
    acc = res.summary["accounting"]
    moved = sum(s["gc_pages_moved"] for s in res.summary["per_ssd"])
    page = acc["internal_gc_bytes"] / moved if moved else 0.0
    g = res.gc.groupby("time_s")["gc_moved_in_bin"].sum()
    return g.index.to_numpy(), g.to_numpy() * page / MIB / res.bin_s


def _panel(ax: Any, name: str, res: ArrayResult, link_mib_s: float | None) -> None:
    """Array and per-SSD write bandwidth up to the last client completion;
    data moved by internal GC (RAID-0) or xGC (serial) on the right axis,
    both in MiB/s; phase boundaries as vertical lines."""
    from flashsched import plotstyle as ps

    end = res.summary["simulated_s"]  # bins wholly before the last client completion
    bw = res.bandwidth[res.bandwidth["time_s"] + res.bin_s <= end]
    for i in range(res.summary["ssds"]):
        ax.plot(bw["time_s"], bw[f"ssd{i}_write_mib_s"], lw=0.6, alpha=0.6, label=f"SSD {i} writes")
    ax.plot(bw["time_s"], bw["array_mib_s"], lw=1.3, color="k", label="array (client writes)")
    if link_mib_s:
        ax.axhline(link_mib_s, color="grey", ls="--", lw=0.8, label="link data rate", zorder=1)
    for t in res.summary["phase_starts_s"][1:]:
        ax.axvline(t, color="k", lw=0.8, ls=":")
    ax2 = ax.twinx()
    ax2.grid(False)
    ax2.spines["right"].set_visible(True)
    purple = "#7B3294"
    if res.summary.get("serial"):
        unit = res.summary["serial"]["unit_bytes"]
        ax2.plot(
            bw["time_s"], bw["xgc_units"] * unit / MIB / res.bin_s, color=purple, lw=0.7, ls="--"
        )
        ax2.set_ylabel("xGC copies (MiB/s)", color=purple)
    else:
        x, y = gc_move_rate(res)
        keep = x + res.bin_s <= end
        ax2.plot(x[keep], y[keep], color=purple, lw=0.7, ls="--")
        ax2.set_ylabel("internal GC moves (MiB/s)", color=purple)
    ax2.set_ylim(bottom=0)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("bandwidth (MiB/s)")
    acc = res.summary["accounting"]
    ax.set_title(
        f"{ps.display(name)}: {res.summary['gc_invocations']} internal GC, "
        f"array WAF {acc['array_waf']:.2f}, {acc['stall_events']} stalls"
    )
    ps.legend_outside(ax, gap=0.1)


def plot(results: dict[str, ArrayResult], link_mib_s: float | None, out: Path) -> list[Path]:
    from flashsched import plotstyle as ps

    fig, axes = ps.plt.subplots(len(results), 1, figsize=(9, 3.2 * len(results)), sharex=True)
    for ax, (name, res) in zip(axes, results.items()):
        _panel(ax, name, res, link_mib_s)
    axes[-1].set_xlabel("simulated time (s)")
    fig.align_ylabels(axes)
    return ps.save(fig, out / "array_compare")


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(sub, "array-compare", "RAID-0 vs serial SSD array behind a link", __doc__)
    p.add_argument("--ssds", type=A.positive_int, default=4, help="SSDs in each array")
    p.add_argument(
        "--link",
        default="10gbe,practical",
        help="10gbe, 25gbe, 40gbe or Gbit/s, with ,practical (the paper's 900 MB/s on 10 GbE) "
        "or ,efficiency=F; or none",
    )
    p.add_argument(
        "--workload",
        default="fio",
        choices=["fio", "ftp"],
        help="fio: aging + 64 KiB random writes (Fig. 3/7); ftp: 10 sequential writers (Fig. 6)",
    )
    p.add_argument("--front", type=A.positive_int, default=1, help="serial front-end SSDs")
    p.add_argument(
        "--victim",
        default="retired",
        choices=["retired", "fifo", "greedy"],
        help="serial xGC victim: retired (the paper's: the front-end that just retired), "
        "fifo (oldest back-end), greedy (fewest valid)",
    )
    p.add_argument("--dests", type=A.positive_int, default=2, help="xGC destinations at once")
    p.add_argument(
        "--cache", action="store_true", help="serial: reads of front-end data hit a host cache"
    )
    p.add_argument(
        "--capacity-use",
        dest="capacity_use",
        type=A.fraction,
        default=0.75,
        help="written span / the SSDs' logical space (the paper's 1200 of 1600 GB)",
    )
    p.add_argument(
        "--footprint",
        dest="capacity_use",
        action=A.Deprecated,
        new="--capacity-use",
        type=A.fraction,
    )
    p.add_argument(
        "--volume",
        type=A.fraction,
        default=0.8,
        help="usable capacity of both layouts / the SSDs' logical space",
    )
    p.add_argument(
        "--aging-min", type=A.positive_float, default=15.0, help="aging time, paper minutes"
    )
    p.add_argument(
        "--measure-min", type=A.positive_float, default=30.0, help="measurement time, paper minutes"
    )
    p.add_argument(
        "--ssd-speeds",
        default=None,
        help="comma-separated write-speed factors, one per SSD (e.g. 1,0.97,1.03,0.95)",
    )
    p.add_argument(
        "--bin-ms", type=A.positive_float, default=100.0, help="bandwidth bin width (ms)"
    )
    A.add_device(p)
    A.add_seed(p)
    A.add_check(p, "every SSD")
    p.add_argument("--out", type=A.out_dir, default="array-compare", help="output directory")
    A.add_progress(p)
    p.set_defaults(func=run)


def _speeds(text: str | None, ssds: int) -> list[float] | None:
    if not text:
        return None
    try:
        v = [float(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit(
            f"--ssd-speeds: `{text}` is not a comma-separated list of numbers"
        ) from None
    if len(v) != ssds:
        raise SystemExit(f"--ssd-speeds: {len(v)} factors for {ssds} SSDs")
    return v


def table_rows(results: dict[str, ArrayResult]) -> list[str]:
    """The printed table: bandwidth and the array-level accounting."""
    head = (
        f"{'layout':<8} {'mean':>7} {'p1':>7} {'p99':>7}  {'GC':>7} {'moved':>9} "
        f"{'xGC GiB':>8} {'WAF':>5} {'erases':>7} {'usable':>8} {'stalls':>11}"
    )
    rows = [head]
    for name, res in results.items():
        st = stats(res)
        s, acc = res.summary, res.summary["accounting"]
        moved = sum(x["gc_pages_moved"] for x in s["per_ssd"])
        rows.append(
            f"{name:<8} {st['mean']:>7.0f} {st['p1']:>7.0f} {st['p99']:>7.0f}  "
            f"{acc['internal_gc_invocations']:>7} {moved:>9} {acc['xgc_bytes'] / 2**30:>8.2f} "
            f"{acc['array_waf']:>5.2f} {acc['erases']:>7} "
            f"{acc['usable_bytes'] / 2**30:>6.2f}Gi "
            f"{acc['stall_events']:>4}/{acc['stall_ms']:.0f}ms"
        )
    return rows


def run(args: argparse.Namespace) -> int:
    from flashsched import _core
    from flashsched.array import PAPER_SSD, ftp_writers, run_array, timed_fio_phases

    overrides = [*PAPER_SSD, *args.overrides]
    probe = _core.ArraySimulation(
        layout="raid0", ssds=args.ssds, device=args.device, overrides=overrides, phases=["n=1"]
    )
    ssd_logical = json.loads(probe.summary_json())["ssd_logical_bytes"]
    link = None if args.link.lower() == "none" else args.link
    phases: list[str] | None = None
    writers: tuple[int, int, int, int] | None = None
    if args.workload == "fio":
        phases = timed_fio_phases(
            ssd_logical, args.ssds, args.capacity_use, args.aging_min, args.measure_min
        )
    else:
        writers = ftp_writers(ssd_logical, args.ssds)
    vol = f"volume={args.volume:g}"
    cache = ",cache=front" if args.cache else ""
    layouts = {
        "raid0": f"raid0,chunk=64k,{vol}",
        "serial": f"serial,front={args.front},victim={args.victim},dests={args.dests},{vol}{cache}",
    }
    speeds = _speeds(args.ssd_speeds, args.ssds)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, ArrayResult] = {}
    for name, layout in layouts.items():
        results[name] = run_array(
            layout=layout,
            ssds=args.ssds,
            device=args.device,
            overrides=overrides,
            link=link,
            bin_ms=args.bin_ms,
            phases=phases,
            writers=writers,
            seed=args.seed,
            check=args.check,
            progress=args.progress,
            ssd_speeds=speeds,
            warn=False,
        )
        results[name].save(out / name)
    link_info = results["raid0"].summary["link"]
    link_mib_s = link_info["payload_mb_s"] * 1e6 / MIB if link_info else None
    paths = plot(results, link_mib_s, out)
    if phases:
        print(f"workload: {phases[0]}  then  {phases[1]}")
    else:
        print(f"workload: {results['raid0'].summary['workload']}")
    rate = f" = {link_mib_s:.0f} MiB/s of data" if link_mib_s else ""
    use = f"capacity use {args.capacity_use:g}" if phases else "FTP files over 6.25 %"
    print(
        f"link {args.link}{rate}; {use}, usable volume "
        f"{args.volume:g} of the SSDs' logical space; per-{args.bin_ms:g} ms bins, last phase "
        "(MiB/s); GC = internal GC invocations, moved = pages internal GC moved, "
        "WAF = flash bytes written / user bytes, stalls = periods/time writes waited for xGC"
    )
    for line in table_rows(results):
        print(line)
    ser = results["serial"].summary
    k = ser["serial"]["keep_up"]
    print(
        f"serial: {ser['serial']['rotations']} rotations, "
        f"{ser['serial']['xgc_units_copied']} units copied by xGC, {ser['serial']['trims']} TRIMs, "
        f"front-end GC {ser['front_gc_violations']}, mapping "
        f"{100 * ser['serial']['mapping_fraction']:.3f} % of capacity; keep-up: "
        f"{k['jobs_behind']} of {k['jobs']} xGC jobs behind (victims ≤ "
        f"{100 * k['max_valid_fraction']:.0f} % valid, v/(1−v) ≤ {k['max_needed_ratio']:.2f}, "
        f"copy/fill ≥ {k['min_copy_fill_ratio']:.2f})"
    )
    for name, res in results.items():
        for w in res.warnings:
            print(f"warning: {name}: {w}", file=sys.stderr)
    print(f"plot: {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0
