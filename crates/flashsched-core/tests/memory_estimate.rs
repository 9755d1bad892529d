//! The memory estimate made before building a run (`memory::Estimate`)
//! against what the run really allocates, over a range of geometries and
//! features: a counting allocator records the peak of live heap bytes while
//! the device is built, preconditioned and run (deterministic: allocation
//! sizes, not timings or RSS sampling). The estimate must be within 2× of
//! the peak either way. And a limit below the estimate is an error naming
//! the geometry, the estimate and the limit, before anything is allocated.
//!
//! The counter is process-wide: the tests take `SERIAL` to run one at a
//! time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use flashsched_core::config::DeviceConfig;
use flashsched_core::memory::{Estimate, MemoryLimit};
use flashsched_core::run::{self, WorkloadSpec};
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::SimError;

struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n as u64, Relaxed) + n as u64;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: forwards every call to the system allocator unchanged; the
// counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as u64, Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            grew(new - l.size());
        } else {
            LIVE.fetch_sub((l.size() - new) as u64, Relaxed);
        }
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static A: Counting = Counting;

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Peak live bytes above the current level while `f` runs.
fn peak_of(f: impl FnOnce()) -> u64 {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    f();
    PEAK.load(Relaxed) - base
}

fn geometry(g: [u32; 6], extra: &[&str]) -> DeviceConfig {
    let keys = [
        "channels",
        "chips_per_channel",
        "dies_per_chip",
        "planes_per_die",
        "blocks_per_plane",
        "pages_per_block",
    ];
    let mut ov: Vec<String> = keys
        .iter()
        .zip(g)
        .map(|(k, v)| format!("geometry.{k}={v}"))
        .collect();
    ov.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::load("default", &ov).unwrap()
}

#[test]
fn estimate_is_within_2x_of_the_peak_and_the_limit_holds() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let n = 20_000u64;
    let cases: Vec<(&str, DeviceConfig, bool, bool)> = vec![
        // name, config, check mode, per-request records
        (
            "1M pages, fresh",
            geometry([2, 2, 2, 2, 512, 128], &[]),
            false,
            false,
        ),
        (
            "4M pages, 90 % full",
            geometry([4, 4, 2, 2, 256, 256], &["ftl.precondition_fill=0.9"]),
            false,
            false,
        ),
        (
            "4M pages, 90 % full, check",
            geometry([4, 4, 2, 2, 256, 256], &["ftl.precondition_fill=0.9"]),
            true,
            false,
        ),
        (
            "16M pages, 90 % full (built in groups of planes)",
            geometry([4, 4, 2, 2, 1024, 256], &["ftl.precondition_fill=0.9"]),
            false,
            false,
        ),
        (
            "1 plane, 2M pages, 70 % full (one large precondition buffer)",
            geometry([1, 1, 1, 1, 8192, 256], &["ftl.precondition_fill=0.7"]),
            false,
            false,
        ),
        (
            "2M blocks of 4 pages (per-block state)",
            geometry([2, 2, 2, 2, 131072, 4], &["ftl.overprovisioning=0.3"]),
            false,
            false,
        ),
        (
            "1M pages, variation, 64 MiB LRU cache, records",
            geometry(
                [2, 2, 2, 2, 512, 128],
                &[
                    "variation.enabled=true",
                    "cache.mib=64",
                    "cache.policy=lru",
                    "ftl.precondition_fill=0.5",
                ],
            ),
            true,
            true,
        ),
        (
            "4M pages, 80 % full, 2 MiB cached mapping table, check",
            geometry(
                [4, 4, 2, 2, 256, 256],
                &["ftl.precondition_fill=0.8", "mapping.cmt_kib=2048"],
            ),
            true,
            false,
        ),
        (
            "8M pages (mqsim-like), 80 % full, check",
            geometry([8, 4, 2, 2, 512, 256], &["ftl.precondition_fill=0.8"]),
            true,
            false,
        ),
    ];
    for (name, cfg, check, records) in cases {
        let cap = cfg.logical_bytes();
        let spec = format!("read=0.5,bs=4k-16k,iops=50000,span={cap},n={n},seed=2");
        let est = Estimate::new(&cfg, 1, check, records.then_some(n));
        let mut done = 0;
        let peak = peak_of(|| {
            let wl = run::build_workload(&WorkloadSpec::Synthetic(spec.clone()), cap, 3).unwrap();
            let opts = RunOptions {
                check,
                keep_records: records,
                max_memory: MemoryLimit::Off,
                ..RunOptions::default()
            };
            let mut sim = Simulation::new(cfg.clone(), wl, opts).unwrap();
            sim.run().unwrap();
            done = sim.metrics.completed();
        });
        assert_eq!(done, n);
        let ratio = est.peak as f64 / peak as f64;
        eprintln!(
            "{name}: estimate {:.1} MB, peak {:.1} MB, ratio {ratio:.2} ({})",
            est.peak as f64 / 1e6,
            peak as f64 / 1e6,
            est.breakdown()
        );
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{name}: estimate {} vs peak {peak}",
            est.peak
        );

        // A limit just below the estimate refuses the run before anything
        // is allocated; one just above admits it.
        let wl = run::build_workload(&WorkloadSpec::Synthetic(spec), cap, 3).unwrap();
        let opts = RunOptions {
            check,
            keep_records: records,
            max_memory: MemoryLimit::Bytes(est.peak - 1),
            ..RunOptions::default()
        };
        let mut err = None;
        let used = peak_of(|| err = Simulation::new(cfg.clone(), wl, opts).err());
        let e = err.expect("a limit below the estimate must refuse the run");
        assert!(matches!(*e, SimError::MemoryLimit(_)), "{e}");
        let m = e.to_string();
        let g = &cfg.geometry;
        let blocks = format!("{} blocks", g.blocks_per_plane);
        assert!(m.contains(&blocks) && m.contains("(max_memory)"), "{m}");
        assert!(
            used < 1 << 20,
            "{name}: {used} bytes allocated before refusing"
        );
        assert!(est.admit(MemoryLimit::Bytes(est.peak)).is_ok());
    }
}

/// Records of a trace of unknown length are held to what the device
/// leaves: with a limit a little above the device's estimate, a long
/// synthetic run of unknown length (a duration, not a count) stops with a
/// memory-limit error once its records outgrow the rest, instead of
/// growing without bound.
#[test]
fn records_of_unknown_length_are_held_to_the_limit() {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let cfg = geometry([1, 1, 1, 1, 64, 64], &[]);
    let cap = cfg.logical_bytes();
    let est = Estimate::new(&cfg, 1, false, None);
    let spec = format!("read=1,bs=4k,iops=1000000,span={cap},time=10s,seed=2");
    let wl = run::build_workload(&WorkloadSpec::Synthetic(spec), cap, 3).unwrap();
    let opts = RunOptions {
        max_memory: MemoryLimit::Bytes(est.peak + (4 << 20)),
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(cfg, wl, opts).unwrap();
    let e = sim.run().expect_err("records must hit the limit");
    let m = e.to_string();
    assert!(matches!(*e, SimError::MemoryLimit(_)), "{m}");
    assert!(
        m.contains("per-request records") && m.contains("keep_records=False"),
        "{m}"
    );
    let done = sim.metrics.completed();
    // 4 MiB of 41-byte rows, doubling: stopped within one doubling of it.
    assert!((32_768..=262_144).contains(&done), "{done} requests: {m}");
}
