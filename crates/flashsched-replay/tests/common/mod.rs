//! Shared helpers: scratch targets under the system temp dir and replay specs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use flashsched_core::run::WorkloadSpec;
use flashsched_replay::{BackendKind, ReplaySpec, TargetSpec};

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let base = std::env::var_os("FLASHSCHED_REPLAY_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let d = base.join(format!("fsreplay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch dir");
        Scratch(d)
    }
    pub fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// io_uring works here, or the reason it does not (tests then skip).
pub fn uring() -> bool {
    match flashsched_replay::backend::uring_available() {
        Ok(()) => true,
        Err(e) => {
            eprintln!("SKIP: io_uring unavailable here: {e}");
            false
        }
    }
}

/// A replay of `synthetic` on `path` over `[offset, offset + size)`.
pub fn spec(path: &Path, offset: u64, size: u64, synthetic: &str) -> ReplaySpec {
    ReplaySpec {
        target: TargetSpec {
            path: path.to_path_buf(),
            offset,
            size,
            allow_write: true,
            align: 0,
        },
        device: "default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Synthetic(synthetic.into()),
        seed: 7,
        keep_records: true,
        verify: false,
        prefill: None,
        backend: BackendKind::Uring,
    }
}
