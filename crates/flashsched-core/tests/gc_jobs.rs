//! `ftl.gc_jobs_per_plane` (several GC victims of a plane at once, as
//! MQSim starts them) and `ftl.gc_policy = "rga"`: worked examples on a
//! one-plane device, oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{checked_sim, one_plane_gc, rec};

const PAGE: u32 = 4096;

/// One plane of 16 blocks × 4 pages (32 logical pages), one write at a
/// time, no cache, greedy GC with a threshold of 4 free blocks.
fn one_plane(extra: &[&str]) -> DeviceConfig {
    let base = [
        "geometry.blocks_per_plane=16",
        "cache.mib=0",
        "ftl.gc_threshold=0.25",
        "ftl.gc_move_window=0",
        "host.queue_depth=1",
    ];
    one_plane_gc(&[&base[..], extra].concat())
}

/// Block k (k = 0..11) gets LPNs 0, 1, 2 and k + 3, so each leaves block
/// k − 1 with one valid page (LPN k + 2); a 49th write (LPN 0) opens block
/// 12 and leaves 3 free blocks, under the threshold of 4.
///
/// - One job: victim 0 (1 valid page, the lowest); its move opens the GC
///   frontier (block 13, 2 free); its erase leaves 3, so victim 1 follows;
///   its erase leaves 4. 2 victims, 2 pages moved, never 2 at once.
/// - Two jobs: victim 0 at the opening of block 12; the GC frontier
///   opening block 13 starts victim 1 while 0 runs; the erase of 0 (3
///   free) starts victim 2; the erase of 1 leaves 4 and starts none. 3
///   victims, 3 pages moved, 2 at once.
///
/// Returns (victims, pages moved, erases, most jobs at once in the plane).
fn run(jobs: u32) -> (u64, u64, u64, u32) {
    let mut lpns = Vec::new();
    for k in 0..12u64 {
        lpns.extend([0, 1, 2, k + 3]);
    }
    lpns.push(0);
    let reqs = lpns
        .iter()
        .map(|&l| rec(0, Op::Write, l * PAGE as u64, PAGE))
        .collect();
    let jobs_key = format!("ftl.gc_jobs_per_plane={jobs}");
    let mut sim = checked_sim(one_plane(&[jobs_key.as_str()]), reqs);
    let mut most = 0;
    while !sim.advance(1).unwrap() {
        most = most.max(sim.ssd.ftl.planes[0].gc_jobs);
    }
    let g = sim.summary().gc;
    assert_eq!(sim.summary().requests, 49);
    (g.invocations, g.pages_moved, g.erases, most)
}

#[test]
fn two_jobs_collect_two_victims_of_a_plane_at_once() {
    assert_eq!(run(1), (2, 2, 2, 1));
    assert_eq!(run(2), (3, 3, 3, 2));
}

/// RGA samples every free and full block when the plane has no more than
/// `gc_d_choice` of them, so it finds the emptiest full block; with one
/// block sampled, it often draws a free or fully valid block and starts no
/// victim there, so the same writes collect fewer victims.
#[test]
fn rga_with_the_whole_plane_sampled_is_greedy() {
    let mut lpns = Vec::new();
    for k in 0..12u64 {
        lpns.extend([0, 1, 2, k + 3]);
    }
    lpns.push(0);
    let go = |extra: &[&str]| {
        let reqs = lpns
            .iter()
            .map(|&l| rec(0, Op::Write, l * PAGE as u64, PAGE))
            .collect();
        let mut sim = checked_sim(one_plane(extra), reqs);
        sim.run().unwrap();
        let g = sim.summary().gc;
        (g.invocations, g.pages_moved)
    };
    assert_eq!(go(&["ftl.gc_policy=rga", "ftl.gc_d_choice=16"]), (2, 2));
    assert_eq!(
        go(&[
            "ftl.gc_policy=rga",
            "ftl.gc_d_choice=16",
            "ftl.gc_jobs_per_plane=2"
        ]),
        (3, 3)
    );
}

/// Bad values are config errors naming the key.
#[test]
fn gc_jobs_out_of_range_is_refused_by_key() {
    for v in ["0", "65", "16"] {
        let ov = [
            "geometry.blocks_per_plane=16".to_string(),
            "ftl.overprovisioning=0.25".to_string(),
            format!("ftl.gc_jobs_per_plane={v}"),
        ];
        let e = DeviceConfig::load("default", &ov).unwrap_err().to_string();
        assert!(e.contains("ftl.gc_jobs_per_plane"), "{v}: {e}");
    }
    let ov = ["ftl.gc_policy=rgaa".to_string()];
    let e = DeviceConfig::load("default", &ov).unwrap_err().to_string();
    assert!(e.contains("ftl.gc_policy"), "{e}");
}
