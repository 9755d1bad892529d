//! `[host]`: the host side of a device config — its queue depth, the host
//! I/O scheduler and every host scheduler's tunables table.

use serde::{Deserialize, Serialize};

use super::sched::REGISTRY;
use crate::error::{SimError, SimResult};
use crate::registry::SchedTables;

/// Host queue and scheduler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostConfig {
    /// Maximum requests outstanding at the device (SATA NCQ 32, NVMe deep).
    pub queue_depth: u32,
    /// Host I/O scheduler name (see [`REGISTRY`]).
    pub scheduler: String,
    /// Largest request the merging schedulers build (noop, deadline), KiB;
    /// 0 disables merging (Linux `max_sectors_kb`, 512 KiB).
    #[serde(default = "default_max_merge_kib")]
    pub max_merge_kib: u32,
    /// Each host scheduler's tunables (`[host.<name>]`), by name; a resolved
    /// config holds every registered scheduler's table.
    #[serde(flatten)]
    pub sched: SchedTables,
}

fn default_max_merge_kib() -> u32 {
    512
}

impl HostConfig {
    /// Range checks, the scheduler name and every tunables table; each
    /// error names its key.
    pub fn validate(&self) -> SimResult<()> {
        if self.queue_depth == 0 || self.queue_depth > 65_536 {
            return Err(SimError::config(
                "host.queue_depth",
                format!("{} is outside [1, 65536]", self.queue_depth),
            ));
        }
        if self.max_merge_kib > 1 << 20 {
            return Err(SimError::config(
                "host.max_merge_kib",
                format!("{} is outside [0, 1048576]", self.max_merge_kib),
            ));
        }
        REGISTRY.validate(&self.scheduler, &self.sched)
    }
}
