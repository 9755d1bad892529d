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
    /// Client bandwidth over the run, MiB/s (2^20 bytes).
    pub bandwidth_mib_s: f64,
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

impl ArraySim {
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
        let serial = match (&self.placement, &self.cfg.layout) {
            (Placement::Serial(l), Layout::Serial(sc)) => {
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
