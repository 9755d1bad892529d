"""Trace-parsing benchmark (issue #8): ``flashsched bench --parse``.

For every reader, a large trace is generated from the real sample of its
format by repetition, each copy's timestamps (and blkparse sequence numbers)
shifted past the previous copy's, so the file reads like one long trace.
Files go to a temporary directory (never into the project) and are reused
by later runs with the same line count. Each format is then read completely
by ``_core.scan_trace`` in a fresh interpreter; reported: wall and CPU time,
lines per second, and peak RSS (which must not grow with the file: the
readers stream).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Shift = Callable[[str, int], str]


def _dec(s: str, k: int) -> str:
    """Add the integer ``k`` to a decimal string, keeping its fraction digits."""
    if "." in s:
        a, b = s.split(".", 1)
        return f"{int(a or 0) + k}.{b}"
    return str(int(s) + k)


def _field(idx: int, step: int, sep: str | None = None) -> Shift:
    def shift(line: str, rep: int) -> str:
        f = line.split(sep)
        f[idx] = _dec(f[idx], rep * step)
        return (sep or " ").join(f)

    return shift


def _blkparse(line: str, rep: int) -> str:
    f = line.split()
    seq = int(f[2]) + rep * 10_000_000
    t = _dec(f[3], rep * 2000)
    return f"{f[0]:>5} {f[1]:>3} {seq:>8} {t:>14} {f[4]:>5}  " + " ".join(f[5:])


def _is_event(line: str) -> bool:
    f = line.split()
    return len(f) >= 7 and f[0].replace(",", "").isdigit() and "," in f[0]


def _is_fiu(line: str) -> bool:
    f = line.split()
    return len(f) >= 9 and f[0].isdigit()


def _is_data(line: str) -> bool:
    return bool(line.strip()) and not line.startswith("#")


# format -> (sample under the traces dir, timestamp shifter, line filter)
CASES: dict[str, tuple[str, Shift, Callable[[str], bool]]] = {
    "msr": ("msr/hm_0.first1000.csv", _field(0, 1_300_000_000, ","), _is_data),
    "spc": ("umass/WebSearch1.first10.spc", _field(4, 1, ","), _is_data),
    "ascii-ns": ("ascii/websearch1.mqsim-ns.trace", _field(0, 61_000_000_000), _is_data),
    "ascii-ms": ("ascii/disksim-valid.ms.trace", _field(0, 1_600_000, "\t"), _is_data),
    "ssdsim": ("ascii/ssdsim-example.ns.ascii", _field(0, 260_000_000_000), _is_data),
    "blkparse": ("blkparse/ycsb-ext4.blkparse.txt", _blkparse, _is_event),
    "fiu": ("blkparse/fiu-mail-cheetah.first10000.blkparse", _field(0, 30_000_000_000), _is_fiu),
    "heimdall": ("msr/msr.cut.per_10k.rw_20_80.105.trace", _field(0, 250_000), _is_data),
}


def traces_dir() -> Path:
    """``$FLASHSCHED_TRACES``, else ``../shared/traces`` from the working directory."""
    d = Path(os.environ.get("FLASHSCHED_TRACES") or Path.cwd().parent / "shared" / "traces")
    if not d.is_dir():
        raise FileNotFoundError(f"sample traces not found at {d} (set FLASHSCHED_TRACES)")
    return d


def _sample_lines(path: Path, keep: Callable[[str], bool]) -> list[str]:
    """The sample's record lines (tar junk and summary lines left out)."""
    lines = []
    for raw in path.read_bytes().split(b"\n"):
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if b"\0" not in raw and keep(text):
            lines.append(text)
    return lines


def _lines(fmt: str, n: int) -> Iterator[str]:
    sample, shift, keep = CASES[fmt]
    base = _sample_lines(traces_dir() / sample, keep)
    rep = 0
    while True:
        for line in base:
            if n == 0:
                return
            yield shift(line, rep)
            n -= 1
        rep += 1


def generate(fmt: str, n: int, out_dir: Path) -> Path:
    """The generated trace of ``n`` lines (reused when already there)."""
    out = out_dir / f"{fmt}.{n}.trace"
    if out.exists():
        return out
    tmp = out.with_suffix(".part")
    with tmp.open("w") as f:
        batch: list[str] = []
        for line in _lines(fmt, n):
            batch.append(line)
            if len(batch) == 100_000:
                f.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            f.write("\n".join(batch) + "\n")
    tmp.rename(out)
    return out


def measure(path: str, fmt: str) -> dict[str, Any]:
    """Read one file completely in this process."""
    import resource
    import time

    from flashsched import _core

    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    st = _core.scan_trace(path, fmt)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {
        "format": fmt,
        "lines": st["lines"],
        "records": st["records"],
        "bytes": os.path.getsize(path),
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "lines_per_s": round(st["lines"] / wall),
        "lines_per_cpu_s": round(st["lines"] / max(cpu, 1e-9)),
        "peak_rss_mib": round(r1.ru_maxrss / 1024, 1),
    }


def _isolated(path: Path, fmt: str) -> dict[str, Any]:
    from flashsched.bench import isolated

    return isolated(
        "import json; from flashsched.bench_parse import measure; "
        f"print(json.dumps(measure({str(path)!r}, {fmt!r})))"
    )


def main(formats: list[str], lines: int, out_dir: str | None = None) -> list[dict[str, Any]]:
    """Generate (or reuse) and read one large trace per format."""
    d = Path(out_dir or Path(tempfile.gettempdir()) / "flashsched-parse-bench")
    d.mkdir(parents=True, exist_ok=True)
    print(f"# flashsched bench --parse: {lines:,} lines per format, files in {d}")
    rows = []
    for fmt in formats:
        path = generate(fmt, lines, d)
        _isolated(path, fmt)  # warm the page cache: measure parsing, not the disk
        r = _isolated(path, fmt)
        rows.append(r)
        print(
            f"{fmt:<9} {r['lines']:>11,} lines {r['bytes'] / 2**20:8.0f} MiB  "
            f"wall {r['wall_s']:6.2f} s  {r['lines_per_s'] / 1e6:6.2f} M lines/s  "
            f"cpu {r['cpu_s']:6.2f} s  {r['lines_per_cpu_s'] / 1e6:6.2f} M lines/cpu-s  "
            f"peak RSS {r['peak_rss_mib']:6.1f} MiB"
        )
    return rows
