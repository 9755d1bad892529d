//! Write frontiers: where a program gets its page. Each plane has an open
//! block per write stream (host, GC, translation pages), which takes a free
//! block lazily or eagerly (`ftl.frontiers`); free blocks GC needs to
//! finish are held back from the other streams, and `ftl.gc_write_floor`
//! holds host writes back.

use super::{BlockState, Ftl, Stream, NONE};
use crate::flash::Ppn;

impl Ftl {
    /// Planes whose user writes wait on `ftl.gc_write_floor` with no GC job
    /// running to lift them (for a stall's error message), and the floor.
    pub fn planes_held_by_floor(&self) -> (usize, u32) {
        let n = self
            .planes
            .iter()
            .filter(|ps| ps.gc_jobs == 0 && (ps.free.len() as u32) < self.write_floor)
            .count();
        (n, self.write_floor)
    }

    /// Erased blocks in `plane`'s free list.
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.planes[plane as usize].free.len() as u32
    }

    /// Free blocks of `plane` user writes may not open: one, or with
    /// several GC jobs running (`ftl.gc_jobs_per_plane`) as many as the
    /// valid pages left in their victims need beyond the open GC block's
    /// room, so the jobs can always finish and GC never waits on the writes
    /// it is freeing space for (one block always holds one victim's valid
    /// pages, several victims' may not).
    #[inline]
    pub fn user_reserve(&self, plane: u32) -> usize {
        let ps = &self.planes[plane as usize];
        if ps.gc_jobs <= 1 {
            return 1;
        }
        let short = ps
            .gc_need
            .saturating_sub(ps.room[Stream::Gc as usize] as u32);
        short.div_ceil(self.geo.pages_per_block).max(1) as usize
    }

    /// Whether the plane has room for `more` moved pages beside what its
    /// running GC jobs still have to move.
    #[inline]
    pub fn gc_room_for(&self, plane: u32, more: u32) -> bool {
        let ps = &self.planes[plane as usize];
        let room = ps.room[Stream::Gc as usize] as u64
            + ps.free.len() as u64 * self.geo.pages_per_block as u64;
        room >= ps.gc_need as u64 + more as u64
    }

    /// Whether `queued` more user programs could take pages in `plane`
    /// without waiting for GC: the open user block's room plus the free
    /// blocks beyond the reserve.
    #[inline]
    pub fn user_room_for(&self, plane: u32, queued: u32) -> bool {
        let ps = &self.planes[plane as usize];
        if (ps.free.len() as u32) < self.write_floor {
            return false;
        }
        let spare = ps.free.len().saturating_sub(self.user_reserve(plane)) as u64;
        ps.room[Stream::User as usize] as u64 + spare * self.geo.pages_per_block as u64
            > queued as u64
    }

    /// Whether a program on `stream` can get a page in `plane` now. User
    /// writes may not take the reserved free blocks ([`Ftl::user_reserve`]),
    /// nor any page while the plane is below `ftl.gc_write_floor` free
    /// blocks.
    #[inline]
    pub fn can_alloc(&self, plane: u32, stream: Stream) -> bool {
        let ps = &self.planes[plane as usize];
        if stream == Stream::User && (ps.free.len() as u32) < self.write_floor {
            return false;
        }
        if ps.room[stream as usize] > 0 {
            return true;
        }
        if stream == Stream::User {
            if let Some(sp) = &self.speed {
                if sp.frontier[plane as usize]
                    .iter()
                    .any(|&b| self.has_room(b))
                {
                    return true;
                }
            }
        }
        self.may_open(plane, stream)
    }

    /// Whether `stream` may open a free block of `plane`: GC any, the
    /// others only beyond the blocks GC needs ([`Ftl::user_reserve`]).
    #[inline]
    fn may_open(&self, plane: u32, stream: Stream) -> bool {
        let free = self.planes[plane as usize].free.len();
        match stream {
            Stream::User | Stream::Mapping => free > self.user_reserve(plane),
            Stream::Gc => free > 0,
        }
    }

    /// The stream translation-page programs allocate from: their own with
    /// `ftl.mapping_frontier`, else the user stream.
    #[inline]
    pub fn mapping_stream(&self) -> Stream {
        if self.own_mapping {
            Stream::Mapping
        } else {
            Stream::User
        }
    }

    /// `ftl.frontiers = "eager"`: give every frontier of every plane its
    /// block before the run (MQSim's block manager takes a data, a GC and
    /// a translation block per plane at start, even with the mapping table
    /// wholly in DRAM, where the translation block is never written).
    pub fn open_frontiers(&mut self) {
        if !self.eager {
            return;
        }
        let streams: &[Stream] = if self.own_mapping {
            &[Stream::User, Stream::Gc, Stream::Mapping]
        } else {
            &[Stream::User, Stream::Gc]
        };
        for plane in 0..self.geo.planes() {
            for &s in streams {
                if self.planes[plane as usize].room[s as usize] == 0 && self.may_open(plane, s) {
                    self.open_block(plane, s);
                }
            }
        }
    }

    /// Take the next page of `stream`'s frontier in `plane` (opening a new
    /// block if needed). `None` if `can_alloc` is false.
    pub fn alloc(&mut self, plane: u32, stream: Stream) -> Option<Ppn> {
        if !self.can_alloc(plane, stream) {
            return None;
        }
        let mut blk = self.planes[plane as usize].active[stream as usize];
        if self.planes[plane as usize].room[stream as usize] == 0 {
            // With speed frontiers open, a user write may find room only there.
            if stream == Stream::User
                && self.planes[plane as usize].free.len() <= self.user_reserve(plane)
            {
                let open = self.speed.as_ref().and_then(|sp| {
                    sp.frontier[plane as usize]
                        .iter()
                        .copied()
                        .find(|&b| self.has_room(b))
                });
                if let Some(b) = open {
                    return Some(self.take_page(plane, b, None));
                }
            }
            blk = self.open_block(plane, stream)?;
        }
        Some(self.take_page(plane, blk, Some(stream)))
    }

    /// Whether the program that took `ppn` moved its frontier to another
    /// block: it opened one (its first page) or, with eager frontiers,
    /// filled one (its last page: the next is taken then, or GC is asked
    /// for one). GC must look at the plane then.
    #[inline]
    pub fn frontier_moved(&self, ppn: Ppn) -> bool {
        let page = self.geo.page_in_block(ppn);
        page == 0 || (self.eager && page + 1 == self.geo.pages_per_block)
    }

    /// Make the first free block of `plane` `stream`'s open block (a GC
    /// check: MQSim's `Check_gc_required` runs at each).
    fn open_block(&mut self, plane: u32, stream: Stream) -> Option<u32> {
        let ps = &mut self.planes[plane as usize];
        let blk = ps.free.pop_front()?;
        ps.gc_checks += 1;
        ps.active[stream as usize] = blk;
        ps.room[stream as usize] = (self.geo.pages_per_block - self.wp[blk as usize] as u32) as u16;
        self.state[blk as usize] = BlockState::Active;
        if let Some(sp) = &mut self.speed {
            sp.remove_free(plane, blk);
        }
        Some(blk)
    }

    /// Page offset (in its block) the next `alloc(plane, stream)` would
    /// take: the open block's write pointer, or 0 for a fresh block (the
    /// multi-plane address rule compares these).
    #[inline]
    pub fn next_page_offset(&self, plane: u32, stream: Stream) -> u32 {
        let ps = &self.planes[plane as usize];
        if ps.room[stream as usize] > 0 {
            self.wp[ps.active[stream as usize] as usize] as u32
        } else {
            0
        }
    }

    /// Index within its plane of the block the next `alloc(plane, stream)`
    /// writes: the open one, or the first free one (`None`: no block).
    pub fn next_block_index(&self, plane: u32, stream: Stream) -> Option<u32> {
        let ps = &self.planes[plane as usize];
        let b = if ps.room[stream as usize] > 0 {
            ps.active[stream as usize]
        } else {
            *ps.free.front()?
        };
        Some(b - plane * self.geo.blocks_per_plane)
    }

    #[inline]
    pub(super) fn has_room(&self, b: u32) -> bool {
        b != NONE && (self.wp[b as usize] as u32) < self.geo.pages_per_block
    }

    /// Next page of open block `blk`; seals it when full and closes the
    /// frontier holding it (`stream`, or a speed frontier when `None`).
    pub(super) fn take_page(&mut self, plane: u32, blk: u32, stream: Option<Stream>) -> Ppn {
        let ppb = self.geo.pages_per_block;
        let page = self.wp[blk as usize] as u32;
        self.wp[blk as usize] += 1;
        if let Some(s) = stream {
            self.planes[plane as usize].room[s as usize] -= 1;
        }
        if page + 1 == ppb {
            self.state[blk as usize] = BlockState::Full;
            self.seal_seq += 1;
            self.sealed[blk as usize] = self.seal_seq;
            let ps = &mut self.planes[plane as usize];
            if let Some(s) = stream {
                if ps.active[s as usize] == blk {
                    ps.active[s as usize] = NONE;
                    // Eager frontiers take their next block now (whatever
                    // the write floor), as long as the blocks GC needs stay
                    // free (else when next needed, as lazy ones do). Either
                    // way GC looks at the plane, as MQSim's does when it
                    // takes the block: a frontier held back may be what the
                    // plane's writes wait on.
                    if self.eager {
                        if self.may_open(plane, s) {
                            self.open_block(plane, s);
                        } else {
                            self.planes[plane as usize].gc_checks += 1;
                        }
                    }
                }
            }
            if let Some(sp) = &mut self.speed {
                for f in sp.frontier[plane as usize].iter_mut() {
                    if *f == blk {
                        *f = NONE;
                    }
                }
            }
        }
        self.geo.first_ppn(blk) + page
    }
}
