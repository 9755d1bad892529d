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
    /// Where the latency of a request the device served without waiting
    /// for flash (DRAM cache hits, buffered writes) is counted from.
    #[serde(default)]
    pub buffered_latency: BufferedLatency,
    /// Each host scheduler's tunables (`[host.<name>]`), by name; a resolved
    /// config holds every registered scheduler's table.
    #[serde(flatten)]
    pub sched: SchedTables,
}

/// `host.buffered_latency`: where the latency of a request the device
/// served without waiting for flash starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BufferedLatency {
    /// Its arrival at the host queue, like every other request.
    #[default]
    FromArrival,
    /// Its dispatch to the device: the time it waited in the host queue is
    /// not counted. SSDsim's timing: when a slot of its request queue
    /// (`queue_length`, 5) frees, it sets its clock back to the arrival
    /// time of the request it admits (`get_requests`), so a request its
    /// buffer serves alone is answered 1 µs after its arrival however long
    /// it waited (`buffer_management`); requests that need flash are
    /// served after the work already dispatched and timed from their
    /// arrival.
    FromDispatch,
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
