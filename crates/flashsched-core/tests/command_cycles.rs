//! What MQSim's controller puts on the wires besides data, each as a
//! worked example computed by hand on a tiny device (one chip, 10 µs per
//! 4 KiB page on the bus, tR 50 µs, tPROG 200 µs): the command and address
//! cycles of a flash command on the channel (`timing.*_command_ns`),
//! PCIe's packet overhead and NVMe's queue messages on the host link
//! (`interface.tlp_*`, `interface.nvme_messages`), and MQSim's page
//! offsets for multi-plane programs (`controller.multiplane =
//! "onfi-queued"`). Every run has the version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{assert_rejected_by_key, completions_us, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn lpn(i: u64) -> u64 {
    i * PAGE as u64
}

const CYCLES: &[&str] = &[
    "timing.read_command_ns=300",
    "timing.read_command_plane_ns=700",
    "timing.program_command_ns=400",
    "timing.program_command_plane_ns=1000",
];

fn with(base: &[&str], extra: &[&str]) -> DeviceConfig {
    one_chip(&[base, extra].concat())
}

/// A read: its command's cycles hold the bus 0–0.3 µs, the sense runs
/// 0.3–50.3, the data-out 50.3–60.3. A second read, to the other die at
/// the same instant, waits for the bus to send its own cycles (0.3–0.6),
/// senses 0.6–50.6 and moves its data after the first's (60.3–70.3).
#[test]
fn a_read_command_holds_the_bus_before_its_sense() {
    let sim = run_checked(with(CYCLES, &[]), vec![rec(0, Op::Read, lpn(0), PAGE)]);
    assert_eq!(completions_us(&sim), [60.3]);
    let sim = run_checked(
        with(CYCLES, &[]),
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(2), PAGE),
        ],
    );
    assert_eq!(completions_us(&sim), [60.3, 70.3]);
    // Without cycles: 60 and 70 µs.
    let sim = run_checked(
        one_chip(&[]),
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(2), PAGE),
        ],
    );
    assert_eq!(completions_us(&sim), [60.0, 70.0]);
}

/// A program: cycles and data-in are one transfer (0–0.4, 0.4–10.4), then
/// tPROG: done at 210.4 µs. A two-plane program's cycles take 0.4 + 1.0
/// µs, then both data-ins (1.4–11.4, 11.4–21.4) and one tPROG: 221.4 µs.
#[test]
fn a_program_command_sends_its_cycles_before_its_data() {
    let sim = run_checked(with(CYCLES, &[]), vec![rec(0, Op::Write, lpn(0), PAGE)]);
    assert_eq!(completions_us(&sim), [210.4]);
    let sim = run_checked(
        with(CYCLES, &["controller.multiplane=relaxed"]),
        vec![
            rec(0, Op::Write, lpn(0), PAGE),
            rec(0, Op::Write, lpn(1), PAGE),
        ],
    );
    assert_eq!(completions_us(&sim), [221.4, 221.4]);
    assert_eq!(sim.summary().flash.commands, 1);
}

/// With overlapped data-ins (SSDsim's interleaved two-plane program) the
/// four writes to one chip's four planes form two two-plane commands at
/// t = 0. The first sends its cycles (0–0.4 µs, plus 1.0 for its second
/// plane) and starts the group's data at 1.4; the second joins that group
/// and shares its cycles, so every page is in its chip at 11.4 and both
/// dies program until 211.4 µs.
#[test]
fn a_command_joining_an_overlapped_group_shares_its_cycles() {
    let sim = run_checked(
        with(
            CYCLES,
            &[
                "controller.busy_unit=chip",
                "controller.interleave=true",
                "controller.multiplane=relaxed",
                "controller.overlap_data_in=true",
            ],
        ),
        (0..4).map(|i| rec(0, Op::Write, lpn(i), PAGE)).collect(),
    );
    assert_eq!(completions_us(&sim), [211.4; 4]);
    assert_eq!(sim.summary().flash.commands, 2);
}

const NVME: &[&str] = &[
    "interface.kind=nvme",
    "interface.rate_mb_s=4000",
    "interface.tlp_payload_bytes=128",
    "interface.tlp_overhead_bytes=28",
    "interface.nvme_messages=true",
];

/// MQSim's PCIe link at 4 GB/s (0.25 ns per byte), 28 bytes per TLP of at
/// most 128. A 4 KiB write: the device asks for its data (a 4-byte read
/// request: 32 bytes, 8 ns), the data crosses in 32 packets (4,992 bytes,
/// 1,248 ns) and is there at 1.256 µs; its program ends 10 + 200 µs later
/// (211.256). The completion entry (16 + 28 bytes: 11 ns) and the command
/// fetch the request began with (doorbell 2 + 28 bytes: 8 ns, the entry's
/// read request 8 ns, the 64-byte entry 92 bytes: 23 ns; 39 ns) follow:
/// 211.306 µs. A 4 KiB read: sense and data-out at 60 µs, its data back
/// over the link (1,248 ns), the completion and the fetch: 61.298 µs.
/// Without TLPs and messages: 211.024 and 61.024 µs.
#[test]
fn nvme_messages_and_packet_overhead_cross_the_link() {
    let reqs = || {
        vec![
            rec(0, Op::Write, lpn(0), PAGE),
            rec(0, Op::Read, lpn(2), PAGE),
        ]
    };
    let sim = run_checked(with(NVME, &[]), reqs());
    assert_eq!(completions_us(&sim), [211.306, 61.298]);
    let plain = ["interface.kind=nvme", "interface.rate_mb_s=4000"];
    let sim = run_checked(with(&plain, &[]), reqs());
    assert_eq!(completions_us(&sim), [211.024, 61.024]);
}

/// MQSim gives a program its page when it is queued: the k-th program
/// waiting on a plane gets the page k after the plane's next one. Plane 1
/// (LPN 1, written at 0: bus 0–10, tPROG 10–210 µs) is at page 1 when LPN
/// 5 (plane 1) queues at 1 µs, so LPN 5 has offset 1; LPN 0 and LPN 4
/// (plane 0, at page 0) queue at 2 and 3 µs with offsets 0 and 1. When
/// the die frees at 210, LPN 5 leads. By the offsets queued, LPN 4 joins
/// it (data-ins 210–220, 220–230, tPROG 230–430); LPN 0 follows alone
/// (430–440, 440–640). By the offsets at start (`onfi`), plane 0 is at
/// page 0 where plane 1 is at 1: no pair, each alone (420, 630, 840).
#[test]
fn onfi_queued_pairs_programs_by_the_offsets_given_when_queued() {
    let reqs = || {
        vec![
            rec(0, Op::Write, lpn(1), PAGE),
            rec(US, Op::Write, lpn(5), PAGE),
            rec(2 * US, Op::Write, lpn(0), PAGE),
            rec(3 * US, Op::Write, lpn(4), PAGE),
        ]
    };
    // Completions in offset order: LPN 0, 1, 4, 5.
    let sim = run_checked(one_chip(&["controller.multiplane=onfi-queued"]), reqs());
    assert_eq!(completions_us(&sim), [640.0, 210.0, 430.0, 430.0]);
    let sim = run_checked(one_chip(&["controller.multiplane=onfi"]), reqs());
    assert_eq!(completions_us(&sim), [630.0, 210.0, 840.0, 420.0]);
}

#[test]
fn wire_settings_are_checked_by_key() {
    assert_rejected_by_key(&[
        ("timing.read_command_ns=-1", "timing.read_command_ns"),
        (
            "timing.erase_command_plane_ns=1e9",
            "timing.erase_command_plane_ns",
        ),
        ("interface.nvme_messages=true", "interface.nvme_messages"),
        ("controller.multiplane=onfi-later", "controller.multiplane"),
    ]);
}

/// `controller.read_commands_first` (SSDsim's step loop sends a waiting
/// read's command before a channel's next data-out). Reads A (die 0) and B
/// (die 1) at 0 as above: A's data-out runs 50.3–60.3 and B's, asked for
/// at 50.6, waits for it. Read C (die 0 again) arrives at 55 µs and gets
/// die 0 when A's data-out ends, at 60.3.
/// - In request order (MQSim), C's cycles wait for B's data-out (60.3–70.3):
///   cycles 70.3–70.6, sense 70.6–120.6, data-out 120.6–130.6.
/// - Commands first (SSDsim), C's cycles go before it (60.3–60.6), B's
///   data-out moves to 60.6–70.6, and C senses 60.6–110.6 and moves its
///   data 110.6–120.6.
#[test]
fn read_commands_first_pass_waiting_data_outs() {
    let reqs = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(2), PAGE),
            rec(55 * US, Op::Read, lpn(4), PAGE),
        ]
    };
    let sim = run_checked(with(CYCLES, &[]), reqs());
    assert_eq!(completions_us(&sim), [60.3, 70.3, 130.6]);
    let sim = run_checked(
        with(CYCLES, &["controller.read_commands_first=true"]),
        reqs(),
    );
    assert_eq!(completions_us(&sim), [60.3, 70.6, 120.6]);
}
