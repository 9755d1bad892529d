//! One replay, assembled from user-level choices: target and window, the
//! host side of a device config (scheduler, its tunables, queue depth),
//! a workload spec, verification and the backend.

use std::time::{Duration, Instant};

use flashsched_core::config::DeviceConfig;
use flashsched_core::host::Host;
use flashsched_core::metrics::{LatencySummary, Metrics, Summary};
use flashsched_core::run::{build_workload, WorkloadSpec};
use serde_json::{json, Value};

use crate::backend::{self, Backend, BackendKind, IoKind};
use crate::engine::{Engine, RealView};
use crate::env;
use crate::error::{ReplayError, ReplayResult};
use crate::inflight::InFlight;
use crate::target::{Target, TargetSpec};
use crate::verify::Oracle;

/// Everything a replay is built from.
#[derive(Debug, Clone)]
pub struct ReplaySpec {
    pub target: TargetSpec,
    /// Preset or TOML file whose `[host]` section (scheduler, tunables,
    /// queue depth) drives the replay; its flash geometry only gives the
    /// chip count some schedulers spread over.
    pub device: String,
    pub overrides: Vec<String>,
    pub workload: WorkloadSpec,
    pub seed: u64,
    pub keep_records: bool,
    /// Stamp every write and check every read (needs `allow_write`: the
    /// window is stamped first).
    pub verify: bool,
    /// Write the whole window once before the run, so reads reach the
    /// device (a file system answers reads of never-written file blocks
    /// itself, without I/O). `None`: when the file was created by this run.
    pub prefill: Option<bool>,
    pub backend: BackendKind,
}

/// A replay ready to run (or running).
pub struct Replay {
    // Field order matters: the engine (and its backend, which uses the
    // target's descriptor) is dropped before the target.
    engine: Engine,
    target: Target,
    cfg: DeviceConfig,
    spec: ReplaySpec,
    fallback: Option<String>,
    fill_s: f64,
    prefilled: bool,
    started: Instant,
}

/// Write the whole window once (with `verify`: version 1 of every block,
/// so every later read has a stamp to check), 1 MiB at a time, 8 in flight.
pub(crate) fn fill(backend: &mut dyn Backend, io: &mut InFlight) -> ReplayResult<()> {
    let size = io.window.size;
    let chunk = (1u64 << 20).min(size);
    let (mut next, mut dones) = (0u64, Vec::new());
    let mut free: Vec<u32> = (0..8).collect();
    while next < size || backend.in_flight() > 0 {
        while next < size {
            let Some(token) = free.pop() else { break };
            let len = chunk.min(size - next);
            io.send(backend, token, IoKind::Write, next, len)?;
            next += len;
        }
        dones.clear();
        backend.wait(None, &mut dones)?;
        for &d in &dones {
            io.finish(d, |f| {
                format!(
                    "verify fill: write of window bytes [{}, {})",
                    f.start,
                    f.start + f.len
                )
            })?;
            free.push(d.token as u32);
        }
    }
    Ok(())
}

impl Replay {
    /// Open the target (all safety checks), build host and workload, and
    /// (with `verify`) stamp the window.
    pub fn new(spec: ReplaySpec) -> ReplayResult<Replay> {
        let cfg = DeviceConfig::load(&spec.device, &spec.overrides)?;
        if spec.verify && !spec.target.allow_write {
            return Err(ReplayError::Invalid(
                "verify stamps the window before the run: it needs allow_write (--allow-write)"
                    .into(),
            ));
        }
        let target = Target::open(&spec.target)?;
        let window = target.window;
        let workload = build_workload(&spec.workload, window.size, spec.seed)?;
        let chips = cfg.geometry().chips();
        let host = Host::new(&cfg.host, chips, window.size)?;
        let depth = cfg.host.queue_depth.max(8);
        let fd = std::os::unix::io::AsRawFd::as_raw_fd(&target.file);
        let (mut backend, fallback) = backend::open(spec.backend, fd, depth)?;
        if let Some(w) = &fallback {
            eprintln!("flashsched replay: WARNING: {w}");
        }
        let oracle = spec
            .verify
            .then(|| Oracle::new(window.size / window.align as u64, window.align, spec.seed));
        let mut io = InFlight::new(window, spec.target.allow_write, oracle, spec.seed);
        let t = Instant::now();
        let prefill = spec.verify
            || spec
                .prefill
                .unwrap_or(target.info.created && spec.target.allow_write);
        if prefill {
            if !spec.target.allow_write {
                return Err(ReplayError::Invalid(
                    "prefill writes the window: it needs allow_write (--allow-write)".into(),
                ));
            }
            fill(backend.as_mut(), &mut io)?;
        }
        let fill_s = t.elapsed().as_secs_f64();
        let view = RealView {
            unit: window.align,
            bytes: window.size,
            chips,
            gc_reads: Default::default(),
        };
        let mut engine = Engine::new(host, workload, view, backend, io, spec.keep_records);
        engine.start_clock();
        Ok(Replay {
            engine,
            target,
            cfg,
            spec,
            fallback,
            fill_s,
            prefilled: prefill,
            started: Instant::now(),
        })
    }

    /// Run for up to `budget` of wall time; true once finished.
    pub fn advance(&mut self, budget: Duration) -> ReplayResult<bool> {
        let r = self.engine.advance(budget);
        if r.is_err() {
            // Stop cleanly: wait for what is in flight before reporting.
            let _ = self.engine.interrupt();
        }
        r
    }

    /// Run to the end.
    pub fn run(&mut self) -> ReplayResult<()> {
        while !self.advance(Duration::from_secs(3600))? {}
        Ok(())
    }

    /// Stop now (Ctrl-C): abandon what has not been sent, wait for what is
    /// in flight; the summary then covers what was done.
    pub fn interrupt(&mut self) -> ReplayResult<()> {
        self.engine.interrupt()
    }

    pub fn is_finished(&self) -> bool {
        self.engine.is_finished()
    }

    /// Requests completed, the total if known, and wall ns since start.
    pub fn progress(&self) -> (u64, Option<u64>, u64) {
        (
            self.engine.metrics.completed(),
            self.engine.workload.expected_requests(),
            self.engine.elapsed().as_nanos() as u64,
        )
    }

    pub fn metrics(&self) -> &Metrics {
        &self.engine.metrics
    }

    /// The replay's metrics, to share their record columns out (see
    /// `Column::share`).
    pub fn metrics_mut(&mut self) -> &mut Metrics {
        &mut self.engine.metrics
    }

    /// The device config whose host section drove the replay (TOML).
    pub fn config_toml(&self) -> String {
        self.cfg.to_toml()
    }

    /// The backend actually used (`io_uring` or `threads`).
    pub fn backend_name(&self) -> &'static str {
        self.engine.backend.name()
    }

    /// The run summary: the simulator's keys (flash-internal ones, which a
    /// real device does not expose, are null) plus a `replay` section with
    /// the target, window, kernel and backend settings.
    pub fn summary(&self) -> Value {
        let m = &self.engine.metrics;
        let secs = m.last_completion as f64 / 1e9;
        let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
        let requests = m.completed();
        let wall_s = self.started.elapsed().as_secs_f64();
        let s = Summary {
            device: format!("real:{}", self.target.info.path),
            host_sched: self.engine.host.sched_name().into(),
            device_sched: "device firmware".into(),
            workload: self.engine.workload.describe(),
            seed: self.spec.seed,
            requests,
            reads: m.read.count(),
            writes: m.write.count(),
            trims: m.trims,
            bytes_read: m.bytes_read,
            bytes_written: m.bytes_written,
            iops: per_s(requests as f64),
            bandwidth_mib_s: per_s((m.bytes_read + m.bytes_written) as f64 / (1u64 << 20) as f64),
            simulated_s: secs,
            wall_s,
            requests_per_wall_s: if wall_s > 0.0 {
                requests as f64 / wall_s
            } else {
                0.0
            },
            latency_us: LatencySummary::from(&m.all),
            read_latency_us: LatencySummary::from(&m.read),
            write_latency_us: LatencySummary::from(&m.write),
            input: self.engine.workload.input_stats(),
            ..Summary::default()
        };
        let mut v = serde_json::to_value(&s).unwrap_or(Value::Null);
        if let Value::Object(o) = &mut v {
            for k in [
                "waf",
                "gc",
                "flash",
                "precondition",
                "events",
                "memory_bytes",
            ] {
                o.insert(k.into(), Value::Null);
            }
            o.insert("replay".into(), self.replay_section());
        }
        v
    }

    fn replay_section(&self) -> Value {
        let e = &self.engine;
        let verify = e.io.oracle.as_ref().map(|o| {
            json!({"seed": o.seed, "blocks_checked": o.blocks_checked,
                   "blocks_written": o.blocks_stamped})
        });
        json!({
            "target": self.target.info,
            "window": self.target.window,
            "backend": e.backend.settings(),
            "fallback": self.fallback,
            "kernel": env::kernel(),
            "queue_depth": self.cfg.host.queue_depth,
            "verify": verify,
            "prefilled": self.prefilled,
            "prefill_s": self.fill_s,
            "loop": e.loop_stats(),
            "clock": "CLOCK_MONOTONIC via std::time::Instant; latency = completion reaped - intended arrival",
        })
    }

    /// The summary as pretty JSON.
    pub fn summary_json(&self) -> String {
        serde_json::to_string_pretty(&self.summary())
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}
