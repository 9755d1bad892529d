"""Importers (docs/importers.md): MQSim ssdconfig.xml / workload.xml, SSDsim
page.parameters and fio job files → flashsched devices and workloads.

The inputs are small files written here with the same structure and keys as
the files those tools ship, with values of our own; every expected number
is worked out by hand next to its assertion. MQSim's and SSDsim's shipped
files are compared with the presets that model them when a scratch copy is
present (``$FLASHSCHED_PEERS``, default ``/work/peers-read``), else skipped.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import flashsched
import pytest
from flashsched import cli, importers
from flashsched.importers import ImporterError

DEVICE = "ssdsim-default"
PEERS = Path(os.environ.get("FLASHSCHED_PEERS", "/work/peers-read"))

SSDCONFIG = """<?xml version="1.0" encoding="us-ascii"?>
<Execution_Parameter_Set>
  <Host_Parameter_Set>
    <PCIe_Lane_Bandwidth>0.5</PCIe_Lane_Bandwidth>
    <PCIe_Lane_Count>2</PCIe_Lane_Count>
    <SATA_Processing_Delay>3000</SATA_Processing_Delay>
    <Enable_ResponseTime_Logging>false</Enable_ResponseTime_Logging>
    <ResponseTime_Logging_Period_Length>500000</ResponseTime_Logging_Period_Length>
  </Host_Parameter_Set>
  <Device_Parameter_Set>
    <Seed>7</Seed>
    <Enabled_Preconditioning>false</Enabled_Preconditioning>
    <Memory_Type>FLASH</Memory_Type>
    <HostInterface_Type>SATA</HostInterface_Type>
    <IO_Queue_Depth>32</IO_Queue_Depth>
    <Queue_Fetch_Size>16</Queue_Fetch_Size>
    <Caching_Mechanism>SIMPLE</Caching_Mechanism>
    <Data_Cache_Sharing_Mode>SHARED</Data_Cache_Sharing_Mode>
    <Data_Cache_Capacity>8388608</Data_Cache_Capacity>
    <Data_Cache_DRAM_Row_Size>4096</Data_Cache_DRAM_Row_Size>
    <Data_Cache_DRAM_Data_Rate>400</Data_Cache_DRAM_Data_Rate>
    <Data_Cache_DRAM_Data_Busrt_Size>2</Data_Cache_DRAM_Data_Busrt_Size>
    <Data_Cache_DRAM_tRCD>10</Data_Cache_DRAM_tRCD>
    <Data_Cache_DRAM_tCL>12</Data_Cache_DRAM_tCL>
    <Data_Cache_DRAM_tRP>11</Data_Cache_DRAM_tRP>
    <Address_Mapping>PAGE_LEVEL</Address_Mapping>
    <Ideal_Mapping_Table>true</Ideal_Mapping_Table>
    <CMT_Capacity>1048576</CMT_Capacity>
    <CMT_Sharing_Mode>SHARED</CMT_Sharing_Mode>
    <Plane_Allocation_Scheme>PDWC</Plane_Allocation_Scheme>
    <Transaction_Scheduling_Policy>PRIORITY_OUT_OF_ORDER</Transaction_Scheduling_Policy>
    <Overprovisioning_Ratio>0.125</Overprovisioning_Ratio>
    <GC_Exec_Threshold>0.1</GC_Exec_Threshold>
    <GC_Block_Selection_Policy>RGA</GC_Block_Selection_Policy>
    <Use_Copyback_for_GC>true</Use_Copyback_for_GC>
    <Preemptible_GC_Enabled>true</Preemptible_GC_Enabled>
    <GC_Hard_Threshold>0.02</GC_Hard_Threshold>
    <Dynamic_Wearleveling_Enabled>false</Dynamic_Wearleveling_Enabled>
    <Static_Wearleveling_Enabled>false</Static_Wearleveling_Enabled>
    <Static_Wearleveling_Threshold>50</Static_Wearleveling_Threshold>
    <Preferred_suspend_erase_time_for_read>500000</Preferred_suspend_erase_time_for_read>
    <Preferred_suspend_erase_time_for_write>500000</Preferred_suspend_erase_time_for_write>
    <Preferred_suspend_write_time_for_read>90000</Preferred_suspend_write_time_for_read>
    <Flash_Channel_Count>4</Flash_Channel_Count>
    <Flash_Channel_Width>2</Flash_Channel_Width>
    <Channel_Transfer_Rate>200</Channel_Transfer_Rate>
    <Chip_No_Per_Channel>2</Chip_No_Per_Channel>
    <Flash_Comm_Protocol>NVDDR2</Flash_Comm_Protocol>
    <Flash_Parameter_Set>
      <Flash_Technology>TLC</Flash_Technology>
      <CMD_Suspension_Support>NONE</CMD_Suspension_Support>
      <Page_Read_Latency_LSB>40000</Page_Read_Latency_LSB>
      <Page_Read_Latency_CSB>60000</Page_Read_Latency_CSB>
      <Page_Read_Latency_MSB>80000</Page_Read_Latency_MSB>
      <Page_Program_Latency_LSB>900000</Page_Program_Latency_LSB>
      <Page_Program_Latency_CSB>900000</Page_Program_Latency_CSB>
      <Page_Program_Latency_MSB>900000</Page_Program_Latency_MSB>
      <Block_Erase_Latency>4500000</Block_Erase_Latency>
      <Block_PE_Cycles_Limit>3000</Block_PE_Cycles_Limit>
      <Suspend_Erase_Time>600000</Suspend_Erase_Time>
      <Suspend_Program_Time>80000</Suspend_Program_Time>
      <Die_No_Per_Chip>1</Die_No_Per_Chip>
      <Plane_No_Per_Die>4</Plane_No_Per_Die>
      <Block_No_Per_Plane>512</Block_No_Per_Plane>
      <Page_No_Per_Block>128</Page_No_Per_Block>
      <Page_Capacity>4096</Page_Capacity>
      <Page_Metadat_Capacity>224</Page_Metadat_Capacity>
    </Flash_Parameter_Set>
  </Device_Parameter_Set>
</Execution_Parameter_Set>
"""

PAGE_PARAMETERS = """#parameter file
dram capacity = 2097152;     #bytes
chip number[0] = 3;
chip number[1] = 3;
chip number[2] = 0;
channel number = 2;
chip number = 6;
die number = 1;
plane number = 2;
block number = 256;
page number = 128;
subpage page = 8;
page capacity = 4096;
subpage capacity = 512;
t_PROG = 300000;             #ns
t_DBSY = 100;
t_BERS = 2000000;
t_CLS = 10;
t_WC = 20;
t_R = 30000;
t_RC = 20;
t_RST = 4000;
erase limit=50000;
flash operating current=20000.0;
dram voltage=1.8;
address mapping=1;
wear leveling=1;
gc=1;
overprovide=0.20;
gc threshold=0.15;
buffer management=0;
scheduling algorithm=1;
gc hard threshold=0.08;
allocation=1;
static_allocation=2;
dynamic_allocation=0;
advanced command=12;
advanced command priority=0;
greed CB command=0;
greed MPW command=1;
aged=1;
aged ratio=0.6;
active write=1;
queue_length=16;
"""

WORKLOAD_XML = """<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios>
  <IO_Scenario>
    <IO_Flow_Parameter_Set_Synthetic>
      <Priority_Class>HIGH</Priority_Class>
      <Device_Level_Data_Caching_Mode>TURNED_OFF</Device_Level_Data_Caching_Mode>
      <Channel_IDs>0,1</Channel_IDs>
      <Chip_IDs>0,1</Chip_IDs>
      <Die_IDs>0</Die_IDs>
      <Plane_IDs>0,1</Plane_IDs>
      <Initial_Occupancy_Percentage>40</Initial_Occupancy_Percentage>
      <Working_Set_Percentage>25</Working_Set_Percentage>
      <Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
      <Read_Percentage>60</Read_Percentage>
      <Address_Distribution>STREAMING</Address_Distribution>
      <Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
      <Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
      <Address_Alignment_Unit>8</Address_Alignment_Unit>
      <Request_Size_Distribution>FIXED</Request_Size_Distribution>
      <Average_Request_Size>16</Average_Request_Size>
      <Variance_Request_Size>0</Variance_Request_Size>
      <Seed>11</Seed>
      <Average_No_of_Reqs_in_Queue>4</Average_No_of_Reqs_in_Queue>
      <Intensity>1000</Intensity>
      <Stop_Time>0</Stop_Time>
      <Total_Requests_To_Generate>300</Total_Requests_To_Generate>
    </IO_Flow_Parameter_Set_Synthetic>
    <IO_Flow_Parameter_Set_Synthetic>
      <Priority_Class>LOW</Priority_Class>
      <Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
      <Channel_IDs>0,1</Channel_IDs>
      <Chip_IDs>0,1</Chip_IDs>
      <Die_IDs>0</Die_IDs>
      <Plane_IDs>0,1</Plane_IDs>
      <Initial_Occupancy_Percentage>40</Initial_Occupancy_Percentage>
      <Working_Set_Percentage>100</Working_Set_Percentage>
      <Synthetic_Generator_Type>BANDWIDTH</Synthetic_Generator_Type>
      <Read_Percentage>0</Read_Percentage>
      <Address_Distribution>RANDOM_HOTCOLD</Address_Distribution>
      <Percentage_of_Hot_Region>20</Percentage_of_Hot_Region>
      <Generated_Aligned_Addresses>false</Generated_Aligned_Addresses>
      <Address_Alignment_Unit>8</Address_Alignment_Unit>
      <Request_Size_Distribution>NORMAL</Request_Size_Distribution>
      <Average_Request_Size>16</Average_Request_Size>
      <Variance_Request_Size>2</Variance_Request_Size>
      <Seed>12</Seed>
      <Average_No_of_Reqs_in_Queue>4</Average_No_of_Reqs_in_Queue>
      <Bandwidth>8192000</Bandwidth>
      <Stop_Time>20000000</Stop_Time>
      <Total_Requests_To_Generate>0</Total_Requests_To_Generate>
    </IO_Flow_Parameter_Set_Synthetic>
  </IO_Scenario>
  <IO_Scenario>
    <IO_Flow_Parameter_Set_Trace_Based>
      <Priority_Class>HIGH</Priority_Class>
      <Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
      <Channel_IDs>0,1</Channel_IDs>
      <Chip_IDs>0,1</Chip_IDs>
      <Die_IDs>0</Die_IDs>
      <Plane_IDs>0,1</Plane_IDs>
      <Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage>
      <File_Path>mini.trace</File_Path>
      <Percentage_To_Be_Executed>50</Percentage_To_Be_Executed>
      <Relay_Count>1</Relay_Count>
      <Time_Unit>MICROSECOND</Time_Unit>
    </IO_Flow_Parameter_Set_Trace_Based>
  </IO_Scenario>
</MQSim_IO_Scenarios>
"""

# 10 requests, times in microseconds (the flow's Time_Unit).
MINI_TRACE = "".join(f"{i * 100} 0 {i * 64} 8 {i % 2}\n" for i in range(10))

JOB_FILE = """; two jobs sharing [global]
[global]
ioengine=libaio
direct=1
bs=4k
size=1m
group_reporting
thinktime=10

[writer]
rw=randwrite
iodepth=4
numjobs=2

[mixed]
rw=randrw
rwmixread=75   ; reads three times out of four
bsrange=4k-12k
rate_iops=2000
iodepth=16
runtime=2s
time_based
randseed=5
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def keys_of(imp: importers.DeviceImport) -> dict[str, object]:
    return {k: v for k, (v, _) in imp.keys.items()}


def resolved(imp: importers.DeviceImport, toml_loads) -> dict:
    return toml_loads(flashsched.load_config("default", imp.overrides()))


def note_keys(warnings: list[str]) -> set[str]:
    """The key part of every `file:line: key: kind: message` line."""
    out: set[str] = set()
    for w in warnings:
        key = w.split(": ", 2)[1]
        out.update(k.strip() for k in key.split(","))
    return out


def leaf_tags(xml: str) -> set[str]:
    return set(re.findall(r"<(\w+)>[^<]*</\1>", xml))


# --- MQSim ssdconfig.xml -----------------------------------------------------


def test_mqsim_device_maps_every_key(tmp_path, toml_loads):
    imp = importers.load_device(write(tmp_path, "ssdconfig.xml", SSDCONFIG))
    k = keys_of(imp)
    assert (
        k["geometry.channels"],
        k["geometry.chips_per_channel"],
        k["geometry.dies_per_chip"],
        k["geometry.planes_per_die"],
        k["geometry.blocks_per_plane"],
        k["geometry.pages_per_block"],
        k["geometry.page_size"],
    ) == (4, 2, 1, 4, 512, 128, 4096)
    # TLC reads 40/60/80 us by page type: the mean 60 us, page types on.
    assert (k["timing.cell"], k["timing.read_us"], k["timing.per_page_type"]) == ("tlc", 60.0, True)
    assert (k["timing.program_us"], k["timing.erase_us"]) == (900.0, 4500.0)
    # 2-byte channel at 200 MT/s = 400 MB/s (MQSim: 5 ns per bus byte).
    assert k["timing.channel_mb_s"] == 400.0
    assert (k["ftl.overprovisioning"], k["ftl.allocation"]) == (0.125, "static:PDWC")
    # RGA samples log2(512) = 9 blocks.
    assert (k["ftl.gc_policy"], k["ftl.gc_d_choice"]) == ("rga", 9)
    assert k["ftl.gc_jobs_per_plane"] == 10
    assert (k["ftl.gc_threshold"], k["ftl.gc_hard_threshold"]) == (0.1, 0.02)
    assert (k["ftl.gc_mode"], k["ftl.copyback"], k["ftl.precondition_fill"]) == (
        "preemptive",
        True,
        0.0,
    )
    assert k["ftl.gc_move_window"] == 0  # MQSim queues a victim's moves at once
    assert k["mapping.cmt_kib"] == 0.0  # Ideal_Mapping_Table: the whole table in DRAM
    # SATA: NCQ depth 32 (the fetch size is NVMe's), 3000 ns per message,
    # link 2 lanes x 0.5 GB/s = 1000 MB/s.
    assert (k["interface.kind"], k["host.queue_depth"], k["interface.command_us"]) == (
        "sata",
        32,
        3.0,
    )
    assert k["interface.rate_mb_s"] == 1000.0
    # 8 MiB SIMPLE cache: MQSim's destage buffer (hot-cold); DRAM 2 x 400 MT/s
    # x 2 B = 1600 MB/s, tRCD + tCL = 22 ns, 4 KiB rows, tRP 11 ns.
    assert (k["cache.mib"], k["cache.policy"]) == (8.0, "hot-cold")
    assert (k["cache.dram_mb_s"], k["cache.dram_latency_ns"]) == (1600.0, 22.0)
    assert (k["cache.dram_row_bytes"], k["cache.dram_precharge_ns"]) == (4096, 11.0)
    assert (k["controller.scheduler"], k["controller.busy_unit"], k["controller.multiplane"]) == (
        "mqsim-priority",
        "chip",
        "onfi-queued",
    )
    # MQSim's fixed ONFI cycle times and PCIe packets; NVMe's queue messages
    # only over NVMe.
    assert (k["timing.read_command_ns"], k["timing.program_command_plane_ns"]) == (290.0, 816.0)
    assert (k["interface.tlp_payload_bytes"], k["interface.tlp_overhead_bytes"]) == (128, 28)
    assert "interface.nvme_messages" not in k
    # The core accepts the converted device and resolves the same values.
    cfg = resolved(imp, toml_loads)
    assert cfg["geometry"]["planes_per_die"] == 4 and cfg["ftl"]["gc_policy"] == "rga"
    assert cfg["cache"]["policy"] == "hot-cold" and cfg["interface"]["kind"] == "sata"


def test_mqsim_device_drops_nothing_silently(tmp_path):
    """Every element of the file is either the source of a flashsched key or
    named in a note."""
    imp = importers.load_device(write(tmp_path, "ssdconfig.xml", SSDCONFIG))
    origins = " ".join(origin for _, origin in imp.keys.values())
    noted = note_keys(imp.warnings) | {m.split(" = ")[0] for m in imp.notes.matched}
    for tag in leaf_tags(SSDCONFIG):
        assert tag in noted or re.search(rf"\b{tag}\b", origins), tag
    by_key = {w.split(": ")[1]: w for w in imp.warnings}
    assert "ignored: unused with Ideal_Mapping_Table = true" in by_key["CMT_Capacity"]
    assert "unsupported" in by_key["Static_Wearleveling_Enabled"]
    # A spelling MQSim does not read is reported as such.
    assert "Prefered_suspend_erase_time_for_read" in by_key["Preferred_suspend_erase_time_for_read"]
    assert "approximated" in by_key["Caching_Mechanism"]
    # Notes carry the line of their element: <CMT_Capacity> is on line 28.
    assert by_key["CMT_Capacity"].startswith("ssdconfig.xml:28: ")


def test_stray_elements_and_lines_are_reported(tmp_path):
    text = SSDCONFIG.replace(
        "<Flash_Parameter_Set>", "<Flash_Parameter_Set>\n<Plane><Count>9</Count></Plane>"
    ).replace("</Execution_Parameter_Set>", "<Page_Size>1</Page_Size></Execution_Parameter_Set>")
    imp = importers.load_device(write(tmp_path, "ssdconfig.xml", text))
    by_key = {w.split(": ")[1]: w for w in imp.warnings}
    assert "not a section MQSim reads here" in by_key["Plane"]
    assert "not a section MQSim reads" in by_key["Page_Size"]
    assert keys_of(imp)["geometry.planes_per_die"] == 4
    # SSDsim skips a line that starts with a space: so does the importer, and says so.
    text = PAGE_PARAMETERS.replace("t_R = 30000;", " t_R = 10000;\nt_R = 30000;")
    imp = importers.load_device(write(tmp_path, "page.parameters", text))
    assert keys_of(imp)["timing.read_us"] == 30.0
    assert any(w.startswith("page.parameters:20: t_R: ignored: SSDsim skips") for w in imp.warnings)


def test_mqsim_mapping_cache(tmp_path, toml_loads):
    text = SSDCONFIG.replace("<Ideal_Mapping_Table>true<", "<Ideal_Mapping_Table>false<")
    imp = importers.load_device(write(tmp_path, "ssdconfig.xml", text))
    # 1 MiB of cached mapping table = 1024 KiB.
    assert keys_of(imp)["mapping.cmt_kib"] == 1024.0
    assert resolved(imp, toml_loads)["mapping"]["cmt_kib"] == 1024.0
    assert any(w.startswith("ssdconfig.xml:28: CMT_Capacity: approximated") for w in imp.warnings)


def test_mqsim_missing_keys_take_mqsims_defaults(tmp_path):
    text = re.sub(r"\s*<Queue_Fetch_Size>16</Queue_Fetch_Size>", "", SSDCONFIG)
    text = text.replace("<HostInterface_Type>SATA</HostInterface_Type>", "")
    imp = importers.load_device(write(tmp_path, "ssdconfig.xml", text))
    k = keys_of(imp)
    # NVMe by default; the fetch size defaults to 512, so min(32, 512) = 32.
    assert (k["interface.kind"], k["host.queue_depth"]) == ("nvme", 32)
    assert any("HostInterface_Type: default: not given" in w for w in imp.warnings)


def test_mqsim_shipped_config_matches_the_preset(toml_loads):
    shipped = PEERS / "mqsim" / "ssdconfig.xml"
    if not shipped.is_file():
        pytest.skip(f"MQSim's ssdconfig.xml not found under {PEERS}")
    imp = importers.load_device(shipped)
    ours = resolved(imp, toml_loads)
    preset = toml_loads(flashsched.load_config("mqsim-default"))
    assert ours["geometry"] == preset["geometry"]
    assert ours["timing"] == preset["timing"]
    for key in (
        "overprovisioning",
        "allocation",
        "gc_threshold",
        "gc_hard_threshold",
        "gc_policy",
        "gc_d_choice",
        "gc_jobs_per_plane",
        "gc_move_window",
        "gc_mode",
        "copyback",
        "gc_write_floor",
        "update_reads",
        "frontiers",
        "mapping_frontier",
    ):
        assert ours["ftl"][key] == preset["ftl"][key], key
    assert ours["mapping"] == preset["mapping"]
    for key in ("scheduler", "busy_unit", "multiplane", "dispatch"):
        assert ours["controller"][key] == preset["controller"][key], key
    assert ours["interface"] == preset["interface"]
    assert ours["cache"] == preset["cache"]
    assert ours["host"]["queue_depth"] == preset["host"]["queue_depth"] == 512


# --- SSDsim page.parameters --------------------------------------------------


def test_ssdsim_device_maps_every_key(tmp_path, toml_loads):
    imp = importers.load_device(write(tmp_path, "page.parameters", PAGE_PARAMETERS))
    k = keys_of(imp)
    assert (k["geometry.channels"], k["geometry.chips_per_channel"]) == (2, 3)
    assert (k["geometry.dies_per_chip"], k["geometry.planes_per_die"]) == (1, 2)
    assert (
        k["geometry.blocks_per_plane"],
        k["geometry.pages_per_block"],
        k["geometry.page_size"],
    ) == (
        256,
        128,
        4096,
    )
    assert (k["timing.read_us"], k["timing.program_us"], k["timing.erase_us"]) == (
        30.0,
        300.0,
        2000.0,
    )
    # A byte per t_WC = 20 ns: 50 MB/s; 7 command/address cycles = 140 ns on
    # the bus, a read's before waiting data-outs.
    assert (k["timing.channel_mb_s"], k["timing.command_us"]) == (50.0, 0.0)
    assert (k["timing.read_command_ns"], k["timing.program_command_plane_ns"]) == (140.0, 140.0)
    assert k["controller.read_commands_first"] is True
    # active write = 1: interruptible GC between the two thresholds.
    assert (k["ftl.gc_mode"], k["ftl.gc_threshold"], k["ftl.gc_hard_threshold"]) == (
        "preemptive",
        0.15,
        0.08,
    )
    assert k["ftl.overprovisioning"] == 0.2
    # Static mode 2: channel fastest, then plane, chip, die.
    assert k["ftl.allocation"] == "static:CPWD"
    assert k["ftl.precondition_fill"] == 0.6  # aged = 1, aged ratio 0.6
    # advanced command 12 = two-plane program (4) + interleave (8); under
    # static allocation SSDsim pairs planes whose active blocks share an
    # index, levelling the companion's page (make_level_page).
    assert (k["controller.multiplane"], k["controller.interleave"], k["ftl.copyback"]) == (
        "same-block",
        True,
        False,
    )
    assert k["controller.write_ack"] == "data-in"
    assert (k["controller.multiplane_us"], k["controller.busy_unit"]) == (0.1, "chip")
    assert (k["controller.scheduler"], k["host.queue_depth"]) == ("ssdsim-fcfs", 16)
    # SSDsim's clock is set back on admission: buffer-served requests are
    # timed from their dispatch.
    assert k["host.buffered_latency"] == "from-dispatch"
    assert (k["cache.mib"], k["cache.policy"]) == (2.0, "ssdsim-lru")
    assert (k["cache.dram_mb_s"], k["cache.dram_latency_ns"]) == (1e7, 1000.0)
    cfg = resolved(imp, toml_loads)
    assert cfg["geometry"]["chips_per_channel"] == 3 and cfg["controller"]["interleave"] is True
    noted = note_keys(imp.warnings) | {m.split(" = ")[0] for m in imp.notes.matched}
    origins = " ".join(o for _, o in imp.keys.values())
    for line in PAGE_PARAMETERS.splitlines()[1:]:
        key = re.sub(r"\[\d+\]", "[i]", line.split("=")[0].strip())
        assert key in noted or key in origins, key
    by_key = {w.split(": ")[1]: w for w in imp.warnings}
    # SSDsim's command quirks: reads one page per command, the pages of an
    # interleaved two-plane program begin their data-in together.
    assert (k["controller.advanced_reads"], k["controller.overlap_data_in"]) == (False, True)
    assert k["controller.shared_reads"] is True  # creat_sub_request's shared reads
    assert (k["cache.sectors"], k["cache.dram_serial"], k["timing.sector_transfers"]) == (
        True,
        False,
        True,
    )
    assert "energy" in by_key["flash operating current, dram voltage"]


def test_ssdsim_shipped_parameters_match_the_preset(toml_loads):
    shipped = PEERS / "ssdsim" / "page.parameters"
    if not shipped.is_file():
        pytest.skip(f"SSDsim's page.parameters not found under {PEERS}")
    imp = importers.load_device(shipped)
    ours = resolved(imp, toml_loads)
    preset = toml_loads(flashsched.load_config("ssdsim-default"))
    assert ours["geometry"] == preset["geometry"]
    for key in (
        "read_us",
        "program_us",
        "erase_us",
        "channel_mb_s",
        "command_us",
        "read_command_ns",
        "program_command_ns",
        "program_command_plane_ns",
    ):
        assert ours["timing"][key] == preset["timing"][key], key
    assert ours["ftl"]["overprovisioning"] == preset["ftl"]["overprovisioning"]
    # The controller model and the buffer (its capacity in pages: the file
    # says 131074 B, the preset 128 KiB).
    for key in (
        "scheduler",
        "busy_unit",
        "interleave",
        "multiplane",
        "write_ack",
        "advanced_reads",
        "overlap_data_in",
        "shared_reads",
        "read_commands_first",
    ):
        assert ours["controller"][key] == preset["controller"][key], key
    assert ours["controller"]["ssdsim-fcfs"] == preset["controller"]["ssdsim-fcfs"]
    assert ours["timing"]["sector_transfers"] is preset["timing"]["sector_transfers"] is True
    for key in ("policy", "dram_mb_s", "dram_latency_ns", "dram_serial", "sectors"):
        assert ours["cache"][key] == preset["cache"][key], key
    page = preset["geometry"]["page_size"]
    assert int(ours["cache"]["mib"] * 2**20 / page) == int(preset["cache"]["mib"] * 2**20 / page)
    assert (ours["ftl"]["gc_mode"], ours["ftl"]["gc_block_unit"]) == ("blocking", "chip")
    assert (preset["ftl"]["gc_mode"], preset["ftl"]["gc_block_unit"]) == ("blocking", "chip")
    # Its request queue (queue_length, 5 when the file does not set it).
    for key in ("queue_depth", "buffered_latency"):
        assert ours["host"][key] == preset["host"][key], key
    assert (ours["host"]["queue_depth"], ours["host"]["buffered_latency"]) == (5, "from-dispatch")


# --- MQSim workload.xml ------------------------------------------------------


def test_mqsim_workload_flows(tmp_path, toml_loads):
    write(tmp_path, "mini.trace", MINI_TRACE)
    imp = importers.load_workloads(write(tmp_path, "workload.xml", WORKLOAD_XML), "mqsim-workload")
    w = imp.workloads
    assert list(w) == ["scenario1_flow1", "scenario1_flow2", "scenario2_flow1"]
    # 60 % reads, streaming, 16 sectors = 8 KiB at 8-sector (4 KiB) alignment,
    # queue depth 4, 25 % of the device, 300 requests, seed 11.
    assert w["scenario1_flow1"].synthetic == (
        "read=0.6,pattern=seq,bs=8192,align=4096,qd=4,span=25%,n=300,seed=11"
    )
    assert w["scenario1_flow1"].settings == {"cache.mib": 0.0, "ftl.precondition_fill": 0.4}
    # NORMAL(16, 2) sectors: 16 +- 2 sqrt(3) = 12.54..19.46 -> 13..19 sectors;
    # unaligned (512 B); 8,192,000 B/s of 8 KiB = 1000 IOPS, Poisson; 20 ms.
    assert w["scenario1_flow2"].synthetic == (
        "read=0,pattern=random,bs=6656-9728,align=512,iops=1000,arrival=poisson,"
        "span=100%,time=20ms,seed=12"
    )
    # Microseconds read as ns with intensity 1/1000; 50 % of 10 requests.
    t = w["scenario2_flow1"]
    assert (t.trace, t.format, t.intensity, t.limit) == ("mini.trace", "ascii-ns", 0.001, 5)
    by_key = {w.split(": ")[1]: w for w in imp.warnings}
    assert "does not read" in by_key["Intensity"]
    assert "side by side" in by_key["IO_Scenario 1"]
    assert "approximated" in by_key["Address_Distribution"]
    # The output is a runnable sweep spec: three runs, one per flow, each
    # with its own preconditioning.
    from flashsched.sweep import plan

    spec = write(tmp_path, "imported.toml", imp.to_toml(device=DEVICE))
    runs = plan(spec)
    assert sorted(r.point.workload.name for r in runs) == sorted(w)
    dev = {r.point.workload.name: toml_loads(r.device_toml) for r in runs}
    assert dev["scenario1_flow1"]["ftl"]["precondition_fill"] == 0.4
    assert dev["scenario1_flow1"]["cache"]["mib"] == 0.0
    assert dev["scenario2_flow1"]["ftl"]["precondition_fill"] == 0.0
    assert dev["scenario2_flow1"]["geometry"]["page_size"] == 2048  # ssdsim-default


def test_mqsim_workload_specs_run(tmp_path):
    imp = importers.load_workloads(write(tmp_path, "workload.xml", WORKLOAD_XML), "mqsim-workload")
    flow = imp.workloads["scenario1_flow1"]
    res = flashsched.run(synthetic=flow.synthetic, device=DEVICE, check=True)
    assert res.summary["requests"] == 300
    df = res.requests
    # Sequential 8 KiB requests within the first quarter of the device.
    # ssdsim-default: 4 GiB raw, 90 % of it logical.
    cap = 2 * 2 * 2 * 2 * 2048 * 64 * 2048 * 0.9
    assert (df["offset"] + df["size"]).max() <= cap / 4
    assert (df["size"] == 8192).all()


# --- fio job files -----------------------------------------------------------


def test_fio_jobs(tmp_path):
    imp = importers.load_workloads(write(tmp_path, "jobs.fio", JOB_FILE), "fio")
    assert list(imp.workloads) == ["writer", "mixed"]
    assert imp.workloads["writer"].synthetic == "rw=randwrite,bs=4k,iodepth=4,size=1m,numjobs=2"
    # rate_iops makes the job open loop; fio's default rate process is linear.
    assert imp.workloads["mixed"].synthetic == (
        "rw=randrw,rwmixread=75,bsrange=4k-12k,rate_iops=2000,arrival=uniform,"
        "size=1m,runtime=2s,time_based,seed=5"
    )
    by_key: dict[str, list[str]] = {}
    for w in imp.warnings:
        by_key.setdefault(w.split(": ")[1], []).append(w)
    # [global] options are noted once, not once per job.
    assert by_key["ioengine"] == [
        "jobs.fio:3: ioengine: ignored: host-side setting, no meaning in the simulator"
    ]
    assert [w.split(":")[1] for w in by_key["rw"]] == ["11", "16"]  # both random jobs
    assert "unsupported" in by_key["thinktime"][0]
    assert any("open loop" in w for w in by_key["iodepth"])
    assert "side by side" in by_key["jobs"][0]


def test_fio_job_runs_as_fio_would(tmp_path):
    """1 MiB of 4 KiB random writes per job, two jobs: 2 x 256 writes."""
    job = write(tmp_path, "jobs.fio", JOB_FILE)
    spec = importers.resolve_synthetic(f"{job}:writer")[0]
    res = flashsched.run(synthetic=spec, device=DEVICE, check=True)
    assert (res.summary["requests"], res.summary["reads"]) == (512, 0)
    assert set(res.requests["stream"]) == {0, 1}
    # The same run written with the spec's own words gives the same results.
    own = flashsched.run(
        synthetic="read=0,pattern=random,bs=4k,qd=8,span=1m,n=512,streams=2",
        device=DEVICE,
        check=True,
    )
    assert own.summary["latency_us"] == res.summary["latency_us"]


def test_fio_words_in_specs():
    fio = flashsched.run(synthetic="rw=randrw,rwmixread=70,iodepth=8,bs=4k,size=4m", device=DEVICE)
    own = flashsched.run(
        synthetic="read=0.7,pattern=random,qd=8,bs=4k,span=4m,n=1024", device=DEVICE
    )
    assert fio.summary["requests"] == 1024
    assert (fio.summary["reads"], fio.summary["latency_us"]) == (
        own.summary["reads"],
        own.summary["latency_us"],
    )
    with pytest.raises(flashsched.ConfigError, match="synthetic.rwmixread"):
        flashsched.run(synthetic="rw=randread,rwmixread=70,n=10", device=DEVICE)
    with pytest.raises(flashsched.ConfigError, match="synthetic.iodepth"):
        flashsched.run(synthetic="iodepth=8,qd=4,n=10", device=DEVICE)


def test_fio_job_needs_an_end_and_one_pick(tmp_path):
    p = write(tmp_path, "open.fio", "[j]\nrw=read\nbs=4k\n")
    with pytest.raises(ImporterError, match=r"open.fio: \[j\]: has no size"):
        importers.load_workloads(p, "fio")
    job = write(tmp_path, "jobs.fio", JOB_FILE)
    with pytest.raises(ImporterError, match="holds 2 workloads .*jobs.fio:NAME"):
        importers.resolve_synthetic(str(job))
    with pytest.raises(ImporterError, match="no job or flow `nope`"):
        importers.resolve_synthetic(f"{job}:nope")


# --- errors name the file, line and key --------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "kind", "message"),
    [
        (
            "ssdconfig.xml",
            SSDCONFIG.replace("<Page_Capacity>4096<", "<Page_Capacity>4k<"),
            "mqsim",
            r"ssdconfig.xml:66: Page_Capacity: `4k` is not an integer",
        ),
        (
            "ssdconfig.xml",
            SSDCONFIG.replace("</Flash_Channel_Count>", "</Flash_Channel_Cont>"),
            "mqsim",
            r"ssdconfig.xml:44: malformed XML: mismatched tag",
        ),
        (
            "ssdconfig.xml",
            SSDCONFIG.replace("<GC_Block_Selection_Policy>RGA<", "<GC_Block_Selection_Policy>LRU<"),
            "mqsim",
            r"ssdconfig.xml:34: GC_Block_Selection_Policy: `LRU` is not one of GREEDY",
        ),
        (
            "ssdconfig.xml",
            SSDCONFIG.replace("<Page_Capacity>4096<", "<Page_Capacity>3000<"),
            "mqsim",
            r"ssdconfig.xml:66: Page_Capacity: .*geometry.page_size.*power of two",
        ),
        (
            "workload.xml",
            WORKLOAD_XML,
            "mqsim",
            r"workload.xml:2: .*use `flashsched import mqsim-workload`",
        ),
        (
            "page.parameters",
            PAGE_PARAMETERS.replace("t_R = 30000;", "t_R = fast;"),
            "ssdsim",
            r"page.parameters:20: t_R: `fast` is not a number",
        ),
        (
            "page.parameters",
            PAGE_PARAMETERS.replace("chip number[1] = 3;", "chip number[1] = 2;"),
            "ssdsim",
            r"page.parameters:3: chip number\[i\]: .*same chip count",
        ),
        (
            "page.parameters",
            PAGE_PARAMETERS.replace("gc=1;", "gc 1"),
            "ssdsim",
            r"page.parameters:28: gc 1: expected `key = value;`",
        ),
    ],
)
def test_device_errors_name_file_line_and_key(tmp_path, name, text, kind, message):
    with pytest.raises(ImporterError, match=message):
        importers.load_device(write(tmp_path, name, text), kind)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[j]\nrw=randtrim\nsize=1m\n", r"j.fio:2: rw: `randtrim` is not a supported direction"),
        ("[j]\nbs=4q\nsize=1m\n", r"j.fio:2: bs: `4q` is not a size"),
        ("[j]\nbs=4k,8k\nsize=1m\n", r"j.fio:2: bs: `4k,8k`: separate read/write values"),
        ("[j]\niodepth=0\nsize=1m\n", r"j.fio:2: iodepth: `0` is not a positive integer"),
        ("rw=read\n[j]\nsize=1m\n", r"j.fio:1: rw: option before any \[section\]"),
        (
            "[j]\nsize=1m\nruntime=${FLASHSCHED_NO_SUCH_VAR}\n",
            r"j.fio:3: runtime: environment variable",
        ),
        ("[j]\nsize=50%\nruntime=10\n", r"j.fio:2: size: 50%: a share of the device .*number_ios"),
    ],
)
def test_fio_errors_name_file_line_and_option(tmp_path, text, message):
    with pytest.raises(ImporterError, match=message):
        importers.load_workloads(write(tmp_path, "j.fio", text), "fio")


def test_workload_errors(tmp_path):
    bad = WORKLOAD_XML.replace("<Total_Requests_To_Generate>300<", "<Total_Requests_To_Generate>0<")
    with pytest.raises(
        ImporterError, match=r"workload.xml:\d+: Stop_Time: .*nothing ends the flow"
    ):
        importers.load_workloads(write(tmp_path, "workload.xml", bad), "mqsim-workload")
    with pytest.raises(ImporterError, match=r"ssdconfig.xml:2: .*use `flashsched import mqsim`"):
        importers.load_workloads(write(tmp_path, "ssdconfig.xml", SSDCONFIG), "mqsim-workload")


# --- the command line --------------------------------------------------------


def test_cli_import_writes_a_device_the_core_loads(tmp_path, capsys, toml_loads):
    src = write(tmp_path, "ssdconfig.xml", SSDCONFIG)
    assert cli.main(["import", "mqsim", str(src)]) == 0
    out, err = capsys.readouterr()
    dev = write(tmp_path, "dev.toml", out)
    cfg = toml_loads(flashsched.load_config(str(dev)))
    assert cfg["geometry"]["channels"] == 4 and cfg["timing"]["read_us"] == 60.0
    # Every note is on stderr and in the file's header comment.
    notes = [ln for ln in err.splitlines() if ln.startswith("flashsched: import: ")]
    assert notes and all(ln.split("import: ", 1)[1] in out for ln in notes)
    # The XML named as an SSDsim file: its first line is not `key = value;`.
    assert cli.main(["import", "ssdsim", str(src)]) == 2
    assert "ssdconfig.xml:1: " in capsys.readouterr().err


def test_cli_run_accepts_imported_device_and_fio_job(tmp_path, capsys):
    dev = write(tmp_path, "page.parameters", PAGE_PARAMETERS.replace("aged=1;", "aged=0;"))
    job = write(tmp_path, "jobs.fio", JOB_FILE)
    code = cli.main(
        [
            "run",
            "--device",
            str(dev),
            "--synthetic",
            f"{job}:writer",
            "--json",
            "-",
            "--no-progress",
        ]
    )
    assert code == 0
    out, err = capsys.readouterr()
    assert '"requests": 512' in out
    assert "flashsched: import: page.parameters:" in err
    assert "flashsched: import: jobs.fio:3: ioengine: ignored" in err


def test_cli_import_errors_exit_2(tmp_path, capsys):
    bad = write(tmp_path, "page.parameters", "channel number = two;\n")
    assert cli.main(["import", "ssdsim", str(bad)]) == 2
    assert "page.parameters:1: channel number: `two` is not an integer" in capsys.readouterr().err
