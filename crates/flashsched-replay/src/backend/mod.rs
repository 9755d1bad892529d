//! How I/O reaches the target: Linux io_uring (the default) or, where the
//! kernel or a container forbids io_uring, a clearly labelled pool of
//! threads doing blocking pread/pwrite. Both take commands with a token and
//! hand back completions; the replay loop never knows which one runs.

mod threads;
mod uring;

use std::os::unix::io::RawFd;
use std::time::Instant;

use serde::Serialize;

use crate::error::{ReplayError, ReplayResult};

pub use threads::ThreadPool;
pub use uring::Uring;

/// What an I/O does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    Read,
    Write,
    /// Discard: fallocate(PUNCH_HOLE | KEEP_SIZE) — a hole in a file, a
    /// discard (or zero-out) on a block device; reads then return zeros.
    Trim,
}

/// One I/O to send. `offset` is absolute on the target.
#[derive(Debug, Clone, Copy)]
pub struct IoCmd {
    pub token: u64,
    pub kind: IoKind,
    pub offset: u64,
    pub len: u32,
    /// Aligned memory of at least `len` bytes (unused by trims).
    pub buf: *mut u8,
}

/// A finished I/O: bytes transferred, or a negative errno.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoDone {
    pub token: u64,
    pub result: i32,
}

/// Which backend to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// io_uring if the kernel allows it, else the thread pool (loudly).
    Auto,
    Uring,
    Threads,
}

impl BackendKind {
    pub fn from_name(s: &str) -> ReplayResult<BackendKind> {
        match s {
            "auto" => Ok(BackendKind::Auto),
            "uring" | "io_uring" => Ok(BackendKind::Uring),
            "threads" | "sync" => Ok(BackendKind::Threads),
            _ => Err(ReplayError::Invalid(format!(
                "backend: unknown `{s}` (known: auto, uring, threads)"
            ))),
        }
    }
}

/// An I/O engine.
pub trait Backend: Send {
    /// `"io_uring"` or `"threads"`.
    fn name(&self) -> &'static str;

    /// Queue `cmd` (sent at the next [`Backend::wait`]).
    ///
    /// # Safety
    /// `cmd.buf` must stay valid, and not be touched by the caller, for
    /// `cmd.len` bytes until this command's completion has been returned.
    unsafe fn push(&mut self, cmd: IoCmd) -> ReplayResult<()>;

    /// Send what is queued, then append completions to `out`: wait for at
    /// least one, but not past `deadline` (`None`: until one arrives).
    fn wait(&mut self, deadline: Option<Instant>, out: &mut Vec<IoDone>) -> ReplayResult<()>;

    /// Commands sent or queued and not yet returned.
    fn in_flight(&self) -> u32;

    /// Settings reported with the run (ring size, features, workers).
    fn settings(&self) -> serde_json::Value;
}

/// The backend `kind` on file descriptor `fd` for up to `depth` I/Os in
/// flight. `Auto` falls back to threads only when io_uring cannot be set up,
/// and says why in `fallback`.
pub fn open(
    kind: BackendKind,
    fd: RawFd,
    depth: u32,
) -> ReplayResult<(Box<dyn Backend>, Option<String>)> {
    match kind {
        BackendKind::Uring => Ok((Box::new(Uring::new(fd, depth)?), None)),
        BackendKind::Threads => Ok((Box::new(ThreadPool::new(fd, depth)?), None)),
        BackendKind::Auto => match Uring::new(fd, depth) {
            Ok(u) => Ok((Box::new(u), None)),
            Err(e) => {
                let why = format!(
                    "io_uring is unavailable here ({e}); FALLING BACK to blocking \
                     pread/pwrite on a thread pool: latencies include thread hand-off"
                );
                Ok((Box::new(ThreadPool::new(fd, depth)?), Some(why)))
            }
        },
    }
}

/// Whether io_uring can be set up on this kernel (tests skip without it).
pub fn uring_available() -> Result<(), String> {
    io_uring::IoUring::new(2)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
