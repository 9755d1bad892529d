"""MQSim's ``workload.xml`` → flashsched workloads.

Every flow of every ``<IO_Scenario>`` becomes one workload: a synthetic flow
becomes a synthetic spec (read share, pattern, sizes, queue depth or rate,
working set as a share of the device, seed, stop time or request count); a
trace-based flow becomes trace settings (``ascii-ns`` with the time unit
folded into the intensity, a request limit for a partial replay). A flow's
preconditioning level and caching mode become device settings of its own
(``ftl.precondition_fill``, ``cache.mib = 0``). MQSim runs the flows of a
scenario side by side; flashsched runs each alone (reported).
"""

from __future__ import annotations

import math
from pathlib import Path

from flashsched.importers import xmltree
from flashsched.importers.fields import Fields, Raw
from flashsched.importers.mqsim import ROOT as DEVICE_ROOT
from flashsched.importers.mqsim import WORKLOAD_ROOT
from flashsched.importers.notes import APPROXIMATED, IGNORED, UNSUPPORTED, Notes
from flashsched.importers.workloads import ImportedWorkload, WorkloadImport

SYNTHETIC = "IO_Flow_Parameter_Set_Synthetic"
TRACE = "IO_Flow_Parameter_Set_Trace_Based"
SECTOR = 512

# MQSim's defaults for flow keys a file may leave out (zero when it sets none).
COMMON_DEFAULTS: dict[str, Raw] = {
    "Priority_Class": "HIGH",
    "Device_Level_Data_Caching_Mode": "WRITE_CACHE",
    "Initial_Occupancy_Percentage": 0,
}
SYNTHETIC_DEFAULTS: dict[str, Raw] = {
    **COMMON_DEFAULTS,
    "Working_Set_Percentage": 100,
    "Synthetic_Generator_Type": "QUEUE_DEPTH",
    "Read_Percentage": 100,
    "Address_Distribution": "RANDOM_UNIFORM",
    "Percentage_of_Hot_Region": 0,
    "Generated_Aligned_Addresses": True,
    "Address_Alignment_Unit": 8,
    "Request_Size_Distribution": "FIXED",
    "Variance_Request_Size": 0,
    "Average_No_of_Reqs_in_Queue": 1,
    "Bandwidth": 0,
    "Stop_Time": 0,
    "Total_Requests_To_Generate": 0,
}
TRACE_DEFAULTS: dict[str, Raw] = {
    **COMMON_DEFAULTS,
    "Percentage_To_Be_Executed": 100,
    "Relay_Count": 1,
    "Time_Unit": "NANOSECOND",
}
CACHING = ("TURNED_OFF", "WRITE_CACHE", "READ_CACHE", "WRITE_READ_CACHE")
# Trace time unit -> intensity that makes ascii-ns timestamps right.
TIME_UNITS = {"PICOSECOND": 1000.0, "NANOSECOND": 1.0, "MICROSECOND": 0.001}
ID_LISTS = ("Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs")


def load(path: str | Path) -> WorkloadImport:
    """Convert an MQSim ``workload.xml``; malformed input raises
    ImporterError naming the file, line and element."""
    path = Path(path)
    notes = Notes(path.name)
    root = xmltree.parse(path)
    if root.tag == DEVICE_ROOT:
        raise notes.error(
            root.tag, "this is an MQSim device file: use `flashsched import mqsim`", root.line
        )
    if root.tag != WORKLOAD_ROOT:
        raise notes.error(root.tag, f"expected an MQSim <{WORKLOAD_ROOT}> document", root.line)
    out = WorkloadImport(f"MQSim {path.name}", notes, name=path.stem)
    scenarios = [c for c in root.children if c.tag == "IO_Scenario"]
    for c in root.children:
        if c.tag != "IO_Scenario":
            notes.add(UNSUPPORTED, c.tag, "not an element MQSim reads here", c.line)
    for s, scen in enumerate(scenarios, 1):
        flows = [f for f in scen.children if f.tag in (SYNTHETIC, TRACE)]
        for f in scen.children:
            if f.tag not in (SYNTHETIC, TRACE):
                notes.add(UNSUPPORTED, f.tag, "not a flow type MQSim reads", f.line)
        if len(flows) > 1:
            notes.add(
                APPROXIMATED,
                f"IO_Scenario {s}",
                f"MQSim runs its {len(flows)} flows side by side; here each is its own workload",
                scen.line,
            )
        for i, flow in enumerate(flows, 1):
            name = f"scenario{s}_flow{i}"
            out.workloads[name] = _flow(name, flow, path, notes)
    if not out.workloads:
        raise notes.error(WORKLOAD_ROOT, "holds no flow", root.line)
    return out


def _fields(flow: xmltree.Element, notes: Notes, defaults: dict[str, Raw]) -> Fields:
    values: dict[str, tuple[str, int]] = {}
    for e in flow.children:
        if e.tag in values:
            raise notes.error(e.tag, f"given twice (lines {values[e.tag][1]} and {e.line})", e.line)
        values[e.tag] = (e.text, e.line)
    return Fields(notes, values, defaults)


def _flow(name: str, flow: xmltree.Element, path: Path, notes: Notes) -> ImportedWorkload:
    synthetic = flow.tag == SYNTHETIC
    f = _fields(flow, notes, SYNTHETIC_DEFAULTS if synthetic else TRACE_DEFAULTS)
    w = ImportedWorkload(
        name=name, description=f"MQSim {'synthetic' if synthetic else 'trace'} flow ({name})"
    )
    _common(w, f)
    if synthetic:
        _synthetic(w, f)
    else:
        _trace(w, f, path)
    f.report_unused("not a key MQSim reads for this flow type")
    return w


def _common(w: ImportedWorkload, f: Fields) -> None:
    f.choice("Priority_Class", ["URGENT", "HIGH", "MEDIUM", "LOW"])
    f.note(IGNORED, "Priority_Class", "a run has one flow; priority classes order flows")
    mode = f.choice("Device_Level_Data_Caching_Mode", list(CACHING))
    if mode == "TURNED_OFF":
        w.settings["cache.mib"] = 0.0
    elif mode == "READ_CACHE":
        w.settings["cache.mib"] = 0.0
        f.note(
            APPROXIMATED,
            "Device_Level_Data_Caching_Mode",
            "flashsched caches written pages only: no cache",
        )
    elif mode == "WRITE_READ_CACHE":
        f.note(
            APPROXIMATED,
            "Device_Level_Data_Caching_Mode",
            "flashsched's cache answers reads of pages written to it, not of pages read before",
        )
    for key in ID_LISTS:
        t = f.text(key) if f.has(key) else ""
        if t and not all(p.strip().isdigit() for p in t.split(",")):
            raise f.notes.error(key, f"`{t}` is not a comma-separated list of numbers", f.line(key))
    f.note_group(
        IGNORED, list(ID_LISTS), "the flow uses the whole device (partitions are not modelled)"
    )
    occupancy = f.number("Initial_Occupancy_Percentage", hi=100)
    w.settings["ftl.precondition_fill"] = occupancy / 100.0


def _duration(ns: int) -> str:
    for unit, div in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns % div == 0:
            return f"{ns // div}{unit}"
    return f"{ns}ns"


def _synthetic(w: ImportedWorkload, f: Fields) -> None:
    parts = [f"read={f.number('Read_Percentage', hi=100) / 100:g}"]
    dist = f.choice("Address_Distribution", ["STREAMING", "RANDOM_UNIFORM", "RANDOM_HOTCOLD"])
    parts.append("pattern=seq" if dist == "STREAMING" else "pattern=random")
    if dist == "RANDOM_HOTCOLD":
        f.note(
            APPROXIMATED,
            "Address_Distribution",
            "hot/cold skew is not modelled: uniform over the working set",
        )
        f.note(UNSUPPORTED, "Percentage_of_Hot_Region", "hot/cold skew is not modelled")
    else:
        f.note(IGNORED, "Percentage_of_Hot_Region", "used only with RANDOM_HOTCOLD")
    align = SECTOR
    if f.flag("Generated_Aligned_Addresses"):
        align = f.integer("Address_Alignment_Unit", lo=1) * SECTOR
    else:
        f.note(
            IGNORED, "Address_Alignment_Unit", "used only with Generated_Aligned_Addresses = true"
        )
    mean = f.integer("Average_Request_Size", lo=1)
    sd = f.number("Variance_Request_Size")
    if f.choice("Request_Size_Distribution", ["FIXED", "NORMAL"]) == "NORMAL" and sd > 0:
        # A uniform range with the normal's mean and spread (mean +- sqrt(3) sd).
        half = sd * math.sqrt(3)
        lo, hi = max(1, round(mean - half)), max(1, round(mean + half))
        parts.append(f"bs={lo * SECTOR}-{hi * SECTOR}")
        align = SECTOR if (hi - lo) * SECTOR % align else align
        f.note(
            APPROXIMATED,
            "Request_Size_Distribution",
            f"NORMAL sizes become uniform over {lo}-{hi} sectors (same mean and spread)",
        )
    else:
        parts.append(f"bs={mean * SECTOR}")
        if sd > 0:
            f.note(IGNORED, "Variance_Request_Size", "used only with NORMAL sizes")
    parts.append(f"align={align}")
    gen = f.choice("Synthetic_Generator_Type", ["QUEUE_DEPTH", "BANDWIDTH"])
    if gen == "QUEUE_DEPTH":
        parts.append(f"qd={f.integer('Average_No_of_Reqs_in_Queue', lo=1)}")
        f.note(IGNORED, "Bandwidth", "used only with BANDWIDTH flows")
    else:
        bw = f.integer("Bandwidth", lo=1)
        # MQSim: mean arrival gap = 1 s / (Bandwidth / sector / mean size), exponential.
        parts.append(f"iops={bw / SECTOR / mean:g}")
        parts.append("arrival=poisson")
        f.note(IGNORED, "Average_No_of_Reqs_in_Queue", "used only with QUEUE_DEPTH flows")
    ws = f.number("Working_Set_Percentage", hi=100)
    if ws <= 0:
        raise f.notes.error(
            "Working_Set_Percentage", "must be above 0", f.line("Working_Set_Percentage")
        )
    parts.append(f"span={ws:g}%")
    stop = f.integer("Stop_Time")
    total = f.integer("Total_Requests_To_Generate")
    if stop > 0:
        parts.append(f"time={_duration(stop)}")
        if total:
            f.note(IGNORED, "Total_Requests_To_Generate", "MQSim uses it only when Stop_Time = 0")
    elif total > 0:
        parts.append(f"n={total}")
    else:
        raise f.notes.error(
            "Stop_Time",
            "and Total_Requests_To_Generate are both 0: nothing ends the flow",
            f.line("Stop_Time"),
        )
    if f.has("Seed"):
        parts.append(f"seed={f.integer('Seed')}")
    f.note(
        UNSUPPORTED,
        "Intensity",
        "MQSim does not read this key (a BANDWIDTH flow's rate is `Bandwidth`)",
    )
    w.synthetic = ",".join(parts)


def _trace(w: ImportedWorkload, f: Fields, path: Path) -> None:
    trace = f.text("File_Path")
    if not trace:
        raise f.notes.error("File_Path", "is empty", f.line("File_Path"))
    w.trace = trace
    w.format = "ascii-ns"
    unit = f.choice("Time_Unit", list(TIME_UNITS))
    if unit != "NANOSECOND":
        w.intensity = TIME_UNITS[unit]
        f.note(
            APPROXIMATED,
            "Time_Unit",
            f"read as ascii-ns with intensity {TIME_UNITS[unit]:g} (the same arrival times)",
        )
    pct = f.integer("Percentage_To_Be_Executed")
    if not 0 < pct <= 100:
        raise f.notes.error(
            "Percentage_To_Be_Executed",
            f"{pct} is outside 1-100",
            f.line("Percentage_To_Be_Executed"),
        )
    if pct < 100:
        found = next((p for p in (Path(trace), path.parent / trace) if p.is_file()), None)
        if found is None:
            f.note(
                UNSUPPORTED,
                "Percentage_To_Be_Executed",
                f"{trace} not found to count its requests: no limit set",
            )
        else:
            with found.open("rb") as fh:
                lines = sum(1 for ln in fh if ln.strip())
            w.limit = max(1, lines * pct // 100)
    replays = f.integer("Relay_Count", lo=1)
    if replays > 1:
        f.note(UNSUPPORTED, "Relay_Count", f"the trace is replayed once, not {replays} times")
