"""``flashsched compare``: run one workload under several schedulers (host x
device, optionally on several devices) and tabulate mean/p99 latency and
throughput, normalised to the first scheduler combination of each
(workload, device) group, with latency-CDF and normalised-latency figures.

Workloads: ``--trace`` (repeatable), ``--synthetic SPEC``, ``--profile
NAMES`` (Amphibian Table III synthetic profiles, comma list or ``all``) with
``--profile-args``, or ``--postmark SPEC`` (closed loop; throughput is also
given in transactions per second). Runs go through the sweep machinery
(flashsched/comparison.py): parallel, cached in ``--out``, ``--check``.

``--real TARGET`` also replays every workload with every host scheduler on
a real file or block device (``flashsched replay``; docs/replay.md), one run
at a time after the simulations, and prints simulated and real side by side.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from flashsched.commands import args as A
from flashsched.commands.sweep import add_workers

if TYPE_CHECKING:
    import pandas as pd


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` sub-command."""
    p = A.add_command(sub, "compare", "compare host/device schedulers on a workload", __doc__)
    p.add_argument("--trace", action="append", metavar="FILE", help="trace file (repeatable)")
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
    p.add_argument("--format", default="auto", help=A.format_help())
    p.add_argument(
        "--intensity",
        type=A.positive_float,
        default=1.0,
        help="arrival-rate multiplier for traces",
    )
    p.add_argument("--limit", type=A.limit, metavar="N", help="stop each run after N requests")
    A.add_device(p, many=True)
    p.add_argument(
        "--host-sched",
        default="noop",
        metavar="NAMES",
        help="comma list, the first is the baseline; "
        "NAME:key=value:... sets [host.NAME] keys (ablations)",
    )
    p.add_argument(
        "--device-sched", metavar="NAMES", help="comma list of flash transaction schedulers"
    )
    p.add_argument("--host-scheduler", dest="host_sched", action=A.Deprecated, new="--host-sched")
    p.add_argument(
        "--device-scheduler", dest="device_sched", action=A.Deprecated, new="--device-sched"
    )
    p.add_argument("--queue-depth", type=A.positive_int, metavar="N", help="device queue depth")
    A.add_seed(p)
    A.add_check(p)
    p.add_argument(
        "--out",
        type=A.out_dir,
        default="results/compare",
        help="results directory: runs (cached), compare.{csv,parquet,json}, figures/",
    )
    p.add_argument("--csv", metavar="OUT", type=A.out_file, help="also write the table as CSV")
    p.add_argument("--json", metavar="OUT", type=A.out_file, help="also write the table as JSON")
    p.add_argument(
        "--plot", metavar="OUT.png", type=A.out_file, help="also write the latency CDFs here"
    )
    add_workers(p)
    r = p.add_argument_group("real device (flashsched replay; docs/replay.md)")
    r.add_argument(
        "--real", action="append", metavar="TARGET", help="also replay on this file/block device"
    )
    r.add_argument("--real-offset", default="0", help="first byte of the window on TARGET")
    r.add_argument("--real-size", default="0", help="window size (needed to create a file)")
    r.add_argument("--allow-write", action="store_true", help="permit writes on TARGET")
    r.add_argument("--verify", action="store_true", help="check every real read (needs writes)")
    r.add_argument(
        "--real-backend",
        choices=["auto", "uring", "threads"],
        default="auto",
        help="I/O engine: io_uring, a thread pool, or auto (io_uring when the kernel allows it)",
    )
    p.set_defaults(func=run)


def _fmt(df: pd.DataFrame) -> str:
    cols = [
        "workload",
        "device",
        "host_sched",
        "device_sched",
        "requests",
        "mean_latency_us",
        "p99_latency_us",
        "iops",
        "mib_s",
        "tx_s",
        "norm_mean",
        "norm_p99",
        "norm_mib_s",
    ]
    if df["tx_s"].isna().all():
        cols.remove("tx_s")
    if "gc_flags" in df and df["gc_flags"].notna().any():
        cols += ["gc_flags", "gc_precision", "gc_recall"]
    if (df["kind"] == "real").any():
        cols.insert(0, "kind")
    return _table(df[cols])


def _table(df: pd.DataFrame) -> str:
    return df.to_string(
        index=False, float_format=lambda v: f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
    )


def run(args: argparse.Namespace) -> int:
    import shutil
    from pathlib import Path

    from flashsched import comparison

    df = comparison.compare(
        trace=args.trace,
        synthetic=args.synthetic,
        profile=args.profile,
        profile_args=args.profile_args,
        postmark=args.postmark,
        host_sched=args.host_sched,
        device_sched=args.device_sched,
        device=args.device,
        overrides=args.overrides,
        queue_depth=args.queue_depth,
        format=args.format,
        intensity=args.intensity,
        limit=args.limit,
        seed=args.seed,
        check=args.check,
        out=args.out,
        workers=args.workers,
        progress=args.progress,
        real=args.real,
        real_options={
            "offset": args.real_offset,
            "size": args.real_size,
            "allow_write": args.allow_write,
            "verify": args.verify,
            "backend": args.real_backend,
        },
    )
    print(_fmt(df))
    if args.real:
        from flashsched.realcompare import sim_vs_real

        print("\nsimulated vs real (same workload and host scheduler):")
        print(_table(sim_vs_real(df)))
    out = Path(args.out)
    comparison.write(df, out)
    figs = out / "figures"
    cdf = comparison.plot_cdf(df, out, figs / "latency_cdf")
    comparison.plot_normalised(df, figs / "normalised")
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.json:
        Path(args.json).write_text(df.to_json(orient="records", indent=1))
    if args.plot:
        shutil.copyfile(cdf[0], args.plot)
        print(f"CDF plot written to {args.plot}", file=sys.stderr)
    print(f"results, table and figures in {out}/ (flashsched report {out})", file=sys.stderr)
    return 0
