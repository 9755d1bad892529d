//! Helpers shared by the integration tests.

use std::path::PathBuf;

use flashsched_core::config::DeviceConfig;

/// The real trace samples: `FLASHSCHED_TRACES`, else `shared/traces` beside
/// the project (or beside the directory holding it, for worktrees). `None`,
/// with a note, when absent: tests that need them then skip cleanly.
#[allow(dead_code)] // not every test file replays traces
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

/// A small SSD for array tests: 2 channels × 2 chips, 1 die, 1 plane, 64
/// blocks × 32 pages × 16 KiB (128 MiB raw), 10 % OP, 5 % GC threshold;
/// `extra` overrides follow.
#[allow(dead_code)] // not every test file builds arrays
pub fn small_ssd(extra: &[&str]) -> DeviceConfig {
    let ov: Vec<String> = [
        "geometry.channels=2",
        "geometry.chips_per_channel=2",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=32",
        "geometry.page_size=16384",
        "ftl.overprovisioning=0.1",
        "ftl.gc_threshold=0.05",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect();
    DeviceConfig::load("default", &ov).unwrap()
}
