"""Running a case on MQSim (built from its public repository, outside the
project) and reading its numbers. Used only to regenerate the stored data.

A case gives the ``ssdconfig.xml`` keys it changes from the shipped file
and the IO-flow parameters of its workload; the shipped file is read from
the MQSim checkout at run time. MQSim writes its results as XML next to
the workload file; the per-flow host statistics, the FTL counters and the
GC totals become the metrics of ``metrics.METRICS``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from flashsched.proctime import timed
from flashsched.validate.cases import Case

# IO-flow parameters: the values every case starts from, in the order MQSim
# reads them.
FLOW_COMMON = {
    "Priority_Class": "HIGH",
    "Device_Level_Data_Caching_Mode": "WRITE_CACHE",
    "Channel_IDs": "0,1,2,3,4,5,6,7",
    "Chip_IDs": "0,1,2,3",
    "Die_IDs": "0,1",
    "Plane_IDs": "0,1",
    "Initial_Occupancy_Percentage": "50",
}
FLOW_SYNTHETIC = {
    "Working_Set_Percentage": "100",
    "Synthetic_Generator_Type": "QUEUE_DEPTH",
    "Read_Percentage": "100",
    "Address_Distribution": "RANDOM_UNIFORM",
    "Percentage_of_Hot_Region": "0",
    "Generated_Aligned_Addresses": "true",
    "Address_Alignment_Unit": "8",
    "Request_Size_Distribution": "FIXED",
    "Average_Request_Size": "8",
    "Variance_Request_Size": "0",
    "Seed": "798",
    "Average_No_of_Reqs_in_Queue": "1",
    "Intensity": "32768",
    "Stop_Time": "0",
    "Total_Requests_To_Generate": "20000",
}
FLOW_TRACE = {
    "File_Path": "input.trace",
    "Percentage_To_Be_Executed": "100",
    "Relay_Count": "1",
    "Time_Unit": "NANOSECOND",
}
TRACE_NAME = "input.trace"


def ssdconfig(shipped: str, changes: dict[str, str]) -> str:
    """The shipped ``ssdconfig.xml`` with ``changes`` applied (each key must
    occur exactly once)."""
    text = shipped
    for key, value in changes.items():
        text, n = re.subn(rf"<{key}>[^<]*</{key}>", f"<{key}>{value}</{key}>", text)
        if n != 1:
            raise KeyError(f"ssdconfig.xml key {key} occurs {n} times")
    return text


def workload(flow: dict[str, str], trace: bool) -> str:
    """The workload XML of one IO flow (synthetic, or replaying ``input.trace``)."""
    base = {**FLOW_COMMON, **(FLOW_TRACE if trace else FLOW_SYNTHETIC)}
    unknown = set(flow) - set(base)
    if unknown:
        raise KeyError(f"unknown IO-flow keys {sorted(unknown)}")
    params = {**base, **flow}
    tag = "IO_Flow_Parameter_Set_Trace_Based" if trace else "IO_Flow_Parameter_Set_Synthetic"
    body = "".join(f"\t\t\t<{k}>{v}</{k}>\n" for k, v in params.items())
    return (
        '<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n\t<IO_Scenario>\n'
        f"\t\t<{tag}>\n{body}\t\t</{tag}>\n\t</IO_Scenario>\n</MQSim_IO_Scenarios>\n"
    )


def _num(s: str | None) -> float:
    try:
        return float(s) if s is not None else math.nan
    except ValueError:
        return math.nan


def parse(path: Path) -> dict[str, float]:
    """The host-flow, stream and FTL values of MQSim's result XML."""
    root = ET.parse(path).getroot()
    out: dict[str, float] = {}
    flow = root.find("Host/Host.IO_Flow")
    if flow is None:
        raise ValueError(f"{path}: no Host.IO_Flow element")
    for c in flow:
        if c.tag != "Name":
            out["host." + c.tag] = _num(c.text)
    ftl = root.find("SSDDevice/SSDDevice.FTL")
    if ftl is None:
        raise ValueError(f"{path}: no SSDDevice.FTL element")
    for k, v in ftl.attrib.items():
        out["ftl." + k] = _num(v)
    return out


def metrics(raw: dict[str, float], planes: int) -> dict[str, float]:
    """The compared metrics. Page counts: a multi-plane command moves one
    page per plane; MQSim counts translation-page reads and programs among
    its read and program commands, so they are taken out (and the reads
    reported on their own)."""

    def f(key: str) -> float:
        return raw["ftl.Issued_Flash_" + key]

    map_reads, map_programs = f("Read_CMD_For_Mapping"), f("Program_CMD_For_Mapping")
    reads = f("Read_CMD") + planes * f("Multiplane_Read_CMD") - map_reads
    programs = f("Program_CMD") + planes * f("Multiplane_Program_CMD") - map_programs
    erases = f("Erase_CMD") + planes * f("Multiplane_Erase_CMD")
    commands = (
        f("Read_CMD")
        + f("Multiplane_Read_CMD")
        + f("Program_CMD")
        + f("Multiplane_Program_CMD")
        + f("Erase_CMD")
        + f("Multiplane_Erase_CMD")
        - map_reads
        - map_programs
    )
    gcs = raw["ftl.Total_GC_Executions"]
    moved = gcs * raw["ftl.Average_Page_Movement_For_GC"] if gcs else 0.0
    # MQSim's IOPS divides by the simulated time in whole seconds (infinite
    # under a second), so it is not used.
    out: dict[str, float] = {"mean_us": raw["host.End_to_End_Request_Delay"]}
    out.update(
        flash_reads=reads,
        flash_programs=programs,
        flash_erases=erases,
        flash_commands=commands,
        gc_count=gcs,
        gc_pages_moved=round(moved),
    )
    if map_reads:
        out["flash_mapping_reads"] = map_reads
    return out


def _check_complete(case: Case, workdir: Path, flow: dict[str, str], cut: Path | None) -> None:
    """MQSim can stop early (a GC deadlock leaves its event queue empty) and
    still write results: every request must have been generated and served."""
    if cut is not None:
        expected = sum(1 for line in cut.read_text().splitlines() if line.strip())
    else:
        expected = int(
            flow.get("Total_Requests_To_Generate", FLOW_SYNTHETIC["Total_Requests_To_Generate"])
        )
    log = (workdir / "stdout.txt").read_text(errors="replace")
    m = re.search(r"total requests generated: (\d+) total requests serviced:(\d+)", log)
    if m is None or int(m.group(1)) != expected or int(m.group(2)) != expected:
        got = "no totals" if m is None else f"{m.group(1)} generated, {m.group(2)} served"
        raise RuntimeError(
            f"MQSim did not finish {case.name}: {got} of {expected}; see {workdir}/stdout.txt"
        )


def _last_line(path: Path) -> str:
    """The last non-blank line of a log (MQSim's progress or its error)."""
    lines = [x for x in path.read_text(errors="replace").splitlines() if x.strip()]
    return lines[-1].strip() if lines else ""


def run(case: Case, mqsim: Path, cut: Path | None, workdir: Path) -> dict[str, Any]:
    """Run ``case`` with the MQSim checkout at ``mqsim`` (binary ``MQSim``
    and the shipped ``ssdconfig.xml``) in ``workdir``; the peer result."""
    settings = case.peer_settings
    config = {str(k): str(v) for k, v in settings.get("ssdconfig", {}).items()}
    flow = {str(k): str(v) for k, v in settings.get("workload", {}).items()}
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "ssdconfig.xml").write_text(ssdconfig((mqsim / "ssdconfig.xml").read_text(), config))
    if cut is not None:
        (workdir / TRACE_NAME).write_bytes(cut.read_bytes())
    (workdir / "workload.xml").write_text(workload(flow, cut is not None))
    out = workdir / "workload_scenario_1.xml"
    out.unlink(missing_ok=True)
    cmd = [str(mqsim / "MQSim"), "-i", "ssdconfig.xml", "-w", "workload.xml"]
    with (workdir / "stdout.txt").open("w") as log:
        cost = timed(cmd, cwd=workdir, stdout=log)
    rc = cost.returncode
    if not out.is_file():
        raise RuntimeError(
            f"MQSim failed on {case.name} (exit {rc}); see {workdir}/stdout.txt "
            f"(last line: {_last_line(workdir / 'stdout.txt')!r})"
        )
    raw = parse(out)
    _check_complete(case, workdir, flow, cut)
    planes = int(config.get("Plane_No_Per_Die", 2))
    return {
        "metrics": metrics(raw, planes),
        "command": "MQSim -i ssdconfig.xml -w workload.xml",
        "wall_s": round(cost.wall_s, 1),
        "cost": cost,
    }
