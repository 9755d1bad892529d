//! Helpers shared by the integration tests.

#![allow(dead_code)] // each test file uses some of these

use std::path::PathBuf;

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::replay::Replay;
use flashsched_core::workload::IoRecord;
use flashsched_core::SimResult;

/// The real trace samples: `FLASHSCHED_TRACES`, else `shared/traces` beside
/// the project (or beside the directory holding it, for worktrees). `None`,
/// with a note, when absent: tests that need them then skip cleanly.
pub fn traces_dir() -> Option<PathBuf> {
    let root = env!("CARGO_MANIFEST_DIR");
    let candidates = [
        std::env::var_os("FLASHSCHED_TRACES").map(PathBuf::from),
        Some(PathBuf::from(format!("{root}/../../../shared/traces"))),
        Some(PathBuf::from(format!("{root}/../../../../shared/traces"))),
    ];
    let found = candidates.into_iter().flatten().find(|d| d.is_dir());
    if found.is_none() {
        eprintln!(
            "note: trace samples (shared/traces) not found (set FLASHSCHED_TRACES); skipping"
        );
    }
    found
}

/// The `default` preset with `base` then `extra` overrides (later wins).
pub fn default_with(base: &[&str], extra: &[&str]) -> DeviceConfig {
    let ov: Vec<String> = base.iter().chain(extra).map(|s| s.to_string()).collect();
    DeviceConfig::load("default", &ov).unwrap()
}

/// A small SSD for array tests: 2 channels × 2 chips, 1 die, 1 plane, 64
/// blocks × 32 pages × 16 KiB (128 MiB raw), 10 % OP, 5 % GC threshold;
/// `extra` overrides follow.
pub fn small_ssd(extra: &[&str]) -> DeviceConfig {
    let base = [
        "geometry.channels=2",
        "geometry.chips_per_channel=2",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=32",
        "geometry.page_size=16384",
        "ftl.overprovisioning=0.1",
        "ftl.gc_threshold=0.05",
    ];
    default_with(&base, extra)
}

/// One chip on one channel, 2 dies × 2 planes × 16 blocks × 16 pages of
/// 4 KiB; tR 50 µs, tPROG 200 µs, a 409.6 MB/s bus (10 µs per page), no
/// command time, queue depth 32, no host merging; `extra` overrides follow.
pub fn one_chip(extra: &[&str]) -> DeviceConfig {
    default_with(ONE_CHIP, extra)
}

/// [`one_chip`]'s overrides of the `default` preset.
pub const ONE_CHIP: &[&str] = &[
    "geometry.channels=1",
    "geometry.chips_per_channel=1",
    "geometry.dies_per_chip=2",
    "geometry.planes_per_die=2",
    "geometry.blocks_per_plane=16",
    "geometry.pages_per_block=16",
    "geometry.page_size=4096",
    "timing.read_us=50",
    "timing.program_us=200",
    "timing.channel_mb_s=409.6",
    "timing.command_us=0",
    "ftl.overprovisioning=0.25",
    "ftl.allocation=static:PDCW",
    "host.queue_depth=32",
    "host.max_merge_kib=0",
];

/// One die with one plane of 4-page blocks of 4 KiB for GC examples:
/// programs 200 µs, erases 1000 µs, a page crosses the bus in 10 µs, no
/// command time, 50 % over-provisioning, greedy GC, no hard threshold, no
/// host merging; `extra` overrides follow (the block count among them).
pub fn one_plane_gc(extra: &[&str]) -> DeviceConfig {
    let base = [
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.pages_per_block=4",
        "geometry.page_size=4096",
        "timing.program_us=200",
        "timing.erase_us=1000",
        "timing.channel_mb_s=409.6",
        "timing.command_us=0",
        "ftl.overprovisioning=0.5",
        "ftl.gc_hard_threshold=0",
        "ftl.gc_policy=greedy",
        "host.max_merge_kib=0",
    ];
    default_with(&base, extra)
}

/// The GC victim policies, for tests that draw one.
pub const GC_POLICIES: &[&str] = &[
    "greedy",
    "cost-benefit",
    "random",
    "fifo",
    "d-choice",
    "rga",
];

/// Completion times (µs) of the requests, in arrival order.
pub fn completions_by_arrival_us(sim: &Simulation) -> Vec<f64> {
    let r = &sim.metrics.records;
    let mut v: Vec<(u64, u64)> = (0..r.len())
        .map(|i| (r.arrival[i], r.complete[i]))
        .collect();
    v.sort();
    v.into_iter().map(|(_, c)| c as f64 / 1000.0).collect()
}

/// One trace record at `t` ns (stream 0).
pub fn rec(t: u64, op: Op, offset: u64, size: u32) -> SimResult<IoRecord> {
    Ok(IoRecord {
        time_ns: t,
        offset,
        size,
        op,
        stream: 0,
    })
}

/// A simulation of `cfg` replaying `recs` as given, in check mode (version
/// oracle and invariants on).
pub fn checked_sim(cfg: DeviceConfig, recs: Vec<SimResult<IoRecord>>) -> Simulation {
    let cap = cfg.logical_bytes();
    let wl = Replay::new(Box::new(recs.into_iter()), 1.0, cap, None, "records".into());
    let opts = RunOptions {
        check: true,
        ..RunOptions::default()
    };
    Simulation::new(cfg, Box::new(wl), opts).unwrap()
}

/// `checked_sim`, run to the end.
pub fn run_checked(cfg: DeviceConfig, recs: Vec<SimResult<IoRecord>>) -> Simulation {
    let mut sim = checked_sim(cfg, recs);
    sim.run().unwrap();
    sim
}

/// Completion times (µs) of the requests, in offset order.
pub fn completions_us(sim: &Simulation) -> Vec<f64> {
    let r = &sim.metrics.records;
    let mut v: Vec<(u64, u64)> = r
        .offset
        .iter()
        .copied()
        .zip(r.complete.iter().copied())
        .collect();
    v.sort();
    v.into_iter().map(|(_, c)| c as f64 / 1000.0).collect()
}

/// Each `(override, key)`: the `default` preset with the override is
/// rejected, by an error that names `key`.
pub fn assert_rejected_by_key(cases: &[(&str, &str)]) {
    for &(set, key) in cases {
        let e = DeviceConfig::load("default", &[set.into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}

/// Advance a model a few instants at a time and check that whenever it
/// returns every completed request has its row: `step` advances it once and
/// returns whether it finished, its rows and its completed requests. The
/// number of returns before the last.
pub fn rows_complete_at_every_return(mut step: impl FnMut() -> (bool, usize, u64)) -> usize {
    let mut returns = 0;
    loop {
        let (finished, rows, completed) = step();
        assert_eq!(rows as u64, completed, "after return {returns}");
        if finished {
            return returns;
        }
        returns += 1;
    }
}
