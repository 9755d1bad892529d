//! Amphibian's GC-aware dispatch (§III-E) as worked examples computed by
//! hand: where holding a GC chip's requests helps (GC blocks that chip, the
//! other chip is free, one device slot) and where it hurts (GC interleaves
//! with user I/O, so the chip would have served the request sooner).
//!
//! Device: one channel, two chips of one die and one plane each; reads
//! 50 µs + 10 µs on the bus, programs 10 µs on the bus + 200 µs, erases
//! 1000 µs; static striping puts even LPNs on chip 0, odd ones on chip 1;
//! 4 blocks × 4 pages per plane, GC below 2 free blocks. Host queue depth 1
//! (the device holds one request), so a request stuck behind GC keeps every
//! other request in the host queue — the case the paper's module targets.
//! Detection is the oracle (the device's per-chip GC flag, chip zones): the
//! best the module can do. The latency detector cannot act in these
//! examples: the one slow request completes only when the GC is over.
//! Only the GC-aware module is on (no type queueing, no size ordering), so
//! without it Amphibian is FIFO, like noop.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;
use flashsched_core::sim::Simulation;
use flashsched_core::workload::IoRecord;
use flashsched_core::SimResult;

use crate::common;
use common::{default_with, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn device(extra: &[&str]) -> DeviceConfig {
    let base = [
        "geometry.channels=1",
        "geometry.chips_per_channel=2",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.page_size=4096",
        "geometry.blocks_per_plane=4",
        "geometry.pages_per_block=4",
        "timing.read_us=50",
        "timing.program_us=200",
        "timing.erase_us=1000",
        "timing.channel_mb_s=409.6",
        "timing.command_us=0",
        "ftl.overprovisioning=0.5",
        "ftl.allocation=static:PDCW",
        "host.queue_depth=1",
        "host.max_merge_kib=0",
        "host.scheduler=amphibian",
        "host.amphibian.type_queueing=false",
        "host.amphibian.size_ordering=false",
        "host.amphibian.zones=chip",
        "host.amphibian.gc_detect=oracle",
    ];
    default_with(&base, extra)
}

const OFF: &str = "host.amphibian.gc_aware=false";
const BLOCKING: &[&str] = &["ftl.gc_mode=blocking", "ftl.gc_block_unit=chip"];

/// Chip 0 writes LPNs 0 2 4 6 (block A) and LPN 0 four more times (block
/// B), 300 µs apart from t = 0, each done 210 µs after it arrives; chip 1
/// gets LPN 1 at 150 µs and LPN 3 at 750 µs (its bus transfers fall between
/// chip 0's). The write of LPN 8 at 2400 µs opens block C on chip 0, leaving
/// one free block: GC starts there.
/// - GC 1, victim B (one valid page): its read waits for that write (to
///   2610), 2610–2670; the program opens block D: 2670–2880; B is erased
///   2880–3880. One free block again: GC 2.
/// - GC 2, victim A (LPNs 2 4 6 valid), three moves of 60 + 210 µs:
///   3880–4690; A erased 4690–5690. Chip 0 leaves GC at 5690.
///
/// `reads` are (arrival µs, LPN) in arrival order.
fn workload(reads: &[(u64, u64)]) -> Vec<SimResult<IoRecord>> {
    let mut v: Vec<(u64, Op, u64)> = [0, 2, 4, 6, 0, 0, 0, 0, 8]
        .iter()
        .enumerate()
        .map(|(k, &l)| (300 * k as u64, Op::Write, l))
        .collect();
    v.push((150, Op::Write, 1));
    v.push((750, Op::Write, 3));
    v.extend(reads.iter().map(|&(t, l)| (t, Op::Read, l)));
    // Stable: same-time reads keep their order.
    v.sort_by_key(|x| x.0);
    v.into_iter()
        .map(|(t, op, l)| rec(t * US, op, l * PAGE as u64, PAGE))
        .collect()
}

/// (LPN, latency µs) of every read, in the order given in the trace.
fn read_latencies(sim: &Simulation) -> Vec<(u64, f64)> {
    let r = &sim.metrics.records;
    let mut v: Vec<(u64, u64, f64)> = (0..r.len())
        .filter(|&i| r.op[i] == 0)
        .map(|i| {
            (
                r.arrival[i],
                r.offset[i] / PAGE as u64,
                (r.complete[i] - r.arrival[i]) as f64 / 1000.0,
            )
        })
        .collect();
    v.sort_by_key(|x| (x.0, x.1 % 2)); // same arrival: chip 0's read first
    v.into_iter().map(|(_, l, lat)| (l, lat)).collect()
}

fn run(set: &[&str], reads: &[(u64, u64)]) -> Vec<(u64, f64)> {
    let sim = run_checked(device(set), workload(reads));
    let gc = sim.summary().gc;
    assert_eq!((gc.invocations, gc.erases), (2, 2), "the two GC jobs above");
    read_latencies(&sim)
}

fn mean(v: &[(u64, f64)]) -> f64 {
    v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64
}

/// Where the paper says the module helps: GC blocks chip 0, chip 1 is free.
/// At 3000 µs (chip 0 erasing B) a read of LPN 6 (chip 0) arrives, then
/// reads of LPN 1 and LPN 3 (chip 1).
/// - Without the module (FIFO): LPN 6 takes the only device slot and waits
///   for both GC jobs: 5690 + 60 = 5750 (2750 µs). LPN 1 follows, 5750–5810
///   (2810 µs), LPN 3 5810–5870 (2870 µs): mean 2810 µs.
/// - With it: chip 0 is in GC, so LPN 6 stays in the host queue and LPN 1
///   (3000–3060, 60 µs) and LPN 3 (3060–3120, 120 µs) go first. LPN 6 goes
///   when chip 0's flag drops — between GC 1 and GC 2 at 3880, or at 5690 —
///   and completes at 5750 either way (2750 µs): mean 976.67 µs, a 65.2 %
///   reduction.
#[test]
fn holding_a_blocked_chip_lets_the_free_chip_serve() {
    let reads = [(3000, 6), (3000, 1), (3000, 3)];
    let mut set = BLOCKING.to_vec();
    let with = run(&set, &reads);
    set.push(OFF);
    let without = run(&set, &reads);
    assert_eq!(without, vec![(6, 2750.0), (1, 2810.0), (3, 2870.0)]);
    assert_eq!(with, vec![(6, 2750.0), (1, 60.0), (3, 120.0)]);
    assert_eq!(mean(&without), 2810.0);
    assert!((mean(&with) - 2930.0 / 3.0).abs() < 1e-9);
}

/// Where it hurts: GC interleaves with user I/O (each move is a read and a
/// program like any other). A read of LPN 6 (chip 0) arrives at 4000 µs,
/// during GC 2's first program (3940–4150).
/// - Without the module it goes before GC's next move, which is queued only
///   when that program ends: 4150–4210 (210 µs).
/// - With it the read is held while chip 0 is in GC: GC 2 runs as without
///   the read, to 5690, and the read then takes 5690–5750 (1750 µs, 8.3×).
#[test]
fn holding_an_interleaving_chip_only_delays_its_reads() {
    let reads = [(4000, 6)];
    let with = run(&[], &reads);
    let without = run(&[OFF], &reads);
    assert_eq!(without, vec![(6, 210.0)]);
    assert_eq!(with, vec![(6, 1750.0)]);
}

/// Blocking GC with nothing for the free chip: holding changes nothing (the
/// read of LPN 6 at 3000 µs completes at 5750 both ways), so the module is
/// worth only what the other chips have queued.
#[test]
fn holding_without_other_work_costs_nothing_under_blocking_gc() {
    let reads = [(3000, 6)];
    let mut set = BLOCKING.to_vec();
    let with = run(&set, &reads);
    set.push(OFF);
    assert_eq!(with, run(&set, &reads));
    assert_eq!(with, vec![(6, 2750.0)]);
}

/// §III-E holds "all the requests targeting the identified flash chip",
/// writes included; `hold_writes = false` holds reads only. A write of LPN 2
/// (chip 0) arrives at 3000 µs, while chip 0 is erasing B (GC 1, to 3880)
/// and the device slot is free: held, it is dispatched only when chip 0's
/// flag drops (3880 at the earliest); not held, at once. (A device with a
/// write-back buffer would complete it from DRAM: docs/amphibian.md, "Why
/// the oracle hurts".)
#[test]
fn hold_writes_false_dispatches_writes_to_a_chip_in_gc() {
    let dispatch_of_late_write = |set: &[&str]| {
        let mut recs = workload(&[]);
        recs.push(rec(3000 * US, Op::Write, 2 * PAGE as u64, PAGE));
        let sim = run_checked(device(set), recs);
        let r = &sim.metrics.records;
        let i = (0..r.len())
            .find(|&i| r.arrival[i] == 3000 * US)
            .expect("the write at 3000 µs");
        r.dispatch[i] / US
    };
    let mut set = BLOCKING.to_vec();
    assert!(dispatch_of_late_write(&set) >= 3880);
    set.push("host.amphibian.hold_writes=false");
    assert_eq!(dispatch_of_late_write(&set), 3000);
}
