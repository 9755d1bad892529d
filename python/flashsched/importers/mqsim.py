"""MQSim's ``ssdconfig.xml`` → a flashsched device.

Geometry, NAND timings, the ONFI channel, over-provisioning, GC policy and
thresholds, the DRAM data cache, the cached mapping table, the host
interface and the transaction scheduler map to their flashsched keys;
MQSim's fixed controller behaviour (a chip takes commands only when all its
dies are idle, ONFI multi-plane commands, a victim's moves queued at once)
is written out too, as in the ``mqsim-default`` preset. Keys for features
flashsched does not model (wear leveling, suspension thresholds,
response-time logging) are reported, as is every element MQSim itself does
not read. docs/importers.md has the full table.
"""

from __future__ import annotations

import math
from pathlib import Path

from flashsched.importers import xmltree
from flashsched.importers.device import DeviceImport
from flashsched.importers.fields import Fields, Raw
from flashsched.importers.notes import APPROXIMATED, IGNORED, UNSUPPORTED, Notes

ROOT = "Execution_Parameter_Set"
WORKLOAD_ROOT = "MQSim_IO_Scenarios"

# MQSim's own defaults (its exec/*_Parameter_Set.cpp) for keys a file may
# leave out; a key absent here must be given.
HOST_DEFAULTS: dict[str, Raw] = {
    "PCIe_Lane_Bandwidth": 0.4,
    "PCIe_Lane_Count": 4,
    "SATA_Processing_Delay": 0,
    "Enable_ResponseTime_Logging": False,
    "ResponseTime_Logging_Period_Length": 400000,
}
DEVICE_DEFAULTS: dict[str, Raw] = {
    "Seed": 123,
    "Enabled_Preconditioning": True,
    "Memory_Type": "FLASH",
    "HostInterface_Type": "NVME",
    "IO_Queue_Depth": 1024,
    "Queue_Fetch_Size": 512,
    "Caching_Mechanism": "ADVANCED",
    "Data_Cache_Sharing_Mode": "SHARED",
    "Data_Cache_Capacity": 512 * 1024 * 1024,
    "Data_Cache_DRAM_Row_Size": 8192,
    "Data_Cache_DRAM_Data_Rate": 800,
    "Data_Cache_DRAM_Data_Busrt_Size": 4,
    "Data_Cache_DRAM_tRCD": 13,
    "Data_Cache_DRAM_tCL": 13,
    "Data_Cache_DRAM_tRP": 13,
    "Address_Mapping": "PAGE_LEVEL",
    "Ideal_Mapping_Table": False,
    "CMT_Capacity": 2 * 1024 * 1024,
    "CMT_Sharing_Mode": "SHARED",
    "Plane_Allocation_Scheme": "CWDP",
    "Transaction_Scheduling_Policy": "OUT_OF_ORDER",
    "Overprovisioning_Ratio": 0.07,
    "GC_Exec_Threshold": 0.05,
    "GC_Block_Selection_Policy": "RGA",
    "Use_Copyback_for_GC": False,
    "Preemptible_GC_Enabled": True,
    "GC_Hard_Threshold": 0.005,
    "Flash_Channel_Count": 8,
    "Flash_Channel_Width": 1,
    "Channel_Transfer_Rate": 300,
    "Chip_No_Per_Channel": 4,
    "Flash_Comm_Protocol": "NVDDR2",
}
FLASH_DEFAULTS: dict[str, Raw] = {
    "Flash_Technology": "MLC",
    "CMD_Suspension_Support": "ERASE",
    "Page_Read_Latency_LSB": 75000,
    "Page_Read_Latency_CSB": 75000,
    "Page_Read_Latency_MSB": 75000,
    "Page_Program_Latency_LSB": 750000,
    "Page_Program_Latency_CSB": 750000,
    "Page_Program_Latency_MSB": 750000,
    "Block_Erase_Latency": 3800000,
    "Die_No_Per_Chip": 2,
    "Plane_No_Per_Die": 2,
    "Block_No_Per_Plane": 2048,
    "Page_No_Per_Block": 256,
    "Page_Capacity": 8192,
}
# Keys MQSim reads that have no flashsched counterpart, with why.
NOT_MODELLED = {
    "Seed": (IGNORED, "the run's seed is `--seed`"),
    "Enable_ResponseTime_Logging": (
        IGNORED,
        "output option; `flashsched run --out DIR` writes per-second series",
    ),
    "ResponseTime_Logging_Period_Length": (IGNORED, "output option (response-time logging)"),
    "Data_Cache_Sharing_Mode": (
        IGNORED,
        "a run has one flow, so the cache is not shared among flows",
    ),
    "CMT_Sharing_Mode": (IGNORED, "a run has one flow, so the mapping cache is not shared"),
    "Dynamic_Wearleveling_Enabled": (UNSUPPORTED, "flashsched does no wear leveling"),
    "Static_Wearleveling_Enabled": (UNSUPPORTED, "flashsched does no wear leveling"),
    "Static_Wearleveling_Threshold": (UNSUPPORTED, "flashsched does no wear leveling"),
    "Prefered_suspend_erase_time_for_read": (
        UNSUPPORTED,
        "suspension threshold; mqsim-priority does not suspend "
        '(controller.scheduler = "pe-suspend" does)',
    ),
    "Preferred_suspend_erase_time_for_write": (
        UNSUPPORTED,
        "suspension threshold; mqsim-priority does not suspend",
    ),
    "Preferred_suspend_write_time_for_read": (
        UNSUPPORTED,
        "suspension threshold; mqsim-priority does not suspend",
    ),
    "CMD_Suspension_Support": (UNSUPPORTED, "mqsim-priority does not suspend"),
    "Suspend_Erase_Time": (UNSUPPORTED, "mqsim-priority does not suspend"),
    "Suspend_Program_Time": (UNSUPPORTED, "mqsim-priority does not suspend"),
    "Block_PE_Cycles_Limit": (
        UNSUPPORTED,
        "no endurance limit (variation.wear_pe sets a wear stage instead)",
    ),
    "Page_Metadat_Capacity": (
        UNSUPPORTED,
        "the per-page metadata (spare area) transfer is not modelled",
    ),
}
# Spellings MQSim does not read (it silently ignores them), with the one it does.
MISSPELLED = {
    "Preferred_suspend_erase_time_for_read": "Prefered_suspend_erase_time_for_read",
    "Data_Cache_DRAM_Data_Burst_Size": "Data_Cache_DRAM_Data_Busrt_Size",
    "Page_Metadata_Capacity": "Page_Metadat_Capacity",
}
# MQSim's ONFI NV-DDR2 cycle times are constructor defaults, not settings
# (ONFI_Channel_NVDDR2.h: tCS 20, tWC 25, tWB 100, tRR 20, tADL 70, tWPST 6,
# tWPSTH 15, tCALS 15, tDBSY 500 ns): a read's cycles take tCS + 6 tWC + tWB
# + tRR, each further plane tDBSY + 6 tWC; a program's tCS + 6 tWC + tADL +
# tWPST + tWPSTH + tWB, each further plane 5 tWC + tADL + tWPST + tCALS +
# tWB + tDBSY; an erase's tCS + 4 tWC + tWB, each further plane tDBSY + 4
# tWC + tWB.
MQSIM_COMMAND_CYCLES = {
    "read_command_ns": 290.0,
    "read_command_plane_ns": 650.0,
    "program_command_ns": 361.0,
    "program_command_plane_ns": 816.0,
    "erase_command_ns": 220.0,
    "erase_command_plane_ns": 700.0,
}

SCHEDULERS = {
    "PRIORITY_OUT_OF_ORDER": (None, ""),
    "OUT_OF_ORDER": (
        APPROXIMATED,
        "mqsim-priority; its priority classes only order flows against each other",
    ),
    "FLIN": (UNSUPPORTED, "FLIN is not implemented; mqsim-priority is used"),
}
GC_POLICIES = {
    "GREEDY": ("greedy", None),
    "RGA": ("rga", None),
    "RANDOM": ("random", None),
    "RANDOM_P": ("random", "random victim among blocks with invalid pages"),
    "RANDOM_PP": ("random", "random victim among blocks with invalid pages"),
    "FIFO": ("fifo", None),
}
CELLS = {
    "SLC": ("slc", ("LSB",)),
    "MLC": ("mlc", ("LSB", "MSB")),
    "TLC": ("tlc", ("LSB", "CSB", "MSB")),
}


def _leaves(section: xmltree.Element | None, notes: Notes) -> dict[str, tuple[str, int]]:
    """The key = value elements of a section, by name (each once); nested
    sections other than Flash_Parameter_Set are reported."""
    out: dict[str, tuple[str, int]] = {}
    for e in section.children if section is not None else []:
        if not e.is_leaf:
            if e.tag != "Flash_Parameter_Set":
                notes.add(UNSUPPORTED, e.tag, "not a section MQSim reads here", e.line)
            continue
        if e.tag in out:
            raise notes.error(e.tag, f"given twice (lines {out[e.tag][1]} and {e.line})", e.line)
        out[e.tag] = (e.text, e.line)
    return out


def _child(parent: xmltree.Element, tag: str) -> xmltree.Element | None:
    return next((c for c in parent.children if c.tag == tag), None)


def load(path: str | Path) -> DeviceImport:
    """Convert an MQSim ``ssdconfig.xml``; malformed input raises
    ImporterError naming the file, line and element."""
    path = Path(path)
    notes = Notes(path.name)
    root = xmltree.parse(path)
    if root.tag == WORKLOAD_ROOT:
        raise notes.error(
            root.tag,
            "this is an MQSim workload file: use `flashsched import mqsim-workload`",
            root.line,
        )
    if root.tag != ROOT:
        raise notes.error(root.tag, f"expected an MQSim <{ROOT}> document", root.line)
    host_el = _child(root, "Host_Parameter_Set")
    dev_el = _child(root, "Device_Parameter_Set")
    if dev_el is None:
        raise notes.error(ROOT, "has no <Device_Parameter_Set>", root.line)
    flash_el = _child(dev_el, "Flash_Parameter_Set")
    for c in root.children:
        if c.tag not in ("Host_Parameter_Set", "Device_Parameter_Set"):
            notes.add(UNSUPPORTED, c.tag, "not a section MQSim reads", c.line)
    host = Fields(notes, _leaves(host_el, notes), HOST_DEFAULTS)
    dev = Fields(notes, _leaves(dev_el, notes), DEVICE_DEFAULTS)
    flash = Fields(notes, _leaves(flash_el, notes), FLASH_DEFAULTS)
    out = DeviceImport("MQSim ssdconfig.xml", notes, description=f"imported from MQSim {path.name}")
    _geometry(out, dev, flash)
    _timing(out, dev, flash)
    _ftl(out, dev)
    _controller(out, dev)
    _interface(out, host, dev)
    _cache(out, dev)
    for fields in (host, dev, flash):
        for k in list(fields.values):
            if k in NOT_MODELLED:
                kind, why = NOT_MODELLED[k]
                fields.note(kind, k, why)
            elif k in MISSPELLED:
                fields.note(
                    UNSUPPORTED, k, f"MQSim does not read this spelling (it reads {MISSPELLED[k]})"
                )
        fields.report_unused("not a key MQSim reads")
    out.locate(host.values, dev.values, flash.values)
    out.validate()
    return out


def _geometry(out: DeviceImport, dev: Fields, flash: Fields) -> None:
    for key, field, src in [
        ("channels", dev, "Flash_Channel_Count"),
        ("chips_per_channel", dev, "Chip_No_Per_Channel"),
        ("dies_per_chip", flash, "Die_No_Per_Chip"),
        ("planes_per_die", flash, "Plane_No_Per_Die"),
        ("blocks_per_plane", flash, "Block_No_Per_Plane"),
        ("pages_per_block", flash, "Page_No_Per_Block"),
        ("page_size", flash, "Page_Capacity"),
    ]:
        out.set(f"geometry.{key}", field.integer(src, lo=1), src)


def _ns_to_us(ns: float) -> float:
    return round(ns / 1000.0, 6)


def _timing(out: DeviceImport, dev: Fields, flash: Fields) -> None:
    tech = flash.choice("Flash_Technology", list(CELLS))
    cell, types = CELLS[tech]
    out.set("timing.cell", cell, "Flash_Technology")
    per_type = False
    for op, key in (("Read", "read_us"), ("Program", "program_us")):
        names = [f"Page_{op}_Latency_{t}" for t in types]
        lat = [flash.number(n, lo=1) for n in names]
        unused = [f"Page_{op}_Latency_{t}" for t in ("LSB", "CSB", "MSB") if t not in types]
        flash.note_group(IGNORED, unused, f"{tech} pages have no such page type")
        out.set(f"timing.{key}", _ns_to_us(sum(lat) / len(lat)), " + ".join(names) + " (mean)")
        if len(set(lat)) > 1:
            per_type = True
            flash.note(
                APPROXIMATED,
                names[-1],
                f"{op.lower()} latencies differ by page type; flashsched keeps their mean and "
                "applies its own fixed page-type factors (timing.per_page_type, docs/model.md)",
            )
    if per_type:
        out.set("timing.per_page_type", True, "page-type latencies differ")
    out.set(
        "timing.erase_us",
        _ns_to_us(flash.number("Block_Erase_Latency", lo=1)),
        "Block_Erase_Latency",
    )
    width = dev.integer("Flash_Channel_Width", lo=1)
    rate = dev.number("Channel_Transfer_Rate", lo=1)
    # MQSim times two bus bytes at twice floor(1000 / rate) ns (its t_RC is
    # cast to whole ns), so 333 MT/s moves 333.3 MB/s on an 8-bit channel.
    per_byte = math.floor(1000.0 / rate)
    out.set(
        "timing.channel_mb_s",
        1000.0 * width / per_byte if per_byte > 0 else 0.0,
        "Channel_Transfer_Rate x Flash_Channel_Width, at MQSim's whole-ns byte time",
    )
    out.set("timing.command_us", 0.0, "")
    for key, ns in MQSIM_COMMAND_CYCLES.items():
        out.set(f"timing.{key}", ns, "MQSim's ONFI NV-DDR2 command and address cycles")
    out.set("timing.sector_transfers", True, "(MQSim moves only the sectors a request asks for)")
    dev.choice("Flash_Comm_Protocol", ["NVDDR2"])
    dev.match("Flash_Comm_Protocol", "NVDDR2 (the channel is timed by its byte rate)")


def _ftl(out: DeviceImport, dev: Fields) -> None:
    out.set(
        "ftl.overprovisioning",
        dev.number("Overprovisioning_Ratio", hi=1.0),
        "Overprovisioning_Ratio",
    )
    scheme = dev.text("Plane_Allocation_Scheme")
    if sorted(scheme) != sorted("CWDP"):
        raise dev.notes.error(
            "Plane_Allocation_Scheme",
            f"`{scheme}` is not a permutation of C, W, D, P",
            dev.line("Plane_Allocation_Scheme"),
        )
    out.set("ftl.allocation", f"static:{scheme}", "Plane_Allocation_Scheme")
    out.set("ftl.gc_threshold", dev.number("GC_Exec_Threshold", hi=1.0), "GC_Exec_Threshold")
    out.set(
        "ftl.gc_jobs_per_plane",
        10,
        "MQSim: up to 10 GC operations per plane at once (max_ongoing_gc_reqs_per_plane)",
    )
    out.set(
        "ftl.gc_write_floor",
        10,
        "MQSim: user writes wait below 10 free blocks per plane (its GC operation limit "
        "per plane), which also raises its GC threshold to at least 10 blocks",
    )
    policy = dev.choice("GC_Block_Selection_Policy", list(GC_POLICIES))
    name, approx = GC_POLICIES[policy]
    out.set("ftl.gc_policy", name, "GC_Block_Selection_Policy")
    if policy == "RGA":
        # MQSim's randomized greedy samples log2(blocks per plane) blocks.
        blocks = int(out.keys["geometry.blocks_per_plane"][0])
        out.set("ftl.gc_d_choice", max(1, int(math.log2(blocks))), "RGA: log2(Block_No_Per_Plane)")
    if approx:
        dev.note(
            APPROXIMATED,
            "GC_Block_Selection_Policy",
            f"{policy}: flashsched's `random` picks a {approx}",
        )
    out.set("ftl.copyback", dev.flag("Use_Copyback_for_GC"), "Use_Copyback_for_GC")
    preemptive = dev.flag("Preemptible_GC_Enabled")
    # Not preemptible: MQSim treats GC as urgent at all times (interleaved here).
    out.set("ftl.gc_mode", "preemptive" if preemptive else "interleaved", "Preemptible_GC_Enabled")
    out.set("ftl.gc_hard_threshold", dev.number("GC_Hard_Threshold", hi=1.0), "GC_Hard_Threshold")
    if not preemptive:
        dev.note(IGNORED, "GC_Hard_Threshold", "used only with Preemptible_GC_Enabled = true")
    if dev.flag("Enabled_Preconditioning"):
        dev.note(
            APPROXIMATED,
            "Enabled_Preconditioning",
            "MQSim preconditions to each flow's Initial_Occupancy_Percentage (workload.xml): "
            "`flashsched import mqsim-workload` turns that into ftl.precondition_fill",
        )
    else:
        out.set("ftl.precondition_fill", 0.0, "Enabled_Preconditioning = false")
    mapping = dev.choice("Address_Mapping", ["PAGE_LEVEL", "HYBRID"])
    if mapping == "HYBRID":
        dev.note(UNSUPPORTED, "Address_Mapping", "flashsched's FTL is page-mapped (PAGE_LEVEL)")
    else:
        dev.match("Address_Mapping", "PAGE_LEVEL (flashsched's FTL is page-mapped)")
    out.set("mapping.read_sectors", 1, "MQSim: a translation read moves one sector")
    if dev.flag("Ideal_Mapping_Table"):
        out.set("mapping.cmt_kib", 0.0, "Ideal_Mapping_Table = true (the whole table in DRAM)")
        dev.note(IGNORED, "CMT_Capacity", "unused with Ideal_Mapping_Table = true")
    else:
        out.set("mapping.cmt_kib", dev.integer("CMT_Capacity") / 1024, "CMT_Capacity")
        dev.note(
            APPROXIMATED,
            "CMT_Capacity",
            "MQSim queues translation-page write-backs but never serves them; flashsched "
            'programs them (mapping.writeback = "unserved" does as MQSim), and its cache '
            "starts empty where MQSim warms it with the workload's addresses",
        )
    dev.choice("Memory_Type", ["FLASH"])
    dev.match("Memory_Type", "FLASH")


def _controller(out: DeviceImport, dev: Fields) -> None:
    policy = dev.choice("Transaction_Scheduling_Policy", list(SCHEDULERS))
    kind, why = SCHEDULERS[policy]
    if kind:
        dev.note(kind, "Transaction_Scheduling_Policy", why)
    out.set("controller.scheduler", "mqsim-priority", "Transaction_Scheduling_Policy")
    out.set(
        "controller.busy_unit",
        "chip",
        "MQSim: a chip takes commands only when all its dies are idle",
    )
    out.set(
        "controller.multiplane",
        "onfi-queued",
        "MQSim: multi-plane commands, same page offset (the pages given when queued)",
    )
    out.set(
        "controller.dispatch",
        "channel-idle",
        "MQSim's TSU: a chip gets work when its channel goes idle, waiting data-outs first",
    )
    out.set("ftl.gc_move_window", 0, "MQSim: all moves of a victim are queued at once")
    out.set(
        "ftl.update_reads",
        "mqsim",
        "MQSim: a write not covering a page's valid sectors reads them first",
    )
    out.set(
        "ftl.frontiers",
        "eager",
        "MQSim's block manager: a plane's frontiers hold their blocks from the start and take "
        "the next as soon as one fills",
    )
    out.set(
        "ftl.mapping_frontier",
        True,
        "MQSim: translation pages have a write frontier of their own in every plane "
        "(its block held even with Ideal_Mapping_Table)",
    )


def _interface(out: DeviceImport, host: Fields, dev: Fields) -> None:
    kind = dev.choice("HostInterface_Type", ["NVME", "SATA"])
    out.set("interface.kind", kind.lower(), "HostInterface_Type")
    lanes = host.integer("PCIe_Lane_Count", lo=1)
    gbps = host.number("PCIe_Lane_Bandwidth")
    out.set("interface.rate_mb_s", gbps * lanes * 1000.0, "PCIe_Lane_Bandwidth x PCIe_Lane_Count")
    out.set("interface.tlp_payload_bytes", 128, "MQSim's PCIe link: 128-byte TLP payloads")
    out.set("interface.tlp_overhead_bytes", 28, "MQSim's PCIe link: 20 + 6 + 2 bytes per TLP")
    delay = host.number("SATA_Processing_Delay")
    depth = dev.integer("IO_Queue_Depth", lo=1)
    fetch = dev.integer("Queue_Fetch_Size", lo=1)
    if kind == "SATA":
        out.set("interface.command_us", _ns_to_us(delay), "SATA_Processing_Delay")
        out.set("host.queue_depth", min(depth, 65536), "IO_Queue_Depth (NCQ)")
        dev.note(IGNORED, "Queue_Fetch_Size", "used only with NVMe")
    else:
        host.note(IGNORED, "SATA_Processing_Delay", "used only with SATA")
        out.set(
            "interface.nvme_messages",
            True,
            "MQSim's NVMe: doorbell, entry fetch, data request and completion cross the link",
        )
        out.set(
            "host.queue_depth", min(depth, fetch, 65536), "min(IO_Queue_Depth, Queue_Fetch_Size)"
        )
        dev.note(
            APPROXIMATED,
            "IO_Queue_Depth",
            "the device holds at most min(IO_Queue_Depth, Queue_Fetch_Size) requests "
            "(host.queue_depth); MQSim's per-flow queue pairs are one host queue here",
        )


def _cache(out: DeviceImport, dev: Fields) -> None:
    capacity = dev.integer("Data_Cache_Capacity")
    out.set("cache.mib", capacity / (1 << 20), "Data_Cache_Capacity")
    mech = dev.choice("Caching_Mechanism", ["ADVANCED", "SIMPLE"])
    # Both managers write new pages back at once and keep rewritten ones:
    # MQSim's destage buffer with its back-pressure limit (cache.policy docs).
    out.set("cache.policy", "hot-cold", "Caching_Mechanism")
    if mech == "SIMPLE":
        dev.note(
            APPROXIMATED,
            "Caching_Mechanism",
            "SIMPLE writes as ADVANCED does (hot-cold); in MQSim 7ec40e3 it stops with an "
            "error on the first request it caches",
        )
    rate = dev.number("Data_Cache_DRAM_Data_Rate", lo=1)
    burst = dev.number("Data_Cache_DRAM_Data_Busrt_Size", lo=1)
    # MQSim moves 2 bursts per DRAM clock (DDR): bytes/ns = 2 * burst * MT/s / 1000.
    out.set(
        "cache.dram_mb_s",
        2.0 * burst * rate,
        "2 x Data_Cache_DRAM_Data_Rate x Data_Cache_DRAM_Data_Busrt_Size",
    )
    trcd = dev.number("Data_Cache_DRAM_tRCD")
    tcl = dev.number("Data_Cache_DRAM_tCL")
    out.set("cache.dram_latency_ns", trcd + tcl, "Data_Cache_DRAM_tRCD + Data_Cache_DRAM_tCL")
    row = dev.integer("Data_Cache_DRAM_Row_Size")
    out.set("cache.dram_row_bytes", row, "Data_Cache_DRAM_Row_Size")
    out.set("cache.dram_precharge_ns", dev.number("Data_Cache_DRAM_tRP"), "Data_Cache_DRAM_tRP")
    if burst != 1:
        dev.note(
            APPROXIMATED,
            "Data_Cache_DRAM_Data_Busrt_Size",
            "a transfer's bytes past its whole DRAM rows are timed as with 1-byte bursts",
        )
