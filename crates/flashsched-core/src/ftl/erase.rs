//! Reclaiming blocks: when a plane needs GC and which victim it takes, the
//! valid pages to move, erases, and blocks TRIM emptied.

use super::gc::{self, Candidate, VictimPolicy};
use super::{BlockState, Ftl, GcMode, NONE, STREAMS};
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::Ppn;

impl Ftl {
    /// Whether GC work in `plane` must go before user I/O: always, unless
    /// GC is preemptive and the plane still has `gc_hard_blocks` free and
    /// more than the blocks user writes may not take ([`Ftl::user_reserve`]:
    /// the last one, or what several running jobs still need), so they
    /// never wait on GC that waits on them.
    #[inline]
    pub fn gc_urgent(&self, plane: u32) -> bool {
        let free = self.planes[plane as usize].free.len();
        self.gc_mode != GcMode::Preemptive
            || (free as u32) < self.gc_hard_blocks
            || free <= self.user_reserve(plane)
    }

    /// GC should start in `plane` (one more job, with several per plane;
    /// `gc_begin` starts a further one only if its victim's pages fit).
    #[inline]
    pub fn gc_needed(&self, plane: u32) -> bool {
        let ps = &self.planes[plane as usize];
        let free = ps.free.len() as u32;
        ps.gc_jobs < self.gc_jobs_max && free < self.gc_threshold_blocks
    }

    /// With several GC jobs per plane: take one of the events (a block a
    /// frontier opened, an erase) at which GC may start one more victim in
    /// `plane` (MQSim checks at exactly these).
    #[inline]
    pub fn take_gc_check(&mut self, plane: u32) -> bool {
        let c = &mut self.planes[plane as usize].gc_checks;
        let any = *c > 0;
        *c = c.saturating_sub(1);
        any
    }

    /// Forget the GC checks counted so far (blocks opened while the drive
    /// was filled before the trace).
    pub fn clear_gc_checks(&mut self) {
        for ps in &mut self.planes {
            ps.gc_checks = 0;
        }
    }

    /// Let GC look at `plane` once more (a retry where writes are stuck).
    pub fn add_gc_check(&mut self, plane: u32) {
        self.planes[plane as usize].gc_checks += 1;
    }

    /// Choose and lock a victim in `plane`; returns the block.
    pub fn gc_begin(&mut self, plane: u32, now: Ns) -> Option<u32> {
        let first = plane * self.geo.blocks_per_plane;
        let blocks = first..first + self.geo.blocks_per_plane;
        let ppb = self.geo.pages_per_block;
        let eligible = |b: u32, state: &[BlockState], valid: &[u16]| {
            state[b as usize] == BlockState::Full && (valid[b as usize] as u32) < ppb
        };
        let r = blocks.start as usize..blocks.end as usize;
        let victim = if let VictimPolicy::Rga(d) = self.policy {
            let mut pool = std::mem::take(&mut self.pool_buf);
            let v = gc::rga(
                &self.state[r.clone()],
                &self.valid[r.clone()],
                blocks.start,
                ppb,
                d,
                &mut self.rng,
                &mut pool,
            );
            self.pool_buf = pool;
            // A sample with no victim starts none (MQSim): GC looks again at
            // the next block a frontier opens. When user writes can no
            // longer open one and no job will erase one, no such look would
            // come: take the emptiest block instead, so the plane never
            // stalls on an unlucky draw.
            let stuck = self.planes[plane as usize].gc_jobs == 0
                && self.planes[plane as usize].free.len() <= self.user_reserve(plane);
            v.or_else(|| {
                stuck
                    .then(|| gc::greedy(&self.state[r.clone()], &self.valid[r], blocks.start, ppb))
                    .flatten()
            })
        } else if self.policy == VictimPolicy::Greedy {
            // Hot path: every GC invocation scans the whole plane.
            gc::greedy(&self.state[r.clone()], &self.valid[r], blocks.start, ppb)
        } else {
            let mut cands = std::mem::take(&mut self.cand_buf);
            cands.clear();
            cands.extend(
                blocks
                    .filter(|&b| eligible(b, &self.state, &self.valid))
                    .map(|b| Candidate {
                        block: b,
                        valid: self.valid[b as usize] as u32,
                        mtime: self.mtime[b as usize],
                        sealed_seq: self.sealed[b as usize],
                    }),
            );
            let v = gc::select(self.policy, &cands, ppb, now, &mut self.rng);
            self.cand_buf = cands;
            v
        };
        let Some(victim) = victim else {
            if !self.starved.contains(&plane) {
                self.starved.push(plane);
            }
            return None;
        };
        // A further job only if the plane can hold its victim's valid pages
        // beside what the running jobs still move (an erase ends one of them
        // and GC looks again then).
        let v = self.valid[victim as usize] as u32;
        if self.planes[plane as usize].gc_jobs > 0 && !self.gc_room_for(plane, v) {
            return None;
        }
        if self.gc_jobs_max > 1 {
            self.planes[plane as usize].gc_need += v;
        }
        self.starved.retain(|&p| p != plane);
        self.state[victim as usize] = BlockState::Victim;
        self.planes[plane as usize].gc_jobs += 1;
        self.stats.gc_invocations += 1;
        Some(victim)
    }

    /// Planes where GC found no victim the last time it was due, if a page
    /// of a full block there has become invalid since (so one may exist
    /// now); taken once. Until GC runs again in such a plane, the device
    /// retries it when user writes are stuck there (`device/gc_retry.rs`).
    pub fn take_starved_retry(&mut self) -> Option<Vec<u32>> {
        std::mem::take(&mut self.starved_retry).then(|| self.starved.clone())
    }

    /// Under dynamic allocation, another plane for a foreground program on
    /// `stream` (user pages, translation pages) queued to `plane` when GC
    /// there found nothing to reclaim and no page is left:
    /// the write would otherwise wait for pages that other writes (possibly
    /// queued behind it) invalidate. SSDsim chooses the plane when the write
    /// is served, so its writes never wait so. `None` when the program can
    /// start where it is (or may not move). The cheap tests go first: this
    /// is asked for every program started.
    #[inline]
    pub fn replan(&self, plane: u32, stream: super::Stream) -> Option<u32> {
        if !self.alloc.is_dynamic() || !self.is_starved(plane) || self.can_alloc(plane, stream) {
            return None;
        }
        self.replan_target(plane, stream)
    }

    /// The first plane with a page for a `stream` program and no GC job:
    /// of `plane`'s die, then of the next dies in order.
    #[cold]
    fn replan_target(&self, plane: u32, stream: super::Stream) -> Option<u32> {
        let ppd = self.geo.planes_per_die;
        let n = self.geo.planes();
        let first = plane / ppd * ppd;
        (0..n).map(|i| (first + i) % n).find(|&p| {
            p != plane && self.planes[p as usize].gc_jobs == 0 && self.can_alloc(p, stream)
        })
    }

    /// Whether GC in `plane` found no victim the last time it was due.
    #[inline]
    pub fn is_starved(&self, plane: u32) -> bool {
        !self.starved.is_empty() && self.starved.contains(&plane)
    }

    /// Whether [`take_starved_retry`](Self::take_starved_retry) has planes.
    #[inline]
    pub fn starved_retry_due(&self) -> bool {
        self.starved_retry
    }

    /// A page of `block` became invalid: if the block is full and its plane
    /// starved, GC there may find a victim now.
    #[cold]
    pub(super) fn note_reclaimable(&mut self, block: u32) {
        if self.state[block as usize] == BlockState::Full
            && self.starved.contains(&(block / self.geo.blocks_per_plane))
        {
            self.starved_retry = true;
        }
    }

    /// Valid pages of `block` with their owners.
    pub fn valid_pages(&self, block: u32) -> Vec<(u32, Ppn)> {
        let first = self.geo.first_ppn(block);
        (first..first + self.geo.pages_per_block)
            .filter_map(|p| self.owner(p).map(|l| (l, p)))
            .collect()
    }

    /// Erase a victim whose pages have all been moved or invalidated; ends
    /// one of the plane's GC jobs.
    pub fn erase(&mut self, block: u32, now: Ns) -> SimResult<()> {
        self.erase_block(block, now)?;
        let ps = &mut self.planes[self.geo.plane_of_block(block) as usize];
        ps.gc_jobs = ps.gc_jobs.saturating_sub(1);
        Ok(())
    }

    fn erase_block(&mut self, block: u32, now: Ns) -> SimResult<()> {
        let b = block as usize;
        if self.valid[b] != 0 {
            return Err(SimError::Invalid(format!(
                "erase of block {block} with {} valid pages",
                self.valid[b]
            ))
            .into());
        }
        let first = self.geo.first_ppn(block) as usize;
        self.p2l
            .clear(first..first + self.geo.pages_per_block as usize);
        self.wp[b] = 0;
        self.erases[b] += 1;
        self.state[b] = BlockState::Free;
        self.mtime[b] = now;
        let plane = self.geo.plane_of_block(block) as usize;
        self.planes[plane].free.push_back(block);
        self.planes[plane].gc_checks += 1;
        if let Some(sp) = &mut self.speed {
            sp.insert_free(plane as u32, block);
        }
        self.stats.erases += 1;
        Ok(())
    }

    /// Written blocks of `plane` that hold no valid page (emptied by TRIM):
    /// closes any open frontier on them and locks them as victims so GC
    /// leaves them alone until [`Ftl::erase_reclaimed`] erases them.
    pub fn take_reclaimable(&mut self, plane: u32) -> Vec<u32> {
        let first = plane * self.geo.blocks_per_plane;
        let mut out = Vec::new();
        for b in first..first + self.geo.blocks_per_plane {
            let i = b as usize;
            let st = self.state[i];
            if self.valid[i] != 0 || self.wp[i] == 0 {
                continue;
            }
            if st == BlockState::Active {
                let ps = &mut self.planes[plane as usize];
                for s in 0..STREAMS {
                    if ps.active[s] == b {
                        ps.active[s] = NONE;
                        ps.room[s] = 0;
                    }
                }
            } else if st != BlockState::Full {
                continue;
            }
            self.state[i] = BlockState::Victim;
            out.push(b);
        }
        out
    }

    /// Erase a block taken by [`Ftl::take_reclaimable`] (no GC job involved).
    pub fn erase_reclaimed(&mut self, block: u32, now: Ns) -> SimResult<()> {
        self.erase_block(block, now)?;
        self.stats.reclaim_erases += 1;
        Ok(())
    }
}
