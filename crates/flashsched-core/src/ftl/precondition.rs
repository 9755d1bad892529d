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
//! Cost: two passes over the logical pages and one over the physical pages
//! (no event is simulated). The logical-to-physical stores go in LPN order,
//! a group of residues at a time: in random order each was a cache and TLB
//! miss, half the build (BENCHMARKS.md, session 55).

use super::map::PageMap;
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

/// Residues (LPN mod planes) built together: 16 mapping entries are one
/// cache line, so a group's stores in LPN order fill each line once.
pub(super) const GROUP: usize = 16;

/// Residues built together on `planes` planes: [`GROUP`], or fewer so that
/// their placements (4 bytes for each of their logical pages) take at most
/// half a byte per logical page, an eighth of the mapping table.
pub(super) fn group_width(planes: u32) -> usize {
    (planes as usize / 8).clamp(1, GROUP)
}

/// How far ahead a random or strided access is prefetched.
const AHEAD: usize = 16;

fn live(lpn: u32, seed: u64, threshold: u64) -> bool {
    let mut z = (lpn as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) < threshold
}

/// Bit `lpn` set when logical page `lpn` is live.
struct LiveSet(Vec<u64>);

impl LiveSet {
    /// The live set of `logical` pages, and how many are live of each
    /// residue mod `nres`.
    fn new(logical: u32, nres: u32, is_live: impl Fn(u32) -> bool) -> (LiveSet, Vec<u64>) {
        let mut words = vec![0u64; (logical as usize).div_ceil(64)];
        let mut per_residue = vec![0u64; nres.min(logical) as usize];
        let mut r = 0;
        for (w, word) in words.iter_mut().enumerate() {
            let base = w as u32 * 64;
            for b in 0..64.min(logical - base) {
                let on = is_live(base + b);
                *word |= (on as u64) << b;
                per_residue[r] += on as u64;
                r += 1;
                if r == per_residue.len() {
                    r = 0;
                }
            }
        }
        (LiveSet(words), per_residue)
    }

    #[inline]
    fn has(&self, lpn: u32) -> bool {
        self.0[lpn as usize / 64] >> (lpn % 64) & 1 == 1
    }

    /// `[lpn, NONE]` for each of the `n` live LPNs `≡ r (mod step)`, in
    /// order, into `out`.
    fn gather(&self, r: u32, step: u32, n: usize, out: &mut Vec<[u32; 2]>) {
        // Written whether live or not (a branch would miss at every tenth
        // page of a 90 % fill): one entry of room past the last.
        out.clear();
        out.reserve_exact(n + 1);
        out.resize(n + 1, [0, NONE]);
        let mut k = 0;
        let logical = self.0.len() as u64 * 64;
        let mut lpn = r as u64;
        while lpn < logical && k < n {
            out[k][0] = lpn as u32;
            k += self.has(lpn as u32) as usize;
            lpn += step as u64;
        }
        out.truncate(n);
    }

    /// Bits `lpn..lpn + n` (`n` ≤ 32), the first lowest.
    #[inline]
    fn run(&self, lpn: u32, n: u32) -> u64 {
        let (w, b) = (lpn as usize / 64, lpn % 64);
        let lo = self.0[w] >> b;
        let hi = if b + n > 64 {
            self.0[w + 1] << (64 - b)
        } else {
            0
        };
        (lo | hi) & ((1u64 << n) - 1)
    }
}

/// One plane's share of the build: where it starts in the random stream
/// and in the seal order, so planes can be built in any order and still
/// get what building them one after another in plane order gives.
#[derive(Clone)]
pub(super) struct PlaneStart {
    rng: Rng,
    seal_seq: u64,
    /// The slot permutation the random slot picks start from (one
    /// permutation runs through every block of every plane).
    slots: Vec<u32>,
}

/// Valid pages of each of `used` blocks (oldest first) holding `n_live`
/// pages: integers along the linear ramp, the rounding drift fixed from
/// the youngest block down.
fn ramp(n_live: usize, used: usize, ppb: u32) -> Vec<u32> {
    let cap = used as u64 * ppb as u64;
    let m = n_live as f64 / cap.max(1) as f64;
    let (lo, hi) = ((2.0 * m - 1.0).max(0.0), (2.0 * m).min(1.0));
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
    counts
}

/// Draw `count` random slots of a block, each one passed to `each`: the
/// first `count` entries of `slots` after a partial shuffle.
#[inline]
fn pick_slots(rng: &mut Rng, slots: &mut [u32], count: u32, mut each: impl FnMut(u32)) {
    let ppb = slots.len();
    for k in 0..count as usize {
        let j = k + rng.below((ppb - k) as u64) as usize;
        slots.swap(k, j);
        each(slots[k]);
    }
}

/// A logical-to-physical table up to this size is built in plane order,
/// its stores in the order pages are placed: it stays in cache, and the
/// grouped build's second pass over the random stream would cost more
/// than it saves (BENCHMARKS.md, session 55).
const PLAIN_TABLE_BYTES: u64 = 16 << 20;

/// Whether a device of `logical` pages is built in residue groups.
pub(super) fn grouped(logical: u32) -> bool {
    logical as u64 * 4 > PLAIN_TABLE_BYTES
}

impl Ftl {
    /// Precondition a *fresh* FTL to logical fill fraction `fill` (0..=1).
    pub fn precondition(&mut self, fill: f64, seed: u64) -> PreconditionReport {
        self.precondition_as(fill, seed, grouped(self.logical_pages))
    }

    /// [`Ftl::precondition`], built in residue groups or in plane order
    /// (the same state either way).
    fn precondition_as(&mut self, fill: f64, seed: u64, grouped: bool) -> PreconditionReport {
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
        // A plane's LPNs are those of one residue mod the planes (static
        // striping maps residues to planes one to one).
        let plane_of: Vec<u32> = (0..g.planes().min(self.logical_pages))
            .map(|r| self.static_plane(r))
            .collect();
        debug_assert!({
            let mut seen = plane_of.clone();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        });
        let keep_free = (self.gc_threshold_blocks + 1).min(g.blocks_per_plane);
        report.free_blocks_per_plane = keep_free;
        let used = g.blocks_per_plane - keep_free;
        let rng = Rng::derive(seed, 0x7072_6563);
        let is_live = |lpn| live(lpn, seed, threshold);
        report.live_pages = if grouped {
            self.build_grouped(&plane_of, used, rng, is_live)
        } else {
            self.build_plain(&plane_of, used, rng, is_live)
        };
        report.used_blocks = used as u64 * g.planes() as u64;
        debug_assert!(self.l2p.iter().filter(|&p| p != NONE).count() as u64 == report.live_pages);
        let programmed = report.used_blocks * g.pages_per_block as u64;
        report.mean_block_validity = report.live_pages as f64 / programmed.max(1) as f64;
        report
    }

    /// The planes one after another, each drawing from `rng` where the
    /// last left it, each page mapped as it is placed; returns the pages
    /// placed.
    fn build_plain(
        &mut self,
        plane_of: &[u32],
        used: u32,
        rng: Rng,
        is_live: impl Fn(u32) -> bool,
    ) -> u64 {
        let (nplanes, logical) = (self.geo.planes(), self.logical_pages);
        let mut residue = vec![None; nplanes as usize];
        for (r, &p) in plane_of.iter().enumerate() {
            residue[p as usize] = Some(r as u32);
        }
        let mut start = PlaneStart {
            rng,
            seal_seq: self.seal_seq,
            slots: (0..self.geo.pages_per_block).collect(),
        };
        let mut lpns = Vec::new();
        let mut placed = 0;
        for (p, r) in residue.into_iter().enumerate() {
            lpns.clear();
            if let Some(r) = r {
                let mut lpn = r as u64;
                while lpn < logical as u64 {
                    if is_live(lpn as u32) {
                        lpns.push(lpn as u32);
                    }
                    lpn += nplanes as u64;
                }
            }
            // The LPNs come shuffled over the whole table: its line for a
            // later one is fetched now, so the stores do not each wait.
            placed += self.fill_plane(
                p,
                &mut lpns,
                &mut start,
                used,
                |l2p, p2l, lpn, ahead, ppn| {
                    if let Some(ahead) = ahead {
                        l2p.prefetch(ahead);
                    }
                    l2p.set(lpn, ppn);
                    p2l.set(ppn, lpn);
                },
            );
        }
        placed
    }

    /// A group of residues at a time: their planes placed (each from where
    /// building the planes in plane order would start it), then their
    /// mapping entries stored in LPN order; returns the pages placed.
    fn build_grouped(
        &mut self,
        plane_of: &[u32],
        used: u32,
        mut rng: Rng,
        is_live: impl Fn(u32) -> bool,
    ) -> u64 {
        let g = self.geo;
        let (nplanes, logical) = (g.planes(), self.logical_pages);
        let nres = plane_of.len() as u32;
        let (lives, per_residue) = LiveSet::new(logical, nplanes, is_live);
        let mut per_plane = vec![0u64; nplanes as usize];
        for (r, &n) in per_residue.iter().enumerate() {
            per_plane[plane_of[r] as usize] += n;
        }
        // Each plane draws one number per shuffle step and one per slot.
        let cap = used as u64 * g.pages_per_block as u64;
        let mut slots: Vec<u32> = (0..g.pages_per_block).collect();
        let starts: Vec<PlaneStart> = (0..nplanes as u64)
            .map(|p| {
                let start = PlaneStart {
                    rng: rng.clone(),
                    seal_seq: self.seal_seq + p * used as u64,
                    slots: slots.clone(),
                };
                let n = per_plane[p as usize];
                rng.advance(n.saturating_sub(1));
                for count in ramp(n.min(cap) as usize, used as usize, g.pages_per_block) {
                    pick_slots(&mut rng, &mut slots, count, |_| {});
                }
                start
            })
            .collect();
        let rows = logical.div_ceil(nplanes);
        let (mut live, mut order) = (Vec::new(), Vec::new());
        let mut placed: Vec<Vec<u32>> = Vec::new();
        let mut total = 0;
        let width = group_width(nplanes);
        for g0 in (0..nres).step_by(width) {
            let group = g0..(g0 + width as u32).min(nres);
            placed.resize_with(group.len(), Vec::new);
            for (j, r) in group.clone().enumerate() {
                let p = plane_of[r as usize] as usize;
                let n = per_residue[r as usize] as usize;
                lives.gather(r, nplanes, n, &mut live);
                // The LPNs' indices are shuffled; each placement goes beside
                // its LPN, a line fetched ahead (they come in random order).
                order.clear();
                order.reserve_exact(n);
                order.extend(0..n as u32);
                let mut start = starts[p].clone();
                total +=
                    self.fill_plane(p, &mut order, &mut start, used, |_, p2l, i, ahead, ppn| {
                        if let Some(ahead) = ahead {
                            crate::engine::prefetch(&live[ahead as usize]);
                        }
                        let e = &mut live[i as usize];
                        e[1] = ppn;
                        p2l.set(ppn, e[0]);
                    });
                // One `NONE` after the last, read (and not used) when the
                // group's last rows have no live page of this residue.
                let out = &mut placed[j];
                out.clear();
                out.reserve_exact(live.len() + 1);
                out.extend(live.iter().map(|e| e[1]).chain([NONE]));
            }
            // The group's mapping entries in LPN order: the i-th live LPN of
            // a residue gets the i-th entry of its plane's placements.
            let cols: Vec<&[u32]> = placed.iter().map(|c| c.as_slice()).collect();
            let mut next = [0usize; GROUP];
            for row in 0..rows {
                let lpn0 = row * nplanes + g0;
                let n = cols.len().min(logical.saturating_sub(lpn0) as usize);
                if n == 0 {
                    break;
                }
                // Stores that miss drain one by one: the line a few rows on
                // is fetched now.
                self.l2p.prefetch(lpn0 + AHEAD as u32 * nplanes);
                let on = lives.run(lpn0, n as u32);
                self.l2p.set_each(lpn0, n, |j| {
                    let live = (on >> j & 1) as usize;
                    let ppn = cols[j][next[j]];
                    next[j] += live;
                    if live == 1 {
                        ppn
                    } else {
                        NONE
                    }
                });
            }
        }
        total
    }

    /// Fill plane `p`'s `used` oldest blocks along the validity ramp with
    /// `items` (one per live page) at random slots, drawing from `start`
    /// (left where the plane's draws end): the items are shuffled, then
    /// `place(l2p, p2l, item, item ahead, page)` gets each with the page
    /// drawn for it (and the item placed [`AHEAD`] pages later, for a
    /// prefetch); the items past the plane's room get none. Returns the
    /// pages placed.
    fn fill_plane(
        &mut self,
        p: usize,
        items: &mut [u32],
        start: &mut PlaneStart,
        used: u32,
        mut place: impl FnMut(&mut PageMap, &mut PageMap, u32, Option<u32>, u32),
    ) -> u64 {
        let g = self.geo;
        let ppb = g.pages_per_block;
        let rng = &mut start.rng;
        rng.shuffle(items);
        let cap = used as u64 * ppb as u64;
        let counts = ramp((items.len() as u64).min(cap) as usize, used as usize, ppb);
        let mut next = 0usize;
        for (age, &count) in counts.iter().enumerate() {
            let Some(blk) = self.planes[p].free.pop_front() else {
                break;
            };
            let b = blk as usize;
            self.state[b] = BlockState::Full;
            self.wp[b] = ppb as u16;
            start.seal_seq += 1;
            self.sealed[b] = start.seal_seq;
            self.mtime[b] = age as u64;
            self.valid[b] = count as u16;
            // Random `count` slots of this block hold live data.
            let first = g.first_ppn(blk);
            let (l2p, p2l) = (&mut self.l2p, &mut self.p2l);
            pick_slots(rng, &mut start.slots, count, |slot| {
                let ahead = items.get(next + AHEAD).copied();
                place(l2p, p2l, items[next], ahead, first + slot);
                next += 1;
            });
        }
        self.seal_seq = self.seal_seq.max(start.seal_seq);
        // Live pages that did not fit (fill above the physical room) stay
        // unmapped and are placed on first read.
        next as u64
    }
}

#[cfg(test)]
mod tests {
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
}
