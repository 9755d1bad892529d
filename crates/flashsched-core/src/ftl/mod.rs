//! Page-level FTL: logical→physical mapping in compact `u32` arrays, block
//! bookkeeping per plane, write frontiers (`frontier.rs`: one for user
//! data, one for GC so hot and cold data do not mix, optionally one for
//! translation pages), GC victim choice, erase, TRIM.
//!
//! The FTL is functional (no time of its own): the device decides *when* a
//! program, move or erase happens and calls in here at that moment, so the
//! mapping always reflects what is physically on flash.

pub mod allocation;
mod audit;
pub mod config;
mod erase;
pub mod footprint;
mod frontier;
pub mod gc;
pub mod kept;
pub(crate) mod map;
pub mod precondition;
mod speed;

use std::collections::VecDeque;

pub use allocation::Allocation;
pub use config::{Frontiers, FtlConfig, GcMode, GcUnit, UpdateReads};
pub use gc::GcPolicy;
use gc::{Candidate, VictimPolicy};
use map::PageMap;
use speed::SpeedIndex;
pub use speed::SpeedPref;

use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::{Geometry, Ppn};
use crate::rng::Rng;

/// Marker for "no page" in both mapping directions.
pub const NONE: u32 = u32::MAX;

/// Which write frontier a program goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Host writes.
    User = 0,
    /// GC relocations (an open block of their own).
    Gc = 1,
    /// Translation pages of the cached mapping table, with
    /// `ftl.mapping_frontier` (MQSim's translation write frontier);
    /// without it they go to the user frontier ([`Ftl::mapping_stream`]).
    Mapping = 2,
}

/// Write streams, each with a frontier (open block) per plane.
pub const STREAMS: usize = 3;

/// Life cycle of a block: free → active (being filled) → full → victim (GC
/// is emptying it, or a TRIM reclaim erases it) → free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockState {
    /// Erased, in its plane's free list.
    Free,
    /// A stream's open block.
    Active,
    /// Every page programmed.
    Full,
    /// Chosen for erase.
    Victim,
}

/// Per-plane allocation state.
#[derive(Debug, Clone, Default)]
pub struct PlaneState {
    /// Erased blocks, taken from the front, returned to the back (so erases
    /// rotate over blocks: implicit wear levelling).
    pub free: VecDeque<u32>,
    /// Active block per stream (NONE when the stream has no open block).
    pub active: [u32; STREAMS],
    /// Pages left in each stream's active block (0 without one): `can_alloc`
    /// asks this for every program the scheduler considers, and reading it
    /// here saves a dependent load of the block's write pointer.
    pub room: [u16; STREAMS],
    /// GC jobs (victims) running in this plane.
    pub gc_jobs: u32,
    /// Blocks a write frontier opened and erases since GC last looked at
    /// the plane: with several jobs per plane, each may start one more
    /// victim (`Ftl::take_gc_check`).
    pub gc_checks: u32,
    /// Valid pages left in the plane's GC victims (kept with several jobs
    /// per plane): what the running jobs still have to move.
    pub gc_need: u32,
}

/// FTL counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FtlStats {
    /// Page programs of host writes.
    pub user_programs: u64,
    /// Page programs of GC moves.
    pub gc_programs: u64,
    /// Victim blocks GC selected.
    pub gc_invocations: u64,
    /// Valid pages GC relocated.
    pub gc_pages_moved: u64,
    /// Block erases (GC and TRIM reclaim).
    pub erases: u64,
    /// Mapped logical pages that TRIM unmapped.
    pub trimmed_pages: u64,
    /// Pages placed without timing because a read touched never-written data.
    pub untimed_placements: u64,
    /// Erases of blocks emptied by TRIM, outside GC (whole-device TRIM of a
    /// serial array's old front-end; also counted in `erases`).
    pub reclaim_erases: u64,
    /// Programs of translation pages (cached mapping table write-backs).
    pub mapping_programs: u64,
}

/// The page-mapped FTL of one device.
#[derive(Debug, Clone)]
pub struct Ftl {
    /// The flash it maps onto.
    pub geo: Geometry,
    /// Logical pages the host sees (physical pages less overprovisioning).
    pub logical_pages: u32,
    /// How a logical page's plane is chosen.
    pub alloc: Allocation,
    policy: VictimPolicy,
    /// GC jobs a plane may run at once (`ftl.gc_jobs_per_plane`).
    pub gc_jobs_max: u32,
    /// GC starts when a plane has fewer free blocks than this.
    pub gc_threshold_blocks: u32,
    /// User writes wait while a plane has fewer free blocks than this
    /// (`ftl.gc_write_floor`).
    write_floor: u32,
    /// How GC shares the flash with user I/O.
    pub gc_mode: GcMode,
    /// Preemptive GC turns urgent below this many free blocks in a plane.
    pub gc_hard_blocks: u32,
    /// `ftl.frontiers = "eager"`: a frontier opens its next block as soon
    /// as its block fills (and every frontier has one from the start).
    eager: bool,
    /// `ftl.mapping_frontier`: translation pages have a frontier of their own.
    own_mapping: bool,
    l2p: PageMap,
    p2l: PageMap,
    valid: Vec<u16>,
    wp: Vec<u16>,
    erases: Vec<u32>,
    state: Vec<BlockState>,
    mtime: Vec<Ns>,
    sealed: Vec<u64>,
    seal_seq: u64,
    /// Allocation state per plane.
    pub planes: Vec<PlaneState>,
    rng: Rng,
    /// Scratch space for victim candidates (reused across GC invocations).
    cand_buf: Vec<Candidate>,
    /// Scratch space for RGA's sample.
    pool_buf: Vec<u32>,
    /// Static plane of `lpn` is `plane_of_lpn[lpn % planes]`.
    plane_of_lpn: Vec<u32>,
    /// Counters.
    pub stats: FtlStats,
    /// Speed-ordered free blocks (process variation enabled), else `None`.
    speed: Option<SpeedIndex>,
    /// Logical pages deallocated by TRIM and not written since (bitmap):
    /// they read as zeros, unlike never-written pages.
    trimmed: Vec<u64>,
    /// Some page was ever TRIMmed (until then `trimmed` is all zeros and
    /// writes need not touch it).
    any_trimmed: bool,
    /// Planes where GC was due but found no victim (every full block fully
    /// valid); `starved_retry`: a page of a full block there has since
    /// become invalid, so a victim may exist now (`erase.rs`).
    starved: Vec<u32>,
    starved_retry: bool,
}

impl Ftl {
    /// Logical pages exposed by an FTL over `geo` configured by `cfg`.
    pub fn logical_pages_for(geo: &Geometry, cfg: &FtlConfig) -> u32 {
        let logical = ((geo.pages() as f64) * (1.0 - cfg.overprovisioning)).floor() as u64;
        logical.min(NONE as u64 - 1) as u32
    }

    /// A fresh (all blocks erased) FTL over `geo` configured by `cfg`.
    pub fn new(geo: Geometry, cfg: &FtlConfig, seed: u64) -> SimResult<Ftl> {
        let phys = geo.pages();
        let logical = Self::logical_pages_for(&geo, cfg);
        let nblocks = geo.blocks() as usize;
        let thr = (cfg.gc_threshold * geo.blocks_per_plane as f64).ceil() as u32;
        let mut planes = Vec::with_capacity(geo.planes() as usize);
        for p in 0..geo.planes() {
            let first = p * geo.blocks_per_plane;
            planes.push(PlaneState {
                free: (first..first + geo.blocks_per_plane).collect(),
                active: [NONE; STREAMS],
                room: [0; STREAMS],
                gc_jobs: 0,
                gc_checks: 0,
                gc_need: 0,
            });
        }
        let alloc = cfg.allocation;
        Ok(Ftl {
            geo,
            logical_pages: logical,
            alloc,
            policy: VictimPolicy::new(cfg.gc_policy, cfg.gc_d_choice),
            gc_jobs_max: cfg.gc_jobs_per_plane.max(1),
            gc_threshold_blocks: thr.max(2).max(cfg.gc_write_floor),
            write_floor: cfg.gc_write_floor,
            gc_mode: cfg.gc_mode,
            gc_hard_blocks: (cfg.gc_hard_threshold * geo.blocks_per_plane as f64).floor() as u32,
            eager: cfg.frontiers == Frontiers::Eager,
            own_mapping: cfg.mapping_frontier,
            l2p: PageMap::new(logical as usize),
            p2l: PageMap::new(phys as usize),
            valid: vec![0; nblocks],
            wp: written_zeros(nblocks),
            erases: vec![0; nblocks],
            state: vec![BlockState::Free; nblocks],
            mtime: vec![0; nblocks],
            sealed: vec![0; nblocks],
            seal_seq: 0,
            planes,
            rng: Rng::derive(seed, 0x6763),
            cand_buf: Vec::new(),
            pool_buf: Vec::new(),
            plane_of_lpn: (0..geo.planes())
                .map(|l| alloc.static_plane(&geo, l))
                .collect(),
            stats: FtlStats::default(),
            speed: None,
            trimmed: vec![0; (logical as usize).div_ceil(64)],
            any_trimmed: false,
            starved: Vec::new(),
            starved_retry: false,
        })
    }

    /// Current location of `lpn`.
    #[inline]
    pub fn lookup(&self, lpn: u32) -> Option<Ppn> {
        match self.l2p.get(lpn) {
            NONE => None,
            p => Some(p),
        }
    }

    /// Hint that `lookup(lpn)` will be called soon (cache prefetch).
    #[inline(always)]
    pub fn prefetch_lookup(&self, lpn: u32) {
        self.l2p.prefetch(lpn);
    }

    /// Hint that `lpn` will be remapped soon (its mapping should be cached
    /// by now, after `prefetch_lookup`): prefetch the old copy's reverse
    /// entry, which the remap invalidates.
    #[inline(always)]
    pub fn prefetch_remap(&self, lpn: u32) {
        if lpn as usize >= self.l2p.len() {
            return;
        }
        let old = self.l2p.get(lpn);
        if old != NONE {
            self.p2l.prefetch(old);
        }
    }

    /// Hint that `lpn` may soon be placed on its static plane (a read of a
    /// page never written, or a write's program under static allocation):
    /// fetch that plane's open user block's write pointer, valid count,
    /// modification time and next reverse-map entry. With many planes (a
    /// 16-SSD array has thousands) these lines fall out of the CPU caches
    /// between two placements on a plane, and a placement touched each
    /// in turn. Reads the plane's state now; a hint, results unchanged.
    #[inline]
    pub fn prefetch_placement(&self, lpn: u32) {
        let plane = self.static_plane(lpn);
        let Some(ps) = self.planes.get(plane as usize) else {
            return;
        };
        let blk = ps.active[Stream::User as usize];
        let b = blk as usize;
        if blk == NONE || b >= self.wp.len() {
            return;
        }
        crate::engine::prefetch(&self.wp[b]);
        crate::engine::prefetch(&self.valid[b]);
        crate::engine::prefetch(&self.mtime[b]);
        let used = self
            .geo
            .pages_per_block
            .saturating_sub(ps.room[Stream::User as usize] as u32);
        self.p2l.prefetch(self.geo.first_ppn(blk) + used);
    }

    /// Hint that `owner(ppn)` will be called soon (cache prefetch).
    #[inline(always)]
    pub fn prefetch_owner(&self, ppn: Ppn) {
        self.p2l.prefetch(ppn);
    }

    /// Logical page stored at `ppn` if that page is valid.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<u32> {
        match self.p2l.get(ppn) {
            NONE => None,
            l => Some(l),
        }
    }

    /// Plane a write of `lpn` goes to under static allocation. Striping
    /// depends only on `lpn mod planes`, so it is a table lookup.
    #[inline]
    pub fn static_plane(&self, lpn: u32) -> u32 {
        let n = self.plane_of_lpn.len() as u32;
        let r = if n.is_power_of_two() {
            lpn & (n - 1)
        } else {
            lpn % n
        };
        self.plane_of_lpn[r as usize]
    }

    /// Order free blocks by program latency `key_ns` (one entry per block) so
    /// user writes can ask for a fast or slow block (`alloc_pref`).
    pub fn enable_speed_order(&mut self, key_ns: Vec<u32>) {
        let mut sp = SpeedIndex::new(key_ns, self.planes.len());
        for (p, ps) in self.planes.iter().enumerate() {
            for &b in &ps.free {
                sp.insert_free(p as u32, b);
            }
        }
        self.speed = Some(sp);
    }

    /// Whether free blocks are ordered by speed.
    pub fn speed_ordered(&self) -> bool {
        self.speed.is_some()
    }

    /// New program latency of `block` (after write-speed detection).
    pub fn set_block_speed(&mut self, block: u32, key_ns: u32) {
        let plane = self.geo.plane_of_block(block);
        if let Some(sp) = &mut self.speed {
            sp.rekey(plane, block, key_ns);
        }
    }

    /// Whether `alloc_pref(_, pref)` writes a speed frontier rather than
    /// the ordinary open block.
    pub fn speed_frontier(&self, pref: SpeedPref) -> bool {
        self.speed.is_some() && pref != SpeedPref::InOrder
    }

    /// A user page in `plane` from the block `pref` asks for (VIOS §3.3):
    /// the fast or slow frontier, opening the fastest/slowest (or median)
    /// free block when it is full. Falls back to any open user block when only the reserved
    /// free blocks are left. `InOrder` (or no speed index) is `alloc`.
    pub fn alloc_pref(&mut self, plane: u32, pref: SpeedPref) -> Option<Ppn> {
        let fast = match (pref, &self.speed) {
            (SpeedPref::Fast, Some(_)) => true,
            (SpeedPref::Slow | SpeedPref::Median, Some(_)) => false,
            _ => return self.alloc(plane, Stream::User),
        };
        let slot = if fast { 0 } else { 1 };
        let sp = self.speed.as_ref()?;
        let cur = sp.frontier[plane as usize][slot];
        if self.has_room(cur) {
            return Some(self.take_page(plane, cur, None));
        }
        if self.planes[plane as usize].free.len() > self.user_reserve(plane) {
            let blk = sp.pick(plane, pref)?;
            let ps = &mut self.planes[plane as usize];
            if let Some(pos) = ps.free.iter().position(|&b| b == blk) {
                ps.free.remove(pos);
            }
            ps.gc_checks += 1;
            self.state[blk as usize] = BlockState::Active;
            if let Some(sp) = &mut self.speed {
                sp.remove_free(plane, blk);
                sp.frontier[plane as usize][slot] = blk;
            }
            return Some(self.take_page(plane, blk, None));
        }
        // Only the reserved block is free: use whatever user block is open.
        let other = sp.frontier[plane as usize][1 - slot];
        if self.has_room(other) {
            return Some(self.take_page(plane, other, None));
        }
        self.alloc(plane, Stream::User)
    }

    #[inline]
    fn invalidate(&mut self, ppn: Ppn, now: Ns) {
        let b = self.geo.block_of(ppn) as usize;
        self.p2l.set(ppn, NONE);
        self.valid[b] -= 1;
        self.mtime[b] = now;
        if self.gc_jobs_max > 1 && self.state[b] == BlockState::Victim {
            let plane = self.geo.plane_of_block(b as u32) as usize;
            self.planes[plane].gc_need -= 1;
        }
        if !self.starved.is_empty() {
            self.note_reclaimable(b as u32);
        }
    }

    #[inline]
    fn set_valid(&mut self, lpn: u32, ppn: Ppn, now: Ns) {
        let b = self.geo.block_of(ppn) as usize;
        self.l2p.set(lpn, ppn);
        self.p2l.set(ppn, lpn);
        self.valid[b] += 1;
        self.mtime[b] = now;
    }

    /// A user program of `lpn` into freshly allocated `ppn`: the old copy
    /// becomes invalid.
    pub fn map_user_write(&mut self, lpn: u32, ppn: Ppn, now: Ns) {
        if let Some(old) = self.lookup(lpn) {
            self.invalidate(old, now);
        }
        if self.any_trimmed {
            self.trimmed[(lpn >> 6) as usize] &= !(1 << (lpn & 63));
        }
        self.set_valid(lpn, ppn, now);
        self.stats.user_programs += 1;
    }

    /// Make room in the mapping table for `n` hidden logical pages after the
    /// host's (translation pages, `device/mapping.rs`) and store each on
    /// flash, untimed, as the device would have before the trace began.
    pub fn add_hidden_pages(&mut self, n: u32) -> SimResult<()> {
        let base = self.l2p.len() as u32;
        self.l2p.grow(n as usize);
        for lpn in base..base + n {
            let plane = self.static_plane(lpn);
            let ppn = self.alloc(plane, self.mapping_stream()).ok_or_else(|| {
                SimError::config(
                    "mapping.cmt_kib",
                    format!(
                        "no room in plane {plane} for translation page {} after preconditioning \
                         (lower ftl.precondition_fill or raise ftl.overprovisioning)",
                        lpn - base
                    ),
                )
            })?;
            self.set_valid(lpn, ppn, 0);
        }
        Ok(())
    }

    /// A translation-page program of hidden `lpn` into freshly allocated
    /// `ppn`: the old copy becomes invalid.
    pub fn map_hidden_write(&mut self, lpn: u32, ppn: Ppn, now: Ns) {
        if let Some(old) = self.lookup(lpn) {
            self.invalidate(old, now);
        }
        self.set_valid(lpn, ppn, now);
        self.stats.mapping_programs += 1;
    }

    /// Record that a program landed in `ppn` but its data was already
    /// superseded (the page is written and immediately invalid).
    pub fn program_stale(&mut self, ppn: Ppn, now: Ns) {
        let b = self.geo.block_of(ppn) as usize;
        self.mtime[b] = now;
    }

    /// GC relocation: remap only if `lpn` still lives at `old`.
    pub fn gc_move(&mut self, lpn: u32, old: Ppn, new: Ppn, now: Ns) -> bool {
        self.stats.gc_programs += 1;
        if self.l2p.get(lpn) != old {
            self.program_stale(new, now);
            return false;
        }
        self.invalidate(old, now);
        self.set_valid(lpn, new, now);
        self.stats.gc_pages_moved += 1;
        true
    }

    /// TRIM one logical page.
    pub fn trim(&mut self, lpn: u32, now: Ns) {
        if let Some(old) = self.lookup(lpn) {
            self.invalidate(old, now);
            self.l2p.set(lpn, NONE);
            self.stats.trimmed_pages += 1;
        }
        self.trimmed[(lpn >> 6) as usize] |= 1 << (lpn & 63);
        self.any_trimmed = true;
    }

    /// `lpn` was TRIMmed and not written since (it reads as zeros).
    #[inline]
    pub fn is_trimmed(&self, lpn: u32) -> bool {
        self.trimmed[(lpn >> 6) as usize] & (1 << (lpn & 63)) != 0
    }

    /// Place never-written `lpn` as if it had been written before the trace
    /// began (no timing). Returns `None` if its plane has no room.
    pub fn place_untimed(&mut self, lpn: u32) -> Option<Ppn> {
        self.place_untimed_on(lpn, self.static_plane(lpn))
    }

    /// [`Ftl::place_untimed`] on `plane`, chosen by the caller.
    pub fn place_untimed_on(&mut self, lpn: u32, plane: u32) -> Option<Ppn> {
        let ppn = self.alloc(plane, Stream::User)?;
        self.set_valid(lpn, ppn, 0);
        self.stats.untimed_placements += 1;
        Some(ppn)
    }

    /// Erases so far per block (for wear plots).
    pub fn erase_counts(&self) -> &[u32] {
        &self.erases
    }

    /// Times `block` was erased.
    #[inline]
    pub fn erase_count(&self, block: u32) -> u32 {
        self.erases[block as usize]
    }

    /// Where `block` is in its life cycle.
    pub fn block_state(&self, block: u32) -> BlockState {
        self.state[block as usize]
    }

    /// Pages programmed in `block` since its last erase.
    pub fn write_pointer(&self, block: u32) -> u32 {
        self.wp[block as usize] as u32
    }

    /// Valid pages in `block`.
    pub fn block_valid(&self, block: u32) -> u32 {
        self.valid[block as usize] as u32
    }

    /// Number of mapped host logical pages (translation pages, always
    /// mapped, are not counted).
    pub fn mapped_pages(&self) -> u64 {
        let hidden = (self.l2p.len() - self.logical_pages as usize) as u64;
        self.valid.iter().map(|&v| v as u64).sum::<u64>() - hidden
    }

    /// Write amplification: flash programs per user program.
    pub fn waf(&self) -> f64 {
        if self.stats.user_programs == 0 {
            1.0
        } else {
            (self.stats.user_programs + self.stats.gc_programs + self.stats.mapping_programs) as f64
                / self.stats.user_programs as f64
        }
    }

    /// Bytes used by the FTL tables (mapping + per-block metadata).
    pub fn table_bytes(&self) -> u64 {
        (self.l2p.len() * 4 + self.p2l.len() * 4 + self.valid.len() * (2 + 2 + 4 + 1 + 8 + 8))
            as u64
    }
}

/// `n` zeros written now, not left to the OS to supply as pages are first
/// touched. For a counter that is read and then incremented (a block's
/// write pointer): in lazily zeroed memory its first read maps the OS's page
/// of zeros and the increment swaps it out, which flushes the TLB of every
/// CPU running one of the process's threads (`map.rs`). (The zero is
/// opaque so the writes are not turned back into a zeroed allocation.)
fn written_zeros<T: Clone + Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.resize(n, std::hint::black_box(T::default()));
    v
}

#[cfg(test)]
mod tests;
