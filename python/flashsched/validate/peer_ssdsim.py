"""Running a case on SSDsim (built from its public repository, outside the
project) and reading its numbers. Used only to regenerate the stored data.

A case gives the ``page.parameters`` keys it changes from the shipped file.
SSDsim asks for the trace file name on stdin and writes per-request lines
(``ex.out``: arrival, lsn, size, op, begin, end, latency in ns) and counters
(``statistic10.dat``).

End marker: SSDsim advances its clock only while it reads trace lines, so
after the last line it can wait forever for requests still on the flash.
The input it gets is therefore the trace cut plus one marker line, 10 s
after the last arrival: a one-sector read of the first sector of the last
write, which the write buffer still holds. Reaching it, SSDsim first runs
every pending event (so all real requests complete), then serves the
marker from DRAM at once and ends normally. The marker is left out of
the latencies; it adds one buffer read hit and no flash operation.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from flashsched.proctime import timed
from flashsched.validate.cases import Case

MARKER_GAP_NS = 10_000_000_000
TRACE_NAME = "input.trace"


def parameters(shipped: str, changes: dict[str, str]) -> str:
    """The shipped ``page.parameters`` with ``changes`` (each key once)."""
    text = shipped
    for key, value in changes.items():
        text, n = re.subn(rf"(?m)^{re.escape(key)}\s*=\s*[^;]*;", f"{key}={value};", text)
        if n != 1:
            raise KeyError(f"page.parameters key {key!r} occurs {n} times")
    return text


def with_marker(trace: str) -> tuple[str, tuple[int, int]]:
    """The trace plus the end marker, and the marker's (arrival, lsn)."""
    last_t, last_write = 0, None
    for line in trace.splitlines():
        f = line.split()
        if f:
            last_t = int(f[0])
            if int(f[4]) & 1 == 0:
                last_write = int(f[2])
    if last_write is None:
        raise ValueError("SSDsim's end marker needs a write in the trace")
    t = last_t + MARKER_GAP_NS
    return trace + f"{t} 0 {last_write} 1 1\n", (t, last_write)


def _pct(values: list[int], q: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return 0.0
    k = min(len(values), max(1, math.ceil(q * len(values) - 1e-9)))
    return float(values[k - 1])


def latencies(ex_out: str, marker: tuple[int, int]) -> dict[str, list[int]]:
    """Per-request latencies (ns) by op from ``ex.out``, without the marker."""
    lat: dict[str, list[int]] = {"read": [], "write": []}
    started = False
    for line in ex_out.splitlines():
        if not started:
            started = line.strip().startswith("arrive")
            continue
        f = line.split()
        if len(f) != 7 or not f[0].isdigit():
            continue
        if (int(f[0]), int(f[1])) == marker:
            continue
        lat["read" if f[3] == "1" else "write"].append(int(f[6]))
    return lat


def counters(stat: str) -> dict[str, float]:
    """``name: value`` lines of the statistics block of ``statistic10.dat``."""
    block = stat.split("statistic data")[-1]
    out = {}
    for line in block.splitlines():
        m = re.match(r"\s*([A-Za-z][A-Za-z \-]*?):\s*(-?[0-9.]+)", line)
        if m:
            out[m.group(1).strip().replace(" ", "_")] = float(m.group(2))
    return out


def _param(text: str, key: str) -> float:
    m = re.search(rf"(?m)^{re.escape(key)}\s*=\s*([0-9.]+)", text)
    if m is None:
        raise KeyError(f"page.parameters has no {key!r}")
    return float(m.group(1))


def placed_pages(trace: str, params: str) -> int:
    """Pages SSDsim's pre-processing places before the run: one per distinct
    logical page of any read (its way of giving never-written data a home),
    with its sector-to-page split and its fold of sector numbers."""
    spp = int(_param(params, "subpage page"))
    sectors = (
        _param(params, "chip number")
        * _param(params, "die number")
        * _param(params, "plane number")
        * _param(params, "block number")
        * _param(params, "page number")
        * spp
    )
    largest = int(sectors * (1 - _param(params, "overprovide")))
    pages = set()
    for line in trace.splitlines():
        f = line.split()
        if not f or int(f[4]) != 1:
            continue
        lsn, size, done = int(f[2]), int(f[3]), 0
        while done < size:
            lsn %= largest
            step = min(spp - lsn % spp, size - done)
            pages.add(lsn // spp)
            done += step
            lsn += step
    return len(pages)


def metrics(lat: dict[str, list[int]], stat: dict[str, float], placed: int) -> dict[str, float]:
    """The compared metrics. SSDsim counts each read-modify-write read of a
    partial page twice in its read count (when planned and when run); the
    planned count is taken out (they are also reported on their own). Its write_flash_count also
    counts the ``placed`` pages of its pre-processing, which are taken out
    too (flashsched places such pages without a program)."""
    out: dict[str, float] = {}
    n = sum(len(v) for v in lat.values())
    out["mean_us"] = sum(sum(v) for v in lat.values()) / n / 1000
    for op in ("read", "write"):
        v = sorted(lat[op])
        if v:
            out[f"{op}_mean_us"] = sum(v) / len(v) / 1000
            out[f"{op}_p99_us"] = _pct(v, 0.99) / 1000
    update = stat["the_read_operation_leaded_by_un-covered_update_count"]
    out["flash_reads"] = stat["read_count"] - update
    out["flash_programs"] = stat["write_flash_count"] - placed
    out["flash_erases"] = stat["erase_count"]
    out["flash_update_reads"] = update
    return out


def run(
    case: Case, ssdsim: Path, cut: Path, workdir: Path, timeout_s: float = 600.0
) -> dict[str, Any]:
    """Run ``case`` with the SSDsim checkout at ``ssdsim`` (binary ``ssd``
    and the shipped ``page.parameters``) in ``workdir``; the peer result."""
    changes = {str(k): str(v) for k, v in case.peer_settings.get("page.parameters", {}).items()}
    workdir.mkdir(parents=True, exist_ok=True)
    shipped = (ssdsim / "page.parameters").read_text(errors="surrogateescape")
    params = parameters(shipped, changes)
    (workdir / "page.parameters").write_text(params, errors="surrogateescape")
    text, marker = with_marker(cut.read_text())
    (workdir / TRACE_NAME).write_text(text)
    for name in ("ex.out", "statistic10.dat", "statistic2.dat"):
        (workdir / name).unlink(missing_ok=True)
    with (workdir / "stdout.txt").open("w") as log:
        cost = timed(
            [str(ssdsim / "ssd")],
            cwd=workdir,
            stdin=f"{TRACE_NAME}\n".encode(),
            stdout=log,
            timeout=timeout_s,
        )
    rc = cost.returncode
    if cost.timed_out:
        raise RuntimeError(f"SSDsim ran over {timeout_s:.0f} s on {case.name}; see {workdir}")
    lat = latencies((workdir / "ex.out").read_text(errors="replace"), marker)
    expected = sum(1 for line in cut.read_text().splitlines() if line.strip())
    done = len(lat["read"]) + len(lat["write"])
    if done != expected:
        raise RuntimeError(
            f"SSDsim completed {done} of {expected} requests of {case.name} "
            f"(exit {rc}); see {workdir}"
        )
    stat = counters((workdir / "statistic10.dat").read_text(errors="replace"))
    if "write_flash_count" not in stat:
        raise RuntimeError(f"SSDsim wrote no statistics for {case.name} (exit {rc}); see {workdir}")
    return {
        "metrics": metrics(lat, stat, placed_pages(text, params)),
        "command": f"echo {TRACE_NAME} | ssd  (input: the trace cut plus the end marker)",
        "wall_s": round(cost.wall_s, 1),
        "cost": cost,
    }
