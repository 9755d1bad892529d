//! The controller model's mechanisms, each as a worked example computed by
//! hand on a tiny device: multi-plane commands, chip-level busy, die
//! interleaving. Every run has the version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{completions_by_arrival_us, completions_us, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn lpn(i: u64) -> u64 {
    i * PAGE as u64
}

/// Two one-page writes to the two planes of die 0, arriving together.
/// Two-plane program: both data-ins (10 + 10 µs) then one tPROG: both end
/// at 220 µs, in one command. One plane at a time: 10 + 200 = 210 µs, then
/// the second waits for the die: 210 + 10 + 200 = 420 µs.
#[test]
fn a_two_plane_program_takes_one_tprog_and_two_transfers() {
    let writes = || {
        vec![
            rec(0, Op::Write, lpn(0), PAGE),
            rec(0, Op::Write, lpn(1), PAGE),
        ]
    };
    for rule in ["relaxed", "onfi"] {
        let set = format!("controller.multiplane={rule}");
        let sim = run_checked(one_chip(&[&set]), writes());
        assert_eq!(completions_us(&sim), [220.0, 220.0], "{rule}");
        let f = sim.summary().flash;
        assert_eq!((f.commands, f.pages_per_command), (1, 2.0), "{rule}");
    }
    let sim = run_checked(one_chip(&[]), writes());
    assert_eq!(completions_us(&sim), [210.0, 420.0]);
    let f = sim.summary().flash;
    assert_eq!((f.commands, f.pages_per_command), (2, 1.0));
}

/// Two one-page reads on the planes of die 0 (never written: placed before
/// the trace at page 0 of each plane, so the ONFI same-offset rule holds).
/// Two-plane read: one 50 µs sense, then the data-outs 50–60 and 60–70 µs,
/// each read completing after its own. One at a time: 50 + 10 = 60 µs, then
/// 60 + 50 + 10 = 120 µs.
#[test]
fn a_two_plane_read_senses_once_and_transfers_in_turn() {
    let reads = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(1), PAGE),
        ]
    };
    let sim = run_checked(one_chip(&["controller.multiplane=onfi"]), reads());
    assert_eq!(completions_us(&sim), [60.0, 70.0]);
    assert_eq!(sim.summary().flash.commands, 1);
    let sim = run_checked(one_chip(&[]), reads());
    assert_eq!(completions_us(&sim), [60.0, 120.0]);
}

/// A program on die 0 at t = 0 (bus 0–10, tPROG 10–210 µs) and a read on
/// die 1 of the same chip at t = 1 µs. Die-level busy: the read senses at
/// once (1–51) and transfers (51–61). Chip-level busy: it waits for the
/// chip, senses 210–260 and transfers 260–270.
#[test]
fn a_program_on_one_die_blocks_a_read_to_the_other_only_under_chip_busy() {
    let reqs = || {
        vec![
            rec(0, Op::Write, lpn(0), PAGE),
            rec(US, Op::Read, lpn(2), PAGE),
        ]
    };
    let sim = run_checked(one_chip(&[]), reqs());
    assert_eq!(completions_us(&sim), [210.0, 61.0]);
    let sim = run_checked(one_chip(&["controller.busy_unit=chip"]), reqs());
    assert_eq!(completions_us(&sim), [210.0, 270.0]);
}

/// Programs to die 0 and die 1 of one chip, arriving together, under
/// chip-level busy. Without interleaving the second waits for the chip:
/// 10 + 200 = 210, then 210 + 10 + 200 = 420 µs. Interleaved, both start
/// at once and share the bus in turn: 0–10 then 210; 10–20 then 220 µs.
#[test]
fn die_interleaving_starts_both_dies_of_a_chip_together() {
    let writes = || {
        vec![
            rec(0, Op::Write, lpn(0), PAGE),
            rec(0, Op::Write, lpn(2), PAGE),
        ]
    };
    let sim = run_checked(one_chip(&["controller.busy_unit=chip"]), writes());
    assert_eq!(completions_us(&sim), [210.0, 420.0]);
    let sim = run_checked(
        one_chip(&["controller.busy_unit=chip", "controller.interleave=true"]),
        writes(),
    );
    assert_eq!(completions_us(&sim), [210.0, 220.0]);
}

/// The ONFI rule needs the same page offset: with plane 0's open block one
/// page further on than plane 1's, two writes cannot share a command under
/// `onfi` but can under `relaxed`.
#[test]
fn the_onfi_rule_refuses_different_page_offsets() {
    // LPN 4 (plane 0) is written first, alone; then LPNs 0 and 1 together.
    let reqs = || {
        vec![
            rec(0, Op::Write, lpn(4), PAGE),
            rec(1_000 * US, Op::Write, lpn(0), PAGE),
            rec(1_000 * US, Op::Write, lpn(1), PAGE),
        ]
    };
    let onfi = run_checked(one_chip(&["controller.multiplane=onfi"]), reqs());
    assert_eq!(onfi.summary().flash.commands, 3);
    let relaxed = run_checked(one_chip(&["controller.multiplane=relaxed"]), reqs());
    assert_eq!(relaxed.summary().flash.commands, 2);
}

#[test]
fn controller_settings_are_checked_by_key() {
    for (set, key, says) in [
        ("controller.busy_unit=plane", "controller.busy_unit", "chip"),
        (
            "controller.multiplane=on",
            "controller.multiplane",
            "relaxed",
        ),
        (
            "controller.interleave=true",
            "controller.interleave",
            "busy_unit",
        ),
        (
            "controller.multiplane_us=-1",
            "controller.multiplane_us",
            "[0",
        ),
    ] {
        let e = DeviceConfig::load("default", &[set.into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(key) && e.contains(says), "{set}: {e}");
    }
}

/// Dynamic allocation under chip-level busy: 2 channels × 2 chips × 2
/// dies (one plane each), four one-page writes at 0. A die waits for its
/// whole chip, so each write goes to the least-loaded chip, then channel:
/// dies 0 (chip 0, channel 0), 4 (chip 2, channel 1), 6 (chip 3, channel
/// 1), 2 (chip 1, channel 0). Each channel moves two pages (0–10, 10–20),
/// so the programs end at 210, 210, 220, 220 µs. Under die-level busy the
/// least-loaded die is enough: dies 0–3, all on channel 0, end at 210,
/// 220, 230, 240.
#[test]
fn dynamic_allocation_under_chip_busy_spreads_over_chips_then_channels() {
    let writes = || (0..4).map(|i| rec(0, Op::Write, lpn(i), PAGE)).collect();
    let dev = |unit: &str| {
        one_chip(&[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.planes_per_die=1",
            "ftl.allocation=dynamic",
            unit,
        ])
    };
    let sim = run_checked(dev("controller.busy_unit=chip"), writes());
    assert_eq!(completions_us(&sim), [210.0, 210.0, 220.0, 220.0]);
    let sim = run_checked(dev("controller.busy_unit=die"), writes());
    assert_eq!(completions_us(&sim), [210.0, 220.0, 230.0, 240.0]);
}

/// `controller.overlap_data_in` (SSDsim's interleaved two-plane program):
/// four one-page writes to the four planes of one chip at t = 0, under
/// chip-level busy with interleaving and two-plane commands. On one bus
/// the data-ins run 0–10, 10–20 (die 0) and 20–30, 30–40 (die 1), so the
/// programs end at 220, 220, 240, 240 µs. Overlapped, every page is in its
/// chip at 10 µs and both dies program 10–210. Two one-page writes to the
/// two dies form no multi-plane command and still cross in turn (SSDsim's
/// plain interleave): 210 and 220 µs.
#[test]
fn overlapped_data_ins_of_an_interleaved_two_plane_program_share_one_transfer_time() {
    let writes = |n: u64, step: u64| -> Vec<_> {
        (0..n)
            .map(|i| rec(0, Op::Write, lpn(i * step), PAGE))
            .collect()
    };
    let dev = |overlap: &str| {
        one_chip(&[
            "controller.busy_unit=chip",
            "controller.interleave=true",
            "controller.multiplane=relaxed",
            overlap,
        ])
    };
    let sim = run_checked(dev("controller.overlap_data_in=false"), writes(4, 1));
    assert_eq!(completions_us(&sim), [220.0, 220.0, 240.0, 240.0]);
    let sim = run_checked(dev("controller.overlap_data_in=true"), writes(4, 1));
    assert_eq!(completions_us(&sim), [210.0; 4]);
    assert_eq!(sim.summary().flash.commands, 2);
    let sim = run_checked(dev("controller.overlap_data_in=true"), writes(2, 2));
    assert_eq!(completions_us(&sim), [210.0, 220.0]);
}

/// `controller.advanced_reads = false` (SSDsim, whose two-plane and
/// interleave read search finds nothing): two reads on the planes of die 0
/// sense once and transfer in turn as a two-plane read (60, 70 µs); as
/// lone reads, one after the other (50 + 10 = 60, then 60 + 50 + 10 =
/// 120 µs). Two reads on die 0 and die 1 under chip-level busy with
/// interleaving: both sense 0–50 and move out 50–60, 60–70; lone, the
/// second waits for the chip: 60 and 120 µs.
#[test]
fn lone_reads_form_no_multi_plane_or_interleaved_commands() {
    let reads = |step: u64| {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(step), PAGE),
        ]
    };
    let two_plane = ["controller.multiplane=onfi"];
    let sim = run_checked(one_chip(&two_plane), reads(1));
    assert_eq!(completions_us(&sim), [60.0, 70.0]);
    let lone = [
        "controller.multiplane=onfi",
        "controller.advanced_reads=false",
    ];
    let sim = run_checked(one_chip(&lone), reads(1));
    assert_eq!(completions_us(&sim), [60.0, 120.0]);
    assert_eq!(sim.summary().flash.commands, 2);
    let chip = ["controller.busy_unit=chip", "controller.interleave=true"];
    let sim = run_checked(one_chip(&chip), reads(2));
    assert_eq!(completions_us(&sim), [60.0, 70.0]);
    let sim = run_checked(
        one_chip(&[chip[0], chip[1], "controller.advanced_reads=false"]),
        reads(2),
    );
    assert_eq!(completions_us(&sim), [60.0, 120.0]);
}

/// `ftl.allocation = "dynamic:idle-chip"` (SSDsim's fully dynamic
/// allocation) against `dynamic` (placed on arrival). Two one-die chips on
/// one channel, chip-level busy, SSDsim's FCFS with reads first. Reads of
/// LPN 0 (chip 0) and LPN 1 (chip 1) at t = 0 sense 0–50 and move out 50–60
/// and 60–70 µs. A write at 1 µs, while both chips are busy, and a read of
/// LPN 2 (chip 0) at 2 µs. Placed on arrival, the write goes to the
/// least-loaded chip, a tie won by chip 0, and waits there behind the read
/// (60–120): data-in 120–130, programmed at 330. Pooled, chip 0 takes its
/// read at 60 and chip 1, free at 70 with nothing queued, takes the write:
/// data-in 70–80, programmed at 280. (Completions listed by LPN.)
#[test]
fn a_pooled_write_goes_to_the_chip_that_frees_with_nothing_to_do() {
    let reqs = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(1), PAGE),
            rec(US, Op::Write, lpn(5), PAGE),
            rec(2 * US, Op::Read, lpn(2), PAGE),
        ]
    };
    let dev = |alloc: &str| {
        one_chip(&[
            "geometry.chips_per_channel=2",
            "geometry.dies_per_chip=1",
            "geometry.planes_per_die=1",
            "controller.busy_unit=chip",
            "controller.scheduler=ssdsim-fcfs",
            "controller.ssdsim-fcfs.order=reads-first",
            alloc,
        ])
    };
    let sim = run_checked(dev("ftl.allocation=dynamic"), reqs());
    assert_eq!(completions_us(&sim), [60.0, 70.0, 120.0, 330.0]);
    let sim = run_checked(dev("ftl.allocation=dynamic:idle-chip"), reqs());
    assert_eq!(completions_us(&sim), [60.0, 70.0, 120.0, 280.0]);
}

/// SSDsim places a page read before it was written where its pre-pass
/// tokens point (`get_ppn_for_pre_process` under fully dynamic allocation):
/// the next channel, that channel's next chip, the chip's next die and the
/// die's next plane. Two one-die channels: reads of LPNs 0 and 2 at 0 land
/// on channel 0 and channel 1 and run side by side (sense 0–50, out 50–60
/// on each bus). Under `dynamic`, placed by the static CWDP fallback, both
/// are on channel 0's die: the second senses after the first has left the
/// chip (60–110, out 110–120).
#[test]
fn ssdsim_places_unwritten_read_pages_by_its_tokens() {
    let reqs = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Read, lpn(2), PAGE),
        ]
    };
    let dev = |alloc: &str| {
        one_chip(&[
            "geometry.channels=2",
            "geometry.chips_per_channel=1",
            "geometry.dies_per_chip=1",
            "geometry.planes_per_die=1",
            alloc,
        ])
    };
    let sim = run_checked(dev("ftl.allocation=dynamic:idle-chip"), reqs());
    assert_eq!(completions_us(&sim), [60.0, 60.0]);
    let sim = run_checked(dev("ftl.allocation=dynamic"), reqs());
    assert_eq!(completions_us(&sim), [60.0, 120.0]);
}

/// `controller.multiplane = "same-block"` (SSDsim's two-plane program under
/// static allocation: `make_level_page`). LPN `pre` written alone at 0 (data
/// in 0–10, tPROG 10–210) leaves its plane at page 1 of block 0. At 1000 µs
/// LPNs 0 and 1 (planes 0 and 1) arrive together, in either order; the
/// die's lowest plane leads whichever arrived first. With `pre` = 0, plane
/// 0 leads at page 1 and plane 1 (page 0 of the same block index) is
/// levelled up to page 1, one page wasted: one two-plane program, both
/// data-ins then one tPROG, 1220 µs. With `pre` = 1 plane 1 is past plane
/// 0's page: no pair, 1210 and 1420 µs. `relaxed` pairs every time.
#[test]
fn same_block_lets_the_lowest_plane_lead_and_levels_the_other_up() {
    let reqs = |pre: u64, first: u64, second: u64| {
        vec![
            rec(0, Op::Write, lpn(pre), PAGE),
            rec(1000 * US, Op::Write, lpn(first), PAGE),
            rec(1000 * US, Op::Write, lpn(second), PAGE),
        ]
    };
    let same = ["controller.multiplane=same-block"];
    let relaxed = ["controller.multiplane=relaxed"];
    for (a, b) in [(0, 1), (1, 0)] {
        let sim = run_checked(one_chip(&same), reqs(0, a, b));
        assert_eq!(completions_by_arrival_us(&sim), [210.0, 1220.0, 1220.0]);
        let f = sim.summary().flash;
        assert_eq!((f.wasted_pages, f.commands), (1, 2));
        let sim = run_checked(one_chip(&same), reqs(1, a, b));
        assert_eq!(completions_by_arrival_us(&sim), [210.0, 1210.0, 1420.0]);
        assert_eq!(sim.summary().flash.wasted_pages, 0);
        for pre in [0, 1] {
            let sim = run_checked(one_chip(&relaxed), reqs(pre, a, b));
            assert_eq!(completions_by_arrival_us(&sim), [210.0, 1220.0, 1220.0]);
        }
    }
}

/// `controller.shared_reads` (SSDsim's `creat_sub_request`): a read of a
/// page another read of which is queued or running is done 1 µs later
/// without flash. Reads of page 0 at 0, 1 and 100 µs: the first senses
/// 0–50 and moves out 50–60; the second, while the first runs, is done at
/// 2 µs; the third comes after the first finished and reads flash (100–150,
/// 150–160). Without shared reads the second waits for the die (60–110,
/// 110–120) and the third for it (120–170, 170–180).
#[test]
fn a_read_of_a_page_being_read_is_shared_as_ssdsim_shares_it() {
    let reads = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(US, Op::Read, lpn(0), PAGE),
            rec(100 * US, Op::Read, lpn(0), PAGE),
        ]
    };
    let sim = run_checked(one_chip(&["controller.shared_reads=true"]), reads());
    assert_eq!(completions_by_arrival_us(&sim), [60.0, 2.0, 160.0]);
    let f = sim.summary().flash;
    assert_eq!((f.reads, f.shared_reads), (2, 1));
    let sim = run_checked(one_chip(&[]), reads());
    assert_eq!(completions_by_arrival_us(&sim), [60.0, 120.0, 180.0]);
    assert_eq!(sim.summary().flash.reads, 3);
}
