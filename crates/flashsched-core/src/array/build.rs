//! Building an array: its SSDs, layout, volume, workload and host queue,
//! with every array-level setting checked.

use std::collections::VecDeque;
use std::time::Instant;

use super::layout::{ArrayConfig, ArrayWorkload, Layout};
use super::network::Link;
use super::raid::{Raid0, Raid5};
use super::serial::SerialLog;
use super::series::ArraySeries;
use super::summary::ArrayStats;
use super::touched::Touched;
use super::{ArraySim, Placement, VolumeView, Wl};
use crate::config::DeviceConfig;
use crate::device::Ssd;
use crate::engine::Clock;
use crate::error::{SimError, SimResult};
use crate::host::Host;
use crate::memory::{Estimate, MemoryLimit};
use crate::metrics::Metrics;
use crate::workload::compose::{Concurrent, Phases};
use crate::workload::Feed;

impl ArraySim {
    /// Build `cfg.ssds` SSDs from `dev` (SSD i seeded with `seed + i`) and the
    /// workload for the resulting volume, within the memory available now.
    pub fn new(
        cfg: ArrayConfig,
        dev: DeviceConfig,
        workload: &ArrayWorkload,
    ) -> SimResult<ArraySim> {
        Self::new_with(cfg, dev, workload, false, MemoryLimit::Available)
    }

    /// [`ArraySim::new`] with memory held to `max_memory`, counting check
    /// mode's tables if `check` (turn it on with `enable_check`).
    pub fn new_with(
        cfg: ArrayConfig,
        dev: DeviceConfig,
        workload: &ArrayWorkload,
        check: bool,
        max_memory: MemoryLimit,
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
        // Records (if kept) are held to what the SSDs leave as they grow.
        let budget = Estimate::new(&dev, cfg.ssds, check, None).admit(max_memory)?;
        let ssds = (0..cfg.ssds)
            .map(|i| Ssd::new(dev.ssd(), cfg.seed.wrapping_add(i as u64)))
            .collect::<SimResult<Vec<_>>>()?;
        let ssd_bytes = ssds[0].logical_bytes();
        let page = dev.geometry.page_size as u64;
        let n = cfg.ssds;
        let (placement, volume) = match &cfg.layout {
            Layout::Raid0 { chunk, volume } | Layout::Raid5 { chunk, volume } => {
                let share = if *volume > 0.0 { *volume } else { 1.0 };
                let per = (ssd_bytes as f64 * share) as u64 / chunk * chunk;
                if per == 0 {
                    return Err(SimError::config(
                        "array.chunk",
                        format!("{chunk} exceeds the SSD capacity {ssd_bytes}"),
                    ));
                }
                if let Layout::Raid0 { .. } = cfg.layout {
                    (
                        Placement::Raid0(Raid0 {
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
                        Placement::Raid5(Raid5 {
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
                (Placement::Serial(Box::new(log)), v)
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
            placement,
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
            stall_since: None,
            ssd_speeds: Vec::new(),
            outstanding: vec![0; n as usize],
            front_gc_base: vec![None; n as usize],
            bytes_w: vec![0; n as usize],
            bytes_r: vec![0; n as usize],
            done: Vec::new(),
            touched: Touched::all(n as usize),
            ext: Vec::new(),
            completed_any: false,
            host_turn: true,
            ledger: None,
            ssds,
            dev_cfg: dev,
            cfg,
        };
        if let Some(b) = budget {
            sim.metrics.set_budget(b.bytes);
        }
        sim.track_roles();
        sim.clock.add_wall(t0.elapsed());
        Ok(sim)
    }

    /// Give SSD `i` write speed `speeds[i]` × the configured one (its
    /// program time divided by it), before the run: commercial SSDs of one
    /// model differ slightly (the steps between front-ends in the serial
    /// paper's Fig. 7). An empty list changes nothing.
    pub fn set_ssd_speeds(&mut self, speeds: &[f64]) -> SimResult<()> {
        if speeds.is_empty() {
            return Ok(());
        }
        if speeds.len() != self.ssds.len() {
            return Err(SimError::config(
                "array.ssd_speeds",
                format!("{} speeds for {} SSDs", speeds.len(), self.ssds.len()),
            ));
        }
        if self.clock.now() > 0 || self.metrics.completed() > 0 {
            return Err(SimError::config(
                "array.ssd_speeds",
                "must be set before the run starts",
            ));
        }
        for (i, &f) in speeds.iter().enumerate() {
            if !(f.is_finite() && f > 0.0) {
                return Err(SimError::config(
                    format!("array.ssd_speeds[{i}]"),
                    format!("{f} is not a positive speed factor"),
                ));
            }
            let mut dev = self.dev_cfg.clone();
            dev.timing.program_us /= f;
            self.ssds[i] = Ssd::new(dev.ssd(), self.cfg.seed.wrapping_add(i as u64))?;
            self.touched.mark(i as u32);
        }
        self.ssd_speeds = speeds.to_vec();
        Ok(())
    }
}
