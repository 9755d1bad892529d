//! The run summary: what `flashsched run` prints and writes as JSON.

use serde::Serialize;

use super::Histogram;

/// Latency statistics in microseconds.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl From<&Histogram> for LatencySummary {
    fn from(h: &Histogram) -> Self {
        let us = |x: f64| x / 1000.0;
        LatencySummary {
            count: h.count(),
            mean: us(h.mean()),
            p50: us(h.quantile(0.5)),
            p90: us(h.quantile(0.9)),
            p99: us(h.quantile(0.99)),
            p999: us(h.quantile(0.999)),
            max: us(h.max() as f64),
        }
    }
}

/// Garbage-collection activity.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct GcSummary {
    pub invocations: u64,
    pub pages_moved: u64,
    pub erases: u64,
}

/// The cached mapping table (`[mapping]`; all zero when the whole table
/// is in DRAM).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct MappingSummary {
    /// Entries the cache holds.
    pub cmt_entries: u64,
    /// Lookups by host page transactions, and those found in DRAM.
    pub queries: u64,
    pub hits: u64,
    pub hit_ratio: f64,
    /// Flash reads of translation pages (misses and write-back merges).
    pub flash_reads: u64,
    /// Translation pages written back (evictions of changed entries), and
    /// the programs of them that reached flash.
    pub writebacks: u64,
    pub flash_programs: u64,
}

/// How the device was preconditioned.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PreconditionSummary {
    pub fill: f64,
    pub live_pages: u64,
    pub mean_block_validity: f64,
    pub free_blocks_per_plane: u32,
    pub method: String,
}

/// Flash-level activity.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlashSummary {
    pub reads: u64,
    pub programs: u64,
    pub user_page_reads: u64,
    pub gc_page_reads: u64,
    pub dram_read_hits: u64,
    pub superseded_programs: u64,
    pub untimed_placements: u64,
    pub channel_transfers: u64,
    pub channel_conflicts: u64,
    /// Mean busy fraction of each chip's dies over the simulated time.
    pub chip_utilization: Vec<f64>,
    pub mean_chip_utilization: f64,
    /// Program/erase suspensions (P/E suspension) and resumptions.
    pub suspensions: u64,
    pub resumes: u64,
    /// Write-caused interference (AOS §IV-B.2): user page reads that waited
    /// while a program/erase held their die, and their mean wait (µs).
    pub interfered_reads: u64,
    pub mean_interference_wait_us: f64,
    /// Flash commands started: a multi-plane command counts once.
    pub commands: u64,
    /// Operations (page reads and programs, block erases) per flash
    /// command: 1 without multi-plane commands, up to planes per die.
    pub pages_per_command: f64,
    /// Flash-level parallelism: mean busy dies per busy chip.
    pub flp: f64,
    /// System-level parallelism: mean busy chips / channels while any is busy.
    pub slp_chips: f64,
    pub slp_channels: f64,
    /// Requests that found a needed chip already holding work (VIOS Table 1).
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    /// (read + write conflicts) / requests that reached flash, in percent.
    pub conflict_ratio_pct: f64,
}

/// Everything a run reports.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Summary {
    pub device: String,
    /// Host I/O scheduler (`--host-sched`; config key `host.scheduler`).
    pub host_sched: String,
    /// Flash transaction scheduler (`--device-sched`; `controller.scheduler`).
    pub device_sched: String,
    pub workload: String,
    pub seed: u64,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub iops: f64,
    pub bandwidth_mib_s: f64,
    pub simulated_s: f64,
    pub wall_s: f64,
    pub events: u64,
    pub requests_per_wall_s: f64,
    pub waf: f64,
    pub latency_us: LatencySummary,
    pub read_latency_us: LatencySummary,
    pub write_latency_us: LatencySummary,
    pub gc: GcSummary,
    pub flash: FlashSummary,
    pub mapping: MappingSummary,
    pub precondition: PreconditionSummary,
    pub memory_bytes: u64,
    /// Trace input accounting (`None` for generated workloads).
    pub input: Option<crate::workload::trace::TraceStats>,
}

impl Summary {
    /// JSON text; with `stable` the wall-clock fields are zeroed so two runs
    /// of the same config and seed compare equal byte for byte.
    pub fn to_json(&self, stable: bool) -> String {
        let mut s = self.clone();
        if stable {
            s.wall_s = 0.0;
            s.requests_per_wall_s = 0.0;
        }
        serde_json::to_string_pretty(&s).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}
