//! GC that found no victim: when a plane falls below its GC threshold while
//! every full block in it is fully valid, there is nothing to reclaim, and
//! GC is otherwise retried only when a user write starts in the plane or
//! an erase there ends. Once user writes can no longer start there (the
//! last free block is GC's), neither happens, so pages that become invalid
//! later (overwritten elsewhere under dynamic allocation, TRIMmed) would
//! never be reclaimed and the writes would wait forever. The FTL remembers
//! such planes (`Ftl::take_starved_retry`); here GC is retried in them, but
//! only where user writes are stuck — so runs that never got stuck are
//! unchanged.

use super::sched::program_stream;
use super::tx::{Origin, Tx, TxId, TxKind};
use super::Ssd;
use crate::engine::Ns;
use crate::ftl::Stream;

impl Ssd {
    /// A transaction was queued: count programs per plane by the stream
    /// they will take a page from (user pages, and mapping write-backs
    /// unless they have their own frontier, on the user stream), and retry
    /// GC if a foreground one is stuck in a starved plane.
    #[inline]
    pub(super) fn note_queued(&mut self, tx: &Tx, now: Ns) {
        if tx.kind != TxKind::Program {
            return;
        }
        let s = program_stream(&self.ftl, tx.origin);
        self.queued_programs[tx.plane as usize][s as usize] += 1;
        if tx.origin.foreground()
            && self.ftl.is_starved(tx.plane)
            && !self.ftl.can_alloc(tx.plane, s)
        {
            self.ftl.add_gc_check(tx.plane);
            self.maybe_start_gc(tx.plane, now);
        }
    }

    /// The count of programs from `origin` queued in `plane` on their stream.
    #[inline]
    pub(super) fn queued_on_stream(&mut self, origin: Origin, plane: u32) -> &mut u32 {
        let s = program_stream(&self.ftl, origin);
        &mut self.queued_programs[plane as usize][s as usize]
    }

    /// Programs queued in `plane` on the user stream.
    #[inline]
    pub(super) fn queued_user_programs(&self, plane: u32) -> u32 {
        self.queued_programs[plane as usize][Stream::User as usize]
    }

    /// A foreground program from `origin` started in `plane`.
    #[inline]
    pub(super) fn note_program_started(&mut self, origin: Origin, plane: u32) {
        *self.queued_on_stream(origin, plane) -= 1;
    }

    /// Decide phase: retry GC in starved planes where a page became
    /// invalid and user writes are stuck (queued there, or pooled).
    pub(super) fn retry_starved_gc(&mut self, now: Ns) {
        let Some(planes) = self.ftl.take_starved_retry() else {
            return;
        };
        for p in planes {
            let waiting = self.queued_user_programs(p) > 0 || !self.write_pool.is_empty();
            if waiting && !self.ftl.can_alloc(p, Stream::User) {
                self.ftl.add_gc_check(p);
                self.maybe_start_gc(p, now);
            }
        }
    }

    /// Send program `id` (just picked) to `plane` ([`crate::ftl::Ftl::replan`]):
    /// on its die it starts there now (returns false); on another die it
    /// is queued there (returns true).
    pub(super) fn move_program(&mut self, id: TxId, plane: u32, now: Ns) -> bool {
        let old = *self.txs.get(id);
        let die = self.geo.die_of_plane(plane);
        self.stats.programs_replanned += 1;
        *self.queued_on_stream(old.origin, old.plane) -= 1;
        *self.queued_on_stream(old.origin, plane) += 1;
        let t = self.txs.get_mut(id);
        t.plane = plane;
        if die == old.die {
            return false;
        }
        t.die = die;
        let moved = *t;
        self.load_dec(old.die);
        self.load_inc(die);
        self.decide_stamp += 1;
        self.sched.push(id, &moved, now);
        self.mark(die);
        true
    }
}
