//! Replay errors: each names the target, the option or the request at fault.

use std::path::Path;

use flashsched_core::SimError;

/// What can stop a replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A workload, config or scheduler error from the simulator core.
    #[error(transparent)]
    Sim(#[from] Box<SimError>),

    /// A system call on the target failed.
    #[error("{path}: {what}: {source}")]
    Io {
        path: String,
        what: String,
        #[source]
        source: std::io::Error,
    },

    /// The safety rules refuse this target or request (mounted device,
    /// write without `allow_write`, access outside the window).
    #[error("refused: {0}")]
    Unsafe(String),

    /// `verify`: a read returned data other than a version it may see.
    #[error("verify failed: {0}")]
    Verify(String),

    /// An option value is out of range or inconsistent (names the option).
    #[error("{0}")]
    Invalid(String),

    /// The asked-for I/O backend cannot run here (e.g. io_uring forbidden).
    #[error("{0}")]
    Unavailable(String),
}

pub type ReplayResult<T> = Result<T, ReplayError>;

impl ReplayError {
    pub(crate) fn io(path: &Path, what: impl Into<String>, source: std::io::Error) -> Self {
        ReplayError::Io {
            path: path.display().to_string(),
            what: what.into(),
            source,
        }
    }
}
