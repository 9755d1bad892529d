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
#[cfg(test)]
mod example;
mod kyber;
mod merge;
mod noop;
mod pardispatcher;

use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::DeviceView;
use crate::registry::{self, Entry, Params, Registry, SchedTables};

pub use amphibian::{Amphibian, AmphibianParams, GcDetect, Zones};
pub use bfq::{Bfq, BfqParams};
pub use cfq::{Cfq, CfqParams};
pub use deadline::{Deadline, DeadlineParams};
pub use kyber::{Kyber, KyberParams};
pub use noop::Noop;
pub use pardispatcher::{ParDispatcher, ParDispatcherParams};

/// State passed to a host scheduler at each decision.
pub struct HostCtx<'a> {
    /// Current time.
    pub now: Ns,
    /// Device requests outstanding.
    pub outstanding: u32,
    /// The most that may be outstanding.
    pub queue_depth: u32,
    /// What the host can see of the device.
    pub device: &'a dyn DeviceView,
}

/// What a scheduler sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// A queued request (by id).
    Req(u32),
    /// A probe read injected by the scheduler (not a user request); `tag`
    /// comes back as `Done::req.stream`.
    Probe {
        /// Byte offset.
        offset: u64,
        /// Size in bytes.
        size: u32,
        /// The scheduler's own tag.
        tag: u32,
    },
}

/// A zone flagged as in GC at a time (GC-aware schedulers; tests, reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcFlag {
    /// When the flag was raised.
    pub at: Ns,
    /// The zone flagged.
    pub zone: u32,
}

/// A zone's hold state changing: `held` when a GC-aware scheduler stops
/// sending to it (suspect or judged in GC), not `held` when it sends again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneChange {
    /// When.
    pub at: Ns,
    /// The zone.
    pub zone: u32,
    /// Held from now on (true) or released (false).
    pub held: bool,
}

/// What a GC-detecting scheduler did, for the detector report
/// (`metrics::gc_detect`): its zones and their history.
#[derive(Debug, Clone, Copy)]
pub struct DetectorLog<'a> {
    /// Number of zones.
    pub zones: u32,
    /// Zones are flash chips (zone `z` is chip `z`); else LBA ranges.
    pub chip_zones: bool,
    /// Hold changes in time order.
    pub changes: &'a [ZoneChange],
    /// Zones judged in GC, in time order.
    pub flags: &'a [GcFlag],
    /// Probe reads sent.
    pub probes_sent: u64,
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

/// Fast-path hints a host scheduler gives about itself. Each lets the host
/// skip work; a wrong hint changes results silently, so the every-scheduler
/// property test runs each scheduler with [`HostCaps::conservative`] hints
/// too and requires identical summaries, and checks that a scheduler that
/// does not declare `observes_device` never reads the GC flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCaps {
    /// `next_timer` can return a time (else the host never asks for one).
    pub timers: bool,
    /// `dispatch` reads the device's GC state (`DeviceView::chip_in_gc`):
    /// the host is then asked again whenever that changes. Not a pure
    /// shortcut: a host is asked only at instants it can see, and a flag
    /// change is one only for a scheduler that reads the flags (asking a
    /// time-slicing scheduler such as CFQ at other instants changes what it
    /// decides). Its check is that undeclared schedulers never read them.
    pub observes_device: bool,
    /// `dispatch` is a no-op returning `None` whenever `len() == 0` (no
    /// timers, probes or other state changes): the host then skips asking
    /// while nothing is queued.
    pub idle_when_empty: bool,
}

impl HostCaps {
    /// These hints with every shortcut off: always correct, slowest.
    pub fn conservative(self) -> HostCaps {
        HostCaps {
            timers: true,
            idle_when_empty: false,
            ..self
        }
    }
}

/// A host I/O scheduler.
pub trait HostScheduler: Send {
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
    /// Fast-path hints (see [`HostCaps`]); asked once, when the host is built.
    fn caps(&self) -> HostCaps {
        HostCaps {
            timers: true,
            observes_device: false,
            idle_when_empty: false,
        }
    }
    /// Zones this scheduler flagged as in GC, in order (GC-aware ones only).
    fn gc_log(&self) -> &[GcFlag] {
        &[]
    }
    /// The GC detector's history (schedulers that detect GC only): the
    /// device then records its chips' GC periods so the run reports the
    /// detector's precision and recall against them.
    fn detector(&self) -> Option<DetectorLog<'_>> {
        None
    }
    /// Requests held in the scheduler.
    fn len(&self) -> usize;
    /// No request held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a host scheduler is built from besides its tunables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostEnv {
    /// Largest request the merging schedulers build (bytes; 0 = no merging).
    pub max_merge_bytes: u64,
    /// Flash chips in the device (for schedulers that spread over them).
    pub chips: u32,
    /// Logical capacity of the device in bytes.
    pub logical_bytes: u64,
}

/// A host scheduler type, registered with one line: `entry::<T>()`.
pub trait HostSchedulerType: HostScheduler + Sized + 'static {
    /// Name in configs and on the command line.
    const NAME: &'static str;
    /// One line for listings.
    const ABOUT: &'static str;
    /// Its `[host.<NAME>]` table.
    type Params: Params;
    /// A scheduler with tunables `params` for the device `env` describes.
    fn new(params: Self::Params, env: &HostEnv) -> Self;
}

type Build = fn(&toml::Value, &str, &HostEnv) -> SimResult<Box<dyn HostScheduler>>;

/// The registry entry of scheduler type `S`.
pub const fn entry<S: HostSchedulerType>() -> Entry<Build> {
    Entry::new::<S::Params>(S::NAME, S::ABOUT, build::<S>)
}

fn build<S: HostSchedulerType>(
    table: &toml::Value,
    key: &str,
    env: &HostEnv,
) -> SimResult<Box<dyn HostScheduler>> {
    Ok(Box::new(S::new(registry::parse(table, key)?, env)))
}

/// The host schedulers, in listing order.
pub const REGISTRY: Registry<Build> = Registry {
    kind: "host scheduler",
    section: "host",
    entries: &[
        entry::<Noop>(),
        entry::<Deadline>(),
        entry::<Cfq>(),
        entry::<ParDispatcher>(),
        entry::<Kyber>(),
        entry::<Bfq>(),
        entry::<Amphibian>(),
        #[cfg(test)]
        entry::<example::Lifo>(),
    ],
};

/// Names of all registered host schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// Build the scheduler called `name` with its tunables from `tables`
/// (`[host.<name>]`; defaults where absent).
pub fn build_named(
    name: &str,
    tables: &SchedTables,
    env: &HostEnv,
) -> SimResult<Box<dyn HostScheduler>> {
    let (table, key) = REGISTRY.table_of(name, tables)?;
    (REGISTRY.get(name)?.build)(&table, &key, env)
}

/// Milliseconds to ns.
pub(crate) fn ms(v: f64) -> Ns {
    (v * 1e6).round().max(0.0) as Ns
}

pub(crate) use crate::registry::check_range;
