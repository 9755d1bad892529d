"""``flashsched calibrate --probe probe.json --device PRESET``: fit the
preset's read/program/transfer timings to a size-latency probe of a real
device (``flashsched probe --json``), print the fitted values and the
residual of every point, and optionally write a device file layered over
the preset (``--out calibrated.toml``, usable as ``--device``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flashsched.commands import args as A

# flashsched.calibrate.DEFAULT_PARAMS / PARAMS (not imported here: pandas)
DEFAULT_PARAMS = ("read_us", "program_us", "channel_mb_s")
KNOWN_PARAMS = ("read_us", "program_us", "channel_mb_s", "command_us")


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(
        sub, "calibrate", "fit a preset's flash timings to `flashsched probe` measurements", __doc__
    )
    p.add_argument("--probe", required=True, help="probe result JSON (flashsched probe --json)")
    p.add_argument("--device", default="default", help="preset name or TOML file to start from")
    A.add_set(p)
    p.add_argument(
        "--params",
        default=",".join(DEFAULT_PARAMS),
        help=f"comma list of timings to fit (known: {', '.join(KNOWN_PARAMS)})",
    )
    p.add_argument("--per-point", type=int, default=200, help="simulated requests per probe point")
    p.add_argument(
        "--stat",
        choices=["mean", "p50"],
        default="mean",
        help="fit mean or median latencies (p50: robust to rare stalls of a shared disk)",
    )
    A.add_seed(p)
    p.add_argument("--out", metavar="TOML", help="write the calibrated device file here")
    p.add_argument("--json", metavar="OUT", help="write the fit and residuals as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched.calibrate import calibrate

    cal = calibrate(
        args.probe,
        device=args.device,
        overrides=args.overrides,
        params=[s.strip() for s in args.params.split(",") if s.strip()],
        per_point=args.per_point,
        seed=args.seed,
        stat=args.stat,
    )
    print(cal.text())
    if args.out:
        Path(args.out).write_text(cal.toml())
        print(f"calibrated device written to {args.out} (use it as --device {args.out})")
    if args.json:
        Path(args.json).write_text(json.dumps(cal.to_dict(), indent=2))
    return 0
