//! Helpers shared by the integration tests.

use std::path::PathBuf;

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
