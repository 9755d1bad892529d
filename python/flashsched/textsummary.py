"""Plain-text rendering of a run summary for the terminal."""

from __future__ import annotations

from typing import Any


def _lat_row(name: str, lat: dict[str, float]) -> str:
    cells = [f"{lat[k]:>10.1f}" for k in ("mean", "p50", "p90", "p99", "p999", "max")]
    return f"  {name:<7}{lat['count']:>10} " + " ".join(cells)


def _devsched_row(fl: dict[str, Any]) -> str:
    """Device-scheduler metrics (docs/devsched.md); absent in older summaries."""
    if "flp" not in fl:
        return "  device-sched: (no metrics)"
    return (
        f"  device-sched: {fl['interfered_reads']:,} reads behind a program/erase, "
        f"FLP {fl['flp']:.2f}, SLP {fl['slp_chips']:.2f} chips / {fl['slp_channels']:.2f} "
        f"channels, {fl['suspensions']:,} suspensions, conflicts {fl['conflict_ratio_pct']:.1f} %"
    )


def _input_row(inp: dict[str, Any]) -> str:
    """Trace input accounting (docs/reliability.md)."""
    row = (
        f"  trace input: {inp['lines']:,} lines, {inp['records']:,} records, "
        f"{inp['dropped']:,} dropped, {inp['clamped']:,} clamped in time, "
        f"{inp['bad_lines']:,} bad lines skipped"
    )
    if inp.get("time_order"):
        row += f", time order {inp['time_order']}"
    if inp.get("decoding"):
        row += f" ({', '.join(inp['decoding'])})"
    if inp.get("first_bad"):
        row += f"\n    first bad line: {inp['first_bad']}"
    return row


def _check_row(c: dict[str, Any] | None) -> str:
    """Whether check mode ran, and what it verified (docs/reliability.md)."""
    if not c or not c.get("enabled"):
        return "  check: off (--check verifies every read and audits the FTL)"
    return (
        f"  check: on, passed: {c['page_reads_verified']:,} page reads verified, "
        f"{c['records']:,} data movements checked, {c['audits']:,} "
        f"audit{'s' if c['audits'] != 1 else ''} "
        f"({c['pages_audited']:,} pages audited)"
    )


def render(s: dict[str, Any]) -> str:
    """Readable multi-line summary of a run."""
    gc = s["gc"]
    fl = s["flash"]
    pc = s["precondition"]
    lines = [
        f"device {s['device']}  host-sched {s['host_sched']}  "
        f"device-sched {s['device_sched']}  seed {s['seed']}",
        f"workload {s['workload']}",
        "",
        f"  requests {s['requests']:,} (reads {s['reads']:,}, writes {s['writes']:,}, "
        f"trims {s['trims']:,})",
        f"  simulated {s['simulated_s']:.3f} s   IOPS {s['iops']:,.0f}   "
        f"bandwidth {s['bandwidth_mib_s']:,.1f} MiB/s",
        "",
        "  latency (µs)   count       mean        p50        p90        p99      p99.9        max",
        _lat_row("all", s["latency_us"]),
        _lat_row("read", s["read_latency_us"]),
        _lat_row("write", s["write_latency_us"]),
        "",
        f"  GC: {gc['invocations']:,} invocations, {gc['pages_moved']:,} pages moved, "
        f"{gc['erases']:,} erases   WAF {s['waf']:.3f}",
        f"  flash: {fl['reads']:,} page reads"
        + (f" ({fl['update_reads']:,} read-modify-write)" if fl.get("update_reads") else "")
        + (f", {fl['shared_reads']:,} shared" if fl.get("shared_reads") else "")
        + f", {fl['programs']:,} programs, "
        f"{fl['dram_read_hits']:,} DRAM hits, channel conflicts {fl['channel_conflicts']:,}, "
        f"mean chip utilisation {fl['mean_chip_utilization'] * 100:.1f} %",
        _devsched_row(fl),
    ]
    if pc["fill"] > 0:
        lines.append(
            f"  preconditioned to {pc['fill'] * 100:.0f} % fill ({pc['live_pages']:,} live pages, "
            f"block validity {pc['mean_block_validity'] * 100:.1f} %): {pc['method']}"
        )
    if s.get("gc_detection"):
        lines.append(_detection_row(s["gc_detection"]))
    if s.get("input"):
        lines.append(_input_row(s["input"]))
    if "check" in s:
        lines.append(_check_row(s["check"]))
    lines.append(
        f"  wall {s['wall_s']:.2f} s, {s['events']:,} events, "
        f"{s['requests_per_wall_s']:,.0f} simulated requests/s"
    )
    return "\n".join(lines)


def _detection_row(d: dict[str, Any]) -> str:
    """The host's GC detector against the device's GC periods."""

    def pct(v: float | None) -> str:
        return "n/a" if v is None else f"{v * 100:.1f} %"

    return (
        f"  GC detector ({d['zones']} {d['zone_kind']} zones): {d['flags']:,} flags "
        f"({d['flags_in_gc']:,} while in GC), {d['probes']:,} probes, "
        f"held {d['held_zone_s']:.3f} zone-s; precision {pct(d['precision'])}, "
        f"recall {pct(d['recall'])}, GC episodes noticed "
        f"{d['episodes_detected']:,} of {d['gc_episodes']:,}"
    )
