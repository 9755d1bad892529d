//! Soak of the `--check` oracle over every host scheduler × every device
//! scheduler × every controller mode: GC mode (interleaved, blocking,
//! preemptive), busy unit (die, chip), multi-plane (off, onfi, relaxed),
//! cache policy (eager, lru) and host interface (none, nvme, sata) —
//! 49 × 108 = 5292 combinations, each a seeded random request sequence
//! (reads, writes and TRIMs of 512 B to 64 KiB at unaligned offsets, a hot
//! region so requests overlap in flight, bursts) on a small device under GC
//! pressure, with the other knobs drawn at random. Every read is checked
//! against the version oracle, the FTL is audited against the checker's
//! model, and every request must complete exactly once.
//!
//! `cargo test` runs every 53rd combination with 300 requests (~100 runs,
//! about a second). The full soak (≥ 10 M requests; docs/reliability.md):
//! `scripts/soak_modes.sh`, i.e. `FLASHSCHED_MODE_SOAK_STRIDE=1
//! FLASHSCHED_MODE_SOAK_REQS=2000 cargo test --release -p flashsched-core
//! --test soak_modes -- --nocapture`. A failure names its combination
//! index; `FLASHSCHED_MODE_SOAK_ONLY=<index>` reruns it alone.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;
use flashsched_core::rng::Rng;
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::replay::Replay;
use flashsched_core::workload::IoRecord;

mod common;
use common::GC_POLICIES;

const GC_MODES: [&str; 3] = ["interleaved", "blocking", "preemptive"];
const BUSY_UNITS: [&str; 2] = ["die", "chip"];
const MULTIPLANE: [&str; 3] = ["off", "onfi", "relaxed"];
const CACHE: [&str; 2] = ["eager", "lru"];
const INTERFACE: [&str; 3] = ["none", "nvme", "sata"];

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn pick<'a>(rng: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.below(xs.len() as u64) as usize]
}

/// The device: 2 channels × 1 chip × 2 dies × 2 planes × 16 blocks × 16
/// pages of 4 KiB (4 MiB raw), so GC runs constantly; then the combination's
/// modes and random other knobs.
fn device(rng: &mut Rng, host: &str, dev: &str, mode: [&str; 5]) -> Vec<String> {
    let [gc, busy, mp, cache, hif] = mode;
    let mut ov: Vec<String> = [
        "geometry.channels=2",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=2",
        "geometry.planes_per_die=2",
        "geometry.blocks_per_plane=16",
        "geometry.pages_per_block=16",
        "geometry.page_size=4096",
        "timing.channel_mb_s=400",
        "timing.erase_us=2000",
        "ftl.overprovisioning=0.25",
        "ftl.gc_threshold=0.15",
    ]
    .map(String::from)
    .to_vec();
    ov.push(format!("host.scheduler={host}"));
    ov.push(format!("controller.scheduler={dev}"));
    ov.push(format!("ftl.gc_mode={gc}"));
    match gc {
        "blocking" => ov.push(format!(
            "ftl.gc_block_unit={}",
            pick(rng, &["plane", "die", "chip"])
        )),
        "preemptive" => ov.push(format!(
            "ftl.gc_hard_threshold={}",
            pick(rng, &["0", "0.005", "0.02"])
        )),
        _ => {}
    }
    ov.push(format!("controller.busy_unit={busy}"));
    if busy == "chip" {
        ov.push(format!(
            "controller.interleave={}",
            pick(rng, &["false", "true"])
        ));
    }
    ov.push(format!("controller.multiplane={mp}"));
    // SSDsim's command quirks (docs/validation.md).
    for key in ["controller.overlap_data_in", "controller.advanced_reads"] {
        ov.push(format!("{key}={}", pick(rng, &["false", "true"])));
    }
    // A cache for the policy to act on: 16, 64 or 256 pages.
    ov.push(format!("cache.policy={cache}"));
    ov.push(format!("cache.mib={}", pick(rng, &["0.0625", "0.25", "1"])));
    ov.push(format!("cache.dram_mb_s={}", pick(rng, &["0", "1600"])));
    ov.push(format!("interface.kind={hif}"));
    ov.push(format!("interface.command_us={}", pick(rng, &["0", "2"])));
    ov.push(format!(
        "host.queue_depth={}",
        pick(rng, &["1", "4", "32", "128"])
    ));
    let alloc = pick(
        rng,
        &["static:CWDP", "static:PDWC", "dynamic", "dynamic:idle-chip"],
    );
    ov.push(format!("ftl.allocation={alloc}"));
    ov.push(format!("ftl.gc_policy={}", pick(rng, GC_POLICIES)));
    ov.push(format!(
        "ftl.gc_move_window={}",
        pick(rng, &["0", "1", "4"])
    ));
    ov.push(format!(
        "ftl.gc_jobs_per_plane={}",
        pick(rng, &["1", "2", "10"])
    ));
    ov.push(format!("ftl.copyback={}", pick(rng, &["false", "true"])));
    // Dynamic allocation cannot always make room in a plane preconditioned
    // full of valid data (docs/model.md), so it gets at most half.
    let fills: &[&str] = if alloc.starts_with("dynamic") {
        &["0", "0.5"]
    } else {
        &["0", "0.5", "0.85"]
    };
    ov.push(format!("ftl.precondition_fill={}", pick(rng, fills)));
    ov.push(format!(
        "variation.enabled={}",
        pick(rng, &["false", "true"])
    ));
    match (host, dev) {
        ("amphibian", _) => {
            ov.push(format!(
                "host.amphibian.zones={}",
                pick(rng, &["chip", "range"])
            ));
            ov.push(format!(
                "host.amphibian.gc_detect={}",
                pick(rng, &["latency", "oracle"])
            ));
        }
        (_, "pe-suspend") => ov.push(format!(
            "controller.pe-suspend.write_suspend_erase={}",
            pick(rng, &["false", "true"])
        )),
        _ => {}
    }
    if dev == "piq" || dev == "aos" {
        ov.push(format!(
            "controller.piq.granularity={}",
            pick(rng, &["die", "plane"])
        ));
        ov.push(format!(
            "controller.aos.multiplane={}",
            pick(rng, &["false", "true"])
        ));
    }
    ov
}

/// `n` requests over `cap` bytes: 45 % reads, 45 % writes, 10 % TRIMs;
/// sizes from 512 B to 64 KiB at 512-byte offsets; half within the first
/// eighth of the space; arrivals in bursts (a fifth at the same instant as
/// the one before, the rest 40 µs apart on average).
fn requests(rng: &mut Rng, cap: u64, n: u64) -> Vec<IoRecord> {
    let mut t = 0.0f64;
    (0..n)
        .map(|_| {
            let op = match rng.below(20) {
                0..=8 => Op::Read,
                9..=17 => Op::Write,
                _ => Op::Trim,
            };
            let size = match rng.below(4) {
                0 => 4096,
                1 => 512 * (1 + rng.below(8) as u32),
                2 => 4096 * (1 + rng.below(4) as u32),
                _ => 512 * (1 + rng.below(128) as u32),
            };
            let span = if rng.below(2) == 0 { cap / 8 } else { cap };
            if rng.below(5) != 0 {
                t += rng.exp(40_000.0);
            }
            IoRecord {
                time_ns: t as u64,
                offset: 512 * rng.below((span - size as u64) / 512),
                size,
                op,
                stream: rng.below(4) as u32,
            }
        })
        .collect()
}

#[derive(Default)]
struct Totals {
    runs: u64,
    requests: u64,
    reads_checked: u64,
    flash_ops: u64,
    gc: u64,
    audits: u64,
}

/// Every combination of the five controller modes.
fn modes() -> Vec<[&'static str; 5]> {
    let mut modes = Vec::new();
    for gc in GC_MODES {
        for busy in BUSY_UNITS {
            for mp in MULTIPLANE {
                for cache in CACHE {
                    for hif in INTERFACE {
                        modes.push([gc, busy, mp, cache, hif]);
                    }
                }
            }
        }
    }
    modes
}

/// Run combination `index` (host-major, then device scheduler, then mode)
/// with `reqs` requests and the oracle on; panics naming it on any error.
fn run_combination(index: u64, reqs: u64, total: &mut Totals) -> [&'static str; 5] {
    let hosts = flashsched_core::host::sched::names();
    let devs = flashsched_core::device::sched::names();
    let modes = modes();
    let i = index as usize;
    let host = hosts[i / (devs.len() * modes.len())];
    let dev = devs[i / modes.len() % devs.len()];
    let mode = modes[i % modes.len()];
    let mut rng = Rng::new(0x50a6 + index);
    let mut ov = device(&mut rng, host, dev, mode);
    // FLASHSCHED_MODE_SOAK_EXTRA=k=v,k=v: overrides on top (to bisect).
    if let Ok(extra) = std::env::var("FLASHSCHED_MODE_SOAK_EXTRA") {
        ov.extend(extra.split(',').filter(|s| !s.is_empty()).map(String::from));
    }
    let cfg = DeviceConfig::load("default", &ov)
        .unwrap_or_else(|e| panic!("combination {index} {ov:?}: {e}"));
    let cap = cfg.logical_bytes();
    let recs = requests(&mut rng, cap, reqs);
    let wl = Replay::new(
        Box::new(recs.into_iter().map(Ok)),
        1.0,
        cap,
        None,
        "soak".into(),
    );
    let opts = RunOptions {
        check: true,
        keep_records: false,
        seed: index,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(cfg, Box::new(wl), opts)
        .unwrap_or_else(|e| panic!("combination {index} {ov:?}: {e}"));
    sim.run()
        .unwrap_or_else(|e| panic!("combination {index}: {host} × {dev} {mode:?}, {ov:?}: {e}"));
    assert_eq!(sim.metrics.completed(), reqs, "combination {index}");
    let s = sim.summary();
    let st = &sim.ssd.stats;
    let flash_ops = s.gc.erases + st.flash_reads + st.flash_programs;
    let (c, _) = sim.ssd.checker().expect("check mode");
    assert!(c.audits >= 1);
    total.runs += 1;
    total.requests += s.requests;
    total.reads_checked += c.oracle.reads_checked;
    total.flash_ops += flash_ops;
    total.gc += s.gc.invocations;
    total.audits += c.audits;
    mode
}

#[test]
fn every_scheduler_every_controller_mode_passes_the_oracle() {
    let reqs = env("FLASHSCHED_MODE_SOAK_REQS", 300);
    let stride = env("FLASHSCHED_MODE_SOAK_STRIDE", 53).max(1);
    let only = std::env::var("FLASHSCHED_MODE_SOAK_ONLY")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let (hosts, devs) = (
        flashsched_core::host::sched::names().len(),
        flashsched_core::device::sched::names().len(),
    );
    let n_modes = modes().len();
    let combos = (hosts * devs * n_modes) as u64;
    let mut total = Totals::default();
    let mut per_mode = std::collections::BTreeMap::<String, u64>::new();
    let t0 = std::time::Instant::now();
    for index in 0..combos {
        let wanted = match only {
            Some(o) => o == index,
            None => index % stride == 0,
        };
        if !wanted {
            continue;
        }
        for m in run_combination(index, reqs, &mut total) {
            *per_mode.entry(m.to_string()).or_default() += 1;
        }
        if total.runs % 500 == 0 {
            eprintln!(
                "soak: {} runs, {} requests, {:.0} s",
                total.runs,
                total.requests,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "soak: {} of {combos} combinations ({hosts} host × {devs} device schedulers × {n_modes} \
         modes), {} requests, {} page reads checked, {} flash operations (reads, programs, \
         erases), {} GC invocations, {} audits, no violation, {:.0} s; runs per mode value: \
         {per_mode:?}",
        total.runs,
        total.requests,
        total.reads_checked,
        total.flash_ops,
        total.gc,
        total.audits,
        t0.elapsed().as_secs_f64()
    );
    assert!(total.runs > 0);
}

/// Found by the full soak: cfq × fifo, blocking GC held per chip, chip busy
/// unit, ONFI multi-plane, a write-back cache and dynamic allocation. A
/// plane fell below its GC threshold with every full block fully valid (no
/// victim); pages there became invalid later, but GC was never tried again
/// and the cache's flushes to that plane waited forever ("deadlock ... 22
/// flash transactions queued"). GC is now retried (`device/gc_retry.rs`).
#[test]
fn regression_starved_plane_deadlock() {
    let mut total = Totals::default();
    run_combination(1572, 2000, &mut total);
    assert_eq!(total.requests, 2000);
    assert!(total.gc > 0);
}
