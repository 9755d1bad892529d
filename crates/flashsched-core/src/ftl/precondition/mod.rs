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
//! The state is defined by building the planes one after another in plane
//! order from one random stream (this module). A device whose mapping
//! table outgrows the caches is built another way to the same state
//! (`grouped.rs`): its random stores to the table were half the build.
//! No event is simulated.

mod grouped;
#[cfg(test)]
mod tests;

pub(super) use grouped::{group_width, PlaneStart, THREADS};

use super::{BlockState, Ftl, NONE};
use crate::flash::Geometry;
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

/// How far ahead a random or strided access is prefetched.
const AHEAD: usize = 16;

/// A logical-to-physical table up to this size is built plane by plane,
/// its stores in the order pages are placed: it stays in cache, and the
/// grouped build's extra pass over the random stream would cost more than
/// it saves (BENCHMARKS.md, session 55).
const PLAIN_TABLE_BYTES: u64 = 16 << 20;

/// Whether a device of `logical` pages is built in residue groups.
pub(super) fn grouped(logical: u32) -> bool {
    logical as u64 * 4 > PLAIN_TABLE_BYTES
}

fn live(lpn: u32, seed: u64, threshold: u64) -> bool {
    let mut z = (lpn as u64 ^ seed).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) < threshold
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

/// Place a plane's live pages: `items` (one per live page, in LPN order)
/// are shuffled, then the `counts[i]` pages of `blocks[i]` drawn at random
/// slots, and `place(item, item ahead, page)` gets each item with its page
/// (and the item placed [`AHEAD`] pages later, for a prefetch); the items
/// past the plane's room get none. Draws from `start`, left where the
/// plane's draws end. Returns the pages placed.
fn place_pages(
    geo: &Geometry,
    items: &mut [u32],
    start: &mut PlaneStart,
    blocks: &[u32],
    counts: &[u32],
    mut place: impl FnMut(u32, Option<u32>, u32),
) -> u64 {
    start.rng.shuffle(items);
    let mut next = 0usize;
    for (&blk, &count) in blocks.iter().zip(counts) {
        let first = geo.first_ppn(blk);
        pick_slots(&mut start.rng, &mut start.slots, count, |slot| {
            place(items[next], items.get(next + AHEAD).copied(), first + slot);
            next += 1;
        });
    }
    next as u64
}

impl Ftl {
    /// Precondition a *fresh* FTL to logical fill fraction `fill` (0..=1).
    pub fn precondition(&mut self, fill: f64, seed: u64) -> PreconditionReport {
        self.precondition_as(fill, seed, grouped(self.logical_pages))
    }

    /// [`Ftl::precondition`], built in residue groups or plane by plane
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

    /// Take plane `p`'s oldest free blocks, one for each of `counts` (their
    /// valid pages, oldest first), as full, sealed in turn after
    /// `seal_seq` (left at the last). Returns them.
    fn claim_blocks(&mut self, p: usize, counts: &[u32], seal_seq: &mut u64) -> Vec<u32> {
        let ppb = self.geo.pages_per_block;
        let mut blocks = Vec::with_capacity(counts.len());
        for (age, &count) in counts.iter().enumerate() {
            let Some(blk) = self.planes[p].free.pop_front() else {
                break;
            };
            let b = blk as usize;
            self.state[b] = BlockState::Full;
            self.wp[b] = ppb as u16;
            *seal_seq += 1;
            self.sealed[b] = *seal_seq;
            self.mtime[b] = age as u64;
            self.valid[b] = count as u16;
            blocks.push(blk);
        }
        self.seal_seq = self.seal_seq.max(*seal_seq);
        blocks
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
        let g = self.geo;
        let (nplanes, logical) = (g.planes(), self.logical_pages);
        let mut residue = vec![None; nplanes as usize];
        for (r, &p) in plane_of.iter().enumerate() {
            residue[p as usize] = Some(r as u32);
        }
        let mut start = PlaneStart {
            rng,
            slots: (0..g.pages_per_block).collect(),
        };
        let mut seal_seq = self.seal_seq;
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
            let cap = used as usize * g.pages_per_block as usize;
            let counts = ramp(lpns.len().min(cap), used as usize, g.pages_per_block);
            let blocks = self.claim_blocks(p, &counts, &mut seal_seq);
            let (l2p, p2l) = (&mut self.l2p, &mut self.p2l);
            // The LPNs come shuffled over the whole table: its line for a
            // later one is fetched now, so the stores do not each wait.
            placed += place_pages(
                &g,
                &mut lpns,
                &mut start,
                &blocks,
                &counts,
                |lpn, ahead, ppn| {
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
}
