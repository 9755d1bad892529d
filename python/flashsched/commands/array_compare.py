"""``flashsched array-compare``: RAID-0 vs the serial array on the same aged
fio-like workload behind a network link (serial-array paper Fig. 3 vs Fig. 7),
scaled down as docs/arrays.md explains."""

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
    """Mean, p1, p99 of per-bin array bandwidth (MiB/s) in the measurement phase."""
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


def _panel(ax: Any, name: str, res: ArrayResult, link_mib_s: float | None) -> None:
    """Array and per-SSD write bandwidth; internal GC (RAID-0) or xGC copy
    rate (serial) on the right axis; phase boundaries as vertical lines."""
    from flashsched import plotstyle as ps

    bw = res.bandwidth
    for i in range(res.summary["ssds"]):
        ax.plot(bw["time_s"], bw[f"ssd{i}_write_mib_s"], lw=0.6, alpha=0.6, label=f"SSD {i} writes")
    ax.plot(bw["time_s"], bw["array_mib_s"], lw=1.3, color="k", label="array (client writes)")
    if link_mib_s:
        ax.axhline(link_mib_s, color="grey", ls="--", lw=0.8, label="link rate", zorder=1)
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
        ax2.set_ylabel("xGC copy rate (MiB/s)", color=purple)
    else:
        gc = res.gc.groupby("time_s")["gc_in_bin"].sum()
        ax2.plot(gc.index, gc.to_numpy(), color=purple, lw=0.7, ls="--")
        ax2.set_ylabel("internal GC invocations per bin", color=purple)
    ax2.set_ylim(bottom=0)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("bandwidth (MiB/s)")
    ax.set_title(f"{ps.display(name)}: {res.summary['gc_invocations']} internal GC invocations")
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
    p.add_argument("--link", default="10gbe", help="10gbe, 25gbe, 40gbe, Gbit/s, or none")
    p.add_argument(
        "--workload",
        default="fio",
        choices=["fio", "ftp"],
        help="fio: aging + 64 KiB random writes (Fig. 3/7); ftp: 10 sequential writers (Fig. 6)",
    )
    p.add_argument("--front", type=A.positive_int, default=1, help="serial front-end SSDs")
    p.add_argument(
        "--victim", default="greedy", choices=["fifo", "greedy"], help="serial xGC victim choice"
    )
    p.add_argument(
        "--footprint",
        type=A.fraction,
        default=0.30,
        help="aging span / raw logical (0.30: xGC keeps up, as in the paper; 0.45 stresses it)",
    )
    p.add_argument("--aging", type=A.positive_float, default=2.0, help="aging writes / footprint")
    p.add_argument(
        "--bin-ms", type=A.positive_float, default=100.0, help="bandwidth bin width (ms)"
    )
    A.add_device(p)
    A.add_seed(p)
    A.add_check(p, "every SSD")
    p.add_argument("--out", type=A.out_dir, default="array-compare", help="output directory")
    A.add_progress(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched import _core
    from flashsched.array import SCALED_SSD, aged_fio_phases, ftp_writers, run_array

    overrides = [*SCALED_SSD, "timing.program_us=580", *args.overrides]
    probe = _core.ArraySimulation(
        layout="raid0", ssds=args.ssds, device=args.device, overrides=overrides, phases=["n=1"]
    )
    ssd_logical = json.loads(probe.summary_json())["ssd_logical_bytes"]
    link = None if args.link.lower() == "none" else args.link
    phases: list[str] | None = None
    writers: tuple[int, int, int, int] | None = None
    if args.workload == "fio":
        phases = aged_fio_phases(ssd_logical, args.ssds, args.footprint, args.aging)
    else:
        writers = ftp_writers(ssd_logical, args.ssds, args.footprint)
    layouts = {
        "raid0": "raid0,chunk=64k",
        "serial": f"serial,front={args.front},victim={args.victim}",
    }
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
        )
        results[name].save(out / name)
    link_info = results["raid0"].summary["link"]
    link_mib_s = link_info["gbit_s"] * 1e9 / 8 / (1 << 20) if link_info else None
    paths = plot(results, link_mib_s, out)
    if phases:
        print(f"workload: {phases[0]}  then  {phases[1]}")
    else:
        print(f"workload: {results['raid0'].summary['workload']}")
    rate = f" = {link_mib_s:.0f} MiB/s" if link_mib_s else ""
    print(f"link {args.link}{rate}; per-{args.bin_ms:g} ms bins, last phase (MiB/s)")
    print(f"{'layout':<8} {'mean':>8} {'p1':>8} {'p99':>8}  internal GC per SSD")
    for name, res in results.items():
        st = stats(res)
        gcs = [s["gc_invocations"] for s in res.summary["per_ssd"]]
        print(f"{name:<8} {st['mean']:>8.0f} {st['p1']:>8.0f} {st['p99']:>8.0f}  {gcs}")
    ser = results["serial"].summary
    print(
        f"serial: {ser['serial']['rotations']} rotations, "
        f"{ser['serial']['xgc_units_copied']} units copied by xGC, {ser['serial']['trims']} TRIMs, "
        f"front-end GC {ser['front_gc_violations']}, mapping "
        f"{100 * ser['serial']['mapping_fraction']:.3f} % of capacity"
    )
    print(f"plot: {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0
