"""``flashsched bench``: simulated requests per wall-second, memory,
preconditioning, sweep scaling, Python overhead and trace parsing
(BENCHMARKS.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flashsched.commands import args as A

CASES = (
    "mqsim-default, gc-heavy, precondition-512g, ssdsim-default, run-trace, run-trace-out, "
    "raid0-16, serial-16"
)


def register(sub: argparse._SubParsersAction) -> None:
    b = A.add_command(sub, "bench", "measure simulated requests per wall-second")
    b.add_argument(
        "--requests", type=A.positive_int, default=1_000_000, help="requests per bench case"
    )
    b.add_argument(
        "--case",
        action="append",
        metavar="NAME",
        help=f"bench case (repeatable; default all): {CASES}",
    )
    # `--device` named a bench case, not a device: kept as an old spelling.
    b.add_argument("--device", dest="case", action=A.Deprecated, new="--case", append=True)
    b.add_argument(
        "--repeat",
        type=A.positive_int,
        default=1,
        metavar="N",
        help="run each case N times (round-robin) and report the median run "
        "(--startup: 10 N fresh interpreters)",
    )
    b.add_argument(
        "--reference",
        metavar="PYTHON",
        help="also run each case under this interpreter's flashsched (another install), "
        "interleaved, and report the ratio; a rate target the reference misses too, "
        "while this build keeps within 5 %% of it, is 'not judged' (a slow machine)",
    )
    b.add_argument("--scaling", action="store_true", help="sweep on 1 vs 2 worker processes")
    b.add_argument("--overhead", action="store_true", help="cost of the Python layer")
    b.add_argument("--json", metavar="OUT", type=A.out_file, help="also write the results as JSON")
    b.add_argument("--parse", action="store_true", help="measure trace parsing instead")
    b.add_argument(
        "--versus",
        metavar="PEERS",
        type=Path,
        action="append",
        help="flashsched against MQSim/SSDsim whole process, interleaved: PEERS holds "
        "mqsim/MQSim and ssdsim/ssd built outside the project (cases with --case: "
        "mqsim-trace-1m, mqsim-gc-2.4m, ssdsim-x100); repeat to time several builds "
        "of the peers in the same run (each build's compiler flags are reported)",
    )
    b.add_argument(
        "--traces",
        metavar="DIR",
        type=Path,
        help="shared traces for --versus ssdsim-x100 (default: ../shared/traces or "
        "$FLASHSCHED_TRACES)",
    )
    b.add_argument(
        "--startup",
        action="store_true",
        help="measure `flashsched run` start-up on a small trace instead",
    )
    b.add_argument(
        "--startup-trace",
        metavar="FILE",
        help="trace for --startup (default: the sample msr/hm_0.first1000.csv)",
    )
    b.add_argument(
        "--parse-lines", type=A.positive_int, default=8_000_000, help="lines per generated trace"
    )
    b.add_argument("--parse-format", action="append", help="format to bench (repeatable)")
    b.add_argument(
        "--parse-dir", type=A.out_dir, help="where generated traces go (default: a temp dir)"
    )
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from flashsched import bench, bench_parse
    from flashsched.cli import build_note

    # Which build was timed: a build without the PGO profile runs ~15 %
    # slower (BENCHMARKS.md, "Profile-guided build").
    out: dict[str, object] = {"build": build_note()}
    print(f"# build: {out['build']}")
    if args.startup:
        from flashsched import bench_startup

        out["startup"] = bench_startup.main(args.startup_trace, args.repeat * 10)
    elif args.versus:
        from flashsched import bench_peers
        from flashsched.reproduce import default_traces

        names = args.case or list(bench_peers.CASES)
        out["versus"] = bench_peers.versus(
            args.versus, names, args.repeat, args.traces or default_traces()
        )
    elif args.parse:
        fmts = args.parse_format or list(bench_parse.CASES)
        out["parse"] = bench_parse.main(fmts, args.parse_lines, args.parse_dir)
    else:
        cases = args.case or []
        extras = args.scaling or args.overhead
        if cases or not extras:
            out["cases"] = bench.main(
                cases or list(bench.CASES), args.requests, args.repeat, args.reference
            )
        if args.scaling:
            out["sweep_scaling"] = bench.sweep_scaling()
        if args.overhead:
            out["python_overhead"] = bench.python_overhead(args.requests)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0
