//! The cached mapping table (`[mapping]`, MQSim's CMT) as worked examples
//! computed by hand on the tiny device of tests/controller.rs (one channel,
//! one chip of 2 dies × 2 planes, 16 blocks × 16 pages of 4 KiB; reads
//! 50 µs, programs 200 µs, 10 µs per page on the flash bus; LPN l goes to
//! plane l mod 4: 0 → die 0 plane 0, 1 → die 0 plane 1, 2 → die 1 plane 0,
//! 3 → die 1 plane 1). 768 host pages; translation pages of 8 entries
//! (`translation_entry_bytes` = 512) are hidden pages 768 + t, so
//! translation page 0 lives on die 0 plane 0 and page 2 on die 1 plane 0.
//! Every run has the version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{completions_us, one_chip, rec, run_checked};

const PAGE: u32 = 4096;

/// The tiny device with a mapping cache of `entries` entries (512 bytes each).
fn tiny(entries: u32, extra: &[&str]) -> DeviceConfig {
    let kib = format!("mapping.cmt_kib={}", entries as f64 / 2.0);
    let mut ov = vec![
        "mapping.entry_bytes=512",
        "mapping.translation_entry_bytes=512",
        kib.as_str(),
    ];
    ov.extend_from_slice(extra);
    one_chip(&ov)
}

fn page(i: u64) -> u64 {
    i * PAGE as u64
}

/// A read of LPN 2 (die 1) at 0 misses: translation page 0 is read on die 0
/// (sense 0–50, out 50–60), then the page itself on die 1 (60–110, out
/// 110–120): done 120. The same read at 200 hits: 200–250–260.
#[test]
fn a_miss_reads_the_translation_page_first_then_hits() {
    let sim = run_checked(
        tiny(4, &[]),
        vec![
            rec(0, Op::Read, page(2), PAGE),
            rec(200_000, Op::Read, page(2) + 1, 1),
        ],
    );
    assert_eq!(completions_us(&sim), [120.0, 260.0]);
    let m = sim.summary().mapping;
    assert_eq!((m.queries, m.hits, m.flash_reads), (2, 1, 1));
    assert_eq!(m.cmt_entries, 4);
    assert_eq!(sim.summary().flash.reads, 3);
}

/// `mapping.read_sectors = 1` (MQSim): the translation read moves one
/// 512-byte sector, 1.25 µs at 409.6 MB/s: sense 0–50, out 50–51.25; the
/// page itself 51.25–101.25, out 101.25–111.25.
#[test]
fn a_translation_read_of_one_sector_moves_only_it() {
    let sim = run_checked(
        tiny(4, &["mapping.read_sectors=1"]),
        vec![rec(0, Op::Read, page(2), PAGE)],
    );
    assert_eq!(completions_us(&sim), [111.25]);
    let ov = ["geometry.page_size=4096", "mapping.read_sectors=9"].map(String::from);
    let e = DeviceConfig::load("default", &ov).unwrap_err().to_string();
    assert!(e.contains("mapping.read_sectors"), "{e}");
}

/// Without a mapping cache the same reads take 60 µs each.
#[test]
fn the_whole_table_in_dram_costs_nothing() {
    let mut cfg = tiny(4, &[]);
    cfg.mapping.cmt_kib = 0.0;
    let sim = run_checked(
        cfg,
        vec![
            rec(0, Op::Read, page(2), PAGE),
            rec(200_000, Op::Read, page(2) + 1, 1),
        ],
    );
    assert_eq!(completions_us(&sim), [60.0, 260.0]);
    assert_eq!(sim.summary().mapping.flash_reads, 0);
}

/// Misses on one translation page share its read: LPN 2 at 0 starts the
/// read of page 0 (done 60); LPN 6 (also page 0, die 1 plane 0 as well) at
/// 20 waits for it. Both then read die 1 plane 0 in turn, the second once
/// the first's data has left the plane: 60–110 (out 110–120) and 120–170
/// (out 170–180).
#[test]
fn misses_on_one_translation_page_share_its_read() {
    let sim = run_checked(
        tiny(4, &[]),
        vec![
            rec(0, Op::Read, page(2), PAGE),
            rec(20_000, Op::Read, page(6), PAGE),
        ],
    );
    assert_eq!(completions_us(&sim), [120.0, 180.0]);
    let m = sim.summary().mapping;
    assert_eq!((m.queries, m.hits, m.flash_reads), (2, 0, 1));
}

/// A write needs its entry too, and leaves it dirty. With room for one
/// entry: the write of LPN 0 at 0 misses (read of page 0 on die 0, 0–60),
/// is programmed on die 0 (bus 60–70, tPROG 70–270): done 270. A read of
/// LPN 18 (page 2, die 1 plane 0 — its translation page too) at 300 evicts
/// the dirty entry of LPN 0: page 0 is written back — a merge read, then a
/// program of a new copy — beside the read of page 2 for LPN 18.
#[test]
fn evicting_a_changed_entry_writes_its_translation_page_back() {
    let sim = run_checked(
        tiny(1, &[]),
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(300_000, Op::Read, page(18), PAGE),
        ],
    );
    let done = completions_us(&sim);
    assert_eq!(done[0], 270.0);
    let s = sim.summary();
    let m = &s.mapping;
    assert_eq!(m.queries, 2);
    assert_eq!(m.hits, 0);
    assert_eq!(m.writebacks, 1);
    // Page 0 for the write, page 0 again to merge, page 2 for the read.
    assert_eq!(m.flash_reads, 3);
    assert_eq!(m.flash_programs, 1);
    // One user program and one translation program.
    assert_eq!(s.flash.programs, 2);
    assert!((s.waf - 2.0).abs() < 1e-9, "waf {}", s.waf);
    // Both translation reads sense 300–350; the bus takes die 0's data
    // first (350–360), then page 2's (360–370); LPN 18's own read on die 1
    // then senses 370–420 and leaves 420–430.
    assert_eq!(done[1], 430.0);
}

/// Clean entries leave without flash traffic.
#[test]
fn evicting_clean_entries_writes_nothing() {
    let sim = run_checked(
        tiny(1, &[]),
        (0..6)
            .map(|i| rec(i * 300_000, Op::Read, page(8 * i), PAGE))
            .collect(),
    );
    let m = sim.summary().mapping;
    assert_eq!((m.queries, m.flash_reads, m.writebacks), (6, 6, 0));
    assert_eq!(sim.summary().flash.programs, 0);
}

/// Sustained random writes with a tiny cache: translation pages are
/// rewritten and garbage-collected like data, and the oracle and audits
/// (translation pages included) hold.
#[test]
fn translation_pages_survive_gc_under_random_writes() {
    let recs = || {
        let mut x: u64 = 7;
        (0..4000u64)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let lpn = (x >> 33) % 768;
                let op = if i % 3 == 0 { Op::Read } else { Op::Write };
                rec(i * 20_000, op, page(lpn), PAGE)
            })
            .collect()
    };
    for policy in ["interleaved", "blocking", "preemptive"] {
        let gc = format!("ftl.gc_mode={policy}");
        // 64 entries per translation page (12 of them), 128 cached.
        let cfg = tiny(
            128,
            &[
                gc.as_str(),
                "ftl.precondition_fill=0.9",
                "mapping.translation_entry_bytes=64",
            ],
        );
        let t0 = std::time::Instant::now();
        let sim = run_checked(cfg, recs());
        let s = sim.summary();
        eprintln!(
            "{policy}: {:?} events {} {:?} {:?}",
            t0.elapsed(),
            s.events,
            s.mapping,
            s.gc
        );
        assert!(s.gc.invocations > 0, "{policy}: no GC");
        assert!(s.mapping.flash_programs > 0, "{policy}: no write-back");
        assert!(s.mapping.hits < s.mapping.queries);
    }
}
