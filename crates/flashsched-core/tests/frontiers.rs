//! `ftl.frontiers` and `ftl.mapping_frontier` (MQSim's block manager: a
//! plane's data, GC and translation frontiers hold their blocks from the
//! start, and each takes its next block as soon as one fills): worked
//! examples on a one-plane device, oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;
use flashsched_core::workload::IoRecord;
use flashsched_core::SimResult;

use crate::common;
use common::{assert_rejected_by_key, checked_sim, one_plane_gc, rec};

const PAGE: u64 = 4096;

/// One plane of 8 blocks × 4 pages, programs 200 µs after a 10 µs
/// data-in, FIFO, no cache; GC threshold 0, so GC starts below the minimum
/// of 2 free blocks.
fn one_plane(extra: &[&str]) -> DeviceConfig {
    let mut ov = vec![
        "geometry.blocks_per_plane=8",
        "ftl.gc_threshold=0",
        "host.queue_depth=64",
    ];
    ov.extend_from_slice(extra);
    one_plane_gc(&ov)
}

/// Thirty writes queued at 0 overwrite LPNs 0–3 in turn; write k programs
/// 210·k .. 210·(k+1) µs and takes its page when its data-in starts.
///
/// - Lazy: blocks open at writes 0, 4, 8, … (8 − n free after the n-th);
///   the 7th, opened by write 24 at 5,040 µs, leaves 1 free: GC starts.
/// - Eager: the user and GC blocks are taken at the start (6 free); each
///   next user block is taken when one fills — the 5th block fills with
///   write 19 at 3,990 µs and its successor leaves 1 free: GC starts 1,050
///   µs earlier. (Its victim is the first block, whose pages all were
///   overwritten.)
#[test]
fn eager_frontiers_start_gc_when_a_block_fills() {
    assert_eq!(first_gc_us(&[]), 5040.0);
    assert_eq!(first_gc_us(&["ftl.frontiers=eager"]), 3990.0);
}

/// A plane holds one more block with a translation frontier of its own,
/// even when no translation page is ever written (the mapping table is
/// wholly in DRAM): 5 free at the start, and GC starts one block earlier
/// still, when the 4th block fills (write 15, 3,150 µs).
#[test]
fn a_translation_frontier_holds_a_block_unwritten() {
    let three = ["ftl.frontiers=eager", "ftl.mapping_frontier=true"];
    let sim = checked_sim(one_plane(&three), overwrites());
    assert_eq!(sim.ssd.ftl.free_blocks(0), 5);
    assert_eq!(first_gc_us(&three), 3150.0);
    // Lazy, the translation frontier takes no block until a translation
    // page is written.
    let sim = checked_sim(one_plane(&["ftl.mapping_frontier=true"]), overwrites());
    assert_eq!(sim.ssd.ftl.free_blocks(0), 8);
}

#[test]
fn bad_frontier_settings_are_named() {
    assert_rejected_by_key(&[
        ("ftl.frontiers=sometimes", "ftl.frontiers"),
        ("ftl.mapping_frontier=2", "ftl.mapping_frontier"),
    ]);
}

/// Thirty one-page writes queued at 0, overwriting LPNs 0–3 in turn.
fn overwrites() -> Vec<SimResult<IoRecord>> {
    (0..30u64)
        .map(|k| rec(k, Op::Write, (k % 4) * PAGE, PAGE as u32))
        .collect()
}

/// When (µs) GC first starts under [`overwrites`]; the run then finishes
/// with every write served (oracle on).
fn first_gc_us(extra: &[&str]) -> f64 {
    let mut sim = checked_sim(one_plane(extra), overwrites());
    while sim.ssd.ftl.stats.gc_invocations == 0 {
        sim.advance(1).unwrap();
    }
    let at = sim.now() as f64 / 1000.0;
    sim.run().unwrap();
    assert_eq!(sim.summary().requests, 30);
    at
}
