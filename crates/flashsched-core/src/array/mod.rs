//! SSD arrays: N simulated SSDs (each a full [`Ssd`] with its own FTL and
//! internal GC) behind one logical volume, with the array's own host queue
//! and an optional network link in front (see docs/arrays.md).
//!
//! Data flows one way: workload (clients) → network link ([`network`]) →
//! array host queue → layout ([`raid`]: RAID-0/RAID-5; [`serial`]: the
//! serial array with external GC) → per-SSD sub-requests → each SSD's FTL,
//! transaction scheduler and flash. All SSDs share one event queue (device
//! events are tagged with the SSD index) and are driven through their public
//! API (`submit`, `handle`, `schedule`, `take_done`).
//!
//! A sub-request is sent to its SSD as soon as the layout produces it (the
//! array queue depth bounds what is outstanding; SSDs have no queue limit of
//! their own). Reads return their data over the link's outbound pipe; writes
//! send data inbound before reaching the array queue.

mod build;
mod layout;
pub mod network;
pub mod raid;
mod requests;
pub mod serial;
mod serial_io;
pub mod series;
mod summary;
mod touched;

use std::collections::VecDeque;

use crate::check::{self, invariants::RequestLedger};
use crate::config::DeviceConfig;
use crate::device::{DevEvent, EventSink, PackedEvent, Ssd};
use crate::engine::{self, Clock, EventQueue, Model, Ns};
use crate::error::{SimError, SimResult};
use crate::host::{Host, Slot};
use crate::io::DeviceView;
use crate::metrics::{Metrics, SparseBins};
use crate::workload::compose::Phases;
use crate::workload::replay::Replay;
use crate::workload::{Feed, Op, Workload};
pub use layout::{ArrayConfig, ArrayWorkload, Layout};
use network::Link;
use raid::{Extent, Raid0, Raid5};
use serial::SerialLog;
use series::{ArraySeries, SeriesTable};
pub use summary::{Accounting, ArrayStats, ArraySummary, LinkSummary, SerialSummary, SsdSummary};
use touched::Touched;

const NONE: u32 = u32::MAX;

enum Wl {
    Phases(Phases),
    Other(Box<dyn Workload>),
}

impl Wl {
    fn get(&mut self) -> &mut dyn Workload {
        match self {
            Wl::Phases(p) => p,
            Wl::Other(w) => w.as_mut(),
        }
    }
    fn get_ref(&self) -> &dyn Workload {
        match self {
            Wl::Phases(p) => p,
            Wl::Other(w) => w.as_ref(),
        }
    }
}

/// What can happen in an array simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ev {
    /// The workload's next arrival.
    Workload,
    /// A timer the array's host scheduler asked for.
    HostTimer,
    /// An event of SSD `.0`.
    Dev(u32, DevEvent),
    /// Client request `.0` (and its write data) crossed the link inbound.
    LinkIn(u32),
    /// The reply to client request `.0` crossed the link outbound.
    LinkOut(u32),
}

impl Ev {
    /// As queued (`PackedEvent`): SSD events keep their SSD in the owner
    /// bits; the array's own events take the tags the device leaves free.
    #[inline(always)]
    pub(crate) fn pack(self) -> PackedEvent {
        let t = PackedEvent::FIRST_FREE_TAG;
        match self {
            Ev::Dev(i, e) => e.pack().with_owner(i),
            Ev::Workload => PackedEvent::other(t, 0),
            Ev::HostTimer => PackedEvent::other(t + 1, 0),
            Ev::LinkIn(c) => PackedEvent::other(t + 2, c),
            Ev::LinkOut(c) => PackedEvent::other(t + 3, c),
        }
    }

    #[inline(always)]
    fn unpack(p: PackedEvent) -> Ev {
        if let Some(e) = p.device() {
            return Ev::Dev(p.owner(), e);
        }
        match p.tag() - PackedEvent::FIRST_FREE_TAG {
            0 => Ev::Workload,
            1 => Ev::HostTimer,
            2 => Ev::LinkIn(p.field(0)),
            _ => Ev::LinkOut(p.field(0)),
        }
    }
}

struct Sink<'a> {
    q: &'a mut EventQueue<PackedEvent>,
    ssd: u32,
}

impl EventSink for Sink<'_> {
    #[inline]
    fn push(&mut self, at: Ns, ev: DevEvent) {
        // Device events rank by SSD, then as on one device (`DevEvent::rank`).
        self.q.push_ranked(
            at,
            (self.ssd as u64) << 33 | ev.rank(),
            Ev::Dev(self.ssd, ev).pack(),
        );
    }
}

/// What the array's host scheduler sees.
struct VolumeView {
    page: u32,
    bytes: u64,
    chips: u32,
}

impl DeviceView for VolumeView {
    fn page_size(&self) -> u32 {
        self.page
    }
    fn logical_bytes(&self) -> u64 {
        self.bytes
    }
    fn chips(&self) -> u32 {
        self.chips
    }
    fn chip_in_gc(&self, _chip: u32) -> bool {
        false
    }
}

/// A client request from arrival to completion.
#[derive(Debug, Clone, Copy)]
struct CReq {
    arrival: Ns,
    dispatch: Ns,
    op: Op,
    offset: u64,
    size: u32,
    stream: u32,
}

/// Why a sub-request was sent to an SSD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubKind {
    /// Part of array request (host id); serial reads carry their first slot.
    User {
        req: u32,
    },
    SerialRead {
        req: u32,
        off: u32,
        units: u32,
    },
    RmwRead {
        stripe: u32,
    },
    StripeWrite {
        stripe: u32,
    },
    CopyRead {
        unit: u32,
        off: u32,
    },
    CopyWrite,
    Trim,
}

#[derive(Debug, Clone, Copy)]
struct Sub {
    ssd: u32,
    kind: SubKind,
    op: Op,
    bytes: u32,
}

/// A RAID-5 partial-stripe write: old data and parity reads, then writes.
#[derive(Debug, Clone, Default)]
struct StripeOp {
    req: u32,
    reads_left: u32,
    writes_left: u32,
    writes: Vec<Extent>,
}

enum Placement {
    Raid0(Raid0),
    Raid5(Raid5),
    Serial(Box<SerialLog>),
}

/// A configured array simulation.
pub struct ArraySim {
    /// Host slots finished by the last completion (reused buffer).
    finished_slots: Vec<Slot>,
    /// Array options.
    pub(crate) cfg: ArrayConfig,
    /// The config every SSD is built from.
    pub(crate) dev_cfg: DeviceConfig,
    /// The SSDs, by index.
    pub ssds: Vec<Ssd>,
    /// Client-level metrics (requests as the clients see them).
    pub metrics: Metrics,
    /// Per-bin time series.
    pub series: ArraySeries,
    /// Array-layer counters.
    pub(crate) stats: ArrayStats,
    clock: Clock<PackedEvent>,
    wl: Wl,
    feed: Feed,
    host: Host,
    link: Option<Link>,
    placement: Placement,
    view: VolumeView,
    creqs: Vec<CReq>,
    free_creqs: Vec<u32>,
    host_client: Vec<u32>,
    remaining: Vec<u32>,
    subs: Vec<Sub>,
    free_subs: Vec<u32>,
    stripes: Vec<StripeOp>,
    free_stripes: Vec<u32>,
    /// Serial writes waiting for log space: (host id, next unit, end unit).
    stalled: VecDeque<(u32, u32, u32)>,
    /// Since when writes have been waiting for log space.
    stall_since: Option<Ns>,
    /// Per-SSD write speed factors (empty: all 1).
    ssd_speeds: Vec<f64>,
    /// Sub-requests outstanding per SSD (a source is TRIMmed only at 0).
    outstanding: Vec<u32>,
    /// GC count when each current front-end took the role.
    front_gc_base: Vec<Option<u64>>,
    bytes_w: Vec<u64>,
    bytes_r: Vec<u64>,
    done: Vec<u32>,
    /// SSDs that may have work to report or decide (see `touched`).
    touched: Touched,
    ext: Vec<Extent>,
    completed_any: bool,
    /// Something the host sees happened at this instant (see `settle`).
    host_turn: bool,
    /// Host-interface invariants, in check mode.
    ledger: Option<Box<RequestLedger>>,
}

impl Model for ArraySim {
    type Ev = PackedEvent;

    #[inline]
    fn clock(&mut self) -> &mut Clock<PackedEvent> {
        &mut self.clock
    }

    #[inline]
    fn before_instant(&mut self, t: Ns) {
        if t / self.series.bin_ns > self.series.sampled() {
            self.sample(t);
        }
    }

    fn poll(&mut self) -> SimResult<()> {
        let now = self.clock.now();
        let n = self.feed.poll(self.wl.get(), now)?;
        for i in 0..n {
            let mut r = self.feed.record(i);
            Replay::fold(&mut r, self.view.bytes);
            let c = CReq {
                arrival: now,
                dispatch: 0,
                op: r.op,
                offset: r.offset,
                size: r.size,
                stream: r.stream,
            };
            let idx = match self.free_creqs.pop() {
                Some(i) => {
                    self.creqs[i as usize] = c;
                    i
                }
                None => {
                    self.creqs.push(c);
                    (self.creqs.len() - 1) as u32
                }
            };
            match &mut self.link {
                Some(l) => {
                    let data = if r.op == Op::Write { r.size as u64 } else { 0 };
                    let t = l.send_in(now, data);
                    self.clock.q.push(t, Ev::LinkIn(idx).pack());
                }
                None => self.arrive_host(idx),
            }
        }
        self.prefetch_next();
        self.feed
            .schedule(now, &mut self.clock.q, Ev::Workload.pack());
        Ok(())
    }

    #[inline]
    fn apply(&mut self, ev: PackedEvent, now: Ns) -> SimResult<()> {
        match Ev::unpack(ev) {
            Ev::Dev(i, e) => {
                self.touched.mark(i);
                let sink = &mut Sink {
                    q: &mut self.clock.q,
                    ssd: i,
                };
                self.ssds[i as usize].handle(e, now, sink)?
            }
            Ev::Workload => self.poll()?,
            Ev::HostTimer => {
                self.host.timer_fired();
                self.host_turn = true;
            }
            Ev::LinkIn(c) => self.arrive_host(c),
            Ev::LinkOut(c) => self.client_complete(c),
        }
        Ok(())
    }

    /// The decide phase at the current instant.
    fn settle(&mut self, now: Ns) -> SimResult<()> {
        let serial = matches!(self.placement, Placement::Serial(_));
        let mut asked = false;
        loop {
            // Only SSDs touched at this instant are visited (`touched`), in
            // ascending order as a full scan would.
            let mut at = 0;
            while let Some(i) = self.touched.next_from(at) {
                at = i + 1;
                let i = i as usize;
                if !self.ssds[i].has_done() {
                    continue;
                }
                self.ssds[i].take_done(&mut self.done);
                let mut k = 0;
                while k < self.done.len() {
                    let id = self.done[k];
                    self.sub_done(id)?;
                    k += 1;
                }
                self.done.clear();
            }
            if serial {
                self.pump_xgc()?;
            }
            if self.completed_any && self.feed.blocked() {
                self.completed_any = false;
                self.poll()?;
            }
            // The host is asked only at instants it can see (arrivals,
            // completions, its timers; see `Simulation::settle`).
            let mut dispatched = false;
            while std::mem::take(&mut self.host_turn) {
                asked = true;
                while let Some(io) = self.host.next_dispatch(now, &self.view) {
                    if !self.host.is_probe(io.id) {
                        let c = self.host_client[io.id as usize];
                        self.creqs[c as usize].dispatch = now;
                    }
                    self.start_request(io)?;
                    dispatched = true;
                }
            }
            let mut at = 0;
            let mut more = false;
            while let Some(i) = self.touched.next_from(at) {
                at = i + 1;
                let s = &mut self.ssds[i as usize];
                if s.needs_decide() {
                    s.schedule(
                        now,
                        &mut Sink {
                            q: &mut self.clock.q,
                            ssd: i,
                        },
                    )?;
                }
                more |= s.has_done();
            }
            // New front-end writes may open xGC work: pump again now rather
            // than at whatever step comes next.
            if !(more || (serial && dispatched)) {
                break;
            }
        }
        // An SSD is left out of later instants until an event or new work
        // touches it again.
        let mut at = 0;
        while let Some(i) = self.touched.next_from(at) {
            at = i + 1;
            if !self.ssds[i as usize].needs_decide() {
                self.touched.unmark(i);
            }
        }
        self.completed_any = false;
        if asked {
            if let Some(t) = self.host.arm_timer(now) {
                self.clock.q.push(t, Ev::HostTimer.pack());
            }
        }
        if let Some((done, need)) = self.metrics.over_budget() {
            return Err(SimError::MemoryLimit(format!(
                "after {done} array requests, per-request records would need {}, more than the \
                 memory limit leaves beside the SSDs; keep no per-request records",
                crate::memory::fmt_bytes(need)
            ))
            .into());
        }
        Ok(())
    }

    #[inline]
    fn check_instant(&mut self, t: Ns) -> SimResult<()> {
        if self.ledger.is_some() {
            self.check_step(t)?;
        }
        Ok(())
    }

    #[inline]
    fn pause(&mut self) {
        self.metrics.flush_staged();
    }

    fn finish(&mut self) -> SimResult<()> {
        let now = self.clock.now();
        let busy = self.host.queued() > 0
            || self.host.outstanding > 0
            || !self.stalled.is_empty()
            || self.ssds.iter().any(|s| !s.is_idle());
        if !self.feed.done() || busy {
            return Err(SimError::Invalid(format!(
                "array stalled at t={} ns: workload done={}, {} queued, {} outstanding, \
                 {} writes waiting for log space, nothing scheduled to happen",
                now,
                self.feed.done(),
                self.host.queued(),
                self.host.outstanding,
                self.stalled.len()
            ))
            .into());
        }
        if let Some(l) = &self.ledger {
            l.finish().map_err(|m| check::error(now, "array", &m))?;
            for (i, s) in self.ssds.iter_mut().enumerate() {
                s.check_finish()
                    .map_err(|m| check::error(now, &format!("ssd {i}"), &m))?;
            }
        }
        self.track_roles();
        // Front-ends still in the role at the end: count their GC too.
        for (i, base) in self.front_gc_base.iter().enumerate() {
            if let Some(b) = base {
                self.stats.front_gc_violations += self.ssds[i].ftl.stats.gc_invocations - b;
            }
        }
        let ssds = &self.ssds;
        let front = self.front_state();
        let end = self.metrics.last_completion.max(now);
        self.series.finish(
            end,
            |i| {
                let st = &ssds[i].ftl.stats;
                (st.gc_invocations, st.gc_pages_moved)
            },
            front,
        );
        Ok(())
    }
}

impl ArraySim {
    /// Turn check mode on (before the run): every SSD's reads are checked
    /// against its version oracle and its invariants audited; array requests
    /// must complete exactly once. The first violation stops the run.
    pub fn enable_check(&mut self) {
        for s in &mut self.ssds {
            s.enable_check();
        }
        self.ledger = Some(Box::default());
    }

    /// The checks after an event batch at `t`.
    fn check_step(&mut self, t: Ns) -> SimResult<()> {
        let Some(l) = &mut self.ledger else {
            return Ok(());
        };
        let (o, qd) = (self.host.outstanding, self.host.queue_depth);
        l.step(t, o, qd).map_err(|m| check::error(t, "array", &m))?;
        for (i, s) in self.ssds.iter_mut().enumerate() {
            s.check_step()
                .map_err(|m| check::error(t, &format!("ssd {i}"), &m))?;
        }
        if let Placement::Serial(log) = &self.placement {
            if log.stats.version_mismatches > 0 {
                return Err(check::error(
                    t,
                    "serial array",
                    "a read found an old unit version",
                ));
            }
        }
        Ok(())
    }

    /// Logical volume size in bytes.
    pub fn volume_bytes(&self) -> u64 {
        self.view.bytes
    }

    /// Current simulated time.
    pub fn now(&self) -> Ns {
        self.clock.now()
    }

    /// Whether the run has finished.
    pub fn is_finished(&self) -> bool {
        self.clock.is_finished()
    }

    /// (requests completed, expected total if known).
    pub fn progress(&self) -> (u64, Option<u64>) {
        (
            self.metrics.completed(),
            self.wl.get_ref().expected_requests(),
        )
    }

    /// The serial array's log (None for RAID layouts).
    pub fn serial(&self) -> Option<&SerialLog> {
        match &self.placement {
            Placement::Serial(l) => Some(l),
            _ => None,
        }
    }

    /// Start times of the workload phases (ns).
    pub fn phase_starts(&self) -> Vec<Ns> {
        match &self.wl {
            Wl::Phases(p) => p.starts.clone(),
            Wl::Other(_) => vec![0],
        }
    }

    /// Bytes per bin on the network, (inbound, outbound), if a link.
    pub fn wire_bytes(&self) -> Option<(&SparseBins<f64>, &SparseBins<f64>)> {
        self.link
            .as_ref()
            .map(|l| (&l.wire_in.bytes, &l.wire_out.bytes))
    }

    /// Every per-bin series over the bins in which anything happened.
    pub fn series_table(&self) -> SeriesTable {
        self.series.table(self.wire_bytes())
    }

    /// Run until finished.
    pub fn run(&mut self) -> SimResult<()> {
        while !self.advance(u64::MAX)? {}
        Ok(())
    }

    /// Process up to `max_steps` time steps; true once finished.
    pub fn advance(&mut self, max_steps: u64) -> SimResult<bool> {
        engine::advance(self, max_steps)
    }

    fn sample(&mut self, t: Ns) {
        let front = self.front_state();
        let ssds = &self.ssds;
        self.series.sample_until(
            t,
            |i| {
                let st = &ssds[i].ftl.stats;
                (st.gc_invocations, st.gc_pages_moved)
            },
            front,
        );
    }

    /// (first front-end or -1, bit mask of every front-end among SSDs 0..63).
    fn front_state(&self) -> (i32, u64) {
        match &self.placement {
            Placement::Serial(l) => (
                l.fronts().first().map_or(-1, |&f| f as i32),
                l.fronts()
                    .iter()
                    .filter(|&&f| f < 64)
                    .fold(0, |m, &f| m | 1 << f),
            ),
            _ => (-1, 0),
        }
    }

    /// Fetch the mapping entries of the next request's pages on their SSDs
    /// into the CPU cache before it arrives (`Workload::peek`; a hint with no
    /// effect on results). Striped layouts only: where the serial log puts a
    /// request depends on the log's state when it is issued.
    fn prefetch_next(&mut self) {
        let Some(mut r) = self.wl.get_ref().peek() else {
            return;
        };
        Replay::fold(&mut r, self.view.bytes);
        let mut ext = std::mem::take(&mut self.ext);
        ext.clear();
        match &self.placement {
            Placement::Raid0(m) => m.map(r.offset, r.size, &mut ext),
            // Writes touch the same data chunks (and parity, not fetched).
            Placement::Raid5(m) => m.map_read(r.offset, r.size, &mut ext),
            Placement::Serial(_) => {}
        }
        for e in &ext {
            self.ssds[e.ssd as usize].prefetch_request(r.op, e.offset, e.len);
        }
        self.ext = ext;
    }

    fn arrive_host(&mut self, idx: u32) {
        let c = self.creqs[idx as usize];
        let id = self
            .host
            .arrive(self.clock.now(), c.op, c.offset, c.size, c.stream, false)
            as usize;
        if id >= self.host_client.len() {
            self.host_client.resize(id + 1, NONE);
            self.remaining.resize(id + 1, 0);
        }
        self.host_client[id] = idx;
        self.host_turn = true;
        if let Some(l) = &mut self.ledger {
            l.arrived(1);
        }
    }
}
