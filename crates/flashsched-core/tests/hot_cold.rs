//! `cache.policy = "hot-cold"` (MQSim's destage buffer) as worked examples
//! computed by hand on a tiny device: one channel, one chip of 2 dies × 2
//! planes, 4 KiB pages; reads 50 µs, programs 200 µs, 10 µs per page on
//! the flash bus; LPN 0 → die 0 plane 0, 1 → die 0 plane 1, 2 → die 1
//! plane 0, 4 → die 0 plane 0. Its DRAM moves a page in 1 µs. The default
//! back-pressure limit is one page per plane (16 KiB). Every run has the
//! version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{assert_rejected_by_key, completions_by_arrival_us, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

/// The shared one-chip device with a 1 MiB hot/cold cache and 4096 MB/s DRAM.
fn tiny(extra: &[&str]) -> DeviceConfig {
    let cache = [
        "cache.mib=1",
        "cache.policy=hot-cold",
        "cache.dram_mb_s=4096",
    ];
    one_chip(&[&cache[..], extra].concat())
}

fn page(i: u64) -> u64 {
    i * PAGE as u64
}

/// LPN 0 written at 0 is new: written back at once (bus 0–10, tPROG
/// 10–210), acknowledged after its DRAM write (1). Its rewrite at 10 is hot:
/// held in DRAM (11), no program. That step is the first after the window
/// that began at 0 ended (MQSim's first window ends at once): LPN 0 is
/// forgotten and a window starts at 10. So the write at 300 is new again
/// (a program, 300–510) and the one at 350 hot (held). Reads at 100 and
/// 400 are DRAM hits (101, 401). Two programs; an eager cache programs all
/// four writes.
#[test]
fn a_new_page_is_written_back_and_its_rewrites_are_absorbed() {
    let reqs = || {
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(10 * US, Op::Write, page(0), PAGE),
            rec(100 * US, Op::Read, page(0), PAGE),
            rec(300 * US, Op::Write, page(0), PAGE),
            rec(350 * US, Op::Write, page(0), PAGE),
            rec(400 * US, Op::Read, page(0), PAGE),
        ]
    };
    let sim = run_checked(tiny(&[]), reqs());
    assert_eq!(
        completions_by_arrival_us(&sim),
        [1.0, 11.0, 101.0, 301.0, 351.0, 401.0]
    );
    let f = sim.summary().flash;
    assert_eq!((f.programs, f.dram_read_hits), (2, 2));
    let eager = run_checked(tiny(&["cache.policy=eager"]), reqs());
    assert_eq!(eager.summary().flash.programs, 4);
}

/// A written-back page leaves DRAM when programmed: LPN 0 written at 0 is
/// programmed by 210; a read at 300 goes to flash (sense 300–350, bus
/// 350–360).
#[test]
fn a_written_back_page_is_read_from_flash_once_programmed() {
    let sim = run_checked(
        tiny(&[]),
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(300 * US, Op::Read, page(0), PAGE),
        ],
    );
    assert_eq!(completions_by_arrival_us(&sim), [1.0, 360.0]);
    assert_eq!(sim.summary().flash.dram_read_hits, 0);
}

/// Back-pressure of 8 KiB (two 4 KiB writes on their way to flash). At 0:
/// LPN 0 and 1 are admitted (DRAM 0–1, 1–2) and written back on die 0
/// (LPN 0: bus 0–10, tPROG 10–210; LPN 1 after it: 210–220, 220–420). LPN
/// 4 (die 0 too) finds the limit reached and waits; LPN 0's program ending
/// at 210 lets it in (DRAM 210–211): acknowledged at 211, programmed
/// 420–630. With the default 16 KiB limit it is admitted at once (3).
#[test]
fn admission_stops_at_the_back_pressure_limit_until_a_program_ends() {
    let reqs = || {
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Write, page(1), PAGE),
            rec(0, Op::Write, page(4), PAGE),
        ]
    };
    let sim = run_checked(tiny(&["cache.backpressure_kib=8"]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [1.0, 2.0, 211.0]);
    assert_eq!(sim.summary().flash.programs, 3);
    let sim = run_checked(tiny(&[]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [1.0, 2.0, 3.0]);
}

/// A three-page write (LPN 0–2) under an 8 KiB limit is admitted page by
/// page: LPN 0 and 1 at 0 (one DRAM write of 8 KiB, 0–2), LPN 2 when LPN
/// 0's program ends at 210 (DRAM 210–211). Acknowledged at 211.
#[test]
fn a_long_write_is_admitted_page_by_page() {
    let sim = run_checked(
        tiny(&["cache.backpressure_kib=8"]),
        vec![rec(0, Op::Write, page(0), 3 * PAGE)],
    );
    assert_eq!(completions_by_arrival_us(&sim), [211.0]);
    assert_eq!(sim.summary().flash.programs, 3);
}

/// The back-pressure counts 512-byte sectors of what the host wrote: with
/// an 8 KiB limit, four 2 KiB writes to distinct pages (LPN 0, 1, 2, 4)
/// fit at once (2 KiB of DRAM each: 0.5 µs apart), where four 4 KiB
/// writes would not.
#[test]
fn back_pressure_counts_the_sectors_written() {
    let half = PAGE / 2;
    let sim = run_checked(
        tiny(&["cache.backpressure_kib=8"]),
        vec![
            rec(0, Op::Write, page(0), half),
            rec(0, Op::Write, page(1), half),
            rec(0, Op::Write, page(2), half),
            rec(0, Op::Write, page(4), half),
        ],
    );
    assert_eq!(completions_by_arrival_us(&sim), [0.5, 1.0, 1.5, 2.0]);
}

/// A 0.1 ms hot window. LPN 0 written at 0 (new: program 1), at 50 (hot;
/// that step ends the first window, which began at 0: the pages seen are
/// forgotten, the next window runs to 150), at 100 (new again: program 2),
/// at 120 (hot), at 200 (hot; the window is over: forgotten, next to 300),
/// at 250 (new: program 3). With a 1 s window only the writes at 0 and 100
/// are new.
#[test]
fn the_hot_window_forgets_pages_at_the_first_write_after_it_ends() {
    let reqs = || {
        [0, 50, 100, 120, 200, 250]
            .iter()
            .map(|&t| rec(t * US, Op::Write, page(0), PAGE))
            .collect::<Vec<_>>()
    };
    let sim = run_checked(tiny(&["cache.hot_window_ms=0.1"]), reqs());
    assert_eq!(sim.summary().flash.programs, 3);
    assert_eq!(
        completions_by_arrival_us(&sim),
        [1.0, 51.0, 101.0, 121.0, 201.0, 251.0]
    );
    let sim = run_checked(tiny(&[]), reqs());
    assert_eq!(sim.summary().flash.programs, 2);
}

/// A cache of two pages. At 0, LPN 0 and 1 are written (new: written back)
/// and written again (hot: held). LPN 2 at 500 needs a slot: LPN 0, the
/// least recently used, is written back (its held version) besides LPN 2
/// itself. Later reads: LPN 0 from flash, LPN 1 (still held) from DRAM.
#[test]
fn a_full_cache_writes_back_its_least_recently_used_page() {
    let sim = run_checked(
        tiny(&["cache.mib=0.0078125"]), // 2 pages of 4 KiB
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Write, page(1), PAGE),
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Write, page(1), PAGE),
            rec(500 * US, Op::Write, page(2), PAGE),
            rec(2000 * US, Op::Read, page(0), PAGE),
            rec(2100 * US, Op::Read, page(1), PAGE),
        ],
    );
    let f = sim.summary().flash;
    // 0, 1, LPN 0's eviction, 2; LPN 1's rewrite stays in DRAM.
    assert_eq!((f.programs, f.dram_read_hits), (4, 1));
}

#[test]
fn hot_cold_settings_are_checked_by_key() {
    assert_rejected_by_key(&[
        ("cache.hot_window_ms=-1", "cache.hot_window_ms"),
        ("cache.backpressure_kib=-1", "cache.backpressure_kib"),
        ("cache.dram_precharge_ns=-1", "cache.dram_precharge_ns"),
        ("cache.dram_row_bytes=-1", "cache.dram_row_bytes"),
    ]);
}

/// A read answered from DRAM reads only its bytes there: LPN 0 written at
/// 0 (DRAM 0–1) is on its way to flash until 210; 1 KiB of it read at 100
/// is a DRAM read of 0.25 µs.
#[test]
fn a_read_hit_reads_its_bytes_from_dram() {
    let sim = run_checked(
        tiny(&[]),
        vec![
            rec(0, Op::Write, page(0), PAGE),
            rec(100 * US, Op::Read, page(0) + 1024, 1024),
        ],
    );
    assert_eq!(completions_by_arrival_us(&sim), [1.0, 100.25]);
}
