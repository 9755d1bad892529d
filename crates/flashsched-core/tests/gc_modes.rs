//! GC modes (`ftl.gc_mode`), as worked examples computed by hand on a tiny
//! device: one channel, one chip of two dies with one plane each; reads
//! 50 µs + 10 µs on the bus, programs 10 µs on the bus + 200 µs, erases
//! 1000 µs; static striping puts even LPNs on die 0, odd ones on die 1. GC
//! moves one page at a time (read, then program) and then erases its victim
//! (greedy: fewest valid pages). Every run has the version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;
use flashsched_core::workload::IoRecord;
use flashsched_core::SimResult;

use crate::common;
use common::{assert_rejected_by_key, rec, run_checked};
use flashsched_core::sim::Simulation;

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn tiny(blocks: u32, pages: u32, extra: &[&str]) -> DeviceConfig {
    let mut ov: Vec<String> = [
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=2",
        "geometry.planes_per_die=1",
        "geometry.page_size=4096",
        "timing.read_us=50",
        "timing.program_us=200",
        "timing.erase_us=1000",
        "timing.channel_mb_s=409.6",
        "timing.command_us=0",
        "ftl.overprovisioning=0.5",
        "ftl.allocation=static:PDCW",
        "host.queue_depth=32",
        "host.max_merge_kib=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ov.push(format!("geometry.blocks_per_plane={blocks}"));
    ov.push(format!("geometry.pages_per_block={pages}"));
    ov.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::load("default", &ov).unwrap()
}

fn page(i: u64) -> u64 {
    i * PAGE as u64
}

/// One-page writes to die 0, 300 µs apart (each done 210 µs after it
/// arrives), then one read.
fn writes_then_read(lpns: &[u64], extra: &[(u64, Op, u64)]) -> Vec<SimResult<IoRecord>> {
    let mut v: Vec<_> = lpns
        .iter()
        .enumerate()
        .map(|(k, &l)| rec(300 * US * k as u64, Op::Write, page(l), PAGE))
        .collect();
    v.extend(
        extra
            .iter()
            .map(|&(t, op, l)| rec(t * US, op, page(l), PAGE)),
    );
    v
}

/// 4 blocks × 4 pages per plane, GC below 2 free blocks. Die 0 fills block
/// A with LPNs 0 2 4 6 and block B with LPN 0 four times (B keeps one valid
/// page, A three); LPN 1 goes to die 1 at 150 µs. The write of LPN 8 at
/// 2400 µs opens block C, leaving one free block: GC starts.
/// - GC 1, victim B: its read waits for that write (to 2610), senses and
///   transfers to 2670; the program opens block D (no free block left):
///   2670–2880; B is erased 2880–3880. One free block: GC again.
/// - GC 2, victim A, three moves of 60 + 210 µs each: 3880–4690; A erased
///   4690–5690. Two free blocks: done.
fn two_gc_jobs(extra: &[(u64, Op, u64)]) -> Vec<SimResult<IoRecord>> {
    let mut v = writes_then_read(&[0, 2, 4, 6, 0, 0, 0, 0, 8], &[]);
    v.push(rec(150 * US, Op::Write, page(1), PAGE));
    v.extend(
        extra
            .iter()
            .map(|&(t, op, l)| rec(t * US, op, page(l), PAGE)),
    );
    v.sort_by_key(|r| r.as_ref().map(|r| r.time_ns).unwrap_or(0));
    v
}

/// Completion of the (only) read, µs.
fn read_done_us(sim: &Simulation) -> f64 {
    let r = &sim.metrics.records;
    let i = r.op.iter().position(|&o| o == 0).expect("one read");
    r.complete[i] as f64 / 1000.0
}

fn last_us(cfg: DeviceConfig, recs: Vec<SimResult<IoRecord>>) -> f64 {
    let sim = run_checked(cfg, recs);
    let gc = sim.summary().gc;
    assert_eq!((gc.invocations, gc.erases), (2, 2));
    read_done_us(&sim)
}

/// A read of LPN 1 on die 1 at 3000 µs, while die 0 erases B. Only GC that
/// blocks the whole chip holds it — through both jobs, to 5690, then
/// 50 + 10 µs: 5750. Otherwise die 1 is free: 3060.
#[test]
fn blocking_gc_holds_the_other_die_only_when_it_blocks_the_chip() {
    let read = [(3000, Op::Read, 1)];
    let case = |set: &[&str]| last_us(tiny(4, 4, set), two_gc_jobs(&read));
    assert_eq!(case(&[]), 3060.0);
    assert_eq!(
        case(&["ftl.gc_mode=blocking", "ftl.gc_block_unit=die"]),
        3060.0
    );
    assert_eq!(
        case(&["ftl.gc_mode=blocking", "ftl.gc_block_unit=chip"]),
        5750.0
    );
}

/// A read of LPN 6 on die 0 at 4000 µs, during GC 2's first program
/// (3940–4150). Interleaved, it goes before the next move, which is queued
/// only when that program ends: 4150–4210. Blocking GC holds it to the end
/// of GC 2: 5690 + 60 = 5750. Preemptive GC is urgent here (one free
/// block, which user writes may not take), so it behaves as interleaved.
#[test]
fn blocking_gc_holds_a_read_to_its_die_until_the_victim_is_erased() {
    let read = [(4000, Op::Read, 6)];
    let case = |set: &[&str]| last_us(tiny(4, 4, set), two_gc_jobs(&read));
    assert_eq!(case(&[]), 4210.0);
    assert_eq!(case(&["ftl.gc_mode=blocking"]), 5750.0);
    assert_eq!(case(&["ftl.gc_mode=preemptive"]), 4210.0);
}

/// 8 blocks × 2 pages per plane, GC below 4 free blocks (`gc_threshold =
/// 0.5`). Die 0 writes LPNs 0 2 | 0 4 | 6 8 | 10 12 (blocks A–D), and the
/// write of LPN 14 at 2400 µs opens block E: 3 free, GC starts with victim A
/// (LPN 2 valid); its read is queued at 2400 behind that write (to 2610). A
/// user read of LPN 4 arrives at 2500. Interleaved, it waits for the GC
/// read: 2610–2670, then 2670–2730. Preemptive, with 3 free blocks GC is
/// not urgent, and the user read goes first: 2610–2670.
#[test]
fn preemptive_gc_lets_user_reads_go_first_until_it_is_urgent() {
    let recs = || writes_then_read(&[0, 2, 0, 4, 6, 8, 10, 12, 14], &[(2500, Op::Read, 4)]);
    let case = |set: &[&str]| {
        let mut ov = vec!["ftl.gc_threshold=0.5"];
        ov.extend_from_slice(set);
        let sim = run_checked(tiny(8, 2, &ov), recs());
        assert!(sim.summary().gc.invocations >= 1);
        read_done_us(&sim)
    };
    assert_eq!(case(&[]), 2730.0);
    assert_eq!(case(&["ftl.gc_mode=preemptive"]), 2670.0);
    // With the hard threshold above 3 free blocks (0.5 × 8 = 4) it is urgent.
    assert_eq!(
        case(&["ftl.gc_mode=preemptive", "ftl.gc_hard_threshold=0.5"]),
        2730.0
    );
}

#[test]
fn gc_mode_settings_are_checked_by_key() {
    assert_rejected_by_key(&[
        ("ftl.gc_mode=stop", "ftl.gc_mode"),
        ("ftl.gc_block_unit=channel", "ftl.gc_block_unit"),
        ("ftl.gc_hard_threshold=0.2", "ftl.gc_hard_threshold"),
    ]);
}
