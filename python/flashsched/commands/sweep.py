"""``flashsched sweep SPEC.toml``: run a parameter sweep (docs/sweeps.md)."""

from __future__ import annotations

import argparse
import importlib
import sys


def add_backend_args(p: argparse.ArgumentParser) -> None:
    """--workers / --backend / --address / progress flags (shared with reproduce)."""
    p.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray)")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None)
    bar.add_argument("--no-progress", dest="progress", action="store_false")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a parameter sweep from a TOML spec")
    p.add_argument("spec", help="sweep spec (TOML; see docs/sweeps.md)")
    p.add_argument("--out", help="results directory (default: results/<name>)")
    p.add_argument("--traces", help="directory relative trace paths are resolved against")
    p.add_argument("--dry-run", action="store_true", help="list the runs and exit")
    add_backend_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    sw = importlib.import_module("flashsched.sweep")

    if args.dry_run:
        runs = sw.plan(args.spec, traces=args.traces)
        for r in runs:
            print(
                r.key,
                " ".join(f"{k}={v}" for k, v in r.point.params().items() if v not in (None, "")),
            )
        print(f"{len(runs)} runs", file=sys.stderr)
        return 0
    try:
        df = sw.sweep(
            args.spec,
            out=args.out,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            traces=args.traces,
            progress=args.progress,
        )
    except ImportError as e:  # --backend ray without Ray installed
        print(f"flashsched: error: {e}", file=sys.stderr)
        return 2
    print(
        f"{len(df)} runs ({len(df.attrs['executed'])} executed, "
        f"{len(df.attrs['skipped'])} already done) -> {df.attrs['out']}/results.parquet",
        file=sys.stderr,
    )
    return 0
