//! Device configuration: typed sections, built-in presets, strict validation.
//!
//! A config is assembled as a TOML tree (preset → user file → `--set` overrides),
//! checked key by key against the known schema (an unknown key is an error that
//! names it), deserialized, then range-checked (a bad value is an error naming
//! the key and the allowed range).

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::error::{SimError, SimResult};

/// Built-in presets: (name, TOML text).
const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../presets/default.toml")),
    (
        "mqsim-default",
        include_str!("../../presets/mqsim-default.toml"),
    ),
    (
        "ssdsim-default",
        include_str!("../../presets/ssdsim-default.toml"),
    ),
    ("vios-128g", include_str!("../../presets/vios-128g.toml")),
    ("intel-x25e", include_str!("../../presets/intel-x25e.toml")),
    (
        "intel-dc-s3700",
        include_str!("../../presets/intel-dc-s3700.toml"),
    ),
    ("intel-750", include_str!("../../presets/intel-750.toml")),
];

/// Flash array shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
}

/// NAND and bus timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// "slc" | "mlc" | "tlc": bits per cell, used for per-page-type latencies.
    pub cell: String,
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    /// Channel bus rate in MB/s (10^6 bytes per second); 0 = infinite (no bus).
    pub channel_mb_s: f64,
    /// Command/address overhead added to every flash operation.
    #[serde(default)]
    pub command_us: f64,
    /// Vary read/program latency by page type (LSB/CSB/MSB) around the nominal.
    #[serde(default)]
    pub per_page_type: bool,
}

/// Flash translation layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Fraction of physical capacity hidden from the host.
    pub overprovisioning: f64,
    /// "static:XXXX" (a permutation of C, W, D, P; first letter varies fastest) or "dynamic".
    pub allocation: String,
    /// GC starts in a plane when its free-block fraction drops below this.
    pub gc_threshold: f64,
    /// greedy | cost-benefit | random | fifo | d-choice
    pub gc_policy: String,
    /// Candidates sampled by d-choice.
    #[serde(default = "default_d_choice")]
    pub gc_d_choice: u32,
    /// GC page moves in flight per job: 1 copies page by page so user I/O
    /// interleaves; 0 queues the whole victim at once (a burst).
    #[serde(default = "default_gc_window")]
    pub gc_move_window: u32,
    /// Move GC pages with on-die copyback (no channel transfer).
    #[serde(default)]
    pub copyback: bool,
    /// Logical fill fraction reached by the steady-state preconditioner (0 = fresh).
    #[serde(default)]
    pub precondition_fill: f64,
    /// DRAM write buffer in MiB (0 = none: writes complete when programmed).
    #[serde(default)]
    pub write_buffer_mib: f64,
}

fn default_d_choice() -> u32 {
    4
}

fn default_gc_window() -> u32 {
    1
}

/// Host interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Maximum requests outstanding at the device (SATA NCQ 32, NVMe deep).
    pub queue_depth: u32,
    /// Host I/O scheduler name.
    pub scheduler: String,
    /// Largest request the merging schedulers build (noop, deadline), KiB;
    /// 0 disables merging (Linux `max_sectors_kb`, 512 KiB).
    #[serde(default = "default_max_merge_kib")]
    pub max_merge_kib: u32,
    #[serde(default)]
    pub deadline: crate::sched::host::DeadlineParams,
    #[serde(default)]
    pub cfq: crate::sched::host::CfqParams,
    #[serde(default)]
    pub pardispatcher: crate::sched::host::ParDispatcherParams,
    #[serde(default)]
    pub kyber: crate::sched::host::KyberParams,
    #[serde(default)]
    pub bfq: crate::sched::host::BfqParams,
    #[serde(default)]
    pub amphibian: crate::sched::host::AmphibianParams,
}

fn default_max_merge_kib() -> u32 {
    512
}

/// Device controller (below the FTL).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// Flash transaction scheduler name.
    #[serde(default = "default_device_scheduler")]
    pub scheduler: String,
    /// P/E suspension (`pe-suspend`, docs/devsched.md): suspend programs for reads.
    #[serde(default = "yes")]
    pub suspend_program: bool,
    /// Suspend erases for reads.
    #[serde(default = "yes")]
    pub suspend_erase: bool,
    /// Writes may suspend erases too (Wu & He, JSA'14 "write-suspend-erase").
    #[serde(default)]
    pub write_suspend_erase: bool,
    /// A program is only suspended if at least this much of it remains after
    /// the next phase boundary.
    #[serde(default = "default_min_remaining_program")]
    pub suspend_min_remaining_program_us: f64,
    /// Same for erases.
    #[serde(default = "default_min_remaining_erase")]
    pub suspend_min_remaining_erase_us: f64,
    /// ISPP program loops (suspension points are loop boundaries).
    #[serde(default = "default_program_loops")]
    pub program_loops: u32,
    /// Erase pulses (suspension points are pulse boundaries).
    #[serde(default = "default_erase_loops")]
    pub erase_loops: u32,
    /// Time to suspend (added before the suspending operation starts).
    #[serde(default = "default_suspend_us")]
    pub suspend_us: f64,
    /// Overhead added to the remaining time when an operation resumes.
    #[serde(default = "default_resume_us")]
    pub resume_us: f64,
    /// Writes queued on a die at which `pe-suspend` stops preferring reads
    /// (starvation guard).
    #[serde(default = "default_write_limit")]
    pub write_queue_limit: u32,
    /// PIQ: read batches issued in a row while writes wait before one write
    /// batch must go (bounded write starvation).
    #[serde(default = "default_read_batches")]
    pub piq_max_read_batches: u32,
    /// PIQ conflict unit: `chip` (MSST'14), `die` or `plane` (TCAD'18).
    #[serde(default = "default_piq_unit")]
    pub piq_granularity: String,
    /// AOS dispatching region (program pending queue capacity) in pages;
    /// 0 = 1 MiB worth of pages (half of the paper's 2 MB write buffer).
    #[serde(default)]
    pub aos_dispatch_region_pages: u32,
    /// AOS re-ordering set capacity per chip (the paper: 2 × chips entries).
    #[serde(default = "default_rs_per_chip")]
    pub aos_rs_per_chip: u32,
    /// AOS: same-type requests on different planes of one die may share the
    /// re-ordering set (multiplane sharing, §III-A Eq. 4). The device runs
    /// them one after the other (multi-plane operations are not modelled).
    #[serde(default = "yes")]
    pub aos_multiplane: bool,
}

fn default_rs_per_chip() -> u32 {
    2
}

fn default_device_scheduler() -> String {
    "fifo".into()
}

fn default_piq_unit() -> String {
    "chip".into()
}

fn yes() -> bool {
    true
}
fn default_min_remaining_program() -> f64 {
    50.0
}
fn default_min_remaining_erase() -> f64 {
    100.0
}
fn default_program_loops() -> u32 {
    10
}
fn default_erase_loops() -> u32 {
    5
}
fn default_suspend_us() -> f64 {
    5.0
}
fn default_resume_us() -> f64 {
    10.0
}
fn default_write_limit() -> u32 {
    64
}
fn default_read_batches() -> u32 {
    4
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            scheduler: default_device_scheduler(),
            suspend_program: true,
            suspend_erase: true,
            write_suspend_erase: false,
            suspend_min_remaining_program_us: default_min_remaining_program(),
            suspend_min_remaining_erase_us: default_min_remaining_erase(),
            program_loops: default_program_loops(),
            erase_loops: default_erase_loops(),
            suspend_us: default_suspend_us(),
            resume_us: default_resume_us(),
            write_queue_limit: default_write_limit(),
            piq_max_read_batches: default_read_batches(),
            piq_granularity: default_piq_unit(),
            aos_dispatch_region_pages: 0,
            aos_rs_per_chip: default_rs_per_chip(),
            aos_multiplane: true,
        }
    }
}

/// Process-variation model (docs/variation.md; VIOS §4, baselines §6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VariationConfig {
    /// Per-block program speeds from the variation model (every scheduler).
    pub enabled: bool,
    /// Wear stage of the device in P/E cycles (VIOS evaluates 6K/9K/12K/15K).
    pub wear_pe: u32,
    /// BER growth rate per 1000 P/E cycles: bounded Gaussian mean and sd.
    pub ber_growth_mean: f64,
    pub ber_growth_sd: f64,
    /// The Gaussian is bounded to mean ± this many sd.
    pub ber_bound_sd: f64,
    /// Write step range and granularity (V); tPROG = program_us × step_min / ΔVp.
    pub step_min: f64,
    pub step_max: f64,
    pub step_inc: f64,
    /// Highest raw BER the ECC corrects (write-speed detection target).
    pub ecc_ber: f64,
    /// BER grows as (ΔVp / step_min)^exponent.
    pub step_exponent: f64,
}

impl Default for VariationConfig {
    fn default() -> Self {
        VariationConfig {
            enabled: false,
            wear_pe: 12_000,
            ber_growth_mean: 3.7e-4,
            ber_growth_sd: 9e-5,
            ber_bound_sd: 3.0,
            step_min: 0.3,
            step_max: 0.6,
            step_inc: 0.03,
            ecc_ber: 8.9e-3,
            step_exponent: 2.0,
        }
    }
}

/// A whole device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    #[serde(default)]
    pub description: String,
    /// Name of the preset this config starts from (informational once loaded).
    #[serde(default)]
    pub preset: String,
    pub geometry: GeometryConfig,
    pub timing: TimingConfig,
    pub ftl: FtlConfig,
    pub host: HostConfig,
    #[serde(default)]
    pub controller: ControllerConfig,
    #[serde(default)]
    pub variation: VariationConfig,
}

impl DeviceConfig {
    /// Names and descriptions of the built-in presets.
    pub fn presets() -> Vec<(&'static str, String)> {
        PRESETS
            .iter()
            .map(|(n, text)| {
                let desc = toml::from_str::<toml::Value>(text)
                    .ok()
                    .and_then(|v| {
                        v.get("description")
                            .and_then(|d| d.as_str().map(String::from))
                    })
                    .unwrap_or_default();
                (*n, desc)
            })
            .collect()
    }

    /// Load a preset by name.
    pub fn preset(name: &str) -> SimResult<DeviceConfig> {
        Self::load(name, &[])
    }

    /// Load `spec` (a preset name, or a path to a `.toml` file) and apply
    /// `key=value` overrides in order.
    pub fn load(spec: &str, overrides: &[String]) -> SimResult<DeviceConfig> {
        let mut tree = if spec.ends_with(".toml") || Path::new(spec).is_file() {
            load_file_tree(Path::new(spec))?
        } else {
            let mut t = preset_tree(spec)?;
            set_path(&mut t, "preset", toml::Value::String(spec.to_string()))?;
            t
        };
        for ov in overrides {
            apply_override(&mut tree, ov)?;
        }
        Self::from_tree(tree)
    }

    /// Parse a complete TOML document (may start from `preset = "..."`).
    pub fn from_toml_str(text: &str, origin: &str) -> SimResult<DeviceConfig> {
        let user: toml::Value = toml::from_str(text)
            .map_err(|e| SimError::config(origin, format!("invalid TOML: {e}")))?;
        Self::from_tree(merge_over_preset(user)?)
    }

    fn from_tree(mut tree: toml::Value) -> SimResult<DeviceConfig> {
        let schema = schema_tree()?;
        check_keys(&tree, schema, "")?;
        normalize_types(&mut tree, schema, "")?;
        let cfg: DeviceConfig = tree.clone().try_into().map_err(|e: toml::de::Error| {
            let key = culprit(&tree, schema).unwrap_or_else(|| "device".to_string());
            SimError::config(key, e.message().to_string())
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The config as TOML text (what a run used, for reports).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        let g = &self.geometry;
        let int_ranges: [(&str, u32, u32, u32); 7] = [
            ("geometry.channels", g.channels, 1, 1024),
            ("geometry.chips_per_channel", g.chips_per_channel, 1, 1024),
            ("geometry.dies_per_chip", g.dies_per_chip, 1, 64),
            ("geometry.planes_per_die", g.planes_per_die, 1, 64),
            ("geometry.blocks_per_plane", g.blocks_per_plane, 2, 1 << 20),
            ("geometry.pages_per_block", g.pages_per_block, 1, 65_535),
            ("geometry.page_size", g.page_size, 512, 1 << 20),
        ];
        for (key, v, lo, hi) in int_ranges {
            if v < lo || v > hi {
                return Err(SimError::config(
                    key,
                    format!("{v} is outside [{lo}, {hi}]"),
                ));
            }
        }
        // Flash pages are 2^k bytes (2, 4, 8, 16 KiB ...); sector and page
        // arithmetic relies on a whole number of 512-byte sectors per page.
        if !g.page_size.is_power_of_two() {
            return Err(SimError::config(
                "geometry.page_size",
                format!(
                    "{} is not a power of two (512, 1024, 2048, 4096, ... bytes)",
                    g.page_size
                ),
            ));
        }
        // Saturating: the ranges above allow products beyond u64.
        let pages = [
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
        ]
        .iter()
        .fold(u64::from(g.channels), |acc, &v| {
            acc.saturating_mul(u64::from(v))
        });
        if pages >= u32::MAX as u64 {
            return Err(SimError::config(
                "geometry",
                format!(
                    "{pages} physical pages; at most {} are supported (u32 mapping)",
                    u32::MAX - 1
                ),
            ));
        }
        let t = &self.timing;
        if !matches!(t.cell.as_str(), "slc" | "mlc" | "tlc" | "qlc") {
            return Err(SimError::config(
                "timing.cell",
                format!("`{}` is not one of slc, mlc, tlc, qlc", t.cell),
            ));
        }
        for (key, v, lo, hi) in [
            ("timing.read_us", t.read_us, 0.001, 1e6),
            ("timing.program_us", t.program_us, 0.001, 1e6),
            ("timing.erase_us", t.erase_us, 0.001, 1e7),
            ("timing.channel_mb_s", t.channel_mb_s, 0.0, 1e6),
            ("timing.command_us", t.command_us, 0.0, 1e4),
        ] {
            range_f(key, v, lo, hi)?;
        }
        let f = &self.ftl;
        range_f("ftl.overprovisioning", f.overprovisioning, 0.0, 0.9)?;
        range_f("ftl.gc_threshold", f.gc_threshold, 0.0, 0.5)?;
        range_f("ftl.precondition_fill", f.precondition_fill, 0.0, 1.0)?;
        range_f("ftl.write_buffer_mib", f.write_buffer_mib, 0.0, 1e6)?;
        crate::ftl::Allocation::parse(&f.allocation)?;
        crate::ftl::gc::VictimPolicy::parse(&f.gc_policy, f.gc_d_choice)?;
        if f.gc_d_choice == 0 {
            return Err(SimError::config(
                "ftl.gc_d_choice",
                "0 is outside [1, 1024]",
            ));
        }
        // Need at least a couple of spare blocks per plane for GC to make progress.
        let spare = (g.blocks_per_plane as f64 * f.overprovisioning).floor() as u32;
        if spare < 2 {
            return Err(SimError::config(
                "ftl.overprovisioning",
                format!(
                    "{} leaves {spare} spare blocks per plane; GC needs at least 2 \
                     (raise it or blocks_per_plane)",
                    f.overprovisioning
                ),
            ));
        }
        if self.host.queue_depth == 0 || self.host.queue_depth > 65_536 {
            return Err(SimError::config(
                "host.queue_depth",
                format!("{} is outside [1, 65536]", self.host.queue_depth),
            ));
        }
        crate::sched::host::check_name(&self.host.scheduler)
            .map_err(|e| SimError::config("host.scheduler", e.to_string()))?;
        let h = &self.host;
        range_f("host.max_merge_kib", h.max_merge_kib as f64, 0.0, 1048576.0)?;
        h.deadline.validate()?;
        h.cfq.validate()?;
        h.pardispatcher.validate()?;
        h.kyber.validate()?;
        h.bfq.validate()?;
        h.amphibian.validate()?;
        crate::sched::device::check_name(&self.controller.scheduler)
            .map_err(|e| SimError::config("controller.scheduler", e.to_string()))?;
        self.validate_controller()?;
        self.validate_variation()?;
        Ok(())
    }
}

impl DeviceConfig {
    fn validate_controller(&self) -> SimResult<()> {
        let c = &self.controller;
        if !matches!(c.piq_granularity.as_str(), "chip" | "die" | "plane") {
            return Err(SimError::config(
                "controller.piq_granularity",
                format!("`{}` is not one of chip, die, plane", c.piq_granularity),
            ));
        }
        for (key, v, hi) in [
            (
                "controller.suspend_min_remaining_program_us",
                c.suspend_min_remaining_program_us,
                1e6,
            ),
            (
                "controller.suspend_min_remaining_erase_us",
                c.suspend_min_remaining_erase_us,
                1e7,
            ),
            ("controller.suspend_us", c.suspend_us, 1e4),
            ("controller.resume_us", c.resume_us, 1e4),
        ] {
            range_f(key, v, 0.0, hi)?;
        }
        for (key, v) in [
            ("controller.program_loops", c.program_loops),
            ("controller.erase_loops", c.erase_loops),
            ("controller.piq_max_read_batches", c.piq_max_read_batches),
            ("controller.write_queue_limit", c.write_queue_limit),
            ("controller.aos_rs_per_chip", c.aos_rs_per_chip),
        ] {
            if v == 0 || v > 1_000_000 {
                return Err(SimError::config(
                    key,
                    format!("{v} is outside [1, 1000000]"),
                ));
            }
        }
        Ok(())
    }

    fn validate_variation(&self) -> SimResult<()> {
        let v = &self.variation;
        range_f("variation.ber_growth_mean", v.ber_growth_mean, 1e-12, 1.0)?;
        range_f("variation.ber_growth_sd", v.ber_growth_sd, 0.0, 1.0)?;
        range_f("variation.ber_bound_sd", v.ber_bound_sd, 0.0, 10.0)?;
        range_f("variation.step_min", v.step_min, 1e-3, 10.0)?;
        range_f("variation.step_max", v.step_max, v.step_min, 10.0)?;
        range_f("variation.step_inc", v.step_inc, 1e-4, 10.0)?;
        range_f("variation.ecc_ber", v.ecc_ber, 1e-12, 1.0)?;
        range_f("variation.step_exponent", v.step_exponent, 0.1, 10.0)?;
        if v.wear_pe > 10_000_000 {
            return Err(SimError::config(
                "variation.wear_pe",
                format!("{} is outside [0, 10000000]", v.wear_pe),
            ));
        }
        Ok(())
    }
}

fn range_f(key: &str, v: f64, lo: f64, hi: f64) -> SimResult<()> {
    if !(v.is_finite() && v >= lo && v <= hi) {
        return Err(SimError::config(
            key,
            format!("{v} is outside [{lo}, {hi}]"),
        ));
    }
    Ok(())
}

/// The complete key schema: the default preset deserialized (so every
/// optional key takes its serde default) and serialized back. Every key a
/// config may hold, with its type, lives here and nowhere else.
fn schema_tree() -> SimResult<&'static toml::Value> {
    static SCHEMA: std::sync::OnceLock<Result<toml::Value, String>> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let cfg: DeviceConfig = preset_tree("default")
                .map_err(|e| e.to_string())?
                .try_into()
                .map_err(|e: toml::de::Error| e.to_string())?;
            toml::Value::try_from(cfg).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| SimError::config("schema", e.clone()))
}

fn preset_tree(name: &str) -> SimResult<toml::Value> {
    let text = PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            SimError::unknown("device preset", name, &names)
        })?;
    toml::from_str(text).map_err(|e| SimError::config(name, format!("preset is invalid TOML: {e}")))
}

fn load_file_tree(path: &Path) -> SimResult<toml::Value> {
    let text = std::fs::read_to_string(path).map_err(|source| SimError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let user: toml::Value = toml::from_str(&text).map_err(|e| SimError::Trace {
        file: path.to_path_buf(),
        // 1-based line of the error span (0 when the parser gives none).
        line: e.span().map_or(0, |r| {
            1 + text.as_bytes()[..r.start.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64
        }),
        msg: format!("invalid TOML: {}", e.message()),
    })?;
    merge_over_preset(user)
}

/// A user document is layered over its `preset` (or `default`), so files only
/// need the keys they change.
fn merge_over_preset(user: toml::Value) -> SimResult<toml::Value> {
    let base_name = user
        .get("preset")
        .and_then(|v| v.as_str())
        .unwrap_or("default")
        .to_string();
    let mut base = preset_tree(&base_name)?;
    set_path(&mut base, "preset", toml::Value::String(base_name))?;
    merge(&mut base, user);
    Ok(base)
}

fn merge(base: &mut toml::Value, over: toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Every key of `tree` must exist in `schema`.
fn check_keys(tree: &toml::Value, schema: &toml::Value, prefix: &str) -> SimResult<()> {
    let Some(table) = tree.as_table() else {
        return Ok(());
    };
    for (k, v) in table {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match schema.get(k) {
            Some(sub) => check_keys(v, sub, &path)?,
            None => {
                let mut known: Vec<String> = schema
                    .as_table()
                    .map(|t| t.keys().cloned().collect())
                    .unwrap_or_default();
                known.sort();
                return Err(SimError::config(
                    path,
                    format!("unknown key (known here: {})", known.join(", ")),
                ));
            }
        }
    }
    Ok(())
}

/// Check every leaf against the schema's type, naming the key on a mismatch;
/// integers given for float keys are widened, negative integers rejected.
fn normalize_types(tree: &mut toml::Value, schema: &toml::Value, prefix: &str) -> SimResult<()> {
    let Some(table) = tree.as_table_mut() else {
        return Ok(());
    };
    for (k, v) in table.iter_mut() {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        // check_keys ran first, so every key is in the schema.
        let Some(expected) = schema.get(k) else {
            continue;
        };
        match (expected, &*v) {
            (toml::Value::Table(_), toml::Value::Table(_)) => normalize_types(v, expected, &path)?,
            (toml::Value::Float(_), toml::Value::Integer(i)) => *v = toml::Value::Float(*i as f64),
            (toml::Value::Integer(_), toml::Value::Integer(i)) if *i < 0 => {
                return Err(SimError::config(path, format!("{i} must not be negative")));
            }
            (e, got) if std::mem::discriminant(e) == std::mem::discriminant(got) => {}
            (e, got) => {
                return Err(SimError::config(
                    path,
                    format!("expected {}, got {} `{got}`", e.type_str(), got.type_str()),
                ));
            }
        }
    }
    Ok(())
}

/// The key whose value makes deserialization fail (e.g. an integer beyond
/// u32): the first leaf that, reset to its schema default, lets the tree
/// deserialize. Error path only (one attempt per leaf).
fn culprit(tree: &toml::Value, schema: &toml::Value) -> Option<String> {
    fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        match v.as_table() {
            Some(t) => {
                for (k, sub) in t {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaves(sub, &path, out);
                }
            }
            None => out.push(prefix.to_string()),
        }
    }
    let mut paths = Vec::new();
    leaves(tree, "", &mut paths);
    paths.into_iter().find(|path| {
        let (Some(default), Some(current)) = (lookup(schema, path), lookup(tree, path)) else {
            return false;
        };
        if default == current {
            return false;
        }
        let mut t = tree.clone();
        set_path(&mut t, path, default.clone()).is_ok() && t.try_into::<DeviceConfig>().is_ok()
    })
}

/// Apply one `section.key=value` override. The value is parsed as TOML
/// (numbers, booleans, quoted strings); anything else is taken as a string.
/// Types are checked (and integers for float keys widened) afterwards, with
/// the whole tree, by `normalize_types`.
fn apply_override(tree: &mut toml::Value, ov: &str) -> SimResult<()> {
    let (key, raw) = ov
        .split_once('=')
        .ok_or_else(|| SimError::config(ov, "override must look like section.key=value"))?;
    let key = key.trim();
    let raw = raw.trim();
    let value = toml::from_str::<toml::Value>(&format!("v = {raw}"))
        .ok()
        .and_then(|t| t.get("v").cloned())
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    set_path(tree, key, value)
}

fn lookup<'a>(tree: &'a toml::Value, key: &str) -> Option<&'a toml::Value> {
    key.split('.').try_fold(tree, |t, k| t.get(k))
}

fn set_path(tree: &mut toml::Value, key: &str, value: toml::Value) -> SimResult<()> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts
        .pop()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| SimError::config(key, "empty key"))?;
    let mut cur = tree;
    for p in parts {
        let table = cur
            .as_table_mut()
            .ok_or_else(|| SimError::config(key, format!("`{p}` is not a section")))?;
        cur = table
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()));
    }
    let table = cur
        .as_table_mut()
        .ok_or_else(|| SimError::config(key, "parent is not a section"))?;
    table.insert(last.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_validates() {
        for (name, _) in DeviceConfig::presets() {
            let c = DeviceConfig::preset(name).unwrap();
            assert_eq!(c.preset, name);
        }
        let m = DeviceConfig::preset("mqsim-default").unwrap();
        assert_eq!(m.geometry.blocks_per_plane, 2048);
        assert_eq!(m.timing.program_us, 750.0);
    }

    #[test]
    fn overrides_apply_and_widen_ints() {
        let c = DeviceConfig::load(
            "default",
            &["timing.read_us=50".into(), "host.queue_depth=1".into()],
        )
        .unwrap();
        assert_eq!(c.timing.read_us, 50.0);
        assert_eq!(c.host.queue_depth, 1);
        let c = DeviceConfig::load("default", &["ftl.gc_policy=cost-benefit".into()]).unwrap();
        assert_eq!(c.ftl.gc_policy, "cost-benefit");
    }

    #[test]
    fn unknown_key_is_named() {
        let e = DeviceConfig::load("default", &["timing.raed_us=50".into()]).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("timing.raed_us"), "{msg}");
        assert!(msg.contains("read_us"), "{msg}");
        let e = DeviceConfig::from_toml_str("[geometri]\nchannels = 2\n", "x.toml").unwrap_err();
        assert!(e.to_string().contains("geometri"));
    }

    #[test]
    fn bad_value_names_key_and_range() {
        let e = DeviceConfig::load("default", &["geometry.channels=0".into()]).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("geometry.channels") && msg.contains("[1, 1024]"),
            "{msg}"
        );
        let e = DeviceConfig::load("default", &["ftl.gc_policy=best".into()]).unwrap_err();
        assert!(e.to_string().contains("gc_policy"), "{e}");
        let e = DeviceConfig::load("default", &["host.scheduler=nope".into()]).unwrap_err();
        assert!(e.to_string().contains("host.scheduler"), "{e}");
        for (ov, key) in [
            ("timing.read_us=abc", "timing.read_us"),
            ("host.queue_depth=1.5", "host.queue_depth"),
            ("geometry.channels=-1", "geometry.channels"),
            ("ftl.copyback=3", "ftl.copyback"),
        ] {
            let e = DeviceConfig::load("default", &[ov.into()])
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{ov}: {e}");
        }
        let c = DeviceConfig::from_toml_str("[timing]\nread_us = 50\n", "int.toml").unwrap();
        assert_eq!(
            c.timing.read_us, 50.0,
            "integers widen to floats in files too"
        );
        let e = DeviceConfig::load("no-such-preset", &[]).unwrap_err();
        assert!(e.to_string().contains("mqsim-default"), "{e}");
    }

    #[test]
    fn controller_and_variation_keys() {
        let c = DeviceConfig::load(
            "vios-128g",
            &[
                "variation.enabled=true".into(),
                "variation.wear_pe=15000".into(),
                "variation.ecc_ber=1".into(),
                "controller.suspend_us=3".into(),
                "controller.scheduler=pe-suspend".into(),
            ],
        )
        .unwrap();
        assert!(c.variation.enabled);
        assert_eq!(c.variation.wear_pe, 15_000);
        assert_eq!(c.variation.ecc_ber, 1.0);
        assert_eq!(c.controller.suspend_us, 3.0);
        assert_eq!(c.controller.program_loops, 10);
        let e = DeviceConfig::load("default", &["variation.step_max=0.1".into()]).unwrap_err();
        assert!(e.to_string().contains("variation.step_max"), "{e}");
        let e = DeviceConfig::load("default", &["controller.erase_loops=0".into()]).unwrap_err();
        assert!(e.to_string().contains("controller.erase_loops"), "{e}");
        let e = DeviceConfig::load("default", &["variation.wear=1".into()]).unwrap_err();
        assert!(e.to_string().contains("wear"), "{e}");
        let e = DeviceConfig::load("default", &["controller.scheduler=nope".into()]).unwrap_err();
        assert!(e.to_string().contains("aos"), "{e}");
    }

    #[test]
    fn partial_file_layers_over_preset() {
        let c = DeviceConfig::from_toml_str(
            "preset = \"ssdsim-default\"\n[timing]\nread_us = 30.0\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(c.geometry.page_size, 2048);
        assert_eq!(c.timing.read_us, 30.0);
        let round = DeviceConfig::from_toml_str(&c.to_toml(), "round").unwrap();
        assert_eq!(round, c);
    }
}
