//! The replay loop: the simulator's workload and host scheduler, unchanged,
//! driven by the wall clock and by real completions. Arrivals are polled
//! when due (open loop) or after completions (closed loop); the host
//! scheduler is asked at arrivals, completions and its own timers, as in
//! the simulator; what it sends goes to the target through the backend.

use std::cell::Cell;
use std::time::{Duration, Instant};

use flashsched_core::engine::Ns;
use flashsched_core::host::{Host, HostRequest, Slot};
use flashsched_core::io::{Completion, DeviceView, Op};
use flashsched_core::metrics::Metrics;
use flashsched_core::workload::{IoRecord, Poll, Workload};

use crate::backend::{Backend, IoDone, IoKind};
use crate::error::{ReplayError, ReplayResult};
use crate::inflight::{Finished, InFlight};

/// What the host scheduler sees of a real device: its size and I/O unit,
/// no GC state (a real device does not expose it).
pub struct RealView {
    pub unit: u32,
    pub bytes: u64,
    pub chips: u32,
    /// Times a scheduler asked for GC flags (an oracle-only view).
    pub gc_reads: Cell<u64>,
}

impl DeviceView for RealView {
    fn page_size(&self) -> u32 {
        self.unit
    }
    fn logical_bytes(&self) -> u64 {
        self.bytes
    }
    fn chips(&self) -> u32 {
        self.chips
    }
    fn chip_in_gc(&self, _chip: u32) -> bool {
        self.gc_reads.set(self.gc_reads.get() + 1);
        false
    }
}

/// Counters reported in the summary's `replay` section.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct LoopStats {
    /// Device I/Os sent (user requests after merging, plus probes).
    pub ios_sent: u64,
    pub probes: u64,
    /// Requests whose range was rounded out to the I/O unit.
    pub widened: u64,
    /// Open loop: how late requests reached the host queue (µs).
    pub mean_lateness_us: f64,
    pub max_lateness_us: f64,
    /// Stopped early (Ctrl-C / `interrupt`), with requests left unsent.
    pub interrupted: bool,
    pub abandoned: u64,
    #[serde(skip)]
    lateness_sum_ns: u128,
    #[serde(skip)]
    arrivals: u64,
}

/// A replay in progress.
pub struct Engine {
    pub host: Host,
    pub workload: Box<dyn Workload>,
    pub view: RealView,
    pub metrics: Metrics,
    pub backend: Box<dyn Backend>,
    pub io: InFlight,
    pub stats: LoopStats,
    t0: Instant,
    next: Poll,
    /// Intended arrival time of each host slot.
    intended: Vec<Ns>,
    records: Vec<IoRecord>,
    dones: Vec<IoDone>,
    finished: Vec<Slot>,
    host_turn: bool,
    /// The host timer already acted on (a timer that does not move is not
    /// fired twice).
    fired: Option<Ns>,
    stopping: bool,
    over: bool,
}

fn kind(op: Op) -> IoKind {
    match op {
        Op::Read => IoKind::Read,
        Op::Write => IoKind::Write,
        Op::Trim => IoKind::Trim,
    }
}

impl Engine {
    pub fn new(
        host: Host,
        workload: Box<dyn Workload>,
        view: RealView,
        backend: Box<dyn Backend>,
        io: InFlight,
        keep_records: bool,
    ) -> Engine {
        Engine {
            host,
            workload,
            view,
            metrics: Metrics::new(keep_records),
            backend,
            io,
            stats: LoopStats::default(),
            t0: Instant::now(),
            next: Poll::At(0),
            intended: Vec::new(),
            records: Vec::new(),
            dones: Vec::new(),
            finished: Vec::new(),
            host_turn: true,
            fired: None,
            stopping: false,
            over: false,
        }
    }

    /// Restart the clock (just before the first request).
    pub fn start_clock(&mut self) {
        self.t0 = Instant::now();
    }

    fn now(&self) -> Ns {
        self.t0.elapsed().as_nanos() as Ns
    }

    fn at(&self, t: Ns) -> Instant {
        self.t0 + Duration::from_nanos(t)
    }

    pub fn is_finished(&self) -> bool {
        self.over
    }

    /// Wall time since the clock started.
    pub fn elapsed(&self) -> Duration {
        self.t0.elapsed()
    }

    /// Run for up to `budget` of wall time; true once the replay is over.
    pub fn advance(&mut self, budget: Duration) -> ReplayResult<bool> {
        let end = Instant::now() + budget;
        while !self.over {
            let now = self.now();
            self.arrivals(now)?;
            if self.host_turn || self.timer_due(now) {
                self.host_turn = false;
                self.fired = self.host_timer().filter(|&t| t <= now);
                self.dispatch(now)?;
            }
            if self.check_over(now)? {
                break;
            }
            let deadline = [self.next_arrival(), self.host_timer()]
                .into_iter()
                .flatten()
                .map(|t| self.at(t))
                .chain(std::iter::once(end))
                .min();
            self.dones.clear();
            let mut dones = std::mem::take(&mut self.dones);
            let r = self.backend.wait(deadline, &mut dones);
            let r = r.and_then(|_| self.complete_all(&dones));
            self.dones = dones;
            r?;
            if Instant::now() >= end {
                break;
            }
        }
        Ok(self.over)
    }

    /// Stop issuing: requests still held by the host scheduler or not yet
    /// arrived are abandoned; I/Os in flight are waited for and counted.
    pub fn interrupt(&mut self) -> ReplayResult<()> {
        if self.over {
            return Ok(());
        }
        self.stopping = true;
        self.stats.interrupted = true;
        self.stats.abandoned = self.host.queued() as u64;
        self.drain()?;
        self.over = true;
        Ok(())
    }

    /// Wait for everything in flight (completions are still recorded).
    pub fn drain(&mut self) -> ReplayResult<()> {
        self.stopping = true;
        let mut first_err = None;
        while self.backend.in_flight() > 0 {
            let mut dones = Vec::new();
            if let Err(e) = self.backend.wait(None, &mut dones) {
                first_err.get_or_insert(e);
                break;
            }
            if let Err(e) = self.complete_all(&dones) {
                first_err.get_or_insert(e);
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    fn next_arrival(&self) -> Option<Ns> {
        match self.next {
            Poll::At(t) | Poll::Wait(t) if !self.stopping => Some(t),
            _ => None,
        }
    }

    /// The host scheduler's pending timer (not yet acted on).
    fn host_timer(&self) -> Option<Ns> {
        self.host
            .sched
            .next_timer()
            .filter(|&t| self.fired != Some(t))
    }

    fn timer_due(&self, now: Ns) -> bool {
        self.host_timer().is_some_and(|t| t <= now)
    }

    fn arrivals(&mut self, now: Ns) -> ReplayResult<()> {
        if self.stopping || !matches!(self.next, Poll::At(t) | Poll::Wait(t) if t <= now) {
            return Ok(());
        }
        self.poll(now)
    }

    fn poll(&mut self, now: Ns) -> ReplayResult<()> {
        self.records.clear();
        self.next = self.workload.poll(now, &mut self.records)?;
        for r in &self.records {
            let id = self
                .host
                .arrive(now, r.op, r.offset, r.size, r.stream, false) as usize;
            if self.intended.len() <= id {
                self.intended.resize(id + 1, 0);
            }
            // Open loop: latency counts from the intended arrival, so a
            // late replayer shows up in the numbers (and in `lateness`).
            let t = r.time_ns.min(now);
            self.intended[id] = t;
            let late = now - t;
            self.stats.lateness_sum_ns += late as u128;
            self.stats.max_lateness_us = self.stats.max_lateness_us.max(late as f64 / 1e3);
            self.stats.arrivals += 1;
            self.host_turn = true;
        }
        Ok(())
    }

    fn dispatch(&mut self, now: Ns) -> ReplayResult<()> {
        if self.stopping {
            return Ok(());
        }
        while let Some(io) = self.host.next_dispatch(now, &self.view) {
            if self.view.gc_reads.get() > 0 {
                return Err(ReplayError::Invalid(format!(
                    "host scheduler `{}` reads the device's GC flags (an oracle setting of the \
                     simulator); a real device does not expose them",
                    self.host.sched_name()
                )));
            }
            let (start, end) = self.io.window.cover(io.offset, io.size).ok_or_else(|| {
                ReplayError::Unsafe(format!(
                    "request at offset {} ({} bytes) lies outside the window",
                    io.offset, io.size
                ))
            })?;
            if start != io.offset || end - start != io.size as u64 {
                self.stats.widened += 1;
            }
            if self.host.is_probe(io.id) {
                self.stats.probes += 1;
            }
            self.io.send(
                self.backend.as_mut(),
                io.id,
                kind(io.op),
                start,
                end - start,
            )?;
            self.stats.ios_sent += 1;
        }
        Ok(())
    }

    fn complete_all(&mut self, dones: &[IoDone]) -> ReplayResult<()> {
        if dones.is_empty() {
            return Ok(());
        }
        let now = self.now();
        for &d in dones {
            self.finished.clear();
            let id = d.token as u32;
            let probe = self.host.is_probe(id);
            self.host.complete(id, now, &self.view, &mut self.finished);
            let reqs = &self.finished;
            self.io.finish(d, |f: &Finished| describe(f, reqs, probe))?;
            for s in &self.finished {
                let c = Completion {
                    arrival: self
                        .intended
                        .get(s.req.id as usize)
                        .copied()
                        .unwrap_or(s.req.arrival),
                    dispatch: s.dispatched,
                    complete: now,
                    op: s.req.op,
                    offset: s.req.offset,
                    size: s.req.size,
                    stream: s.req.stream,
                };
                self.metrics.record(&c);
                self.workload.on_complete(&c, now);
            }
            self.host_turn = true;
        }
        if matches!(self.next, Poll::Blocked | Poll::Wait(_)) && !self.stopping {
            self.poll(now)?;
        }
        Ok(())
    }

    fn check_over(&mut self, now: Ns) -> ReplayResult<bool> {
        if self.backend.in_flight() > 0 {
            return Ok(false);
        }
        let queued = self.host.queued();
        if self.next == Poll::Done && queued == 0 {
            self.over = true;
            return Ok(true);
        }
        if self.next_arrival().is_none() && self.host_timer().is_none() && !self.host_turn {
            if self.stopping {
                self.over = true;
                return Ok(true);
            }
            return Err(ReplayError::Invalid(format!(
                "replay stalled at t={now} ns: {queued} requests held by host scheduler `{}`, \
                 nothing in flight and nothing due",
                self.host.sched_name()
            )));
        }
        Ok(false)
    }

    /// Lateness statistics, filled in for the summary.
    pub fn loop_stats(&self) -> LoopStats {
        let mut s = self.stats.clone();
        if s.arrivals > 0 {
            s.mean_lateness_us = s.lateness_sum_ns as f64 / s.arrivals as f64 / 1e3;
        }
        s
    }
}

/// Names a failed I/O: the user request it served (of a merged group, the
/// one holding the failed block), or the scheduler's probe.
fn describe(f: &Finished, reqs: &[Slot], probe: bool) -> String {
    let at = f.bad_at.unwrap_or(f.start);
    let hit = |r: &HostRequest| r.offset <= at && at < r.offset + r.size as u64;
    let lead = reqs
        .iter()
        .map(|s| s.req)
        .find(hit)
        .or(reqs.first().map(|s| s.req));
    let what = match f.kind {
        IoKind::Read => "read",
        IoKind::Write => "write",
        IoKind::Trim => "trim",
    };
    let who = match (probe, lead) {
        (true, _) => "scheduler probe read".to_string(),
        (false, Some(r)) => format!(
            "request #{} ({} of {} bytes at offset {}, arrived t={} us)",
            r.seq,
            r.op.as_str(),
            r.size,
            r.offset,
            r.arrival / 1000
        ),
        (false, None) => "request".into(),
    };
    format!(
        "{who}: device {what} of window bytes [{}, {})",
        f.start,
        f.start + f.len
    )
}

impl Drop for Engine {
    fn drop(&mut self) {
        // The kernel may still be writing into buffers owned by `io`: never
        // free them with I/O in flight.
        while self.backend.in_flight() > 0 {
            let mut dones = Vec::new();
            if self.backend.wait(None, &mut dones).is_err() {
                break;
            }
            for d in dones {
                let _ = self.io.finish(d, |_| String::new());
            }
        }
    }
}
