//! GC jobs: victim blocks (up to `ftl.gc_jobs_per_plane` per plane at
//! once), their valid pages moved (read + program, or on-die copyback)
//! through the transaction scheduler like user I/O, then erased; and erases
//! of blocks TRIM emptied.
//!
//! A job lives in a slot, `plane × gc_jobs_per_plane + k`; its moves and
//! erase carry the slot as their owner (with one job per plane the slot is
//! the plane).

use super::tx::{Origin, Tx, TxId};
use super::Ssd;
use crate::check::record::OpRecord;
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::ftl::Stream;

/// One GC job (one victim block in one plane).
#[derive(Debug, Clone, Default)]
pub(super) struct GcJob {
    /// The slot holds a running job.
    pub(super) busy: bool,
    pub(super) victim: u32,
    /// Valid pages to relocate, as (lpn, ppn) at job start.
    pub(super) moves: Vec<(u32, u32)>,
    /// Next entry of `moves` to issue.
    pub(super) next: usize,
    /// Moves not finished yet (issued or not).
    pub(super) pending: u32,
}

impl Ssd {
    /// Allocate the destination of a GC move if the page is still live.
    pub(super) fn gc_destination(&mut self, id: TxId, tx: &Tx, now: Ns) -> SimResult<Option<u32>> {
        if self.ftl.lookup(tx.lpn) != Some(tx.ppn) {
            self.finish_gc_move(id, tx.owner, now);
            return Ok(None);
        }
        let dst = self.ftl.alloc(tx.plane, Stream::Gc).ok_or_else(|| {
            SimError::Invalid(format!("GC in plane {} ran out of free pages", tx.plane))
        })?;
        self.ftl.gc_move(tx.lpn, tx.ppn, dst, now);
        if self.ftl.gc_jobs_max > 1 && self.ftl.frontier_moved(dst) {
            // The GC frontier opened (or, eagerly, filled) a block: one
            // more victim may start (after the move is mapped: the block
            // it filled may be that victim).
            self.maybe_start_gc(tx.plane, now);
        }
        self.mapping_changed(tx.lpn, now);
        self.log(OpRecord::GcCopy {
            from: tx.ppn,
            to: dst,
        });
        Ok(Some(dst))
    }

    /// A GC move of job `slot` finished (or turned out unnecessary)
    /// without holding a die.
    pub(super) fn finish_gc_move(&mut self, id: TxId, slot: u32, now: Ns) {
        let tx = self.txs.remove(id);
        self.load_dec(tx.die);
        self.gc_move_done(slot, now);
    }

    /// A move of GC job `slot` finished.
    pub(super) fn gc_move_done(&mut self, slot: u32, now: Ns) {
        let job = &mut self.gc[slot as usize];
        job.pending -= 1;
        if job.pending == 0 {
            job.moves = Vec::new();
            self.push_erase(slot, now);
        } else {
            self.issue_gc_moves(slot, 1, now);
        }
    }

    /// The plane of GC job `slot`.
    #[inline]
    fn slot_plane(&self, slot: u32) -> u32 {
        slot / self.ftl.gc_jobs_max
    }

    /// Queue up to `n` more moves of GC job `slot`.
    pub(super) fn issue_gc_moves(&mut self, slot: u32, n: usize, now: Ns) {
        let plane = self.slot_plane(slot);
        let die = self.geo.die_of_plane(plane);
        for _ in 0..n {
            let job = &mut self.gc[slot as usize];
            let Some(&(lpn, ppn)) = job.moves.get(job.next) else {
                return;
            };
            job.next += 1;
            // The list is read one move at a time over the whole job: keep
            // its next cache line coming.
            if let Some(e) = job.moves.get(job.next + 8) {
                crate::engine::prefetch(e);
            }
            // The read checks its page's owner when it starts and the program
            // looks up its mapping.
            self.ftl.prefetch_lookup(lpn);
            self.ftl.prefetch_owner(ppn);
            let tx = Tx {
                owner: slot,
                ..Tx::gc_move(lpn, ppn, plane, die, self.copyback, now)
            };
            self.enqueue(tx, now);
        }
    }

    fn push_erase(&mut self, slot: u32, now: Ns) {
        let victim = self.gc[slot as usize].victim;
        let plane = self.slot_plane(slot);
        let die = self.geo.die_of_plane(plane);
        let tx = Tx {
            owner: slot,
            ..Tx::erase(Origin::Gc, victim, plane, die, now)
        };
        self.enqueue(tx, now);
    }

    /// The erase of GC job `slot`'s victim finished: the slot is free.
    pub(super) fn gc_job_ended(&mut self, slot: u32) {
        self.gc[slot as usize].busy = false;
    }

    /// Start GC in `plane` if it is below its free-block threshold: with one
    /// job per plane, a job when none runs; with more, one more victim for
    /// each block a frontier opened or erase ended there since the last
    /// look (MQSim's `Check_gc_required`), while fewer than the limit run.
    pub(super) fn maybe_start_gc(&mut self, plane: u32, now: Ns) {
        if self.ftl.gc_jobs_max == 1 {
            self.start_gc_job(plane, now);
            return;
        }
        // A plane where GC last found no victim looks again at every user
        // program, as with one job: pages invalidated since may make one,
        // and once the open block is used up no other check would come.
        if self.ftl.is_starved(plane) {
            self.ftl.add_gc_check(plane);
        }
        while self.ftl.take_gc_check(plane) {
            self.start_gc_job(plane, now);
        }
    }

    /// One more GC job in `plane`, if one is due and finds a victim.
    fn start_gc_job(&mut self, plane: u32, now: Ns) {
        if !self.ftl.gc_needed(plane) {
            return;
        }
        // gc_needed counted fewer jobs than slots, so one is free.
        let n_max = self.ftl.gc_jobs_max;
        let Some(slot) = (plane * n_max..(plane + 1) * n_max).find(|&s| !self.gc[s as usize].busy)
        else {
            return;
        };
        let Some(victim) = self.ftl.gc_begin(plane, now) else {
            return;
        };
        let chip = self.geo.chip_of_die(self.geo.die_of_plane(plane));
        self.chip_gc_step(chip, true, now);
        self.gate.gc_began(plane);
        self.gc_epoch += 1;
        let moves = self.ftl.valid_pages(victim);
        let n = moves.len();
        self.gc[slot as usize] = GcJob {
            busy: true,
            victim,
            pending: n as u32,
            moves,
            next: 0,
        };
        if n == 0 {
            self.push_erase(slot, now);
            return;
        }
        let window = if self.gc_window == 0 {
            n
        } else {
            self.gc_window as usize
        };
        self.issue_gc_moves(slot, window, now);
    }

    /// Erase every written block that TRIM left without valid data, as timed
    /// erase operations on the dies (queued like GC erases). The serial array
    /// calls this after TRIMming a whole SSD, so erases happen only then
    /// (Kim et al., HotStorage'17 §2.2) and internal GC never has to.
    /// Returns the number of erases queued.
    pub fn erase_trimmed_blocks(&mut self, now: Ns) -> u32 {
        let mut n = 0;
        for plane in 0..self.geo.planes() {
            for block in self.ftl.take_reclaimable(plane) {
                let die = self.geo.die_of_plane(plane);
                self.enqueue(Tx::erase(Origin::Reclaim, block, plane, die, now), now);
                n += 1;
            }
        }
        n
    }
}
