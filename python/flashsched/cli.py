"""The ``flashsched`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from flashsched import DEMO_OVERRIDES, DEMO_WORKLOAD, _core, api
from flashsched.exceptions import FlashschedError
from flashsched.results import RunResult
from flashsched.textsummary import render


def _add_run_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", help="trace file to replay")
    src.add_argument(
        "--synthetic",
        metavar="SPEC",
        help="synthetic workload, e.g. read=0.7,bs=4k-16k,iops=20000,n=100000",
    )
    p.add_argument("--format", default="auto", help="trace format (see `flashsched formats`)")
    _add_device_args(p)
    p.add_argument("--intensity", type=float, default=1.0, help="arrival-rate multiplier")
    p.add_argument("--limit", type=int, help="stop after N requests")
    p.add_argument(
        "--check",
        action="store_true",
        help="check every read against a version oracle and audit invariants (slower)",
    )
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed trace lines (counted in the summary) instead of failing",
    )
    p.add_argument(
        "--time-order",
        choices=["clamp", "reject", "sort"],
        default="clamp",
        help="records earlier than their predecessor: issue at its time, fail, "
        "or reorder within a 4096-record window (blkparse)",
    )
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="memory limit the run is estimated against before building (e.g. 8GiB, "
        "2GB, off; default: $FLASHSCHED_MAX_MEMORY, else the memory available now)",
    )
    _add_output_args(p)


def _add_device_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", default="default", help="preset name or TOML file")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, e.g. timing.read_us=50 (repeatable)",
    )
    p.add_argument("--host-sched", help="host I/O scheduler")
    p.add_argument("--device-sched", help="flash transaction scheduler")
    p.add_argument("--queue-depth", type=int, help="device queue depth")
    p.add_argument("--seed", type=int, default=42)


def _add_output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="OUT", help="write the summary JSON here ('-' = stdout)")
    p.add_argument("--out", metavar="DIR", help="write summary, time series, per-request Parquet")
    p.add_argument("--no-records", action="store_true", help="do not keep per-request rows")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", dest="progress", action="store_true", default=None)
    bar.add_argument("--no-progress", dest="progress", action="store_false")


def _emit(res: RunResult, args: argparse.Namespace) -> None:
    if args.json == "-":
        print(json.dumps(res.summary, indent=2))
    else:
        print(render(res.summary))
        if args.json:
            Path(args.json).write_text(json.dumps(res.summary, indent=2))
    if args.out:
        d = res.save(args.out)
        print(f"results written to {d}/", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
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
        keep_records=not args.no_records or bool(args.out),
        progress=args.progress,
        check=args.check,
        skip_bad=args.skip_bad,
        time_order=args.time_order,
        max_memory=args.max_memory,
    )
    _emit(res, args)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
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
        keep_records=bool(args.out),
        progress=args.progress,
    )
    _emit(res, args)
    return 0


def cmd_presets(_: argparse.Namespace) -> int:
    for name, desc in _core.presets():
        print(f"{name:<16} {desc}")
    return 0


def cmd_formats(_: argparse.Namespace) -> int:
    print(f"{'auto':<11} detect from the first records (and the file extension)")
    for name, desc in _core.formats():
        print(f"{name:<11} {desc}")
    return 0


def cmd_schedulers(_: argparse.Namespace) -> int:
    print("host:   " + ", ".join(_core.host_schedulers()))
    print("device: " + ", ".join(_core.device_schedulers()))
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    print(_core.load_config(args.device, list(args.overrides)), end="")
    est = _core.memory_estimate(args.device, list(args.overrides))
    print(
        f"memory estimate: {est['peak'] / 2**20:,.0f} MiB ({est['breakdown']}); "
        "check mode and per-request records add to it",
        file=sys.stderr,
    )
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from flashsched import bench, bench_parse

    out: dict[str, object] = {}
    if args.parse:
        fmts = args.parse_format or list(bench_parse.CASES)
        out["parse"] = bench_parse.main(fmts, args.parse_lines, args.parse_dir)
        if args.json:
            Path(args.json).write_text(json.dumps(out, indent=2))
        return 0
    extras = args.scaling or args.overhead
    if args.case or not extras:
        out["cases"] = bench.main(args.case or list(bench.CASES), args.requests, args.repeat)
    if args.scaling:
        out["sweep_scaling"] = bench.sweep_scaling()
    if args.overhead:
        out["python_overhead"] = bench.python_overhead(args.requests)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="flashsched",
        description="Trace-driven flash SSD simulator for evaluating I/O schedulers.",
    )
    p.add_argument("--version", action="version", version=f"flashsched {_core.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="simulate a trace or synthetic workload")
    _add_run_args(r)
    r.set_defaults(func=cmd_run)

    d = sub.add_parser("demo", help="run the built-in demo workload (no files needed)")
    d.add_argument("--seed", type=int, default=42)
    _add_output_args(d)
    d.set_defaults(func=cmd_demo)

    sub.add_parser("presets", help="list device presets").set_defaults(func=cmd_presets)
    sub.add_parser("formats", help="list trace formats").set_defaults(func=cmd_formats)
    sub.add_parser("schedulers", help="list schedulers").set_defaults(func=cmd_schedulers)

    c = sub.add_parser("config", help="print a resolved, validated device config")
    c.add_argument("device", nargs="?", default="default", help="preset name or TOML file")
    c.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    c.set_defaults(func=cmd_config)

    b = sub.add_parser("bench", help="measure simulated requests per wall-second")
    b.add_argument("--requests", type=int, default=1_000_000)
    b.add_argument(
        "--case",
        "--device",
        dest="case",
        action="append",
        help="bench case (repeatable; default all): mqsim-default, gc-heavy, "
        "precondition-512g, ssdsim-default",
    )
    b.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each case N times (round-robin) and report the median run",
    )
    b.add_argument("--scaling", action="store_true", help="sweep on 1 vs 2 worker processes")
    b.add_argument("--overhead", action="store_true", help="cost of the Python layer")
    b.add_argument("--json", metavar="OUT")
    b.add_argument("--parse", action="store_true", help="measure trace parsing instead")
    b.add_argument("--parse-lines", type=int, default=8_000_000, help="lines per generated trace")
    b.add_argument("--parse-format", action="append", help="format to bench (repeatable)")
    b.add_argument("--parse-dir", help="where generated traces go (default: a temp dir)")
    b.set_defaults(func=cmd_bench)

    from flashsched.commands import register_all  # sweep, reproduce, report

    register_all(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (FlashschedError, FileNotFoundError) as e:
        print(f"flashsched: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flashsched: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
