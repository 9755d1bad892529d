"""``flashsched sweep SPEC.toml``: run a parameter sweep (docs/sweeps.md)."""

from __future__ import annotations

import argparse
import importlib
import sys

from flashsched.commands import args as A


def add_workers(p: argparse.ArgumentParser) -> None:
    """--workers and progress flags (local pool)."""
    p.add_argument(
        "--workers",
        type=A.positive_int,
        metavar="N",
        help="local worker processes (default: one per core)",
    )
    A.add_progress(p)


def add_backend_args(p: argparse.ArgumentParser) -> None:
    """--workers / --backend / --address / progress flags (shared with reproduce)."""
    add_workers(p)
    p.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="where the runs execute"
    )
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray)")


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(sub, "sweep", "run a parameter sweep from a TOML spec (docs/sweeps.md)")
    p.add_argument("spec", help="sweep spec (TOML; see docs/sweeps.md)")
    p.add_argument("--out", type=A.out_dir, help="results directory (default: results/NAME)")
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
