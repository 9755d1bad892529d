"""``flashsched probe --target PATH``: mean latency vs request size at
queue depth 1 for reads (and writes with ``--allow-write``), the linear
fit per op, and a plot (Amphibian Fig. 1 on your device)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from flashsched.commands import args as A

# flashsched.realdev.DEFAULT_PROBE_SIZES (not imported here: it loads pandas)
DEFAULT_PROBE_SIZES = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m"]


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(
        sub, "probe", "measure latency vs request size on a real file or device", __doc__
    )
    p.add_argument(
        "--target", required=True, help="regular file (created if absent) or block device"
    )
    p.add_argument("--offset", default="0", help="first byte of the window (e.g. 1g)")
    p.add_argument("--size", default="0", help="window size (needed to create a file)")
    p.add_argument("--allow-write", action="store_true", help="also probe writes")
    p.add_argument("--sizes", default=",".join(DEFAULT_PROBE_SIZES), help="comma list of sizes")
    p.add_argument("--per-size", type=int, default=200, help="I/Os per (op, size)")
    fill = p.add_mutually_exclusive_group()
    fill.add_argument(
        "--prefill",
        dest="prefill",
        action="store_true",
        default=None,
        help="write the window once first so reads reach the device "
        "(default: when the file is created)",
    )
    fill.add_argument(
        "--no-prefill", dest="prefill", action="store_false", help="never prefill the window"
    )
    p.add_argument("--align", default="0", help="I/O unit (default max(4k, logical block))")
    p.add_argument(
        "--backend",
        choices=["auto", "uring", "threads"],
        default="auto",
        help="I/O engine: io_uring, a thread pool, or auto (io_uring when the kernel allows it)",
    )
    A.add_seed(p)
    p.add_argument(
        "--plot", metavar="PNG", help="plot file (default: probe.png beside --json, else none)"
    )
    p.add_argument("--json", metavar="OUT", help="write the probe result JSON ('-' = stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched.realdev import probe

    res = probe(
        target=args.target,
        sizes=[s.strip() for s in args.sizes.split(",") if s.strip()],
        offset=args.offset,
        size=args.size,
        allow_write=args.allow_write,
        per_size=args.per_size,
        prefill=args.prefill,
        align=args.align,
        backend=args.backend,
        seed=args.seed,
    )
    if args.json == "-":
        print(json.dumps(res.raw, indent=2))
    else:
        print(res.text())
        if args.json:
            Path(args.json).write_text(json.dumps(res.raw, indent=2))
    plot = args.plot or (
        str(Path(args.json).with_suffix(".png")) if args.json and args.json != "-" else None
    )
    if plot:
        print(f"plot written to {res.plot(plot)}", file=sys.stderr)
    return 0
