//! One SSD: splits host requests into page transactions (via the FTL), hands
//! them to the transaction scheduler, and runs them on dies and channel buses.
//! GC transactions go through the same scheduler and compete for the same
//! dies and buses as user I/O.
//!
//! Binding is late: a program gets its physical page when it starts on the
//! die (so pages in a block are always programmed in order and the mapping
//! matches flash), and a read re-checks its page when it starts (the block
//! may have been erased by GC since the read was translated).

mod buffer;
mod channel_dispatch;
mod hot_cold;
mod lpn_index;
mod page_lru;
use buffer::{Inflight, WriteBuffer};
use command::Commands;
use gc_job::GcJob;
mod command;
pub mod config;
mod decide;
mod event;
mod exec;
pub mod footprint;
mod front;
pub mod gc_gate;
mod gc_job;
mod gc_retry;
mod mapping;
pub mod parallel;
pub mod sched;
mod sector_masks;
mod shared_read;
mod stats;
mod submit;
mod suspend;
mod translate;
pub mod tx;
mod update_read;
mod write_pool;

use rustc_hash::FxHashMap;

use crate::check::record::{OpRecord, OpTap};
use crate::check::Checker;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::channel::Channel;
use crate::flash::die::Die;
use crate::flash::variation::Variation;
use crate::flash::{Geometry, Timing};
use crate::ftl::precondition::PreconditionReport;
use crate::ftl::{Allocation, Ftl, STREAMS};
use crate::io::DeviceView;
use config::CachePolicy;
pub use config::{ControllerConfig, SsdSpec};
pub use event::{DevEvent, EventSink, PackedEvent};
use parallel::Parallelism;
use sched::{TxCaps, TxScheduler};
pub use stats::DeviceStats;
use tx::TxArena;

/// What a transaction scheduler sees at `$now` (a macro, not a method, so
/// the scheduler itself can be borrowed mutably beside it).
macro_rules! pick_ctx {
    ($s:ident, $now:expr) => {
        pick_ctx!($s, $now, false)
    };
    ($s:ident, $now:expr, $user_only:expr) => {
        crate::device::sched::PickCtx {
            now: $now,
            txs: &$s.txs,
            ftl: &$s.ftl,
            multiplane: $s.cmds.multiplane,
            gate: &$s.gate,
            user_only: $user_only,
            chip_busy: $s.cmds.unit == crate::device::config::BusyUnit::Chip,
            dies: &$s.dies,
            queued_programs: &$s.queued_programs,
            lone_reads: $s.cmds.lone_reads,
        }
    };
}
pub(crate) use pick_ctx;

/// Decide passes a planning scheduler may take at one instant (`schedule`).
const MAX_DECIDE_PASSES: u32 = 100_000;

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
    /// Bytes the completion carries back to the host (a read's data).
    out_bytes: u32,
    /// Bytes (whole sectors) of a read answered from the DRAM cache.
    dram_bytes: u32,
    /// Its completion waited for flash: a transaction of its own, a flush
    /// it caused, or room in the write cache.
    flash: bool,
}

/// A chip entering (`in_gc`) or leaving GC: a GC job started in one of its
/// planes while none ran, or the last one ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcChange {
    /// When.
    pub at: Ns,
    /// The chip.
    pub chip: u32,
    /// Entering (true) or leaving (false) GC.
    pub in_gc: bool,
}

/// A simulated SSD.
pub struct Ssd {
    /// Flash array shape.
    pub geo: Geometry,
    /// Operation latencies.
    pub timing: Timing,
    /// Mapping, allocation and GC.
    pub ftl: Ftl,
    /// Device-side counters.
    pub stats: DeviceStats,
    /// How the device was preconditioned.
    pub precondition: PreconditionReport,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    /// Counts transactions queued or started and dies a scheduler woke: a
    /// decide pass that leaves it unchanged changed nothing.
    decide_stamp: u64,
    /// What each die and chip is running.
    cmds: Commands,
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
    /// Host link and DRAM timing.
    front: front::Front,
    /// Which transactions GC lets start (`ftl.gc_mode`).
    gate: gc_gate::GcGate,
    /// Planes with GC running, per chip (for the host's oracle view).
    chip_gc: Vec<u32>,
    /// Chips entering and leaving GC, when a GC detector is to be scored
    /// against them (`track_gc_changes`).
    gc_changes: Option<Vec<GcChange>>,
    inflight: FxHashMap<u32, Inflight>,
    /// Transactions queued or running per die (dynamic allocation, stats).
    die_load: Vec<u32>,
    /// The same per chip (the sum over its dies; `load_inc`, `load_dec`).
    chip_load: Vec<u32>,
    rr_die: u32,
    rr_plane: Vec<u32>,
    /// SSDsim's channel and chip tokens (`dynamic:idle-chip` placements).
    tokens: write_pool::Tokens,
    /// Host reads queued or running per page (`controller.shared_reads`).
    shared: Option<shared_read::SharedReads>,
    /// Host writes not placed yet (`ftl.allocation = "dynamic:idle-chip"`),
    /// oldest first, with when each was pooled.
    write_pool: std::collections::VecDeque<(tx::TxId, Ns)>,
    /// Lists reused by `place_pooled`.
    pool_scratch: write_pool::PoolScratch,
    /// Transactions released by a translation read (reused).
    parked_scratch: Vec<tx::Tx>,
    buffer: Option<WriteBuffer>,
    /// The `hot-cold` data cache (then `buffer` is none).
    hot_cold: Option<hot_cold::HotCold>,
    /// The cached mapping table, if the table does not all fit in DRAM.
    cmt: Option<mapping::MappingCache>,
    /// Partial pages' valid sectors (`ftl.update_reads`; none when off).
    update: Option<update_read::SectorState>,
    write_seq: u64,
    /// `controller.write_ack = "data-in"`: a user page counts as written
    /// when its data-in ends, not when it is programmed.
    ack_data_in: bool,
    /// LPN of the last user page written (a prefetch hint only).
    last_write_lpn: u32,
    copyback: bool,
    /// Moves in flight per GC job (0 = the whole block at once).
    gc_window: u32,
    /// Requests that finished inside a call (DRAM hits, TRIM, buffered writes).
    done: Vec<u32>,
    /// By host id: whether the last request finished under that id waited
    /// for no flash operation ([`Ssd::served_from_dram`]).
    from_dram: Vec<bool>,
    /// Programs queued, not started, per plane by the write stream they
    /// will take a page from (`gc_retry.rs`; `onfi-queued` offsets).
    queued_programs: Vec<[u32; STREAMS]>,
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
    /// The scheduler chooses per chip (`pick_chip`).
    chip_queues: bool,
    /// `controller.dispatch = "channel-idle"`: its per-channel state.
    chan_dispatch: Option<channel_dispatch::ChannelDispatch>,
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
        Ssd::new_keeping(cfg, seed, 0)
    }

    /// [`Ssd::new`], from a copy of this device's preconditioned state if
    /// the process kept one; on its second build the state is kept if kept
    /// states fit in `room` bytes with it (`ftl/kept.rs`: a sweep builds
    /// the same device run after run).
    pub fn new_keeping(cfg: SsdSpec, seed: u64, room: u64) -> SimResult<Ssd> {
        cfg.validate()?;
        let geo = Geometry::new(cfg.geometry);
        let (mut ftl, precondition) = crate::ftl::kept::preconditioned(geo, cfg.ftl, seed, room)?;
        let cmt = mapping::MappingCache::new(cfg.mapping, &geo, ftl.logical_pages);
        if let Some(c) = &cmt {
            ftl.add_hidden_pages(c.pages)?;
        }
        ftl.open_frontiers();
        let buffer_pages = (cfg.cache.mib * 1024.0 * 1024.0 / geo.page_size as f64) as u32;
        let hot_cold = cfg.cache.policy == CachePolicy::HotCold;
        let timing = Timing::new(cfg.timing, geo.page_size);
        let variation = cfg.variation.enabled.then(|| {
            let v = Variation::new(cfg.variation, geo.blocks(), ftl.erase_counts(), seed);
            let keys = (0..geo.blocks())
                .map(|b| v.program_ns(b, timing.program).min(u32::MAX as u64) as u32)
                .collect();
            ftl.enable_speed_order(keys);
            v
        });
        // Blocks opened before the trace do not count as GC checks.
        ftl.clear_gc_checks();
        let c = cfg.controller;
        let us = |x: f64| (x * 1000.0).round() as Ns;
        let sched = sched::build_named(&c.scheduler, &c.sched, &geo)?;
        let caps = sched.caps();
        Ok(Ssd {
            sched_name: c.scheduler.clone(),
            suspends: caps.suspends,
            coordinates: caps.coordinates,
            per_die: caps.per_die,
            chip_queues: caps.chip_queues,
            chan_dispatch: (c.dispatch == config::Dispatch::ChannelIdle)
                .then(|| channel_dispatch::ChannelDispatch::new(&geo)),
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
            // Channel-idle dispatch (MQSim) also serves waiting data-outs
            // by class.
            channels: vec![
                Channel::new(c.dispatch == config::Dispatch::ChannelIdle);
                geo.channels as usize
            ],
            decide_stamp: 0,
            cmds: Commands::new(c, &geo),
            gc_epoch: 0,
            gc_flag_reads: Default::default(),
            verify_hints: false,
            hint_error: None,
            txs: TxArena::default(),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            dirty: Vec::new(),
            gc: vec![GcJob::default(); (geo.planes() * ftl.gc_jobs_max) as usize],
            chip_gc: vec![0; geo.chips() as usize],
            gc_changes: None,
            front: front::Front::new(cfg.interface, cfg.cache),
            gate: gc_gate::GcGate::new(cfg.ftl.gc_mode, cfg.ftl.gc_block_unit, &geo),
            inflight: FxHashMap::default(),
            die_load: vec![0; geo.dies() as usize],
            chip_load: vec![0; geo.chips() as usize],
            rr_die: 0,
            // SSDsim's plane tokens start at plane 0 (`rr_plane` holds the
            // last plane taken).
            rr_plane: vec![
                match cfg.ftl.allocation {
                    Allocation::DynamicIdleChip => geo.planes_per_die - 1,
                    _ => 0,
                };
                geo.dies() as usize
            ],
            tokens: write_pool::Tokens::new(&geo),
            shared: cfg.controller.shared_reads.then(Default::default),
            write_pool: std::collections::VecDeque::new(),
            pool_scratch: write_pool::PoolScratch::default(),
            parked_scratch: Vec::new(),
            buffer: (buffer_pages > 0 && !hot_cold).then(|| {
                let spp = cfg.cache.sectors.then_some(geo.page_size / 512);
                let track = cfg.ftl.update_reads != crate::ftl::UpdateReads::Off;
                WriteBuffer::new(buffer_pages, cfg.cache.policy, spp, track)
            }),
            hot_cold: (buffer_pages > 0 && hot_cold)
                .then(|| hot_cold::HotCold::new(cfg.cache, &geo, buffer_pages)),
            cmt,
            update: update_read::SectorState::new(
                cfg.ftl.update_reads,
                geo.page_size,
                cfg.ftl.allocation,
                ftl.logical_pages,
            ),
            write_seq: 0,
            ack_data_in: c.write_ack == config::WriteAck::DataIn,
            last_write_lpn: 0,
            copyback: cfg.ftl.copyback,
            gc_window: cfg.ftl.gc_move_window,
            done: Vec::new(),
            from_dram: Vec::new(),
            queued_programs: vec![[0; STREAMS]; geo.planes() as usize],
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
            chip_queues: self.chip_queues,
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

    /// Entries of the cached mapping table (0: the whole table in DRAM).
    pub fn cmt_capacity(&self) -> u64 {
        self.cmt.as_ref().map_or(0, |c| c.capacity as u64)
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

    /// Record when each chip enters and leaves GC (the ground truth a host
    /// GC detector is scored against).
    pub fn track_gc_changes(&mut self) {
        self.gc_changes.get_or_insert_with(Vec::new);
    }

    /// Chips entering and leaving GC in time order (empty unless tracked).
    pub fn gc_changes(&self) -> &[GcChange] {
        self.gc_changes.as_deref().unwrap_or(&[])
    }

    /// A GC job started (`+1`) or ended (`-1`) on `chip`.
    fn chip_gc_step(&mut self, chip: u32, start: bool, now: Ns) {
        let n = &mut self.chip_gc[chip as usize];
        let was = *n > 0;
        if start {
            *n += 1;
        } else {
            *n -= 1;
        }
        let is = *n > 0;
        if was != is {
            if let Some(log) = &mut self.gc_changes {
                log.push(GcChange {
                    at: now,
                    chip,
                    in_gc: is,
                });
            }
        }
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
        !self.done.is_empty()
            || !self.dirty.is_empty()
            || self.coordinates
            || self.front.has_planned()
            || self.ftl.starved_retry_due()
            || self.hint_error.is_some()
    }

    /// Requests completed since the last call (host ids).
    pub fn take_done(&mut self, out: &mut Vec<u32>) {
        if !self.done.is_empty() {
            out.append(&mut self.done);
        }
    }

    /// Whether request `host`, finished (reported by [`Ssd::take_done`] and
    /// not yet reused), was served without waiting for any flash operation:
    /// from the DRAM cache or write buffer alone, TRIM, or reads shared with
    /// another read of the same page.
    pub fn served_from_dram(&self, host: u32) -> bool {
        self.from_dram.get(host as usize).copied().unwrap_or(false)
    }

    /// Whether the device has no queued or running work.
    pub fn is_idle(&self) -> bool {
        self.txs.is_empty()
            && self.front.open() == 0
            && self.buffer.as_ref().is_none_or(|b| b.waiting.is_empty())
            && self.hot_cold.as_ref().is_none_or(|h| h.waiting.is_empty())
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
        self.sched.pending() + self.write_pool.len()
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
            return Err(SimError::Invalid(format!("no block {block}")).into());
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

    /// Check mode, after an event batch: the first violation; an audit of
    /// the FTL against the checker's model when one is due.
    pub fn check_step(&mut self) -> Result<(), String> {
        let Some((c, ftl)) = self.checker() else {
            return Ok(());
        };
        if let Some(v) = c.violation() {
            return Err(v.to_string());
        }
        if c.audit_due() {
            c.audit(ftl)?;
        }
        Ok(())
    }

    /// Check mode, at the end of the run: the final checks and audit.
    pub fn check_finish(&mut self) -> Result<(), String> {
        match self.checker() {
            Some((c, ftl)) => c.finish(ftl),
            None => Ok(()),
        }
    }

    /// The checker (if enabled) and the FTL it audits.
    pub fn checker(&mut self) -> Option<(&mut Checker, &Ftl)> {
        let c = self.op_log.as_mut()?.check.as_mut()?;
        Some((c, &self.ftl))
    }

    #[inline(always)]
    pub(super) fn log(&mut self, r: OpRecord) {
        if let Some(t) = &mut self.op_log {
            t.push(r);
        }
    }

    /// tPROG of page `ppn` (page type and process variation applied).
    #[inline]
    pub(super) fn program_ns(&self, ppn: u32) -> Ns {
        let t = self.timing.program_ns(self.geo.page_in_block(ppn));
        match &self.variation {
            Some(v) => v.program_ns(self.geo.block_of(ppn), t),
            None => t,
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
            Allocation::Dynamic | Allocation::DynamicIdleChip => None,
        }
    }
    fn planes(&self) -> u32 {
        self.geo.planes()
    }
}
