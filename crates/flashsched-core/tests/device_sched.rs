//! Device-level transaction schedulers: the VIOS Fig. 4 worked example, the
//! AOS data-hazard oracle, P/E suspension, and end-to-end runs of every
//! scheduler on the public trace samples.

use crate::common;
use common::{checked_sim, completions_us, traces_dir};

use flashsched_core::config::DeviceConfig;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::trace::open_trace;
use flashsched_core::workload::{IoRecord, Op};
use flashsched_core::SimResult;

const SCHEDULERS: &[&str] = &["fifo", "piq", "pe-suspend", "aos", "vios"];

fn rec(t_us: u64, op: Op, offset: u64, size: u32) -> SimResult<IoRecord> {
    common::rec(t_us * 1000, op, offset, size)
}

/// 1 channel, 1 chip, 1 die, 1 plane of 8 one-page blocks, infinite bus.
fn tiny_die(extra: &[&str]) -> DeviceConfig {
    let mut ov: Vec<String> = [
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=8",
        "geometry.pages_per_block=1",
        "geometry.page_size=4096",
        "timing.read_us=50",
        "timing.channel_mb_s=0",
        "timing.command_us=0",
        "ftl.overprovisioning=0.5",
        "host.queue_depth=64",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ov.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::load("default", &ov).unwrap()
}

/// VIOS Fig. 4: three conflicting one-page writes queued on one chip whose
/// free blocks program in 150 (F), 180 (M) and 210 (S) µs. Variation-aware
/// allocation gives F, M (others still wait: NR > 1), then S (NR = 1):
/// completions 150, 330, 540 µs, mean 340. In-order allocation (free blocks
/// M, S, F in list order) gives 180, 390, 540, mean 370.
///
/// The plane has 8 one-page blocks; the other five program in 200 µs, so
/// they are neither the fastest nor the slowest choice (one free block is
/// always held back for GC).
#[test]
fn vios_fig4_variation_aware_allocation() {
    let writes = || {
        (0..3u64)
            .map(|i| rec(0, Op::Write, i * 4096, 4096))
            .collect::<Vec<_>>()
    };
    let speeds = [180.0, 210.0, 150.0, 200.0, 200.0, 200.0, 200.0, 200.0];
    let run = |sched: &str| {
        let cfg = tiny_die(&[
            &format!("controller.scheduler={sched}"),
            "variation.enabled=true",
            // Three separate sub-requests, as in the figure: no back merge.
            "host.max_merge_kib=0",
        ]);
        let mut sim = checked_sim(cfg, writes());
        for (b, &us) in speeds.iter().enumerate() {
            sim.ssd.set_block_program_us(b as u32, us).unwrap();
        }
        sim.run().unwrap();
        sim
    };
    let vios = run("vios");
    assert_eq!(completions_us(&vios), vec![150.0, 330.0, 540.0]);
    assert_eq!(vios.summary().write_latency_us.mean, 340.0);
    let fifo = run("fifo");
    assert_eq!(completions_us(&fifo), vec![180.0, 390.0, 540.0]);
    assert_eq!(fifo.summary().write_latency_us.mean, 370.0);
}

/// A read arriving while its die erases (10 ms) suspends the erase at the
/// next pulse boundary and completes long before the erase would have; the
/// erase still completes afterwards.
#[test]
fn pe_suspend_read_overtakes_erase() {
    // Seven overwrites of one page fill the plane; GC then erases block 0
    // (no valid pages) from t = 700 µs to 10.7 ms. The read comes at 1 ms.
    let recs = || {
        let mut v: Vec<_> = (0..7).map(|_| rec(0, Op::Write, 0, 4096)).collect();
        v.push(rec(1000, Op::Read, 0, 4096));
        v
    };
    let run = |sched: &str| {
        let cfg = tiny_die(&[
            &format!("controller.scheduler={sched}"),
            "timing.program_us=100",
            "timing.erase_us=10000",
        ]);
        let mut sim = checked_sim(cfg, recs());
        sim.run().unwrap();
        sim
    };
    let fifo = run("fifo");
    let susp = run("pe-suspend");
    let read_done = |sim: &Simulation| {
        let r = &sim.metrics.records;
        (0..r.op.len())
            .find(|&i| r.arrival[i] == 1_000_000)
            .map(|i| r.complete[i] as f64 / 1000.0)
            .unwrap()
    };
    // FIFO: the read waits for the whole erase.
    assert_eq!(read_done(&fifo), 10_750.0);
    // Suspended at the pulse boundary (700 + 2000 µs) + 5 µs suspend + tR.
    assert_eq!(read_done(&susp), 2_755.0);
    let s = susp.summary();
    assert_eq!(s.flash.suspensions, 1);
    assert_eq!(s.flash.resumes, 1);
    assert_eq!(s.gc.erases, 1, "the suspended erase completed");
    assert_eq!(fifo.summary().flash.suspensions, 0);
    assert!(fifo.summary().flash.interfered_reads >= 1);
    assert_eq!(s.flash.interfered_reads, 0);
    susp.ssd.ftl.check_invariants().unwrap();
}

/// Heavy read/overwrite mixes with GC on a small device: every scheduler
/// (AOS's out-of-order dispatch in particular) returns current data.
#[test]
fn no_scheduler_reads_stale_data() {
    let variants: &[&[&str]] = &[
        &[],
        &["ftl.gc_move_window=0"],
        &["ftl.copyback=true", "ftl.gc_move_window=0"],
        &[
            "controller.pe-suspend.write_suspend_erase=true",
            "cache.mib=0.25",
        ],
        &[
            "controller.piq.granularity=plane",
            "controller.aos.multiplane=false",
        ],
        // PIQ/VIOS starting reads first (past released writes) on the
        // SSDsim platform's chip-level busy units.
        &[
            "controller.piq.order=reads-first",
            "controller.vios.order=reads-first",
            "controller.busy_unit=chip",
        ],
        // ... with interleaved dies and channel-idle dispatch (a die of a
        // group started this instant is busy while its chip is not).
        &[
            "controller.piq.order=reads-first",
            "controller.vios.order=reads-first",
            "controller.busy_unit=chip",
            "controller.interleave=true",
            "controller.dispatch=channel-idle",
        ],
    ];
    for sched in SCHEDULERS {
        for extra in variants {
            let mut ov: Vec<String> = [
                "geometry.channels=2",
                "geometry.chips_per_channel=2",
                "geometry.dies_per_chip=2",
                "geometry.planes_per_die=2",
                "geometry.blocks_per_plane=16",
                "geometry.pages_per_block=16",
                "geometry.page_size=4096",
                "timing.channel_mb_s=400",
                "timing.erase_us=2000",
                "ftl.overprovisioning=0.25",
                "ftl.gc_threshold=0.15",
                "host.queue_depth=64",
                "variation.enabled=true",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            ov.push(format!("controller.scheduler={sched}"));
            ov.extend(extra.iter().map(|s| s.to_string()));
            let cfg = DeviceConfig::load("default", &ov).unwrap();
            let cap = cfg.logical_bytes();
            let spec =
                format!("read=0.5,bs=4k-16k,pattern=random,iops=20000,span={cap},n=12000,seed=5");
            let wl = run::build_workload(&WorkloadSpec::Synthetic(spec), cap, 1).unwrap();
            let mut sim = Simulation::new(cfg, wl, RunOptions::default()).unwrap();
            sim.enable_check();
            sim.run()
                .unwrap_or_else(|e| panic!("{sched} {extra:?}: {e}"));
            let s = sim.summary();
            assert!(s.gc.erases > 50, "{sched} {extra:?}: GC must be exercised");
            let (c, _) = sim.ssd.checker().unwrap();
            let reads = c.oracle.reads_checked;
            assert!(reads > 10_000, "{sched} {extra:?}: only {reads} page reads");
            sim.ssd.ftl.check_invariants().unwrap();
        }
    }
}

/// Every scheduler completes each request of every public trace sample
/// exactly once (the same requests as FIFO), and the FTL stays consistent.
#[test]
fn all_schedulers_complete_real_traces() {
    let Some(dir) = traces_dir() else { return };
    let traces = [
        "msr/hm_0.first1000.csv",
        "msr/rsrch_0.first1000.csv",
        "msr/msr.cut.per_10k.rw_20_80.105.trace",
        "msr/msr.cut.per_10k.rw_40_60.1370.trace",
        "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        "ascii/tpcc-small.mqsim-ns.trace",
        "ascii/ssdsim-example.ns.ascii",
        "blkparse/fiu-mail-cheetah.first10000.blkparse",
        "umass/WebSearch1.first10.spc",
    ];
    for t in traces {
        let path = dir.join(t);
        let expected = open_trace(&path, None)
            .unwrap()
            .filter(|r| r.is_ok())
            .count() as u64;
        let mut reference: Option<Vec<(u8, u64, u32, u64)>> = None;
        for sched in SCHEDULERS {
            let spec = RunSpec {
                device: "ssdsim-default".into(),
                overrides: vec![
                    format!("controller.scheduler={sched}"),
                    "ftl.precondition_fill=0.7".into(),
                    "variation.enabled=true".into(),
                ],
                workload: WorkloadSpec::Trace {
                    path: path.clone(),
                    format: "auto".into(),
                    intensity: 20.0,
                    limit: None,
                    options: Default::default(),
                },
                seed: 3,
                keep_records: true,
            };
            let mut sim = run::build(&spec).unwrap();
            sim.enable_check();
            sim.run()
                .unwrap_or_else(|e| panic!("{t} with {sched}: {e}"));
            assert_eq!(sim.metrics.completed(), expected, "{t} with {sched}");
            let r = &sim.metrics.records;
            let mut reqs: Vec<(u8, u64, u32, u64)> = (0..r.op.len())
                .map(|i| {
                    assert!(r.complete[i] >= r.arrival[i]);
                    (r.op[i], r.offset[i], r.size[i], r.arrival[i])
                })
                .collect();
            reqs.sort_unstable();
            match &reference {
                None => reference = Some(reqs),
                Some(f) => assert!(
                    *f == reqs,
                    "{t}: {sched} completed different requests than fifo"
                ),
            }
            sim.ssd.ftl.check_invariants().unwrap();
            assert!(sim.ssd.is_idle());
        }
    }
}

/// Same config and seed, same results, for every scheduler (with variation).
#[test]
fn schedulers_are_deterministic() {
    for sched in SCHEDULERS {
        let spec = RunSpec {
            device: "ssdsim-default".into(),
            overrides: vec![
                format!("controller.scheduler={sched}"),
                "variation.enabled=true".into(),
                "ftl.precondition_fill=0.6".into(),
            ],
            workload: WorkloadSpec::Synthetic("read=0.4,bs=2k-16k,iops=3000,n=4000".into()),
            seed: 9,
            keep_records: false,
        };
        let json = || {
            let mut sim = run::build(&spec).unwrap();
            sim.enable_check();
            sim.run().unwrap();
            sim.summary().to_json(true)
        };
        assert_eq!(json(), json(), "{sched}");
    }
}

/// A read 150 µs into a 1 ms program suspends it at the next ISPP loop
/// boundary (200 µs; 10 loops), runs after the 5 µs suspend latency and
/// finishes at 255 µs; the program resumes with 10 µs overhead and ends at
/// 255 + 10 + 800 = 1065 µs (FIFO: read at 1050, program at 1000).
#[test]
fn pe_suspend_program_suspension_timing() {
    let recs = || vec![rec(0, Op::Write, 0, 4096), rec(150, Op::Read, 4096, 4096)];
    let run = |sched: &str| {
        let cfg = tiny_die(&[
            &format!("controller.scheduler={sched}"),
            "timing.program_us=1000",
        ]);
        let mut sim = checked_sim(cfg, recs());
        sim.run().unwrap();
        sim
    };
    assert_eq!(completions_us(&run("fifo")), vec![1000.0, 1050.0]);
    let susp = run("pe-suspend");
    assert_eq!(completions_us(&susp), vec![1065.0, 255.0]);
    assert_eq!(susp.summary().flash.suspensions, 1);
    // Below the remaining-time threshold nothing is suspended.
    let cfg = tiny_die(&[
        "controller.scheduler=pe-suspend",
        "timing.program_us=1000",
        "controller.pe-suspend.min_remaining_program_us=900",
    ]);
    let mut sim = checked_sim(cfg, recs());
    sim.run().unwrap();
    assert_eq!(completions_us(&sim), vec![1000.0, 1050.0]);
    assert_eq!(sim.summary().flash.suspensions, 0);
}

/// With every block equally fast (no variation model) VIOS's block choice
/// is moot, so only its hierarchical batches can tell it from PIQ: with
/// channel batches released one after another it must schedule
/// differently; released all at once (`channel_barrier = false`) they order
/// nothing a per-channel bus would not, and the runs are identical.
#[test]
fn vios_batching_acts_without_variation() {
    let run = |sched: &str, extra: &[&str]| {
        let mut ov: Vec<String> = [
            format!("controller.scheduler={sched}"),
            "geometry.channels=2".into(),
            "geometry.chips_per_channel=4".into(),
            "geometry.blocks_per_plane=64".into(),
            "variation.enabled=false".into(),
        ]
        .to_vec();
        ov.extend(extra.iter().map(|s| s.to_string()));
        let cfg = DeviceConfig::load("ssdsim-default", &ov).unwrap();
        let wl = flashsched_core::workload::synthetic::SyntheticSpec::parse(
            "read=0.3,bs=2k-16k,iops=4000,n=4000,span=128m,seed=7",
        )
        .unwrap()
        .build(cfg.logical_bytes(), 7)
        .unwrap();
        let mut sim = Simulation::new(cfg, wl, RunOptions::default()).unwrap();
        sim.run().unwrap();
        sim.summary()
    };
    let piq = run("piq", &[]);
    let vios = run("vios", &[]);
    let inert = run("vios", &["controller.vios.channel_barrier=false"]);
    assert_eq!(piq.requests, vios.requests);
    assert_eq!(
        piq.write_latency_us.mean, inert.write_latency_us.mean,
        "without the barrier the batches order nothing"
    );
    assert_eq!(piq.read_latency_us.mean, inert.read_latency_us.mean);
    assert_ne!(
        piq.write_latency_us.mean, vios.write_latency_us.mean,
        "VIOS's channel batches must change the schedule"
    );
}

/// `controller.{piq,vios}.order` end to end on one die (1000 µs programs,
/// 50 µs reads, chip-level busy as on the SSDsim platform). W0 (offset 0)
/// starts at 0; W1 (offset 8 KiB) arrives at 10 µs and is released to wait
/// for the die; read R (offset 4 KiB) arrives at 20 µs. In order R waits
/// behind W1: W0 1000, W1 2000, R 2050 µs. Reads first R starts when W0
/// ends: R 1050, W1 2050 µs — SSDsim's reads-first FCFS (the VIOS
/// reproduction's NOOP) gives the same.
#[test]
fn batched_reads_first_on_one_die() {
    let recs = || {
        vec![
            rec(0, Op::Write, 0, 4096),
            rec(10, Op::Write, 8192, 4096),
            rec(20, Op::Read, 4096, 4096),
        ]
    };
    let run = |extra: &[&str]| {
        let mut ov = vec!["timing.program_us=1000", "controller.busy_unit=chip"];
        ov.extend_from_slice(extra);
        let mut sim = checked_sim(tiny_die(&ov), recs());
        sim.run().unwrap();
        // By offset: W0, R, W1.
        completions_us(&sim)
    };
    for s in ["piq", "vios"] {
        let sched = format!("controller.scheduler={s}");
        let in_order = run(&[&sched]);
        assert_eq!(in_order, vec![1000.0, 2050.0, 2000.0], "{s}");
        let key = format!("controller.{s}.order=in-order");
        assert_eq!(run(&[&sched, &key]), in_order, "{s}: the default");
        let key = format!("controller.{s}.order=reads-first");
        assert_eq!(run(&[&sched, &key]), vec![1000.0, 1050.0, 2050.0], "{s}");
    }
    let noop = run(&[
        "controller.scheduler=ssdsim-fcfs",
        "controller.ssdsim-fcfs.order=reads-first",
    ]);
    assert_eq!(noop, vec![1000.0, 1050.0, 2050.0]);
}

/// A bad `order` is an error naming the key.
#[test]
fn batched_order_rejects_unknown_values() {
    for s in ["piq", "vios"] {
        let cfg = DeviceConfig::load(
            "default",
            &[
                format!("controller.scheduler={s}"),
                format!("controller.{s}.order=writes-first"),
            ],
        );
        let err = match cfg {
            Err(e) => e.to_string(),
            Ok(c) => flashsched_core::device::Ssd::new(c.ssd(), 1)
                .err()
                .expect("bad order accepted")
                .to_string(),
        };
        assert!(err.contains(&format!("controller.{s}.order")), "{err}");
    }
}
