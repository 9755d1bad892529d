"""``flashsched reproduce PAPER``: re-run a paper's experiments and compare."""

from __future__ import annotations

import argparse
import importlib
import sys

from flashsched.commands import args as A
from flashsched.commands.sweep import add_backend_args

EXIT_MISSING = 3  # the build lacks what the paper needs


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(sub, "reproduce", "reproduce a paper's results (see --list)")
    p.add_argument("paper", nargs="?", help="reproduction name, e.g. serial-array (see --list)")
    p.add_argument("--list", action="store_true", help="list reproductions and their status")
    p.add_argument("--quick", action="store_true", help="small version (< 3 min on 2 cores)")
    p.add_argument(
        "--traces", help="sample traces directory (default: $FLASHSCHED_TRACES or ../shared/traces)"
    )
    p.add_argument(
        "--synthetic-only",
        action="store_true",
        help="run without the sample traces (only the synthetic workloads; "
        "without this flag a missing trace directory is an error)",
    )
    p.add_argument(
        "--out", type=A.out_dir, help="results directory (default: results/reproduce/PAPER)"
    )
    p.add_argument(
        "--published", action="store_true", help="print the paper's published numbers and exit"
    )
    add_backend_args(p)
    p.set_defaults(func=run)


def _list() -> int:
    from flashsched.reproduce import REGISTRY

    for name, rep in REGISTRY.items():
        missing = rep.missing()
        status = (
            "ready"
            if not missing and not rep.published_only
            else ("needs " + "; ".join(missing) if missing else "published numbers only")
        )
        print(f"{name:<14} {len(rep.claims):>3} claims  {status}")
    return 0


def run(args: argparse.Namespace) -> int:
    rp = importlib.import_module("flashsched.reproduce")

    if args.list or not args.paper:
        return _list()
    if args.published:
        print(rp.claims_frame(rp.get(args.paper).claims).to_string(index=False))
        return 0
    try:
        table = rp.reproduce(
            args.paper,
            quick=args.quick,
            traces=args.traces,
            synthetic_only=args.synthetic_only,
            out=args.out,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            progress=args.progress,
        )
    except rp.MissingFeatures as e:
        print(f"flashsched: {e}", file=sys.stderr)
        return EXIT_MISSING
    except ImportError as e:  # --backend ray without Ray installed
        print(f"flashsched: error: {e}", file=sys.stderr)
        return 2
    cols = ["claim", "paper workload", "published", "ours", "ratio", "unit"]
    print(table[cols].to_string(index=False, max_colwidth=48))
    print(f"results, figures and report.html in {table.attrs['out']}/", file=sys.stderr)
    return 0
