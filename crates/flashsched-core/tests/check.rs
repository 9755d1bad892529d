//! Check mode: the checker catches real violations (hand-built record
//! sequences and a corrupted FTL), a seeded property test drives random
//! request sequences through every host × device scheduler with the oracle
//! on, and a soak test writes 10× the capacity under every GC policy.
//!
//! Longer property runs: `FLASHSCHED_CHECK_CASES=200 cargo test --release
//! -p flashsched-core --test check property` (cases per scheduler pair);
//! one failing case alone: `FLASHSCHED_CHECK_SEED=n`, with some of its
//! drawn settings replaced: `FLASHSCHED_CHECK_EXTRA=key=value,...`;
//! longer soak: `FLASHSCHED_SOAK_X=100` (device capacities written).

use flashsched_core::check::record::OpRecord;
use flashsched_core::check::Checker;
use flashsched_core::config::DeviceConfig;
use flashsched_core::flash::Geometry;
use flashsched_core::rng::Rng;
use flashsched_core::run::{self, WorkloadSpec};
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::replay::Replay;
use flashsched_core::workload::{IoRecord, Op};
use flashsched_core::SimResult;

use crate::common;
use common::GC_POLICIES;

fn small(extra: &[String]) -> DeviceConfig {
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
    .iter()
    .map(|s| s.to_string())
    .collect();
    ov.extend(extra.iter().cloned());
    DeviceConfig::load("default", &ov).unwrap()
}

/// A blank checker for the small device (16 pages per block).
fn blank() -> Checker {
    let cfg = small(&[]);
    Checker::blank(Geometry::new(&cfg.geometry), cfg.logical_pages())
}

fn expect_violation(records: &[OpRecord], words: &[&str]) {
    let mut c = blank();
    let err = c
        .feed(records)
        .expect_err("the checker accepted a violation");
    for w in words {
        assert!(err.contains(w), "`{err}` does not mention `{w}`");
    }
}

use OpRecord::*;

/// Write v1 of lpn 7 to page 0 and v2 to page 1, both programmed.
const TWO_VERSIONS: [OpRecord; 6] = [
    Write { lpn: 7, seq: 1 },
    Program {
        ppn: 0,
        lpn: 7,
        seq: 1,
    },
    ProgramDone { lpn: 7, seq: 1 },
    Write { lpn: 7, seq: 2 },
    Program {
        ppn: 1,
        lpn: 7,
        seq: 2,
    },
    ProgramDone { lpn: 7, seq: 2 },
];

#[test]
fn accepts_a_correct_sequence() {
    let mut c = blank();
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Read {
            id: 0,
            lpn: 7,
            req: 3,
        },
        Sense { id: 0, ppn: 1 },
        // A read issued before v3 may return v2 or v3 (from DRAM).
        Read {
            id: 1,
            lpn: 7,
            req: 3,
        },
        Write { lpn: 7, seq: 3 },
        DramHit { id: 1, lpn: 7 },
        Trim { lpn: 7 },
        Read {
            id: 2,
            lpn: 7,
            req: 4,
        },
        Unmapped { id: 2 },
    ]);
    c.feed(&recs).unwrap();
    assert_eq!(c.oracle.reads_checked, 3);
}

#[test]
fn catches_a_stale_read() {
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Submit {
            req: 5,
            op: Op::Read,
            offset: 7 * 4096,
            size: 4096,
        },
        Read {
            id: 0,
            lpn: 7,
            req: 5,
        },
        Sense { id: 0, ppn: 0 },
    ]);
    expect_violation(
        &recs,
        &[
            "lpn 7",
            "stale v1",
            "page 0",
            "v2",
            "request slot 5",
            "read of 4096 B",
        ],
    );
}

#[test]
fn catches_a_page_programmed_twice() {
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Write { lpn: 8, seq: 3 },
        Program {
            ppn: 1,
            lpn: 8,
            seq: 3,
        },
    ]);
    expect_violation(&recs, &["page 1", "programmed twice", "lpn 8 v3"]);
}

#[test]
fn catches_out_of_order_programs() {
    expect_violation(
        &[
            Write { lpn: 1, seq: 1 },
            Program {
                ppn: 2,
                lpn: 1,
                seq: 1,
            },
        ],
        &["block 0", "out of order", "page 2", "next page is 0"],
    );
}

#[test]
fn catches_a_read_of_an_erasing_block() {
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Read {
            id: 0,
            lpn: 7,
            req: 0,
        },
        EraseStart { block: 0 },
        Sense { id: 0, ppn: 1 },
    ]);
    expect_violation(&recs, &["EAR", "page 1", "lpn 7"]);
}

#[test]
fn catches_data_after_trim_and_lost_data() {
    // A read issued after a TRIM returns the trimmed data.
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Trim { lpn: 7 },
        Read {
            id: 0,
            lpn: 7,
            req: 0,
        },
        Sense { id: 0, ppn: 1 },
    ]);
    expect_violation(&recs, &["stale v2", "TRIM"]);
    // A written page reads as zeros.
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Read {
            id: 0,
            lpn: 7,
            req: 0,
        },
        Unmapped { id: 0 },
    ]);
    expect_violation(&recs, &["zeros", "v2"]);
    // DRAM serves a write whose program finished (its copy is gone).
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Read {
            id: 0,
            lpn: 7,
            req: 0,
        },
        DramHit { id: 0, lpn: 7 },
    ]);
    expect_violation(&recs, &["from DRAM", "v2, not a write still in DRAM"]);
}

#[test]
fn catches_double_completion_and_unanswered_reads() {
    let sub = Submit {
        req: 2,
        op: Op::Write,
        offset: 0,
        size: 4096,
    };
    expect_violation(
        &[sub, Complete { req: 2 }, Complete { req: 2 }],
        &["slot 2", "completed twice"],
    );
    expect_violation(&[sub, sub], &["slot 2", "still in the device"]);
    let mut recs = TWO_VERSIONS.to_vec();
    recs.extend([
        Read {
            id: 0,
            lpn: 7,
            req: 0,
        },
        Sense { id: 0, ppn: 1 },
        Sense { id: 0, ppn: 1 },
    ]);
    expect_violation(&recs, &["read #0", "not in flight"]);
}

fn rec(t_us: u64, op: Op, offset: u64, size: u32, stream: u32) -> SimResult<IoRecord> {
    Ok(IoRecord {
        time_ns: t_us * 1000,
        offset,
        size,
        op,
        stream,
    })
}

fn sim_of(cfg: DeviceConfig, recs: Vec<SimResult<IoRecord>>) -> Simulation {
    sim_with(cfg, recs, false)
}

/// `sim_of`, optionally with the schedulers' fast-path hints ignored.
fn sim_with(cfg: DeviceConfig, recs: Vec<SimResult<IoRecord>>, conservative: bool) -> Simulation {
    let cap = cfg.logical_bytes();
    let wl = Replay::new(Box::new(recs.into_iter()), 1.0, cap, None, "records".into());
    let opts = RunOptions {
        check: true,
        verify_hints: conservative,
        ..RunOptions::default()
    };
    Simulation::new(cfg, Box::new(wl), opts).unwrap()
}

/// Simulator bugs injected behind the device's back (the FTL drops a
/// mapping without a TRIM) are caught and stop the run: by the oracle when
/// the page is read again, by the final audit when it is not.
#[test]
fn a_corrupted_mapping_stops_the_run() {
    // Write lpns 0..100, then read lpns 0..50.
    let recs = || -> Vec<_> {
        (0..150u64)
            .map(|i| {
                let (op, lpn) = if i < 100 {
                    (Op::Write, i)
                } else {
                    (Op::Read, i - 100)
                };
                rec(i * 50, op, lpn * 4096, 4096, 0)
            })
            .collect()
    };
    let mut sim = sim_of(small(&[]), recs());
    sim.run().unwrap();
    // lpn 5 is corrupted before the reads begin (at 5 ms) and read later;
    // lpn 80 near the end, and never read.
    for (lpn, at_ms, words) in [
        (5, 4.9, "returned zeros"),
        (80, 14.0, "lpn 80 lost its mapping"),
    ] {
        let mut sim = sim_of(small(&[]), recs());
        while (sim.now() as f64) < at_ms * 1e6 {
            sim.advance(1).unwrap();
        }
        sim.ssd.ftl.trim(lpn, sim.now());
        let err = sim
            .run()
            .expect_err("the corruption went unnoticed")
            .to_string();
        assert!(err.contains("check failed"), "{err}");
        assert!(err.contains(words), "{err}");
        assert!(err.contains(&format!("lpn {lpn}")), "{err}");
    }
}

/// One random request sequence: reads, writes and TRIMs of mixed sizes at
/// unaligned offsets, half of them in a hot region (so requests overlap
/// while in flight), in bursts.
fn random_requests(rng: &mut Rng, cap: u64, n: usize) -> Vec<SimResult<IoRecord>> {
    let hot = cap / 8;
    let mut t = 0f64;
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
            let span = if rng.below(2) == 0 { hot } else { cap };
            let offset = 512 * rng.below((span - size as u64) / 512);
            if rng.below(5) != 0 {
                t += rng.exp(40.0);
            }
            rec(t as u64, op, offset, size, rng.below(4) as u32)
        })
        .collect()
}

/// Random device knobs that change how data moves.
fn random_knobs(rng: &mut Rng, host: &str, dev: &str) -> Vec<String> {
    let pick = |rng: &mut Rng, xs: &[&str]| xs[rng.below(xs.len() as u64) as usize].to_string();
    let mut ov = vec![
        format!("host.scheduler={host}"),
        format!("controller.scheduler={dev}"),
        format!("host.queue_depth={}", pick(rng, &["1", "4", "32", "128"])),
        format!("cache.mib={}", pick(rng, &["0", "0", "0.0625", "1"])),
        format!(
            "ftl.allocation={}",
            pick(
                rng,
                &["static:CWDP", "static:PDWC", "dynamic", "dynamic:idle-chip"]
            )
        ),
        format!("ftl.gc_policy={}", pick(rng, GC_POLICIES)),
        format!("ftl.gc_move_window={}", pick(rng, &["0", "1", "4"])),
        format!("ftl.gc_jobs_per_plane={}", pick(rng, &["1", "2", "10"])),
        format!("ftl.copyback={}", pick(rng, &["false", "true"])),
        // Dynamic allocation binds a write's plane at submission; a plane
        // preconditioned full of valid data can then leave writes with no
        // space GC can make (reported as a deadlock; docs/model.md).
        format!("ftl.precondition_fill={}", pick(rng, &["0", "0.5", "0.85"])),
        format!("variation.enabled={}", pick(rng, &["false", "true"])),
        format!(
            "controller.multiplane={}",
            pick(
                rng,
                &["off", "onfi", "onfi-queued", "relaxed", "same-block"]
            )
        ),
        format!(
            "cache.policy={}",
            pick(rng, &["eager", "lru", "hot-cold", "ssdsim-lru"])
        ),
        format!("cache.dram_mb_s={}", pick(rng, &["0", "1600"])),
        format!("timing.sector_transfers={}", pick(rng, &["false", "true"])),
        format!("interface.kind={}", pick(rng, &["none", "nvme", "sata"])),
        format!("interface.command_us={}", pick(rng, &["0", "2"])),
        format!("mapping.cmt_kib={}", pick(rng, &["0", "0", "1", "16"])),
        format!(
            "mapping.translation_entry_bytes={}",
            pick(rng, &["0", "256"])
        ),
    ];
    match pick(rng, &["die", "chip", "chip-interleave"]).as_str() {
        "chip" => ov.push("controller.busy_unit=chip".into()),
        "chip-interleave" => {
            ov.push("controller.busy_unit=chip".into());
            ov.push("controller.interleave=true".into());
        }
        _ => {}
    }
    // Command cycles on the bus (MQSim's ONFI timings) and, over NVMe,
    // PCIe packets and NVMe's queue messages.
    if pick(rng, &["none", "cycles"]) == "cycles" {
        for (k, v) in [("read", "290"), ("program", "361"), ("erase", "220")] {
            ov.push(format!("timing.{k}_command_ns={v}"));
            ov.push(format!("timing.{k}_command_plane_ns=700"));
        }
    }
    if ov.iter().any(|o| o == "interface.kind=nvme") {
        ov.push(format!(
            "interface.nvme_messages={}",
            pick(rng, &["false", "true"])
        ));
        ov.push(format!(
            "interface.tlp_payload_bytes={}",
            pick(rng, &["0", "128"])
        ));
        ov.push("interface.tlp_overhead_bytes=28".into());
    }
    ov.push(format!(
        "controller.shared_reads={}",
        pick(rng, &["false", "true"])
    ));
    // SSDsim's buffer may count its room in sectors (reads then served by
    // sector, the rest timed from flash; merged write-backs under static
    // allocation free their merged sectors).
    if ov.iter().any(|o| o == "cache.policy=ssdsim-lru") {
        ov.push(format!("cache.sectors={}", pick(rng, &["false", "true"])));
    }
    if ov.iter().any(|o| o.starts_with("ftl.allocation=dynamic")) {
        ov.retain(|o| o != "ftl.precondition_fill=0.85");
    }
    match pick(rng, &["interleaved", "blocking", "preemptive"]).as_str() {
        "blocking" => {
            ov.push("ftl.gc_mode=blocking".into());
            ov.push(format!(
                "ftl.gc_block_unit={}",
                pick(rng, &["plane", "die", "chip"])
            ));
        }
        "preemptive" => {
            ov.push("ftl.gc_mode=preemptive".into());
            ov.push(format!(
                "ftl.gc_hard_threshold={}",
                pick(rng, &["0", "0.005", "0.02"])
            ));
        }
        _ => {}
    }
    if host == "amphibian" {
        ov.push(format!(
            "host.amphibian.zones={}",
            pick(rng, &["chip", "range"])
        ));
        ov.push(format!(
            "host.amphibian.gc_detect={}",
            pick(rng, &["latency", "oracle"])
        ));
    }
    if dev == "pe-suspend" {
        ov.push(format!(
            "controller.pe-suspend.write_suspend_erase={}",
            pick(rng, &["false", "true"])
        ));
    }
    ov.push(format!(
        "controller.dispatch={}",
        pick(rng, &["unit-free", "channel-idle"])
    ));
    // SSDsim's command quirks (docs/validation.md).
    for key in [
        "controller.advanced_reads",
        "controller.overlap_data_in",
        "cache.dram_serial",
    ] {
        ov.push(format!("{key}={}", pick(rng, &["true", "false"])));
    }
    ov.push(format!(
        "ftl.update_reads={}",
        pick(rng, &["off", "mqsim", "ssdsim"])
    ));
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
    // MQSim's block manager: frontiers holding their blocks from the start
    // and reopening at once, translation pages on a frontier of their own.
    ov.push(format!("ftl.frontiers={}", pick(rng, &["lazy", "eager"])));
    ov.push(format!(
        "ftl.mapping_frontier={}",
        pick(rng, &["false", "true"])
    ));
    // A third open block per 16-block plane (more with variation's speed
    // frontiers) leaves a drive written to 85 % with no room GC can make
    // once its logical space fills: full blocks all valid, the invalid
    // pages in open blocks (reported as a deadlock, as for dynamic
    // allocation above).
    if ov.iter().any(|o| o == "ftl.mapping_frontier=true") {
        ov.retain(|o| o != "ftl.precondition_fill=0.85");
    }
    // SSDsim's step loop: a read's command cycles before waiting data-outs.
    ov.push(format!(
        "controller.read_commands_first={}",
        pick(rng, &["false", "true"])
    ));
    // SSDsim's clock: requests served from DRAM timed from their dispatch.
    ov.push(format!(
        "host.buffered_latency={}",
        pick(rng, &["from-arrival", "from-dispatch"])
    ));
    ov
}

/// Every host × device scheduler pair on random request sequences with the
/// oracle on: no violation, every request completes (the ledger checks it),
/// and the same summary when the device and host ignore the schedulers'
/// fast-path hints (a wrong hint would skip work that matters).
#[test]
fn property_random_requests_every_scheduler_pair() {
    let cases: u64 = std::env::var("FLASHSCHED_CHECK_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let n = 1200;
    let only: Option<u64> = std::env::var("FLASHSCHED_CHECK_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut runs = 0;
    let mut reads = 0;
    for host in flashsched_core::host::sched::names() {
        for dev in flashsched_core::device::sched::names() {
            for case in 0..cases {
                let seed = 1 + case * 1000 + runs;
                // FLASHSCHED_CHECK_SEED=n reruns one failing case alone.
                if only.is_some_and(|o| o != seed) {
                    runs += 1;
                    continue;
                }
                let mut rng = Rng::new(seed);
                let mut ov = random_knobs(&mut rng, host, dev);
                // FLASHSCHED_CHECK_EXTRA=k=v,k=v overrides the drawn knobs
                // (to narrow a failing case down).
                if let Ok(extra) = std::env::var("FLASHSCHED_CHECK_EXTRA") {
                    ov.extend(extra.split(',').filter(|s| !s.is_empty()).map(String::from));
                }
                let cfg = small(&ov);
                let cap = cfg.logical_bytes();
                let recs: Vec<IoRecord> = random_requests(&mut rng, cap, n)
                    .into_iter()
                    .map(|r| r.unwrap())
                    .collect();
                let mut sim = sim_of(cfg.clone(), recs.iter().map(|&r| Ok(r)).collect());
                sim.run()
                    .unwrap_or_else(|e| panic!("{host} × {dev}, seed {seed}, {ov:?}: {e}"));
                let mut plain = sim_with(cfg, recs.into_iter().map(Ok).collect(), true);
                plain.run().unwrap();
                let without_events = |s: &Simulation| {
                    let mut sum = s.summary();
                    sum.events = 0;
                    sum.to_json(true)
                };
                assert_eq!(
                    without_events(&plain),
                    without_events(&sim),
                    "{host} × {dev}, seed {seed}, {ov:?}: the hints changed results"
                );

                assert_eq!(
                    sim.metrics.completed(),
                    n as u64,
                    "{host} × {dev} seed {seed}"
                );
                let (c, _) = sim.ssd.checker().unwrap();
                assert!(c.audits >= 1);
                reads += c.oracle.reads_checked;
                runs += 1;
            }
        }
    }
    eprintln!("property: {runs} runs, {reads} page reads checked, no violation");
}

/// Random 4 KiB writes totalling `x` × the logical capacity on a small,
/// 90 %-full device under `policy`: no free-block exhaustion (GC running
/// out of pages is an error) or deadlock (the run completes, with the oracle
/// on), and a steady WAF. Returns the WAF of the third and last quarters
/// and the fewest free blocks any plane had (0 = GC used its reserve block).
fn soak(policy: &str, x: u64) -> (f64, f64, u32) {
    let cfg = DeviceConfig::load(
        "default",
        &[
            "geometry.channels=1".into(),
            "geometry.chips_per_channel=1".into(),
            "geometry.dies_per_chip=2".into(),
            "geometry.planes_per_die=2".into(),
            "geometry.blocks_per_plane=32".into(),
            "geometry.pages_per_block=32".into(),
            "geometry.page_size=4096".into(),
            "ftl.overprovisioning=0.12".into(),
            "ftl.precondition_fill=0.9".into(),
            format!("ftl.gc_policy={policy}"),
            "host.queue_depth=32".into(),
        ],
    )
    .unwrap();
    let cap = cfg.logical_bytes();
    let n = x * cap / 4096;
    let spec = format!("read=0,bs=4k,align=4k,qd=32,span={cap},n={n},seed=3");
    let wl = run::build_workload(&WorkloadSpec::Synthetic(spec), cap, 7).unwrap();
    let opts = RunOptions {
        check: true,
        keep_records: false,
        ..RunOptions::default()
    };
    let mut sim = Simulation::new(cfg, wl, opts).unwrap();
    // (user, gc) programs at each quarter of the writes.
    let mut marks = vec![(0u64, 0u64)];
    let mut min_free = u32::MAX;
    while !sim.advance(64).unwrap_or_else(|e| panic!("{policy}: {e}")) {
        let ftl = &sim.ssd.ftl;
        min_free = (0..ftl.geo.planes())
            .map(|p| ftl.free_blocks(p))
            .fold(min_free, u32::min);
        let done = sim.metrics.completed();
        if done * 4 >= n * marks.len() as u64 && marks.len() < 4 {
            let s = &sim.ssd.ftl.stats;
            marks.push((s.user_programs, s.gc_programs));
        }
    }
    let s = &sim.ssd.ftl.stats;
    marks.push((s.user_programs, s.gc_programs));
    assert_eq!(sim.metrics.completed(), n);
    let waf = |a: (u64, u64), b: (u64, u64)| {
        let user = (b.0 - a.0) as f64;
        (user + (b.1 - a.1) as f64) / user
    };
    (waf(marks[2], marks[3]), waf(marks[3], marks[4]), min_free)
}

#[test]
fn soak_every_gc_policy_is_stable() {
    let x = std::env::var("FLASHSCHED_SOAK_X")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    for &policy in GC_POLICIES {
        let (q3, q4, min_free) = soak(policy, x);
        eprintln!(
            "soak {policy} x{x}: WAF third quarter {q3:.3}, last quarter {q4:.3}, \
             fewest free blocks in a plane {min_free}"
        );
        assert!(q3 > 1.0, "{policy}: GC must run (WAF {q3})");
        assert!(
            (q4 - q3).abs() / q3 < 0.05,
            "{policy}: WAF not stable: {q3:.3} then {q4:.3}"
        );
    }
}

/// Regressions found by the property test. (1) A read of a TRIMmed page
/// used to place it as never-written data and read it from flash (returning
/// pre-trace data); it now returns zeros without a flash access. (2) A
/// write still in flight (acknowledged from the write buffer) when its page
/// was TRIMmed used to be programmed and mapped afterwards, and reads after
/// the TRIM were served its data from DRAM: the TRIM was lost.
#[test]
fn trimmed_pages_read_as_zeros() {
    let k4 = 4096;
    // (1): write, TRIM, then read, all spaced out.
    let mut sim = sim_of(
        small(&[]),
        vec![
            rec(0, Op::Write, 0, k4, 0),
            rec(10_000, Op::Trim, 0, k4, 0),
            rec(20_000, Op::Read, 0, k4, 0),
        ],
    );
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.flash.user_page_reads, 0);
    assert_eq!(s.flash.untimed_placements, 0);
    assert_eq!(sim.ssd.ftl.mapped_pages(), 0);
    // (2): lpn 0 is rewritten while its first program holds the die, then
    // TRIMmed before the rewrite is programmed; lpn 1 is being programmed.
    let mut sim = sim_of(
        small(&["cache.mib=1".into()]),
        vec![
            rec(0, Op::Write, 0, k4, 0),
            rec(1, Op::Write, 0, 2 * k4, 0),
            rec(2, Op::Trim, 0, k4, 0),
            rec(3, Op::Read, 0, 2 * k4, 0),
            rec(20_000, Op::Read, 0, 2 * k4, 0),
        ],
    );
    sim.run().unwrap();
    let s = sim.summary();
    // Only lpn 1 is still mapped; the program of lpn 0 landed stale.
    assert_eq!(sim.ssd.ftl.mapped_pages(), 1);
    assert!(sim.ssd.ftl.lookup(0).is_none() && sim.ssd.ftl.lookup(1).is_some());
    assert_eq!(s.flash.superseded_programs, 1);
    // lpn 1: one read from DRAM, one from flash; lpn 0 from neither.
    assert_eq!(s.flash.dram_read_hits, 1);
    assert_eq!(s.flash.user_page_reads, 1);
}

/// The host-interface ledger rejects what it must.
#[test]
fn ledger_catches_host_interface_violations() {
    use flashsched_core::check::invariants::RequestLedger;
    let mut l = RequestLedger::default();
    l.arrived(200);
    for seq in (0..200).rev() {
        l.completed(seq).unwrap();
    }
    l.finish().unwrap();
    assert!(l.completed(70).unwrap_err().contains("#70 completed twice"));
    assert!(l
        .completed(200)
        .unwrap_err()
        .contains("only 200 requests arrived"));
    l.arrived(3);
    l.completed(201).unwrap();
    assert!(l
        .completed(201)
        .unwrap_err()
        .contains("#201 completed twice"));
    assert!(l.finish().unwrap_err().contains("first missing: #200"));
    l.step(10, 4, 4).unwrap();
    assert!(l.step(9, 0, 4).unwrap_err().contains("backwards"));
    assert!(l
        .step(11, 5, 4)
        .unwrap_err()
        .contains("5 requests outstanding"));
    l.note_completed(201);
    assert!(l.step(12, 0, 4).unwrap_err().contains("twice"));
}

/// Mutation test on a real record log: the unmodified log of a GC-heavy
/// run replays cleanly through a fresh checker; redirecting one flash read
/// to an older copy of its page, or dropping one erase, is caught.
#[test]
fn mutated_real_logs_are_rejected() {
    let cfg = small(&["host.queue_depth=32".into()]);
    let geo = Geometry::new(&cfg.geometry);
    let logical = cfg.logical_pages();
    let cap = cfg.logical_bytes();
    let spec = format!("read=0.5,bs=4k-16k,iops=20000,span={cap},n=6000,seed=2");
    let wl = run::build_workload(&WorkloadSpec::Synthetic(spec), cap, 1).unwrap();
    let mut sim = Simulation::new(cfg, wl, RunOptions::default()).unwrap();
    sim.ssd.enable_op_log();
    sim.run().unwrap();
    assert!(sim.summary().gc.erases > 20);
    let log = sim.ssd.take_op_log();
    Checker::blank(geo, logical).feed(&log).unwrap();

    // A Sense redirected to an older, still readable copy of the same lpn.
    let mut holds: std::collections::HashMap<u32, (u32, u64)> = Default::default();
    let mut lpn_of_read: std::collections::HashMap<u64, u32> = Default::default();
    let mut stale = None;
    for (i, r) in log.iter().enumerate() {
        match *r {
            Program { ppn, lpn, seq } => {
                holds.insert(ppn, (lpn, seq));
            }
            GcCopy { from, to } => {
                let v = holds[&from];
                holds.insert(to, v);
            }
            EraseStart { block } => holds.retain(|&p, _| geo.block_of(p) != block),
            Read { id, lpn, .. } => {
                lpn_of_read.insert(id, lpn);
            }
            Sense { id, ppn } => {
                let (lpn, seq) = holds[&ppn];
                assert_eq!(lpn, lpn_of_read[&id]);
                let older = holds
                    .iter()
                    .filter(|&(_, &(l, s))| l == lpn && s < seq)
                    .map(|(&p, _)| p)
                    .min();
                if let Some(old) = older {
                    stale = Some((i, id, old));
                    break;
                }
            }
            _ => {}
        }
    }
    let (i, id, old) = stale.expect("no overwritten page was read");
    let mut bad = log.clone();
    bad[i] = Sense { id, ppn: old };
    let err = Checker::blank(geo, logical).feed(&bad).unwrap_err();
    assert!(
        err.contains("stale") && err.contains(&format!("page {old}")),
        "{err}"
    );

    // An erase that never happened: the block's next program overwrites.
    let start = log
        .iter()
        .position(|r| matches!(r, EraseStart { .. }))
        .unwrap();
    let EraseStart { block } = log[start] else {
        unreachable!()
    };
    let bad: Vec<OpRecord> = log
        .iter()
        .copied()
        .enumerate()
        .filter(|&(j, r)| j != start && r != Erase { block })
        .map(|(_, r)| r)
        .collect();
    let err = Checker::blank(geo, logical).feed(&bad).unwrap_err();
    assert!(err.contains("programmed twice"), "{err}");
}
