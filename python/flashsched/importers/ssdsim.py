"""SSDsim's ``page.parameters`` → a flashsched device.

Geometry (with per-channel chip counts), the NAND and bus timings, over-
provisioning, the GC trigger and mode, the DRAM buffer, the scheduler,
allocation and the advanced commands (two-plane, interleave, copyback) map
to flashsched keys; SSDsim's chip-level busy state and its uninterruptible
GC are written out. Energy parameters, ONFI signal timings, wear leveling
and the other keys flashsched does not model are reported.
docs/importers.md has the full table.
"""

from __future__ import annotations

import re
from pathlib import Path

from flashsched.importers.device import DeviceImport
from flashsched.importers.fields import Fields, Raw
from flashsched.importers.notes import APPROXIMATED, IGNORED, UNSUPPORTED, Notes

# SSDsim's defaults for keys a file may leave out (its initialize.c sets
# the request queue length to 5; the others start at zero).
DEFAULTS: dict[str, Raw] = {
    "queue_length": 5,
    "dram capacity": 0,
    "allocation": 0,
    "static_allocation": 0,
    "dynamic_allocation": 0,
    "advanced command": 0,
    "active write": 0,
    "gc threshold": 0.0,
    "aged": 0,
    "aged ratio": 0.0,
    "address mapping": 1,
    "scheduling algorithm": 1,
    "t_DBSY": 0,
    "t_RC": 0,
    "subpage capacity": 512,
}
# Static allocation modes 0-5 as flashsched orders (first letter fastest).
STATIC_ORDERS = {0: "WDPC", 1: "CWDP", 2: "CPWD", 3: "CDWP", 4: "CPDW", 5: "CDPW"}
# Bits of `advanced command`.
AD_RANDOM, AD_COPYBACK, AD_TWOPLANE, AD_INTERLEAVE, AD_TWOPLANE_READ = 1, 2, 4, 8, 16
SIGNAL_TIMINGS = [
    "t_CLS", "t_CLH", "t_CS", "t_CH", "t_WP", "t_ALS", "t_ALH", "t_DS", "t_DH", "t_WH",
    "t_ADL", "t_AR", "t_CLR", "t_RR", "t_RP", "t_WB", "t_REA", "t_CEA", "t_RHZ", "t_CHZ",
    "t_RHOH", "t_RLOH", "t_COH", "t_REH", "t_IR", "t_RHW", "t_WHR", "t_RST",
]  # fmt: skip
ENERGY = [
    "flash operating current", "flash supply voltage", "dram active current",
    "dram standby current", "dram refresh current", "dram voltage",
]  # fmt: skip
NOT_MODELLED = {
    "erase limit": (UNSUPPORTED, "no endurance limit (variation.wear_pe sets a wear stage)"),
    "wear leveling": (UNSUPPORTED, "flashsched does no wear leveling"),
    "gc": (IGNORED, "SSDsim reads this mode but does not use it"),
    "buffer management": (IGNORED, "SSDsim uses its buffer whenever dram capacity > 0"),
    "cpu sdram": (UNSUPPORTED, "controller SDRAM is not modelled"),
    "clean in background": (UNSUPPORTED, "background GC is not modelled"),
    "quick table radio": (UNSUPPORTED, "FAST mapping is not modelled"),
    "related mapping": (UNSUPPORTED, "FAST mapping is not modelled"),
    "striping": (IGNORED, "SSDsim reads it but does not use it"),
    "interleaving": (IGNORED, "SSDsim reads it but does not use it (see advanced command)"),
    "pipelining": (IGNORED, "SSDsim reads it but does not use it"),
    "time_step": (IGNORED, "SSDsim reads it but does not use it"),
    "small large write": (IGNORED, "SSDsim reads it but does not use it"),
    "active write threshold": (UNSUPPORTED, "active-write thresholds are not modelled"),
    "threshold value": (UNSUPPORTED, "active-write thresholds are not modelled"),
    "advanced command priority2": (
        UNSUPPORTED,
        "flashsched forms multi-plane and interleaved commands by its own rules",
    ),
    "greed CB command": (
        APPROXIMATED,
        "with copyback on, flashsched uses it for every GC move",
    ),
    "greed MPW command": (
        APPROXIMATED,
        "flashsched forms multi-plane commands whenever queued work allows",
    ),
}
CHIP_LINE = re.compile(r"chip number\[(\d+)\]$")


def parse(path: Path, notes: Notes) -> dict[str, tuple[str, int]]:
    """``key = value;`` lines (``#`` starts a comment) by key; a line that is
    neither raises ImporterError naming it."""
    out: dict[str, tuple[str, int]] = {}
    try:
        text = path.read_text(encoding="latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes any byte
        raise notes.error("file", "cannot be read as text") from None
    if text.lstrip().startswith("<"):
        raise notes.error("file", "this is XML, not SSDsim's `key = value;` lines (MQSim?)", 1)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if raw.startswith(" "):
            notes.add(
                IGNORED, line.split("=")[0].strip(), "SSDsim skips lines that start with a space", n
            )
            continue
        if "=" not in line:
            raise notes.error(line[:40], "expected `key = value;`", n)
        k, v = (s.strip() for s in line.split("=", 1))
        v = v.split(";", 1)[0].strip()
        if not k:
            raise notes.error("(empty key)", "expected `key = value;`", n)
        if k in out:
            raise notes.error(k, f"given twice (lines {out[k][1]} and {n})", n)
        out[k] = (v, n)
    return out


def load(path: str | Path) -> DeviceImport:
    """Convert an SSDsim ``page.parameters``; malformed input raises
    ImporterError naming the file, line and key."""
    path = Path(path)
    notes = Notes(path.name)
    f = Fields(notes, parse(path, notes), DEFAULTS)
    out = DeviceImport(
        "SSDsim page.parameters", notes, description=f"imported from SSDsim {path.name}"
    )
    _geometry(out, f)
    _timing(out, f)
    _ftl(out, f)
    _controller(out, f)
    _cache_and_host(out, f)
    for k in list(f.values):
        if k in NOT_MODELLED:
            kind, why = NOT_MODELLED[k]
            f.note(kind, k, why)
    f.note_group(IGNORED, SIGNAL_TIMINGS, "ONFI signal timings; flashsched's bus is a byte rate")
    f.note_group(UNSUPPORTED, ENERGY, "energy is not modelled")
    f.report_unused("not a key SSDsim reads")
    out.locate(f.values)
    out.validate()
    return out


def _geometry(out: DeviceImport, f: Fields) -> None:
    channels = f.integer("channel number", lo=1)
    total = f.integer("chip number", lo=1)
    per: dict[int, int] = {}
    for k in list(f.values):
        m = CHIP_LINE.match(k)
        if m:
            per[int(m.group(1))] = f.integer(k)
    if per:
        counts = {per.get(i) for i in range(channels)}
        if None in counts or len(counts) != 1:
            shown = ", ".join(f"[{i}] = {per.get(i, 'missing')}" for i in range(channels))
            raise f.notes.error(
                "chip number[i]",
                f"flashsched needs the same chip count on every channel ({shown})",
                f.line("chip number[0]"),
            )
        extra = [f"chip number[{i}]" for i in per if i >= channels and per[i] != 0]
        f.note_group(IGNORED, extra, f"beyond the {channels} channels")
        chips = per[0]
    elif total % channels:
        raise f.notes.error(
            "chip number",
            f"{total} chips do not split evenly over {channels} channels",
            f.line("chip number"),
        )
    else:
        chips = total // channels
    if chips * channels != total:
        raise f.notes.error(
            "chip number",
            f"{total} disagrees with {channels} channels x {chips} chips (chip number[i])",
            f.line("chip number"),
        )
    out.set("geometry.channels", channels, "channel number")
    origin = "chip number[i]" if per else "chip number / channel number"
    out.set("geometry.chips_per_channel", chips, origin)
    for key, src in [
        ("dies_per_chip", "die number"),
        ("planes_per_die", "plane number"),
        ("blocks_per_plane", "block number"),
        ("pages_per_block", "page number"),
        ("page_size", "page capacity"),
    ]:
        out.set(f"geometry.{key}", f.integer(src, lo=1), src)
    page = int(out.keys["geometry.page_size"][0])
    sub = f.integer("subpage capacity", lo=1)
    if f.has("subpage page"):
        subs = f.integer("subpage page", lo=1)
        if subs * sub != page:
            raise f.notes.error(
                "subpage page",
                f"{subs} x subpage capacity {sub} is not the page capacity {page}",
                f.line("subpage page"),
            )
        f.match("subpage page", f"{subs} (sectors per page)")
    if sub != 512:
        f.note(APPROXIMATED, "subpage capacity", "flashsched tracks 512-byte sectors")
    else:
        f.match("subpage capacity", "512 (flashsched's sector)")


def _ns_us(v: float) -> float:
    return round(v / 1000.0, 6)


def _timing(out: DeviceImport, f: Fields) -> None:
    out.set("timing.cell", "slc", "SSDsim: one latency per operation")
    out.set("timing.read_us", _ns_us(f.number("t_R", lo=1)), "t_R")
    out.set("timing.program_us", _ns_us(f.number("t_PROG", lo=1)), "t_PROG")
    out.set("timing.erase_us", _ns_us(f.number("t_BERS", lo=1)), "t_BERS")
    twc = f.number("t_WC", lo=1)
    # SSDsim moves a byte per t_WC and spends 7 t_WC on command/address cycles
    # on the bus: a read's before its sense, a program's before each page's
    # data-in (its two-plane command repeats them per plane).
    out.set("timing.channel_mb_s", round(1000.0 / twc, 6), "1000 / t_WC (one byte per t_WC ns)")
    out.set("timing.command_us", 0.0, "no time off the bus: the cycles are on it")
    for key in ("read_command_ns", "program_command_ns", "program_command_plane_ns"):
        out.set(f"timing.{key}", 7 * twc, "7 x t_WC (command and address cycles on the bus)")
    out.set(
        "timing.sector_transfers",
        True,
        "SSDsim moves only the sectors a sub-request reads or writes (sectors x 512 x t_WC)",
    )
    trc = f.number("t_RC")
    if trc and trc != twc:
        f.note(
            APPROXIMATED, "t_RC", f"reads move data at t_WC ({twc:g} ns per byte) too: one bus rate"
        )
    else:
        f.match("t_RC", "t_WC (one bus rate for both directions)")


def _ftl(out: DeviceImport, f: Fields) -> None:
    out.set("ftl.overprovisioning", f.number("overprovide", hi=0.9), "overprovide")
    if f.integer("active write") == 0:
        # SSDsim's default: GC starts below the hard threshold and holds the
        # chip until the block is erased.
        out.set("ftl.gc_threshold", f.number("gc hard threshold", hi=1.0), "gc hard threshold")
        out.set("ftl.gc_mode", "blocking", "active write = 0: uninterruptible GC")
        out.set("ftl.gc_block_unit", "chip", "SSDsim's GC holds the chip (and channel)")
        f.note(
            APPROXIMATED,
            "gc hard threshold",
            "SSDsim's GC also holds the channel; here only the chip",
        )
        f.note(IGNORED, "gc threshold", "used only with active write = 1")
    else:
        out.set("ftl.gc_threshold", f.number("gc threshold", hi=1.0), "gc threshold")
        out.set("ftl.gc_hard_threshold", f.number("gc hard threshold", hi=1.0), "gc hard threshold")
        out.set("ftl.gc_mode", "preemptive", "active write = 1: interruptible GC")
        f.note(APPROXIMATED, "active write", "interruptible GC becomes flashsched's preemptive GC")
    op = float(out.keys["ftl.overprovisioning"][0])
    thr = float(out.keys["ftl.gc_threshold"][0])
    if thr > op:
        f.notes.add(
            APPROXIMATED,
            "ftl.gc_threshold",
            f"{thr:g} is above the over-provisioning {op:g}: once the device is more than "
            f"{(1 - thr) / (1 - op):.0%} full, GC cannot free that much and runs on every write "
            "(as in SSDsim)",
        )
    out.set("ftl.gc_policy", "greedy", "SSDsim: greedy victim")
    out.set(
        "ftl.update_reads",
        "ssdsim",
        "SSDsim: a write not covering a page's valid sectors reads them first; its "
        "trace pre-pass marks every read's sectors valid",
    )
    if f.integer("allocation") == 0:
        if f.integer("dynamic_allocation") == 0:
            out.set(
                "ftl.allocation",
                "dynamic:idle-chip",
                "allocation = 0, dynamic_allocation = 0: writes wait in one queue for an idle chip",
            )
        else:
            out.set("ftl.allocation", "dynamic", "allocation = 0")
            f.note(
                APPROXIMATED,
                "dynamic_allocation",
                "a fixed channel is not kept: placed on the least-loaded die when it arrives",
            )
        f.note(IGNORED, "static_allocation", "used only with allocation = 1")
    else:
        mode = f.integer("static_allocation")
        if mode not in STATIC_ORDERS:
            raise f.notes.error(
                "static_allocation", f"{mode} is not a mode 0-5", f.line("static_allocation")
            )
        out.set("ftl.allocation", f"static:{STATIC_ORDERS[mode]}", f"static_allocation = {mode}")
        f.note(IGNORED, "dynamic_allocation", "used only with allocation = 0")
    mapping = f.integer("address mapping")
    if mapping != 1:
        f.note(UNSUPPORTED, "address mapping", f"{mapping}: flashsched's FTL is page-mapped (1)")
    else:
        f.match("address mapping", "1 (page mapping)")
    if f.integer("aged") == 1:
        out.set("ftl.precondition_fill", f.number("aged ratio", hi=1.0), "aged ratio")
        f.note(
            APPROXIMATED,
            "aged",
            "SSDsim invalidates pages up front; flashsched preconditions to this fill",
        )
    else:
        out.set("ftl.precondition_fill", 0.0, "aged = 0")
        f.note(IGNORED, "aged ratio", "used only with aged = 1")


def _controller(out: DeviceImport, f: Fields) -> None:
    algo = f.integer("scheduling algorithm")
    out.set("controller.scheduler", "ssdsim-fcfs", "scheduling algorithm")
    out.set(
        "controller.ssdsim-fcfs.order",
        "reads-first",
        "SSDsim's channel loop serves reads before writes",
    )
    if algo != 1:
        f.note(UNSUPPORTED, "scheduling algorithm", f"{algo}: only FCFS (1) is modelled")
    out.set("controller.busy_unit", "chip", "SSDsim keeps busy state per chip")
    bits = f.integer("advanced command")
    two_plane = bool(bits & AD_TWOPLANE)
    static = f.integer("allocation") != 0
    out.set(
        "controller.multiplane",
        ("same-block" if static else "relaxed") if two_plane else "off",
        "advanced command (two-plane program bit) and allocation: SSDsim pairs planes whose "
        "active blocks have the same index and levels the companion's page up "
        "(make_level_page); under dynamic allocation it searches every plane of the die, "
        "under static allocation only the LPN's",
    )
    out.set(
        "controller.advanced_reads",
        False,
        "SSDsim reads one page per command: its two-plane and interleave read search never "
        "returns a pair (services_2_r_wait passes its result pointers by value)",
    )
    out.set(
        "controller.read_commands_first",
        True,
        "SSDsim's step loop sends a waiting read's command before a channel's next data-out",
    )
    out.set(
        "controller.shared_reads",
        True,
        "SSDsim: a read of a page already in its channel's read queue is done 1000 ns later "
        "without flash (creat_sub_request)",
    )
    if two_plane:
        out.set("controller.multiplane_us", _ns_us(f.number("t_DBSY")), "t_DBSY")
    else:
        f.note(IGNORED, "t_DBSY", "no two-plane commands")
    out.set(
        "controller.interleave", bool(bits & AD_INTERLEAVE), "advanced command (interleave bit)"
    )
    out.set(
        "controller.overlap_data_in",
        two_plane and bool(bits & AD_INTERLEAVE),
        "interleave and two-plane bits: SSDsim's interleaved two-plane program starts every "
        "page's data-in at once (compute_serve_time)",
    )
    if bits & AD_TWOPLANE_READ:
        f.note(
            IGNORED,
            "advanced command",
            "the two-plane read bit (16): SSDsim never pairs reads (see controller.advanced_reads)",
        )
    out.set("ftl.copyback", bool(bits & AD_COPYBACK), "advanced command (copyback bit)")
    out.set(
        "controller.write_ack",
        "data-in",
        "SSDsim completes a flash write when its data has crossed the channel, before tPROG",
    )
    if bits & AD_RANDOM:
        f.note(
            IGNORED, "advanced command", "the random-command bit (1) has no flashsched counterpart"
        )
    if bits & ~31:
        raise f.notes.error(
            "advanced command", f"{bits} has bits beyond 31", f.line("advanced command")
        )
    if (bits & AD_INTERLEAVE) and two_plane:
        f.note(
            IGNORED,
            "advanced command priority",
            "flashsched combines interleaving and multi-plane commands without a precedence",
        )
    else:
        f.note(
            IGNORED,
            "advanced command priority",
            "matters only with interleave and two-plane both on",
        )


def _cache_and_host(out: DeviceImport, f: Fields) -> None:
    dram = f.integer("dram capacity")
    out.set("cache.mib", dram / (1 << 20), "dram capacity")
    if dram:
        out.set(
            "cache.policy",
            "ssdsim-lru",
            "SSDsim's LRU write buffer: a write evicts at once and completes when the evicted "
            "pages are written",
        )
        out.set("cache.dram_mb_s", 1e7, "SSDsim serves a buffered request in a fixed 1000 ns")
        out.set(
            "cache.dram_latency_ns", 1000.0, "SSDsim serves a buffered request in a fixed 1000 ns"
        )
        out.set(
            "cache.dram_serial",
            False,
            "SSDsim charges each buffered request its 1000 ns however many arrive together",
        )
        out.set(
            "cache.sectors",
            True,
            "SSDsim's buffer counts its room in sectors and writes back the sectors a page holds",
        )
    out.set("host.queue_depth", f.integer("queue_length", lo=1), "queue_length")
    out.set(
        "host.buffered_latency",
        "from-dispatch",
        "SSDsim sets its clock back to a request's arrival when it admits it (get_requests), so "
        "a request its buffer serves alone takes 1000 ns however long it waited for admission",
    )
