//! FTL accounting, allocation limits, GC cycles and static striping.

use super::*;
use crate::config::DeviceConfig;

fn tiny() -> Ftl {
    tiny_with(&[])
}

/// A one-plane FTL of 8 blocks of 4 pages, 25 % over-provisioned (greedy
/// GC, the default preset's); `extra` overrides follow.
fn tiny_with(extra: &[&str]) -> Ftl {
    let ov: Vec<String> = [
        "geometry.channels=1",
        "geometry.chips_per_channel=1",
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=8",
        "geometry.pages_per_block=4",
        "ftl.overprovisioning=0.25",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect();
    let cfg = DeviceConfig::load("default", &ov).unwrap();
    Ftl::new(Geometry::new(&cfg.geometry), &cfg.ftl, 1).unwrap()
}

#[test]
fn write_overwrite_trim_accounting() {
    let mut f = tiny();
    assert_eq!(f.logical_pages, 24);
    let p0 = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(5, p0, 1);
    let p1 = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(5, p1, 2);
    assert_eq!(f.lookup(5), Some(p1));
    assert_eq!(f.owner(p0), None);
    assert_eq!(f.block_valid(f.geo.block_of(p1)), 1);
    f.trim(5, 3);
    assert_eq!(f.lookup(5), None);
    assert_eq!(f.mapped_pages(), 0);
    f.check_invariants().unwrap();
    // Writing a trimmed page clears its trimmed mark.
    assert!(f.is_trimmed(5));
    let p2 = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(5, p2, 4);
    assert!(!f.is_trimmed(5));
    // The cached room of the open block is audited too.
    f.planes[0].room[0] += 1;
    let e = f.check_invariants().unwrap_err();
    assert!(e.contains("room"), "{e}");
}

#[test]
fn user_cannot_take_last_free_block_but_gc_can() {
    let mut f = tiny();
    let mut lpn = 0;
    while f.can_alloc(0, Stream::User) {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(lpn % 24, p, 0);
        lpn += 1;
    }
    assert_eq!(f.free_blocks(0), 1);
    assert!(f.can_alloc(0, Stream::Gc));
    assert!(f.gc_needed(0));
}

#[test]
fn gc_cycle_moves_valid_pages_and_erases() {
    let mut f = tiny();
    // Fill 4 blocks: lpns 0..16, then overwrite 0..6 (first block + 2 of second).
    for lpn in (0..16).chain(0..6) {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(lpn, p, 0);
    }
    let victim = f.gc_begin(0, 10).unwrap();
    assert_eq!(
        f.block_valid(victim),
        0,
        "greedy picks the fully invalid block"
    );
    f.erase(victim, 11).unwrap();
    let victim = f.gc_begin(0, 12).unwrap();
    let moves = f.valid_pages(victim);
    assert_eq!(moves.len(), 2);
    for (lpn, old) in moves {
        let new = f.alloc(0, Stream::Gc).unwrap();
        assert!(f.gc_move(lpn, old, new, 13));
    }
    f.erase(victim, 14).unwrap();
    assert_eq!(f.stats.gc_pages_moved, 2);
    assert_eq!(f.stats.erases, 2);
    assert_eq!(f.erase_count(victim), 1);
    f.check_invariants().unwrap();
    assert!((f.waf() - 24.0 / 22.0).abs() < 1e-9);
}

#[test]
fn static_plane_table_matches_the_striping_formula() {
    for scheme in ["static:CWDP", "static:PDWC", "static:WCPD"] {
        let cfg = DeviceConfig::load("vios-128g", &[format!("ftl.allocation={scheme}")]).unwrap();
        let f = Ftl::new(Geometry::new(&cfg.geometry), &cfg.ftl, 1).unwrap();
        for lpn in (0..f.logical_pages).step_by(9973) {
            assert_eq!(
                f.static_plane(lpn),
                f.alloc.static_plane(&f.geo, lpn),
                "{scheme} lpn {lpn}"
            );
        }
    }
}

#[test]
fn erase_with_valid_pages_is_an_error() {
    let mut f = tiny();
    for lpn in 0..4 {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(lpn, p, 0);
    }
    assert!(f.erase(0, 1).is_err());
}

#[test]
fn gc_move_skips_pages_overwritten_meanwhile() {
    let mut f = tiny();
    let old = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(3, old, 0);
    let newer = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(3, newer, 1);
    let dst = f.alloc(0, Stream::Gc).unwrap();
    assert!(!f.gc_move(3, old, dst, 2));
    assert_eq!(f.lookup(3), Some(newer));
    f.check_invariants().unwrap();
}

/// A plane below its GC threshold whose full blocks are all fully valid
/// has no victim: it is remembered as starved, and once a page of one of
/// its full blocks becomes invalid (here by TRIM) a retry is due and GC
/// finds that block. Without the retry the device left such a plane
/// stuck (the soak's combination 1572: a deadlock).
#[test]
fn starved_plane_is_retried_after_an_invalidation() {
    // GC below 3 free blocks.
    let mut f = tiny_with(&["ftl.gc_threshold=0.3"]);
    // All 24 logical pages once: 6 full blocks, every page valid, 2 free.
    for lpn in 0..24 {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(lpn, p, 0);
    }
    assert_eq!(f.free_blocks(0), 2);
    assert!(f.gc_needed(0));
    assert_eq!(f.gc_begin(0, 1), None, "nothing to reclaim");
    assert!(f.is_starved(0));
    assert_eq!(f.take_starved_retry(), None, "nothing became invalid yet");
    // lpn 5 lives in block 1 (4 pages a block): TRIM makes it reclaimable.
    f.trim(5, 2);
    assert_eq!(f.take_starved_retry(), Some(vec![0]));
    assert_eq!(f.take_starved_retry(), None, "taken once");
    assert_eq!(f.gc_begin(0, 3), Some(1));
    assert!(!f.is_starved(0));
    f.check_invariants().unwrap();
}

/// With `gc_jobs_per_plane = 2` a plane under its threshold takes a second
/// victim while the first is being collected, and no third; each block a
/// frontier opens and each erase is one GC check. User writes may not open
/// the free blocks the running jobs' remaining moves need.
#[test]
fn two_gc_jobs_per_plane() {
    let mut f = tiny_with(&["ftl.gc_threshold=0.375", "ftl.gc_jobs_per_plane=2"]);
    assert_eq!((f.gc_jobs_max, f.gc_threshold_blocks), (2, 3));
    // Blocks 0-5: LPNs 0-3, 4-7, {0,8,9,10}, {4,11,12,13}, 14-17, 18-21:
    // blocks 0 and 1 keep 3 valid pages each; 6 blocks opened, 2 free.
    let lpns = (0..8).chain([0, 8, 9, 10, 4, 11, 12, 13]).chain(14..22);
    for (t, l) in lpns.enumerate() {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(l, p, t as u64);
    }
    assert_eq!(f.free_blocks(0), 2);
    assert_eq!(f.planes[0].gc_checks, 6);
    f.clear_gc_checks();
    assert!(f.gc_needed(0));
    assert_eq!(f.gc_begin(0, 30), Some(0));
    assert!(
        f.can_alloc(0, Stream::User),
        "3 pages to move need one block"
    );
    assert!(f.gc_needed(0), "a second job may start");
    assert_eq!(f.gc_begin(0, 31), Some(1));
    assert_eq!((f.planes[0].gc_jobs, f.planes[0].gc_need), (2, 6));
    assert!(!f.gc_needed(0), "the limit is 2");
    // 6 pages to move need both free blocks (4 pages each).
    assert_eq!(f.user_reserve(0), 2);
    assert!(!f.can_alloc(0, Stream::User));
    assert!(f.can_alloc(0, Stream::Gc));
    assert!(!f.gc_room_for(0, 3), "8 pages of room, 6 + 3 needed");
    f.check_invariants().unwrap();
    // Overwrites elsewhere would free victims' pages; here TRIM empties them.
    for l in [1, 2, 3, 5, 6, 7] {
        f.trim(l, 32);
    }
    assert_eq!(f.planes[0].gc_need, 0);
    f.erase(0, 33).unwrap();
    // 3 free blocks again: not under the threshold, one job left.
    assert_eq!((f.planes[0].gc_jobs, f.free_blocks(0)), (1, 3));
    assert!(f.take_gc_check(0) && !f.take_gc_check(0));
    assert!(!f.gc_needed(0));
    assert!(f.can_alloc(0, Stream::User));
    f.erase(1, 34).unwrap();
    assert_eq!(f.planes[0].gc_jobs, 0);
    f.check_invariants().unwrap();
}

/// One job moving 2 pages holds the plane's only free block: a second
/// victim with 3 valid pages would not fit beside it (4 pages of room), so
/// it waits for an erase; the plane is not marked starved.
#[test]
fn a_second_gc_job_waits_until_its_pages_fit() {
    let mut f = tiny_with(&["ftl.gc_jobs_per_plane=2"]);
    let lpns = (0..8)
        .chain([0, 8, 9, 10, 4, 11, 12, 13])
        .chain(14..22)
        .chain([22, 23, 14, 15]);
    for (t, l) in lpns.enumerate() {
        let p = f.alloc(0, Stream::User).unwrap();
        f.map_user_write(l, p, t as u64);
    }
    assert_eq!(f.free_blocks(0), 1);
    assert!(f.gc_needed(0));
    assert_eq!(f.gc_begin(0, 30), Some(4), "greedy: 2 valid pages");
    assert!(f.gc_needed(0));
    assert_eq!(f.gc_begin(0, 31), None, "block 0's 3 pages do not fit");
    assert!(!f.is_starved(0));
    assert_eq!((f.planes[0].gc_jobs, f.planes[0].gc_need), (1, 2));
    assert!(!f.can_alloc(0, Stream::User));
    f.check_invariants().unwrap();
}

/// Under dynamic allocation a plane whose full blocks are all valid and
/// whose last free block is GC's sends a user program elsewhere
/// (`Ftl::replan`): another plane with a page; static allocation never does.
#[test]
fn a_full_plane_with_nothing_to_reclaim_replans_dynamic_writes() {
    for (alloc, expect) in [("dynamic", Some(1)), ("static:CWDP", None)] {
        let mut f = tiny_with(&[
            "geometry.planes_per_die=2",
            &format!("ftl.allocation={alloc}"),
        ]);
        // 7 blocks of distinct LPNs in plane 0: all valid, 1 block free.
        for l in 0..28u32 {
            let p = f.alloc(0, Stream::User).unwrap();
            f.map_user_write(l, p, l as u64);
        }
        assert_eq!(f.free_blocks(0), 1);
        assert!(!f.can_alloc(0, Stream::User));
        assert_eq!(f.gc_begin(0, 30), None, "no block has a stale page");
        assert!(f.is_starved(0));
        assert_eq!(f.replan(0, Stream::User), expect, "{alloc}");
    }
}

/// `ftl.frontiers`: lazy frontiers take a block at their first page; eager
/// ones hold the user and GC blocks (and with `ftl.mapping_frontier` the
/// translation block) from the start, and take the next block as soon as
/// one fills. One plane of 8 blocks × 4 pages.
#[test]
fn eager_frontiers_hold_their_blocks_and_reopen_at_once() {
    let mut lazy = tiny();
    let mut eager = tiny_with(&["ftl.frontiers=eager"]);
    let mut three = tiny_with(&["ftl.frontiers=eager", "ftl.mapping_frontier=true"]);
    for f in [&mut lazy, &mut eager, &mut three] {
        f.open_frontiers();
    }
    assert_eq!(lazy.free_blocks(0), 8);
    assert_eq!(eager.free_blocks(0), 6);
    assert_eq!(three.free_blocks(0), 5);
    // Four pages fill the first user block: eager has taken the next
    // already, lazy takes it with the fifth page.
    let fill = |f: &mut Ftl, lpns: std::ops::Range<u32>| {
        lpns.map(|l| {
            let p = f.alloc(0, Stream::User).unwrap();
            f.map_user_write(l, p, 1);
            p
        })
        .last()
        .unwrap()
    };
    fill(&mut lazy, 0..4);
    let last = fill(&mut eager, 0..4);
    assert_eq!((lazy.free_blocks(0), eager.free_blocks(0)), (7, 5));
    let fifth = fill(&mut eager, 4..5);
    fill(&mut lazy, 4..5);
    assert_eq!((lazy.free_blocks(0), eager.free_blocks(0)), (6, 5));
    assert_ne!(eager.geo.block_of(fifth), eager.geo.block_of(last));
    assert_eq!(eager.geo.page_in_block(fifth), 0);
    for f in [&lazy, &eager, &three] {
        f.check_invariants().unwrap();
    }
}

/// Translation pages share the host's frontier unless
/// `ftl.mapping_frontier` gives them their own.
#[test]
fn translation_pages_take_their_own_frontier_when_asked() {
    for (own, same_block) in [(false, true), (true, false)] {
        let mut f = tiny_with(&[&format!("ftl.mapping_frontier={own}")]);
        let user = f.alloc(0, Stream::User).unwrap();
        let stream = f.mapping_stream();
        assert_eq!(stream == Stream::Mapping, own);
        let tp = f.alloc(0, stream).unwrap();
        assert_eq!(f.geo.block_of(user) == f.geo.block_of(tp), same_block);
        assert_eq!(f.free_blocks(0), if own { 6 } else { 7 });
    }
}
