"""``flashsched import {mqsim,mqsim-workload,ssdsim,fio} FILE``: convert
another simulator's or fio's configuration into a flashsched device TOML or
a runnable sweep spec (stdout, or ``--out``). Keys that do not carry over
exactly are listed on stderr (and in the output's header comment)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

KINDS = {
    "mqsim": "MQSim ssdconfig.xml -> device TOML",
    "ssdsim": "SSDsim page.parameters -> device TOML",
    "mqsim-workload": "MQSim workload.xml -> sweep spec (one workload per flow)",
    "fio": "fio job file -> sweep spec (one synthetic workload per job)",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="convert MQSim/SSDsim/fio files into a flashsched device or workloads",
        description="Convert a configuration file: "
        + "; ".join(f"{k}: {v}" for k, v in KINDS.items())
        + ". Unsupported or approximated keys are reported on stderr.",
    )
    p.add_argument("kind", choices=list(KINDS), help="what FILE is")
    p.add_argument("file", help="the file to convert")
    p.add_argument("--out", "-o", metavar="OUT", help="write here instead of stdout")
    p.add_argument(
        "--device",
        metavar="DEVICE",
        help="workload importers: the device the sweep spec runs on ([base] device)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="do not list the notes on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched import importers

    if args.kind in importers.DEVICE_KINDS:
        if args.device:
            print("flashsched: error: --device applies to workload importers", file=sys.stderr)
            return 2
        dev = importers.load_device(args.file, args.kind)
        text, warnings = dev.to_toml(), dev.warnings
    else:
        wl = importers.load_workloads(args.file, args.kind)
        text, warnings = wl.to_toml(device=args.device), wl.warnings
    if not args.quiet:
        for w in warnings:
            print(f"flashsched: import: {w}", file=sys.stderr)
    if args.out:
        Path(args.out).write_text(text)
        print(f"written to {args.out} ({len(warnings)} notes)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
