//! Steady-state preconditioning without simulating writes.
//!
//! A device that has absorbed random overwrites for a long time has every
//! block used except the few GC keeps free, and the valid fraction of a block
//! grows with its recency (old blocks have had more time to be invalidated).
//! We build that state directly:
//! 1. choose the live logical pages: each LPN is live with probability `fill`
//!    (a hash of LPN and seed, so no permutation is stored);
//! 2. in every plane keep `gc_threshold_blocks + 1` blocks free and mark all
//!    others full;
//! 3. give the full blocks, oldest first, valid counts along a linear ramp
//!    whose mean is the plane's live pages / used pages (oldest block
//!    `max(0, 2m - 1)`, youngest `min(1, 2m)` — the shape greedy GC converges
//!    to under uniform random writes), then scatter the plane's live LPNs over
//!    random slots of those blocks; the other slots are programmed-but-stale.
//!
//! Cost: one pass over the logical and physical pages (no event is simulated).

use super::{BlockState, Ftl, NONE};
use crate::rng::Rng;

/// How a device was preconditioned (reported with results).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreconditionReport {
    /// Requested logical fill fraction (`ftl.precondition_fill`).
    pub fill: f64,
    /// Logical pages mapped.
    pub live_pages: u64,
    /// Blocks filled (valid or stale pages).
    pub used_blocks: u64,
    /// Blocks left free in every plane.
    pub free_blocks_per_plane: u32,
    /// Valid pages / programmed pages over the used blocks.
    pub mean_block_validity: f64,
    /// How the state was built, in words.
    pub method: &'static str,
}

/// Live pages ahead whose mapping entry is prefetched before it is set.
const L2P_AHEAD: usize = 16;

fn live(lpn: u32, seed: u64, threshold: u64) -> bool {
    let mut z = (lpn as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) < threshold
}

impl Ftl {
    /// Precondition a *fresh* FTL to logical fill fraction `fill` (0..=1).
    pub fn precondition(&mut self, fill: f64, seed: u64) -> PreconditionReport {
        let mut report = PreconditionReport {
            fill,
            method:
                "analytic steady state: fill, then linear validity ramp over all but the GC reserve",
            ..Default::default()
        };
        if fill <= 0.0 {
            report.method = "none (fresh device)";
            return report;
        }
        let threshold = if fill >= 1.0 {
            u64::MAX
        } else {
            (fill * u64::MAX as f64) as u64
        };
        let g = self.geo;
        let ppb = g.pages_per_block;
        let nplanes = g.planes() as usize;
        // A plane's LPNs are those whose residue mod `nplanes` maps to it
        // (static striping), so each plane's live set is gathered in LPN
        // order into one reused buffer instead of bucketing every LPN at once.
        let mut residues: Vec<Vec<u32>> = vec![Vec::new(); nplanes];
        for r in 0..(nplanes as u32).min(self.logical_pages) {
            residues[self.static_plane(r) as usize].push(r);
        }
        let mut lpns: Vec<u32> = Vec::new();
        let keep_free = (self.gc_threshold_blocks + 1).min(g.blocks_per_plane);
        report.free_blocks_per_plane = keep_free;
        let mut rng = Rng::derive(seed, 0x7072_6563);
        let mut slots: Vec<u32> = (0..ppb).collect();
        for (plane, plane_residues) in residues.iter().enumerate() {
            lpns.clear();
            for base in (0..self.logical_pages).step_by(nplanes) {
                for &r in plane_residues {
                    let lpn = base + r;
                    if lpn < self.logical_pages && live(lpn, seed, threshold) {
                        lpns.push(lpn);
                    }
                }
            }
            rng.shuffle(&mut lpns);
            let used = (g.blocks_per_plane - keep_free) as usize;
            let cap = used as u64 * ppb as u64;
            let n_live = (lpns.len() as u64).min(cap) as usize;
            let m = n_live as f64 / cap.max(1) as f64;
            let (lo, hi) = ((2.0 * m - 1.0).max(0.0), (2.0 * m).min(1.0));
            // Integer valid counts along the ramp, then fix the rounding drift.
            let mut counts: Vec<u32> = (0..used)
                .map(|i| {
                    let x = if used > 1 {
                        i as f64 / (used - 1) as f64
                    } else {
                        0.5
                    };
                    ((lo + (hi - lo) * x) * ppb as f64).round() as u32
                })
                .collect();
            let mut total: i64 = counts.iter().map(|&c| c as i64).sum();
            let mut i = used;
            while total != n_live as i64 && used > 0 {
                i = if i == 0 { used - 1 } else { i - 1 };
                if total < n_live as i64 && counts[i] < ppb {
                    counts[i] += 1;
                    total += 1;
                } else if total > n_live as i64 && counts[i] > 0 {
                    counts[i] -= 1;
                    total -= 1;
                }
            }
            let ps = &mut self.planes[plane];
            let mut next = 0usize;
            for (age, &count) in counts.iter().enumerate() {
                let Some(blk) = ps.free.pop_front() else {
                    break;
                };
                let b = blk as usize;
                self.state[b] = BlockState::Full;
                self.wp[b] = ppb as u16;
                self.seal_seq += 1;
                self.sealed[b] = self.seal_seq;
                self.mtime[b] = age as u64;
                // Random `count` slots of this block hold live data.
                for k in 0..count as usize {
                    let j = k + rng.below((ppb as usize - k) as u64) as usize;
                    slots.swap(k, j);
                    let ppn = g.first_ppn(blk) + slots[k];
                    let lpn = lpns[next];
                    // The LPNs come shuffled over the whole table: its
                    // line for a later one is fetched now, so the stores
                    // do not wait on a miss each (a third of the build).
                    if let Some(&ahead) = lpns.get(next + L2P_AHEAD) {
                        self.l2p.prefetch(ahead);
                    }
                    next += 1;
                    self.l2p.set(lpn, ppn);
                    self.p2l.set(ppn, lpn);
                }
                self.valid[b] = count as u16;
            }
            // Live pages that did not fit (fill above the physical room) stay
            // unmapped and are placed on first read.
            report.live_pages += next as u64;
            report.used_blocks += used as u64;
        }
        debug_assert!(self.l2p.iter().filter(|&p| p != NONE).count() as u64 == report.live_pages);
        let programmed = report.used_blocks * ppb as u64;
        report.mean_block_validity = report.live_pages as f64 / programmed.max(1) as f64;
        report
    }
}

#[cfg(test)]
mod tests {
    use crate::config::DeviceConfig;
    use crate::flash::Geometry;
    use crate::ftl::{Ftl, Stream};

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
}
