"""``flashsched bench --versus PEERS``: flashsched against MQSim and SSDsim
on the same cases, whole process against whole process, interleaved in one
invocation (issue #23).

Each repeat runs every case on both simulators, alternating which goes
first, so a machine whose speed drifts slows both alike; the ratio of the
medians is the result. flashsched runs as a user runs it: ``python -m
flashsched run --out DIR`` in a fresh interpreter: start-up, trace parsing
and the per-request rows included, streamed to ``requests.parquet`` as a
user keeping them gets them (a plain ``run`` keeps none: its summary's
percentiles come from histograms, and nothing it prints reads rows). The
peers run as ``flashsched.validate.regenerate`` runs them: MQSim with its
shipped ``ssdconfig.xml`` (plus the case's changes), SSDsim with its
shipped ``page.parameters``. ``PEERS`` holds ``mqsim/`` (binary ``MQSim``)
and ``ssdsim/`` (binary ``ssd``), built outside the project
(docs/validation.md says how).

Cases (each device setting as in docs/validation.md's mapping, so both do
the same modelled work):

- ``mqsim-trace-1m``: a generated trace of 1,000,000 requests (70 % reads,
  4-16 KiB, 4 KiB aligned, Poisson 20k IOPS over 16 GiB) on MQSim's shipped
  device, its 2 MiB mapping cache included; target 25x.
- ``mqsim-gc-2.4m``: 2,400,000 random 8 KiB writes at queue depth 64 on
  the shipped device with 64 blocks per plane (16 GiB raw; GC throughout),
  whole mapping table in DRAM (validation case ``gc-rw8k-qd64``); target
  25x. Issue #23 asks for 3M writes, but MQSim 7ec40e3 crashes (SIGSEGV,
  at 85 % of the requests) on 3M here; 2.4M is what it completes. MQSim's
  GC does 2-4x the work here (docs/validation.md item 7), which the ratio
  does not hide: both counts are printed.
- ``ssdsim-x100``: SSDsim's sample trace (``ascii/ssdsim-example.ns.ascii``
  of the shared traces) played 100 times back to back (1,000,000 requests);
  target 10x.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashsched import peer_build
from flashsched.proctime import ProcessCost, timed
from flashsched.validate import cases as vcases
from flashsched.validate import peer_mqsim, peer_ssdsim


@dataclass(frozen=True)
class VersusCase:
    name: str
    peer: str  # "mqsim" | "ssdsim"
    requests: int
    target_ratio: float
    #: ssdconfig / IO-flow (MQSim) or page.parameters (SSDsim) changes
    peer_settings: dict[str, Any]
    #: flashsched `run` arguments besides the trace (if any) and --json
    ours: list[str]
    #: writes the trace both read into the directory given (None: synthetic)
    trace: Callable[[Path, Path | None], Path] | None = None
    #: flashsched overrides beyond the peer's base mapping
    overrides: list[str] = field(default_factory=list)


def random_trace(out: Path, _traces: Path | None, n: int = 1_000_000) -> Path:
    """``n`` requests: 70 % reads, 4-16 KiB at 4 KiB alignment, Poisson 20k
    IOPS over 16 GiB, in the ASCII format MQSim and flashsched both read
    (time_ns dev sector size_sectors op, op 1 = read)."""
    path = out / f"random-{n}.trace"
    if path.is_file():
        return path
    rng = random.Random(798)
    span_4k = (16 << 30) // 4096
    t = 0.0
    lines = []
    for _ in range(n):
        t += rng.expovariate(20_000.0) * 1e9
        sector = rng.randrange(span_4k) * 8
        size = 8 * rng.randint(1, 4)
        lines.append(f"{int(t)} 0 {sector} {size} {1 if rng.random() < 0.7 else 0}\n")
    path.write_text("".join(lines))
    return path


def ssdsim_example_x100(out: Path, traces: Path | None) -> Path:
    """SSDsim's sample trace played 100 times, each copy after the last."""
    path = out / "ssdsim-example-x100.trace"
    if path.is_file():
        return path
    if traces is None:
        raise FileNotFoundError(
            "ssdsim-x100 needs the shared traces (ascii/ssdsim-example.ns.ascii): "
            "give --traces DIR or set FLASHSCHED_TRACES"
        )
    src = traces / "ascii" / "ssdsim-example.ns.ascii"
    if not src.is_file():
        raise FileNotFoundError(f"ssdsim-x100 needs {src}")
    rows = [line.split() for line in src.read_text().splitlines() if line.strip()]
    span = int(rows[-1][0]) + 1_000_000  # 1 ms after the last arrival
    lines: list[str] = []
    for k in range(100):
        base = k * span
        lines.extend(f"{int(r[0]) + base} {' '.join(r[1:])}\n" for r in rows)
    path.write_text("".join(lines))
    return path


MQSIM_FLOW_SYNTHETIC = {
    "Read_Percentage": "0",
    "Average_Request_Size": "16",
    "Address_Alignment_Unit": "16",
    "Average_No_of_Reqs_in_Queue": "64",
    "Total_Requests_To_Generate": "2400000",
    "Address_Distribution": "RANDOM_UNIFORM",
    "Seed": "798",
}

CASES: dict[str, VersusCase] = {
    "mqsim-trace-1m": VersusCase(
        "mqsim-trace-1m",
        "mqsim",
        1_000_000,
        25.0,
        {"ssdconfig": {}, "workload": {}},
        ["--format", "ascii-ns"],
        trace=random_trace,
        # The shipped 2 MiB CMT, as the `-cmt` validation cases map it.
        overrides=["mapping.cmt_kib=2048", "mapping.writeback=unserved"],
    ),
    "mqsim-gc-2.4m": VersusCase(
        "mqsim-gc-2.4m",
        "mqsim",
        2_400_000,
        25.0,
        {
            "ssdconfig": {"Ideal_Mapping_Table": "true", "Block_No_Per_Plane": "64"},
            "workload": MQSIM_FLOW_SYNTHETIC,
        },
        ["--synthetic", "read=0,bs=8k,align=8k,pattern=random,qd=64,n=2400000"],
        overrides=["geometry.blocks_per_plane=64", "ftl.gc_d_choice=6"],
    ),
    "ssdsim-x100": VersusCase(
        "ssdsim-x100",
        "ssdsim",
        1_000_000,
        10.0,
        {"page.parameters": {}},
        ["--format", "ascii-ns"],
        trace=ssdsim_example_x100,
    ),
}


def _validate_case(case: VersusCase) -> vcases.Case:
    """The case as the peer runners take it."""
    synthetic = None if case.trace else case.ours[-1]
    return vcases.Case(
        name=case.name,
        description=case.name,
        gc=False,
        quick=False,
        peer_settings=case.peer_settings,
        synthetic=synthetic,
        trace_cut=None,
        overrides=list(case.overrides),
        why="",
        tolerances={},
        result=None,
    )


def _ours(case: VersusCase, trace: Path | None, work: Path) -> tuple[ProcessCost, dict[str, Any]]:
    base = vcases.load(case.peer)
    out = work / f"{case.name}.flashsched"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "flashsched", "run", "--device", base.device]
    for o in [*base.overrides, *case.overrides]:
        cmd += ["--set", o]
    if trace is not None:
        cmd += ["--trace", str(trace)]
    cmd += [*case.ours, "--out", str(out), "--no-progress"]
    with (work / f"{case.name}.flashsched.log").open("w") as log:
        cost = timed(cmd, stdout=log)
    if cost.returncode != 0:
        raise RuntimeError(
            f"flashsched failed on {case.name} (exit {cost.returncode}); "
            f"see {work / (case.name + '.flashsched.log')}"
        )
    summary = json.loads((out / "summary.json").read_text())
    rows = _parquet_rows(out / "requests.parquet")
    if summary["requests"] != case.requests or rows != case.requests:
        raise RuntimeError(
            f"flashsched served {summary['requests']} of {case.requests} requests in "
            f"{case.name} and wrote {rows} rows"
        )
    return cost, summary


def _parquet_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


def _peer(
    case: VersusCase, peers: Path, trace: Path | None, work: Path
) -> tuple[ProcessCost, dict[str, float]]:
    vc = _validate_case(case)
    wd = work / f"{case.name}.{case.peer}"
    if case.peer == "mqsim":
        res = peer_mqsim.run(vc, peers / "mqsim", trace, wd)
    else:
        assert trace is not None
        res = peer_ssdsim.run(vc, peers / "ssdsim", trace, wd, timeout_s=3600.0)
    cost: ProcessCost = res["cost"]
    return cost, res["metrics"]


def _input(case: VersusCase, wdir: Path, traces: Path | None) -> Path | None:
    """The trace file both simulators read (None: a synthetic workload)."""
    make = case.trace
    return make(wdir, traces) if make is not None else None


def _med(xs: list[float]) -> float:
    return statistics.median(xs)


def _binary(peers: Path, peer: str) -> Path:
    return {"mqsim": peers / "mqsim" / "MQSim", "ssdsim": peers / "ssdsim" / "ssd"}[peer]


def _check_peers(peers: Path, names: list[str]) -> dict[str, dict[str, Any]]:
    """Each peer the cases need, described (``peer_build``); an error
    naming the first binary missing."""
    builds: dict[str, dict[str, Any]] = {}
    for n in names:
        peer = CASES[n].peer
        binary = _binary(peers, peer)
        if not binary.is_file():
            raise FileNotFoundError(
                f"bench --versus: {binary} not found (case {n}); build the peer there "
                "(docs/validation.md, 'Regenerating the peers' numbers')"
            )
        if peer not in builds:
            builds[peer] = peer_build.describe(binary)
    return builds


def versus(
    peers: Path | list[Path],
    names: list[str],
    repeat: int,
    traces: Path | None,
    work: Path | None = None,
) -> list[dict[str, Any]]:
    """Run the named cases ``repeat`` times on flashsched and on the peer
    of each ``peers`` directory (several: e.g. the peer as its Makefile
    builds it and an optimised build), all interleaved; one result row per
    case and peers directory (medians, ratios, verdicts)."""
    dirs = [peers] if isinstance(peers, Path) else list(peers)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise ValueError(f"unknown --versus case(s) {unknown} (known: {', '.join(CASES)})")
    if not dirs:
        raise ValueError("bench --versus needs a PEERS directory")
    builds = [_check_peers(d, names) for d in dirs]
    # The same binary in two PEERS directories (MQSim, when only SSDsim was
    # rebuilt) is timed once: per peer, the first directory with each build.
    distinct: dict[str, list[int]] = {}
    for peer in dict.fromkeys(CASES[n].peer for n in names):
        seen: set[str] = set()
        for i, found in enumerate(builds):
            if found[peer]["sha256"] not in seen:
                seen.add(found[peer]["sha256"])
                distinct.setdefault(peer, []).append(i)
                print(peer_build.summary_line(peer, found[peer]), flush=True)
    with tempfile.TemporaryDirectory(prefix="flashsched-versus-") as tmp:
        wdir = work or Path(tmp)
        wdir.mkdir(parents=True, exist_ok=True)
        inputs = {n: _input(CASES[n], wdir, traces) for n in names}
        ours: dict[str, list[ProcessCost]] = {n: [] for n in names}
        theirs: dict[tuple[str, int], list[ProcessCost]] = {}
        # Each simulator's numbers from its last run (the same every run).
        our_facts: dict[str, dict[str, Any]] = {}
        # The core's own time in each of our runs (`wall_s`: building and
        # simulating), so a row shows what the process adds around it.
        our_core: dict[str, list[float]] = {n: [] for n in names}
        peer_facts: dict[tuple[str, int], dict[str, Any]] = {}
        for k in range(repeat):
            for n in names:
                case = CASES[n]
                # Alternate who goes first, so a drifting machine slows all alike.
                runs: list[str | int] = ["ours", *distinct[case.peer]]
                for who in runs if k % 2 == 0 else runs[::-1]:
                    if who == "ours":
                        cost, s = _ours(case, inputs[n], wdir)
                        ours[n].append(cost)
                        our_facts[n] = s
                        our_core[n].append(float(s["wall_s"]))
                        label = "ours"
                    else:
                        i = int(who)
                        sub = wdir / f"peers{i}" if len(dirs) > 1 else wdir
                        pcost, m = _peer(case, dirs[i], inputs[n], sub)
                        theirs.setdefault((n, i), []).append(pcost)
                        peer_facts[(n, i)] = m
                        label = case.peer + (f" ({dirs[i]})" if len(dirs) > 1 else "")
                    print(f"  {n}: {label} run {k + 1}/{repeat}", file=sys.stderr, flush=True)
        rows = []
        for n in names:
            for i in distinct[CASES[n].peer]:
                f = {"ours": our_facts[n], "peer": peer_facts[(n, i)], "core": our_core[n]}
                r = _row(CASES[n], ours[n], theirs[(n, i)], f)
                r["peers_dir"] = str(dirs[i])
                r["peer_build"] = builds[i][CASES[n].peer]
                rows.append(r)
    for r in rows:
        print_row(r)
    return rows


def _row(
    case: VersusCase, ours: list[ProcessCost], theirs: list[ProcessCost], facts: dict[str, Any]
) -> dict[str, Any]:
    o_wall, p_wall = _med([c.wall_s for c in ours]), _med([c.wall_s for c in theirs])
    o_cpu, p_cpu = _med([c.cpu_s for c in ours]), _med([c.cpu_s for c in theirs])
    s, m = facts["ours"], facts["peer"]
    ratio = p_wall / o_wall
    return {
        "case": case.name,
        "peer": case.peer,
        "requests": case.requests,
        "repeats": len(ours),
        "flashsched_wall_s": round(o_wall, 3),
        "flashsched_core_s": round(_med(facts["core"]), 3),
        "flashsched_cpu_s": round(o_cpu, 3),
        "flashsched_peak_rss_mib": round(max(c.peak_rss_mib for c in ours), 1),
        "peer_wall_s": round(p_wall, 3),
        "peer_cpu_s": round(p_cpu, 3),
        "peer_peak_rss_mib": round(max(c.peak_rss_mib for c in theirs), 1),
        "flashsched_wall_all": [round(c.wall_s, 3) for c in ours],
        "peer_wall_all": [round(c.wall_s, 3) for c in theirs],
        "speedup_wall": round(ratio, 2),
        "speedup_cpu": round(p_cpu / o_cpu, 2),
        "target": case.target_ratio,
        "verdict": "met" if ratio >= case.target_ratio else "MISSED",
        "flashsched_mean_us": round(s["latency_us"]["mean"], 1),
        "peer_mean_us": m.get("mean_us"),
        "flashsched_gc_pages_moved": s["gc"]["pages_moved"],
        "peer_gc_pages_moved": m.get("gc_pages_moved"),
    }


def print_row(r: dict[str, Any]) -> None:
    build = r.get("peer_build", {})
    opt = "/".join(build.get("optimisation", [])) or "?"
    print(
        f"{r['case']:<15} {r['requests']:>9,} req  flashsched {r['flashsched_wall_s']:7.2f} s "
        f"(core {r['flashsched_core_s']:.2f} s, CPU {r['flashsched_cpu_s']:.2f} s, "
        f"{r['flashsched_peak_rss_mib']:.0f} MiB)  "
        f"{r['peer']} [{opt}] {r['peer_wall_s']:7.2f} s (CPU {r['peer_cpu_s']:.2f} s, "
        f"{r['peer_peak_rss_mib']:.0f} MiB)  {r['speedup_wall']:.1f}x wall, "
        f"{r['speedup_cpu']:.1f}x CPU (target {r['target']:.0f}x) [{r['verdict']}]"
    )
    pm = r["peer_mean_us"]
    print(
        f"{'':<15} same work? mean latency {r['flashsched_mean_us']:,.1f} vs "
        f"{pm if pm is None else f'{pm:,.1f}'} us; GC pages moved "
        f"{r['flashsched_gc_pages_moved']:,} vs {r['peer_gc_pages_moved'] or 0:,.0f}"
    )
