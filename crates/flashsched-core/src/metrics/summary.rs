//! The run summary: what `flashsched run` prints and writes as JSON.

use serde::Serialize;

use super::Histogram;

/// Latency statistics of completed reads and/or writes (TRIMs are not
/// timed), in microseconds. Latency runs from a request's arrival at the
/// host queue (host queueing included) to its completion. Mean and max are
/// exact; percentiles are nearest-rank values read from a log-linear
/// histogram (bucket midpoint, within 0.1 %).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    /// Requests measured.
    pub count: u64,
    /// Mean latency, µs (0 when `count` is 0).
    pub mean: f64,
    /// Median, µs.
    pub p50: f64,
    /// 90th percentile, µs.
    pub p90: f64,
    /// 99th percentile, µs.
    pub p99: f64,
    /// 99.9th percentile, µs.
    pub p999: f64,
    /// Largest latency, µs.
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

/// Garbage-collection activity of the FTL over the run.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct GcSummary {
    /// GC victim blocks selected (one per block GC set out to reclaim).
    pub invocations: u64,
    /// Valid pages GC relocated (a copy whose page was overwritten while it
    /// was in flight is not counted).
    pub pages_moved: u64,
    /// Block erases, by GC and of blocks emptied by TRIM.
    pub erases: u64,
}

/// The cached mapping table (`[mapping]`; all zero when the whole table
/// is in DRAM).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct MappingSummary {
    /// Entries the cache holds.
    pub cmt_entries: u64,
    /// Lookups by host page transactions.
    pub queries: u64,
    /// Lookups found in DRAM.
    pub hits: u64,
    /// `hits` / `queries` (0 when there were none).
    pub hit_ratio: f64,
    /// Flash reads of translation pages (misses and write-back merges).
    pub flash_reads: u64,
    /// Translation pages written back (evictions of changed entries).
    pub writebacks: u64,
    /// Programs of written-back translation pages that reached flash.
    pub flash_programs: u64,
}

/// How the device was preconditioned (`ftl.precondition_fill`), before the
/// workload's first request.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PreconditionSummary {
    /// Requested logical fill fraction, 0..=1.
    pub fill: f64,
    /// Logical pages mapped by preconditioning (fewer than `fill` × logical
    /// pages if they did not fit; the rest are placed on first read).
    pub live_pages: u64,
    /// Valid pages / programmed pages over the blocks preconditioning filled
    /// (0 for a fresh device).
    pub mean_block_validity: f64,
    /// Blocks left free in every plane (GC threshold + 1; 0 for a fresh
    /// device, whose blocks are all free).
    pub free_blocks_per_plane: u32,
    /// How the state was built, in words (`none (fresh device)` when
    /// `fill` is 0).
    pub method: String,
}

/// Flash-level activity. Counts are of pages unless named otherwise.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlashSummary {
    /// Page reads sensed on flash: user and GC (copyback moves included).
    pub reads: u64,
    /// Page programs on flash: user, GC and copyback (superseded programs
    /// included, untimed placements not).
    pub programs: u64,
    /// Page reads of host requests sensed on flash (DRAM hits and reads of
    /// TRIMmed pages never reach flash and are not counted).
    pub user_page_reads: u64,
    /// Page reads made by GC to move valid pages.
    pub gc_page_reads: u64,
    /// Page reads of the sectors partial page programs did not carry
    /// (read-modify-write, `ftl.update_reads`; listed only when some were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub update_reads: u64,
    /// Host page reads done without flash because a read of the same page
    /// was queued or running (`controller.shared_reads`, SSDsim's; listed
    /// only when some were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shared_reads: u64,
    /// Pages skipped to level two-plane programs (`controller.multiplane =
    /// "same-block"`, SSDsim's wasted pages; listed only when some were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wasted_pages: u64,
    /// User page reads answered from controller DRAM (data still in flight
    /// or buffered for a write): no flash access.
    pub dram_read_hits: u64,
    /// User programs whose data a later write had already superseded when
    /// they started (written, immediately stale).
    pub superseded_programs: u64,
    /// User programs sent at start to another plane than the one they were
    /// queued for: theirs had no page and GC nothing to reclaim there
    /// (dynamic allocation; listed only when some were).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub programs_replanned: u64,
    /// Never-written pages that a read touched, placed in the mapping
    /// without a timed program so the read has a page to sense.
    pub untimed_placements: u64,
    /// Transfers on the channel buses (a read's data-out or a program's
    /// data-in), all channels.
    pub channel_transfers: u64,
    /// Transfers that had to wait because their channel bus was busy.
    pub channel_conflicts: u64,
    /// Per chip: busy time of its dies / (dies × the simulated span), where
    /// the span runs to the later of the last completion and the end of
    /// background work.
    pub chip_utilization: Vec<f64>,
    /// Mean of `chip_utilization` over the chips.
    pub mean_chip_utilization: f64,
    /// Program/erase suspensions (P/E suspension).
    pub suspensions: u64,
    /// Resumptions of suspended programs/erases.
    pub resumes: u64,
    /// Write-caused interference (AOS §IV-B.2): user page reads that waited
    /// while a program or erase held their die after they arrived.
    pub interfered_reads: u64,
    /// Mean wait of those reads, from entering the device queue to the start
    /// of sensing, µs (0 when none).
    pub mean_interference_wait_us: f64,
    /// Flash commands started: a multi-plane command counts once.
    pub commands: u64,
    /// Operations (page reads and programs, block erases) per flash
    /// command: 1 without multi-plane commands, up to planes per die.
    pub pages_per_command: f64,
    /// Flash-level parallelism: mean busy dies per busy chip.
    pub flp: f64,
    /// System-level parallelism: mean busy chips while any chip is busy.
    pub slp_chips: f64,
    /// System-level parallelism: mean channels with a busy chip while any
    /// chip is busy.
    pub slp_channels: f64,
    /// Read requests that reached flash and found a chip they need already
    /// holding queued or running work (VIOS Table 1).
    pub read_conflicts: u64,
    /// Write requests that found a chip they need already holding queued or
    /// running work.
    pub write_conflicts: u64,
    /// (read + write conflicts) / requests that reached flash, in percent.
    pub conflict_ratio_pct: f64,
}

/// Everything a run of one device reports. Request counts and bytes are of
/// completed host requests; rates are over `simulated_s`.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Summary {
    /// Preset the device config started from (`custom` if none).
    pub device: String,
    /// Host I/O scheduler (`--host-sched`; config key `host.scheduler`).
    pub host_sched: String,
    /// Flash transaction scheduler (`--device-sched`; `controller.scheduler`).
    pub device_sched: String,
    /// The workload, in words.
    pub workload: String,
    /// Seed of the run.
    pub seed: u64,
    /// Completed requests: reads + writes + trims.
    pub requests: u64,
    /// Completed reads.
    pub reads: u64,
    /// Completed writes.
    pub writes: u64,
    /// Completed TRIMs.
    pub trims: u64,
    /// Bytes of completed reads.
    pub bytes_read: u64,
    /// Bytes of completed writes.
    pub bytes_written: u64,
    /// `requests` (TRIMs included) per simulated second.
    pub iops: f64,
    /// (`bytes_read` + `bytes_written`) per simulated second, MiB/s (2^20
    /// bytes).
    pub bandwidth_mib_s: f64,
    /// Simulated time to the last completion, s (GC still running after
    /// it is not included).
    pub simulated_s: f64,
    /// Wall-clock time of building the device (preconditioning included)
    /// and running it, s; 0 in stable JSON.
    pub wall_s: f64,
    /// Events the engine processed.
    pub events: u64,
    /// Simulator speed: `requests` / `wall_s`; 0 in stable JSON.
    pub requests_per_wall_s: f64,
    /// FTL write amplification: (user + GC page programs) / user page
    /// programs (1 when nothing was written).
    pub waf: f64,
    /// Latency of all reads and writes.
    pub latency_us: LatencySummary,
    /// Latency of reads.
    pub read_latency_us: LatencySummary,
    /// Latency of writes.
    pub write_latency_us: LatencySummary,
    /// Garbage collection.
    pub gc: GcSummary,
    /// Flash-level activity.
    pub flash: FlashSummary,
    /// The cached mapping table.
    pub mapping: MappingSummary,
    /// Preconditioning.
    pub precondition: PreconditionSummary,
    /// Simulator memory held by the run: FTL tables plus the per-request
    /// record columns (allocated capacity), bytes.
    pub memory_bytes: u64,
    /// Trace input accounting (`None` for generated workloads).
    pub input: Option<crate::workload::trace::TraceStats>,
    /// The host's GC detector scored against the device (GC-aware host
    /// schedulers only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_detection: Option<super::gc_detect::DetectionSummary>,
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

fn is_zero(v: &u64) -> bool {
    *v == 0
}
