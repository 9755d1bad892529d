//! SSD arrays: RAID address mapping worked examples, the serial array's
//! version oracle / TRIM / no-front-end-GC invariants, and the network cap.

use flashsched_core::array::network::LinkConfig;
use flashsched_core::array::raid::{Extent, Raid0, Raid5};
use flashsched_core::array::serial::Role;
use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::engine::NS_PER_MS;

use crate::common;
use common::small_ssd;

const K: u64 = 1024;

fn ext(ssd: u32, offset: u64, len: u64) -> Extent {
    Extent {
        ssd,
        offset,
        len: len as u32,
    }
}

fn array(layout: &str, link: Option<&str>, bin_ms: u64) -> ArrayConfig {
    ArrayConfig {
        layout: Layout::parse(layout).unwrap(),
        ssds: 4,
        queue_depth: 64,
        link: link.map(|l| LinkConfig::parse(l).unwrap()),
        bin_ns: bin_ms * NS_PER_MS,
        seed: 3,
        keep_records: false,
    }
}

fn run(cfg: ArrayConfig, phases: &[&str]) -> ArraySim {
    let wl = ArrayWorkload::Phases(phases.iter().map(|s| s.to_string()).collect());
    let mut sim = ArraySim::new(cfg, small_ssd(&[]), &wl).unwrap();
    sim.enable_check();
    sim.run().unwrap();
    sim
}

/// RAID-0, 4 SSDs, 64 KiB chunks: chunk c on SSD c mod 4 at stripe c / 4.
#[test]
fn raid0_mapping_worked_example() {
    let r = Raid0 {
        ssds: 4,
        chunk: 64 * K,
    };
    assert_eq!(r.locate(0), (0, 0));
    assert_eq!(r.locate(64 * K), (1, 0));
    assert_eq!(r.locate(256 * K), (0, 64 * K));
    assert_eq!(r.locate(300 * K), (0, 64 * K + 44 * K));
    assert_eq!(r.locate(1000 * K), (3, 3 * 64 * K + 40 * K)); // chunk 15
    let mut v = Vec::new();
    r.map(60 * K, 200 * 1024, &mut v);
    assert_eq!(
        v,
        vec![
            ext(0, 60 * K, 4 * K),
            ext(1, 0, 64 * K),
            ext(2, 0, 64 * K),
            ext(3, 0, 64 * K),
            ext(0, 64 * K, 4 * K),
        ]
    );
}

/// RAID-5 left-symmetric over 4 SSDs (Linux md's default layout):
/// stripe 0: D0 D1 D2 P, stripe 1: D4 D5 P D3, stripe 2: D8 P D6 D7,
/// stripe 3: P D9 D10 D11, then the pattern repeats.
#[test]
fn raid5_left_symmetric_worked_example() {
    let r = Raid5 {
        ssds: 4,
        chunk: 64 * K,
    };
    let parity: Vec<u32> = (0..5).map(|s| r.parity_ssd(s)).collect();
    assert_eq!(parity, vec![3, 2, 1, 0, 3]);
    let disks: Vec<u32> = (0..15).map(|c| r.locate(c * 64 * K).0).collect();
    assert_eq!(disks, vec![0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]);
    // D4 is the second data chunk of stripe 1: SSD 0 at stripe offset 64 KiB.
    assert_eq!(r.locate(4 * 64 * K + 5), (0, 64 * K + 5));

    // Full-stripe write: three data chunks + whole parity chunk, no reads.
    let w = r.map_write(0, 192 * 1024);
    assert_eq!(w.len(), 1);
    assert!(w[0].full);
    assert_eq!(w[0].parity, ext(3, 0, 64 * K));
    assert_eq!(
        w[0].data,
        vec![ext(0, 0, 64 * K), ext(1, 0, 64 * K), ext(2, 0, 64 * K)]
    );

    // 4 KiB inside D1: read-modify-write of that range and the same parity range.
    let w = r.map_write(64 * K + 8 * K, 4 * 1024);
    assert!(!w[0].full);
    assert_eq!(w[0].data, vec![ext(1, 8 * K, 4 * K)]);
    assert_eq!(w[0].parity, ext(3, 8 * K, 4 * K));

    // A write crossing into stripe 1 (D2 tail + D3 head).
    let w = r.map_write(3 * 64 * K - 4 * K, 8 * 1024);
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].data, vec![ext(2, 60 * K, 4 * K)]);
    assert_eq!(w[0].parity, ext(3, 60 * K, 4 * K));
    assert_eq!(w[1].data, vec![ext(3, 64 * K, 4 * K)]);
    assert_eq!(w[1].parity, ext(2, 64 * K, 4 * K));
}

/// End to end: a partial-stripe write reads old data + old parity, then
/// writes both; a full-stripe write only writes.
#[test]
fn raid5_rmw_traffic() {
    let sim = run(
        array("raid5,chunk=64k", None, 100),
        &["read=0,bs=16k,qd=1,n=1,offset=64k,pattern=seq,align=16k"],
    );
    let s = sim.summary();
    assert_eq!(s.stats.rmw_stripes, 1);
    let rd: Vec<u64> = s.per_ssd.iter().map(|x| x.bytes_read).collect();
    let wr: Vec<u64> = s.per_ssd.iter().map(|x| x.bytes_written).collect();
    assert_eq!(rd, vec![0, 16 * K, 0, 16 * K]);
    assert_eq!(wr, vec![0, 16 * K, 0, 16 * K]);

    let sim = run(
        array("raid5,chunk=64k", None, 100),
        &["read=0,bs=192k,qd=1,n=1,pattern=seq,align=64k"],
    );
    let s = sim.summary();
    assert_eq!(s.stats.full_stripes, 1);
    assert_eq!(s.stats.rmw_stripes, 0);
    assert!(s.per_ssd.iter().all(|x| x.bytes_read == 0));
    assert!(s.per_ssd.iter().all(|x| x.bytes_written == 64 * K));
}

/// The serial array under random overwrites with reads mixed in: the front
/// end rotates, xGC empties old front-ends and TRIMs them; every read finds
/// the newest version of its block, TRIMmed SSDs hold no valid page, and no
/// SSD runs internal GC while it is the front-end.
#[test]
fn serial_version_oracle_trim_and_no_front_gc() {
    for victim in ["retired", "greedy", "fifo"] {
        check_serial(&format!("victim={victim}"));
    }
    // One destination, and reads of front-end data from the host cache.
    check_serial("victim=retired,dests=1,cache=front");
}

fn check_serial(opts: &str) {
    let cfg = array(&format!("serial,verify=true,segment=512k,{opts}"), None, 50);
    let wl = ArrayWorkload::Phases(vec![
        "read=0,bs=256k,qd=32,n=1500,align=256k".into(),
        "read=0.3,bs=16k-64k,qd=32,n=12000,align=16k,span=96m".into(),
    ]);
    let mut sim = ArraySim::new(cfg, small_ssd(&[]), &wl).unwrap();
    sim.enable_check();
    sim.run().unwrap();
    let s = sim.summary();
    let ser = s.serial.clone().unwrap().stats;
    assert!(ser.rotations >= 4, "{ser:?}");
    assert!(ser.trims >= 2, "{ser:?}");
    assert!(ser.xgc_units_copied > 0, "{ser:?}");
    assert!(ser.version_checks > 10_000, "{ser:?}");
    assert_eq!(ser.version_mismatches, 0);
    assert_eq!(s.stats.max_valid_pages_after_trim, 0);
    assert!(s.stats.trim_erases > 0);
    assert_eq!(s.stats.front_gc_violations, 0);
    assert_eq!(s.gc_invocations, 0, "serial SSDs never GC internally");
    // Array accounting: no internal GC bytes; flash = everything the array
    // wrote (user data + xGC copies, whole pages) as no GC ran; WAF > 1
    // because xGC copied.
    let a = &s.accounting;
    assert_eq!(a.internal_gc_bytes, 0);
    assert_eq!(a.xgc_bytes, ser.xgc_units_copied * 16 * K);
    assert_eq!(a.flash_bytes_written, a.array_bytes_written);
    assert!(a.array_bytes_written >= a.user_bytes + a.xgc_bytes);
    assert!((a.array_waf - a.flash_bytes_written as f64 / a.user_bytes as f64).abs() < 1e-12);
    assert!(a.array_waf > 1.0);
    assert_eq!(a.usable_bytes, s.volume_bytes);
    assert_eq!(
        ser.keep_up.jobs, ser.trims,
        "every TRIMmed victim was checked"
    );
    if opts.contains("cache=front") {
        assert!(ser.cache_hit_units > 0, "{ser:?}");
    } else {
        assert_eq!(ser.cache_hit_units, 0);
    }
    let log = sim.serial().unwrap();
    log.check_invariants().unwrap();
    // The array's mapping agrees with every SSD's own FTL: each valid slot is
    // a mapped page on its SSD; clean SSDs hold nothing.
    let page = 16 * K;
    for (i, ssd) in sim.ssds.iter().enumerate() {
        ssd.ftl.check_invariants().unwrap();
        let i = i as u32;
        if log.role[i as usize] == Role::Clean {
            assert_eq!(ssd.ftl.mapped_pages(), 0);
        }
        for off in 0..log.write_pointer(i) {
            if log.owner(i, off).is_some() {
                let lpn = (off as u64 * log.unit / page) as u32;
                assert!(ssd.ftl.lookup(lpn).is_some(), "ssd {i} slot {off}");
            }
        }
    }
}

/// Array throughput never exceeds the link: bytes on the wire per bin are
/// at most rate × bin, and completed bytes per bin at most that plus one
/// queue of requests.
#[test]
fn network_caps_throughput() {
    let bin = 20;
    let cap = 125e6 * bin as f64 / 1000.0; // bytes per bin at 1 Gbit/s
                                           // Mixed reads and writes: each direction of the full-duplex link is capped.
    let sim = run(
        array("raid0", Some("1,overhead=5us"), bin),
        &["read=0.5,bs=64k,qd=32,n=4000,align=64k"],
    );
    let (win, wout) = sim.wire_bytes().unwrap();
    let (win, wout) = (win.values(), wout.values());
    assert!(win.len() > 10 && wout.len() > 10);
    for (i, &b) in win.iter().chain(wout).enumerate() {
        assert!(b <= cap * (1.0 + 1e-9), "bin {i}: {b} > {cap}");
    }
    assert!(win.iter().any(|&b| b > 0.9 * cap));
    // Writes only (the paper's experiments): client throughput per bin.
    let sim = run(
        array("raid0", Some("1,overhead=5us"), bin),
        &["read=0,bs=64k,qd=32,n=6000,align=64k"],
    );
    let s = sim.summary();
    for (i, &b) in sim.series.array_bytes.iter() {
        assert!((b as f64) <= cap + 32.0 * 65536.0, "bin {i}: {b}");
    }
    // The link, not the SSDs, is the bottleneck: within 10 % of line rate.
    // 1 Gbit/s = 125 MB/s = 119.2 MiB/s.
    assert!(
        s.bandwidth_mib_s <= 125e6 / 1048576.0,
        "{}",
        s.bandwidth_mib_s
    );
    assert!(
        s.bandwidth_mib_s > 110e6 / 1048576.0,
        "{}",
        s.bandwidth_mib_s
    );
}

/// Same config and seed give the same summary, byte for byte.
#[test]
fn array_runs_are_deterministic() {
    let go = || {
        run(
            array("serial,victim=fifo", Some("10gbe"), 10),
            &["read=0.2,bs=64k,qd=32,n=3000,align=64k"],
        )
        .summary()
        .to_json(true)
    };
    assert_eq!(go(), go());
}

/// An array stages its rows as one SSD does: whenever the run returns to
/// its caller every completed request has its row.
#[test]
fn every_completed_array_request_has_its_row_whenever_the_run_returns() {
    let wl = ArrayWorkload::Phases(vec!["read=0.5,bs=16k,qd=16,n=2000".into()]);
    let cfg = ArrayConfig {
        keep_records: true,
        ..array("raid0", Some("10gbe"), 10)
    };
    let mut sim = ArraySim::new(cfg, small_ssd(&[]), &wl).unwrap();
    let returns = common::rows_complete_at_every_return(|| {
        let finished = sim.advance(29).unwrap();
        (finished, sim.metrics.records.len(), sim.metrics.completed())
    });
    assert!(returns > 50);
    assert_eq!(sim.metrics.records.len(), 2000);
}

/// The FTP-like workload: every client writes its own file exactly once,
/// in order, and the RAID-0 volume receives all of it.
#[test]
fn concurrent_writers_cover_their_files() {
    let cfg = array("raid0", Some("10gbe"), 10);
    let wl = ArrayWorkload::Writers {
        clients: 10,
        file: 4 << 20,
        bs: 256 << 10,
        qd: 2,
    };
    let mut sim = ArraySim::new(
        ArrayConfig {
            keep_records: true,
            ..cfg
        },
        small_ssd(&[]),
        &wl,
    )
    .unwrap();
    sim.enable_check();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.writes, 160);
    assert_eq!(s.bytes_written, 40 << 20);
    let r = &sim.metrics.records;
    let mut per_client: Vec<Vec<u64>> = vec![Vec::new(); 10];
    for i in 0..r.len() {
        per_client[r.stream[i] as usize].push(r.offset[i]);
    }
    for (c, offs) in per_client.iter_mut().enumerate() {
        offs.sort();
        let want: Vec<u64> = (0..16)
            .map(|k| c as u64 * (4 << 20) + k * (256 << 10))
            .collect();
        assert_eq!(*offs, want, "client {c}");
    }
    let per_ssd: u64 = s.per_ssd.iter().map(|x| x.bytes_written).sum();
    assert_eq!(per_ssd, 40 << 20);
}

/// Amphibian's GC detection injects probe reads, whose host slots no
/// arrival sized the array's tables for (this used to index out of bounds).
#[test]
fn raid0_runs_amphibian_probe_reads() {
    let wl = ArrayWorkload::Phases(vec![
        "read=0.5,bs=4k-64k,pattern=random,qd=64,n=40000".to_string()
    ]);
    let mut sim = ArraySim::new(
        array("raid0", None, 100),
        small_ssd(&["host.scheduler=amphibian"]),
        &wl,
    )
    .unwrap();
    sim.enable_check();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.requests, 40_000);
}

/// A serial volume too large for its spare room stalls writes: the stall is
/// counted (periods, time) and reported as a warning; a roomy one does not.
#[test]
fn serial_stalls_are_counted_and_warned() {
    let wl = |span: &str| {
        ArrayWorkload::Phases(vec![format!(
            "read=0,bs=64k,qd=32,n=16000,align=64k,span={span}"
        )])
    };
    let run = |layout: &str, span: &str| {
        let mut sim = ArraySim::new(array(layout, None, 50), small_ssd(&[]), &wl(span)).unwrap();
        sim.run().unwrap();
        sim.summary()
    };
    let tight = run("serial,volume=0.7,victim=retired", "100%");
    assert!(tight.stats.stall_events > 0, "{:?}", tight.stats);
    assert!(tight.accounting.stall_ms > 0.0);
    assert_eq!(tight.accounting.stall_events, tight.stats.stall_events);
    assert!(
        tight.warnings.iter().any(|w| w.contains("waited for xGC")),
        "{:?}",
        tight.warnings
    );
    let k = &tight.serial.as_ref().unwrap().stats.keep_up;
    assert!(k.jobs_behind > 0 && k.max_valid_fraction > 0.5, "{k:?}");
    let roomy = run("serial,volume=0.3", "30%");
    assert_eq!(roomy.stats.stall_events, 0);
    assert_eq!(roomy.accounting.stall_ms, 0.0);
    assert!(roomy.warnings.iter().all(|w| !w.contains("waited")));
}

/// RAID-0's usable volume: `volume=0.5` halves it (whole chunks per SSD);
/// the layout string rejects volumes outside (0, 1].
#[test]
fn raid_usable_volume() {
    let wl = ArrayWorkload::Phases(vec!["read=0,bs=64k,qd=8,n=100".into()]);
    let full = ArraySim::new(array("raid0", None, 50), small_ssd(&[]), &wl).unwrap();
    let half = ArraySim::new(array("raid0,volume=0.5", None, 50), small_ssd(&[]), &wl).unwrap();
    let per = full.ssds[0].logical_bytes();
    assert_eq!(full.volume_bytes(), 4 * (per / (64 * K) * 64 * K));
    assert_eq!(half.volume_bytes(), 4 * ((per / 2) / (64 * K) * 64 * K));
    assert!(Layout::parse("raid0,volume=0").is_err());
    assert!(Layout::parse("raid0,volume=1.5").is_err());
    assert!(Layout::parse("serial,dests=0").is_ok()); // 0 = the default (2 here)
    let bad = ArraySim::new(array("serial,dests=3", None, 50), small_ssd(&[]), &wl);
    assert!(bad.is_err(), "4 SSDs, 1 front-end: at most 2 destinations");
}

/// Per-SSD speed factors: SSD 1 at half speed writes half as fast as SSD 0
/// on the same RAID-0 stripe load; wrong lengths are errors.
#[test]
fn per_ssd_speeds() {
    let wl = ArrayWorkload::Phases(vec!["read=0,bs=256k,qd=64,n=4000,align=256k".into()]);
    let mut sim = ArraySim::new(array("raid0", None, 50), small_ssd(&[]), &wl).unwrap();
    assert!(sim.set_ssd_speeds(&[1.0, 1.0]).is_err());
    assert!(sim.set_ssd_speeds(&[1.0, 0.0, 1.0, 1.0]).is_err());
    sim.set_ssd_speeds(&[1.0, 0.5, 1.0, 1.0]).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.per_ssd[1].speed, 0.5);
    // Striping waits for the slow SSD: the array runs at its pace, so the
    // run takes longer than the same run with equal SSDs.
    let mut eq = ArraySim::new(array("raid0", None, 50), small_ssd(&[]), &wl).unwrap();
    eq.run().unwrap();
    assert!(s.simulated_s > 1.3 * eq.summary().simulated_s);
}
