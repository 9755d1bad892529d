//! Host-level I/O schedulers (block layer, above the device queue).

mod noop;

use crate::config::DeviceConfig;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::host::HostRequest;

pub use noop::Noop;

/// What the device exposes to host schedulers. The logical→chip mapping is
/// hidden from a real host; `gc_active_chips` models an interface that does
/// expose GC state (open-channel SSDs), for oracle experiments.
pub trait DeviceView {
    /// Device page size in bytes.
    fn page_size(&self) -> u32;
    /// Logical capacity in bytes.
    fn logical_bytes(&self) -> u64;
    /// Number of flash chips.
    fn chips(&self) -> u32;
    /// Whether any plane of `chip` is running GC right now.
    fn chip_in_gc(&self, chip: u32) -> bool;
}

/// State passed to a host scheduler at each decision.
pub struct HostCtx<'a> {
    pub now: Ns,
    pub outstanding: u32,
    pub queue_depth: u32,
    pub device: &'a dyn DeviceView,
}

/// A host I/O scheduler.
pub trait HostScheduler: Send {
    fn name(&self) -> &'static str;
    /// A request arrived.
    fn enqueue(&mut self, req: &HostRequest, now: Ns);
    /// Choose the next request to send to the device (the host has checked
    /// the queue depth); returns its id.
    fn dispatch(&mut self, ctx: &HostCtx) -> Option<u32>;
    /// A dispatched request completed.
    fn on_complete(&mut self, _req: &HostRequest, _ctx: &HostCtx) {}
    /// Earliest time the scheduler wants to be asked again even if nothing
    /// else happens (expiry, retry timers).
    fn next_timer(&self) -> Option<Ns> {
        None
    }
    /// Requests held in the scheduler.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

type Ctor = fn(&DeviceConfig) -> Box<dyn HostScheduler>;

/// The registry: name → constructor.
const REGISTRY: &[(&str, Ctor)] = &[("noop", |_| Box::new(Noop::default()))];

/// Names of all registered host schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(n, _)| *n).collect()
}

/// Error unless `name` is registered.
pub fn check_name(name: &str) -> SimResult<()> {
    if REGISTRY.iter().any(|(n, _)| *n == name) {
        Ok(())
    } else {
        Err(SimError::unknown("host scheduler", name, &names()))
    }
}

/// Build the scheduler called `name`.
pub fn build(name: &str, cfg: &DeviceConfig) -> SimResult<Box<dyn HostScheduler>> {
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, ctor)| ctor(cfg))
        .ok_or_else(|| SimError::unknown("host scheduler", name, &names()))
}
