"""``flashsched array-compare``: RAID-0 vs the serial array on the same aged
fio-like workload behind a network link (serial-array paper Fig. 3 vs Fig. 7),
scaled down as docs/arrays.md explains."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from flashsched.array import SCALED_SSD, ArrayResult, run_array

KIB = 1024


def workload(ssd_logical: int, ssds: int, footprint: float, aging_x: float) -> list[str]:
    """Aging (random 256 KiB writes over the footprint, `aging_x` times its
    size) then measurement (random 64 KiB writes, QD 32, on 1/6 of it,
    1.4 × the raw capacity): the paper's 1200 GB / 200 GB / 15 + 30 min,
    scaled to the simulated SSDs."""
    span = int(footprint * ssds * ssd_logical) // (256 * KIB) * (256 * KIB)
    hot = span // 6 // (64 * KIB) * (64 * KIB)
    aging = f"read=0,bs=256k,qd=32,align=256k,span={span},n={int(aging_x * span) // (256 * KIB)}"
    measure = (
        f"read=0,bs=64k,qd=32,align=64k,span={hot},n={int(1.4 * ssds * ssd_logical) // (64 * KIB)}"
    )
    return [aging, measure]


def stats(res: ArrayResult) -> dict[str, float]:
    """Mean, p1, p99 of per-bin array bandwidth (MB/s) in the measurement phase."""
    bw = res.bandwidth
    start = res.summary["phase_starts_s"][-1]
    end = res.summary["simulated_s"]  # last client completion; xGC may run on
    full = (bw["time_s"] >= start) & (bw["time_s"] + res.bin_s <= end)
    m = bw.loc[full, "array_mb_s"]
    return {
        "mean": float(m.mean()),
        "p1": float(m.quantile(0.01)),
        "p99": float(m.quantile(0.99)),
    }


def ftp_writers(ssd_logical: int, ssds: int, footprint: float) -> tuple[int, int, int, int]:
    """The paper's 10 threads × 10 GB FTP upload (§3.2), scaled: 10 clients,
    each writing its own file of footprint / 10 sequentially in 1 MiB
    requests, 4 outstanding per client."""
    file = int(footprint * ssds * ssd_logical) // 10 // (1 << 20) * (1 << 20)
    return (10, file, 1 << 20, 4)


def _panel(ax: Any, name: str, res: ArrayResult, link_mb_s: float | None) -> None:
    """Array and per-SSD write bandwidth; internal GC (RAID-0) or xGC copy
    rate (serial) on the right axis; phase boundaries as vertical lines."""
    bw = res.bandwidth
    for i in range(res.summary["ssds"]):
        ax.plot(bw["time_s"], bw[f"ssd{i}_write_mb_s"], lw=0.5, alpha=0.5, label=f"SSD {i} writes")
    ax.plot(bw["time_s"], bw["array_mb_s"], lw=1.1, color="k", label=f"{name} array")
    if link_mb_s:
        ax.axhline(link_mb_s, color="grey", ls="--", lw=0.8, label="link rate")
    for t in res.summary["phase_starts_s"][1:]:
        ax.axvline(t, color="k", lw=0.8, ls=":")
    ax2 = ax.twinx()
    if res.summary.get("serial"):
        unit = res.summary["serial"]["unit_bytes"]
        ax2.plot(
            bw["time_s"],
            bw["xgc_units"] * unit / 1e6 / res.bin_s,
            color="tab:purple",
            lw=0.7,
            ls="--",
        )
        ax2.set_ylabel("xGC copies (MB/s)", color="tab:purple")
    else:
        gc = res.gc.groupby("time_s")["gc_in_bin"].sum()
        ax2.plot(gc.index, gc.to_numpy(), color="tab:purple", lw=0.7, ls="--")
        ax2.set_ylabel("internal GC / bin", color="tab:purple")
    ax.set_ylabel("MB/s")
    ax.set_title(f"{name}: {res.summary['gc_invocations']} internal GC invocations")
    ax.legend(loc="lower left", fontsize=7, ncol=3)


def plot(results: dict[str, ArrayResult], link_mb_s: float | None, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 1, figsize=(9, 3.4 * len(results)), sharex=True)
    for ax, (name, res) in zip(axes, results.items()):
        _panel(ax, name, res, link_mb_s)
    axes[-1].set_xlabel("simulated time (s)")
    fig.tight_layout()
    paths = [out / "array_compare.png", out / "array_compare.svg"]
    for p in paths:
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return paths


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("array-compare", help="RAID-0 vs serial SSD array behind a link")
    p.add_argument("--ssds", type=int, default=4)
    p.add_argument("--link", default="10gbe", help="10gbe, 25gbe, 40gbe, Gbit/s, or none")
    p.add_argument(
        "--workload",
        default="fio",
        choices=["fio", "ftp"],
        help="fio: aging + 64 KiB random writes (Fig. 3/7); ftp: 10 sequential writers (Fig. 6)",
    )
    p.add_argument("--front", type=int, default=1, help="serial front-end SSDs")
    p.add_argument("--victim", default="greedy", choices=["fifo", "greedy"])
    p.add_argument(
        "--footprint",
        type=float,
        default=0.30,
        help="aging span / raw logical (0.30: xGC keeps up, as in the paper; 0.45 stresses it)",
    )
    p.add_argument("--aging", type=float, default=2.0, help="aging writes / footprint")
    p.add_argument("--bin-ms", type=float, default=100.0)
    p.add_argument("--device", default="default")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument(
        "--check", action="store_true", help="version oracle and invariant checks on every SSD"
    )
    p.add_argument("--out", default="array-compare", help="output directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    overrides = [*SCALED_SSD, "timing.program_us=580", *args.overrides]
    from flashsched import _core

    probe = _core.ArraySimulation(
        layout="raid0", ssds=args.ssds, device=args.device, overrides=overrides, phases=["n=1"]
    )
    ssd_logical = json.loads(probe.summary_json())["ssd_logical_bytes"]
    link = None if args.link.lower() == "none" else args.link
    phases: list[str] | None = None
    writers: tuple[int, int, int, int] | None = None
    if args.workload == "fio":
        phases = workload(ssd_logical, args.ssds, args.footprint, args.aging)
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
        )
        results[name].save(out / name)
    link_info = results["raid0"].summary["link"]
    link_mb_s = link_info["gbit_s"] * 1e3 / 8 if link_info else None
    paths = plot(results, link_mb_s, out)
    if phases:
        print(f"workload: {phases[0]}  then  {phases[1]}")
    else:
        print(f"workload: {results['raid0'].summary['workload']}")
    rate = f" = {link_mb_s:.0f} MB/s" if link_mb_s else ""
    print(f"link {args.link}{rate}; per-{args.bin_ms:g} ms bins, last phase")
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
