//! The controller's front end — host interface and DRAM data cache — as
//! worked examples computed by hand on the tiny device of
//! tests/controller.rs (one channel, one chip of 2 dies × 2 planes; reads
//! 50 µs, programs 200 µs, 10 µs per page on the flash bus; LPN 0 → die 0
//! plane 0, 1 → die 0 plane 1, 2 → die 1 plane 0). Every run has the version
//! oracle on.

use flashsched_core::io::Op;
use flashsched_core::sim::Simulation;

use crate::common;
use common::{assert_rejected_by_key, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn page(i: u64) -> u64 {
    i * PAGE as u64
}

/// Completion times (µs) in trace order.
fn done_us(sim: &Simulation) -> Vec<f64> {
    let r = &sim.metrics.records;
    let mut v: Vec<(u64, u64)> = (0..r.len())
        .map(|i| (r.arrival[i] * 4 + r.op[i] as u64, r.complete[i]))
        .collect();
    v.sort();
    v.into_iter().map(|(_, c)| c as f64 / 1000.0).collect()
}

/// The host link moves a page in 10 µs (409.6 MB/s) and each completion
/// costs 1 µs. A write at 0: its data crosses 0–10, then the flash bus
/// 10–20 and tPROG 20–220; done 221. A read of LPN 2 (die 1) at 0 senses
/// 0–50, leaves the chip 50–60 and crosses the link 60–70; done 71.
#[test]
fn the_host_link_carries_write_data_in_and_read_data_out() {
    let reqs = || {
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Read, page(2), PAGE),
        ]
    };
    let nvme = [
        "interface.kind=nvme",
        "interface.rate_mb_s=409.6",
        "interface.command_us=1",
    ];
    // Trace order: the read (op 0) sorts before the write at the same time.
    assert_eq!(
        done_us(&run_checked(one_chip(&nvme), reqs())),
        [71.0, 221.0]
    );
    // No link: 60 and 210.
    assert_eq!(done_us(&run_checked(one_chip(&[]), reqs())), [60.0, 210.0]);
}

/// A read of LPN 2 at 0 has its data ready at 60 µs; a write arriving at
/// 55 sends its data 55–65. Full duplex (NVMe), the read's data goes back
/// at once: 60–70. Half duplex (SATA), it waits for the write's: 65–75.
/// The write then programs: bus 65–75, tPROG 75–275.
#[test]
fn sata_is_half_duplex_and_nvme_full_duplex() {
    let reqs = || {
        vec![
            rec(0, Op::Read, page(2), PAGE),
            rec(55 * US, Op::Write, page(0), PAGE),
        ]
    };
    let case = |kind: &str| {
        let k = format!("interface.kind={kind}");
        done_us(&run_checked(
            one_chip(&[&k, "interface.rate_mb_s=409.6"]),
            reqs(),
        ))
    };
    assert_eq!(case("nvme"), [70.0, 275.0]);
    assert_eq!(case("sata"), [75.0, 275.0]);
}

/// A two-page LRU cache whose DRAM moves a page in 1 µs. Writes of LPN 0
/// at 0 and again at 10, LPN 1 at 20: each acknowledged after its DRAM
/// write (1, 11, 21); the rewrite replaces LPN 0 in DRAM. LPN 2 at 30 needs
/// room: LPN 0, least recently written, is flushed (bus 30–40, tPROG
/// 40–240) and the write waits for its room: DRAM 240–241. One program in
/// all. Reads of LPN 1 at 50 and LPN 0 at 60 are DRAM hits (1 µs each).
#[test]
fn an_lru_cache_absorbs_rewrites_and_flushes_the_least_recent_page() {
    let reqs = vec![
        rec(0, Op::Write, page(0), PAGE),
        rec(10 * US, Op::Write, page(0), PAGE),
        rec(20 * US, Op::Write, page(1), PAGE),
        rec(30 * US, Op::Write, page(2), PAGE),
        rec(50 * US, Op::Read, page(1), PAGE),
        rec(60 * US, Op::Read, page(0), PAGE),
    ];
    let cache = [
        "cache.mib=0.0078125", // 2 pages of 4 KiB
        "cache.policy=lru",
        "cache.dram_mb_s=4096",
    ];
    let sim = run_checked(one_chip(&cache), reqs);
    assert_eq!(done_us(&sim), [1.0, 11.0, 21.0, 241.0, 51.0, 61.0]);
    let f = sim.summary().flash;
    assert_eq!((f.programs, f.dram_read_hits), (1, 2));
}

/// The same writes with an eager cache: every write is flushed at once.
/// LPN 0: bus 0–10, tPROG 10–210; its rewrite waits for the die: 210–220,
/// 220–420; LPN 1 (plane 1 of die 0) after it: 420–430, 430–630. The cache
/// holds both copies of LPN 0, so LPN 1 waits for room until the first
/// program ends (210), and LPN 2 until the second (420). Four programs.
#[test]
fn an_eager_cache_flushes_every_write() {
    let reqs = vec![
        rec(0, Op::Write, page(0), PAGE),
        rec(10 * US, Op::Write, page(0), PAGE),
        rec(20 * US, Op::Write, page(1), PAGE),
        rec(30 * US, Op::Write, page(2), PAGE),
    ];
    let cache = ["cache.mib=0.0078125", "cache.dram_mb_s=4096"];
    let sim = run_checked(one_chip(&cache), reqs);
    assert_eq!(done_us(&sim), [1.0, 11.0, 211.0, 421.0]);
    assert_eq!(sim.summary().flash.programs, 4);
}

/// `controller.write_ack = "data-in"` (SSDsim): a written page counts once
/// its data is in the chip. No cache: LPN 0 at 0 crosses the bus 0–10 and is
/// acknowledged at 10 (programmed 10–210); LPN 1 (same die) waits for the
/// die: bus 210–220, acknowledged at 220 (programmed 420). A read of LPN 0
/// at 15, after the acknowledgement and before the program ends, gets the
/// new data from controller DRAM at once. Acknowledged when programmed:
/// 210 and 420.
#[test]
fn a_write_can_be_acknowledged_when_its_data_reaches_the_chip() {
    let reqs = || {
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Write, page(1), PAGE),
            rec(15 * US, Op::Read, page(0), PAGE),
        ]
    };
    let sim = run_checked(one_chip(&["controller.write_ack=data-in"]), reqs());
    assert_eq!(done_us(&sim), [10.0, 220.0, 15.0]);
    assert_eq!(sim.summary().flash.dram_read_hits, 1);
    let sim = run_checked(one_chip(&[]), reqs());
    assert_eq!(done_us(&sim), [210.0, 420.0, 15.0]);
}

/// The LRU example above with `write_ack = "data-in"`: LPN 2 at 30 waits
/// only for the flushed LPN 0's data to reach the chip (bus 30–40), then
/// for its DRAM write: 40–41, not 241. The reads are DRAM hits as before
/// (LPN 0's program runs until 240).
#[test]
fn a_flushed_page_returns_its_cache_room_at_data_in() {
    let reqs = vec![
        rec(0, Op::Write, page(0), PAGE),
        rec(10 * US, Op::Write, page(0), PAGE),
        rec(20 * US, Op::Write, page(1), PAGE),
        rec(30 * US, Op::Write, page(2), PAGE),
        rec(50 * US, Op::Read, page(1), PAGE),
        rec(60 * US, Op::Read, page(0), PAGE),
    ];
    let cache = [
        "cache.mib=0.0078125",
        "cache.policy=lru",
        "cache.dram_mb_s=4096",
        "controller.write_ack=data-in",
    ];
    let sim = run_checked(one_chip(&cache), reqs);
    assert_eq!(done_us(&sim), [1.0, 11.0, 21.0, 41.0, 51.0, 61.0]);
    let f = sim.summary().flash;
    assert_eq!((f.programs, f.dram_read_hits), (1, 2));
}

/// SSDsim's buffer (`ssdsim-lru`, two pages, writes acknowledged at
/// data-in): LPN 0 at 0 and LPN 1 at 10 fit (DRAM 1 µs: 1, 11). A read of
/// LPN 0 at 20 is a DRAM hit (21) and makes LPN 0 the most recently used,
/// so LPN 2 at 30 evicts LPN 1 (plain `lru` would take LPN 0, the least
/// recently written) and completes when LPN 1's data is in the chip: bus
/// 30–40, done 40, with no wait for its program (40–240) nor a DRAM time.
/// A rewrite of LPN 0 at 50 evicts nothing: 51. A read of LPN 1 at 60 gets
/// the flushed data from DRAM while it programs: 61. LPN 3 at 300 evicts
/// LPN 2 (least recently used now; die 1): bus 300–310, done 310.
#[test]
fn the_ssdsim_buffer_evicts_at_once_and_waits_for_the_data_in() {
    let reqs = vec![
        rec(0, Op::Write, page(0), PAGE),
        rec(10 * US, Op::Write, page(1), PAGE),
        rec(20 * US, Op::Read, page(0), PAGE),
        rec(30 * US, Op::Write, page(2), PAGE),
        rec(50 * US, Op::Write, page(0), PAGE),
        rec(60 * US, Op::Read, page(1), PAGE),
        rec(300 * US, Op::Write, page(3), PAGE),
    ];
    let cache = [
        "cache.mib=0.0078125",
        "cache.policy=ssdsim-lru",
        "cache.dram_mb_s=4096",
        "controller.write_ack=data-in",
    ];
    let sim = run_checked(one_chip(&cache), reqs);
    assert_eq!(done_us(&sim), [1.0, 11.0, 21.0, 40.0, 51.0, 61.0, 310.0]);
    let f = sim.summary().flash;
    assert_eq!((f.programs, f.dram_read_hits), (2, 2));
}

/// SSDsim's buffer counting sectors (`cache.sectors`): 8 KiB of cache is
/// 16 sectors, so sixteen 512-byte writes to sixteen pages (every 10 µs)
/// all stay in DRAM (done after a 0.125 µs DRAM write each), where whole
/// pages (2 of them) would flush 14. The seventeenth evicts page 0 — one
/// sector, so its data-in takes 1.25 µs of the 10 µs a page takes: done at
/// 160 + 1.25. A second sector of a held page adds one sector of room
/// taken: the eighteenth write (page 1 again, another sector) evicts page 2.
#[test]
fn the_ssdsim_buffer_counts_sectors() {
    let reqs = || -> Vec<_> {
        (0..17u64)
            .map(|i| rec(i * 10 * US, Op::Write, page(i), 512))
            .chain([rec(170 * US, Op::Write, page(1) + 512, 512)])
            .collect()
    };
    let cache = |sectors: bool| {
        [
            "cache.mib=0.0078125".to_string(),
            "cache.policy=ssdsim-lru".into(),
            "cache.dram_mb_s=4096".into(),
            "controller.write_ack=data-in".into(),
            "timing.sector_transfers=true".into(),
            format!("cache.sectors={sectors}"),
        ]
    };
    let c = cache(true);
    let c: Vec<&str> = c.iter().map(|s| s.as_str()).collect();
    let sim = run_checked(one_chip(&c), reqs());
    let done = done_us(&sim);
    assert_eq!(done[0], 0.125);
    assert_eq!(done[15], 150.125);
    assert_eq!(done[16], 161.25);
    assert_eq!(sim.summary().flash.programs, 2);
    let p = cache(false);
    let p: Vec<&str> = p.iter().map(|s| s.as_str()).collect();
    let pages = run_checked(one_chip(&p), reqs());
    assert_eq!(pages.summary().flash.programs, 16);
}

/// SSDsim's buffer serves a read only from the sectors it holds, and a
/// read moves a page to the head of its LRU list only if it holds a
/// requested sector (`buffer_management` checks sector by sector). 8 KiB
/// buffer (16 sectors): pages 0 and 1 at 0 and 10 fill it; page 2 at 20
/// evicts page 0 (programmed: bus 20–30, tPROG 30–230); sectors 0–3 of page
/// 0 at 300 evict page 1 (bus 300–310). A read of page 2 at 400 is a hit
/// (page 0 is now least recent). A read of sectors 4–7 of page 0 at 600
/// finds none of them held: sense 600–650, 4 sectors out 650–655, and page
/// 0 stays least recent, so page 3 at 700 evicts it (its 4 sectors in
/// 700–705, acknowledged then), not page 2 (10 µs).
#[test]
fn the_ssdsim_buffer_serves_only_the_sectors_it_holds() {
    let reqs = vec![
        rec(0, Op::Write, page(0), PAGE),
        rec(10 * US, Op::Write, page(1), PAGE),
        rec(20 * US, Op::Write, page(2), PAGE),
        rec(300 * US, Op::Write, page(0), PAGE / 2),
        rec(400 * US, Op::Read, page(2), PAGE),
        rec(600 * US, Op::Read, page(0) + PAGE as u64 / 2, PAGE / 2),
        rec(700 * US, Op::Write, page(3), PAGE),
    ];
    let cache = [
        "cache.mib=0.0078125",
        "cache.policy=ssdsim-lru",
        "cache.sectors=true",
        "cache.dram_mb_s=4096",
        "controller.write_ack=data-in",
        "timing.sector_transfers=true",
    ];
    let done = done_us(&run_checked(one_chip(&cache), reqs));
    assert_eq!(&done[4..], [401.0, 655.0, 705.0]);
}

/// Without host-link time a write's data is in the controller at once, in
/// submission order: a read submitted with it, after it, finds it in the
/// buffer (SSDsim's `buffer_management` takes requests in trace order).
/// A 512-byte write of page 0 and a read of the same sector, both at 0: the
/// write is in DRAM at 0.125 µs, the read reads it there after it
/// (0.125–0.25), with no flash access.
#[test]
fn a_read_does_not_pass_a_write_submitted_before_it() {
    let reqs = vec![
        rec(0, Op::Write, page(0), 512),
        rec(0, Op::Read, page(0), 512),
    ];
    let cache = [
        "cache.mib=0.0078125",
        "cache.policy=ssdsim-lru",
        "cache.sectors=true",
        "cache.dram_mb_s=4096",
        "timing.sector_transfers=true",
    ];
    let sim = run_checked(one_chip(&cache), reqs);
    assert_eq!(done_us(&sim), [0.25, 0.125]);
    assert_eq!(sim.summary().flash.reads, 0);
}

/// SSDsim charges every request its buffer serves a fixed 1000 ns however
/// many arrive together (`cache.dram_serial = false`); a shared DRAM
/// serves them in turn. Three 4 KiB writes at t = 0 into an 8 KiB buffer:
/// the first two stay in DRAM, the third evicts page 0 (bus 0–10, done 10
/// with `write_ack = "data-in"`). Each DRAM write takes 1000 ns plus 1 ns for
/// its bytes: serial, 1.001 and 2.002 µs; each its own, 1.001 and 1.001.
#[test]
fn ssdsim_dram_time_is_per_request_not_a_shared_queue() {
    let reqs = || -> Vec<_> {
        (0..3u64)
            .map(|i| rec(0, Op::Write, page(i), PAGE))
            .collect()
    };
    let cache = |serial: &'static str| {
        one_chip(&[
            "cache.mib=0.0078125",
            "cache.policy=ssdsim-lru",
            "cache.dram_mb_s=10000000",
            "cache.dram_latency_ns=1000",
            "controller.write_ack=data-in",
            serial,
        ])
    };
    let sim = run_checked(cache("cache.dram_serial=true"), reqs());
    assert_eq!(done_us(&sim), [1.001, 2.002, 10.0]);
    let sim = run_checked(cache("cache.dram_serial=false"), reqs());
    assert_eq!(done_us(&sim), [1.001, 1.001, 10.0]);
}

#[test]
fn front_end_settings_are_checked_by_key() {
    assert_rejected_by_key(&[
        ("interface.kind=usb", "interface.kind"),
        ("interface.rate_mb_s=-1", "interface.rate_mb_s"),
        ("cache.policy=fifo", "cache.policy"),
        ("cache.mib=-2", "cache.mib"),
        ("ftl.write_buffer_mib=2", "cache.mib"),
        ("controller.write_ack=early", "controller.write_ack"),
        ("cache.sectors=true", "cache.sectors"),
    ]);
}
