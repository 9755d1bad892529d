//! Amphibian (Mao, Wu and Duan, "Improving the SSD Performance by Exploiting
//! Request Characteristics and Internal Parallelism", §III), three modules that can
//! each be switched off for ablation:
//!
//! 1. **Type-based queueing** (§III-C, Fig. 4): separate read and write
//!    queues; reads are served whenever any is queued. Off: one queue.
//! 2. **Size-based ordering** (§III-D, Fig. 5): each queue is served
//!    smallest request first (ties: arrival order). Starvation guard: a read
//!    (write) that waited `read_timeout_ms` (`write_timeout_ms`) is served
//!    next, oldest first, reads before writes when both are expired
//!    (the read-priority rule). A request tagged high-priority bypasses all
//!    ordering. Off: FIFO inside each queue (the timeouts still apply).
//! 3. **GC-aware dispatching** (§III-E, Fig. 7): the host watches response
//!    times per *zone* ("continuously monitors the response times of each
//!    flash chip"). A completed read (and write, with `detect_writes`) that
//!    touched one zone and took longer than `detect_factor` × that zone's
//!    running mean for its direction (and at least `detect_min_us`) makes
//!    the zone suspect: nothing more is sent to it and `probes` page reads
//!    are injected there, on different planes of the zone where the host can
//!    tell them apart. If the slowest probe is above `probe_factor` × the
//!    zone's mean read latency (and `detect_min_us`) the zone is in GC: its requests stay in the host waiting queue while
//!    other zones are served; every `retry_ms` probes are sent again and the
//!    zone returns to normal when they come back at normal latency.
//!    `gc_detect = "oracle"` instead reads the device's per-chip GC flag
//!    (an open-channel interface, §III-E) with no probes.
//!
//! Assumptions where the paper is silent (documented in docs/amphibian.md):
//! zones are flash chips when the device's static striping lets the host
//! compute a logical page's chip (`zones = "chip"`, the open-channel case),
//! else equal contiguous LBA ranges (`zones = "range"`, the paper's "space
//! zones"); a held request is still released when its starvation timeout
//! expires, so GC holding is bounded; a request is held if any zone it
//! touches is in GC; running means (per zone, and a device-wide one for
//! zones without samples yet) are EWMAs, weight 1/16 for normal samples and
//! 1/256 for abnormal ones (so sustained load lifts the baseline).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{
    check_range, ms, DetectorLog, Done, GcFlag, HostCaps, HostCtx, HostEnv, HostScheduler,
    HostSchedulerType, Pick, ZoneChange,
};
use crate::engine::{Ns, NS_PER_US};
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::{DeviceView, Op};
use crate::registry::Params;

/// `[host.amphibian]` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AmphibianParams {
    /// Module 1: separate read/write queues, reads first.
    pub type_queueing: bool,
    /// Module 2: smallest request first inside each queue.
    pub size_ordering: bool,
    /// Module 3: hold requests to zones in GC.
    pub gc_aware: bool,
    /// A read queued this long goes next, whatever its size.
    pub read_timeout_ms: f64,
    /// A write queued this long goes next (after expired reads).
    pub write_timeout_ms: f64,
    /// How a zone in GC is recognised.
    pub gc_detect: GcDetect,
    /// What a zone is.
    pub zones: Zones,
    /// Zones in `range` mode (0 = number of chips).
    pub zone_count: u32,
    /// A response above this × its direction's running mean makes the zone
    /// suspect.
    pub detect_factor: f64,
    /// The response must also exceed this, µs (probes too).
    pub detect_min_us: f64,
    /// Also use write response times (off: with a DRAM write buffer a
    /// write's latency reflects the buffer, not a chip).
    pub detect_writes: bool,
    /// Page reads injected to confirm a suspect zone.
    pub probes: u32,
    /// The zone is in GC if its slowest probe is above this × the read mean.
    pub probe_factor: f64,
    /// Probes are sent again this often while a zone is in GC.
    pub retry_ms: f64,
    /// Hold writes to a zone in GC too (§III-E: "all the requests
    /// targeting the identified flash chip"); off: only reads are held (a
    /// diagnostic: a write-back data cache absorbs writes, so a write
    /// dispatched to a chip in GC does not wait for it).
    pub hold_writes: bool,
}

/// `gc_detect`: how the scheduler learns a zone is in GC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcDetect {
    /// From response times, confirmed by probe reads (§III-E).
    Latency,
    /// From the device's per-chip GC flag (an experiment's upper bound).
    Oracle,
}

/// `zones`: the unit the scheduler tracks GC in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zones {
    /// Flash chips, when static striping lets the host compute a page's chip.
    Chip,
    /// Equal contiguous LBA ranges (the paper's "space zones").
    Range,
}

impl Default for AmphibianParams {
    fn default() -> Self {
        AmphibianParams {
            type_queueing: true,
            size_ordering: true,
            gc_aware: true,
            read_timeout_ms: 500.0,
            write_timeout_ms: 5000.0,
            gc_detect: GcDetect::Latency,
            zones: Zones::Chip,
            zone_count: 0,
            detect_factor: 10.0,
            detect_min_us: 5000.0,
            detect_writes: false,
            probes: 3,
            probe_factor: 10.0,
            retry_ms: 1000.0,
            hold_writes: true,
        }
    }
}

impl Params for AmphibianParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "read_timeout_ms", self.read_timeout_ms, 0.0, 1e7)?;
        check_range(key, "write_timeout_ms", self.write_timeout_ms, 0.0, 1e7)?;
        check_range(key, "zone_count", self.zone_count as f64, 0.0, 65536.0)?;
        check_range(key, "detect_factor", self.detect_factor, 1.0, 1e6)?;
        check_range(key, "detect_min_us", self.detect_min_us, 0.0, 1e9)?;
        check_range(key, "probes", self.probes as f64, 1.0, 64.0)?;
        check_range(key, "probe_factor", self.probe_factor, 1.0, 1e6)?;
        check_range(key, "retry_ms", self.retry_ms, 0.001, 1e7)?;
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    op: Op,
    offset: u64,
    size: u32,
    seq: u64,
    queue: u8,
    key: u64,
    priority: bool,
}

const EMPTY: Entry = Entry {
    op: Op::Read,
    offset: 0,
    size: 0,
    seq: 0,
    queue: 0,
    key: 0,
    priority: false,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zone {
    Normal,
    /// Probes in flight (`to_send` not issued yet); `slowest` so far.
    Probing {
        to_send: u32,
        left: u32,
        slowest: Ns,
    },
    Gc {
        retry_at: Ns,
    },
}

/// The Amphibian host scheduler.
pub struct Amphibian {
    p: AmphibianParams,
    timeout: [Ns; 2],
    /// Per queue (0 = reads or all, 1 = writes): (size key, seq) → id.
    sorted: [BTreeMap<(u64, u64), u32>; 2],
    /// Per direction (0 = read, 1 = write/trim): (seq) → (id, arrival).
    fifo: [BTreeMap<u64, (u32, Ns)>; 2],
    prio: BTreeMap<u64, u32>,
    entries: Vec<Entry>,
    // --- GC-aware dispatch ---
    oracle: bool,
    chip_zones: bool,
    zones: Vec<Zone>,
    /// Zones not Normal (fast path when 0).
    abnormal: u32,
    zone_bytes: u64,
    /// EWMA of normal latency per zone and direction (ns; 0 = no sample
    /// yet); a zone without samples falls back to `device_mean`.
    mean: Vec<[f64; 2]>,
    /// The same over all zones.
    device_mean: [f64; 2],
    /// Chip zones: logical pages of the zone on distinct planes within one
    /// striping period (probe targets), lazily filled.
    probe_lpns: Vec<Vec<u64>>,
    next_probe_k: u32,
    /// Zones flagged as in GC, in order.
    pub log: Vec<GcFlag>,
    /// Hold changes of every zone (the detector report).
    changes: Vec<ZoneChange>,
    /// Probe reads injected.
    pub probes_sent: u64,
    /// Time of the call being handled (stamps zone changes).
    now: Ns,
    merger: Merger,
    held: usize,
}

fn dir(op: Op) -> usize {
    usize::from(op != Op::Read)
}

impl Amphibian {
    /// Size the zone table on first use (needs the device view).
    fn init_zones(&mut self, dev: &dyn DeviceView) {
        if !self.zones.is_empty() {
            return;
        }
        if dev.chip_of_lpn(0).is_none() {
            // Dynamic mapping: chips are unknowable, use LBA ranges.
            self.chip_zones = false;
        }
        let n = if self.chip_zones {
            dev.chips()
        } else if self.p.zone_count > 0 {
            self.p.zone_count
        } else {
            dev.chips()
        }
        .max(1);
        self.zones = vec![Zone::Normal; n as usize];
        self.mean = vec![[0.0; 2]; n as usize];
        self.probe_lpns = vec![Vec::new(); n as usize];
        self.zone_bytes = dev.logical_bytes().div_ceil(n as u64).max(1);
    }

    /// Calls `f(zone)` for each zone request `(offset, size)` touches
    /// (possibly repeating a zone); stops early when `f` returns true.
    fn any_zone(
        &self,
        dev: &dyn DeviceView,
        offset: u64,
        size: u32,
        mut f: impl FnMut(u32) -> bool,
    ) -> bool {
        let nz = self.zones.len() as u64;
        if self.chip_zones {
            let ps = dev.page_size() as u64;
            let first = offset / ps;
            let last = (offset + size.max(1) as u64 - 1) / ps;
            let n = (last - first + 1).min(dev.planes() as u64);
            (0..n).any(|k| dev.chip_of_lpn(first + k).is_some_and(&mut f))
        } else {
            let a = (offset / self.zone_bytes).min(nz - 1);
            let b = ((offset + size.max(1) as u64 - 1) / self.zone_bytes).min(nz - 1);
            (a..=b).any(|z| f(z as u32))
        }
    }

    fn blocked(&self, dev: &dyn DeviceView, id: u32) -> bool {
        if self.abnormal == 0 {
            return false;
        }
        let e = &self.entries[id as usize];
        if e.op != Op::Read && !self.p.hold_writes {
            return false;
        }
        self.any_zone(dev, e.offset, e.size, |z| {
            self.zones[z as usize] != Zone::Normal
        })
    }

    fn set_zone(&mut self, z: u32, to: Zone) {
        let from = self.zones[z as usize];
        if (from == Zone::Normal) != (to == Zone::Normal) {
            if to == Zone::Normal {
                self.abnormal -= 1;
            } else {
                self.abnormal += 1;
            }
            self.changes.push(ZoneChange {
                at: self.now,
                zone: z,
                held: to != Zone::Normal,
            });
        }
        self.zones[z as usize] = to;
    }

    /// Oracle mode: mirror the device's GC flags.
    fn refresh_oracle(&mut self, ctx: &HostCtx) {
        for z in 0..self.zones.len() as u32 {
            let gc = ctx.device.chip_in_gc(z);
            let now_gc = self.zones[z as usize] != Zone::Normal;
            if gc && !now_gc {
                self.log.push(GcFlag {
                    at: ctx.now,
                    zone: z,
                });
                self.set_zone(z, Zone::Gc { retry_at: Ns::MAX });
            } else if !gc && now_gc {
                self.set_zone(z, Zone::Normal);
            }
        }
    }

    /// Start retries that are due; return a probe to send, if any.
    fn probe_to_send(&mut self, ctx: &HostCtx) -> Option<Pick> {
        if self.abnormal == 0 {
            return None;
        }
        for z in 0..self.zones.len() {
            match self.zones[z] {
                Zone::Gc { retry_at } if ctx.now >= retry_at => {
                    self.zones[z] = Zone::Probing {
                        to_send: self.p.probes,
                        left: self.p.probes,
                        slowest: 0,
                    };
                }
                _ => {}
            }
            if let Zone::Probing {
                to_send,
                left,
                slowest,
            } = self.zones[z]
            {
                if to_send > 0 {
                    let offset = self.probe_offset(ctx, z as u32)?;
                    self.zones[z] = Zone::Probing {
                        to_send: to_send - 1,
                        left,
                        slowest,
                    };
                    self.probes_sent += 1;
                    return Some(Pick::Probe {
                        offset,
                        size: ctx.device.page_size(),
                        tag: z as u32,
                    });
                }
            }
        }
        None
    }

    /// A page in zone `z` (a different one for each probe).
    fn probe_offset(&mut self, ctx: &HostCtx, z: u32) -> Option<u64> {
        let dev = ctx.device;
        let ps = dev.page_size() as u64;
        let pages = dev.logical_bytes() / ps;
        self.next_probe_k = (self.next_probe_k + 1) % 1024;
        let k = self.next_probe_k as u64;
        if self.chip_zones {
            // One striping period holds one page of every plane: the zone's
            // pages there sit on its distinct planes. Probes rotate over
            // them (and move on by whole periods), so a chip's probes do
            // not all queue on one plane.
            let period = dev.planes() as u64;
            if self.probe_lpns[z as usize].is_empty() {
                let on_chip: Vec<u64> = (0..period.min(pages))
                    .filter(|&l| dev.chip_of_lpn(l) == Some(z))
                    .collect();
                if on_chip.is_empty() {
                    return None;
                }
                self.probe_lpns[z as usize] = on_chip;
            }
            let lpns = &self.probe_lpns[z as usize];
            let n = lpns.len() as u64;
            let base = lpns[(k % n) as usize];
            Some(((base + (k / n) * period) % pages.max(1)) * ps)
        } else {
            let zone_pages = (self.zone_bytes / ps).max(1);
            let lpn = z as u64 * zone_pages + (k * 7919) % zone_pages;
            Some(lpn.min(pages.saturating_sub(1)) * ps)
        }
    }

    fn remove(&mut self, id: u32) {
        let e = self.entries[id as usize];
        self.sorted[e.queue as usize].remove(&(e.key, e.seq));
        self.fifo[dir(e.op)].remove(&e.seq);
        if e.priority {
            self.prio.remove(&e.seq);
        }
    }

    /// The oldest request of a direction whose timeout expired.
    fn expired(&self, d: usize, now: Ns) -> Option<u32> {
        let (_, &(id, arrival)) = self.fifo[d].iter().next()?;
        (now >= arrival.saturating_add(self.timeout[d])).then_some(id)
    }

    fn choose(&self, ctx: &HostCtx) -> Option<u32> {
        if let Some((_, &id)) = self.prio.iter().next() {
            return Some(id);
        }
        // Read priority also among expired requests.
        if let Some(id) = self
            .expired(0, ctx.now)
            .or_else(|| self.expired(1, ctx.now))
        {
            return Some(id);
        }
        let queues = if self.p.type_queueing { 2 } else { 1 };
        for q in 0..queues {
            for &id in self.sorted[q].values() {
                if !self.blocked(ctx.device, id) {
                    return Some(id);
                }
            }
        }
        None
    }

    fn on_user_complete(&mut self, done: &Done, ctx: &HostCtx) {
        let lat = ctx.now.saturating_sub(done.dispatched) as f64;
        let d = dir(done.req.op);
        if d == 1 && !self.p.detect_writes {
            return;
        }
        // Attribute only requests that touched a single zone.
        let mut zone = None;
        let mut single = true;
        self.any_zone(ctx.device, done.req.offset, done.req.size, |z| {
            if zone.is_some_and(|x| x != z) {
                single = false;
                return true;
            }
            zone = Some(z);
            false
        });
        let min = self.p.detect_min_us * NS_PER_US as f64;
        // Normal samples move a mean fast; abnormal ones slowly, so a
        // generally loaded zone raises its baseline (instead of looking
        // like GC) while short GC spikes stand out.
        let step = |m: f64, abnormal: bool| {
            let w = if abnormal { 256.0 } else { 16.0 };
            if m == 0.0 {
                lat
            } else {
                m + (lat - m) / w
            }
        };
        let dm = self.device_mean[d];
        let dev_abnormal = dm > 0.0 && lat > self.p.detect_factor * dm && lat > min;
        self.device_mean[d] = step(dm, dev_abnormal);
        if let (true, Some(z)) = (single, zone) {
            let zm = self.mean[z as usize][d];
            let m = if zm > 0.0 { zm } else { dm };
            let abnormal = m > 0.0 && lat > self.p.detect_factor * m && lat > min;
            self.mean[z as usize][d] = step(zm, abnormal);
            if abnormal && self.zones[z as usize] == Zone::Normal {
                let n = self.p.probes;
                self.set_zone(
                    z,
                    Zone::Probing {
                        to_send: n,
                        left: n,
                        slowest: 0,
                    },
                );
            }
        }
    }

    fn on_probe_complete(&mut self, done: &Done, ctx: &HostCtx) {
        let z = done.req.stream;
        if z as usize >= self.zones.len() {
            return;
        }
        let lat = ctx.now.saturating_sub(done.dispatched);
        let Zone::Probing {
            to_send,
            left,
            slowest,
        } = self.zones[z as usize]
        else {
            return;
        };
        let slowest = slowest.max(lat);
        if left > 1 {
            self.zones[z as usize] = Zone::Probing {
                to_send,
                left: left - 1,
                slowest,
            };
            return;
        }
        let min = self.p.detect_min_us * NS_PER_US as f64;
        let zm = self.mean[z as usize][0];
        let base = if zm > 0.0 {
            zm
        } else if self.device_mean[0] > 0.0 {
            self.device_mean[0]
        } else {
            min
        };
        let gc = slowest as f64 > self.p.probe_factor * base && slowest as f64 > min;
        if gc {
            self.log.push(GcFlag {
                at: ctx.now,
                zone: z,
            });
            self.set_zone(
                z,
                Zone::Gc {
                    retry_at: ctx.now + ms(self.p.retry_ms),
                },
            );
        } else {
            self.set_zone(z, Zone::Normal);
        }
    }
}

impl HostSchedulerType for Amphibian {
    const NAME: &'static str = "amphibian";
    const ABOUT: &'static str =
        "Amphibian: read/write type queues, smallest first, GC-aware dispatch";
    type Params = AmphibianParams;

    fn new(p: AmphibianParams, env: &HostEnv) -> Self {
        Amphibian {
            timeout: [ms(p.read_timeout_ms), ms(p.write_timeout_ms)],
            oracle: p.gc_detect == GcDetect::Oracle,
            chip_zones: p.zones == Zones::Chip,
            p,
            sorted: Default::default(),
            fifo: Default::default(),
            prio: BTreeMap::new(),
            entries: Vec::new(),
            zones: Vec::new(),
            abnormal: 0,
            zone_bytes: 0,
            mean: Vec::new(),
            device_mean: [0.0; 2],
            probe_lpns: Vec::new(),
            next_probe_k: 0,
            log: Vec::new(),
            changes: Vec::new(),
            probes_sent: 0,
            now: 0,
            merger: Merger::new(env.max_merge_bytes),
            held: 0,
        }
    }
}

impl HostScheduler for Amphibian {
    fn enqueue(&mut self, req: &HostRequest, _now: Ns) {
        self.held += 1;
        // Elevator-core back merge (Linux merges under every scheduler); the
        // grown request is re-sorted by its new size.
        if let Some(lead) = self.merger.try_back(req) {
            let e = self.entries[lead as usize];
            let (_, len) = self.merger.range(lead);
            let size = len.min(u32::MAX as u64) as u32;
            let key = if self.p.size_ordering { size as u64 } else { 0 };
            let q = &mut self.sorted[e.queue as usize];
            q.remove(&(e.key, e.seq));
            q.insert((key, e.seq), lead);
            let e = &mut self.entries[lead as usize];
            e.size = size;
            e.key = key;
            return;
        }
        self.merger.insert(req);
        let queue = if self.p.type_queueing {
            dir(req.op) as u8
        } else {
            0
        };
        let key = if self.p.size_ordering {
            req.size as u64
        } else {
            0
        };
        let e = Entry {
            op: req.op,
            offset: req.offset,
            size: req.size,
            seq: req.seq,
            queue,
            key,
            priority: req.priority,
        };
        let i = req.id as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1, EMPTY);
        }
        self.entries[i] = e;
        self.sorted[queue as usize].insert((key, req.seq), req.id);
        self.fifo[dir(req.op)].insert(req.seq, (req.id, req.arrival));
        if req.priority {
            self.prio.insert(req.seq, req.id);
        }
    }

    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        self.now = ctx.now;
        if self.p.gc_aware {
            self.init_zones(ctx.device);
            if self.oracle {
                if self.chip_zones {
                    self.refresh_oracle(ctx);
                }
            } else if let Some(p) = self.probe_to_send(ctx) {
                return Some(p);
            }
        }
        let id = self.choose(ctx)?;
        self.remove(id);
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Some(Pick::Req(id))
    }

    fn on_complete(&mut self, done: &Done, ctx: &HostCtx) {
        if !self.p.gc_aware || self.oracle {
            return;
        }
        self.now = ctx.now;
        if done.probe {
            self.on_probe_complete(done, ctx);
        } else {
            self.on_user_complete(done, ctx);
        }
    }

    fn caps(&self) -> HostCaps {
        HostCaps {
            timers: true,
            observes_device: self.oracle,
            idle_when_empty: false,
        }
    }

    fn next_timer(&self) -> Option<Ns> {
        if self.abnormal == 0 || self.len() == 0 {
            return None;
        }
        // Held requests need a wake-up at their timeout; zones at retry.
        let retry = self
            .zones
            .iter()
            .filter_map(|z| match z {
                Zone::Gc { retry_at } if *retry_at != Ns::MAX => Some(*retry_at),
                _ => None,
            })
            .min();
        let expiry = (0..2)
            .filter_map(|d| {
                self.fifo[d]
                    .iter()
                    .next()
                    .map(|(_, &(_, a))| a.saturating_add(self.timeout[d]))
            })
            .min();
        match (retry, expiry) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn gc_log(&self) -> &[GcFlag] {
        &self.log
    }

    fn detector(&self) -> Option<DetectorLog<'_>> {
        self.p.gc_aware.then_some(DetectorLog {
            // Before the first dispatch the table is not sized yet.
            zones: self.zones.len() as u32,
            chip_zones: self.chip_zones,
            changes: &self.changes,
            flags: &self.log,
            probes_sent: self.probes_sent,
        })
    }

    fn len(&self) -> usize {
        self.held
    }
}
