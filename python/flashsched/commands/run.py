"""``flashsched run`` (a trace or synthetic workload on one device) and
``flashsched demo`` (the built-in workload, no files needed).

Only the native core is loaded to simulate and print a summary; pandas and
pyarrow load when ``--out`` writes DataFrames (BENCHMARKS.md, "Start-up").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from flashsched.commands import args as A

if TYPE_CHECKING:
    from flashsched.results import RunResult


def _add_output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json", metavar="OUT", type=A.out_file, help="write the summary JSON here ('-' = stdout)"
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        type=A.out_dir,
        help="write summary.json, timeseries.csv, requests.parquet and config.toml here "
        "(per-request rows are streamed to the file as the run goes)",
    )
    p.add_argument(
        "--bin-ms",
        type=A.positive_float,
        metavar="MS",
        help="bin width in ms of --out's timeseries.csv (default: 1000, the core's "
        "per-second series)",
    )
    # Held for nothing, rows cost ~10 % of a run and ~50 bytes per request.
    p.add_argument(
        "--no-records",
        action="store_true",
        help="no effect: per-request rows are kept only for --out, which streams "
        "them to requests.parquet (accepted so older command lines still work)",
    )
    A.add_progress(p)


def register(sub: argparse._SubParsersAction) -> None:
    r = A.add_command(sub, "run", "simulate a trace or synthetic workload on one device")
    src = r.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--trace",
        metavar="FILE",
        help="trace file to replay ('-' = standard input); gzip, zstd, xz and bzip2 "
        "files and pipes are read directly",
    )
    src.add_argument(
        "--synthetic",
        metavar="SPEC",
        help="synthetic workload, e.g. read=0.7,bs=4k-16k,iops=20000,n=100000 or fio's "
        "rw=randrw,rwmixread=70,iodepth=32,size=1g; or a fio job file (job.fio[:NAME])",
    )
    r.add_argument("--format", default="auto", help=A.format_help())
    A.add_device(r)
    A.add_schedulers(r)
    A.add_seed(r)
    r.add_argument(
        "--intensity",
        type=A.positive_float,
        default=1.0,
        help="arrival-rate multiplier for traces (10 = ten times faster)",
    )
    r.add_argument("--limit", type=A.limit, metavar="N", help="stop after N requests")
    A.add_check(r, "every read")
    r.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed trace lines (counted in the summary) instead of failing",
    )
    r.add_argument(
        "--time-order",
        choices=["auto", "clamp", "reject", "sort"],
        default="auto",
        help="records earlier than their predecessor: issue at its time, fail, "
        "or reorder within a 4096-record window; auto = sort for blkparse, else clamp",
    )
    r.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="memory limit the run is estimated against before building (e.g. 8GiB, "
        "2GB, off; default: $FLASHSCHED_MAX_MEMORY, else the memory available now)",
    )
    _add_output(r)
    r.set_defaults(func=cmd_run)

    d = A.add_command(sub, "demo", "run the built-in demo workload (no files needed)")
    A.add_seed(d)
    _add_output(d)
    d.set_defaults(func=cmd_demo)


def _emit(res: RunResult, args: argparse.Namespace) -> None:
    from flashsched.textsummary import render

    if args.json == "-":
        print(json.dumps(res.summary, indent=2))
    else:
        print(render(res.summary))
        if args.json:
            Path(args.json).write_text(json.dumps(res.summary, indent=2))
    if args.out:
        d = res.save(args.out)
        print(f"results written to {d}/", file=sys.stderr)


def _keep(args: argparse.Namespace) -> bool:
    """Rows are kept only for ``--out`` (streamed to its Parquet file, bins
    of ``--bin-ms`` summed as they pass), the one output that reads them;
    without it ``bin_ms`` is not passed on either (`api.run` would keep
    rows for it)."""
    if args.bin_ms is not None and not args.out:
        print(
            f"flashsched {args.command}: --bin-ms sets the bin width of --out's "
            "timeseries.csv; without --out it has no effect",
            file=sys.stderr,
        )
    return bool(args.out)


def cmd_run(args: argparse.Namespace) -> int:
    from flashsched import api

    res = api.run(
        trace=args.trace,
        synthetic=args.synthetic,
        device=args.device,
        overrides=args.overrides,
        host_sched=args.host_sched,
        device_sched=args.device_sched,
        queue_depth=args.queue_depth,
        format=args.format,
        intensity=args.intensity,
        limit=args.limit,
        seed=args.seed,
        keep_records=_keep(args),
        progress=args.progress,
        check=args.check,
        skip_bad=args.skip_bad,
        time_order=args.time_order,
        bin_ms=args.bin_ms if args.out else None,
        max_memory=args.max_memory,
        # Rows go straight to the output file as the run goes: memory holds
        # one row group of them, however long the run (issue #23).
        records_to=Path(args.out) / "requests.parquet" if args.out else None,
    )
    _emit(res, args)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from flashsched import DEMO_OVERRIDES, DEMO_WORKLOAD, api

    print(
        f"flashsched demo: {DEMO_WORKLOAD} on the `default` preset, "
        f"preconditioned with {', '.join(DEMO_OVERRIDES)}",
        file=sys.stderr,
    )
    res = api.run(
        synthetic=DEMO_WORKLOAD,
        device="default",
        overrides=DEMO_OVERRIDES,
        seed=args.seed,
        keep_records=_keep(args),
        progress=args.progress,
        bin_ms=args.bin_ms if args.out else None,
    )
    _emit(res, args)
    return 0
