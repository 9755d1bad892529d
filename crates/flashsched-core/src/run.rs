//! One-call assembly of a run from user-level choices (device preset or file,
//! overrides, trace or synthetic workload, seed): what the CLI and the Python
//! API use.

use std::path::PathBuf;

use crate::config::DeviceConfig;
use crate::error::SimResult;
use crate::memory::MemoryLimit;
use crate::sim::{RunOptions, Simulation};
use crate::workload::postmark::PostmarkSpec;
use crate::workload::profiles::ProfileSpec;
use crate::workload::replay::Replay;
use crate::workload::synthetic::SyntheticSpec;
use crate::workload::trace::{open_trace_with, ReadAhead, TraceFormat, TraceOptions};
use crate::workload::Workload;

/// Where requests come from.
#[derive(Debug, Clone)]
pub enum WorkloadSpec {
    /// Replay a trace file.
    Trace {
        /// The trace file (`-` for standard input).
        path: PathBuf,
        /// `auto`, or a format name.
        format: String,
        /// Arrival-rate multiplier (10 = ten times faster).
        intensity: f64,
        /// Stop after this many requests.
        limit: Option<u64>,
        /// Bad-line and time-order policies.
        options: TraceOptions,
    },
    /// A synthetic generator spec (see [`SyntheticSpec`]).
    Synthetic(String),
}

/// Everything needed to build a [`Simulation`].
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Preset name or path to a TOML device file.
    pub device: String,
    /// `section.key=value` overrides applied in order.
    pub overrides: Vec<String>,
    /// Where requests come from.
    pub workload: WorkloadSpec,
    /// Seed of every random choice in the run.
    pub seed: u64,
    /// Keep one row per request (for DataFrames).
    pub keep_records: bool,
}

/// Build the workload for a device of `capacity` logical bytes.
pub fn build_workload(
    spec: &WorkloadSpec,
    capacity: u64,
    seed: u64,
) -> SimResult<Box<dyn Workload>> {
    match spec {
        WorkloadSpec::Trace {
            path,
            format,
            intensity,
            limit,
            options,
        } => {
            crate::workload::replay::check_intensity(*intensity)?;
            let fmt = TraceFormat::from_name(format)?;
            let reader = open_trace_with(path, fmt, *options)?;
            let desc = format!(
                "trace {} ({}, intensity x{intensity})",
                // `<stdin>` for `-`.
                reader.path().display(),
                // A column mapping shows its full text.
                reader.format()
            );
            Ok(Box::new(Replay::from_trace(
                reader, *intensity, capacity, *limit, desc,
            )))
        }
        WorkloadSpec::Synthetic(text) => {
            // `postmark:...` and `profile:NAME,...` select the closed-loop
            // Postmark-like generator and the published-profile generators.
            if let Some(rest) = text.strip_prefix("postmark:") {
                PostmarkSpec::parse(rest)?.build(capacity, seed)
            } else if text == "postmark" {
                PostmarkSpec::parse("")?.build(capacity, seed)
            } else if let Some(rest) = text.strip_prefix("profile:") {
                ProfileSpec::parse(rest)?.build(capacity, seed)
            } else {
                SyntheticSpec::parse(text)?.build(capacity, seed)
            }
        }
    }
}

/// Assemble a ready-to-run simulation, its memory held to the memory
/// available now (or `FLASHSCHED_MAX_MEMORY`; see [`crate::memory`]).
pub fn build(spec: &RunSpec) -> SimResult<Simulation> {
    build_with(spec, false, MemoryLimit::from_env()?)
}

/// [`build`] in check mode if `check` (the checker's tables count in the
/// memory estimate), with memory held to `max_memory`.
pub fn build_with(spec: &RunSpec, check: bool, max_memory: MemoryLimit) -> SimResult<Simulation> {
    build_streaming(spec, check, max_memory, None)
}

/// [`build_with`] for a caller that drains per-request records as the run
/// goes ([`Simulation::take_records`]), holding at most `records_held` rows
/// at once: the memory estimate counts only those.
pub fn build_streaming(
    spec: &RunSpec,
    check: bool,
    max_memory: MemoryLimit,
    records_held: Option<u64>,
) -> SimResult<Simulation> {
    let cfg = DeviceConfig::load(&spec.device, &spec.overrides)?;
    let opts = RunOptions {
        seed: spec.seed,
        keep_records: spec.keep_records,
        check,
        max_memory,
        records_held,
        ..RunOptions::default()
    };
    // Capacity is known from the config alone; build the workload first so a
    // bad trace path fails before the device is preconditioned.
    let probe = cfg.logical_bytes();
    let workload = build_workload(&spec.workload, probe, spec.seed)?;
    let mut sim = Simulation::new(cfg, workload, opts)?;
    if sim.ssd.wants_read_prepass() {
        read_prepass(&mut sim, &spec.workload)?;
    }
    Ok(sim)
}

/// SSDsim's trace pre-pass (`ftl.update_reads = "ssdsim"`): the trace's
/// reads, as the run will replay them, read once before the run
/// ([`crate::device::Ssd::prepass_read`]). Generated requests have none.
fn read_prepass(sim: &mut Simulation, workload: &WorkloadSpec) -> SimResult<()> {
    let WorkloadSpec::Trace {
        path,
        format,
        limit,
        options,
        ..
    } = workload
    else {
        return Ok(());
    };
    // A trace on standard input cannot be read twice: its reads mark their
    // sectors as they are submitted, as generated requests do (the Python
    // layer warns).
    if path.as_os_str() == "-" {
        return Ok(());
    }
    let reader = open_trace_with(path, TraceFormat::from_name(format)?, *options)?;
    // Parsed on its own thread: marking the reads costs a fifth of parsing
    // them, so the pass takes about the parse's time, not the sum.
    let records = ReadAhead::new(Box::new(reader), *limit);
    let capacity = sim.ssd.logical_bytes();
    for rec in records {
        let mut r = rec?;
        if r.op == crate::io::Op::Read {
            Replay::fold(&mut r, capacity);
            sim.ssd.prepass_read(r.offset, r.size);
        }
    }
    Ok(())
}
