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

pub mod network;
pub mod raid;
pub mod serial;
pub mod series;

use std::collections::VecDeque;
use std::time::Instant;

use serde::Serialize;

use crate::check::{self, invariants::RequestLedger};
use crate::config::DeviceConfig;
use crate::device::{DevEvent, EventSink, Ssd};
use crate::engine::{self, Clock, EventQueue, Model, Ns, NS_PER_S};
use crate::error::{SimError, SimResult};
use crate::host::{Host, Issue, Slot};
use crate::io::{Completion, DeviceView};
use crate::metrics::{LatencySummary, Metrics};
use crate::workload::compose::{Concurrent, Phases};
use crate::workload::replay::Replay;
use crate::workload::synthetic::parse_bytes;
use crate::workload::{Feed, Op, Workload};
use network::{Link, LinkConfig};
use raid::{Extent, Raid0, Raid5};
use serial::{Role, SerialConfig, SerialLog, SerialStats, Victim};
use series::ArraySeries;

const NONE: u32 = u32::MAX;

/// How the volume is laid out over the SSDs.
#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    Raid0 { chunk: u64 },
    Raid5 { chunk: u64 },
    Serial(SerialConfig),
}

impl Layout {
    /// `raid0[,chunk=64k]`, `raid5[,chunk=64k]`, or
    /// `serial[,front=1,unit=16k,segment=4m,victim=fifo|greedy,window=32,volume=0.75,verify=true]`.
    pub fn parse(text: &str) -> SimResult<Layout> {
        let mut parts = text.split(',').map(str::trim).filter(|p| !p.is_empty());
        let name = parts.next().unwrap_or("");
        let mut chunk = 64 << 10;
        let mut s = SerialConfig::default();
        let is_serial = name == "serial";
        if !matches!(name, "raid0" | "raid5" | "serial") {
            return Err(SimError::unknown(
                "array layout",
                name,
                &["raid0", "raid5", "serial"],
            ));
        }
        for p in parts {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| SimError::config(format!("array.{p}"), "expected key=value"))?;
            let key = format!("array.{k}");
            let int = |v: &str| -> SimResult<u32> {
                v.parse()
                    .map_err(|_| SimError::config(&key, format!("`{v}` is not an integer")))
            };
            match (k, is_serial) {
                ("chunk", false) => chunk = parse_bytes(&key, v)?,
                ("front", true) => s.front_ends = int(v)?,
                ("unit", true) => s.unit = parse_bytes(&key, v)?,
                ("segment", true) => s.segment = parse_bytes(&key, v)?,
                ("window", true) => s.window = int(v)?,
                ("victim", true) => {
                    s.victim = match v {
                        "fifo" => Victim::Fifo,
                        "greedy" => Victim::Greedy,
                        _ => {
                            return Err(SimError::config(
                                key,
                                format!("`{v}` is not fifo or greedy"),
                            ))
                        }
                    }
                }
                ("volume", true) => {
                    s.volume_fraction = v
                        .parse()
                        .map_err(|_| SimError::config(&key, format!("`{v}` is not a number")))?
                }
                ("verify", true) => {
                    s.verify = v
                        .parse()
                        .map_err(|_| SimError::config(&key, format!("`{v}` is not true/false")))?
                }
                _ => {
                    let known = if is_serial {
                        "front, unit, segment, victim, window, volume, verify"
                    } else {
                        "chunk"
                    };
                    return Err(SimError::config(
                        key,
                        format!("unknown key for {name} (known: {known})"),
                    ));
                }
            }
        }
        if !is_serial && (chunk == 0 || chunk % 512 != 0) {
            return Err(SimError::config(
                "array.chunk",
                format!("{chunk} is not a positive multiple of 512"),
            ));
        }
        Ok(match name {
            "raid0" => Layout::Raid0 { chunk },
            "raid5" => Layout::Raid5 { chunk },
            _ => Layout::Serial(s),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            Layout::Raid0 { .. } => "raid0",
            Layout::Raid5 { .. } => "raid5",
            Layout::Serial(_) => "serial",
        }
    }
}

/// Array-level options.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayConfig {
    pub layout: Layout,
    pub ssds: u32,
    /// Requests outstanding at the array (its host queue depth).
    pub queue_depth: u32,
    pub link: Option<LinkConfig>,
    /// Width of a time-series bin.
    pub bin_ns: Ns,
    pub seed: u64,
    /// Keep one row per client request.
    pub keep_records: bool,
}

/// Where the array's requests come from.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayWorkload {
    /// Synthetic specs run one after another (e.g. aging, then measurement).
    Phases(Vec<String>),
    /// `clients` concurrent sequential writers of `file` bytes each.
    Writers {
        clients: u32,
        file: u64,
        bs: u64,
        qd: u32,
    },
}

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

struct Sink<'a> {
    q: &'a mut EventQueue<Ev>,
    ssd: u32,
}

impl EventSink for Sink<'_> {
    #[inline]
    fn push(&mut self, at: Ns, ev: DevEvent) {
        // Device events rank by SSD, then as on one device (`DevEvent::rank`).
        self.q.push_ranked(
            at,
            (self.ssd as u64) << 33 | ev.rank(),
            Ev::Dev(self.ssd, ev),
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

enum Engine {
    Raid0(Raid0),
    Raid5(Raid5),
    Serial(Box<SerialLog>),
}

/// Counters of the array layer.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArrayStats {
    pub rmw_stripes: u64,
    pub full_stripes: u64,
    /// Internal GC invocations on an SSD while it was a front-end.
    pub front_gc_violations: u64,
    /// Most valid pages any SSD's FTL held right after a whole-SSD TRIM.
    pub max_valid_pages_after_trim: u64,
    pub trim_erases: u64,
    pub stalled_writes: u64,
}

/// Per-SSD results.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SsdSummary {
    pub index: u32,
    pub role: String,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
    pub reclaim_erases: u64,
    pub trimmed_pages: u64,
    pub waf: f64,
    pub bytes_written: u64,
    pub bytes_read: u64,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LinkSummary {
    pub gbit_s: f64,
    pub overhead_us: f64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub utilization_in: f64,
    pub utilization_out: f64,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SerialSummary {
    pub front_ends: u32,
    pub unit_bytes: u64,
    pub segment_bytes: u64,
    pub victim: String,
    pub mapping_bytes: u64,
    /// Mapping bytes / total SSD logical capacity (paper §2.3: ~0.2 %).
    pub mapping_fraction: f64,
    #[serde(flatten)]
    pub stats: SerialStats,
}

/// Everything an array run reports.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArraySummary {
    pub layout: String,
    pub ssds: u32,
    pub device: String,
    pub ssd_logical_bytes: u64,
    pub volume_bytes: u64,
    pub workload: String,
    pub seed: u64,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub simulated_s: f64,
    pub wall_s: f64,
    /// Client bandwidth over the run, MB/s (10^6 bytes).
    pub bandwidth_mb_s: f64,
    pub bin_s: f64,
    pub phase_starts_s: Vec<f64>,
    pub latency_us: LatencySummary,
    pub read_latency_us: LatencySummary,
    pub write_latency_us: LatencySummary,
    pub gc_invocations: u64,
    pub per_ssd: Vec<SsdSummary>,
    pub link: Option<LinkSummary>,
    pub serial: Option<SerialSummary>,
    #[serde(flatten)]
    pub stats: ArrayStats,
}

impl ArraySummary {
    pub fn to_json(&self, stable: bool) -> String {
        let mut s = self.clone();
        if stable {
            s.wall_s = 0.0;
        }
        serde_json::to_string_pretty(&s).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// A configured array simulation.
pub struct ArraySim {
    /// Host slots finished by the last completion (reused buffer).
    finished_slots: Vec<Slot>,
    pub cfg: ArrayConfig,
    pub dev_cfg: DeviceConfig,
    pub ssds: Vec<Ssd>,
    pub metrics: Metrics,
    pub series: ArraySeries,
    pub stats: ArrayStats,
    clock: Clock<Ev>,
    wl: Wl,
    feed: Feed,
    host: Host,
    link: Option<Link>,
    engine: Engine,
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
    /// Sub-requests outstanding per SSD (a source is TRIMmed only at 0).
    outstanding: Vec<u32>,
    /// GC count when each current front-end took the role.
    front_gc_base: Vec<Option<u64>>,
    bytes_w: Vec<u64>,
    bytes_r: Vec<u64>,
    done: Vec<u32>,
    ext: Vec<Extent>,
    completed_any: bool,
    /// Something the host sees happened at this instant (see `settle`).
    host_turn: bool,
    /// Host-interface invariants, in check mode.
    ledger: Option<Box<RequestLedger>>,
}

impl Model for ArraySim {
    type Ev = Ev;

    #[inline]
    fn clock(&mut self) -> &mut Clock<Ev> {
        &mut self.clock
    }

    fn start(&mut self) -> SimResult<()> {
        self.poll_workload()?;
        self.decide()
    }

    #[inline]
    fn before_instant(&mut self, t: Ns) {
        if t / self.series.bin_ns > self.series.sampled() as u64 {
            self.sample(t);
        }
    }

    #[inline]
    fn apply(&mut self, ev: Ev, now: Ns) -> SimResult<()> {
        match ev {
            Ev::Dev(i, e) => self.ssds[i as usize].handle(e, now)?,
            Ev::Workload => self.poll_workload()?,
            Ev::HostTimer => {
                self.host.timer_fired();
                self.host_turn = true;
            }
            Ev::LinkIn(c) => self.arrive_host(c),
            Ev::LinkOut(c) => self.client_complete(c),
        }
        Ok(())
    }

    #[inline]
    fn settle(&mut self, _now: Ns) -> SimResult<()> {
        self.decide()
    }

    #[inline]
    fn check_instant(&mut self, t: Ns) -> SimResult<()> {
        if self.ledger.is_some() {
            self.check_step(t)?;
        }
        Ok(())
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
            )));
        }
        if let Some(l) = &self.ledger {
            l.finish().map_err(|m| check::error(now, "array", &m))?;
            for (i, s) in self.ssds.iter_mut().enumerate() {
                check::device_finish(s).map_err(|m| check::error(now, &format!("ssd {i}"), &m))?;
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
        let front = match &self.engine {
            Engine::Serial(l) => l.fronts().first().map_or(-1, |&f| f as i32),
            _ => -1,
        };
        let end = self.metrics.last_completion.max(now);
        self.series
            .finish(end, |i| ssds[i].ftl.stats.gc_invocations, front);
        Ok(())
    }
}

impl ArraySim {
    /// Build `cfg.ssds` SSDs from `dev` (SSD i seeded with `seed + i`) and the
    /// workload for the resulting volume.
    pub fn new(
        cfg: ArrayConfig,
        dev: DeviceConfig,
        workload: &ArrayWorkload,
    ) -> SimResult<ArraySim> {
        let t0 = Instant::now();
        if cfg.ssds < 2 || cfg.ssds > 1024 {
            return Err(SimError::config(
                "array.ssds",
                format!("{} is outside [2, 1024]", cfg.ssds),
            ));
        }
        if cfg.queue_depth == 0 {
            return Err(SimError::config("array.queue_depth", "must be ≥ 1"));
        }
        if cfg.bin_ns < 100_000 {
            return Err(SimError::config(
                "array.bin",
                format!("{} ns is below the 0.1 ms minimum", cfg.bin_ns),
            ));
        }
        if let ArrayWorkload::Writers {
            clients,
            file,
            bs,
            qd,
        } = workload
        {
            if *clients == 0 || *qd == 0 || *bs == 0 || *bs > 1 << 30 || file < bs {
                return Err(SimError::config(
                    "array.writers",
                    format!(
                        "clients={clients}, file={file}, bs={bs}, qd={qd}: need clients, qd ≥ 1 \
                         and 0 < bs ≤ min(file, 1 GiB)"
                    ),
                ));
            }
        }
        let ssds = (0..cfg.ssds)
            .map(|i| Ssd::new(dev.ssd(), cfg.seed.wrapping_add(i as u64)))
            .collect::<SimResult<Vec<_>>>()?;
        let ssd_bytes = ssds[0].logical_bytes();
        let page = dev.geometry.page_size as u64;
        let n = cfg.ssds;
        let (engine, volume) = match &cfg.layout {
            Layout::Raid0 { chunk } | Layout::Raid5 { chunk } => {
                let per = ssd_bytes / chunk * chunk;
                if per == 0 {
                    return Err(SimError::config(
                        "array.chunk",
                        format!("{chunk} exceeds the SSD capacity {ssd_bytes}"),
                    ));
                }
                if let Layout::Raid0 { .. } = cfg.layout {
                    (
                        Engine::Raid0(Raid0 {
                            ssds: n,
                            chunk: *chunk,
                        }),
                        per * n as u64,
                    )
                } else {
                    if n < 3 {
                        return Err(SimError::config(
                            "array.ssds",
                            "RAID-5 needs at least 3 SSDs",
                        ));
                    }
                    (
                        Engine::Raid5(Raid5 {
                            ssds: n,
                            chunk: *chunk,
                        }),
                        per * (n as u64 - 1),
                    )
                }
            }
            Layout::Serial(sc) => {
                let log = SerialLog::new(sc, n, ssd_bytes, page)?;
                let v = log.volume_bytes();
                (Engine::Serial(Box::new(log)), v)
            }
        };
        let wl = match workload {
            ArrayWorkload::Phases(specs) => {
                Wl::Phases(Phases::from_specs(specs, volume, cfg.seed)?)
            }
            ArrayWorkload::Writers {
                clients,
                file,
                bs,
                qd,
            } => {
                if *clients as u64 * file > volume {
                    return Err(SimError::config(
                        "array.workload",
                        format!(
                            "{clients} clients × {file} bytes exceed the volume ({volume} bytes)"
                        ),
                    ));
                }
                Wl::Other(Box::new(Concurrent::writers(
                    *clients, *file, *bs, *qd, cfg.seed,
                )?))
            }
        };
        let mut hcfg = dev.host.clone();
        hcfg.queue_depth = cfg.queue_depth;
        // Requests are striped per client request; the array's host queue
        // does not merge them (each dispatch is exactly one client request).
        hcfg.max_merge_kib = 0;
        // The scheduler is sized by one SSD (chips, capacity), as it always was.
        let host = Host::new(&hcfg, ssds[0].geo.chips(), ssd_bytes)?;
        let chips = ssds.iter().map(|s| s.geo.chips()).sum();
        let mut sim = ArraySim {
            finished_slots: Vec::new(),
            link: cfg.link.map(|l| Link::new(l, cfg.bin_ns)),
            series: ArraySeries::new(n as usize, cfg.bin_ns),
            metrics: Metrics::new(cfg.keep_records),
            stats: ArrayStats::default(),
            clock: Clock::default(),
            wl,
            feed: Feed::default(),
            host,
            engine,
            view: VolumeView {
                page: page as u32,
                bytes: volume,
                chips,
            },
            creqs: Vec::new(),
            free_creqs: Vec::new(),
            host_client: Vec::new(),
            remaining: Vec::new(),
            subs: Vec::new(),
            free_subs: Vec::new(),
            stripes: Vec::new(),
            free_stripes: Vec::new(),
            stalled: VecDeque::new(),
            outstanding: vec![0; n as usize],
            front_gc_base: vec![None; n as usize],
            bytes_w: vec![0; n as usize],
            bytes_r: vec![0; n as usize],
            done: Vec::new(),
            ext: Vec::new(),
            completed_any: false,
            host_turn: true,
            ledger: None,
            ssds,
            dev_cfg: dev,
            cfg,
        };
        sim.track_roles();
        sim.clock.add_wall(t0.elapsed());
        Ok(sim)
    }

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
            check::device_step(s).map_err(|m| check::error(t, &format!("ssd {i}"), &m))?;
        }
        if let Engine::Serial(log) = &self.engine {
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

    pub fn now(&self) -> Ns {
        self.clock.now()
    }

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
        match &self.engine {
            Engine::Serial(l) => Some(l),
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
    pub fn wire_bytes(&self) -> Option<(&[f64], &[f64])> {
        self.link
            .as_ref()
            .map(|l| (l.wire_in.bytes.as_slice(), l.wire_out.bytes.as_slice()))
    }

    pub fn run(&mut self) -> SimResult<()> {
        while !self.advance(u64::MAX)? {}
        Ok(())
    }

    /// Process up to `max_steps` time steps; true once finished.
    pub fn advance(&mut self, max_steps: u64) -> SimResult<bool> {
        engine::advance(self, max_steps)
    }

    fn sample(&mut self, t: Ns) {
        let ssds = &self.ssds;
        let front = match &self.engine {
            Engine::Serial(l) => l.fronts().first().map_or(-1, |&f| f as i32),
            _ => -1,
        };
        self.series
            .sample_until(t, |i| ssds[i].ftl.stats.gc_invocations, front);
    }

    fn poll_workload(&mut self) -> SimResult<()> {
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
                    self.clock.q.push(t, Ev::LinkIn(idx));
                }
                None => self.arrive_host(idx),
            }
        }
        self.prefetch_next();
        self.feed.schedule(now, &mut self.clock.q, Ev::Workload);
        Ok(())
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
        match &self.engine {
            Engine::Raid0(m) => m.map(r.offset, r.size, &mut ext),
            // Writes touch the same data chunks (and parity, not fetched).
            Engine::Raid5(m) => m.map_read(r.offset, r.size, &mut ext),
            Engine::Serial(_) => {}
        }
        for e in &ext {
            self.ssds[e.ssd as usize].prefetch_request(r.op, e.offset, e.len);
        }
        self.ext = ext;
    }

    fn arrive_host(&mut self, idx: u32) {
        let c = self.creqs[idx as usize];
        let h = self
            .host
            .arrive(self.clock.now(), c.op, c.offset, c.size, c.stream, false);
        let id = h.id as usize;
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

    /// The decide phase at the current instant.
    fn decide(&mut self) -> SimResult<()> {
        let now = self.clock.now();
        let serial = matches!(self.engine, Engine::Serial(_));
        let mut asked = false;
        loop {
            for i in 0..self.ssds.len() {
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
                self.poll_workload()?;
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
            for i in 0..self.ssds.len() {
                self.ssds[i].schedule(
                    now,
                    &mut Sink {
                        q: &mut self.clock.q,
                        ssd: i as u32,
                    },
                )?;
            }
            // New front-end writes may open xGC work: pump again now rather
            // than at whatever step comes next.
            let more = self.ssds.iter().any(|s| s.has_done()) || (serial && dispatched);
            if !more {
                break;
            }
        }
        self.completed_any = false;
        if asked {
            if let Some(t) = self.host.arm_timer(now) {
                self.clock.q.push(t, Ev::HostTimer);
            }
        }
        Ok(())
    }

    fn submit(&mut self, ssd: u32, op: Op, offset: u64, len: u32, kind: SubKind) {
        let sub = Sub {
            ssd,
            kind,
            op,
            bytes: len,
        };
        let id = match self.free_subs.pop() {
            Some(i) => {
                self.subs[i as usize] = sub;
                i
            }
            None => {
                self.subs.push(sub);
                (self.subs.len() - 1) as u32
            }
        };
        self.outstanding[ssd as usize] += 1;
        self.ssds[ssd as usize].submit(id, op, offset, len, self.clock.now());
    }

    fn start_request(&mut self, req: Issue) -> SimResult<()> {
        let id = req.id;
        // A probe read the host scheduler injected has a slot no arrival
        // sized the tables for.
        if id as usize >= self.remaining.len() {
            self.host_client.resize(id as usize + 1, NONE);
            self.remaining.resize(id as usize + 1, 0);
        }
        self.remaining[id as usize] = 0;
        let mut ext = std::mem::take(&mut self.ext);
        ext.clear();
        match &mut self.engine {
            Engine::Raid0(r) => r.map(req.offset, req.size, &mut ext),
            Engine::Raid5(r) if req.op != Op::Write => r.map_read(req.offset, req.size, &mut ext),
            Engine::Raid5(r) => {
                let r = *r;
                for sw in r.map_write(req.offset, req.size) {
                    self.remaining[id as usize] += 1;
                    let st = self.new_stripe(id);
                    if sw.full {
                        self.stats.full_stripes += 1;
                        let op = &mut self.stripes[st as usize];
                        op.writes = sw.data.clone();
                        op.writes.push(sw.parity);
                        self.issue_stripe_writes(st);
                    } else {
                        self.stats.rmw_stripes += 1;
                        let mut reads = sw.data.clone();
                        reads.push(sw.parity);
                        let op = &mut self.stripes[st as usize];
                        op.reads_left = reads.len() as u32;
                        op.writes = reads.clone();
                        for e in reads {
                            self.submit(
                                e.ssd,
                                Op::Read,
                                e.offset,
                                e.len,
                                SubKind::RmwRead { stripe: st },
                            );
                        }
                    }
                }
            }
            Engine::Serial(_) => {
                self.ext = ext;
                return self.start_serial(req);
            }
        }
        for e in &ext {
            self.remaining[id as usize] += 1;
            self.submit(e.ssd, req.op, e.offset, e.len, SubKind::User { req: id });
        }
        self.ext = ext;
        if self.remaining[id as usize] == 0 {
            self.finish_request(id);
        }
        Ok(())
    }

    fn new_stripe(&mut self, req: u32) -> u32 {
        let op = StripeOp {
            req,
            ..Default::default()
        };
        match self.free_stripes.pop() {
            Some(i) => {
                self.stripes[i as usize] = op;
                i
            }
            None => {
                self.stripes.push(op);
                (self.stripes.len() - 1) as u32
            }
        }
    }

    fn issue_stripe_writes(&mut self, st: u32) {
        let writes = std::mem::take(&mut self.stripes[st as usize].writes);
        self.stripes[st as usize].writes_left = writes.len() as u32;
        for e in &writes {
            self.submit(
                e.ssd,
                Op::Write,
                e.offset,
                e.len,
                SubKind::StripeWrite { stripe: st },
            );
        }
        self.stripes[st as usize].writes = writes;
    }

    fn units_of(log: &SerialLog, offset: u64, size: u32) -> (u32, u32) {
        let first = (offset / log.unit) as u32;
        let end = offset.saturating_add(size.max(1) as u64).div_ceil(log.unit) as u32;
        (first, end.min(log.volume_units))
    }

    fn start_serial(&mut self, req: Issue) -> SimResult<()> {
        let id = req.id;
        let Engine::Serial(log) = &mut self.engine else {
            return Ok(());
        };
        let (first, end) = Self::units_of(log, req.offset, req.size);
        let unit = log.unit;
        match req.op {
            Op::Read => {
                // Coalesce runs of consecutive slots on one SSD.
                let mut run: Option<(u32, u32, u32)> = None;
                let mut runs: Vec<(u32, u32, u32)> = Vec::new();
                for u in first..end {
                    let Some((s, o)) = log.lookup(u) else {
                        continue;
                    };
                    log.check_read(u, s, o);
                    run = match run {
                        Some((rs, ro, n)) if rs == s && ro + n == o => Some((rs, ro, n + 1)),
                        Some(r) => {
                            runs.push(r);
                            Some((s, o, 1))
                        }
                        None => Some((s, o, 1)),
                    };
                }
                runs.extend(run);
                for (s, o, n) in runs {
                    self.remaining[id as usize] += 1;
                    let kind = SubKind::SerialRead {
                        req: id,
                        off: o,
                        units: n,
                    };
                    self.submit(s, Op::Read, o as u64 * unit, n * unit as u32, kind);
                }
            }
            Op::Trim => {
                // Only whole units are unmapped.
                let a = req.offset.div_ceil(unit) as u32;
                let b = ((req.offset + req.size as u64) / unit) as u32;
                for u in a..b.min(log.volume_units) {
                    log.trim_unit(u);
                }
            }
            Op::Write => {
                log.next_request();
                if !self.stalled.is_empty() {
                    // Keep write order behind writes already waiting.
                    self.stats.stalled_writes += 1;
                    self.remaining[id as usize] += 1;
                    self.stalled.push_back((id, first, end));
                    return Ok(());
                }
                self.write_units(id, first, end);
            }
        }
        self.track_roles();
        if self.remaining[id as usize] == 0 && req.op != Op::Write {
            self.finish_request(id);
        }
        Ok(())
    }

    /// Append units `[first, end)` of write `id`; parks the rest if the log
    /// has no room. Completes the request when nothing is outstanding.
    fn write_units(&mut self, id: u32, first: u32, end: u32) {
        let Engine::Serial(log) = &mut self.engine else {
            return;
        };
        let unit = log.unit;
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        let mut run: Option<(u32, u32, u32)> = None;
        let mut parked = None;
        for u in first..end {
            let Some((s, o)) = log.write_unit(u) else {
                parked = Some(u);
                break;
            };
            run = match run {
                Some((rs, ro, n)) if rs == s && ro + n == o => Some((rs, ro, n + 1)),
                Some(r) => {
                    runs.push(r);
                    Some((s, o, 1))
                }
                None => Some((s, o, 1)),
            };
        }
        runs.extend(run);
        for (s, o, n) in runs {
            self.remaining[id as usize] += 1;
            self.submit(
                s,
                Op::Write,
                o as u64 * unit,
                n * unit as u32,
                SubKind::User { req: id },
            );
        }
        if let Some(u) = parked {
            self.stats.stalled_writes += 1;
            self.stalled.push_front((id, u, end));
            self.remaining[id as usize] += 1; // the parked part
        } else if self.remaining[id as usize] == 0 {
            self.finish_request(id);
        }
        self.track_roles();
    }

    /// Retry parked serial writes in arrival order while the log has room.
    fn retry_stalled(&mut self) {
        while let Some(&(id, u, end)) = self.stalled.front() {
            let Engine::Serial(log) = &mut self.engine else {
                return;
            };
            if !log.can_write() {
                return;
            }
            self.stalled.pop_front();
            self.remaining[id as usize] -= 1; // the parked part
            self.write_units(id, u, end);
            if self.stalled.front().is_some_and(|s| s.0 == id) {
                return; // parked again: still no room
            }
        }
    }

    /// Keep xGC copies flowing; TRIM a drained source.
    fn pump_xgc(&mut self) -> SimResult<()> {
        loop {
            let Engine::Serial(log) = &mut self.engine else {
                return Ok(());
            };
            let unit = log.unit;
            if let Some((u, s, o)) = log.next_copy() {
                self.submit(
                    s,
                    Op::Read,
                    o as u64 * unit,
                    unit as u32,
                    SubKind::CopyRead { unit: u, off: o },
                );
                continue;
            }
            let Some(src) = log.drained_source() else {
                break;
            };
            if self.outstanding[src as usize] > 0 {
                break;
            }
            // Fig. 5(c): TRIM the whole old front-end, then erase its blocks.
            let bytes = self.ssds[src as usize].logical_bytes();
            let step = (1u64 << 30).min(bytes);
            let mut off = 0;
            while off < bytes {
                let len = step.min(bytes - off) as u32;
                self.submit(src, Op::Trim, off, len, SubKind::Trim);
                off += len as u64;
            }
            let ssd = &mut self.ssds[src as usize];
            let left = ssd.ftl.mapped_pages();
            self.stats.max_valid_pages_after_trim = self.stats.max_valid_pages_after_trim.max(left);
            self.stats.trim_erases += ssd.erase_trimmed_blocks(self.clock.now()) as u64;
            if let Engine::Serial(log) = &mut self.engine {
                log.trimmed(src);
            }
            self.track_roles();
            self.retry_stalled();
        }
        Ok(())
    }

    /// Snapshot GC counts when SSDs enter or leave the front-end role.
    fn track_roles(&mut self) {
        let Engine::Serial(log) = &mut self.engine else {
            return;
        };
        for (ssd, role) in log.changes.drain(..) {
            let gc = self.ssds[ssd as usize].ftl.stats.gc_invocations;
            let slot = &mut self.front_gc_base[ssd as usize];
            if let Some(b) = slot.take() {
                self.stats.front_gc_violations += gc - b;
            }
            if role == Role::Front {
                *slot = Some(gc);
            }
        }
    }

    fn sub_done(&mut self, id: u32) -> SimResult<()> {
        let sub = self.subs[id as usize];
        self.free_subs.push(id);
        let s = sub.ssd as usize;
        self.outstanding[s] -= 1;
        match sub.op {
            Op::Write => {
                self.bytes_w[s] += sub.bytes as u64;
                self.series
                    .add_ssd(s, self.clock.now(), sub.bytes as u64, true);
            }
            Op::Read => {
                self.bytes_r[s] += sub.bytes as u64;
                self.series
                    .add_ssd(s, self.clock.now(), sub.bytes as u64, false);
            }
            Op::Trim => {}
        }
        match sub.kind {
            SubKind::User { req } => self.req_part_done(req),
            SubKind::SerialRead { req, off, units } => {
                if let Engine::Serial(log) = &mut self.engine {
                    for k in 0..units {
                        log.check_read_done(sub.ssd, off + k);
                    }
                }
                self.req_part_done(req);
            }
            SubKind::RmwRead { stripe } => {
                let op = &mut self.stripes[stripe as usize];
                op.reads_left -= 1;
                if op.reads_left == 0 {
                    self.issue_stripe_writes(stripe);
                }
            }
            SubKind::StripeWrite { stripe } => {
                let op = &mut self.stripes[stripe as usize];
                op.writes_left -= 1;
                if op.writes_left == 0 {
                    let req = op.req;
                    self.free_stripes.push(stripe);
                    self.req_part_done(req);
                }
            }
            SubKind::CopyRead { unit, off } => {
                let Engine::Serial(log) = &mut self.engine else {
                    return Ok(());
                };
                if let Some((d, doff)) = log.copy_read_done(unit, sub.ssd, off)? {
                    let ub = log.unit;
                    self.series.add_xgc(self.clock.now());
                    self.submit(
                        d,
                        Op::Write,
                        doff as u64 * ub,
                        ub as u32,
                        SubKind::CopyWrite,
                    );
                }
                self.track_roles();
            }
            SubKind::CopyWrite => {
                if let Engine::Serial(log) = &mut self.engine {
                    log.copy_write_done();
                }
            }
            SubKind::Trim => {}
        }
        Ok(())
    }

    fn req_part_done(&mut self, req: u32) {
        let r = &mut self.remaining[req as usize];
        *r -= 1;
        if *r == 0 {
            self.finish_request(req);
        }
    }

    /// The array finished host request `id`: send its status (and read data)
    /// back over the link.
    fn finish_request(&mut self, id: u32) {
        let mut finished = std::mem::take(&mut self.finished_slots);
        finished.clear();
        // Probes (injected by the host scheduler) finish with no slot.
        self.host
            .complete(id, self.clock.now(), &self.view, &mut finished);
        self.host_turn = true;
        for slot in &finished {
            if let Some(l) = &mut self.ledger {
                l.note_completed(slot.req.seq);
            }
            let c = self.host_client[slot.req.id as usize];
            match &mut self.link {
                Some(l) => {
                    let data = if slot.req.op == Op::Read {
                        slot.req.size as u64
                    } else {
                        0
                    };
                    let t = l.send_out(self.clock.now(), data);
                    self.clock.q.push(t, Ev::LinkOut(c));
                }
                None => self.client_complete(c),
            }
        }
        self.finished_slots = finished;
    }

    fn client_complete(&mut self, idx: u32) {
        let c = self.creqs[idx as usize];
        self.free_creqs.push(idx);
        let done = Completion {
            arrival: c.arrival,
            dispatch: c.dispatch,
            complete: self.clock.now(),
            op: c.op,
            offset: c.offset,
            size: c.size,
            stream: c.stream,
        };
        self.metrics.record(&done);
        if c.op != Op::Trim {
            self.series.add_array(self.clock.now(), c.size as u64);
        }
        self.wl.get().on_complete(&done, self.clock.now());
        self.completed_any = true;
    }

    /// Build the summary (after `run`).
    pub fn summary(&self) -> ArraySummary {
        let m = &self.metrics;
        let sim_s = m.last_completion as f64 / NS_PER_S as f64;
        let per_ssd: Vec<SsdSummary> = self
            .ssds
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let st = &s.ftl.stats;
                SsdSummary {
                    index: i as u32,
                    role: match &self.engine {
                        Engine::Serial(l) => l.role[i].as_str().into(),
                        _ => "member".into(),
                    },
                    gc_invocations: st.gc_invocations,
                    gc_pages_moved: st.gc_pages_moved,
                    erases: st.erases,
                    reclaim_erases: st.reclaim_erases,
                    trimmed_pages: st.trimmed_pages,
                    waf: s.ftl.waf(),
                    bytes_written: self.bytes_w[i],
                    bytes_read: self.bytes_r[i],
                }
            })
            .collect();
        let link = self.link.as_ref().map(|l| {
            let (bi, bo, ti, to) = l.totals();
            let span = self.clock.now().max(1) as f64;
            LinkSummary {
                gbit_s: l.cfg.gbit_s,
                overhead_us: l.cfg.overhead_us,
                bytes_in: bi,
                bytes_out: bo,
                utilization_in: ti as f64 / span,
                utilization_out: to as f64 / span,
            }
        });
        let serial = match (&self.engine, &self.cfg.layout) {
            (Engine::Serial(l), Layout::Serial(sc)) => {
                let total: u64 = self.ssds.iter().map(|s| s.logical_bytes()).sum();
                Some(SerialSummary {
                    front_ends: sc.front_ends,
                    unit_bytes: l.unit,
                    segment_bytes: l.seg_units as u64 * l.unit,
                    victim: match sc.victim {
                        Victim::Fifo => "fifo".into(),
                        Victim::Greedy => "greedy".into(),
                    },
                    mapping_bytes: l.mapping_bytes(),
                    mapping_fraction: l.mapping_bytes() as f64 / total.max(1) as f64,
                    stats: l.stats.clone(),
                })
            }
            _ => None,
        };
        ArraySummary {
            layout: self.cfg.layout.name().into(),
            ssds: self.cfg.ssds,
            device: if self.dev_cfg.preset.is_empty() {
                "custom".into()
            } else {
                self.dev_cfg.preset.clone()
            },
            ssd_logical_bytes: self.ssds[0].logical_bytes(),
            volume_bytes: self.view.bytes,
            workload: self.wl.get_ref().describe(),
            seed: self.cfg.seed,
            requests: m.completed(),
            reads: m.read.count(),
            writes: m.write.count(),
            bytes_read: m.bytes_read,
            bytes_written: m.bytes_written,
            simulated_s: sim_s,
            wall_s: self.clock.wall().as_secs_f64(),
            bandwidth_mb_s: if sim_s > 0.0 {
                (m.bytes_read + m.bytes_written) as f64 / 1e6 / sim_s
            } else {
                0.0
            },
            bin_s: self.cfg.bin_ns as f64 / NS_PER_S as f64,
            phase_starts_s: self
                .phase_starts()
                .iter()
                .map(|&t| t as f64 / NS_PER_S as f64)
                .collect(),
            latency_us: LatencySummary::from(&m.all),
            read_latency_us: LatencySummary::from(&m.read),
            write_latency_us: LatencySummary::from(&m.write),
            gc_invocations: per_ssd.iter().map(|s| s.gc_invocations).sum(),
            per_ssd,
            link,
            serial,
            stats: self.stats.clone(),
        }
    }
}
