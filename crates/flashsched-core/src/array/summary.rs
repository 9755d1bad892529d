//! What an array run reports: client-level latency and bandwidth, the
//! array layer's counters, and each SSD's and the link's share.

use serde::Serialize;

use super::serial::{SerialStats, Victim};
use super::{ArraySim, Layout, Placement};
use crate::engine::NS_PER_S;
use crate::metrics::LatencySummary;

/// Counters of the array layer.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArrayStats {
    /// RAID-5 stripe writes covering part of a stripe: old data and parity
    /// were read first (read-modify-write).
    pub rmw_stripes: u64,
    /// RAID-5 stripe writes covering every data chunk: parity from the new
    /// data alone, no reads.
    pub full_stripes: u64,
    /// Internal GC invocations on an SSD while it was a front-end.
    pub front_gc_violations: u64,
    /// Most valid pages any SSD's FTL held right after a whole-SSD TRIM.
    pub max_valid_pages_after_trim: u64,
    /// Erases queued for blocks emptied by a serial array's whole-SSD TRIM.
    pub trim_erases: u64,
    /// Times a serial-array write (or its remaining units) was parked to wait
    /// for log space; a write parked again after a retry counts again.
    pub stalled_writes: u64,
    /// Periods in which serial-array writes waited for xGC (log space).
    pub stall_events: u64,
    /// Total time writes waited for xGC, ns.
    pub stall_ns: u64,
}

/// What the array as a whole wrote for its users: the cost of GC inside
/// the SSDs and between them (xGC, RAID-5 parity) in one place.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Accounting {
    /// Usable capacity: the logical volume the clients address, bytes.
    pub usable_bytes: u64,
    /// Usable capacity / the SSDs' total logical space.
    pub usable_fraction: f64,
    /// Bytes the clients wrote (completed writes).
    pub user_bytes: u64,
    /// Bytes the array layer wrote to the SSDs (user data, xGC copies,
    /// RAID-5 parity, whole-unit rewrites).
    pub array_bytes_written: u64,
    /// Bytes xGC copied between SSDs (serial array).
    pub xgc_bytes: u64,
    /// Bytes internal GC relocated inside the SSDs.
    pub internal_gc_bytes: u64,
    /// Bytes programmed to flash (host + internal GC + mapping programs).
    pub flash_bytes_written: u64,
    /// Flash bytes written / user bytes (1 = no amplification anywhere).
    pub array_waf: f64,
    /// Block erases, all SSDs.
    pub erases: u64,
    /// Internal GC invocations, all SSDs.
    pub internal_gc_invocations: u64,
    /// Periods writes waited for xGC.
    pub stall_events: u64,
    /// Total time writes waited for xGC, ms.
    pub stall_ms: f64,
}

/// Per-SSD results. The SSD's traffic is what the array layer sent it:
/// user data plus RAID-5 parity and read-modify-write reads, or xGC copies.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SsdSummary {
    /// Position of the SSD in the array (0-based).
    pub index: u32,
    /// Serial-array role at the end of the run (`clean`, `front`, `back`,
    /// `source`); `member` in a RAID layout.
    pub role: String,
    /// Write speed factor (program time divided by it; 1 = as configured).
    pub speed: f64,
    /// Internal GC victim blocks selected by this SSD's FTL.
    pub gc_invocations: u64,
    /// Valid pages its internal GC relocated.
    pub gc_pages_moved: u64,
    /// Its block erases (GC and TRIM reclaim).
    pub erases: u64,
    /// Erases of blocks emptied by TRIM, outside GC (also in `erases`).
    pub reclaim_erases: u64,
    /// Mapped logical pages that TRIM unmapped.
    pub trimmed_pages: u64,
    /// Its FTL write amplification: (host + GC page programs) / host page
    /// programs, host programs being everything the array wrote to it.
    pub waf: f64,
    /// Bytes of write sub-requests completed on this SSD.
    pub bytes_written: u64,
    /// Bytes of read sub-requests completed on this SSD.
    pub bytes_read: u64,
}

/// The network link's share of an array run.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LinkSummary {
    /// Line rate, Gbit/s (10^9 bit/s).
    pub gbit_s: f64,
    /// Share of the line rate available to data (protocol efficiency).
    pub efficiency: f64,
    /// Data rate the link can carry at most, MB/s (10^6 B/s).
    pub payload_mb_s: f64,
    /// Fixed time per message in each direction, µs.
    pub overhead_us: f64,
    /// Write data carried host → array, bytes (message overheads are time,
    /// not bytes).
    pub bytes_in: u64,
    /// Read data carried array → host, bytes.
    pub bytes_out: u64,
    /// Busy time of the inbound pipe (overheads included) / the simulated
    /// span (to the last event), 0..1.
    pub utilization_in: f64,
    /// Busy time of the outbound pipe / the simulated span, 0..1.
    pub utilization_out: f64,
}

/// The serial array's configuration and counters.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SerialSummary {
    /// Front-end SSDs absorbing writes at once (configured).
    pub front_ends: u32,
    /// Mapping unit, bytes.
    pub unit_bytes: u64,
    /// Segment (the xGC victim unit), bytes.
    pub segment_bytes: u64,
    /// xGC victim policy: `retired`, `fifo` or `greedy`.
    pub victim: String,
    /// xGC destinations copied into at once.
    pub dests: u32,
    /// xGC unit copies in flight at most.
    pub window: u32,
    /// Whether a host cache serves reads of front-end data.
    pub front_cache: bool,
    /// Memory of the array-level mapping: forward and inverse maps plus
    /// per-segment valid counts, 4 bytes per entry.
    pub mapping_bytes: u64,
    /// Mapping bytes / total SSD logical capacity (paper §2.3: ~0.2 %).
    pub mapping_fraction: f64,
    /// Counters (flattened into this object in JSON).
    #[serde(flatten)]
    pub stats: SerialStats,
}

/// Everything an array run reports. Requests, bytes and latencies are the
/// clients': a request runs from its arrival at the client (before the
/// link) to its reply's arrival back.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArraySummary {
    /// `raid0`, `raid5` or `serial`.
    pub layout: String,
    /// SSDs in the array.
    pub ssds: u32,
    /// Preset every SSD's config started from (`custom` if none).
    pub device: String,
    /// Logical capacity of one SSD, bytes.
    pub ssd_logical_bytes: u64,
    /// Logical volume the clients address, bytes.
    pub volume_bytes: u64,
    /// The workload, in words.
    pub workload: String,
    /// Seed of the run.
    pub seed: u64,
    /// Completed client requests: reads + writes + trims.
    pub requests: u64,
    /// Completed client reads.
    pub reads: u64,
    /// Completed client writes.
    pub writes: u64,
    /// Bytes of completed client reads.
    pub bytes_read: u64,
    /// Bytes of completed client writes.
    pub bytes_written: u64,
    /// Simulated time to the last client completion, s.
    pub simulated_s: f64,
    /// Wall-clock time of building and running the array, s; 0 in stable
    /// JSON.
    pub wall_s: f64,
    /// Client bandwidth over the run, MiB/s (2^20 bytes).
    pub bandwidth_mib_s: f64,
    /// Width of a time-series bin, s.
    pub bin_s: f64,
    /// Start of each workload phase, s (`[0]` for a single phase).
    pub phase_starts_s: Vec<f64>,
    /// Latency of all client reads and writes.
    pub latency_us: LatencySummary,
    /// Latency of client reads.
    pub read_latency_us: LatencySummary,
    /// Latency of client writes.
    pub write_latency_us: LatencySummary,
    /// Internal GC victim selections, summed over the SSDs.
    pub gc_invocations: u64,
    /// Each SSD's results, by index.
    pub per_ssd: Vec<SsdSummary>,
    /// Array-level accounting: usable capacity, user vs flash bytes, WAF,
    /// erases, stalls.
    pub accounting: Accounting,
    /// Conditions a reader must know about (xGC falling behind, writes
    /// stalled); empty when none.
    pub warnings: Vec<String>,
    /// The link's share (`None` without a link).
    pub link: Option<LinkSummary>,
    /// Serial-array results (`None` for RAID layouts).
    pub serial: Option<SerialSummary>,
    /// Array-layer counters (flattened into this object in JSON).
    #[serde(flatten)]
    pub stats: ArrayStats,
}

impl ArraySummary {
    /// JSON text; with `stable` the wall-clock time is zeroed so two runs of
    /// the same config and seed compare equal byte for byte.
    pub fn to_json(&self, stable: bool) -> String {
        let mut s = self.clone();
        if stable {
            s.wall_s = 0.0;
        }
        serde_json::to_string_pretty(&s).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl ArraySim {
    fn accounting(&self, per_ssd: &[SsdSummary]) -> Accounting {
        let page = self.dev_cfg.geometry.page_size as u64;
        let (mut flash, mut gc) = (0, 0);
        for s in &self.ssds {
            let st = &s.ftl.stats;
            flash += (st.user_programs + st.gc_programs + st.mapping_programs) * page;
            gc += st.gc_programs * page;
        }
        let user = self.metrics.bytes_written;
        let logical: u64 = self.ssds.iter().map(|s| s.logical_bytes()).sum();
        let xgc = match &self.placement {
            Placement::Serial(l) => l.stats.xgc_units_copied * l.unit,
            _ => 0,
        };
        Accounting {
            usable_bytes: self.view.bytes,
            usable_fraction: self.view.bytes as f64 / logical.max(1) as f64,
            user_bytes: user,
            array_bytes_written: self.bytes_w.iter().sum(),
            xgc_bytes: xgc,
            internal_gc_bytes: gc,
            flash_bytes_written: flash,
            array_waf: if user > 0 {
                flash as f64 / user as f64
            } else {
                1.0
            },
            erases: per_ssd.iter().map(|s| s.erases).sum(),
            internal_gc_invocations: per_ssd.iter().map(|s| s.gc_invocations).sum(),
            stall_events: self.stats.stall_events,
            stall_ms: self.stats.stall_ns as f64 / 1e6,
        }
    }

    /// Warnings a run must not hide: xGC that fell behind the front-end
    /// (the keep-up condition) and writes that waited for it.
    fn warnings(&self, acc: &Accounting) -> Vec<String> {
        let mut w = Vec::new();
        if let Placement::Serial(l) = &self.placement {
            let k = &l.stats.keep_up;
            if k.jobs_behind > 0 {
                // The condition assumes no spare room beyond the victim's;
                // spare clean space can absorb a job that breaks it.
                let outcome = if acc.stall_events > 0 {
                    "xGC fell behind and writes waited"
                } else {
                    "spare space absorbed it, no write waited"
                };
                w.push(format!(
                    "xGC keep-up condition v/(1−v) ≤ copy rate / fill rate broken in {} of {} \
                     jobs (victims up to {:.0} % valid need a ratio up to {:.2}; measured as low \
                     as {:.2}): {outcome}",
                    k.jobs_behind,
                    k.jobs,
                    100.0 * k.max_valid_fraction,
                    k.max_needed_ratio,
                    k.min_copy_fill_ratio
                ));
            }
        }
        if acc.stall_events > 0 {
            w.push(format!(
                "writes waited for xGC {} times, {:.1} ms in total ({} parked writes)",
                acc.stall_events, acc.stall_ms, self.stats.stalled_writes
            ));
        }
        w
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
                    role: match &self.placement {
                        Placement::Serial(l) => l.role[i].as_str().into(),
                        _ => "member".into(),
                    },
                    speed: self.ssd_speeds.get(i).copied().unwrap_or(1.0),
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
                efficiency: l.cfg.efficiency,
                payload_mb_s: l.cfg.payload_bytes_per_s() / 1e6,
                overhead_us: l.cfg.overhead_us,
                bytes_in: bi,
                bytes_out: bo,
                utilization_in: ti as f64 / span,
                utilization_out: to as f64 / span,
            }
        });
        let serial = match (&self.placement, &self.cfg.layout) {
            (Placement::Serial(l), Layout::Serial(sc)) => {
                let total: u64 = self.ssds.iter().map(|s| s.logical_bytes()).sum();
                Some(SerialSummary {
                    front_ends: sc.front_ends,
                    unit_bytes: l.unit,
                    segment_bytes: l.seg_units as u64 * l.unit,
                    victim: match sc.victim {
                        Victim::Retired => "retired".into(),
                        Victim::Fifo => "fifo".into(),
                        Victim::Greedy => "greedy".into(),
                    },
                    dests: l.dests,
                    window: l.window,
                    front_cache: l.front_cache,
                    mapping_bytes: l.mapping_bytes(),
                    mapping_fraction: l.mapping_bytes() as f64 / total.max(1) as f64,
                    stats: l.stats.clone(),
                })
            }
            _ => None,
        };
        let accounting = self.accounting(&per_ssd);
        let warnings = self.warnings(&accounting);
        ArraySummary {
            accounting,
            warnings,
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
            bandwidth_mib_s: if sim_s > 0.0 {
                (m.bytes_read + m.bytes_written) as f64 / (1u64 << 20) as f64 / sim_s
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
