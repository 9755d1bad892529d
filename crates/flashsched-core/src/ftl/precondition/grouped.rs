//! The build of a device whose mapping table outgrows the caches: the
//! state the plane-by-plane build gives (`mod.rs`), with the mapping
//! stores in LPN order.
//!
//! Built plane by plane, a plane's live LPNs are mapped in the random order
//! they are placed: each store a cache and TLB miss, half the build of a
//! large device. Here the residues (LPN mod planes) go in groups of 16, one
//! cache line of mapping entries per row of the table: the group's planes
//! are placed, each holding its placements by LPN rank, then the group's
//! entries are stored row by row. Each plane starts from the point of the
//! random stream and of the slot permutation that building the planes in
//! plane order reaches it at, found beforehand by drawing the stream
//! through (cheap beside the stores), and the blocks are claimed and
//! sealed in plane order then. The groups are independent, so they are
//! built on two threads; each writes its own planes' pages and its own
//! residues' entries, and the state does not depend on the timing.

use std::ops::Range;

use super::{pick_slots, place_pages, ramp, AHEAD};
use crate::flash::Geometry;
use crate::ftl::map::PageMap;
use crate::ftl::{Ftl, NONE};
use crate::rng::Rng;

/// Residues built together: 16 mapping entries are one cache line.
const GROUP: usize = 16;

/// Threads the groups are built on at most: each holds its own buffers,
/// so more would cost memory for what a two-core machine cannot use.
pub(in crate::ftl) const THREADS: usize = 2;

/// Residues built together on `planes` planes: [`GROUP`], or fewer so that
/// their placements (4 bytes for each of their logical pages) take at most
/// a quarter byte per logical page on each thread (the mapping tables take
/// 8 bytes and more): 8 residues on 128 planes, 16 on 256 or more.
pub(in crate::ftl) fn group_width(planes: u32) -> usize {
    (planes as usize / 16).clamp(1, GROUP)
}

/// Where a plane's placement starts: in the random stream, and in the
/// slot permutation (one runs through every block of every plane).
#[derive(Clone)]
pub(in crate::ftl) struct PlaneStart {
    pub(super) rng: Rng,
    pub(super) slots: Vec<u32>,
}

/// Bit `lpn` set when logical page `lpn` is live.
struct LiveSet(Vec<u64>);

impl LiveSet {
    /// The live set of `logical` pages, and how many are live of each
    /// residue mod `nres`, drawn on `threads` threads (each a share of the
    /// words).
    fn new(
        logical: u32,
        nres: u32,
        threads: usize,
        is_live: &(impl Fn(u32) -> bool + Sync),
    ) -> (LiveSet, Vec<u64>) {
        let nwords = (logical as usize).div_ceil(64);
        let nres = nres.min(logical).max(1) as usize;
        let share = nwords.div_ceil(threads.max(1)).max(1);
        let shares: Vec<(usize, usize)> = (0..nwords)
            .step_by(share)
            .map(|w0| (w0, (w0 + share).min(nwords)))
            .collect();
        let parts = on_threads(&shares, |(w0, w1)| {
            let mut words = vec![0u64; w1 - w0];
            let mut per_residue = vec![0u64; nres];
            let mut r = (w0 as u64 * 64 % nres as u64) as usize;
            for (w, word) in words.iter_mut().enumerate() {
                let base = (w0 + w) as u32 * 64;
                for b in 0..64.min(logical - base) {
                    let on = is_live(base + b);
                    *word |= (on as u64) << b;
                    per_residue[r] += on as u64;
                    r += 1;
                    if r == nres {
                        r = 0;
                    }
                }
            }
            (words, per_residue)
        });
        let mut words = Vec::with_capacity(nwords);
        let mut per_residue = vec![0u64; nres];
        for (part, counts) in parts {
            words.extend(part);
            for (a, b) in per_residue.iter_mut().zip(counts) {
                *a += b;
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
        let end = self.0.len() as u64 * 64;
        let mut lpn = r as u64;
        while lpn < end && k < n {
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

/// What the groups' builds read.
struct Plan<'a> {
    lives: LiveSet,
    per_residue: Vec<u64>,
    plane_of: &'a [u32],
    starts: Vec<PlaneStart>,
    /// Each plane's blocks (oldest first) and their valid pages.
    blocks: Vec<(Vec<u32>, Vec<u32>)>,
    nplanes: u32,
    logical: u32,
}

/// One thread's buffers: a plane's live pages as `[lpn, page]`, their
/// shuffled indices, and the group's placements by LPN rank.
#[derive(Default)]
struct Scratch {
    live: Vec<[u32; 2]>,
    order: Vec<u32>,
    placed: Vec<Vec<u32>>,
}

impl Plan<'_> {
    /// Build the residues of `group`; returns the pages placed.
    fn build(
        &self,
        group: Range<u32>,
        maps: (&PageMap, &PageMap),
        geo: &Geometry,
        s: &mut Scratch,
    ) -> u64 {
        let (l2p, p2l) = maps;
        let Scratch {
            live,
            order,
            placed,
        } = s;
        let mut total = 0;
        placed.resize_with(group.len(), Vec::new);
        for (j, r) in group.clone().enumerate() {
            let p = self.plane_of[r as usize] as usize;
            let n = self.per_residue[r as usize] as usize;
            self.lives.gather(r, self.nplanes, n, live);
            // The LPNs' indices are shuffled; each placement goes beside
            // its LPN, a line fetched ahead (they come in random order).
            order.clear();
            order.reserve_exact(n);
            order.extend(0..n as u32);
            let mut start = self.starts[p].clone();
            let (blocks, counts) = &self.blocks[p];
            total += place_pages(geo, order, &mut start, blocks, counts, |i, ahead, ppn| {
                if let Some(ahead) = ahead {
                    crate::engine::prefetch(&live[ahead as usize]);
                }
                let e = &mut live[i as usize];
                e[1] = ppn;
                p2l.store(ppn, e[0]);
            });
            // One `NONE` after the last, read (and not used) when the
            // group's last rows have no live page of this residue.
            let out = &mut placed[j];
            out.clear();
            out.reserve_exact(live.len() + 1);
            out.extend(live.iter().map(|e| e[1]).chain([NONE]));
        }
        // The group's mapping entries in LPN order: the i-th live LPN of a
        // residue gets the i-th entry of its plane's placements.
        let cols: Vec<&[u32]> = placed.iter().map(|c| c.as_slice()).collect();
        let mut next = [0usize; GROUP];
        let (nplanes, g0) = (self.nplanes, group.start);
        for row in 0..self.logical.div_ceil(nplanes) {
            let lpn0 = row * nplanes + g0;
            let n = cols.len().min(self.logical.saturating_sub(lpn0) as usize);
            if n == 0 {
                break;
            }
            // Stores that miss drain one by one: the line a few rows on is
            // fetched now.
            l2p.prefetch(lpn0 + AHEAD as u32 * nplanes);
            let on = self.lives.run(lpn0, n as u32);
            l2p.store_each(lpn0, n, |j| {
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
        total
    }
}

impl Ftl {
    /// A group of residues at a time: their planes placed, then their
    /// mapping entries stored in LPN order; returns the pages placed.
    pub(super) fn build_grouped(
        &mut self,
        plane_of: &[u32],
        used: u32,
        mut rng: Rng,
        is_live: impl Fn(u32) -> bool + Sync,
    ) -> u64 {
        let g = self.geo;
        let (nplanes, logical) = (g.planes(), self.logical_pages);
        let (lives, per_residue) = LiveSet::new(logical, nplanes, threads(), &is_live);
        let mut per_plane = vec![0u64; nplanes as usize];
        for (r, &n) in per_residue.iter().enumerate() {
            per_plane[plane_of[r] as usize] += n;
        }
        // Draw the stream through, plane by plane: one number per shuffle
        // step and one per slot.
        let cap = used as u64 * g.pages_per_block as u64;
        let mut slots: Vec<u32> = (0..g.pages_per_block).collect();
        let mut starts = Vec::with_capacity(nplanes as usize);
        let mut blocks = Vec::with_capacity(nplanes as usize);
        let mut seal_seq = self.seal_seq;
        for (p, &n) in per_plane.iter().enumerate() {
            starts.push(PlaneStart {
                rng: rng.clone(),
                slots: slots.clone(),
            });
            let counts = ramp(n.min(cap) as usize, used as usize, g.pages_per_block);
            rng.advance(n.saturating_sub(1));
            for &count in &counts {
                pick_slots(&mut rng, &mut slots, count, |_| {});
            }
            blocks.push((self.claim_blocks(p, &counts, &mut seal_seq), counts));
        }
        let plan = Plan {
            lives,
            per_residue,
            plane_of,
            starts,
            blocks,
            nplanes,
            logical,
        };
        let width = group_width(nplanes) as u32;
        let nres = plane_of.len() as u32;
        let groups: Vec<Range<u32>> = (0..nres)
            .step_by(width as usize)
            .map(|g0| g0..(g0 + width).min(nres))
            .collect();
        let (l2p, p2l) = (&self.l2p, &self.p2l);
        // Contiguous shares: two threads' groups meet in one cache line a
        // row at most.
        let share = groups.len().div_ceil(threads()).max(1);
        let shares: Vec<&[Range<u32>]> = groups.chunks(share).collect();
        let placed = on_threads(&shares, |gs| {
            let mut s = Scratch::default();
            gs.iter()
                .map(|grp| plan.build(grp.clone(), (l2p, p2l), &g, &mut s))
                .sum::<u64>()
        });
        placed.into_iter().sum()
    }
}

/// Threads to build on: [`THREADS`], or fewer on a smaller machine.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(THREADS))
}

/// `f` of each of `xs`, in order: the first here, the others on threads of
/// their own (here too when no thread can be had).
fn on_threads<X: Copy + Send, T: Send>(xs: &[X], f: impl Fn(X) -> T + Sync) -> Vec<T> {
    let f = &f;
    std::thread::scope(|scope| {
        let others: Vec<_> = xs
            .iter()
            .skip(1)
            .map(|&x| {
                std::thread::Builder::new()
                    .name("precondition".into())
                    .spawn_scoped(scope, move || f(x))
                    .map_err(|_| x)
            })
            .collect();
        let mut out: Vec<T> = xs.first().map(|&x| f(x)).into_iter().collect();
        for h in others {
            out.push(match h {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err(x) => f(x),
            });
        }
        out
    })
}
