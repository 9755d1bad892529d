//! The grouped build against the plain one, and the state's shape.

use super::{live, pick_slots, ramp};
use crate::config::DeviceConfig;
use crate::flash::Geometry;
use crate::ftl::{BlockState, Ftl, Stream};
use crate::rng::Rng;

fn small() -> Ftl {
    let cfg = DeviceConfig::load(
        "ssdsim-default",
        &[
            "geometry.blocks_per_plane=64".into(),
            "geometry.pages_per_block=32".into(),
        ],
    )
    .unwrap();
    Ftl::new(Geometry::new(&cfg.geometry), &cfg.ftl, 3).unwrap()
}

#[test]
fn precondition_reaches_fill_and_keeps_invariants() {
    let mut f = small();
    let r = f.precondition(0.9, 42);
    f.check_invariants().unwrap();
    let frac = r.live_pages as f64 / f.logical_pages as f64;
    assert!((frac - 0.9).abs() < 0.02, "{frac}");
    for p in 0..f.geo.planes() {
        assert_eq!(f.free_blocks(p), r.free_blocks_per_plane);
        assert!(!f.gc_needed(p), "GC reserve is left above the threshold");
    }
    // Validity is a ramp (oldest blocks emptiest): cheap victims exist.
    let ppb = f.geo.pages_per_block as f64;
    let vals: Vec<f64> = (0..f.geo.blocks())
        .map(|b| f.block_valid(b) as f64 / ppb)
        .filter(|&v| v > 0.0)
        .collect();
    let min = vals.iter().cloned().fold(1.0, f64::min);
    let mean = r.mean_block_validity;
    assert!(min < mean - 0.05, "min {min} mean {mean}");
    assert!(
        (min - (2.0 * mean - 1.0)).abs() < 0.05,
        "min {min} mean {mean}"
    );
    // The device keeps working: writes allocate and GC finds victims.
    let ppn = f.alloc(0, Stream::User).unwrap();
    f.map_user_write(0, ppn, 1);
    assert!(f.gc_begin(0, 2).is_some());
}

#[test]
fn deterministic_for_a_seed() {
    let mut a = small();
    let mut b = small();
    assert_eq!(a.precondition(0.5, 7), b.precondition(0.5, 7));
    assert_eq!(
        (0..a.logical_pages)
            .map(|l| a.lookup(l))
            .collect::<Vec<_>>(),
        (0..b.logical_pages)
            .map(|l| b.lookup(l))
            .collect::<Vec<_>>()
    );
}

/// The plain build: planes one after another in plane order, each
/// plane's live LPNs shuffled and mapped as their slots are drawn.
fn reference(f: &mut Ftl, fill: f64, seed: u64) {
    let threshold = if fill >= 1.0 {
        u64::MAX
    } else {
        (fill * u64::MAX as f64) as u64
    };
    let g = f.geo;
    let (nplanes, ppb) = (g.planes(), g.pages_per_block);
    let used = g.blocks_per_plane - (f.gc_threshold_blocks + 1).min(g.blocks_per_plane);
    let mut rng = Rng::derive(seed, 0x7072_6563);
    let mut slots: Vec<u32> = (0..ppb).collect();
    for p in 0..nplanes {
        let residues: Vec<u32> = (0..nplanes.min(f.logical_pages))
            .filter(|&r| f.static_plane(r) == p)
            .collect();
        let mut lpns: Vec<u32> = (0..f.logical_pages)
            .step_by(nplanes as usize)
            .flat_map(|base| residues.iter().map(move |r| base + r))
            .filter(|&l| l < f.logical_pages && live(l, seed, threshold))
            .collect();
        rng.shuffle(&mut lpns);
        let n_live = lpns.len().min(used as usize * ppb as usize);
        let mut next = lpns.into_iter();
        for (age, count) in ramp(n_live, used as usize, ppb).into_iter().enumerate() {
            let blk = f.planes[p as usize].free.pop_front().unwrap();
            let b = blk as usize;
            f.state[b] = BlockState::Full;
            f.wp[b] = ppb as u16;
            f.seal_seq += 1;
            f.sealed[b] = f.seal_seq;
            f.mtime[b] = age as u64;
            f.valid[b] = count as u16;
            let first = g.first_ppn(blk);
            let (l2p, p2l) = (&mut f.l2p, &mut f.p2l);
            pick_slots(&mut rng, &mut slots, count, |slot| {
                let lpn = next.next().unwrap();
                l2p.set(lpn, first + slot);
                p2l.set(first + slot, lpn);
            });
        }
    }
}

#[test]
fn both_builds_are_the_plain_build() {
    // Allocation orders, planes not a multiple of the group, fills
    // above the physical room, odd block sizes.
    for (preset, extra, fill) in [
        ("default", "ftl.allocation=static:PDWC", 0.9),
        ("ssdsim-default", "geometry.channels=3", 1.0),
        ("mqsim-default", "ftl.overprovisioning=0.04", 1.0),
        ("vios-128g", "ftl.allocation=static:WCPD", 0.3),
        ("default", "geometry.pages_per_block=7", 0.97),
        ("default", "geometry.channels=1", 0.5),
    ] {
        let cfg = DeviceConfig::load(
            preset,
            &["geometry.blocks_per_plane=64".into(), extra.into()],
        )
        .unwrap();
        let geo = Geometry::new(&cfg.geometry);
        let mut b = Ftl::new(geo, &cfg.ftl, 3).unwrap();
        reference(&mut b, fill, 42);
        for grouped in [false, true] {
            let mut a = Ftl::new(geo, &cfg.ftl, 3).unwrap();
            let r = a.precondition_as(fill, 42, grouped);
            let case = format!("{preset} {extra} {fill} grouped {grouped}");
            let mapped = (0..b.logical_pages)
                .filter(|&l| b.lookup(l).is_some())
                .count();
            assert_eq!(r.live_pages, mapped as u64, "{case}");
            assert!(a.l2p.iter().eq(b.l2p.iter()), "{case}: logical to physical");
            assert!(a.p2l.iter().eq(b.p2l.iter()), "{case}: physical to logical");
            assert_eq!(a.valid, b.valid, "{case}");
            assert_eq!(a.wp, b.wp, "{case}");
            assert_eq!(a.state, b.state, "{case}");
            assert_eq!(a.mtime, b.mtime, "{case}");
            assert_eq!(a.sealed, b.sealed, "{case}");
            assert_eq!(a.seal_seq, b.seal_seq, "{case}");
            let free = |f: &Ftl| f.planes.iter().map(|p| p.free.clone()).collect::<Vec<_>>();
            assert_eq!(free(&a), free(&b), "{case}");
            a.check_invariants().unwrap();
        }
    }
}
