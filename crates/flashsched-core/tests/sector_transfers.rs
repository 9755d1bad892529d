//! `timing.sector_transfers`: a host read or write moves only the 512-byte
//! sectors it asks for over the channel, as MQSim and SSDsim move them.
//! Worked examples on a tiny device: one channel, one chip of 2 dies × 2
//! planes, 4 KiB pages; reads 50 µs, programs 200 µs; the bus moves a page
//! in 10 µs (409.6 MB/s), so a sector in 1.25 µs. LPN 0 → die 0 plane 0,
//! 2 → die 1 plane 0. Every run has the version oracle on.

use flashsched_core::io::Op;

use crate::common;
use common::{completions_by_arrival_us, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

/// A 2 KiB read of LPN 2 at 0: sense 0–50, then 4 sectors out, 50–55 (a
/// whole page: 50–60). A 1 KiB write of LPN 0 at 100 (no cache): 2
/// sectors in, 100–102.5, tPROG 102.5–302.5 (whole page: 100–110,
/// 110–310).
#[test]
fn host_transfers_move_only_the_sectors_asked_for() {
    let reqs = || {
        vec![
            rec(0, Op::Read, 2 * PAGE as u64 + 1024, 2048),
            rec(100 * US, Op::Write, 512, 1024),
        ]
    };
    let sim = run_checked(one_chip(&["timing.sector_transfers=true"]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [55.0, 302.5]);
    let sim = run_checked(one_chip(&[]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [60.0, 310.0]);
}

/// A read across a page boundary moves each page's part: 3 KiB from 3
/// KiB, i.e. 1 KiB of LPN 0 (die 0 plane 0) and 2 KiB of LPN 1 (die 0
/// plane 1; no multi-plane commands). LPN 0 senses 0–50 and moves 2
/// sectors, 50–52.5; LPN 1 follows on the die: sense 52.5–102.5, 4 sectors
/// 102.5–107.5. Whole pages: 50–60, then 60–110, 110–120.
#[test]
fn a_request_across_pages_moves_each_page_s_part() {
    let reqs = || vec![rec(0, Op::Read, 3072, 3072)];
    let sim = run_checked(one_chip(&["timing.sector_transfers=true"]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [107.5]);
    assert_eq!(
        completions_by_arrival_us(&run_checked(one_chip(&[]), reqs())),
        [120.0]
    );
}

/// Sizes round out to whole sectors: 600 bytes at 512 into LPN 2 touch
/// sectors 1 and 2 (2.5 µs on the bus).
#[test]
fn a_partial_sector_moves_whole_sectors() {
    let sim = run_checked(
        one_chip(&["timing.sector_transfers=true"]),
        vec![rec(0, Op::Read, 2 * PAGE as u64 + 512, 600)],
    );
    assert_eq!(completions_by_arrival_us(&sim), [52.5]);
}

/// With the `hot-cold` cache, a write-back moves what the host wrote: a 1
/// KiB write of LPN 0 at 0 is written back at once (2 sectors in, 0–2.5;
/// tPROG 2.5–202.5). A read of LPN 1 (the same die) at 100 waits for it:
/// sense 202.5–252.5, a whole page out 252.5–262.5. (A whole-page
/// write-back: 0–10, 10–210, then 210–260, 260–270.)
#[test]
fn a_cache_write_back_moves_the_sectors_written() {
    let reqs = || {
        vec![
            rec(0, Op::Write, 0, 1024),
            rec(100 * US, Op::Read, PAGE as u64, PAGE),
        ]
    };
    let cache = [
        "cache.mib=1",
        "cache.policy=hot-cold",
        "cache.dram_mb_s=4096",
    ];
    let mut sectors = cache.to_vec();
    sectors.push("timing.sector_transfers=true");
    let sim = run_checked(one_chip(&sectors), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [0.25, 262.5]);
    assert_eq!(
        completions_by_arrival_us(&run_checked(one_chip(&cache), reqs())),
        [0.25, 270.0]
    );
}
