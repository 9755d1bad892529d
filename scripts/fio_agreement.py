#!/usr/bin/env python3
"""Run the same random-read and random-write workloads with fio and with
``flashsched replay`` on the same file and put IOPS and mean/p99 latency side
by side (issue #22.4; the table in docs/replay.md comes from this script).

Both tools use io_uring, O_DIRECT, 4 KiB random I/O over the whole window,
no registered files or buffers, closed loop at the given queue depth, for the
same wall time. The two runs of a cell alternate which tool goes first from
repeat to repeat, and the table reports the median over repeats (a shared
disk drifts), how far fio's own runs spread ((max - min) / median of its
IOPS), and fio against itself: the median IOPS of its odd repeats over that
of its even ones, the same statistic as the fio/replay ratio with no
difference between the tools; agreement cannot be judged more finely than
that. Usage::

    python scripts/fio_agreement.py --target /var/tmp/fsched-fio.bin --size 1g \\
        --runtime 5 --repeats 8 --json docs/results/replay/fio-agreement.json
    python scripts/fio_agreement.py --from-json docs/results/replay/fio-agreement.json

Prints a Markdown table (and, with ``--json``, writes every run with its exact
command). Needs ``fio`` (Debian package ``fio``) and ``flashsched`` on PATH.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

OPS = {"randread": "read=1", "randwrite": "read=0"}
TOLERANCE = 0.10


def fio_cmd(target: str, size: str, op: str, qd: int, bs: str, runtime: int) -> list[str]:
    return [
        "fio", f"--name={op}-qd{qd}", f"--filename={target}", f"--size={size}",
        "--offset=0", "--direct=1", "--ioengine=io_uring", f"--rw={op}", f"--bs={bs}",
        f"--iodepth={qd}", "--numjobs=1", f"--runtime={runtime}", "--time_based",
        "--norandommap", "--randrepeat=0", "--lat_percentiles=1", "--output-format=json",
    ]  # fmt: skip


def replay_cmd(target: str, size: str, op: str, qd: int, bs: str, runtime: int) -> list[str]:
    spec = f"{OPS[op]},bs={bs},pattern=random,qd={qd},time={runtime}s,align={bs}"
    cmd = [
        "flashsched", "replay", f"--target={target}", f"--size={size}", "--offset=0",
        f"--synthetic={spec}", "--host-sched=noop", f"--queue-depth={qd}",
        "--backend=uring", "--no-prefill", "--no-records", "--no-progress", "--json=-",
    ]  # fmt: skip
    if op == "randwrite":
        cmd.insert(5, "--allow-write")
    return cmd


def run_fio(cmd: list[str], op: str) -> dict[str, float]:
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    job = json.loads(out[out.index("{") :])["jobs"][0]["write" if op == "randwrite" else "read"]
    lat = job["lat_ns"]
    return {
        "iops": job["iops"],
        "mean_us": lat["mean"] / 1e3,
        "p99_us": lat["percentile"]["99.000000"] / 1e3,
    }


def run_replay(cmd: list[str]) -> dict[str, float]:
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    s = json.loads(out)
    if s["replay"]["backend"]["backend"] != "io_uring":
        raise SystemExit(f"replay fell back to {s['replay']['backend']}: no comparison")
    return {
        "iops": s["iops"],
        "mean_us": s["latency_us"]["mean"],
        "p99_us": s["latency_us"]["p99"],
    }


def prepare(target: str, size: str) -> None:
    """Create the file (if absent) and write it fully once, so reads reach
    the disk and writes overwrite allocated blocks, for both tools alike."""
    subprocess.run(
        ["flashsched", "replay", f"--target={target}", f"--size={size}", "--allow-write",
         "--prefill", "--synthetic=read=1,bs=4k,qd=1,n=1", "--no-progress", "--json=-"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in ("iops", "mean_us", "p99_us")}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    cells: list[dict[str, Any]] = []
    for op in args.ops:
        for qd in args.qd:
            f_cmd = fio_cmd(args.target, args.size, op, qd, args.bs, args.runtime)
            r_cmd = replay_cmd(args.target, args.size, op, qd, args.bs, args.runtime)
            fio_runs: list[dict[str, float]] = []
            rep_runs: list[dict[str, float]] = []
            for rep in range(args.repeats):
                order = ("fio", "replay") if rep % 2 == 0 else ("replay", "fio")
                for tool in order:
                    if tool == "fio":
                        fio_runs.append(run_fio(f_cmd, op))
                    else:
                        rep_runs.append(run_replay(r_cmd))
                print(f"{op} QD{qd} repeat {rep + 1}: fio {fio_runs[-1]}  replay {rep_runs[-1]}",
                      file=sys.stderr)  # fmt: skip
            fio_m, rep_m = median_of(fio_runs), median_of(rep_runs)
            ratio = {k: rep_m[k] / fio_m[k] for k in fio_m}
            iops = [r["iops"] for r in fio_runs]
            cells.append({
                "op": op, "qd": qd, "fio": fio_m, "replay": rep_m, "ratio": ratio,
                "within_10pct": {k: abs(v - 1) <= TOLERANCE for k, v in ratio.items()},
                "fio_iops_spread": (max(iops) - min(iops)) / fio_m["iops"],
                "fio_runs": fio_runs, "replay_runs": rep_runs,
                "fio_command": shlex.join(f_cmd), "replay_command": shlex.join(r_cmd),
            })  # fmt: skip
    fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout
    return {
        "target": args.target,
        "size": args.size,
        "bs": args.bs,
        "runtime_s": args.runtime,
        "repeats": args.repeats,
        "fio_version": fio_version.strip(),
        "kernel": platform.release(),
        "cells": cells,
    }


def fio_self_ratio(cell: dict[str, Any]) -> float:
    """fio against itself: median IOPS of odd repeats / of even repeats."""
    iops = [r["iops"] for r in cell["fio_runs"]]
    if len(iops) < 2:
        return float("nan")
    return statistics.median(iops[0::2]) / statistics.median(iops[1::2])


def markdown(res: dict[str, Any]) -> str:
    head = (
        "| workload | QD | fio IOPS | replay IOPS | ratio | fio mean µs | replay mean µs "
        "| ratio | fio p99 µs | replay p99 µs | ratio | fio IOPS spread | fio vs fio |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    rows = [head]
    for c in res["cells"]:
        f, r, q, ok = c["fio"], c["replay"], c["ratio"], c["within_10pct"]

        def cell(k: str, fmt: str, f: Any = f, r: Any = r, q: Any = q, ok: Any = ok) -> str:
            mark = "" if ok[k] else " ✗"
            return f"{f[k]:{fmt}} | {r[k]:{fmt}} | {q[k]:.2f}{mark}"

        rows.append(
            f"| {c['op']} {res['bs']} | {c['qd']} | {cell('iops', ',.0f')} | "
            f"{cell('mean_us', ',.1f')} | {cell('p99_us', ',.1f')} | "
            f"{c['fio_iops_spread'] * 100:.0f} % | {fio_self_ratio(c):.2f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--target", help="file to run on (created and filled once)")
    p.add_argument("--from-json", metavar="FILE", help="only print the table of a saved result")
    p.add_argument("--size", default="1g", help="file size / window (fio --size)")
    p.add_argument("--bs", default="4k")
    p.add_argument("--runtime", type=int, default=10, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--qd", default="1,16,64", help="queue depths, comma list")
    p.add_argument("--ops", default="randread,randwrite", help="randread and/or randwrite")
    p.add_argument("--json", metavar="OUT", help="write every run and command here")
    args = p.parse_args(argv)
    if args.from_json:
        print(markdown(json.loads(Path(args.from_json).read_text())))
        return 0
    if not args.target:
        p.error("--target is required (or --from-json)")
    args.qd = [int(q) for q in args.qd.split(",")]
    args.ops = [o.strip() for o in args.ops.split(",")]
    bad = [o for o in args.ops if o not in OPS]
    if bad:
        p.error(f"--ops: unknown {bad} (known: {', '.join(OPS)})")
    for tool in ("fio", "flashsched"):
        if shutil.which(tool) is None:
            p.error(f"`{tool}` not found on PATH (fio: apt-get install fio)")
    if Path(args.target).exists() and Path(args.target).is_block_device():
        p.error("--target: this script runs on a regular file only")
    prepare(args.target, args.size)
    res = measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
