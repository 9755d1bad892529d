//! End-to-end behaviour of the single-device simulator.

use flashsched_core::config::DeviceConfig;
use flashsched_core::engine::NS_PER_S;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::synthetic::SyntheticSpec;
use flashsched_core::workload::{IoRecord, Op};
use flashsched_core::SimResult;

const KIB: u32 = 1024;

/// 1 channel, 1 chip, 1 die, 1 plane, 4 KiB pages, tR 50 us, infinite bus.
use crate::common;
use common::{completions_us, rec, run_checked};

fn one_die(extra: &[&str]) -> DeviceConfig {
    let mut ov: Vec<String> = [
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=256",
        "geometry.pages_per_block=64",
        "geometry.page_size=4096",
        "timing.read_us=50",
        "timing.channel_mb_s=0",
        "ftl.overprovisioning=0.25",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ov.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::load("default", &ov).unwrap()
}

/// Amphibian paper Fig. 5(a): noop serves R1 (16 KiB = 4 page reads) then
/// R2..R4 (one page each) at queue depth 1: completions 200/250/300/350 us.
#[test]
fn fig5_noop_worked_example() {
    let recs = vec![
        rec(0, Op::Read, 0, 16 * KIB),
        rec(0, Op::Read, 1 << 20, 4 * KIB),
        rec(0, Op::Read, 2 << 20, 4 * KIB),
        rec(0, Op::Read, 3 << 20, 4 * KIB),
    ];
    let sim = run_checked(one_die(&["host.queue_depth=1"]), recs);
    assert_eq!(completions_us(&sim), vec![200.0, 250.0, 300.0, 350.0]);
    let s = sim.summary();
    assert_eq!(s.latency_us.mean, 275.0);
    assert_eq!(s.requests, 4);
    assert_eq!(
        s.flash.untimed_placements, 7,
        "never-written pages are placed, then really read"
    );
}

/// One die serving Poisson 4 KiB reads at 50 % utilisation is an M/D/1 queue:
/// W = D + rho D / (2 (1 - rho)) = 50 + 25 = 75 us.
#[test]
fn md1_queue_matches_formula() {
    let n = 200_000u64;
    let cfg = one_die(&["host.queue_depth=1024"]);
    let cap = cfg.logical_bytes();
    let spec = SyntheticSpec::parse(&format!("read=1,bs=4k,iops=10000,n={n}")).unwrap();
    let wl = spec.build(cap, 7).unwrap();
    let mut sim = Simulation::new(
        cfg,
        wl,
        RunOptions {
            seed: 7,
            keep_records: false,
            check: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.requests, n);
    let expected = 75.0;
    let err = (s.latency_us.mean - expected).abs() / expected;
    assert!(
        err < 0.02,
        "mean {} us vs M/D/1 {expected} us ({:.2} %)",
        s.latency_us.mean,
        err * 100.0
    );
}

/// Random 4 KiB overwrites on a small device at 90 % fill: GC must run,
/// amplify writes, and keep the page accounting exact throughout.
#[test]
fn gc_happens_and_accounting_holds() {
    let cfg = DeviceConfig::load(
        "ssdsim-default",
        &[
            "geometry.blocks_per_plane=64".into(),
            "geometry.pages_per_block=32".into(),
            "geometry.page_size=4096".into(),
            "ftl.overprovisioning=0.1".into(),
            "ftl.gc_threshold=0.05".into(),
            "ftl.precondition_fill=0.9".into(),
        ],
    )
    .unwrap();
    let cap = cfg.logical_bytes();
    let spec = SyntheticSpec::parse("read=0,bs=4k,iops=2000,n=40000").unwrap();
    let wl = spec.build(cap, 3).unwrap();
    let mut sim = Simulation::new(
        cfg,
        wl,
        RunOptions {
            seed: 3,
            keep_records: false,
            check: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let mut steps = 0;
    while !sim.advance(5_000).unwrap() {
        steps += 1;
        // Mid-run: every block's valid count equals the mapping table.
        sim.ssd.ftl.check_invariants().unwrap();
    }
    assert!(steps > 3);
    sim.ssd.ftl.check_invariants().unwrap();
    let s = sim.summary();
    assert_eq!(s.requests, 40_000);
    assert!(s.waf > 1.5, "waf {}", s.waf);
    // GC drains after the last completion; utilisation stays a fraction.
    assert!(s
        .flash
        .chip_utilization
        .iter()
        .all(|&u| (0.0..=1.0).contains(&u)));
    assert!(s.gc.erases > 0 && s.gc.pages_moved > 0);
    let erased: u64 = sim.ssd.ftl.erase_counts().iter().map(|&e| e as u64).sum();
    assert_eq!(erased, s.gc.erases);
    // Live data never exceeds the logical space and nothing was lost.
    assert!(sim.ssd.ftl.mapped_pages() <= sim.ssd.ftl.logical_pages as u64);
}

/// Same config and seed give byte-identical JSON (wall time excluded).
#[test]
fn deterministic_json() {
    let spec = RunSpec {
        device: "ssdsim-default".into(),
        overrides: vec![
            "ftl.precondition_fill=0.7".into(),
            "ftl.gc_policy=d-choice".into(),
        ],
        workload: WorkloadSpec::Synthetic("read=0.6,bs=4k-16k,iops=3000,n=20000".into()),
        seed: 11,
        keep_records: true,
    };
    let a = {
        let mut s = run::build(&spec).unwrap();
        s.run().unwrap();
        s.summary().to_json(true)
    };
    let b = {
        let mut s = run::build(&spec).unwrap();
        s.run().unwrap();
        s.summary().to_json(true)
    };
    assert_eq!(a, b);
    let other = RunSpec { seed: 12, ..spec };
    let mut s = run::build(&other).unwrap();
    s.run().unwrap();
    assert_ne!(a, s.summary().to_json(true));
}

/// Writes wait for their program; with a DRAM buffer they complete at once
/// unless the buffer is full; reads of data still in flight hit DRAM.
#[test]
fn write_buffer_acknowledges_early() {
    let slow = one_die(&["timing.program_us=500", "host.queue_depth=8"]);
    let recs = || {
        vec![
            rec(0, Op::Write, 0, 4 * KIB),
            rec(0, Op::Write, 8192, 4 * KIB),
            rec(1000, Op::Read, 0, 4 * KIB),
        ]
    };
    let sim = run_checked(slow.clone(), recs());
    assert_eq!(completions_us(&sim), vec![1.0, 500.0, 1000.0]);
    assert_eq!(sim.ssd.stats.dram_read_hits, 1);

    let mut buffered = slow;
    buffered.cache.mib = 1.0;
    let sim = run_checked(buffered, recs());
    assert_eq!(completions_us(&sim), vec![0.0, 1.0, 0.0]);
}

/// Bus contention: two dies on one channel reading at once share the bus.
#[test]
fn channel_bus_is_shared() {
    let cfg = DeviceConfig::load(
        "default",
        &[
            "geometry.channels=1".into(),
            "geometry.chips_per_channel=2".into(),
            "geometry.dies_per_chip=1".into(),
            "geometry.planes_per_die=1".into(),
            "geometry.blocks_per_plane=64".into(),
            "geometry.pages_per_block=64".into(),
            "geometry.page_size=4096".into(),
            "timing.read_us=50".into(),
            // 4096 B at 40.96 MB/s = 100 us on the bus
            "timing.channel_mb_s=40.96".into(),
            "ftl.overprovisioning=0.25".into(),
            "host.queue_depth=8".into(),
            // The two reads are contiguous: keep noop from merging them.
            "host.max_merge_kib=0".into(),
        ],
    )
    .unwrap();
    // CWDP: lpn 0 -> chip 0 (channel 0 way 0), lpn 1 -> chip 1.
    let sim = run_checked(
        cfg,
        vec![
            rec(0, Op::Read, 0, 4 * KIB),
            rec(0, Op::Read, 4096, 4 * KIB),
        ],
    );
    // Both sense for 50 us; the first transfer ends at 150, the second waits: 250.
    assert_eq!(completions_us(&sim), vec![150.0, 250.0]);
    assert_eq!(sim.summary().flash.channel_conflicts, 1);
}

/// TRIM drops mappings without flash work.
#[test]
fn trim_unmaps() {
    let sim = run_checked(
        one_die(&[]),
        vec![
            rec(0, Op::Write, 0, 8 * KIB),
            rec(10_000_000, Op::Trim, 0, 8 * KIB),
        ],
    );
    assert_eq!(sim.ssd.ftl.mapped_pages(), 0);
    assert_eq!(sim.summary().trims, 1);
}

/// Bad trace paths and names fail with clear errors.
#[test]
fn bad_inputs_are_named() {
    let spec = RunSpec {
        device: "default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Trace {
            path: "/no/such/trace.csv".into(),
            format: "auto".into(),
            intensity: 1.0,
            limit: None,
            options: Default::default(),
        },
        seed: 1,
        keep_records: false,
    };
    let e = run::build(&spec).err().unwrap().to_string();
    assert!(e.contains("/no/such/trace.csv"), "{e}");
    let spec = RunSpec {
        workload: WorkloadSpec::Trace {
            path: "x".into(),
            format: "nope".into(),
            intensity: 1.0,
            limit: None,
            options: Default::default(),
        },
        ..spec
    };
    let e = run::build(&spec).err().unwrap().to_string();
    assert!(e.contains("nope") && e.contains("msr"), "{e}");
}

/// Reads of never-written pages place them (untimed) and may take free
/// blocks; GC must notice, or later writes block forever (found replaying
/// ycsb-btrfs on a preconditioned device).
#[test]
fn untimed_placements_trigger_gc() {
    let cfg = one_die(&[
        "geometry.blocks_per_plane=64",
        "geometry.pages_per_block=32",
        "ftl.gc_threshold=0.1",
        // 30 % never written: placing it drains the plane to its reserve.
        "ftl.precondition_fill=0.7",
        "host.queue_depth=4",
    ]);
    let cap = cfg.logical_bytes();
    // Read the whole logical space (the unwritten 10 % gets placed), then
    // overwrite random pages.
    let mut recs: Vec<SimResult<IoRecord>> = (0..cap / (64 * 1024))
        .map(|i| rec(i * 1_000_000, Op::Read, i * 64 * 1024, 64 * KIB))
        .collect();
    let t0 = recs.len() as u64 * 1_000_000;
    let mut x = 12345u64;
    for i in 0..3000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let page = (x >> 33) % (cap / 4096);
        recs.push(rec(t0 + i * 1_000_000, Op::Write, page * 4096, 4 * KIB));
    }
    let n = recs.len() as u64;
    let sim = run_checked(cfg, recs);
    let s = sim.summary();
    assert_eq!(s.requests, n);
    assert!(s.flash.untimed_placements > 0);
    assert!(s.gc.erases > 0);
    sim.ssd.ftl.check_invariants().unwrap();
}

/// Rows are staged inside the core and written out whenever it returns to
/// its caller: between any two calls every completed request has its row,
/// in completion order, the same rows as a run done in one call.
#[test]
fn every_completed_request_has_its_row_whenever_the_run_returns() {
    let spec = RunSpec {
        device: "default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Synthetic("read=0.6,bs=4k-32k,iops=40000,n=5000".into()),
        seed: 9,
        keep_records: true,
    };
    let mut whole = run::build(&spec).unwrap();
    whole.run().unwrap();
    let mut stepped = run::build(&spec).unwrap();
    // Odd step counts, so returns fall anywhere within a stage of rows.
    let returns = common::rows_complete_at_every_return(|| {
        let finished = stepped.advance(37).unwrap();
        let m = &stepped.metrics;
        (finished, m.records.len(), m.completed())
    });
    assert!(returns > 100);
    let (a, b) = (&stepped.metrics.records, &whole.metrics.records);
    assert_eq!(a.len(), 5000);
    assert_eq!(a.complete.to_vec(), b.complete.to_vec());
    assert_eq!(a.arrival.to_vec(), b.arrival.to_vec());
    assert_eq!(a.offset.to_vec(), b.offset.to_vec());
}

/// Records drained in pieces as the run goes (how a long run streams them to
/// a file) are the records of an undrained run: same rows, same order, none
/// lost or repeated at the piece boundaries; the summary does not change.
#[test]
fn records_taken_in_pieces_equal_the_whole() {
    let spec = |seed| RunSpec {
        device: "default".into(),
        overrides: vec!["ftl.precondition_fill=0.5".into()],
        workload: WorkloadSpec::Synthetic("read=0.6,bs=4k-32k,iops=40000,n=30000".into()),
        seed,
        keep_records: true,
    };
    let mut whole = run::build(&spec(5)).unwrap();
    whole.run().unwrap();
    let mut streamed = run::build_streaming(
        &spec(5),
        false,
        flashsched_core::memory::MemoryLimit::Off,
        Some(1000),
    )
    .unwrap();
    let (mut complete, mut offset, mut op, mut pieces) = (vec![], vec![], vec![], 0);
    loop {
        let done = streamed.advance(2_000).unwrap();
        let r = streamed.take_records();
        pieces += usize::from(!r.is_empty());
        complete.extend_from_slice(&r.complete);
        offset.extend_from_slice(&r.offset);
        op.extend_from_slice(&r.op);
        if done {
            break;
        }
    }
    assert!(
        pieces > 5,
        "the run is drained in several pieces ({pieces})"
    );
    let all = &whole.metrics.records;
    assert_eq!(complete.len(), 30_000);
    assert_eq!(complete, all.complete.to_vec());
    assert_eq!(offset, all.offset.to_vec());
    assert_eq!(op, all.op.to_vec());
    assert!(streamed.take_records().is_empty());
    // Only the memory held differs: the streamed run holds fewer rows.
    let (mut a, mut b) = (streamed.summary(), whole.summary());
    assert!(a.memory_bytes < b.memory_bytes);
    (a.memory_bytes, b.memory_bytes) = (0, 0);
    assert_eq!(a.to_json(true), b.to_json(true));
}

/// The per-second p99 of a run whose rows were taken away in pieces is the
/// p99 of the run that kept them, also where completions are dated back
/// across seconds: under `host.buffered_latency = "from-dispatch"`
/// (SSDsim's clock) a buffered write that waited in an overloaded host
/// queue is dated 1 µs after its arrival, seconds before rows already
/// recorded. Taking a piece keeps the latencies of every second a later
/// row can still complete in: no row recorded after a take completes
/// before the floor the take used.
#[test]
fn per_second_p99_survives_records_taken_in_pieces() {
    let spec = RunSpec {
        device: "ssdsim-default".into(),
        overrides: vec!["host.buffered_latency=from-dispatch".into()],
        workload: WorkloadSpec::Synthetic("read=0.3,bs=4k-64k,iops=9000,n=40000,span=1g".into()),
        seed: 3,
        keep_records: true,
    };
    let mut whole = run::build(&spec).unwrap();
    whole.run().unwrap();
    let all = &whole.metrics.records;
    // Rows dated back past a second that later rows had already reached.
    let (mut latest, mut back) = (0, 0);
    for &c in all.complete.iter() {
        back += usize::from(c / NS_PER_S < latest / NS_PER_S);
        latest = latest.max(c);
    }
    assert!(back > 0, "no row is dated back across a second");
    let mut streamed = run::build_streaming(
        &spec,
        false,
        flashsched_core::memory::MemoryLimit::Off,
        Some(2000),
    )
    .unwrap();
    let (mut rows, mut floor, mut below) = (0, 0, 0);
    loop {
        let done = streamed.advance(300).unwrap();
        let piece = streamed.take_records();
        rows += piece.len();
        below += piece.complete.iter().filter(|&&c| c < floor).count();
        floor = streamed.completion_floor();
        if done {
            break;
        }
    }
    assert_eq!(rows, all.len());
    assert_eq!(
        below, 0,
        "rows completed before the floor of the take before them"
    );
    assert!(
        streamed.metrics.tail.settled().len() >= 2,
        "seconds settle as the run goes"
    );
    let p99 = whole.metrics.p99_per_second();
    assert!(p99.iter().all(|&p| p > 0.0));
    assert_eq!(streamed.metrics.p99_per_second(), p99);
}
