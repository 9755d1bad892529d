//! One SSD: splits host requests into page transactions (via the FTL), hands
//! them to the transaction scheduler, and runs them on dies and channel buses.
//! GC transactions go through the same scheduler and compete for the same
//! dies and buses as user I/O.
//!
//! Binding is late: a program gets its physical page when it starts on the
//! die (so pages in a block are always programmed in order and the mapping
//! matches flash), and a read re-checks its page when it starts (the block
//! may have been erased by GC since the read was translated).

pub mod config;
pub mod parallel;
pub mod sched;
pub mod tx;

use rustc_hash::FxHashMap;

use crate::check::record::{OpRecord, OpTap};
use crate::check::Checker;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::channel::Channel;
use crate::flash::die::{Die, Phase};
use crate::flash::variation::Variation;
use crate::flash::{Geometry, Timing};
use crate::ftl::precondition::PreconditionReport;
use crate::ftl::{Allocation, Ftl, Stream, NONE};
use crate::io::{DeviceView, Op};
pub use config::{ControllerConfig, SsdSpec};
use parallel::Parallelism;
use sched::{PickCtx, TxCaps, TxScheduler};
use tx::{Origin, Tx, TxArena, TxId, TxKind};

/// `lpn` marker of an erase issued by [`Ssd::erase_trimmed_blocks`] (not
/// part of a GC job).
const RECLAIM: u32 = NONE - 1;

/// Decide passes a planning scheduler may take at one instant (`schedule`).
const MAX_DECIDE_PASSES: u32 = 100_000;

/// Events a device schedules for itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevEvent {
    /// The cell operation on `die` finished (ignored if `gen` is stale).
    DieDone { die: u32, gen: u32 },
    /// The data-out transfer of the read on `die` (on channel `ch`) finished
    /// (ignored if `gen` is stale: the transfer was delayed and rescheduled).
    BusDone { ch: u32, die: u32, gen: u32 },
}

impl DevEvent {
    /// Order among device events at the same nanosecond (`EventQueue::
    /// push_ranked`): bus transfers before cell operations, each by index,
    /// as firmware polling channels then dies in a fixed order would see them.
    /// Below 2^33.
    #[inline]
    pub fn rank(self) -> u64 {
        match self {
            DevEvent::BusDone { ch, .. } => ch as u64,
            DevEvent::DieDone { die, .. } => 1 << 32 | die as u64,
        }
    }
}

/// Where a device puts its future events.
pub trait EventSink {
    fn push(&mut self, at: Ns, ev: DevEvent);
}

/// Device-side counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceStats {
    pub flash_reads: u64,
    pub flash_programs: u64,
    pub user_reads: u64,
    pub gc_reads: u64,
    /// User page reads served from controller DRAM (data still in flight or
    /// buffered for a write).
    pub dram_read_hits: u64,
    /// Programs whose data had been superseded by a later write before they
    /// started (written, immediately stale).
    pub superseded_programs: u64,
    /// Reads whose block was erased between translation and start.
    pub reads_relocated: u64,
    /// Program/erase suspensions and resumptions (P/E suspension).
    pub suspensions: u64,
    pub resumes: u64,
    /// Write-caused interference (AOS §IV-B.2): user page reads that waited
    /// while a program or erase held their die, and their total wait (ns).
    pub interfered_reads: u64,
    pub interference_wait_ns: u64,
    /// User requests that reached flash, and those that found a chip they
    /// need already holding queued or running work (VIOS Table 1 conflicts).
    pub read_requests: u64,
    pub write_requests: u64,
    pub read_conflicts: u64,
    pub write_conflicts: u64,
}

/// Timing of P/E suspension (controller config).
#[derive(Debug, Clone, Copy)]
struct SuspendTiming {
    program_loops: u64,
    erase_loops: u64,
    suspend: Ns,
    resume: Ns,
}

#[derive(Debug, Clone, Copy)]
struct DevReq {
    host: u32,
    remaining: u32,
}

/// One GC job (one victim block in one plane).
#[derive(Debug, Clone, Default)]
struct GcJob {
    victim: u32,
    /// Valid pages to relocate, as (lpn, ppn) at job start.
    moves: Vec<(u32, u32)>,
    /// Next entry of `moves` to issue.
    next: usize,
    /// Moves not finished yet (issued or not).
    pending: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Inflight {
    /// User writes of this LPN translated but not yet programmed.
    pending: u32,
    /// Highest write sequence already programmed.
    issued_seq: u64,
    /// Newest write of this LPN, and whether its program has finished: once
    /// it has, DRAM only holds older versions (a reordering scheduler may
    /// still be programming them) and reads must go to flash.
    newest: u64,
    newest_done: bool,
}

/// DRAM write buffer: a write completes once its pages fit; space returns as
/// pages are programmed.
#[derive(Debug, Default)]
struct WriteBuffer {
    capacity: u32,
    used: u32,
    /// Writes waiting for space: (device request, offset, size, pages).
    waiting: std::collections::VecDeque<(u32, u64, u32, u32)>,
}

/// A simulated SSD.
pub struct Ssd {
    pub geo: Geometry,
    pub timing: Timing,
    pub ftl: Ftl,
    pub stats: DeviceStats,
    pub precondition: PreconditionReport,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    /// Counts transactions queued or started and dies a scheduler woke: a
    /// decide pass that leaves it unchanged changed nothing.
    decide_stamp: u64,
    /// Scratch: data-outs whose planned end changed (`push_retimed`).
    retimed: Vec<(u32, Ns)>,
    /// Counts changes of the per-chip GC flags (`chip_in_gc`).
    gc_epoch: u64,
    /// Times a host read those flags (checks the `observes_device` hint).
    gc_flag_reads: std::cell::Cell<u64>,
    /// Hints are checked, not trusted (`verify_hints`); the first wrong one.
    verify_hints: bool,
    hint_error: Option<String>,
    sched: Box<dyn TxScheduler>,
    sched_name: String,
    txs: TxArena,
    reqs: Vec<DevReq>,
    free_reqs: Vec<u32>,
    dirty: Vec<u32>,
    gc: Vec<GcJob>,
    /// Planes with GC running, per chip (for the host's oracle view).
    chip_gc: Vec<u32>,
    inflight: FxHashMap<u32, Inflight>,
    /// Transactions queued or running per die (dynamic allocation, stats).
    die_load: Vec<u32>,
    rr_die: u32,
    rr_plane: Vec<u32>,
    buffer: Option<WriteBuffer>,
    write_seq: u64,
    /// LPN of the last user page written (a prefetch hint only).
    last_write_lpn: u32,
    copyback: bool,
    /// Moves in flight per GC job (0 = the whole block at once).
    gc_window: u32,
    /// Requests that finished inside a call (DRAM hits, TRIM, buffered writes).
    done: Vec<u32>,
    par: Parallelism,
    /// Per-block program speeds (process variation), if enabled.
    variation: Option<Variation>,
    susp: SuspendTiming,
    /// Whether the scheduler may preempt (skips the suspension path if not).
    suspends: bool,
    /// The scheduler plans across dies (`prepare`/`wakes` are called).
    coordinates: bool,
    /// The scheduler's `pick(die)` sees only that die's queue (skipped when
    /// the die has no work).
    per_die: bool,
    wake_buf: Vec<u32>,
    /// Conflict accounting for the request being split: `chip_seen[c] ==
    /// req_stamp` once the request has a page on chip `c`.
    chip_seen: Vec<u64>,
    req_stamp: u64,
    req_touched: bool,
    /// What flash and DRAM did, for data-version oracles (off by default).
    op_log: Option<Box<OpTap>>,
    read_ids: u64,
}

impl Ssd {
    /// Build a device, preconditioned as `cfg.ftl.precondition_fill` asks.
    pub fn new(cfg: SsdSpec, seed: u64) -> SimResult<Ssd> {
        cfg.validate()?;
        let geo = Geometry::new(cfg.geometry);
        let mut ftl = Ftl::new(geo, cfg.ftl, seed)?;
        let precondition = ftl.precondition(cfg.ftl.precondition_fill, seed);
        let buffer_pages =
            (cfg.ftl.write_buffer_mib * 1024.0 * 1024.0 / geo.page_size as f64) as u32;
        let timing = Timing::new(cfg.timing, geo.page_size);
        let xfer = timing.command + timing.xfer_page;
        let variation = cfg.variation.enabled.then(|| {
            let v = Variation::new(cfg.variation, geo.blocks(), ftl.erase_counts(), seed);
            let keys = (0..geo.blocks())
                .map(|b| v.program_ns(b, timing.program).min(u32::MAX as u64) as u32)
                .collect();
            ftl.enable_speed_order(keys);
            v
        });
        let c = cfg.controller;
        let us = |x: f64| (x * 1000.0).round() as Ns;
        let sched = sched::build_named(&c.scheduler, &c.sched, &geo)?;
        let caps = sched.caps();
        Ok(Ssd {
            sched_name: c.scheduler.clone(),
            suspends: caps.suspends,
            coordinates: caps.coordinates,
            per_die: caps.per_die,
            sched,
            timing,
            par: Parallelism::new(&geo),
            variation,
            susp: SuspendTiming {
                program_loops: c.program_loops as u64,
                erase_loops: c.erase_loops as u64,
                suspend: us(c.suspend_us),
                resume: us(c.resume_us),
            },
            wake_buf: Vec::new(),
            chip_seen: vec![0; geo.chips() as usize],
            req_stamp: 0,
            req_touched: false,
            op_log: None,
            read_ids: 0,
            dies: vec![Die::default(); geo.dies() as usize],
            channels: vec![Channel::new(xfer); geo.channels as usize],
            decide_stamp: 0,
            retimed: Vec::new(),
            gc_epoch: 0,
            gc_flag_reads: Default::default(),
            verify_hints: false,
            hint_error: None,
            txs: TxArena::default(),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            dirty: Vec::new(),
            gc: vec![GcJob::default(); geo.planes() as usize],
            chip_gc: vec![0; geo.chips() as usize],
            inflight: FxHashMap::default(),
            die_load: vec![0; geo.dies() as usize],
            rr_die: 0,
            rr_plane: vec![0; geo.dies() as usize],
            buffer: (buffer_pages > 0).then(|| WriteBuffer {
                capacity: buffer_pages,
                ..Default::default()
            }),
            write_seq: 0,
            last_write_lpn: 0,
            copyback: cfg.ftl.copyback,
            gc_window: cfg.ftl.gc_move_window,
            done: Vec::new(),
            stats: DeviceStats::default(),
            precondition,
            ftl,
            geo,
        })
    }

    /// Check the scheduler's hints instead of trusting them (before the
    /// first request; the hint property tests): skip nothing `per_die` or
    /// `coordinates` would skip, and make a scheduler that does not declare
    /// `suspends` an error if it preempts when offered the chance.
    pub fn verify_hints(&mut self) {
        let caps = TxCaps {
            suspends: self.suspends,
            coordinates: self.coordinates,
            per_die: self.per_die,
        }
        .conservative();
        self.coordinates = caps.coordinates;
        self.per_die = caps.per_die;
        self.verify_hints = true;
    }

    /// The transaction scheduler's registered name.
    pub fn sched_name(&self) -> &str {
        &self.sched_name
    }

    /// Logical capacity in bytes.
    pub fn logical_bytes(&self) -> u64 {
        self.ftl.logical_pages as u64 * self.geo.page_size as u64
    }

    /// Times a host scheduler read the per-chip GC flags.
    pub fn gc_flag_reads(&self) -> u64 {
        self.gc_flag_reads.get()
    }

    /// Changes with every GC job that starts or ends.
    #[inline]
    pub fn gc_epoch(&self) -> u64 {
        self.gc_epoch
    }

    /// Whether requests finished and wait to be collected.
    pub fn has_done(&self) -> bool {
        !self.done.is_empty()
    }

    /// Whether a decide phase has anything to do on the device side:
    /// requests to report, dies to offer work, or a scheduler that plans at
    /// every step. When false, `schedule` returns at once.
    #[inline]
    pub fn needs_decide(&self) -> bool {
        !self.done.is_empty() || !self.dirty.is_empty() || self.coordinates
    }

    /// Requests completed since the last call (host ids).
    pub fn take_done(&mut self, out: &mut Vec<u32>) {
        if !self.done.is_empty() {
            out.append(&mut self.done);
        }
    }

    /// Whether the device has no queued or running work.
    pub fn is_idle(&self) -> bool {
        self.txs.is_empty() && self.buffer.as_ref().is_none_or(|b| b.waiting.is_empty())
    }

    /// Busy time per die (ns).
    pub fn die_busy_ns(&self) -> Vec<Ns> {
        self.dies.iter().map(|d| d.busy_ns).collect()
    }

    /// (busy ns, transfers, conflicts) per channel.
    pub fn channel_stats(&self) -> Vec<(Ns, u64, u64)> {
        self.channels
            .iter()
            .map(|c| (c.busy_ns, c.transfers, c.conflicts))
            .collect()
    }

    /// Transactions queued in the scheduler.
    pub fn queued_txs(&self) -> usize {
        self.sched.pending()
    }

    /// (FLP, SLP in chips, SLP in channels); see `parallel.rs`.
    pub fn parallelism(&self) -> (f64, f64, f64) {
        self.par.means()
    }

    /// Pin `block`'s program latency (process variation must be enabled):
    /// for worked examples and experiments.
    pub fn set_block_program_us(&mut self, block: u32, us: f64) -> SimResult<()> {
        let base = self.timing.program;
        let v = self.variation.as_mut().ok_or_else(|| {
            SimError::config("variation.enabled", "block speeds need the variation model")
        })?;
        if block >= self.geo.blocks() {
            return Err(SimError::Invalid(format!("no block {block}")));
        }
        let ns = (us * 1000.0).round() as Ns;
        v.set_program_ns(block, ns, base);
        self.ftl
            .set_block_speed(block, ns.min(u32::MAX as u64) as u32);
        Ok(())
    }

    /// Program latency of `block` at nominal speed (variation applied).
    pub fn block_program_ns(&self, block: u32) -> Ns {
        match &self.variation {
            Some(v) => v.program_ns(block, self.timing.program),
            None => self.timing.program,
        }
    }

    /// Start recording flash/DRAM data movements (see `oplog.rs`).
    pub fn enable_op_log(&mut self) {
        self.op_log.get_or_insert_with(Default::default).log = Some(Vec::new());
    }

    /// The records so far (empty if logging is off).
    pub fn take_op_log(&mut self) -> Vec<OpRecord> {
        self.op_log
            .as_mut()
            .and_then(|t| t.log.as_mut())
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Check every data movement as it happens (see `check/`): call before
    /// the first request; the flash contents left by preconditioning are
    /// the checker's starting point.
    pub fn enable_check(&mut self) {
        let c = Checker::new(&self.ftl);
        self.op_log.get_or_insert_with(Default::default).check = Some(c);
    }

    /// The checker (if enabled) and the FTL it audits.
    pub fn checker(&mut self) -> Option<(&mut Checker, &Ftl)> {
        let c = self.op_log.as_mut()?.check.as_mut()?;
        Some((c, &self.ftl))
    }

    #[inline(always)]
    fn log(&mut self, r: OpRecord) {
        if let Some(t) = &mut self.op_log {
            t.push(r);
        }
    }

    /// tPROG of page `ppn` (page type and process variation applied).
    #[inline]
    fn program_ns(&self, ppn: u32) -> Ns {
        let t = self.timing.program_ns(self.geo.page_in_block(ppn));
        match &self.variation {
            Some(v) => v.program_ns(self.geo.block_of(ppn), t),
            None => t,
        }
    }

    /// The newest written version of `lpn` is still in controller DRAM.
    #[inline]
    fn in_dram(&self, lpn: u32) -> bool {
        self.inflight.get(&lpn).is_some_and(|e| !e.newest_done)
    }

    /// Chip `chip` holds queued or running transactions.
    #[inline]
    fn chip_loaded(&self, chip: u32) -> bool {
        let n = self.geo.dies_per_chip;
        (chip * n..(chip + 1) * n).any(|d| self.die_load[d as usize] > 0)
    }

    /// Conflict accounting for the page of the request being split on `die`
    /// (first page per chip only); returns whether it conflicts.
    fn note_chip(&mut self, die: u32) -> bool {
        let chip = self.geo.chip_of_die(die);
        self.req_touched = true;
        let seen = &mut self.chip_seen[chip as usize];
        if *seen == self.req_stamp {
            return false;
        }
        *seen = self.req_stamp;
        self.chip_loaded(chip)
    }

    /// Start conflict accounting for a new request (stamps start at 1, so a
    /// fresh `chip_seen` of zeros means "not seen").
    #[inline]
    fn begin_conflict_scan(&mut self) {
        self.req_stamp += 1;
        self.req_touched = false;
    }

    fn new_req(&mut self, host: u32) -> u32 {
        let r = DevReq { host, remaining: 0 };
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    #[inline]
    fn lpn_range(&self, offset: u64, size: u32) -> (u64, u64) {
        let first = self.geo.page_of_byte(offset);
        let last = self.geo.page_of_byte(offset + size.max(1) as u64 - 1);
        (first, last)
    }

    #[inline]
    fn page_count(&self, offset: u64, size: u32) -> u32 {
        let (a, b) = self.lpn_range(offset, size);
        (b - a + 1) as u32
    }

    #[inline]
    fn fold(&self, lpn: u64) -> u32 {
        let n = self.ftl.logical_pages as u64;
        (if lpn < n { lpn } else { lpn % n }) as u32
    }

    /// A request will arrive soon: fetch its mapping entries into the CPU
    /// cache (one per cache line of the table), so its submission does not
    /// wait on memory. A hint only: results do not depend on it.
    pub fn prefetch_request(&self, op: Op, offset: u64, size: u32) {
        if op == Op::Trim {
            return;
        }
        let (a, b) = self.lpn_range(offset, size);
        // 16 entries per 64-byte line; long requests: the first few lines.
        for lpn in (a..=b.min(a + 63)).step_by(16).chain([b]) {
            self.ftl.prefetch_lookup(self.fold(lpn));
        }
    }

    /// Accept a request from the host (`host` is its id).
    pub fn submit(&mut self, host: u32, op: Op, offset: u64, size: u32, now: Ns) {
        let r = self.new_req(host);
        self.log(OpRecord::Submit {
            req: host,
            op,
            offset,
            size,
        });
        match op {
            Op::Read => self.submit_read(r, offset, size, now),
            Op::Write => {
                let pages = self.page_count(offset, size);
                match &mut self.buffer {
                    None => self.submit_write(r, offset, size, now),
                    Some(buf) => {
                        if buf.waiting.is_empty()
                            && (buf.used + pages <= buf.capacity || buf.used == 0)
                        {
                            buf.used += pages;
                            self.submit_write(r, offset, size, now);
                            self.finish_req(r); // acknowledged from DRAM
                        } else {
                            buf.waiting.push_back((r, offset, size, pages));
                        }
                    }
                }
            }
            Op::Trim => {
                let ps = self.geo.page_size as u64;
                // Only whole pages are discarded.
                let first = offset.div_ceil(ps);
                let end = (offset + size as u64) / ps;
                for lpn in first..end {
                    let l = self.fold(lpn);
                    self.log(OpRecord::Trim { lpn: l });
                    self.ftl.trim(l, now);
                    // Writes of `l` submitted before the TRIM must not land
                    // after it: their programs become stale (as if superseded
                    // by a newer write) and reads stop going to DRAM.
                    if let Some(e) = self.inflight.get_mut(&l) {
                        self.write_seq += 1;
                        e.issued_seq = self.write_seq;
                        e.newest = self.write_seq;
                        e.newest_done = true;
                    }
                }
            }
        }
        // Buffered writes were acknowledged (or parked) above.
        let buffered = op == Op::Write && self.buffer.is_some();
        if !buffered && self.reqs[r as usize].remaining == 0 {
            self.finish_req(r);
        }
    }

    fn finish_req(&mut self, r: u32) {
        let req = self.reqs[r as usize];
        if req.host != NONE {
            self.done.push(req.host);
            self.reqs[r as usize].host = NONE;
            self.log(OpRecord::Complete { req: req.host });
        }
        if req.remaining == 0 {
            self.free_reqs.push(r);
        }
    }

    fn submit_read(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (a, b) = self.lpn_range(offset, size);
        self.begin_conflict_scan();
        let mut conflict = false;
        for lpn in a..=b {
            let lpn = self.fold(lpn);
            let read_id = self.read_ids;
            if self.op_log.is_some() {
                self.read_ids += 1;
                let req = self.reqs[r as usize].host;
                self.log(OpRecord::Read {
                    id: read_id,
                    lpn,
                    req,
                });
            }
            if self.in_dram(lpn) {
                self.stats.dram_read_hits += 1;
                self.log(OpRecord::DramHit { id: read_id, lpn });
                continue;
            }
            let ppn = match self.ftl.lookup(lpn) {
                Some(p) => p,
                // Deallocated by TRIM: zeros, no flash access.
                None if self.ftl.is_trimmed(lpn) => {
                    self.log(OpRecord::Unmapped { id: read_id });
                    continue;
                }
                None => match self.ftl.place_untimed(lpn) {
                    Some(p) => {
                        self.log(OpRecord::Program {
                            ppn: p,
                            lpn,
                            seq: 0,
                        });
                        // A placement that opened a block took a free one: GC
                        // must see it, or writes to this plane can block forever.
                        if self.geo.page_in_block(p) == 0 {
                            self.maybe_start_gc(self.geo.plane_of(p), now);
                        }
                        p
                    }
                    // Plane full: read some page of the right plane, unmapped.
                    None => {
                        self.log(OpRecord::Unplaced { id: read_id });
                        self.geo
                            .first_ppn(self.ftl.static_plane(lpn) * self.geo.blocks_per_plane)
                    }
                },
            };
            let plane = self.geo.plane_of(ppn);
            let tx = Tx {
                kind: TxKind::Read,
                origin: Origin::User,
                copyback: false,
                die: self.geo.die_of_plane(plane),
                plane,
                lpn,
                ppn,
                owner: r,
                epoch: self.ftl.erase_count(self.geo.block_of(ppn)),
                // User reads carry their oracle id (unused otherwise).
                seq: read_id,
                enqueued: now,
            };
            conflict |= self.note_chip(tx.die);
            self.reqs[r as usize].remaining += 1;
            self.enqueue(tx, now);
        }
        if self.req_touched {
            self.stats.read_requests += 1;
            self.stats.read_conflicts += conflict as u64;
        }
    }

    fn submit_write(&mut self, r: u32, offset: u64, size: u32, now: Ns) {
        let (a, b) = self.lpn_range(offset, size);
        self.begin_conflict_scan();
        let mut conflict = false;
        for lpn in a..=b {
            let lpn = self.fold(lpn);
            // Its mapping, then the old copy's reverse entry, are updated
            // when its program starts: fetch them ahead, in two stages.
            self.ftl.prefetch_lookup(lpn);
            self.ftl.prefetch_remap(self.last_write_lpn);
            self.last_write_lpn = lpn;
            let plane = self.write_plane(lpn);
            self.write_seq += 1;
            let seq = self.write_seq;
            self.log(OpRecord::Write { lpn, seq });
            let e = self.inflight.entry(lpn).or_default();
            e.pending += 1;
            e.newest = self.write_seq;
            e.newest_done = false;
            let tx = Tx {
                kind: TxKind::Program,
                origin: Origin::User,
                copyback: false,
                die: self.geo.die_of_plane(plane),
                plane,
                lpn,
                ppn: NONE,
                owner: r,
                epoch: 0,
                seq: self.write_seq,
                enqueued: now,
            };
            conflict |= self.note_chip(tx.die);
            self.reqs[r as usize].remaining += 1;
            self.enqueue(tx, now);
        }
        self.stats.write_requests += 1;
        self.stats.write_conflicts += conflict as u64;
    }

    /// Plane for a user write of `lpn`.
    fn write_plane(&mut self, lpn: u32) -> u32 {
        match self.ftl.alloc {
            Allocation::Static { .. } => self.ftl.static_plane(lpn),
            Allocation::Dynamic => {
                // Least-loaded die, scanning round-robin from the last choice.
                let n = self.geo.dies();
                let mut best = self.rr_die % n;
                for k in 1..n {
                    let d = (self.rr_die + k) % n;
                    if self.die_load[d as usize] < self.die_load[best as usize] {
                        best = d;
                    }
                }
                self.rr_die = best + 1;
                let p = &mut self.rr_plane[best as usize];
                *p = (*p + 1) % self.geo.planes_per_die;
                best * self.geo.planes_per_die + *p
            }
        }
    }

    fn enqueue(&mut self, tx: Tx, now: Ns) {
        self.decide_stamp += 1;
        let die = tx.die;
        let id = self.txs.insert(tx);
        self.die_load[die as usize] += 1;
        self.sched.push(id, &tx, now);
        // A busy die is re-marked when it frees; only a suspending scheduler
        // needs to see new work arrive at a busy die (to preempt it).
        if self.suspends || self.dies[die as usize].is_idle() {
            self.mark(die);
        } else if self.verify_hints {
            self.check_no_preempt(die, now);
        }
    }

    #[inline]
    fn mark(&mut self, die: u32) {
        let d = &mut self.dies[die as usize];
        if !d.dirty {
            d.dirty = true;
            self.dirty.push(die);
        }
    }

    /// `verify_hints`: a scheduler that does not declare `suspends` is
    /// offered the suspension a suspending one would get; taking it is an
    /// error (marking the die instead would reorder the dies served).
    fn check_no_preempt(&mut self, die: u32, now: Ns) {
        let Some((_, running, _, remaining)) = self.suspend_point(die, now) else {
            return;
        };
        let ctx = PickCtx {
            now,
            txs: &self.txs,
            ftl: &self.ftl,
        };
        if self.sched.preempt(die, &running, remaining, &ctx).is_some() {
            self.hint_error.get_or_insert_with(|| {
                format!(
                    "transaction scheduler `{}` preempted a running operation but does not \
                     declare `suspends` in its caps",
                    self.sched_name
                )
            });
        }
    }

    /// Start work on every idle die that may have some. Call once per time
    /// step, after all events at that instant have been applied.
    pub fn schedule<S: EventSink>(&mut self, now: Ns, sink: &mut S) -> SimResult<()> {
        if let Some(e) = self.hint_error.take() {
            return Err(SimError::Invalid(e));
        }
        if !self.coordinates {
            return self.serve_dirty(now, sink);
        }
        // A planning scheduler sees work queued or started while dies are
        // served only at its next `prepare`; repeat until a pass changes
        // nothing, so what it decides at an instant does not depend on
        // whether some other event happens to share it.
        // Each pass that changes something moves queued work along, so this
        // ends; the bound turns a scheduler bug into an error, not a hang.
        for _ in 0..MAX_DECIDE_PASSES {
            let before = self.decide_stamp;
            let ctx = PickCtx {
                now,
                txs: &self.txs,
                ftl: &self.ftl,
            };
            self.sched.prepare(&ctx);
            self.drain_wakes();
            self.serve_dirty(now, sink)?;
            if self.decide_stamp == before {
                return Ok(());
            }
        }
        Err(SimError::Invalid(format!(
            "transaction scheduler `{}` kept changing its plan at t={now} ns ({MAX_DECIDE_PASSES} passes)",
            self.sched_name
        )))
    }

    /// Serve the marked dies in the order they were marked (deterministic
    /// and fair); dies marked while serving join the end of the list.
    fn serve_dirty<S: EventSink>(&mut self, now: Ns, sink: &mut S) -> SimResult<()> {
        let mut i = 0;
        while i < self.dirty.len() {
            let die = self.dirty[i];
            i += 1;
            self.schedule_die(die, now, sink)?;
            if self.coordinates {
                self.drain_wakes();
            }
        }
        self.dirty.clear();
        Ok(())
    }

    /// Mark the dies the scheduler asked to be offered work.
    fn drain_wakes(&mut self) {
        self.sched.wakes(&mut self.wake_buf);
        self.decide_stamp += self.wake_buf.len() as u64;
        for i in 0..self.wake_buf.len() {
            let d = self.wake_buf[i];
            self.mark(d);
        }
        self.wake_buf.clear();
    }

    fn schedule_die<S: EventSink>(&mut self, die: u32, now: Ns, sink: &mut S) -> SimResult<()> {
        self.dies[die as usize].dirty = false;
        if self.suspends && !self.dies[die as usize].is_idle() {
            return self.try_suspend(die, now, sink);
        }
        while self.dies[die as usize].is_idle() {
            if let Some((sid, remaining)) = self.dies[die as usize].suspended {
                // A suspended P/E: serve what the scheduler preempts with, then resume.
                let running = *self.txs.get(sid);
                let ctx = PickCtx {
                    now,
                    txs: &self.txs,
                    ftl: &self.ftl,
                };
                if let Some(id) = self.sched.preempt(die, &running, remaining, &ctx) {
                    self.start(id, now, sink)?;
                    continue;
                }
                self.resume(die, now, sink);
                break;
            }
            // Nothing queued or running here (an idle die has nothing
            // running, and a suspended operation would count).
            if self.per_die && self.die_load[die as usize] == 0 {
                break;
            }
            let ctx = PickCtx {
                now,
                txs: &self.txs,
                ftl: &self.ftl,
            };
            let Some(id) = self.sched.pick(die, &ctx) else {
                break;
            };
            self.start(id, now, sink)?;
        }
        Ok(())
    }

    /// P/E suspension (Wu & He, FAST'12; baselines.md §4): if `die` is in
    /// the cell phase of a program or erase and nothing is suspended on it,
    /// offer the scheduler the chance to run a queued transaction at the next
    /// phase boundary (ISPP loop / erase pulse).
    fn try_suspend<S: EventSink>(&mut self, die: u32, now: Ns, sink: &mut S) -> SimResult<()> {
        let Some((sid, running, boundary, remaining)) = self.suspend_point(die, now) else {
            return Ok(());
        };
        let ctx = PickCtx {
            now,
            txs: &self.txs,
            ftl: &self.ftl,
        };
        let Some(id) = self.sched.preempt(die, &running, remaining, &ctx) else {
            return Ok(());
        };
        self.stats.suspensions += 1;
        self.release_die(die as usize, now);
        let d = &mut self.dies[die as usize];
        d.suspended = Some((sid, remaining));
        d.not_before = boundary + self.susp.suspend;
        self.start(id, now, sink)?;
        // The preempting transaction may not have needed the die (DRAM hit,
        // moved read): serve more or resume.
        if self.dies[die as usize].is_idle() {
            self.schedule_die(die, now, sink)?;
        }
        Ok(())
    }

    /// Where the program or erase running on `die` could be suspended: its
    /// transaction, the next phase boundary (ISPP loop / erase pulse) and
    /// the time left after it. `None` if nothing suspendable runs.
    fn suspend_point(&self, die: u32, now: Ns) -> Option<(TxId, Tx, Ns, Ns)> {
        let d = &self.dies[die as usize];
        // Not before a program's data-in transfer has ended.
        if d.phase != Phase::Array || d.suspended.is_some() || now < d.xfer_end {
            return None;
        }
        let running = *self.txs.get(d.tx);
        let loops = match running.kind {
            TxKind::Program => self.susp.program_loops,
            TxKind::Erase => self.susp.erase_loops,
            TxKind::Read => return None,
        };
        let (start, end) = (d.op_start, d.op_end);
        let phase = (end - start).div_ceil(loops).max(1);
        let boundary = (start + (now.saturating_sub(start)).div_ceil(phase) * phase).min(end);
        let remaining = end - boundary;
        (remaining > 0).then_some((d.tx, running, boundary, remaining))
    }

    /// Resume the suspended operation on idle `die`.
    fn resume<S: EventSink>(&mut self, die: u32, now: Ns, sink: &mut S) {
        let Some((sid, remaining)) = self.dies[die as usize].suspended.take() else {
            return;
        };
        self.stats.resumes += 1;
        self.occupy(die as usize, sid, Phase::Array, now);
        self.arm(die as usize, self.susp.resume + remaining, now, sink);
    }

    /// Take idle `die` for transaction `id`.
    #[inline]
    fn occupy(&mut self, die: usize, id: TxId, phase: Phase, now: Ns) {
        self.dies[die].occupy(id, phase, now);
        self.par.take(&self.geo, die as u32, now);
    }

    /// Free `die`.
    #[inline]
    fn release_die(&mut self, die: usize, now: Ns) {
        self.dies[die].release(now);
        self.par.free(&self.geo, die as u32, now);
    }

    /// Plan the cell phase (`dur` ns) of the transaction holding `die` from
    /// `from` (or when a suspension lets it); returns its end.
    #[inline]
    fn plan_cell(&mut self, die: usize, dur: Ns, from: Ns) -> Ns {
        let d = &mut self.dies[die];
        let t0 = from.max(d.not_before);
        d.phase = Phase::Array;
        d.op_start = t0;
        d.op_end = t0 + dur;
        d.op_end
    }

    /// Begin the cell phase, ending with a DieDone event.
    #[inline]
    fn arm<S: EventSink>(&mut self, die: usize, dur: Ns, from: Ns, sink: &mut S) {
        let end = self.plan_cell(die, dur, from);
        let ev = self.die_event(die);
        sink.push(end, ev);
    }

    /// Begin transaction `id` on its (idle) die.
    fn start<S: EventSink>(&mut self, id: TxId, now: Ns, sink: &mut S) -> SimResult<()> {
        self.decide_stamp += 1;
        let tx = *self.txs.get(id);
        let die = tx.die as usize;
        let cmd = self.timing.command;
        match (tx.kind, tx.origin) {
            (TxKind::Read, origin) => {
                let mut busy = 0;
                if tx.copyback {
                    // On-die move: destination allocated now, programmed after tR.
                    let Some(dst) = self.gc_destination(id, &tx, now)? else {
                        return Ok(());
                    };
                    self.stats.flash_programs += 1;
                    busy = self.program_ns(dst);
                }
                let Some(ppn) = self.resolve_read(id, &tx, now)? else {
                    return Ok(());
                };
                if origin == Origin::User {
                    self.stats.user_reads += 1;
                    // Write-caused interference: a program/erase held the die
                    // after this read arrived.
                    if self.dies[die].pe_release > tx.enqueued {
                        self.stats.interfered_reads += 1;
                        self.stats.interference_wait_ns += now - tx.enqueued;
                    }
                    self.log(OpRecord::Sense { id: tx.seq, ppn });
                } else {
                    self.stats.gc_reads += 1;
                }
                self.stats.flash_reads += 1;
                busy += self.timing.read_ns(self.geo.page_in_block(ppn));
                self.occupy(die, id, Phase::Array, now);
                if tx.copyback || self.timing.xfer_page == 0 {
                    self.arm(die, cmd + busy, now, sink);
                } else {
                    self.begin_read_out(die, cmd + busy, now, sink);
                }
            }
            (TxKind::Program, Origin::User) => {
                let pref = self.sched.alloc_pref(id, &tx);
                let ppn = self.ftl.alloc_pref(tx.plane, pref).ok_or_else(|| {
                    SimError::Invalid("scheduler started a program with no free page".into())
                })?;
                let entry = self.inflight.entry(tx.lpn).or_default();
                if entry.issued_seq > tx.seq {
                    self.ftl.program_stale(ppn, now);
                    self.stats.superseded_programs += 1;
                } else {
                    entry.issued_seq = tx.seq;
                    self.ftl.map_user_write(tx.lpn, ppn, now);
                }
                self.log(OpRecord::Program {
                    ppn,
                    lpn: tx.lpn,
                    seq: tx.seq,
                });
                self.txs.get_mut(id).ppn = ppn;
                self.stats.flash_programs += 1;
                self.begin_program(id, die, now, sink);
                self.maybe_start_gc(tx.plane, now);
            }
            (TxKind::Program, Origin::Gc) => {
                let Some(dst) = self.gc_destination(id, &tx, now)? else {
                    return Ok(());
                };
                self.txs.get_mut(id).ppn = dst;
                self.stats.flash_programs += 1;
                self.begin_program(id, die, now, sink);
            }
            (TxKind::Erase, _) => {
                self.log(OpRecord::EraseStart { block: tx.ppn });
                self.occupy(die, id, Phase::Array, now);
                self.arm(die, cmd + self.timing.erase, now, sink);
            }
        }
        Ok(())
    }

    fn die_event(&self, die: usize) -> DevEvent {
        DevEvent::DieDone {
            die: die as u32,
            gen: self.dies[die].gen,
        }
    }

    /// A program: data in over the bus (if any), then tPROG. The transfer is
    /// reserved now, so the program's end is known and scheduled at once.
    fn begin_program<S: EventSink>(&mut self, id: TxId, die: usize, now: Ns, sink: &mut S) {
        let cmd = self.timing.command;
        let t_prog = self.program_ns(self.txs.get(id).ppn);
        self.occupy(die, id, Phase::Array, now);
        if self.timing.xfer_page == 0 {
            self.arm(die, cmd + t_prog, now, sink);
        } else {
            let ch = self.geo.channel_of_die(die as u32);
            let end = self.channels[ch as usize].reserve(now, &mut self.retimed);
            self.push_retimed(ch, sink);
            self.dies[die].xfer_end = end;
            self.arm(die, t_prog, end, sink);
        }
    }

    /// A read's sense (`sense` ns from `now`, or when a suspension lets it),
    /// then its data-out, entered in the channel's timeline now; the read
    /// completes when the transfer ends (no event at the sense's end).
    fn begin_read_out<S: EventSink>(&mut self, die: usize, sense: Ns, now: Ns, sink: &mut S) {
        let ready = self.plan_cell(die, sense, now);
        let ch = self.geo.channel_of_die(die as u32);
        self.channels[ch as usize].add_readout(ready, die as u32, &mut self.retimed);
        self.push_retimed(ch, sink);
    }

    /// (Re)schedule the completion of data-outs whose end changed; events
    /// already queued for them go stale.
    #[inline]
    fn push_retimed<S: EventSink>(&mut self, ch: u32, sink: &mut S) {
        for i in 0..self.retimed.len() {
            let (die, end) = self.retimed[i];
            let d = &mut self.dies[die as usize];
            d.gen = d.gen.wrapping_add(1);
            sink.push(
                end,
                DevEvent::BusDone {
                    ch,
                    die,
                    gen: d.gen,
                },
            );
        }
        self.retimed.clear();
    }

    /// Check a read's page right before sensing it. Returns the page to read,
    /// or `None` if the read needs no flash access (or moved to another die).
    fn resolve_read(&mut self, id: TxId, tx: &Tx, now: Ns) -> SimResult<Option<u32>> {
        if tx.origin == Origin::Gc {
            // A GC read whose page was overwritten meanwhile has nothing to move
            // (copyback moves were checked when their destination was taken).
            if !tx.copyback && self.ftl.owner(tx.ppn) != Some(tx.lpn) {
                self.finish_gc_move(id, tx.owner, now);
                return Ok(None);
            }
            return Ok(Some(tx.ppn));
        }
        let block = self.geo.block_of(tx.ppn);
        // With P/E suspension a read can run while its own block's erase is
        // suspended (EAR): its data was moved, so it must look again.
        let erasing = matches!(self.dies[tx.die as usize].suspended,
            Some((sid, _)) if { let s = self.txs.get(sid); s.kind == TxKind::Erase && s.ppn == block });
        if self.ftl.erase_count(block) == tx.epoch && !erasing {
            return Ok(Some(tx.ppn));
        }
        // The block was erased after translation: the data lives elsewhere now.
        self.stats.reads_relocated += 1;
        if self.in_dram(tx.lpn) {
            self.stats.dram_read_hits += 1;
            self.log(OpRecord::DramHit {
                id: tx.seq,
                lpn: tx.lpn,
            });
            self.complete(id, now)?;
            return Ok(None);
        }
        match self.ftl.lookup(tx.lpn) {
            None => {
                self.log(OpRecord::Unmapped { id: tx.seq });
                self.complete(id, now)?;
                Ok(None)
            }
            Some(p) => {
                let plane = self.geo.plane_of(p);
                let t = self.txs.get_mut(id);
                t.ppn = p;
                t.plane = plane;
                t.epoch = self.ftl.erase_count(self.geo.block_of(p));
                let new_die = self.geo.die_of_plane(plane);
                if new_die == tx.die {
                    Ok(Some(p))
                } else {
                    t.die = new_die;
                    let moved = *t;
                    self.die_load[tx.die as usize] -= 1;
                    self.die_load[new_die as usize] += 1;
                    self.decide_stamp += 1;
                    self.sched.push(id, &moved, now);
                    self.mark(new_die);
                    Ok(None)
                }
            }
        }
    }

    /// Allocate the destination of a GC move if the page is still live.
    fn gc_destination(&mut self, id: TxId, tx: &Tx, now: Ns) -> SimResult<Option<u32>> {
        if self.ftl.lookup(tx.lpn) != Some(tx.ppn) {
            self.finish_gc_move(id, tx.owner, now);
            return Ok(None);
        }
        let dst = self.ftl.alloc(tx.plane, Stream::Gc).ok_or_else(|| {
            SimError::Invalid(format!("GC in plane {} ran out of free pages", tx.plane))
        })?;
        self.ftl.gc_move(tx.lpn, tx.ppn, dst, now);
        self.log(OpRecord::GcCopy {
            from: tx.ppn,
            to: dst,
        });
        Ok(Some(dst))
    }

    /// A GC move finished (or turned out unnecessary) without holding a die.
    fn finish_gc_move(&mut self, id: TxId, plane: u32, now: Ns) {
        let tx = self.txs.remove(id);
        self.die_load[tx.die as usize] -= 1;
        self.gc_move_done(plane, now);
    }

    fn gc_move_done(&mut self, plane: u32, now: Ns) {
        let job = &mut self.gc[plane as usize];
        job.pending -= 1;
        if job.pending == 0 {
            job.moves = Vec::new();
            self.push_erase(plane, now);
        } else {
            self.issue_gc_moves(plane, 1, now);
        }
    }

    /// Queue up to `n` more moves of `plane`'s GC job.
    fn issue_gc_moves(&mut self, plane: u32, n: usize, now: Ns) {
        let die = self.geo.die_of_plane(plane);
        for _ in 0..n {
            let job = &mut self.gc[plane as usize];
            let Some(&(lpn, ppn)) = job.moves.get(job.next) else {
                return;
            };
            job.next += 1;
            // The list is read one move at a time over the whole job: keep
            // its next cache line coming.
            if let Some(e) = job.moves.get(job.next + 8) {
                crate::engine::prefetch(e);
            }
            // The read checks its page's owner when it starts and the program
            // looks up its mapping.
            self.ftl.prefetch_lookup(lpn);
            self.ftl.prefetch_owner(ppn);
            let tx = Tx {
                // Without copyback a move is a read, then a program queued
                // when the read completes.
                kind: TxKind::Read,
                origin: Origin::Gc,
                copyback: self.copyback,
                die,
                plane,
                lpn,
                ppn,
                owner: plane,
                epoch: 0,
                seq: 0,
                enqueued: now,
            };
            self.enqueue(tx, now);
        }
    }

    fn push_erase(&mut self, plane: u32, now: Ns) {
        let victim = self.gc[plane as usize].victim;
        let tx = Tx {
            kind: TxKind::Erase,
            origin: Origin::Gc,
            copyback: false,
            die: self.geo.die_of_plane(plane),
            plane,
            lpn: NONE,
            ppn: victim,
            owner: plane,
            epoch: 0,
            seq: 0,
            enqueued: now,
        };
        self.enqueue(tx, now);
    }

    /// Start a GC job in `plane` if it is below its free-block threshold.
    fn maybe_start_gc(&mut self, plane: u32, now: Ns) {
        if !self.ftl.gc_needed(plane) {
            return;
        }
        let Some(victim) = self.ftl.gc_begin(plane, now) else {
            return;
        };
        let chip = self.geo.chip_of_die(self.geo.die_of_plane(plane));
        self.chip_gc[chip as usize] += 1;
        self.gc_epoch += 1;
        let moves = self.ftl.valid_pages(victim);
        let n = moves.len();
        self.gc[plane as usize] = GcJob {
            victim,
            pending: n as u32,
            moves,
            next: 0,
        };
        if n == 0 {
            self.push_erase(plane, now);
            return;
        }
        let window = if self.gc_window == 0 {
            n
        } else {
            self.gc_window as usize
        };
        self.issue_gc_moves(plane, window, now);
    }

    /// Apply one of this device's events.
    pub fn handle(&mut self, ev: DevEvent, now: Ns) -> SimResult<()> {
        match ev {
            DevEvent::DieDone { die, gen } => {
                let d = &self.dies[die as usize];
                if d.gen != gen || d.phase != Phase::Array {
                    return Ok(()); // stale (suspended or re-issued operation)
                }
                let id = d.tx;
                self.complete(id, now)?;
            }
            DevEvent::BusDone { ch, die, gen } => {
                let d = &self.dies[die as usize];
                if d.gen != gen || d.is_idle() {
                    return Ok(()); // delayed and rescheduled
                }
                let id = d.tx;
                self.channels[ch as usize].finish_readout(die);
                self.complete(id, now)?;
            }
        }
        Ok(())
    }

    /// Transaction `id` is finished: free its die and advance its owner.
    fn complete(&mut self, id: TxId, now: Ns) -> SimResult<()> {
        let tx = self.txs.remove(id);
        let die = tx.die as usize;
        if self.dies[die].tx == id && !self.dies[die].is_idle() {
            self.release_die(die, now);
            if tx.kind != TxKind::Read {
                self.dies[die].pe_release = now;
            }
        }
        self.die_load[die] -= 1;
        self.mark(tx.die);
        match (tx.kind, tx.origin) {
            (TxKind::Read, Origin::User) => self.req_page_done(tx.owner),
            (TxKind::Program, Origin::User) => {
                if let Some(e) = self.inflight.get_mut(&tx.lpn) {
                    e.pending -= 1;
                    e.newest_done |= e.newest == tx.seq;
                    if e.pending == 0 {
                        self.inflight.remove(&tx.lpn);
                    }
                }
                self.log(OpRecord::ProgramDone {
                    lpn: tx.lpn,
                    seq: tx.seq,
                });
                self.req_page_done(tx.owner);
                self.release_buffer(now);
            }
            (TxKind::Read, Origin::Gc) if tx.copyback => self.gc_move_done(tx.plane, now),
            (TxKind::Read, Origin::Gc) => {
                let prog = Tx {
                    kind: TxKind::Program,
                    enqueued: now,
                    ..tx
                };
                self.enqueue(prog, now);
            }
            (TxKind::Program, Origin::Gc) => self.gc_move_done(tx.plane, now),
            (TxKind::Erase, _) if tx.lpn == RECLAIM => {
                self.ftl.erase_reclaimed(tx.ppn, now)?;
                self.log(OpRecord::Erase { block: tx.ppn });
            }
            (TxKind::Erase, _) => {
                // Victims only hold moved or invalidated pages by now; an
                // error here is an accounting bug and stops the run.
                self.ftl.erase(tx.ppn, now)?;
                self.log(OpRecord::Erase { block: tx.ppn });
                if let Some(v) = &mut self.variation {
                    // Write-speed detection after the erase (VIOS §3.1).
                    v.detect(tx.ppn, self.ftl.erase_count(tx.ppn));
                    let key = v.program_ns(tx.ppn, self.timing.program);
                    self.ftl
                        .set_block_speed(tx.ppn, key.min(u32::MAX as u64) as u32);
                }
                let chip = self.geo.chip_of_die(tx.die);
                self.chip_gc[chip as usize] -= 1;
                self.gc_epoch += 1;
                // Writes blocked on space in this plane (same die, already
                // marked) may proceed; more GC may be due.
                self.maybe_start_gc(tx.plane, now);
            }
        }
        Ok(())
    }

    /// Erase every written block that TRIM left without valid data, as timed
    /// erase operations on the dies (queued like GC erases). The serial array
    /// calls this after TRIMming a whole SSD, so erases happen only then
    /// (Kim et al., HotStorage'17 §2.2) and internal GC never has to.
    /// Returns the number of erases queued.
    pub fn erase_trimmed_blocks(&mut self, now: Ns) -> u32 {
        let mut n = 0;
        for plane in 0..self.geo.planes() {
            for block in self.ftl.take_reclaimable(plane) {
                let tx = Tx {
                    kind: TxKind::Erase,
                    origin: Origin::Gc,
                    copyback: false,
                    die: self.geo.die_of_plane(plane),
                    plane,
                    lpn: RECLAIM,
                    ppn: block,
                    owner: plane,
                    epoch: 0,
                    seq: 0,
                    enqueued: now,
                };
                self.enqueue(tx, now);
                n += 1;
            }
        }
        n
    }

    fn req_page_done(&mut self, r: u32) {
        let req = &mut self.reqs[r as usize];
        req.remaining -= 1;
        if req.remaining == 0 {
            self.finish_req(r);
        }
    }

    /// A buffered page reached flash: admit waiting writes that now fit.
    fn release_buffer(&mut self, now: Ns) {
        let Some(buf) = &mut self.buffer else { return };
        buf.used -= 1;
        // Admit waiting writes in order while they fit (issuing one does not
        // touch the buffer, so admitting and issuing can interleave).
        loop {
            let Some(buf) = &mut self.buffer else { return };
            let Some(&(r, offset, size, pages)) = buf.waiting.front() else {
                return;
            };
            if buf.used + pages > buf.capacity && buf.used > 0 {
                return;
            }
            buf.used += pages;
            buf.waiting.pop_front();
            self.submit_write(r, offset, size, now);
            self.finish_req(r);
        }
    }
}

impl DeviceView for Ssd {
    fn page_size(&self) -> u32 {
        self.geo.page_size
    }
    fn logical_bytes(&self) -> u64 {
        Ssd::logical_bytes(self)
    }
    fn chips(&self) -> u32 {
        self.geo.chips()
    }
    fn chip_in_gc(&self, chip: u32) -> bool {
        self.gc_flag_reads.set(self.gc_flag_reads.get() + 1);
        self.chip_gc.get(chip as usize).is_some_and(|&n| n > 0)
    }
    fn chip_of_lpn(&self, lpn: u64) -> Option<u32> {
        match self.ftl.alloc {
            Allocation::Static { .. } => {
                let plane = self.ftl.static_plane(self.fold(lpn));
                Some(self.geo.chip_of_die(self.geo.die_of_plane(plane)))
            }
            Allocation::Dynamic => None,
        }
    }
    fn planes(&self) -> u32 {
        self.geo.planes()
    }
}
