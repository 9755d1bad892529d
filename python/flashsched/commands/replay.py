"""``flashsched replay --target PATH``: run a workload through the host
schedulers on a real file or block device (io_uring, O_DIRECT) and report
it like ``run`` (summary, JSON, per-request Parquet, time series) plus the
target, kernel and io_uring settings. Several ``--host-sched`` (comma list
or ``all``) run one after the other on the same window, with a table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashsched.commands import args as A

if TYPE_CHECKING:
    from flashsched.results import RunResult


def _lat(name: str, lat: dict[str, float]) -> str:
    cells = " ".join(f"{lat[k]:>10.1f}" for k in ("mean", "p50", "p90", "p99", "p999", "max"))
    return f"  {name:<7}{lat['count']:>10} {cells}"


def render(s: dict[str, Any]) -> str:
    """A replay summary for the terminal."""
    rp = s["replay"]
    t, w, be, lp = rp["target"], rp["window"], rp["backend"], rp["loop"]
    lines = [
        f"target {t['path']} ({t['kind']}"
        + (f", {t['filesystem']} on {t['device']}" if t.get("filesystem") else "")
        + f")  window [{w['offset']:,}, {w['offset'] + w['size']:,}) unit {w['align']} B",
        f"host-sched {s['host_sched']}  queue depth {rp['queue_depth']}  "
        f"backend {be['backend']}  kernel {rp['kernel']['release']}  "
        f"kernel scheduler {t.get('kernel_scheduler') or '-'}",
        f"workload {s['workload']}",
        "",
        f"  requests {s['requests']:,} (reads {s['reads']:,}, writes {s['writes']:,}, "
        f"trims {s['trims']:,})   device I/Os {lp['ios_sent']:,}, probes {lp['probes']:,}, "
        f"widened to the unit {lp['widened']:,}",
        f"  elapsed {s['simulated_s']:.3f} s   IOPS {s['iops']:,.0f}   "
        f"bandwidth {s['bandwidth_mib_s']:,.1f} MiB/s   arrival lateness mean "
        f"{lp['mean_lateness_us']:.1f} us, max {lp['max_lateness_us']:.1f} us",
        "",
        "  latency (us)   count       mean        p50        p90        p99      p99.9        max",
        _lat("all", s["latency_us"]),
        _lat("read", s["read_latency_us"]),
        _lat("write", s["write_latency_us"]),
    ]
    if rp.get("verify"):
        v = rp["verify"]
        lines.append(
            f"  verify: {v['blocks_checked']:,} blocks read and checked, "
            f"{v['blocks_written']:,} stamped (window prefilled in {rp['prefill_s']:.2f} s)"
        )
    if lp["interrupted"]:
        lines.append(
            f"  INTERRUPTED: {lp['abandoned']:,} queued requests abandoned; "
            "the numbers cover what completed"
        )
    if rp.get("fallback"):
        lines.append(f"  WARNING: {rp['fallback']}")
    return "\n".join(lines)


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(
        sub,
        "replay",
        "replay a workload with the host schedulers on a real file or block device",
        __doc__,
    )
    p.add_argument(
        "--target", required=True, help="regular file (created if absent) or block device"
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trace", help="trace file to replay")
    src.add_argument("--synthetic", metavar="SPEC", help="synthetic workload spec (as for run)")
    p.add_argument("--format", default="auto", help="trace format")
    p.add_argument("--intensity", type=float, default=1.0, help="arrival-rate multiplier")
    p.add_argument("--limit", type=int, help="stop after N requests")
    p.add_argument("--offset", default="0", help="first byte of the window (e.g. 1g)")
    p.add_argument(
        "--size", default="0", help="window size (0 = to the end; needed to create a file)"
    )
    p.add_argument("--allow-write", action="store_true", help="permit writes and trims")
    p.add_argument(
        "--verify",
        action="store_true",
        help="stamp the window and check every read against the versions written",
    )
    fill = p.add_mutually_exclusive_group()
    fill.add_argument(
        "--prefill",
        dest="prefill",
        action="store_true",
        default=None,
        help="write the window once first (default: when the file is created)",
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
    p.add_argument(
        "--device",
        default="default",
        help="preset or TOML file whose [host] section (scheduler, queue depth) is used",
    )
    A.add_set(p)
    p.add_argument("--host-sched", help="host scheduler; a comma list or `all` runs each in turn")
    p.add_argument(
        "--queue-depth",
        type=A.positive_int,
        metavar="N",
        help="requests in flight on the target (default: the device's host.queue_depth)",
    )
    A.add_seed(p)
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed trace lines (counted in the summary) instead of failing",
    )
    p.add_argument(
        "--time-order",
        choices=["auto", "clamp", "reject", "sort"],
        default="auto",
        help="records earlier than their predecessor: issue at its time, fail, "
        "or reorder within a 4096-record window; auto = sort for blkparse, else clamp",
    )
    p.add_argument("--json", metavar="OUT", help="write the summary JSON here ('-' = stdout)")
    p.add_argument("--out", metavar="DIR", help="write summary, time series, per-request Parquet")
    p.add_argument(
        "--no-records",
        action="store_true",
        help="do not keep per-request rows (ignored with --out)",
    )
    A.add_progress(p)
    p.set_defaults(func=run)


def _scheds(arg: str | None) -> list[str | None]:
    if not arg:
        return [None]
    if arg == "all":
        from flashsched import _core

        return list(_core.host_schedulers())
    return [s.strip() for s in arg.split(",") if s.strip()]


def run(args: argparse.Namespace) -> int:
    from flashsched.realdev import replay

    scheds = _scheds(args.host_sched)
    results: list[tuple[str, RunResult]] = []
    interrupted = False
    for hs in scheds:
        res = replay(
            target=args.target,
            trace=args.trace,
            synthetic=args.synthetic,
            format=args.format,
            intensity=args.intensity,
            limit=args.limit,
            offset=args.offset,
            size=args.size,
            allow_write=args.allow_write,
            verify=args.verify,
            prefill=args.prefill,
            align=args.align,
            backend=args.backend,
            device=args.device,
            overrides=args.overrides,
            host_sched=hs,
            queue_depth=args.queue_depth,
            seed=args.seed,
            keep_records=not args.no_records or bool(args.out),
            progress=args.progress,
            skip_bad=args.skip_bad,
            time_order=args.time_order,
        )
        s = res.summary
        name = s["host_sched"]
        results.append((name, res))
        if args.json == "-":
            print(json.dumps(s, indent=2))
        else:
            print(render(s) + "\n")
        if args.out:
            d = Path(args.out) / name if len(scheds) > 1 else Path(args.out)
            res.save(d)
            print(f"results written to {d}/", file=sys.stderr)
        if s["replay"]["loop"]["interrupted"]:
            interrupted = True
            break
    if args.json and args.json != "-":
        body: Any = (
            results[0][1].summary if len(results) == 1 else {n: r.summary for n, r in results}
        )
        Path(args.json).write_text(json.dumps(body, indent=2))
    if len(results) > 1 and args.json != "-":
        print(
            f"{'host-sched':<16}{'IOPS':>10}{'mean us':>10}{'p99 us':>10}"
            f"{'read p99':>10}{'write p99':>10}"
        )
        for n, r in results:
            s = r.summary
            print(
                f"{n:<16}{s['iops']:>10.0f}{s['latency_us']['mean']:>10.1f}"
                f"{s['latency_us']['p99']:>10.1f}{s['read_latency_us']['p99']:>10.1f}"
                f"{s['write_latency_us']['p99']:>10.1f}"
            )
    return 130 if interrupted else 0
