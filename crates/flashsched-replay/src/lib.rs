//! # flashsched-replay
//!
//! Runs flashsched's workloads and host I/O schedulers against a real
//! regular file or block device: the same `Workload`s and the same
//! `HostScheduler`s as the simulator (through the same trait, fed by the
//! wall clock and real completions), Linux io_uring with O_DIRECT and
//! aligned buffers, and the simulator's metrics and summary.
//!
//! Safety first: I/O never leaves the window `[offset, offset + size)`
//! (checked for every command); writes and trims need `allow_write`; a
//! block device is refused for writing while it or any partition of it is
//! mounted, used as swap or held by another driver.

pub mod backend;
pub mod buf;
mod engine;
pub mod env;
pub mod error;
mod inflight;
pub mod probe;
mod replay;
pub mod sysfs;
pub mod target;
pub mod verify;

pub use backend::BackendKind;
pub use error::{ReplayError, ReplayResult};
pub use replay::{Replay, ReplaySpec};
pub use target::{TargetKind, TargetSpec, Window};
