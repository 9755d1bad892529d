//! `ftl.gc_write_floor` (MQSim's hold on user writes below 10 free blocks
//! per plane): worked examples on a one-plane device, oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{checked_sim, completions_us, one_plane_gc, rec, run_checked};

const PAGE: u32 = 4096;

/// One plane of 8 blocks × 4 pages; programs 200 µs, erases 1000 µs, a
/// page crosses the bus in 10 µs, no cache, FIFO; GC threshold 0 (so only
/// the floor, or the minimum of 2 blocks, starts GC).
fn one_plane(floor: u32) -> DeviceConfig {
    let floor = format!("ftl.gc_write_floor={floor}");
    one_plane_gc(&[
        "geometry.blocks_per_plane=8",
        "ftl.gc_threshold=0",
        "host.queue_depth=32",
        &floor,
    ])
}

/// Ten one-page writes at 0: LPNs 0–3 (block A), 0–3 again (block B; A is
/// now all stale), then 4 and 5. Each takes 10 + 200 µs on the one die, in
/// order: write k ends at 210·k µs.
///
/// The 9th (LPN 4) opens block C at 1680, leaving 5 free blocks.
/// - No floor: GC starts below 2 free blocks, so the 10th goes at 1890 and
///   ends at 2100.
/// - Floor 6: 5 < 6, so GC starts (victim A, nothing to move: an erase,
///   queued at 1680) and the 10th write waits. The die frees at 1890 and
///   erases 1890–2890; with 6 free blocks again the write runs 2890–3100.
#[test]
fn writes_below_the_floor_wait_for_gc() {
    let reqs = || {
        [0, 1, 2, 3, 0, 1, 2, 3, 4, 5]
            .iter()
            .enumerate()
            .map(|(i, &l)| rec(i as u64, Op::Write, l * PAGE as u64, PAGE))
            .collect()
    };
    let sim = run_checked(one_plane(0), reqs());
    let done = completions_us(&sim);
    // Offsets repeat: sorted by offset, then completion.
    assert_eq!(done[8..], [1890.0, 2100.0]);
    assert_eq!(sim.summary().gc.invocations, 0);
    let sim = run_checked(one_plane(6), reqs());
    let done = completions_us(&sim);
    assert_eq!(done[8..], [1890.0, 3100.0]);
    assert_eq!(sim.summary().gc.invocations, 1);
}

/// Ten distinct LPNs fill blocks A and B with valid data and open C: 5
/// free blocks, below a floor of 6, and no block GC could free. The run
/// stops with an error that names the setting (never a hang).
#[test]
fn a_floor_gc_cannot_reach_is_an_error_naming_it() {
    let reqs = (0..10u64)
        .map(|l| rec(l, Op::Write, l * PAGE as u64, PAGE))
        .collect();
    let mut sim = checked_sim(one_plane(6), reqs);
    let e = sim.run().unwrap_err().to_string();
    assert!(e.contains("ftl.gc_write_floor = 6"), "{e}");
    let reqs = (0..10u64)
        .map(|l| rec(l, Op::Write, l * PAGE as u64, PAGE))
        .collect();
    assert_eq!(run_checked(one_plane(0), reqs).summary().requests, 10);
}

/// A floor of a whole plane or more is a config error naming the key.
#[test]
fn a_floor_of_every_block_is_refused() {
    let ov = [
        "geometry.blocks_per_plane=64".to_string(),
        "ftl.gc_write_floor=64".to_string(),
    ];
    let e = DeviceConfig::load("default", &ov).unwrap_err().to_string();
    assert!(e.contains("ftl.gc_write_floor"), "{e}");
}
