"""A subset of fio job files → flashsched synthetic workloads.

Each job (``[global]`` options apply to the jobs after them, as in fio)
becomes one synthetic spec written in fio's own words, which synthetic
specs accept (``rw=randrw,rwmixread=70,bs=4k,iodepth=32,size=1g``; see
``workload/fio_words.rs`` for what they mean). fio's defaults that differ
from the spec's are made explicit (``rw=read``, ``iodepth=1``, evenly
spaced arrivals under ``rate_iops``). Host-side options (ioengine, direct,
filename ...) are reported as ignored, options outside the subset as
unsupported; malformed values raise ImporterError naming file:line and
option.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from flashsched.importers.notes import APPROXIMATED, IGNORED, UNSUPPORTED, Notes
from flashsched.importers.workloads import ImportedWorkload, WorkloadImport

# Canonical option -> its spellings (the first is what the spec is written with).
SUPPORTED = {
    "rw": ("rw", "readwrite"),
    "rwmixread": ("rwmixread",),
    "rwmixwrite": ("rwmixwrite",),
    "bs": ("bs", "blocksize"),
    "bsrange": ("bsrange", "blocksize_range"),
    "blockalign": ("blockalign", "ba"),
    "iodepth": ("iodepth",),
    "rate_iops": ("rate_iops",),
    "size": ("size", "filesize"),
    "io_size": ("io_size", "io_limit"),
    "number_ios": ("number_ios",),
    "offset": ("offset", "fileoffset"),
    "runtime": ("runtime", "timeout"),
    "time_based": ("time_based",),
    "numjobs": ("numjobs",),
}
# Options used for naming or the spec's own keys.
OWN = {"name", "description", "randseed", "rate_process", "norandommap", "random_distribution"}
HOST_SIDE = {
    "ioengine", "direct", "buffered", "filename", "directory", "filename_format",
    "group_reporting", "thread", "invalidate", "end_fsync", "fsync_on_close", "unlink",
    "overwrite", "create_serialize", "create_fsync", "create_on_open", "allow_mounted_write",
    "cpus_allowed", "cpumask", "nice", "prio", "prioclass", "exitall", "exitall_on_error",
    "zero_buffers", "refill_buffers", "scramble_buffers", "buffer_compress_percentage",
    "dedupe_percentage", "randrepeat", "random_generator", "fallocate", "lockmem",
    "write_bw_log", "write_lat_log", "write_iops_log", "log_avg_msec", "per_job_logs",
    "lat_percentiles", "clat_percentiles", "slat_percentiles", "percentile_list",
    "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement", "kb_base",
    "unit_base", "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
    "gtod_reduce", "clocksource", "ioscheduler", "stats",
}  # fmt: skip
UNSUPPORTED_WHY = {
    "rate": "bandwidth caps are not modelled (use rate_iops)",
    "thinktime": "think time between I/Os is not modelled",
    "ramp_time": "a warm-up period is not modelled (results cover the whole run)",
    "startdelay": "delayed job starts are not modelled",
    "loops": "repeated passes are not modelled (raise size or number_ios)",
    "bssplit": "weighted block-size mixes are not modelled (bs=4k/64k picks uniformly)",
    "percentage_random": "partly random jobs are not modelled",
    "offset_increment": "per-clone offsets are not modelled",
    "fsync": "flushes are not simulated",
    "fdatasync": "flushes are not simulated",
    "verify": "data verification is not simulated",
    "do_verify": "data verification is not simulated",
    "stonewall": "jobs are separate workloads (each its own run)",
    "wait_for_previous": "jobs are separate workloads (each its own run)",
    "new_group": "jobs are separate workloads (each its own run)",
    "zonemode": "zoned devices are not modelled",
}
RW_VALUES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw")
SIZE = re.compile(r"^\d+(\.\d+)?([kmgt]i?b?|b)?$", re.IGNORECASE)
DURATION = re.compile(r"^\d+(\.\d+)?\s*(us|ms|s|m|h|d)?$")
VAR = re.compile(r"\$\{(\w+)\}")


@dataclass
class Option:
    name: str
    value: str
    line: int


def _sections(path: Path, notes: Notes) -> list[tuple[str, int, list[Option]]]:
    """``[name]`` sections with their options in order."""
    sections: list[tuple[str, int, list[Option]]] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        # A comment after a value starts at whitespace followed by ; or #.
        line = re.split(r"\s[;#]", line, maxsplit=1)[0].strip()
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise notes.error(line, "malformed section header (expected `[name]`)", n)
            sections.append((line[1:-1].strip(), n, []))
            continue
        if line.startswith("include "):
            notes.add(
                UNSUPPORTED, "include", f"{line[8:].strip()} is not read: put its options here", n
            )
            continue
        if not sections:
            raise notes.error(line.split("=")[0].strip(), "option before any [section]", n)
        name, _, val = line.partition("=")
        name, val = name.strip(), val.strip()

        sections[-1][2].append(Option(name, _expand(val, name, n, notes), n))
    return sections


def _expand(val: str, name: str, line: int, notes: Notes) -> str:
    """fio's ``${VAR}``: the environment variable's value."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) not in os.environ:
            raise notes.error(name, f"environment variable {m.group(1)} is not set", line)
        return os.environ[m.group(1)]

    return VAR.sub(one, val)


def load(path: str | Path) -> WorkloadImport:
    """Convert a fio job file; every job becomes a synthetic workload."""
    path = Path(path)
    notes = Notes(path.name)
    out = WorkloadImport(f"fio job file {path.name}", notes, name=path.stem)
    glob: list[Option] = []
    for name, line, opts in _sections(path, notes):
        if name == "global":
            glob = glob + opts
            continue
        if not name or ":" in name:
            raise notes.error(f"[{name}]", "a job name must be non-empty, without `:`", line)
        if name in out.workloads:
            raise notes.error(f"[{name}]", "job defined twice", line)
        out.workloads[name] = _job(name, glob + opts, notes)
    if not out.workloads:
        raise notes.error("jobs", "the file defines no job (only [global] or nothing)")
    if len(out.workloads) > 1:
        notes.add(
            APPROXIMATED,
            "jobs",
            f"fio runs its {len(out.workloads)} jobs side by side; here each is its own workload",
        )
    return out


def _spellings() -> dict[str, str]:
    return {s: canon for canon, names in SUPPORTED.items() for s in names}


def _job(name: str, opts: list[Option], notes: Notes) -> ImportedWorkload:
    spell = _spellings()
    got: dict[str, Option] = {}  # canonical -> last given (a job overrides [global])
    own: dict[str, Option] = {}
    for o in opts:
        if o.name in spell:
            got[spell[o.name]] = o
        elif o.name in OWN:
            own[o.name] = o
        elif o.name in HOST_SIDE:
            notes.add(IGNORED, o.name, "host-side setting, no meaning in the simulator", o.line)
        elif o.name in UNSUPPORTED_WHY:
            notes.add(UNSUPPORTED, o.name, UNSUPPORTED_WHY[o.name], o.line)
        else:
            notes.add(UNSUPPORTED, o.name, "not in the importer's fio subset", o.line)
    for canon, o in got.items():
        _check(canon, o, notes)
    parts: list[str] = []

    def put(canon: str, default: str | None = None) -> None:
        if canon == "time_based":
            if canon in got and _one(got[canon], notes) != "0":
                parts.append(canon)  # a bare flag, as in a job file
        elif canon in got:
            parts.append(f"{canon}={_one(got[canon], notes)}")
        elif default is not None:
            parts.append(f"{canon}={default}")

    put("rw", "read")  # fio's default direction
    rw = got["rw"].value if "rw" in got else "read"
    mixed = rw in ("rw", "readwrite", "randrw")
    for mix in ("rwmixread", "rwmixwrite"):
        if mix in got and not mixed:
            notes.add(IGNORED, got[mix].name, f"fio ignores it for rw={rw}", got[mix].line)
            del got[mix]
    if "rwmixread" in got and "rwmixwrite" in got:
        notes.add(IGNORED, "rwmixwrite", "rwmixread is given too", got["rwmixwrite"].line)
        del got["rwmixwrite"]
    put("rwmixread")
    put("rwmixwrite")
    if "bs" in got and "bsrange" in got:
        notes.add(IGNORED, got["bs"].name, "bsrange is given too", got["bs"].line)
        del got["bs"]
    put("bsrange")
    put("bs", None if "bsrange" in got else "4k")
    put("blockalign")
    if "rate_iops" in got:
        if "iodepth" in got:
            o = got.pop("iodepth")
            notes.add(
                APPROXIMATED,
                o.name,
                "with rate_iops the job is open loop at that rate; the depth cap is not kept",
                o.line,
            )
        put("rate_iops")
        process = own.pop("rate_process", None)
        poisson = process is not None and process.value == "poisson"
        parts.append("arrival=poisson" if poisson else "arrival=uniform")
    else:
        put("iodepth", "1")  # fio's default depth
        if "rate_process" in own:
            o = own.pop("rate_process")
            notes.add(IGNORED, o.name, "used only with rate_iops", o.line)
    for canon in ("size", "offset", "io_size", "number_ios", "runtime", "time_based", "numjobs"):
        put(canon)
    if "time_based" in got and _one(got["time_based"], notes) != "0" and "runtime" not in got:
        o = got["time_based"]
        raise notes.error(o.name, "needs runtime (how long the job runs)", o.line)
    share = "size" in got and got["size"].value.strip().endswith("%")
    timed = "time_based" in got and _one(got["time_based"], notes) != "0"
    if share and not timed and not any(k in got for k in ("io_size", "number_ios")):
        o = got["size"]
        raise notes.error(
            o.name,
            f"{o.value}: a share of the device says nothing about how much I/O ends the job "
            "here: add number_ios or io_size, or time_based with runtime",
            o.line,
        )
    if not any(k in got for k in ("size", "io_size", "number_ios", "runtime")):
        raise notes.error(
            f"[{name}]", "has no size, io_size, number_ios or runtime: nothing says when it ends"
        )
    _own(own, parts, got.get("rw"), notes)
    desc = own["description"].value.strip("\"'") if "description" in own else f"fio job {name}"
    return ImportedWorkload(name=name, description=desc, synthetic=",".join(parts))


def _own(own: dict[str, Option], parts: list[str], rw: Option | None, notes: Notes) -> None:
    if "randseed" in own:
        o = own["randseed"]
        if not o.value.isdigit():
            raise notes.error(o.name, f"`{o.value}` is not an integer", o.line)
        parts.append(f"seed={o.value}")
    dist = own.get("random_distribution")
    if dist is not None and dist.value != "random":
        notes.add(UNSUPPORTED, dist.name, f"{dist.value}: offsets are uniform here", dist.line)
    elif dist is not None:
        notes.match(dist.name, "random (uniform offsets)")
    if "norandommap" in own:
        notes.match("norandommap", "offsets drawn with replacement")
    elif rw is not None and rw.value.startswith("rand"):
        notes.add(
            APPROXIMATED,
            rw.name,
            "random offsets are drawn with replacement (as with fio's norandommap), "
            "not each block once per pass",
            rw.line,
        )
    if "name" in own:
        notes.add(IGNORED, "name", "the section name names the workload", own["name"].line)


def _one(o: Option, notes: Notes) -> str:
    """A value with fio's read,write form collapsed when both are the same."""
    parts = [p.strip() for p in o.value.split(",")]
    vals = {p for p in parts if p}
    if len(vals) > 1:
        raise notes.error(
            o.name, f"`{o.value}`: separate read/write values are not supported", o.line
        )
    return vals.pop() if vals else ""


def _check(canon: str, o: Option, notes: Notes) -> None:
    v = _one(o, notes)

    def bad(what: str) -> Exception:
        return notes.error(o.name, f"`{o.value}` is not {what}", o.line)

    if canon == "time_based":
        if v not in ("", "1", "0"):
            raise bad("0 or 1")
        return
    if not v:
        raise notes.error(o.name, "needs a value", o.line)
    if canon == "rw":
        if ":" in v:
            raise notes.error(o.name, f"`{v}`: the `:N` offset modifier is not supported", o.line)
        if v not in RW_VALUES:
            raise bad(f"a supported direction ({', '.join(RW_VALUES)}; trims are not simulated)")
    elif canon in ("rwmixread", "rwmixwrite"):
        if not (v.replace(".", "", 1).isdigit() and 0 <= float(v) <= 100):
            raise bad("a percentage 0-100")
    elif canon in ("iodepth", "numjobs", "number_ios"):
        if not (v.isdigit() and int(v) > 0):
            raise bad("a positive integer")
    elif canon == "rate_iops":
        if not (v.replace(".", "", 1).isdigit() and float(v) > 0):
            raise bad("a positive number")
    elif canon == "runtime":
        if not DURATION.match(v):
            raise bad("a duration (30, 30s, 2m, 1h)")
    elif canon == "bsrange":
        lo, sep, hi = v.partition("-")
        if not (sep and SIZE.match(lo.strip()) and SIZE.match(hi.strip())):
            raise bad("a size range such as 4k-16k")
    elif canon in ("size", "offset") and v.endswith("%"):
        least = 0 if canon == "offset" else 1e-9
        if not (v[:-1].replace(".", "", 1).isdigit() and least <= float(v[:-1]) <= 100):
            raise bad("a percentage of the device (up to 100%)")
    elif not SIZE.match(v):
        raise bad("a size such as 4k, 64KiB or 16g")
