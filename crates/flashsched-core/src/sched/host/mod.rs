//! Host-level I/O schedulers (block layer, above the device queue).
//!
//! A scheduler receives every arriving request ([`HostScheduler::enqueue`])
//! and is asked for the next one to send whenever the device queue has room
//! ([`HostScheduler::dispatch`]). It may:
//! * hold requests (return `None` although it has some: a waiting queue),
//!   asking to be woken at [`HostScheduler::next_timer`];
//! * merge queued contiguous requests of one direction into one device
//!   request (`dispatch` returns the lead id and pushes the others into
//!   `merged`; each original request still gets its own metrics row);
//! * inject probe reads ([`Pick::Probe`]) that occupy a device slot but are
//!   not user requests (no metrics, not seen by the workload);
//! * watch completions with their device latency ([`Done`]).

mod amphibian;
mod bfq;
mod cfq;
mod deadline;
mod kyber;
mod merge;
mod noop;
mod pardispatcher;

use super::Registry;
use crate::config::DeviceConfig;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::host::HostRequest;

pub use amphibian::{Amphibian, AmphibianParams};
pub use bfq::{Bfq, BfqParams};
pub use cfq::{Cfq, CfqParams};
pub use deadline::{Deadline, DeadlineParams};
pub use kyber::{Kyber, KyberParams};
pub use noop::Noop;
pub use pardispatcher::{ParDispatcher, ParDispatcherParams};

/// What the device exposes to host schedulers. A real host sees only the
/// first three; `chip_in_gc` (GC state) and `chip_of_lpn` (which chip a
/// logical page lives on) model an open-channel interface (Amphibian §III-E)
/// and are used by oracle experiments and chip-granular zones.
pub trait DeviceView {
    /// Device page size in bytes.
    fn page_size(&self) -> u32;
    /// Logical capacity in bytes.
    fn logical_bytes(&self) -> u64;
    /// Number of flash chips.
    fn chips(&self) -> u32;
    /// Whether any plane of `chip` is running GC right now.
    fn chip_in_gc(&self, chip: u32) -> bool;
    /// Chip holding logical page `lpn` (folded onto the logical space) under
    /// static allocation; `None` when the mapping is dynamic.
    fn chip_of_lpn(&self, _lpn: u64) -> Option<u32> {
        None
    }
    /// Number of planes (the static striping period in pages).
    fn planes(&self) -> u32 {
        self.chips()
    }
}

/// State passed to a host scheduler at each decision.
pub struct HostCtx<'a> {
    pub now: Ns,
    pub outstanding: u32,
    pub queue_depth: u32,
    pub device: &'a dyn DeviceView,
}

/// What a scheduler sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// A queued request (by id).
    Req(u32),
    /// A probe read injected by the scheduler (not a user request); `tag`
    /// comes back as `Done::req.stream`.
    Probe { offset: u64, size: u32, tag: u32 },
}

/// A zone flagged as in GC at a time (GC-aware schedulers; tests, reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcFlag {
    pub at: Ns,
    pub zone: u32,
}

/// A finished device request as the scheduler sees it.
pub struct Done<'a> {
    /// The request (for a merged request: the lead, with the merged range).
    pub req: HostRequest,
    /// When it left the host (device latency = `ctx.now - dispatched`).
    pub dispatched: Ns,
    /// A probe read injected by this scheduler.
    pub probe: bool,
    /// Ids of the requests merged into the lead.
    pub merged: &'a [u32],
}

/// A host I/O scheduler.
pub trait HostScheduler: Send {
    fn name(&self) -> &'static str;
    /// A request arrived.
    fn enqueue(&mut self, req: &HostRequest, now: Ns);
    /// Choose what to send to the device next (the host has checked the
    /// queue depth). Ids of requests merged into a `Pick::Req` lead are
    /// pushed to `merged` (same direction, contiguous with the lead).
    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick>;
    /// A dispatched request (or probe) completed.
    fn on_complete(&mut self, _done: &Done, _ctx: &HostCtx) {}
    /// Earliest time the scheduler wants to be asked again even if nothing
    /// else happens (expiry, retry timers).
    fn next_timer(&self) -> Option<Ns> {
        None
    }
    /// Whether `next_timer` can ever return a time (the loop skips asking
    /// schedulers that have no timers).
    fn has_timers(&self) -> bool {
        true
    }
    /// Whether `dispatch` reads the device's GC state (`DeviceView::
    /// chip_in_gc`): the host is then asked again whenever that changes.
    fn observes_device(&self) -> bool {
        false
    }
    /// Zones this scheduler flagged as in GC, in order (GC-aware ones only).
    fn gc_log(&self) -> &[GcFlag] {
        &[]
    }
    /// Requests held in the scheduler.
    fn len(&self) -> usize;
    /// Whether `dispatch` is a no-op returning `None` whenever `len() == 0`
    /// (no timers, probes or other state changes): the host then skips
    /// asking while nothing is queued.
    fn idle_when_empty(&self) -> bool {
        false
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

type Ctor = fn(&DeviceConfig) -> Box<dyn HostScheduler>;

/// The registry: name → constructor.
const REGISTRY: Registry<Ctor> = Registry {
    kind: "host scheduler",
    entries: &[
        ("noop", |c| Box::new(Noop::new(c))),
        ("deadline", |c| Box::new(Deadline::new(c))),
        ("cfq", |c| Box::new(Cfq::new(c))),
        ("pardispatcher", |c| Box::new(ParDispatcher::new(c))),
        ("kyber", |c| Box::new(Kyber::new(c))),
        ("bfq", |c| Box::new(Bfq::new(c))),
        ("amphibian", |c| Box::new(Amphibian::new(c))),
    ],
};

/// Names of all registered host schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// Error unless `name` is registered.
pub fn check_name(name: &str) -> SimResult<()> {
    REGISTRY.get(name).map(|_| ())
}

/// Build the scheduler called `name`.
pub fn build(name: &str, cfg: &DeviceConfig) -> SimResult<Box<dyn HostScheduler>> {
    Ok(REGISTRY.get(name)?(cfg))
}

/// Milliseconds to ns.
pub(crate) fn ms(v: f64) -> Ns {
    (v * 1e6).round().max(0.0) as Ns
}

/// Range check for host scheduler parameters (`key` is the full config key).
pub(crate) fn check_range(key: &str, v: f64, lo: f64, hi: f64) -> SimResult<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(SimError::config(
            key,
            format!("{v} is outside [{lo}, {hi}]"),
        ))
    }
}
