//! One device as a simulation model: workload → host scheduler → device
//! queue → FTL → transaction scheduler → flash, run by the engine's driver
//! (`engine::advance`: every event of an instant, then one decide phase).

use std::time::Instant;

use crate::check::{self, invariants::RequestLedger};
use crate::config::DeviceConfig;
use crate::device::{DevEvent, EventSink, PackedEvent, Ssd};
use crate::engine::{self, Clock, EventQueue, Model, Ns, NS_PER_S};
use crate::error::{SimError, SimResult};
use crate::host::{BufferedLatency, Host};
use crate::io::Completion;
use crate::memory::{fmt_bytes, kept_room, Budget, Estimate, MemoryLimit};
use crate::metrics::summary::{FlashSummary, MappingSummary, PreconditionSummary};
use crate::metrics::{gc_detect, GcSummary, LatencySummary, Metrics, Records, Summary};
use crate::workload::{Feed, Workload};

/// What can happen in a one-device simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ev {
    /// The workload's next arrival.
    Workload,
    /// A timer the host scheduler asked for.
    HostTimer,
    /// The device's own event.
    Dev(DevEvent),
}

impl Ev {
    const WORKLOAD: u8 = PackedEvent::FIRST_FREE_TAG;
    const HOST_TIMER: u8 = PackedEvent::FIRST_FREE_TAG + 1;

    /// As queued (`PackedEvent`).
    #[inline(always)]
    fn pack(self) -> PackedEvent {
        match self {
            Ev::Dev(e) => e.pack(),
            Ev::Workload => PackedEvent::other(Self::WORKLOAD, 0),
            Ev::HostTimer => PackedEvent::other(Self::HOST_TIMER, 0),
        }
    }

    #[inline(always)]
    fn unpack(p: PackedEvent) -> Ev {
        match p.device() {
            Some(e) => Ev::Dev(e),
            None if p.tag() == Self::WORKLOAD => Ev::Workload,
            None => Ev::HostTimer,
        }
    }
}

struct QSink<'a>(&'a mut EventQueue<PackedEvent>);

impl EventSink for QSink<'_> {
    // Inlined at each of its few callers, so the event is packed and
    // stored from the registers it was built in.
    #[inline(always)]
    fn push(&mut self, at: Ns, ev: DevEvent) {
        self.0.push_ranked(at, ev.rank(), ev.pack());
    }
}

/// Run options that are not part of the device config.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Seed of every random choice in the run.
    pub seed: u64,
    /// Keep one row per request (needed for DataFrames and per-second p99).
    pub keep_records: bool,
    /// Check mode: version oracle and invariants (see `check/`).
    pub check: bool,
    /// Check the schedulers' fast-path hints (`HostCaps`, `TxCaps`) instead
    /// of trusting them: nothing is skipped and results must not change (the
    /// hint property tests).
    pub verify_hints: bool,
    /// The memory limit the run is estimated against before the device is
    /// built (`memory`): an error instead of an allocation failure.
    pub max_memory: MemoryLimit,
    /// At most this many per-request rows are held at once: the caller
    /// drains them with [`Simulation::take_records`] as the run goes (to
    /// stream them to a file), so the memory estimate counts only these.
    pub records_held: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 42,
            keep_records: true,
            check: false,
            verify_hints: false,
            max_memory: MemoryLimit::Available,
            records_held: None,
        }
    }
}

/// A configured single-device simulation.
pub struct Simulation {
    /// The resolved device config.
    pub cfg: DeviceConfig,
    /// Options the run was built with.
    pub opts: RunOptions,
    clock: Clock<PackedEvent>,
    workload: Box<dyn Workload>,
    feed: Feed,
    /// The host queue and its I/O scheduler.
    pub host: Host,
    /// The device.
    pub ssd: Ssd,
    /// What completed, and when.
    pub metrics: Metrics,
    done: Vec<u32>,
    finished_slots: Vec<crate::host::Slot>,
    /// Something the host sees happened at this instant (see `settle`).
    host_turn: bool,
    /// `Ssd::gc_epoch` when the host last saw it.
    gc_seen: u64,
    /// Host-interface invariants, in check mode.
    ledger: Option<Box<RequestLedger>>,
    /// What records and series may take (under a memory limit).
    budget: Option<Budget>,
}

impl Simulation {
    /// Build the device (preconditioning it) and attach `workload`.
    pub fn new(
        cfg: DeviceConfig,
        workload: Box<dyn Workload>,
        opts: RunOptions,
    ) -> SimResult<Simulation> {
        let t0 = Instant::now();
        let records = opts
            .keep_records
            .then(|| workload.expected_requests())
            .flatten();
        let records = match (records, opts.records_held) {
            (Some(n), Some(held)) => Some(n.min(held)),
            (None, Some(held)) => Some(held),
            (n, None) => n,
        };
        let budget = Estimate::new(&cfg, 1, opts.check, records).admit(opts.max_memory)?;
        let room = kept_room(opts.max_memory, budget.as_ref());
        let mut ssd = Ssd::new_keeping(cfg.ssd(), opts.seed, room)?;
        let mut host = Host::new(&cfg.host, ssd.geo.chips(), ssd.logical_bytes())?;
        if host.sched.detector().is_some() {
            ssd.track_gc_changes();
        }
        if opts.verify_hints {
            ssd.verify_hints();
            host.use_caps(host.sched_caps().conservative());
        }
        let check = opts.check;
        let mut sim = Simulation {
            clock: Clock::default(),
            workload,
            feed: Feed::default(),
            host,
            ssd,
            metrics: Metrics::new(opts.keep_records),
            done: Vec::new(),
            finished_slots: Vec::new(),
            host_turn: true,
            gc_seen: 0,
            ledger: None,
            budget,
            cfg,
            opts,
        };
        if let Some(b) = &sim.budget {
            sim.metrics.set_budget(b.bytes);
        }
        if check {
            sim.enable_check();
        }
        sim.clock.add_wall(t0.elapsed());
        Ok(sim)
    }

    /// Turn check mode on (before the run starts): every read is checked
    /// against the version oracle and invariants are audited; the first
    /// violation stops the run with an error.
    pub fn enable_check(&mut self) {
        self.ssd.enable_check();
        self.ledger = Some(Box::default());
        self.opts.check = true;
    }

    /// Current simulated time.
    pub fn now(&self) -> Ns {
        self.clock.now()
    }

    /// The run has ended (no events and no workload left).
    pub fn is_finished(&self) -> bool {
        self.clock.is_finished()
    }

    /// Requests completed so far and the total expected (if known).
    pub fn progress(&self) -> (u64, Option<u64>) {
        (self.metrics.completed(), self.workload.expected_requests())
    }

    /// Run until finished.
    pub fn run(&mut self) -> SimResult<()> {
        while !self.advance(u64::MAX)? {}
        Ok(())
    }

    /// Process up to `max_steps` time steps; true once the run is finished.
    pub fn advance(&mut self, max_steps: u64) -> SimResult<bool> {
        engine::advance(self, max_steps)
    }

    /// The per-request rows recorded since the last call, leaving none held:
    /// a long run streams its records out in pieces this way (rows stay in
    /// the order they were recorded across pieces; no later row completes
    /// before [`completion_floor`](Self::completion_floor)).
    pub fn take_records(&mut self) -> Records {
        self.swap_records(Records::default())
    }

    /// Like [`take_records`](Self::take_records), recording on into
    /// `spare`'s vectors (`Metrics::swap_records`).
    pub fn swap_records(&mut self, spare: Records) -> Records {
        let floor = self.completion_floor();
        self.metrics.swap_records(spare, floor)
    }

    /// The earliest completion time a row recorded from now on can have:
    /// the clock, or under `host.buffered_latency = "from-dispatch"`, which
    /// times a request served from DRAM alone as if dispatched on arrival,
    /// the arrival of the oldest request the host holds, if earlier.
    pub fn completion_floor(&self) -> Ns {
        let now = self.clock.now();
        match self.host.buffered_latency {
            BufferedLatency::FromArrival => now,
            BufferedLatency::FromDispatch => self.host.oldest_arrival().map_or(now, |a| a.min(now)),
        }
    }

    /// The host's view changed at this instant: asked again in `settle`.
    #[inline]
    fn gc_seen_changed(&self) -> bool {
        self.host.observes_device() && self.ssd.gc_epoch() != self.gc_seen
    }

    /// Build the summary (call after `run`).
    pub fn summary(&self) -> Summary {
        let m = &self.metrics;
        let ftl = &self.ssd.ftl;
        // Rates are over the request-serving period; background GC that
        // drains after the last completion does not dilute them.
        let sim_ns = m.last_completion;
        let sim_s = sim_ns as f64 / NS_PER_S as f64;
        let per_s = |x: f64| if sim_s > 0.0 { x / sim_s } else { 0.0 };
        let requests = m.completed();
        let wall_s = self.clock.wall().as_secs_f64();
        let geo = self.ssd.geo;
        let busy = self.ssd.die_busy_ns();
        // Busy time accrues until the device drains (GC may run past the
        // last completion), so utilisation is over the whole simulated span.
        let span_ns = sim_ns.max(self.clock.now());
        let chip_utilization: Vec<f64> = busy
            .chunks(geo.dies_per_chip as usize)
            .map(|c| {
                if span_ns == 0 {
                    0.0
                } else {
                    c.iter().sum::<u64>() as f64 / (c.len() as f64 * span_ns as f64)
                }
            })
            .collect();
        let mean_util = chip_utilization.iter().sum::<f64>() / chip_utilization.len().max(1) as f64;
        let ch = self.ssd.channel_stats();
        let st = &self.ssd.stats;
        let pc = &self.ssd.precondition;
        Summary {
            device: if self.cfg.preset.is_empty() {
                "custom".into()
            } else {
                self.cfg.preset.clone()
            },
            host_sched: self.host.sched_name().into(),
            device_sched: self.cfg.controller.scheduler.clone(),
            workload: self.workload.describe(),
            seed: self.opts.seed,
            requests,
            reads: m.read.count(),
            writes: m.write.count(),
            trims: m.trims,
            bytes_read: m.bytes_read,
            bytes_written: m.bytes_written,
            iops: per_s(requests as f64),
            bandwidth_mib_s: per_s((m.bytes_read + m.bytes_written) as f64 / (1u64 << 20) as f64),
            simulated_s: sim_s,
            wall_s,
            events: self.clock.q.processed(),
            requests_per_wall_s: if wall_s > 0.0 {
                requests as f64 / wall_s
            } else {
                0.0
            },
            waf: ftl.waf(),
            latency_us: LatencySummary::from(&m.all),
            read_latency_us: LatencySummary::from(&m.read),
            write_latency_us: LatencySummary::from(&m.write),
            gc: GcSummary {
                invocations: ftl.stats.gc_invocations,
                pages_moved: ftl.stats.gc_pages_moved,
                erases: ftl.stats.erases,
            },
            flash: FlashSummary {
                reads: st.flash_reads,
                programs: st.flash_programs,
                user_page_reads: st.user_reads,
                gc_page_reads: st.gc_reads,
                update_reads: st.update_reads,
                shared_reads: st.shared_reads,
                wasted_pages: st.wasted_pages,
                dram_read_hits: st.dram_read_hits,
                superseded_programs: st.superseded_programs,
                programs_replanned: st.programs_replanned,
                untimed_placements: ftl.stats.untimed_placements,
                channel_transfers: ch.iter().map(|c| c.1).sum(),
                channel_conflicts: ch.iter().map(|c| c.2).sum(),
                chip_utilization,
                mean_chip_utilization: mean_util,
                ..devsched_summary(&self.ssd)
            },
            mapping: MappingSummary {
                cmt_entries: self.ssd.cmt_capacity(),
                queries: st.cmt_queries,
                hits: st.cmt_hits,
                hit_ratio: if st.cmt_queries > 0 {
                    st.cmt_hits as f64 / st.cmt_queries as f64
                } else {
                    0.0
                },
                flash_reads: st.mapping_reads,
                writebacks: st.cmt_writebacks,
                flash_programs: ftl.stats.mapping_programs,
            },
            precondition: PreconditionSummary {
                fill: pc.fill,
                live_pages: pc.live_pages,
                mean_block_validity: pc.mean_block_validity,
                free_blocks_per_plane: pc.free_blocks_per_plane,
                method: pc.method.to_string(),
            },
            memory_bytes: ftl.table_bytes() + self.records_bytes(),
            input: self.workload.input_stats(),
            gc_detection: self
                .host
                .sched
                .detector()
                .map(|log| gc_detect::score(&log, geo.chips(), self.ssd.gc_changes(), span_ns)),
        }
    }

    fn records_bytes(&self) -> u64 {
        let r = &self.metrics.records;
        (r.arrival.capacity() * 8
            + r.dispatch.capacity() * 8
            + r.complete.capacity() * 8
            + r.op.capacity()
            + r.offset.capacity() * 8
            + r.size.capacity() * 4
            + r.stream.capacity() * 4) as u64
    }
}

impl Model for Simulation {
    type Ev = PackedEvent;

    #[inline]
    fn clock(&mut self) -> &mut Clock<PackedEvent> {
        &mut self.clock
    }

    fn poll(&mut self) -> SimResult<()> {
        let now = self.clock.now();
        let n = self.feed.poll(self.workload.as_mut(), now)?;
        if let Some(l) = &mut self.ledger {
            l.arrived(n as u64);
        }
        for i in 0..n {
            let r = self.feed.record(i);
            self.host
                .arrive(now, r.op, r.offset, r.size, r.stream, false);
        }
        self.host_turn |= n > 0;
        if let Some(r) = self.workload.peek() {
            self.ssd.prefetch_request(r.op, r.offset, r.size);
        }
        self.feed
            .schedule(now, &mut self.clock.q, Ev::Workload.pack());
        Ok(())
    }

    #[inline]
    fn apply(&mut self, ev: PackedEvent, now: Ns) -> SimResult<()> {
        match Ev::unpack(ev) {
            Ev::Dev(e) => self.ssd.handle(e, now, &mut QSink(&mut self.clock.q)),
            Ev::Workload => self.poll(),
            Ev::HostTimer => {
                self.host.timer_fired();
                self.host_turn = true;
                Ok(())
            }
        }
    }

    /// The decide phase at the current instant. The host is asked for requests only
    /// at instants it can see — arrivals, completions, its own timers (and
    /// GC flag changes if it reads them) — so its decisions never hang on
    /// device-internal steps such as a transfer ending.
    fn settle(&mut self, now: Ns) -> SimResult<()> {
        // Most steps in a busy device only move a transaction along (a read
        // sensed): nothing completed, no die to fill and nothing for the
        // host. The loop below would then change nothing, so skip it.
        if !self.ssd.needs_decide() && !self.host_turn && !self.gc_seen_changed() {
            return Ok(());
        }
        let mut asked = false;
        loop {
            self.ssd.take_done(&mut self.done);
            let completed = !self.done.is_empty();
            self.host_turn |= completed;
            for i in 0..self.done.len() {
                let id = self.done[i];
                self.finished_slots.clear();
                self.host
                    .complete(id, now, &self.ssd, &mut self.finished_slots);
                // SSDsim's clock (`host.buffered_latency`): a request served
                // from DRAM alone is timed as if dispatched on arrival.
                let uncounted = self.host.buffered_latency == BufferedLatency::FromDispatch
                    && self.ssd.served_from_dram(id);
                for slot in &self.finished_slots {
                    if let Some(l) = &mut self.ledger {
                        l.completed(slot.req.seq)
                            .map_err(|m| check::error(now, "host", &m))?;
                    }
                    let wait = match uncounted {
                        true => slot.dispatched - slot.req.arrival,
                        false => 0,
                    };
                    let c = Completion {
                        arrival: slot.req.arrival,
                        dispatch: slot.dispatched - wait,
                        complete: now - wait,
                        op: slot.req.op,
                        offset: slot.req.offset,
                        size: slot.req.size,
                        stream: slot.req.stream,
                    };
                    self.metrics.record_staged(&c);
                    self.workload.on_complete(&c, now);
                }
            }
            self.done.clear();
            if completed && self.feed.blocked() {
                self.poll()?;
            }
            if self.gc_seen_changed() {
                self.gc_seen = self.ssd.gc_epoch();
                self.host_turn = true;
            }
            if std::mem::take(&mut self.host_turn) {
                asked = true;
                while let Some(io) = self.host.next_dispatch(now, &self.ssd) {
                    self.ssd.submit(io.id, io.op, io.offset, io.size, now);
                }
            }
            self.ssd.schedule(now, &mut QSink(&mut self.clock.q))?;
            if !self.ssd.has_done() && !self.gc_seen_changed() {
                break;
            }
        }
        if asked {
            if let Some(t) = self.host.arm_timer(now) {
                self.clock.q.push(t, Ev::HostTimer.pack());
            }
        }
        if let Some(over) = self.metrics.over_budget() {
            return Err(over_budget(self.budget.as_ref(), over));
        }
        Ok(())
    }

    #[inline]
    fn check_instant(&mut self, t: Ns) -> SimResult<()> {
        if let Some(l) = &mut self.ledger {
            let (o, qd) = (self.host.outstanding, self.host.queue_depth);
            l.step(t, o, qd).map_err(|m| check::error(t, "host", &m))?;
            self.ssd
                .check_step()
                .map_err(|m| check::error(t, "device", &m))?;
        }
        Ok(())
    }

    #[inline]
    fn pause(&mut self) {
        self.metrics.flush_staged();
    }

    fn finish(&mut self) -> SimResult<()> {
        let now = self.clock.now();
        // GC cannot lift a plane's write floor when its valid data leaves
        // fewer free blocks than the floor: name the setting.
        let (held, floor) = self.ssd.ftl.planes_held_by_floor();
        let hint = if held > 0 {
            format!(
                "; user writes wait in {held} planes below ftl.gc_write_floor = {floor} free \
                 blocks that GC cannot free (their valid data leaves fewer): lower it or the fill"
            )
        } else {
            String::new()
        };
        if !self.feed.done() {
            return Err(SimError::Invalid(format!(
                "workload stalled at t={now} ns: it is waiting for completions but nothing is in \
                 flight{hint}"
            ))
            .into());
        }
        if self.host.queued() > 0 || !self.ssd.is_idle() {
            return Err(SimError::Invalid(format!(
                "deadlock at t={now} ns: {} requests held by the host scheduler `{}`, {} outstanding, \
                 {} flash transactions queued and nothing scheduled to happen{hint}",
                self.host.queued(),
                self.host.sched_name(),
                self.host.outstanding,
                self.ssd.queued_txs()
            )).into());
        }
        if self.opts.verify_hints
            && !self.host.sched_caps().observes_device
            && self.ssd.gc_flag_reads() > 0
        {
            return Err(SimError::Invalid(format!(
                "host scheduler `{}` read the device's GC flags but does not declare \
                 `observes_device` in its caps",
                self.host.sched_name()
            ))
            .into());
        }
        if let Some(l) = &self.ledger {
            l.finish().map_err(|m| check::error(now, "host", &m))?;
            self.ssd
                .check_finish()
                .map_err(|m| check::error(now, "device", &m))?;
        }
        Ok(())
    }
}

/// Per-request records outgrew the memory left by the device.
#[cold]
fn over_budget(budget: Option<&Budget>, (done, need): (u64, u64)) -> Box<SimError> {
    let (left, limit, source) = budget.map_or((0, 0, ""), |b| (b.bytes, b.limit, b.source));
    SimError::MemoryLimit(format!(
        "after {done} requests, per-request records and time series would need {}, more \
         than the {} the limit of {} ({source}) leaves beside the device; keep no \
         per-request records (--no-records / keep_records=False) or raise the limit \
         (--max-memory / max_memory=)",
        fmt_bytes(need),
        fmt_bytes(left),
        fmt_bytes(limit),
    ))
    .into()
}

/// Device-scheduler metrics (AOS §IV-B, VIOS Table 1) for the flash summary.
fn devsched_summary(ssd: &Ssd) -> FlashSummary {
    let st = &ssd.stats;
    let (flp, slp_chips, slp_channels) = ssd.parallelism();
    let reqs = st.read_requests + st.write_requests;
    FlashSummary {
        commands: st.flash_commands,
        pages_per_command: if st.flash_commands > 0 {
            st.command_ops as f64 / st.flash_commands as f64
        } else {
            0.0
        },
        suspensions: st.suspensions,
        resumes: st.resumes,
        interfered_reads: st.interfered_reads,
        mean_interference_wait_us: if st.interfered_reads > 0 {
            st.interference_wait_ns as f64 / st.interfered_reads as f64 / 1000.0
        } else {
            0.0
        },
        flp,
        slp_chips,
        slp_channels,
        read_conflicts: st.read_conflicts,
        write_conflicts: st.write_conflicts,
        conflict_ratio_pct: if reqs > 0 {
            100.0 * (st.read_conflicts + st.write_conflicts) as f64 / reqs as f64
        } else {
            0.0
        },
        ..FlashSummary::default()
    }
}
