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
use crate::workload::trace::pieces::{self, Handed};
use crate::workload::trace::{open_trace_with, ReadAhead, TraceFormat, TraceOptions};
use crate::workload::{IoRecord, Workload};

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
    build_in_pieces(
        spec,
        check,
        max_memory,
        records_held,
        Some(pieces::PIECE_BYTES),
    )
}

/// [`build_streaming`], reading a trace before the run in pieces of
/// `piece_bytes` on several threads where it can (`None`: in one pass).
fn build_in_pieces(
    spec: &RunSpec,
    check: bool,
    max_memory: MemoryLimit,
    records_held: Option<u64>,
    piece_bytes: Option<u64>,
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
        read_prepass(&mut sim, &spec.workload, piece_bytes)?;
    }
    Ok(sim)
}

/// SSDsim's trace pre-pass (`ftl.update_reads = "ssdsim"`): the trace's
/// reads, as the run will replay them, read once before the run
/// ([`crate::device::Ssd::prepass_read`]). Generated requests have none.
fn read_prepass(
    sim: &mut Simulation,
    workload: &WorkloadSpec,
    piece_bytes: Option<u64>,
) -> SimResult<()> {
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
    let format = TraceFormat::from_name(format)?;
    let capacity = sim.ssd.logical_bytes();
    let mut mark = |mut r: IoRecord| {
        if r.op == crate::io::Op::Read {
            Replay::fold(&mut r, capacity);
            sim.ssd.prepass_read(r.offset, r.size);
        }
    };
    // Parsed in pieces on every core (marking the reads costs a quarter of
    // parsing them); what that cannot take, or the rest after a bad line,
    // in one pass on a thread of its own, which words any error as the
    // run's reader would.
    let handed = match piece_bytes {
        Some(bytes) => {
            pieces::for_each_record(path, format.clone(), *options, *limit, bytes, &mut mark)?
        }
        None => Handed::First(0),
    };
    let Handed::First(done) = handed else {
        return Ok(());
    };
    let reader = open_trace_with(path, format, *options)?;
    let rest = ReadAhead::new(Box::new(reader), *limit).skip(done as usize);
    for rec in rest {
        mark(rec?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// SSDsim's read pre-pass read in pieces marks what one pass marks: the
    /// runs after it are the same (a trace with more reads of never-written
    /// pages than the device's first block, pieces of a few dozen lines).
    #[test]
    fn a_pre_pass_in_pieces_is_the_one_pass_pre_pass() {
        let mut rng = Rng::new(11);
        let mut text = String::new();
        for n in 0..6000u64 {
            let (lsn, size, op) = (rng.below(1 << 20), 1 + rng.below(32), rng.below(3) > 0);
            text.push_str(&format!("{} 0 {lsn} {size} {}\n", n * 20_000, op as u8));
        }
        let path = std::env::temp_dir().join(format!("flashsched-prepass-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let spec = RunSpec {
            device: "ssdsim-default".into(),
            overrides: vec![],
            workload: WorkloadSpec::Trace {
                path: path.clone(),
                format: "ssdsim".into(),
                intensity: 1.0,
                limit: Some(5000),
                options: TraceOptions::default(),
            },
            seed: 1,
            keep_records: false,
        };
        let run = |piece_bytes| {
            let mut sim =
                build_in_pieces(&spec, false, MemoryLimit::Off, None, piece_bytes).unwrap();
            assert!(sim.ssd.wants_read_prepass());
            sim.run().unwrap();
            sim.summary()
        };
        let one = run(None);
        assert!(
            one.flash.untimed_placements > 1000,
            "{}",
            one.flash.untimed_placements
        );
        let pieces = run(Some(1000));
        assert_eq!(pieces.to_json(true), one.to_json(true));
        std::fs::remove_file(path).unwrap();
    }
}
